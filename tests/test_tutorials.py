"""Every tutorial script runs to completion (exit code 0) with the current interpreter, and leaves
the folder it runs in as it was (the README runs them from the repository root: what they write
goes to temporary folders)."""
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TUTORIALS = sorted((ROOT / "tutorials").glob("*.py"))
NEEDS_TORCH = ("03",)  # tutorial 03 imports a PyTorch model


def _marks(path):
    if path.name.startswith(NEEDS_TORCH) and importlib.util.find_spec("torch") is None:
        return [pytest.mark.skip(reason="torch is not installed")]
    return []


@pytest.mark.parametrize("path", [pytest.param(p, marks=_marks(p), id=p.name) for p in TUTORIALS])
def test_tutorial_runs(path, tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    proc = subprocess.run([sys.executable, str(path)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, f"{path.name} exited with {proc.returncode}\n--- stdout\n{proc.stdout[-3000:]}" \
                                 f"\n--- stderr\n{proc.stderr[-3000:]}"
    left = sorted(p.name for p in tmp_path.iterdir())
    assert not left, f"{path.name} wrote {left} into the folder it ran in"


def test_tutorial_01_exists():
    assert (ROOT / "tutorials" / "01_getting_started.py") in TUTORIALS
