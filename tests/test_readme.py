"""README.md's code blocks run as written.

Every ```python block is saved to a file and run on its own (in a temporary folder); every
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


@pytest.mark.parametrize("index", range(len(blocks("python"))))
def test_python_block_runs(index, tmp_path, monkeypatch):
    if "torch" in blocks("python")[index]:
        pytest.importorskip("torch")
    if "mode=\"csim\"" in blocks("python")[index] and shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    monkeypatch.chdir(tmp_path)
    script = tmp_path / f"readme_block_{index}.py"  # as a user would: saved to a file and run
    script.write_text(blocks("python")[index])
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
