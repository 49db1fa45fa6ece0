"""The Vitis kernel interface of target="vitis_hls" (allo/backend/hls/interface.py), upstream Allo's
form: ports v0, v1, ... (arguments, then results), arrays and scalar results as m_axi pointers,
wrap_io=True (default) copies arrays into locals of the kernel's names, wrap_io=False indexes the
pointers directly. Each form runs in g++ C simulation and matches the LLVM build."""
import shutil

import numpy as np
import pytest

import allo
from allo.ir.types import bool as boolean
from allo.ir.types import float32, int32

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed for HLS C simulation")

M, N = 4, 6


def shift_copy(A: int32[M, N], s: int32) -> int32[M, N]:
    B: int32[M, N]
    for i, j in allo.grid(M, N, name="copy"):
        B[i, j] = A[i, j] + s
    A[0, 1] = s  # an argument the kernel writes goes back to its port
    return B


@pytest.mark.parametrize("wrap_io", [True, False])
def test_arrays_are_m_axi_pointers_and_results_match_llvm(tmp_path, wrap_io):
    s = allo.customize(shift_copy)
    mod = s.build(target="vitis_hls", mode="csim", project=str(tmp_path / "p"), wrap_io=wrap_io)
    code = mod.hls_code
    assert 'extern "C" void shift_copy(int32_t *v0, int32_t v1, int32_t *v2) {' in code
    assert "#pragma HLS interface m_axi port=v0 offset=slave bundle=gmem" in code
    assert "#pragma HLS interface s_axilite port=v1 bundle=control" in code
    assert "int32_t s = v1;" in code
    if wrap_io:
        assert "load_buf0(v0, A);" in code and "store_res0(A, v0);" in code and "store_res2(B, v2);" in code
        assert "buf[i0][i1] = v0[((i0 * 6) + i1)];" in code and "#pragma HLS pipeline II=1" in code
        assert "load_buf2" not in code  # a result is only stored
    else:
        assert "load_buf" not in code and "B[i][j] = v0[(i) * 6 + (j)] + s;" in code
        assert "v0[(0) * 6 + (1)] = s;" in code
    A = np.arange(M * N, dtype=np.int32).reshape(M, N)
    A_cpu = A.copy()
    np.testing.assert_array_equal(mod(A, 5), s.build()(A_cpu, 5))
    np.testing.assert_array_equal(A, A_cpu)
    assert A[0, 1] == 5


def test_scalar_result_is_an_output_pointer_and_bool_a_value_port(tmp_path):
    def inc(C: int32) -> int32:
        return C + 1

    mod = allo.customize(inc).build(target="vitis_hls", mode="csim", project=str(tmp_path / "a"))
    assert 'extern "C" void inc(int32_t v0, int32_t *v1) {' in mod.hls_code and "*v1 = C + 1;" in mod.hls_code
    assert mod(41) == 42 and mod(-7) == -6

    def flag(inst: boolean, C: int32[3]):
        if inst:
            C[0] = C[0] + 1

    mod = allo.customize(flag).build(target="vitis_hls", mode="csim", project=str(tmp_path / "b"))
    assert "void flag(bool v0, int32_t *v1)" in mod.hls_code and "bool inst = v0;" in mod.hls_code
    for inst, want in ((True, [2, 2, 3]), (False, [1, 2, 3])):
        C = np.array([1, 2, 3], np.int32)
        mod(inst, C)
        np.testing.assert_array_equal(C, want)


def test_partitions_apply_to_the_local_copy_and_are_refused_on_a_bare_pointer(tmp_path):
    def add(A: float32[8, 8], B: float32[8, 8]):
        for i, j in allo.grid(8, 8):
            B[i, j] = A[i, j] + 1.0

    s = allo.customize(add)
    s.partition(s.A, dim=2)
    code = s.build(target="vitis_hls").hls_code
    assert "float A[8][8];\n  #pragma HLS array_partition variable=A complete dim=2\n  load_buf0(v0, A);" in code
    with pytest.raises(allo.AlloError, match="'A' is partitioned.*wrap_io=False.*m_axi pointer") as info:
        s.build(target="vitis_hls", wrap_io=False)
    assert isinstance(info.value, RuntimeError)  # upstream Allo raises RuntimeError here


def test_without_wrap_io_a_pointer_cannot_reach_a_multi_dimensional_callee():
    def inner(A: float32[M, N], B: float32[M, N]):
        for m, n in allo.grid(M, N):
            B[m, n] = A[m, n]

    def top(A: float32[M, N], B: float32[M, N]):
        inner(A, B)

    s = allo.customize(top)
    with pytest.raises(allo.AlloError, match=r"top-level array 'A' is an m_axi pointer.*inner\(\) takes a "
                                             r"2-dimensional array.*wrap_io=True"):
        s.build(target="vitis_hls", wrap_io=False)
    A = np.random.default_rng(0).random((M, N), dtype=np.float32)
    B = np.zeros((M, N), np.float32)
    s.build(target="vitis_hls", mode="csim")(A, B)  # with the copies it runs
    np.testing.assert_array_equal(A, B)


def test_hbm_mapping_writes_the_connectivity_file_with_port_names(tmp_path):
    def gemm(A: int32[8, 8], B: int32[8, 8]) -> int32[8, 8]:
        C: int32[8, 8] = 0
        for i, j, k in allo.grid(8, 8, 8):
            C[i, j] += A[i, k] * B[k, j]
        return C

    s = allo.customize(gemm)
    s.build(target="vitis_hls", mode="csyn", project=str(tmp_path),
            configs={"hbm_mapping": {"A": 0, "B": "HBM[1]", "output_0": "DDR[0]"}})
    cfg = (tmp_path / "gemm.cfg").read_text()
    assert cfg.startswith("[connectivity]")
    for line in ("sp=gemm_1.v0:HBM[0]", "sp=gemm_1.v1:HBM[1]", "sp=gemm_1.v2:DDR[0]"):
        assert line in cfg
    with pytest.raises(allo.AlloError, match="configs: allo reads only"):
        s.build(target="vitis_hls", configs={"frequency": 300})
