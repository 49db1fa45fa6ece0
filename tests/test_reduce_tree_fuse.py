"""Space elements for the Stream-HLS designs on small kernels: `reduce_tree` (partial sums and an
adder tree), `compute_at` of split row blocks (producer blocks moved into the consumer's block
loop, which then runs as a dataflow region), and the spaces that use them (nest_lanes_space's
"tree" and "fuse" choices). Each checked numerically on LLVM and by the estimator."""
import numpy as np
import pytest

import allo
from allo import dse, qor
from allo.ir.types import float32, int32


def mv(A: float32[16, 32], x: float32[32]) -> float32[16]:
    y: float32[16] = 0.0
    for i, j in allo.grid(16, 32):
        y[i] += A[i, j] * x[j]
    return y


def mv_int(A: int32[8, 12], x: int32[12]) -> int32[8]:
    y: int32[8] = 0
    for i, j in allo.grid(8, 12):
        y[i] += A[i, j] * x[j]
    return y


def _lanes(kernel, tree, b=8):
    s = allo.customize(kernel)
    s.split("j", b)
    if tree:
        s.reduce_tree("j.inner")
    s.unroll("j.inner")
    s.pipeline("j.outer")
    s.partition("A", allo.Partition.Cyclic, dim=2, factor=b)
    s.partition("x", allo.Partition.Cyclic, dim=1, factor=b)
    return s


def test_reduce_tree_float_close_and_recurrence_is_one_adder():
    rng = np.random.default_rng(0)
    A, x = rng.standard_normal((16, 32)).astype(np.float32), rng.standard_normal(32).astype(np.float32)
    chain, tree = _lanes(mv, False), _lanes(mv, True)
    # reassociated float sum: equal to the reference within rounding, not bit for bit
    np.testing.assert_allclose(tree.build()(A, x), A.astype(np.float64) @ x, rtol=1e-5, atol=1e-5)
    rc, rt = qor.estimate(chain), qor.estimate(tree)
    # the pipelined j.outer loop (y[i] is a promoted accumulator: Vitis keeps the i loop, qor/nests.py)
    loop_c, loop_t = rc.loop("l_j_outer"), rt.loop("l_j_outer")
    # chain: 8 adders on the path of y; tree: one adder, so II drops to that adder's latency
    assert loop_t.ii < loop_c.ii / 4
    assert rt.latency_cycles < rc.latency_cycles / 2  # (each row restarts the 4-iteration pipeline)
    # 8 products and 8 adds per iteration, shared over the II: the tree needs more units
    assert rt.resources["DSP"] > rc.resources["DSP"]
    code = tree.build(target="vhls").hls_code
    assert "y_part[8]" in code and "array_partition variable=y_part complete" in code
    assert "(y_part[0] + y_part[1]" in code


def test_reduce_tree_int_is_exact():
    rng = np.random.default_rng(1)
    A = rng.integers(-2**31, 2**31, (8, 12), dtype=np.int64).astype(np.int32)
    x = rng.integers(-2**31, 2**31, 12, dtype=np.int64).astype(np.int32)
    s = _lanes(mv_int, True, b=4)
    want = (A.astype(np.int64) * x.astype(np.int64)).astype(np.int32).astype(np.int64).sum(1)
    np.testing.assert_array_equal(s.build()(A, x), ((want + 2**31) % 2**32 - 2**31).astype(np.int32))


def not_a_reduction(A: float32[4, 8]) -> float32[4, 8]:
    B: float32[4, 8] = 0.0
    for i, j in allo.grid(4, 8):
        B[i, j] = A[i, j] * 2.0
    return B


def test_reduce_tree_refuses_a_loop_that_does_not_accumulate():
    s = allo.customize(not_a_reduction)
    before = str(s.module)
    with pytest.raises(allo.AlloError, match="reduce_tree: argument 'axis'.*must only accumulate"):
        s.reduce_tree("i")
    assert str(s.module) == before


def mvt_small(x1: float32[40], y1: float32[40], A: float32[40, 40]):
    for i, j in allo.grid(40, 40):
        x1[i] += A[i, j] * y1[j]


def test_nest_lanes_space_tree_choice_is_faster_within_the_same_budget():
    space = dse.nest_lanes_space([{"order": ("j", "i"), "split": {"i": ("a", 40), "j": ("b", 40)}, "reduce": "j",
                                   "partitions": [("x1", 1, "i"), ("A", 1, "i"), ("A", 2, "j"), ("y1", 1, "j")]}],
                                 max_factor=40)
    best = {}
    for tree in (False, True):
        sub = dse.nest_lanes_space([{"order": ("j", "i"), "split": {"i": ("a", 40), "j": ("b", 40)}, "reduce": "j",
                                     "partitions": [("x1", 1, "i"), ("A", 1, "i"), ("A", 2, "j"), ("y1", 1, "j")]}],
                                   max_factor=40)
        sub.seed({})
        r = dse.explore(mvt_small, space=_fixed(sub, "tree", tree), budget={"DSP": 400}, strategy="grid",
                        trials=space.size, executor="inline", verify=1)
        best[tree] = r.best_trial
    assert best[True].latency < best[False].latency
    assert best[True].verified


def _fixed(space, name, value):
    """`space` with parameter `name` held at `value`."""
    p = next(p for p in space.params if p.name == name)
    p.options = (value,)
    return space


NI, NJ, NK, NL = 6, 4, 5, 3


def chain2(A: int32[NI, NK], B: int32[NK, NJ], C: int32[NJ, NL], D: int32[NI, NL]):
    tmp: int32[NI, NJ]
    for i0, j0 in allo.grid(NI, NJ):
        tmp[i0, j0] = 0
    for k, i, j in allo.grid(NK, NI, NJ):
        tmp[i, j] += A[i, k] * B[k, j]
    for k2, i2, j2 in allo.grid(NJ, NI, NL):
        D[i2, j2] += tmp[i2, k2] * C[k2, j2]


def _chain_space():
    return dse.nest_lanes_space([
        {"order": ("i0", "j0"), "split": {"i0": ("ui", NI), "j0": ("uj", NJ)}},
        {"order": ("i", "k", "j"), "split": {"i": ("ui", NI), "j": ("uj", NJ)},
         "partitions": [("tmp", 1, "i"), ("tmp", 2, "j"), ("A", 1, "i"), ("B", 2, "j")]},
        {"order": ("i2", "k2", "j2"), "split": {"i2": ("ui", NI), "j2": ("uj2", NL)},
         "partitions": [("D", 1, "i2"), ("D", 2, "j2"), ("C", 2, "j2")]},
    ], max_factor=8, fuse=[("i0", "i"), ("i", "i2")])


def test_fused_row_blocks_overlap_and_stay_exact():
    space = _chain_space()
    rng = np.random.default_rng(2)
    args = [rng.integers(-9, 9, sh).astype(np.int32) for sh in ((NI, NK), (NK, NJ), (NJ, NL), (NI, NL))]
    want = args[3] + (args[0] @ args[1]) @ args[2]
    lat = {}
    for fuse in (False, True):
        s = allo.customize(chain2)
        s.replay(space.expand(s.ir, space.indices({"ui": 2, "uj": 2, "uj2": 3, "fuse": fuse})))
        D = args[3].copy()
        s.build()(args[0], args[1], args[2], D)
        np.testing.assert_array_equal(D, want)
        r = qor.estimate(s)
        lat[fuse] = r.latency_cycles
        if fuse:
            assert r.loops[0].kind == "dataflow" and r.loops[0].trip_count == NI // 2
            assert "#pragma HLS dataflow" in s.build(target="vhls").hls_code
    assert lat[True] < lat[False]


def reads_next_block(A: int32[4, 4], D: int32[4, 4]):
    tmp: int32[4, 4]
    for i0, j0 in allo.grid(4, 4):
        tmp[i0, j0] = A[i0, j0]
    for i, j in allo.grid(4, 4):
        D[i, j] = tmp[(i + 2) % 4, j]


def test_compute_at_of_split_blocks_refuses_reads_outside_the_block():
    s = allo.customize(reads_next_block)
    s.split("i0", 2)
    s.split("i", 2)
    with pytest.raises(allo.AlloError, match="compute_at: argument 'target_loop'"):
        s.compute_at("i0.outer", "i.outer")


def test_local_strategy_proposes_neighbours_of_the_best_and_finds_the_grid_optimum():
    from allo.dse.strategies import Local

    space = _chain_space()
    sizes = [len(p.options) for p in space.params]
    best, worse = (1, 1, 0, 1), (0, 0, 0, 0)
    history = [(best, (0, 10.0)), (worse, (0, 99.0))] + [((3, 2, 1, 0), (1, 5.0))] * 30
    out = Local(n_startup=8, centers=1).propose(space, history, 6, np.random.default_rng(0), seen={best, worse})
    assert len(out) == 6 and len(set(out)) == 6
    for idx in out:  # one option away, or two parameters traded
        diff = [a - b for a, b in zip(idx, best)]
        assert all(0 <= i < n for i, n in zip(idx, sizes))
        assert sorted(d for d in diff if d) in ([1], [-1], [-1, 1])
    budget = {"DSP": 40}
    grid = dse.explore(chain2, space=space, budget=budget, strategy="grid", trials=space.size, executor="inline", verify=0)
    local = dse.explore(chain2, space=space, budget=budget, strategy="local", trials=space.size * 3 // 4,
                        executor="inline", verify=0)
    assert local.best_trial.latency == grid.best_trial.latency


I3, J3, K3, L3, M3 = 4, 6, 3, 4, 2


def chain3(A: int32[I3, K3], B: int32[K3, J3], C: int32[J3, M3], D: int32[M3, L3]) -> int32[I3, L3]:
    F: int32[J3, L3]
    for f0, f1 in allo.grid(J3, L3):
        F[f0, f1] = 0
    for fk, fi, fj in allo.grid(M3, J3, L3):
        F[fi, fj] += C[fi, fk] * D[fk, fj]
    E: int32[I3, J3]
    for e0, e1 in allo.grid(I3, J3):
        E[e0, e1] = 0
    for k, i, j in allo.grid(K3, I3, J3):
        E[i, j] += A[i, k] * B[k, j]
    G: int32[I3, L3]
    for g0, g1 in allo.grid(I3, L3):
        G[g0, g1] = 0
    for k2, i2, j2 in allo.grid(J3, I3, L3):
        G[i2, j2] += E[i2, k2] * F[k2, j2]
    return G


def test_k_blocks_of_a_chained_product_overlap_and_stay_exact():
    # the 3mm structure of benchmarks/streamhls_mm.py: block b makes rows b of F, columns b of E
    # and adds E[:, b] F[b, :] into G (blocks without lanes: the "block" key)
    space = dse.nest_lanes_space([
        {"order": ("f0", "f1"), "block": {"f0": ("uk", J3)}, "split": {"f1": ("uf", L3)}},
        {"order": ("fi", "fk", "fj"), "block": {"fi": ("uk", J3)}, "split": {"fj": ("uf", L3)},
         "partitions": [("F", 2, "fj"), ("D", 2, "fj")]},
        {"order": ("e1", "e0"), "block": {"e1": ("uk", J3)}, "split": {"e0": ("ue", I3)}},
        {"order": ("j", "k", "i"), "block": {"j": ("uk", J3)}, "split": {"i": ("ue", I3)},
         "partitions": [("E", 1, "i"), ("A", 1, "i")]},
        {"order": ("g0", "g1"), "split": {"g0": ("ue", I3), "g1": ("uf", L3)}},
        {"order": ("k2", "i2", "j2"), "block": {"k2": ("uk", J3)}, "split": {"i2": ("ue", I3), "j2": ("uf", L3)},
         "partitions": [("G", 1, "i2"), ("G", 2, "j2")]},
    ], max_factor=8, fuse=[("f0", "fi"), ("fi", "k2"), ("e1", "j"), ("j", "k2")])
    rng = np.random.default_rng(4)
    args = [rng.integers(-9, 9, sh).astype(np.int32) for sh in ((I3, K3), (K3, J3), (J3, M3), (M3, L3))]
    lat = {}
    for fuse in (False, True):
        s = allo.customize(chain3)
        s.replay(space.expand(s.ir, space.indices({"uk": 2, "uf": 2, "ue": 2, "fuse": fuse})))
        np.testing.assert_array_equal(s.build()(*args), (args[0] @ args[1]) @ (args[2] @ args[3]))
        r = qor.estimate(s)
        lat[fuse] = r.latency_cycles
        if fuse:
            loop = next(row for row in r.loops if row.kind == "dataflow")
            assert loop.name == "l_k2_outer" and loop.trip_count == J3 // 2
    assert lat[True] < lat[False]


def two_sums(A: int32[4, 6], p: int32[6], r: int32[4]) -> (int32[6], int32[4]):
    s: int32[6] = 0
    q: int32[4] = 0
    for i, j in allo.grid(4, 6):
        s[j] += r[i] * A[i, j]
        q[i] += A[i, j] * p[j]
    return s, q


def test_reduce_tree_keeps_stores_indexed_by_the_loop():
    s = allo.customize(two_sums)
    s.split("j", 3)
    s.reduce_tree("j.inner")  # q[i] summed as a tree; s[j] (a new element per j) stays in the loop
    s.unroll("j.inner")
    rng = np.random.default_rng(5)
    A, p, r = rng.integers(-9, 9, (4, 6)).astype(np.int32), rng.integers(-9, 9, 6).astype(np.int32), \
        rng.integers(-9, 9, 4).astype(np.int32)
    got_s, got_q = s.build()(A, p, r)
    np.testing.assert_array_equal(got_s, r @ A)
    np.testing.assert_array_equal(got_q, A @ p)
    assert "q_part" in s.build(target="vhls").hls_code
