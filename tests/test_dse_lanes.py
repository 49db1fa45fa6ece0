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


# ---------------------------------------------------------------- nest_lanes_space (matrix-vector kernels)
import pytest  # noqa: E402

from allo.errors import DSEError  # noqa: E402
from allo.ir.types import float32  # noqa: E402

M, N = 6, 8


def atax(A: float32[M, N], x: float32[N]) -> float32[N]:
    tmp: float32[M] = 0.0
    y: float32[N] = 0.0
    for i, j in allo.grid(M, N):
        tmp[i] += A[i, j] * x[j]
    for k, l in allo.grid(M, N):
        y[l] += A[k, l] * tmp[k]
    return y


def bicg(A: float32[N, M], p: float32[M], r: float32[N]) -> (float32[M], float32[N]):
    s: float32[M] = 0.0
    q: float32[N] = 0.0
    for i, j in allo.grid(N, M):
        s[j] += r[i] * A[i, j]
    for k, l in allo.grid(N, M):
        q[k] += A[k, l] * p[l]
    return s, q


def gesummv(alpha: float32, beta: float32, A: float32[N, N], B: float32[N, N], x: float32[N]) -> float32[N]:
    t: float32[N] = 0.0
    u: float32[N] = 0.0
    y: float32[N]
    for i, j in allo.grid(N, N):
        t[i] += A[i, j] * x[j]
        u[i] += B[i, j] * x[j]
    for k in range(N):
        y[k] = alpha * t[k] + beta * u[k]
    return y


def mvt(x1: float32[N], x2: float32[N], y1: float32[N], y2: float32[N], A: float32[N, N]):
    for i, j in allo.grid(N, N):
        x1[i] += A[i, j] * y1[j]
    for k, l in allo.grid(N, N):
        x2[k] += A[l, k] * y2[l]


# one-factor-per-nest variants of the matrix-vector spaces (bench_streamhls.py uses a x b lanes), small sizes
NESTS = {
    "atax": (atax, [{"order": ("j", "i"), "split": {"i": ("u", M)}, "partitions": [("tmp", 1, "i"), ("A", 1, "i")]},
                    {"order": ("k", "l"), "split": {"k": ("u2", M)}, "partitions": [("tmp", 1, "k")]}]),
    "bicg": (bicg, [{"order": ("i", "j"), "split": {"j": ("u", M)}, "partitions": [("s", 1, "j"), ("A", 2, "j")]},
                    {"order": ("l", "k"), "split": {"l": ("u2", M)}, "partitions": [("p", 1, "l")]}]),
    "gesummv": (gesummv, [{"order": ("j", "i"), "split": {"i": ("u", N)},
                           "partitions": [("t", 1, "i"), ("u", 1, "i"), ("A", 1, "i"), ("B", 1, "i")]},
                          {"order": ("k",), "split": {"k": ("u2", N)}, "partitions": [("y", 1, "k")]}]),
    "mvt": (mvt, [{"order": ("j", "i"), "split": {"i": ("u", N)}, "partitions": [("x1", 1, "i"), ("A", 1, "i")]},
                  {"order": ("l", "k"), "split": {"l": ("u2", N)}, "partitions": [("y2", 1, "l")]}]),
}


@pytest.mark.parametrize("name", sorted(NESTS))
def test_nest_lanes_space_best_design_is_verified_and_the_dsp_budget_binds(name):
    kernel, nests = NESTS[name]
    space = dse.nest_lanes_space(nests)
    extent = M if name in ("atax", "bicg") else N
    divisors = [d for d in range(1, extent + 1) if extent % d == 0]
    assert space.size == len(divisors) ** 2
    plain = allo.qor.estimate(allo.customize(kernel)).latency_cycles
    wide = dse.explore(kernel, space=space, budget={"DSP": 10_000}, strategy="grid", trials=space.size,
                       executor="inline", verify=1).best_trial
    assert wide.verified is True and wide.latency < plain
    # a budget below the widest design's DSPs forces fewer lanes and a slower design within it
    budget = wide.dsp // 2
    tight = dse.explore(kernel, space=space, budget={"DSP": budget}, strategy="grid", trials=space.size,
                        executor="inline", verify=1).best_trial
    assert tight.verified is True and tight.dsp <= budget
    assert tight.latency > wide.latency


def test_nest_lanes_space_partitions_get_the_lcm_of_the_nests_factors():
    space = dse.nest_lanes_space(NESTS["atax"][1])
    steps = space.expand(allo.customize(atax).ir, space.indices({"u": 2, "u2": 3}))
    parts = sorted((st[2][0], st[2][2], st[2][3]) for st in steps if st[0] == "partition")
    assert parts == [("A", 1, 2), ("tmp", 1, 6)], parts


def test_nest_lanes_space_rejects_a_split_loop_outside_the_order():
    with pytest.raises(DSEError, match="split loop 'q' is not in its order"):
        dse.nest_lanes_space([{"order": ("i", "j"), "split": {"q": ("u", 4)}}])
    with pytest.raises(DSEError, match="must be \\(buffer, dim, split loop\\)"):
        dse.nest_lanes_space([{"order": ("i", "j"), "split": {"i": ("u", 4)}, "partitions": [("A", 1, "j")]}])


def test_nest_lanes_space_two_factor_lanes_share_a_partition_of_a_across_nests():
    # bench_streamhls.py's mvt space at a small size: A partitioned a x b, read lane-affinely by both nests
    space = dse.nest_lanes_space([
        {"order": ("j", "i"), "split": {"i": ("a", N), "j": ("b", N)},
         "partitions": [("x1", 1, "i"), ("A", 1, "i"), ("A", 2, "j"), ("y1", 1, "j")]},
        {"order": ("l", "k"), "split": {"l": ("a", N), "k": ("b", N)}, "partitions": [("x2", 1, "k"), ("y2", 1, "l")]},
    ], dataflow=True)
    assert space.size == 4 * 4 * 2
    one = dse.explore(mvt, space=space, budget={"DSP": 10_000}, strategy="grid", trials=space.size,
                      executor="inline", verify=1)
    best = one.best_trial
    assert best.verified is True
    row_lanes_only = min(t.latency for t in one.trials if t.latency is not None and t.config["b"] == 1)
    assert best.latency < row_lanes_only
