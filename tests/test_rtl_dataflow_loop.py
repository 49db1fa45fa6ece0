"""Loop-level dataflow on the static circuit (allo/backend/rtl/static/loopflow.py): a loop marked
`dataflow` runs its body statements as processes that overlap the iterations (stage 1 of row
block b + 1 alongside stage 2 of block b), as the estimate models it, and keeps program order
where overlapping would change the numbers (a value carried from a later stage to an earlier one
of the next iteration, a buffer every iteration reuses)."""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import allo
from allo import dse, qor
from allo.ir.types import float32, int32
from tests.rtl_util import FULL, needs_rtl

pytestmark = needs_rtl


def chain(N, K, M, L, R):
    """D = (A @ B) @ C in row blocks of R: each block's two products in one iteration of `b`."""

    def k(A: int32[N, K], B: int32[K, M], C: int32[M, L]) -> int32[N, L]:
        T: int32[N, M]
        D: int32[N, L]
        for b in range(N // R):
            for i0, j0 in allo.grid(R, M):
                T[b * R + i0, j0] = 0
            for k1, i1, j1 in allo.grid(K, R, M):
                T[b * R + i1, j1] += A[b * R + i1, k1] * B[k1, j1]
            for i2, l2 in allo.grid(R, L):
                D[b * R + i2, l2] = 0
            for k3, i3, l3 in allo.grid(M, R, L):
                D[b * R + i3, l3] += T[b * R + i3, k3] * C[k3, l3]
        return D

    return k


def _chain_schedule(kernel, dataflow=True):
    s = allo.customize(kernel)
    for lp in ("j0", "j1", "l2", "l3"):
        s.pipeline(lp)
    if dataflow:
        s.dataflow("b")
    return s


def _ints(rng, *shape):
    return rng.integers(-8, 8, shape).astype(np.int32)


def test_row_blocks_of_a_product_chain_overlap_like_the_estimate():
    k = chain(8, 6, 8, 6, 2)
    rng = np.random.default_rng(0)
    A, B, C = _ints(rng, 8, 6), _ints(rng, 6, 8), _ints(rng, 8, 6)
    s = _chain_schedule(k)
    mod = s.build(target="rtl")
    np.testing.assert_array_equal(mod(A, B, C), (A @ B) @ C)
    est = qor.estimate(s).latency_cycles
    assert abs(mod.cycles - est) <= 0.15 * est, (mod.cycles, est)
    seq = _chain_schedule(k, dataflow=False).build(target="rtl")
    np.testing.assert_array_equal(seq(A, B, C), (A @ B) @ C)
    assert mod.cycles < 0.75 * seq.cycles, (mod.cycles, seq.cycles)  # four blocks: the stages overlap
    (row,) = [r for r in mod.report().loops if r.kind == "dataflow"]
    assert row.trip_count == 4 and len(row.children) == 4


def carried(NB, W):
    def k(A: int32[NB, W]) -> int32[NB, W]:
        acc: int32[W] = 0
        out: int32[NB, W]
        for b in range(NB):
            for j in range(W):
                out[b, j] = out[b, j] * 0 + acc[j] * 2  # reads what the second statement left last iteration
            for j2 in range(W):
                acc[j2] += A[b, j2]
            for j3 in range(W):  # shares nothing with the second: overlaps it
                out[b, j3] += A[b, j3]
        return out

    return k


def test_a_value_carried_to_an_earlier_stage_keeps_program_order():
    NB, W = 5, 8
    s = allo.customize(carried(NB, W))
    s.dataflow("b")
    A = _ints(np.random.default_rng(1), NB, W)
    before = np.vstack([np.zeros((1, W), np.int64), np.cumsum(A, axis=0)[:-1]])
    mod = s.build(target="rtl")
    np.testing.assert_array_equal(mod(A), before * 2 + A)
    assert [r.name for r, _ in mod.design.loop_regions] == ["b"]


def reused(NB, W, inside):
    def k(A: int32[NB, W]) -> (int32[NB, W], int32[NB, W]):
        out: int32[NB, W]
        u: int32[NB, W]
        t: int32[W]  # one buffer every iteration rewrites
        for b in range(NB):
            for j in range(W):
                t[j] = A[b, j] * 3
            for j2 in range(W):
                out[b, j2] = t[W - 1 - j2] + 1
            for j3 in range(W):  # shares nothing with the others
                u[b, j3] = A[b, j3] - 1
        return out, u

    def k_inside(A: int32[NB, W]) -> (int32[NB, W], int32[NB, W]):
        out: int32[NB, W]
        u: int32[NB, W]
        for b in range(NB):
            t: int32[W]  # a new buffer every iteration: double-buffered
            for j in range(W):
                t[j] = A[b, j] * 3
            for j2 in range(W):
                out[b, j2] = t[W - 1 - j2] + 1
            for j3 in range(W):
                u[b, j3] = A[b, j3] - 1
        return out, u

    return k_inside if inside else k


def test_a_buffer_every_iteration_reuses_is_not_overwritten_early():
    NB, W = 4, 16
    A = _ints(np.random.default_rng(2), NB, W)
    cycles = {}
    for inside in (False, True):
        s = allo.customize(reused(NB, W, inside))
        for lp in ("j", "j2", "j3"):
            s.pipeline(lp)
        s.dataflow("b")
        mod = s.build(target="rtl")
        out, u = mod(A)
        np.testing.assert_array_equal(out, A[:, ::-1] * 3 + 1, err_msg=f"t declared in the loop: {inside}")
        np.testing.assert_array_equal(u, A - 1)
        cycles[inside] = mod.cycles
    assert cycles[True] < 0.85 * cycles[False], cycles  # ping-pong: filling t for b + 1 overlaps reading it for b


def two_readers(NB, W):
    def k(A: int32[NB, W]) -> (int32[NB, W], int32[NB, W]):
        out: int32[NB, W]
        u: int32[NB, W]
        for b in range(NB):
            t: int32[W]
            for j in range(W):
                t[j] = A[b, j] * 3
            for j2 in range(W):  # two stages read the body's array: they take turns on its copy
                out[b, j2] = t[W - 1 - j2] + 1
            for j3 in range(W):
                u[b, j3] = t[j3] - 1
        return out, u

    return k


def test_register_array_of_the_body_is_double_buffered():
    """Allo's 2mm (tests/qor/designs.py): a row accumulator the body declares, registers once
    partitioned, used by all three stages; two register sets let row i + 1 start early."""
    N, K, M, L, R = 6, 4, 4, 3, 1
    A, B, C = (_ints(np.random.default_rng(5), *sh) for sh in ((N, K), (K, M), (M, L)))
    cycles = []
    for part in (False, True):
        s = allo.customize(chain_local(N, K, M, L, R))
        for lp in ("j0", "j1", "l2", "l3"):
            s.pipeline(lp)
        if part:
            s.partition(s.T, allo.Partition.Complete, dim=0)
        s.dataflow("b")
        mod = s.build(target="rtl")
        np.testing.assert_array_equal(mod(A, B, C), (A @ B) @ C)
        cycles.append(mod.cycles)
        if part:
            assert mod.design.reg_pingpong and not mod.design.loop_notes, mod.design.loop_notes
    est = qor.estimate(s).latency_cycles
    assert abs(cycles[1] - est) <= 0.15 * est, (cycles, est)


def test_two_readers_of_a_double_buffered_array():
    NB, W = 4, 16
    s = allo.customize(two_readers(NB, W))
    for lp in ("j", "j2", "j3"):
        s.pipeline(lp)
    s.dataflow("b")
    A = _ints(np.random.default_rng(4), NB, W)
    out, u = s.build(target="rtl")(A)
    np.testing.assert_array_equal(out, A[:, ::-1] * 3 + 1)
    np.testing.assert_array_equal(u, A * 3 - 1)


def chain_local(N, K, M, L, R):
    """`chain` with each block's rows of A @ B in an array the loop body declares (double-buffered)."""

    def k(A: int32[N, K], B: int32[K, M], C: int32[M, L]) -> int32[N, L]:
        D: int32[N, L]
        for b in range(N // R):
            T: int32[R, M]
            for i0, j0 in allo.grid(R, M):
                T[i0, j0] = 0
            for k1, i1, j1 in allo.grid(K, R, M):
                T[i1, j1] += A[b * R + i1, k1] * B[k1, j1]
            for i2, l2 in allo.grid(R, L):
                D[b * R + i2, l2] = 0
            for k3, i3, l3 in allo.grid(M, R, L):
                D[b * R + i3, l3] += T[i3, k3] * C[k3, l3]
        return D

    return k


@settings(max_examples=30 if FULL else 5, deadline=None, derandomize=not FULL,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([(4, 3, 2, 5, 2), (6, 2, 4, 3, 3), (4, 4, 3, 2, 1), (6, 3, 2, 2, 2)]),
       st.sampled_from([chain, chain_local]), st.booleans(), st.sampled_from([None, 0, 1, 2]),
       st.integers(0, 2**16))
def test_product_chains_of_small_shapes_equal_numpy(shape, form, piped, part_dim, seed):
    s = allo.customize(form(*shape))
    if piped:
        s.pipeline("j1")
        s.pipeline("l3")
    if part_dim == 0:  # registers (chain_local: a ping-pong pair of register sets)
        s.partition(s.T, allo.Partition.Complete, dim=0)
    elif part_dim is not None:
        try:
            s.partition(s.T, allo.Partition.Cyclic, dim=part_dim, factor=2)
        except allo.AlloError:
            pass  # a dimension 2 does not divide: the schedule stays as it was
    s.dataflow("b")
    N, K, M, L, _ = shape
    rng = np.random.default_rng(seed)
    A, B, C = _ints(rng, N, K), _ints(rng, K, M), _ints(rng, M, L)
    np.testing.assert_array_equal(s.build(target="rtl")(A, B, C), (A @ B) @ C,
                                  err_msg=f"{form.__name__} {shape} piped={piped} partition dim {part_dim}")


I3, J3, K3, L3, M3 = 4, 6, 8, 6, 8


def k3mm(A: float32[I3, K3], B: float32[K3, J3], C: float32[J3, M3], D: float32[M3, L3]) -> float32[I3, L3]:
    F: float32[J3, L3]
    for f0, f1 in allo.grid(J3, L3):
        F[f0, f1] = 0.0
    for fk, fi, fj in allo.grid(M3, J3, L3):
        F[fi, fj] += C[fi, fk] * D[fk, fj]
    E: float32[I3, J3]
    for e0, e1 in allo.grid(I3, J3):
        E[e0, e1] = 0.0
    for k, i, j in allo.grid(K3, I3, J3):
        E[i, j] += A[i, k] * B[k, j]
    G: float32[I3, L3]
    for g0, g1 in allo.grid(I3, L3):
        G[g0, g1] = 0.0
    for k2, i2, j2 in allo.grid(J3, I3, L3):
        G[i2, j2] += E[i2, k2] * F[k2, j2]
    return G


def test_3mm_k_blocks_overlap_and_accumulate_g_in_order():
    """benchmarks/streamhls_mm.py's fused 3mm: block b makes rows b of F and columns b of E and
    adds their product into G, which every block accumulates (one process, so in order)."""
    space = dse.nest_lanes_space([
        {"order": ("f0", "f1"), "block": {"f0": ("uk", J3)}, "split": {"f1": ("uf", L3)}},
        {"order": ("fi", "fk", "fj"), "block": {"fi": ("uk", J3)}, "split": {"fj": ("uf", L3), "fk": ("ufk", M3)},
         "reduce": "fk", "partitions": [("F", 2, "fj"), ("D", 2, "fj"), ("D", 1, "fk"), ("C", 2, "fk")]},
        {"order": ("e1", "e0"), "block": {"e1": ("uk", J3)}, "split": {"e0": ("ue", I3)}},
        {"order": ("j", "k", "i"), "block": {"j": ("uk", J3)}, "split": {"i": ("ue", I3), "k": ("uek", K3)},
         "reduce": "k", "partitions": [("E", 1, "i"), ("A", 1, "i"), ("A", 2, "k"), ("B", 1, "k")]},
        {"order": ("g0", "g1"), "split": {"g0": ("ue", I3), "g1": ("uf", L3)}, "partitions": [("G", 1, "g0"),
                                                                                             ("G", 2, "g1")]},
        {"order": ("k2", "i2", "j2"), "block": {"k2": ("uk", J3)}, "split": {"i2": ("ue", I3), "j2": ("uf", L3)},
         "partitions": [("G", 1, "i2"), ("G", 2, "j2"), ("E", 1, "i2"), ("F", 2, "j2")]},
    ], max_factor=8, fuse=[("f0", "fi"), ("fi", "k2"), ("e1", "j"), ("j", "k2")], fuse_options=(True,))
    s = allo.customize(k3mm)
    s.replay(space.expand(s.ir, space.indices({"uf": 3, "uk": 2, "ufk": 4, "ue": 4, "uek": 4, "fuse": True,
                                                         "tree": True})))
    rng = np.random.default_rng(3)
    A, B, C, D = (rng.uniform(-1, 1, sh).astype(np.float32) for sh in ((I3, K3), (K3, J3), (J3, M3), (M3, L3)))
    mod = s.build(target="rtl")
    np.testing.assert_allclose(mod(A, B, C, D), (A.astype(np.float64) @ B) @ (C.astype(np.float64) @ D),
                               rtol=1e-4, atol=1e-5)
    (row,) = [r for r in mod.report().loops if r.kind == "dataflow"]
    assert row.trip_count == J3 // 2
    est = qor.estimate(s).latency_cycles
    assert abs(mod.cycles - est) <= 0.15 * est, (mod.cycles, est)
