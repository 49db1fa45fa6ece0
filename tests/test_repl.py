"""Kernels defined interactively: where Python keeps the source (IPython/Jupyter cells and the
Python 3.13+ REPL register it in linecache) they work like kernels in files, error locations
included; where it does not (the REPL before 3.13) the AlloError says that a kernel must live in a
file. scripts/check_py312.sh runs this file on Python 3.12/3.13 too."""
import linecache
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import allo

ROOT = Path(__file__).resolve().parent.parent
CELL = """\
from allo.ir.types import int32

def add(A: int32[4]) -> int32[4]:
    B: int32[4] = 0
    for i in range(4):
        B[i] = A[i] + 1
    return B
"""
BAD_CELL = """\
def bad(A: int32[4]) -> int32[4]:
    return A + Q
"""


def run_cell(source: str, name: str, namespace: dict):
    """What IPython and the 3.13 REPL do with a cell: register its text in linecache (no mtime,
    so linecache.checkcache keeps it), then compile and run it under that name."""
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    exec(compile(source, name, "exec"), namespace)


@pytest.mark.parametrize("cell_name, bad_name", [
    ("<python-input-0>", "<python-input-1>"),                                 # the Python 3.13 REPL
    ("<ipython-input-1-8f2a61c0a9e4>", "<ipython-input-2-0b7c1d2e3f40>"),     # IPython
    ("/tmp/ipykernel_4242/3356214891.py", "/tmp/ipykernel_4242/1187710394.py"),  # Jupyter (no such file)
])
def test_a_kernel_from_a_cell_builds_and_its_errors_quote_the_cell(cell_name, bad_name):
    ns = {}
    run_cell(CELL, cell_name, ns)
    out = allo.customize(ns["add"]).build()(np.arange(4, dtype=np.int32))
    np.testing.assert_array_equal(out, np.arange(1, 5))
    run_cell(BAD_CELL, bad_name, ns)
    with pytest.raises(allo.AlloNameError) as info:
        allo.customize(ns["bad"])
    first, quoted = str(info.value).splitlines()[:2]
    assert first.startswith(f"{bad_name}:2: unknown name 'Q'") and quoted.strip() == "return A + Q"


def test_a_kernel_without_source_says_it_must_live_in_a_file():
    ns = {}
    exec(compile(CELL, "<stdin>", "exec"), ns)  # the plain REPL before 3.13 keeps no text
    with pytest.raises(allo.AlloError) as info:
        allo.customize(ns["add"])
    msg = str(info.value)
    assert "cannot read the source of kernel 'add'" in msg and "typed into an interactive Python session" in msg
    assert "a kernel must live in a file" in msg and "IPython/Jupyter" in msg and "3.13" in msg


def test_the_interactive_interpreter_itself():
    """`python -i` fed a kernel: on 3.13+ it runs (the REPL keeps the source), before 3.13 the one
    AlloError line says why not."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]), TERM="dumb")
    session = ("import allo, numpy as np\n" + CELL + "\n"
               "try:\n    print('RESULT', allo.customize(add).build()(np.arange(4, dtype=np.int32)).tolist())\n"
               "except allo.AlloError as e:\n    print('ALLOERROR', e)\n\n")
    r = subprocess.run([sys.executable, "-i", "-q"], input=session, env=env, capture_output=True, text=True,
                       timeout=300)
    if sys.version_info >= (3, 13):
        assert "RESULT [1, 2, 3, 4]" in r.stdout, r.stdout + r.stderr
    else:
        assert "ALLOERROR cannot read the source of kernel 'add'" in r.stdout, r.stdout + r.stderr
        assert "a kernel must live in a file" in r.stdout
