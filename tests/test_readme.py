"""README.md's code blocks run as written.

The ```python blocks are saved to one file, in README order (a block may continue from the one
before it, as `allo.report(s)` does after the gemm example), and run in a temporary folder; every
`allo ...` line of a ```bash block runs through the console script's entry point in a folder where
the repository's examples/ is visible. The other shell lines (the setup script, the test-suite
command, running a tutorial with the fresh .venv) cannot run inside the test suite: for them the
files they name must exist.
"""
import re
import runpy
import shlex
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def blocks(lang):
    text = (ROOT / "README.md").read_text()
    return [body for kind, body in BLOCK.findall(text) if kind == lang]


def test_readme_has_python_and_shell_examples():
    assert len(blocks("python")) >= 2 and blocks("bash")


def test_python_blocks_run(tmp_path, monkeypatch):
    code = blocks("python")
    if any("torch" in b for b in code):
        pytest.importorskip("torch")
    if any('mode="csim"' in b for b in code) and shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    monkeypatch.chdir(tmp_path)
    script = tmp_path / "readme_blocks.py"  # as a user would run them: saved to a file
    script.write_text("".join(f"# ---- README python block {k}\n{b}\n" for k, b in enumerate(code)))
    runpy.run_path(str(script), run_name="__main__")


def test_shell_blocks(tmp_path, monkeypatch, capsys):
    from allo.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    for body in blocks("bash"):
        for line in body.splitlines():
            command = line.split("#")[0].strip()
            if command.startswith("allo "):
                assert main(shlex.split(command)[1:]) == 0, command
            elif command:
                for word in shlex.split(command.replace("&&", " ")):
                    if word.endswith((".sh", ".py")):
                        assert (ROOT / word).exists(), f"README names {word}, which does not exist"
    out = capsys.readouterr().out
    if "--csim" in out or "csim:" in out:
        err = float(out.split("csim: max |allo - torch| on random inputs = ")[1].split()[0])
        assert err < 1e-4
