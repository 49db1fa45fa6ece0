"""Single-pass matrix-vector designs (issue 26): one nest reads each A[i, j] once and feeds both
products (bicg's PolyBench nest; mvt's two nests merged by `nest_lanes_space(merge=...)`), with
either loop order (`"orders"`: the row sum as an adder tree over column lanes, or the converse).
Checked against numpy on LLVM and by the estimator, on small kernels."""
import numpy as np
import pytest

import allo
from allo import dse, qor
from allo.errors import DSEError
from allo.ir.types import float32, int32

R, C = 6, 8


def bicg_s(A: float32[R, C], p: float32[C], r: float32[R]) -> (float32[C], float32[R]):
    s: float32[C]
    q: float32[R]
    for j0 in range(C):
        s[j0] = 0.0
    for k0 in range(R):
        q[k0] = 0.0
    for i, j in allo.grid(R, C):
        s[j] += r[i] * A[i, j]
        q[i] += A[i, j] * p[j]
    return s, q


def mvt_s(x1: int32[C], x2: int32[C], y1: int32[C], y2: int32[C], A: int32[C, C]):
    for i, j in allo.grid(C, C):
        x1[i] += A[i, j] * y1[j]
    for k, l in allo.grid(C, C):
        x2[k] += A[l, k] * y2[l]


def mvt_f(x1: float32[C], x2: float32[C], y1: float32[C], y2: float32[C], A: float32[C, C]):
    for i, j in allo.grid(C, C):
        x1[i] += A[i, j] * y1[j]
    for k, l in allo.grid(C, C):
        x2[k] += A[l, k] * y2[l]


def _single_pass(r, nr, c, nc, row_acc, col_acc, row_in, col_in):
    return {"orders": [((r, c), c), ((c, r), r)], "split": {r: ("a", nr), c: ("b", nc)}, "two_way": True,
            "partitions": [(row_acc, 1, r), (col_acc, 1, c), ("A", 1, r), ("A", 2, c), (row_in, 1, c),
                           (col_in, 1, r)]}


def _bicg_space():
    return dse.nest_lanes_space([
        {"order": ("j0",), "split": {"j0": ("b", C)}}, {"order": ("k0",), "split": {"k0": ("a", R)}},
        _single_pass("i", R, "j", C, "q", "s", "p", "r")], max_factor=8)


def _mvt_space():
    return dse.nest_lanes_space([_single_pass("l", C, "k", C, "x1", "x2", "y1", "y2")], max_factor=8,
                                merge=[(("i", "j"), ("l", "k"))])


def _schedule(kernel, space, cfg):
    s = allo.customize(kernel)
    s.replay(space.expand(s.ir, space.indices(cfg)))
    return s


@pytest.mark.parametrize("order", [0, 1])
def test_bicg_single_pass_both_orders_match_numpy(order):
    s = _schedule(bicg_s, _bicg_space(), {"a": 2, "b": 4, "order2": order, "tree": True})
    rng = np.random.default_rng(0)
    A, p, r = (rng.standard_normal(x).astype(np.float32) for x in ((R, C), C, R))
    got_s, got_q = s.build()(A, p, r)
    np.testing.assert_allclose(got_s, r.astype(np.float64) @ A, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_q, A.astype(np.float64) @ p, rtol=1e-5, atol=1e-5)
    # one nest: the zero loops and one pipelined i/j loop; the tree is over the inner order's lanes
    code = s.build(target="vhls").hls_code
    assert "q_part" in code and "s_part" in code  # both sums are trees over the 2 x 4 lane block


def test_mvt_merge_reads_A_once_and_matches_numpy():
    space = _mvt_space()
    assert {"a", "b", "order0", "tree"} <= {p.name for p in space.params}
    s = _schedule(mvt_s, space, {"a": 2, "b": 4, "order0": 0, "tree": True})
    rng = np.random.default_rng(1)
    x1, x2, y1, y2 = (rng.integers(-9, 9, C).astype(np.int32) for _ in range(4))
    A = rng.integers(-9, 9, (C, C)).astype(np.int32)
    w1, w2 = x1 + A @ y1, x2 + A.T @ y2
    s.build()(x1, x2, y1, y2, A)
    np.testing.assert_array_equal(x1, w1)
    np.testing.assert_array_equal(x2, w2)
    assert len(qor.estimate(s).loops) == 1  # the two nests are one loop (l.outer x k.outer flattened)


def test_single_pass_dsps_cover_two_float_macs_a_lane():
    est = qor.estimate(_schedule(mvt_f, _mvt_space(), {"a": 2, "b": 4, "order0": 0, "tree": True}))
    (loop,) = est.loops
    # 8 lanes, two float MACs each (2 fmul at 3 DSP, 2 fadd at 2 DSP counting the trees' adders),
    # shared over the II: no lane's operators left uncounted
    share = -(-16 // loop.ii)
    assert est.resources["DSP"] >= 3 * share + 2 * share, (est.resources["DSP"], loop.ii)


def _best(kernel, space, dsp):
    r = dse.explore(kernel, space=space, budget={"DSP": dsp}, strategy="grid", trials=space.size,
                    executor="inline", verify=0)
    return r.best_trial


def test_single_pass_beats_two_passes_within_the_same_dsp():
    """Estimator: the merged mvt's best design vs the two nests' (bench_streamhls' two-pass space,
    a x b tree lanes per nest, one after the other) within the same DSP budget. The single pass
    reads A once; its accumulator that the innermost loop does not index holds it at II = one
    adder (or its lanes' chain), over which the lanes share their operators (two MACs a lane, counted)."""
    two_space = dse.nest_lanes_space([
        {"order": ("j", "i"), "split": {"i": ("a", C), "j": ("b", C)}, "reduce": "j",
         "partitions": [("x1", 1, "i"), ("A", 1, "i"), ("A", 2, "j"), ("y1", 1, "j")]},
        {"order": ("l", "k"), "split": {"l": ("a", C), "k": ("b", C)}, "reduce": "l",
         "partitions": [("x2", 1, "k"), ("y2", 1, "l")]}], max_factor=8)
    one, two = _best(mvt_f, _mvt_space(), 40), _best(mvt_f, two_space, 40)
    assert one.dsp <= 40 and two.dsp <= 40
    assert one.latency < two.latency, (one.latency, one.config, two.latency, two.config)
    (loop,) = qor.estimate(_schedule(mvt_f, _mvt_space(), one.config)).loops  # one nest
    assert loop.ii > 1 and "loop-carried dependence" in loop.reason  # the accumulator's adders


def test_orders_must_name_split_loops():
    with pytest.raises(DSEError, match="reduce loop 'x'"):
        dse.nest_lanes_space([{"orders": [(("i", "j"), "x")], "split": {"i": ("a", 4)}}])


def two_sums(A: int32[4, 6], p: int32[6], r: int32[4]) -> (int32[6], int32[4]):
    s: int32[6] = 0
    q: int32[4] = 0
    for i, j in allo.grid(4, 6):
        s[j] += r[i] * A[i, j]
        q[i] += A[i, j] * p[j]
    return s, q


def test_reduce_tree_of_a_lane_block_sums_each_accumulator_along_its_free_lanes():
    s = allo.customize(two_sums)
    s.split("i", 2)
    s.split("j", 3)
    s.reorder("i.outer", "j.outer", "i.inner", "j.inner")
    s.reduce_tree("i.inner")  # the 2 x 3 block: q over the j lanes, s over the i lanes
    s.unroll("i.inner")
    s.unroll("j.inner")
    s.pipeline("j.outer")
    rng = np.random.default_rng(5)
    A = rng.integers(-2**31, 2**31, (4, 6), dtype=np.int64).astype(np.int32)
    p, r = rng.integers(-2**31, 2**31, 6, dtype=np.int64).astype(np.int32), \
        rng.integers(-2**31, 2**31, 4, dtype=np.int64).astype(np.int32)
    got_s, got_q = s.build()(A, p, r)
    w = lambda x: x.astype(np.int64).astype(np.int32)  # noqa: E731 (wrap-around int32)
    np.testing.assert_array_equal(got_s, w((r.astype(np.int64) @ A.astype(np.int64)) % 2**32))
    np.testing.assert_array_equal(got_q, w((A.astype(np.int64) @ p.astype(np.int64)) % 2**32))
    code = s.build(target="vhls").hls_code
    assert "s_part[2][3]" in code and "q_part[2][3]" in code


def both_indexed(A: int32[4, 6]) -> int32[4, 6]:
    B: int32[4, 6] = 0
    for i, j in allo.grid(4, 6):
        B[i, j] += A[i, j]
    return B


def test_reduce_tree_of_a_lane_block_refuses_an_accumulator_indexed_by_both_loops():
    s = allo.customize(both_indexed)
    with pytest.raises(allo.AlloError, match="indexed by both 'i' and 'j'"):
        s.reduce_tree("i")
