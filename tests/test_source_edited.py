"""A kernel file edited after it was imported (issue 26: a long benchmark run whose kernel file was
edited meanwhile built `mvt` with gesummv's parameters). Python keeps no source, so allo reads the
file again at each build: lines inserted above a kernel moved another kernel's `def` to its first
line. A kernel built before the edit keeps the text of its first build; one first built after the
edit is refused with its file and line (never built from another kernel's text)."""
import importlib.util
import os
import sys

import numpy as np
import pytest

import allo
from allo.errors import AlloError

SOURCE = '''\
from allo.ir.types import float32


def first(A: float32[4], B: float32[4]) -> float32[4]:
    C: float32[4]
    for i in range(4):
        C[i] = A[i] + B[i]
    return C


def second(x: float32[3]) -> float32[3]:
    y: float32[3]
    for i in range(3):
        y[i] = x[i] * 2.0
    return y


def third(x: float32[2]) -> float32[2]:
    y: float32[2]
    for i in range(2):
        y[i] = x[i] - 1.0
    return y
'''


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _shift(path, lines):
    """Insert `lines` blank lines above every kernel (as a longer docstring would), so each def
    moves down by that much and an old first line now holds the kernel defined above it."""
    text = open(path).read()
    head, rest = text.split("\n\n\n", 1)
    with open(path, "w") as f:
        f.write(head + "\n" * lines + "\n\n\n" + rest)
    st = os.stat(path)
    os.utime(path, (st.st_atime, st.st_mtime + 5))  # a new mtime even on coarse file systems


def test_edited_file_keeps_built_kernel_and_refuses_unbuilt_one(tmp_path):
    path = tmp_path / "edited_kernels.py"
    path.write_text(SOURCE)
    mod = _load(str(path), "edited_kernels_mod")
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_allclose(allo.customize(mod.second).build()(x), x * 2.0)
    # the defs are 7 lines apart: after the shift, second's first line holds first's
    # def and third's first line holds second's def
    _shift(str(path), 7)
    # built before the edit: the same text as its first build (3 elements, doubled)
    s = allo.customize(mod.second)
    assert [p.name for p in s.top_func.params] == ["x"] and s.top_func.params[0].shape == (3,)
    np.testing.assert_allclose(s.build()(x), x * 2.0)
    # first built after the edit: refused, naming the file, the line and what is there now
    with pytest.raises(AlloError) as e:
        allo.customize(mod.third)
    msg = str(e.value)
    assert "edited_kernels.py:" in msg and "'third'" in msg and "def second(x)" in msg and "Restart Python" in msg


def test_unedited_decorated_and_wrapped_kernels_build(tmp_path):
    path = tmp_path / "wrapped_kernels.py"
    path.write_text("import functools\nimport allo\nfrom allo.ir.types import float32\n\n\n"
                    "def deco(fn):\n    @functools.wraps(fn)\n    def w(*a):\n        return fn(*a)\n    return w\n\n\n"
                    "@deco\ndef k(A: float32[4]) -> float32[4]:\n    return A + 1.0\n\n\n"
                    "@allo.kernel\ndef k2(A: float32[4]) -> float32[4]:\n    return A * 3.0\n")
    mod = _load(str(path), "wrapped_kernels_mod")
    a = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(allo.customize(mod.k).build()(a), a + 1.0)
    np.testing.assert_allclose(mod.k2(a), a * 3.0)
