"""Forms upstream Allo's top-level tests use (scripts/run_upstream_suite.sh runs those unchanged):
allo.memory's Layout/DTensor descriptions and Memory's memory-space code, allo.utils, allo.grid's
pipeline=/unroll= keywords. Kernels are checked against numpy."""
import re

import numpy as np
import pytest

import allo
from allo.errors import AlloValueError
from allo.ir.types import int32, uint8, uint32
from allo.memory import DTensor, Layout, Memory
from allo.utils import get_np_struct_type

S, R = Layout.Shard, Layout.Replicate


def test_layout_placement_maps_tensor_tiles_to_pes():
    assert Layout([S(0), R]).get_placement([2, 2]) == {(0, 0): [(0, 0), (0, 1)], (1, 0): [(1, 0), (1, 1)]}
    assert Layout([R, S(1)]).get_placement([2, 3]) == {
        (0, j): [(0, j), (1, j)] for j in range(3)}
    assert Layout([S(0), R]) == Layout([S(0), R()]) != Layout([R, S(0)])
    with pytest.raises(AlloValueError, match="mesh dimension 2"):
        Layout([S(2), R]).get_placement([2, 2])
    with pytest.raises(ValueError, match="Layout.Shard"):  # also a ValueError, as upstream raises
        Layout(["S0", R])


def test_dtensor_local_shape_and_spec():
    t = DTensor(rank=None, mapping=[2, 4], shape=(32, 32), dtype=int32, spec=Layout([S(0), S(1)]), name="A")
    assert t.get_local_shape() == (16, 8) and t.memory is None
    assert sorted(t.global_placement) == [(i, j) for i in range(2) for j in range(4)]
    m = DTensor(rank=None, mapping=None, shape=(8,), dtype=int32, spec=Memory(resource="URAM"), name="B")
    assert m.memory == Memory(resource="URAM") and m.layout is None and m.get_local_shape() == (8,)
    assert "memory=" in str(m) and "layout=" in str(t)
    with pytest.raises(AlloValueError, match="does not split evenly"):
        DTensor(None, [3, 1], (32, 32), int32, Layout([S(0), R]), name="C").get_local_shape()
    with pytest.raises(AlloValueError, match="2 entries"):
        DTensor(None, [2], (32,), int32, Layout([S(0), R]), name="D")


def test_memory_space_code_errors_and_depth():
    assert Memory(resource="BRAM", storage_type="RAM_2P").get_memory_space() == 18
    assert Memory(resource="URAM").get_memory_space() == 32
    assert Memory(resource="lutram", storage_type="rom_np").get_memory_space() == 3 * 16 + 8
    assert Memory().get_memory_space() == 0
    with pytest.raises(ValueError, match="Invalid resource"):
        Memory(resource="DRAM")
    with pytest.raises(allo.AlloError, match="Invalid storage_type"):
        Memory(storage_type="RAM_9P")
    mem = Memory(resource="URAM", depth=1024)
    assert mem.depth == 1024 and mem != Memory(resource="URAM") and "depth=1024" in repr(mem)
    with pytest.raises(allo.AlloTypeError, match="drop depth="):
        int32[16] @ mem
    with pytest.raises(AlloValueError, match="positive"):
        Memory(depth=0)


def test_np_struct_type_holds_wide_words():
    t = get_np_struct_type(130)
    assert t.itemsize == 17 and t.names[0] == "f0" and t.names[-1] == "f16"
    words = np.zeros(3, dtype=get_np_struct_type(128))
    assert words.view(np.uint8).shape == (48,)
    with pytest.raises(AlloValueError):
        get_np_struct_type(0)


def _loop_attrs(text, name):
    """The attribute text of the loop named `name` in rendered MLIR."""
    m = re.search(r'\{loop_name = "' + name + r'"[^}]*\}', text)
    assert m, name
    return m.group(0)


def test_grid_pipeline_and_unroll_keywords_annotate_loops():
    def kernel(A: int32[4, 6, 8]) -> int32[4, 6, 8]:
        B: int32[4, 6, 8] = 0
        for i, j, k in allo.grid(4, 6, 8, pipeline=[False, 2, 0], unroll=[True, False, 4]):
            B[i, j, k] = A[i, j, k] * 3 + 1
        return B

    s = allo.customize(kernel)
    text = str(s.module)
    assert "unroll = 0" in _loop_attrs(text, "i") and "pipeline_ii" not in _loop_attrs(text, "i")
    assert "pipeline_ii = 2" in _loop_attrs(text, "j") and "unroll" not in _loop_attrs(text, "j")
    assert "unroll = 4" in _loop_attrs(text, "k") and "pipeline_ii" not in _loop_attrs(text, "k")
    code = s.build(target="vhls").hls_code
    assert "#pragma HLS pipeline II=2" in code and "#pragma HLS unroll factor=4" in code
    A = np.arange(4 * 6 * 8, dtype=np.int32).reshape(4, 6, 8)
    np.testing.assert_array_equal(s.build()(A), A * 3 + 1)


def test_grid_scalar_keywords_apply_to_the_innermost_loop_and_bad_values_are_refused():
    def kernel(A: int32[4, 6]) -> int32[4, 6]:
        B: int32[4, 6] = 0
        for i, j in allo.grid(4, 6, pipeline=True):
            B[i, j] = A[i, j] - 2
        return B

    s = allo.customize(kernel)
    assert "pipeline_ii = 1" in _loop_attrs(str(s.module), "j")
    assert "pipeline_ii" not in _loop_attrs(str(s.module), "i")
    A = np.arange(24, dtype=np.int32).reshape(4, 6)
    np.testing.assert_array_equal(s.build()(A), A - 2)

    def bad(A: int32[4, 6]):
        for i, j in allo.grid(4, 6, unroll=[1, 2, 3]):
            A[i, j] = 0

    with pytest.raises(allo.AlloSyntaxError, match="one entry per loop"):
        allo.customize(bad)

    def bad2(A: int32[4]):
        for i in allo.grid(4, pipeline=-1):
            A[i] = 0

    with pytest.raises(allo.AlloSyntaxError, match="non-negative"):
        allo.customize(bad2)


def test_bit_slices_with_run_time_bounds_of_constant_width():
    def unpack(w: int32, out: int32[11]):
        for i in range(1, 12):
            out[i - 1] = w[i - 1:i]  # one bit at a time

    def lanes(A: uint32[2]) -> uint8[8]:
        res: uint8[8] = 0
        for k in range(2):
            for i in range(4):
                res[k * 4 + i] = A[k][i * 8:(i + 1) * 8]
        return res

    def pack(A: uint8[8]) -> uint32[2]:
        res: uint32[2] = 0
        for k in range(2):
            for i in range(4):
                res[k][i * 8:i * 8 + 8] = A[k * 4 + i]
        return res

    bits = np.zeros(11, np.int32)
    allo.customize(unpack).build()(1234, bits)
    assert "".join(map(str, bits[::-1])) == format(1234, "011b")
    words = np.array([0x12345678, 0xDEADBEEF], np.uint32)
    np.testing.assert_array_equal(allo.customize(lanes).build()(words), words.view(np.uint8))
    s = allo.customize(pack)
    np.testing.assert_array_equal(s.build()(words.view(np.uint8)), words)
    np.testing.assert_array_equal(s.build(target="vitis_hls", mode="csim")(words.view(np.uint8)), words)
