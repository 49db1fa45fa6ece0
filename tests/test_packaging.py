"""The wheel ships every file of the package: each non-.py file under allo/ (the C++ headers and
drivers, the QoR tables, py.typed) is read at run time by some module, so a wheel without one gives
a broken install (allo.report raised FileNotFoundError from a wheel without qor/data/*.json).
scripts/check_wheel.sh installs the wheel into a clean venv and runs scripts/wheel_smoke.py there."""
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def package_files():
    """Every file of the allo/ tree a checkout holds, as paths inside the wheel."""
    return {p.relative_to(ROOT).as_posix() for p in (ROOT / "allo").rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"}


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory):
    pytest.importorskip("setuptools")
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "allo", src / "allo", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                        "-w", str(tmp / "dist"), str(src)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    (wheel,) = (tmp / "dist").glob("allo-*.whl")
    with zipfile.ZipFile(wheel) as z:
        return set(z.namelist())


def test_the_wheel_holds_every_file_of_the_package(wheel_names):
    missing = sorted(package_files() - wheel_names)
    assert not missing, (f"the wheel lacks {missing}: add their kind to [tool.setuptools.package-data] in "
                         "pyproject.toml")


def test_the_data_files_the_code_reads_are_in_the_wheel(wheel_names):
    for name in ("allo/qor/data/operators.json", "allo/qor/data/parts.json", "allo/backend/hls/include/allo_ap.h",
                 "allo/backend/rtl/driver/allo_rtl_driver.cpp", "allo/backend/rtl/driver/allo_rtl.h",
                 "allo/backend/rtl/circt_worker.py", "allo/py.typed"):
        assert name in wheel_names, name
    assert any(n.endswith("entry_points.txt") for n in wheel_names)


def test_ci_runs_the_wheel_smoke_test():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "scripts/check_wheel.sh" in ci
    script = (ROOT / "scripts" / "check_wheel.sh").read_text()
    assert "wheel_smoke.py" in script and "constraints/ci.txt" in script
