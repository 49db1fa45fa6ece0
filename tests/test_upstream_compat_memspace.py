"""Upstream Allo's memory spaces: the view (`s.module`) writes an `@ Memory(...)` binding into the
memref type (`memref<32xi32, 32 : i32>`, resource code * 16 + storage-type code), with
`memref.memory_space_cast` where a bound array meets a parameter or result of another space.
The LLVM and HLS builds compute exactly as without the binding (checked against numpy)."""
import numpy as np
import pytest

import allo
from allo.ir.attrs import memory_space
from allo.ir.types import float32, int32
from allo.memory import Memory


def scale(x: int32[32] @ Memory(resource="LUTRAM")):
    for i in range(32):
        x[i] = x[i] * 3


def top(a: int32[32] @ Memory(resource="URAM"), c: float32[4, 4] @ Memory(resource="BRAM")) -> int32[32]:
    b: int32[32] @ Memory(resource="BRAM", storage_type="RAM_2P")
    for i in range(32):
        b[i] = a[i] + 1
    scale(b)
    scale(a)
    for i, j in allo.grid(4, 4):
        c[i, j] = c[i, j] * 2.0
    return b


@pytest.mark.parametrize("binding, code", [(None, 0), ({"resource": "AUTO", "storage_type": None}, 0),
                                           ({"resource": "BRAM", "storage_type": None}, 16),
                                           ({"resource": "URAM", "storage_type": None}, 32),
                                           ({"resource": "LUTRAM", "storage_type": None}, 48),
                                           ({"resource": "BRAM", "storage_type": "RAM_2P"}, 18),
                                           ({"resource": "SRL", "storage_type": "ROM_NP"}, 72)])
def test_memory_space_numbers_match_memory_objects(binding, code):
    assert memory_space(binding) == code
    if binding:
        assert Memory(binding["resource"], binding["storage_type"]).get_memory_space() == code


def test_view_types_carry_the_memory_space():
    text = str(allo.customize(top).module)
    sig = text.split("func.func @top(")[1].split(")")[0]
    assert "memref<32xi32, 32 : i32>" in sig and "memref<4x4xf32, 16 : i32>" in sig
    assert "memref.alloc() {bind_storage" in text and ": memref<32xi32, 18 : i32>" in text
    assert "func.func @scale(%arg0: memref<32xi32, 48 : i32>)" in text
    # a bound array passed to scale's LUTRAM parameter, and the BRAM local returned as a plain memref
    assert "memref.memory_space_cast %alloc : memref<32xi32, 18 : i32> to memref<32xi32, 48 : i32>" in text
    assert "memref.memory_space_cast %alloc : memref<32xi32, 18 : i32> to memref<32xi32>" in text
    assert "-> memref<32xi32>" in sig + text.split("func.func @top(")[1].split("{")[0]


def test_builds_compute_as_without_the_binding():
    s = allo.customize(top)
    a = np.arange(32, dtype=np.int32)
    c = np.arange(16, dtype=np.float32).reshape(4, 4)
    a1, c1 = a.copy(), c.copy()
    np.testing.assert_array_equal(s.build()(a1, c1), (a + 1) * 3)
    np.testing.assert_array_equal(a1, a * 3)
    np.testing.assert_allclose(c1, c * 2.0)
    hls = s.build(target="vhls").hls_code
    assert "impl=uram" in hls and "impl=lutram" in hls and "32 : i32" not in hls
    if allo.backend.hls.is_available("csim"):
        a2, c2 = a.copy(), c.copy()
        np.testing.assert_array_equal(s.build(target="vitis_hls", mode="csim")(a2, c2), (a + 1) * 3)
        np.testing.assert_array_equal(a2, a * 3)
