"""allo.dse.lanes_space (the parallel-lanes space of a matrix product, bench_streamhls.py): on a small
gemm the best design within a DSP budget is verified on LLVM, respects the budget, is faster than
the unscheduled kernel, and its estimate is confirmed by the static RTL circuit's cycle count."""
import numpy as np

import allo
from allo import dse
from allo.ir.types import int32

P, R, Q = 4, 6, 8


def gemm(A: int32[P, Q], B: int32[Q, R], C: int32[P, R]):
    for k, i, j in allo.grid(Q, P, R):
        C[i, j] += A[i, k] * B[k, j]


def test_lanes_space_best_design_is_verified_within_budget_and_matches_the_circuit():
    space = dse.lanes_space(P, R, out="C", rows_in="A", cols_in="B")
    assert space.size == 3 * 4  # divisors of 4 and of 6
    r = dse.explore(gemm, space=space, budget={"DSP": 12}, strategy="grid", trials=space.size, executor="inline",
                    verify=1)
    best = r.best_trial
    assert best.verified is True and best.dsp <= 12
    plain = allo.qor.estimate(allo.customize(gemm)).latency_cycles
    assert best.latency < plain
    # more DSPs buy a faster design (the budget binds)
    wide = dse.explore(gemm, space=space, budget={"DSP": 100}, strategy="grid", trials=space.size,
                       executor="inline", verify=0).best_trial
    assert wide.latency < best.latency and wide.dsp > 12
    s = best.schedule
    mod = s.build(target="rtl")
    rng = np.random.default_rng(3)
    A, B = rng.integers(-9, 9, (P, Q)).astype(np.int32), rng.integers(-9, 9, (Q, R)).astype(np.int32)
    C = rng.integers(-9, 9, (P, R)).astype(np.int32)
    want = C + A @ B
    got = C.copy()
    mod(A, B, got)
    np.testing.assert_array_equal(got, want)
    assert abs(mod.cycles - best.latency) <= 0.15 * best.latency, (mod.cycles, best.latency)
