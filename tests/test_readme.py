"""The code blocks of README.md and docs/*.md run as pasted, in an empty folder.

Each file's ```python blocks are saved to one script, in the file's order (a block may continue
from the one before it in the same file, as the README's `allo.report(s)` does after the gemm
example), and run in a temporary folder. A block that needs an optional extra says so on the line
before its fence, `<!-- needs: torch -->` or `<!-- needs: rtl torch -->` (invisible once rendered);
it is left out only where that extra is missing, and a block that uses torch or the RTL flow
without the marker fails here. In the README's ```bash blocks every `allo ...` line runs through
the console script's entry point in a folder where the repository's examples/ is visible, and the
lines after it run with bash in that folder; the lines that install or set up (pip, the setup
script, the test suite, a tutorial with the fresh .venv) cannot run inside the test suite: for them
the files they name must exist.
"""
import importlib.util
import re
import runpy
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.rtl_util import missing_tools

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^(?:<!-- needs: ([\w ]+) -->\n)?```(\w+)\n(.*?)^```", re.S | re.M)
EXTRAS = {  # marker -> what is missing on this machine (empty: present)
    "torch": lambda: [] if importlib.util.find_spec("torch") else ["torch"],
    "rtl": missing_tools,
}
USES = {"torch": re.compile(r"\btorch\b"), "rtl": re.compile(r"target=\"(rtl|calyx)\"|\.synth\(")}


def blocks(path: Path, lang: str) -> list:
    """[(needs, body)] of the ```lang blocks of one file, in order."""
    return [(set(needs.split()) if needs else set(), body)
            for needs, kind, body in BLOCK.findall(path.read_text()) if kind == lang]


def with_python_blocks():
    return [pytest.param(p, id=p.relative_to(ROOT).as_posix()) for p in DOCS if blocks(p, "python")]


def test_readme_has_python_and_shell_examples():
    assert len(blocks(ROOT / "README.md", "python")) >= 2 and blocks(ROOT / "README.md", "bash")
    assert len(with_python_blocks()) >= 4  # README.md and docs: dse, language, quantization, rtl


@pytest.mark.parametrize("doc", with_python_blocks())
def test_python_blocks_run_as_pasted_in_an_empty_folder(doc, tmp_path, monkeypatch):
    code, skipped = [], []
    for k, (needs, body) in enumerate(blocks(doc, "python")):
        for extra, pattern in USES.items():
            assert extra in needs or not pattern.search(body), \
                f"{doc.name} python block {k} uses {extra}: mark it <!-- needs: {extra} --> before its fence"
        assert needs <= set(EXTRAS), f"{doc.name} python block {k}: unknown marker {needs - set(EXTRAS)}"
        missing = [m for extra in sorted(needs) for m in EXTRAS[extra]()]
        if 'mode="csim"' in body and shutil.which("g++") is None:
            missing.append("g++")
        (skipped if missing else code).append((k, body, missing))
    if not code:
        pytest.skip(f"every block needs something missing here: {skipped[0][2]}")
    monkeypatch.chdir(tmp_path)
    script = tmp_path / f"{doc.stem}_blocks.py"  # as a user would run them: saved to a file
    script.write_text("".join(f"# ---- {doc.name} python block {k}\n{body}\n" for k, body, _ in code))
    runpy.run_path(str(script), run_name="__main__")


def _runs_in_suite(command: str) -> bool:
    """False for the lines that install or set up (they are checked for the files they name)."""
    return not any(w in command for w in ("pip install", "setup.sh", "pytest", ".venv/bin/python", "activate"))


def _repository_status():
    """`git status` of the checkout (None outside a git checkout)."""
    try:
        r = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT, capture_output=True,
                           text=True, timeout=60)
    except OSError:
        return None
    return r.stdout if r.returncode == 0 else None


def test_shell_blocks(tmp_path, monkeypatch, capsys):
    from allo.cli import main

    before = _repository_status()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    ran_allo = False
    for _, body in blocks(ROOT / "README.md", "bash"):
        for line in body.splitlines():
            command = line.split("#")[0].strip()
            words = shlex.split(command)
            if words and Path(words[0]).name == "allo":
                assert main(words[1:]) == 0, command
                ran_allo = True
            elif command and _runs_in_suite(command):
                assert ran_allo, f"README runs {command!r} before any allo command made its files"
                r = subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, text=True, timeout=600)
                assert r.returncode == 0, f"{command}\n{r.stdout}\n{r.stderr}"
            elif command:
                for word in shlex.split(command.replace("&&", " ")):
                    if word.endswith((".sh", ".py")):
                        assert (ROOT / word).exists(), f"README names {word}, which does not exist"
    out = capsys.readouterr().out
    if "--csim" in out or "csim:" in out:
        err = float(out.split("csim: max |allo - torch| on random inputs = ")[1].split()[0])
        assert err < 1e-4
    assert _repository_status() == before, "the commands wrote into the repository, not the folder they ran in"


def test_readme_shows_the_venv_console_script():
    """`allo` is not on PATH after setup.sh: the README activates the venv or calls .venv/bin/allo."""
    text = (ROOT / "README.md").read_text()
    assert ". .venv/bin/activate" in text and ".venv/bin/allo" in text
