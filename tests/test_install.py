"""Install items of an allo that works off this machine: version, typing marker, licence, dependency
ranges with CI pins, the optional OpenMP runtime, and the Python 3.12/3.13 check that must not
break CI where no such interpreter exists."""
import os
import re
import subprocess
import tomllib
from pathlib import Path

import allo

ROOT = Path(__file__).resolve().parent.parent


def pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_version_typing_marker_and_license():
    assert re.fullmatch(r"\d+\.\d+\.\d+", allo.__version__)
    proj = pyproject()
    assert proj["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "allo.__version__"}
    assert (Path(allo.__file__).parent / "py.typed").exists()
    assert "py.typed" in proj["tool"]["setuptools"]["package-data"]["allo"]
    assert "MIT" in (ROOT / "LICENSE").read_text() and proj["project"]["license"] == {"text": "MIT"}
    assert "Programming Language :: Python :: 3.12" in proj["project"]["classifiers"]


def test_dependencies_are_ranges_pinned_by_the_ci_constraints():
    pins = dict(line.split("==") for line in (ROOT / "constraints" / "ci.txt").read_text().splitlines()
                if line and not line.startswith("#"))
    extras = pyproject()["project"]["optional-dependencies"]
    deps = pyproject()["project"]["dependencies"] + extras["torch"] + extras["dse"]
    for dep in deps:
        name = re.match(r"[A-Za-z0-9_.-]+", dep).group(0)
        assert "==" not in dep.split(";")[0], f"{dep}: users get ranges, CI pins live in constraints/ci.txt"
        assert name in pins, f"{name} has no exact CI pin in constraints/ci.txt"
    omp = next(d for d in deps if d.startswith("intel-openmp"))
    assert "platform_machine" in omp and "sys_platform" in omp  # only where wheels exist


def test_py312_check_skips_with_a_message_where_no_interpreter_exists(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYENV_ROOT": str(tmp_path / "none"),
           "ALLO_PY312_NO_APT": "1"}
    r = subprocess.run(["bash", str(ROOT / "scripts" / "check_py312.sh")], env=env, capture_output=True, text=True,
                       timeout=60)
    if "allo core on" in r.stdout:  # the machine has a system python3.12/3.13: it ran the real check
        assert r.returncode == 0, r.stdout + r.stderr
        return
    assert r.returncode == 0, r.stderr
    assert "PEP 695 check SKIPPED" in r.stderr


def test_setup_says_what_each_step_installs_and_how_long_it_took():
    """setup.sh takes ~4 minutes: every install step goes through `step`, which says on stderr what it
    installs before it starts and how long it took when it ends."""
    script = (ROOT / "scripts" / "setup.sh").read_text()
    lines = script.replace("\\\n", " ").splitlines()
    for line in lines:  # (the pip inside the quiet_pip helper runs with its caller's "$@")
        if any(w in line for w in ("quiet_pip ", "pip install", "apt-get install", "run_yosys")) and \
                not line.lstrip().startswith("#") and '"$@"' not in line:
            assert "step " in line, f"setup.sh runs a long step without saying so: {line.strip()}"
    fn = script[script.index("step() {"):]
    fn = fn[:fn.index("\n}\n") + 3]
    r = subprocess.run(["bash", "-c", fn + 'step "installing nothing" sleep 0'], capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 0 and r.stderr.splitlines() == ["setup: installing nothing ...",
                                                           "setup: installing nothing: done in 0 s"], r.stderr
