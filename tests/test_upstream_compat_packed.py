"""Integers wider than 64 bits at the boundary of the interpreter and the dataflow simulator, in
upstream Allo's host container: allo.utils.get_np_struct_type(bits), bytes least significant first
(`np.uint32` lanes viewed as one uint256)."""
import numpy as np
import pytest

import allo
import allo.dataflow as df
from allo import interp
from allo.ir.types import uint256
from allo.utils import get_np_struct_type


def test_packed_lanes_add_in_the_simulator_and_come_back_in_place():
    @df.region()
    def top(A: uint256[2], B: uint256[2], C: uint256[2]):
        @df.kernel(mapping=[1], args=[A, B, C])
        def vec(a: uint256[2], b: uint256[2], c: uint256[2]):
            for w in range(2):
                for i in allo.grid(8, name="lanes"):
                    c[w][i * 32: (i + 1) * 32] = a[w][i * 32: (i + 1) * 32] + b[w][i * 32: (i + 1) * 32]

    rng = np.random.default_rng(5)
    A = rng.integers(0, 2**32, 16, dtype=np.uint64).astype(np.uint32)
    B = rng.integers(0, 2**32, 16, dtype=np.uint64).astype(np.uint32)
    C = np.zeros(16, np.uint32)
    t = get_np_struct_type(256)
    pa, pb, pc = (np.ascontiguousarray(x).view(t) for x in (A, B, C))
    df.build(top, target="simulator")(pa, pb, pc)
    np.testing.assert_array_equal(C, A + B)  # lanes wrap at 32 bits, each on its own


def test_the_interpreter_reads_and_writes_the_byte_containers_and_checks_the_width():
    def rev(A: uint256[1], B: uint256[1]):
        B[0] = A[0] + 1

    mod = allo.customize(rev).ir
    a = np.zeros(1, get_np_struct_type(256))
    a.view(np.uint8)[:] = 0xFF  # 2**256 - 1: + 1 wraps to 0
    a.view(np.uint8)[31] = 0x7F  # 2**255 - 1: + 1 = 2**255
    b = np.zeros(1, get_np_struct_type(256))
    interp.run(mod, a, b)
    assert int.from_bytes(b.tobytes(), "little") == 2**255
    with pytest.raises(allo.AlloError, match=r"128-bit packed array.*get_np_struct_type\(256\)"):
        interp.run(mod, np.zeros(1, get_np_struct_type(128)), b)
