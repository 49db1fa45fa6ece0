"""`allo.ir.types.Struct` (upstream Allo's record type): struct locals are scalarised per field by
the builder, so the LLVM build, the interpreter and HLS csim all compute them; misuse is an
AlloError naming the kernel line."""
import shutil

import numpy as np
import pytest

import allo
from allo import interp
from allo.ir import types as T
from allo.ir.types import float32, int32

S = T.Struct({"x": int32, "y": float32})


def kernel(x: int32[16], y: float32[16]) -> int32:
    total: int32 = 0
    for i in range(16):
        p: S = {"x": x[i], "y": y[i]}
        p["x"] = p["x"] * 2
        p["y"] += 1.5
        q: S = p
        total += q["x"] + int(p["y"])
    return total


def test_struct_fields_compute_like_numpy_on_every_backend():
    rng = np.random.default_rng(2)
    x = rng.integers(-50, 50, 16).astype(np.int32)
    y = rng.uniform(-4, 4, 16).astype(np.float32)
    want = int((2 * x).sum() + np.trunc(y + np.float32(1.5)).astype(np.int64).sum())
    s = allo.customize(kernel)
    assert s.build()(x, y) == want
    assert interp.run(s.ir, x, y) == want
    if shutil.which("g++"):
        mod = s.build(target="vhls", mode="csim")
        assert "int32_t p_x = x[i];" in mod.hls_code and "float p_y = y[i];" in mod.hls_code
        assert mod(x, y) == want


def _fails(src_fn, match):
    with pytest.raises(allo.AlloError, match=match) as info:
        allo.customize(src_fn)
    assert "test_upstream_compat_struct.py:" in str(info.value)


def test_struct_misuse_names_the_field_and_the_line():
    def unknown(x: int32[4]) -> int32:
        p: S = {"x": x[0], "y": 1.0}
        return p["z"]

    def missing(x: int32[4]) -> int32:
        p: S = {"x": x[0]}
        return p["x"]

    def as_argument(p: S) -> int32:
        return 0

    def rebind(x: int32[4]) -> int32:
        p: S = {"x": x[0], "y": 1.0}
        p = 3
        return p

    _fails(unknown, "no field 'z'")
    _fails(missing, r"no value for field\(s\) y")
    _fails(as_argument, "structs are kernel locals only")
    _fails(rebind, "'p' is a struct: assign its fields")
    with pytest.raises(allo.AlloTypeError, match="arrays of structs are not supported"):
        S[4]
    with pytest.raises(allo.AlloTypeError, match="scalar type"):
        T.Struct({"x": int32[4]})
