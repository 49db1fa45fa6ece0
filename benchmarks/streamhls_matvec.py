"""The matrix-vector PolyBench kernels of bench_streamhls.py (medium sizes, float32) and their
lane spaces (`allo.dse.nest_lanes_space`).

The kernels are PolyBench's computations written as separate perfect nests with array accumulators
and distinct loop names (atax's two products split; bicg's two updates split; gesummv's scalars
t, u as arrays, y left uninitialised as it is fully written; alpha and beta kept) so that the
nests can be reordered and split. The accumulators are zeroed by nests of their own (not by an
initial value, whose fill loop writes one element per cycle), which take the lanes of the
dimension they write. Each nest splits its output loop and its reduction loop
(a x b lanes); A is partitioned a on dim 1 and b on dim 2, and both nests (one reads A by rows,
the other by columns) split the loop indexing each dimension by that dimension's factor, so every
access is lane-affine (the estimator counts a plain loop index on a partitioned dimension as "any
bank"). The b reduction lanes add into one accumulator per iteration: a chain inside the iteration,
II 1 kept while the flattened pipeline revisits an accumulator less often than the chain takes.
bicg's and mvt's two nests are independent: their spaces may make the kernel a dataflow region so
that the nests overlap; both read A, and a dataflow channel has one reader, so the estimate counts
a copy of A for the second nest (a process of its own that the second nest waits for).

`single_pass_spaces`: bicg in PolyBench's one nest and mvt's two nests merged into one
(`nest_lanes_space(merge=...)`: the second nest interchanged, then fused loop by loop with
`compute_at`), so each A[i, j] is read once and feeds both products; a x b lanes, summed two ways
by `reduce_tree` on the lane block. bench_streamhls.py takes the best of both kinds of design.
"""
from __future__ import annotations

import allo
from allo import dse
from allo.ir.types import float32

M, N = 390, 410  # atax (A: M x N), bicg (A: N x M)
NG = 250  # gesummv
NV = 400  # mvt


def atax(A: float32[M, N], x: float32[N]) -> float32[N]:
    tmp: float32[M]
    y: float32[N]
    for i0 in range(M):
        tmp[i0] = 0.0
    for l0 in range(N):
        y[l0] = 0.0
    for i, j in allo.grid(M, N):
        tmp[i] += A[i, j] * x[j]
    for k, l in allo.grid(M, N):
        y[l] += A[k, l] * tmp[k]
    return y


def bicg(A: float32[N, M], p: float32[M], r: float32[N]) -> (float32[M], float32[N]):
    s: float32[M]
    q: float32[N]
    for j0 in range(M):
        s[j0] = 0.0
    for k0 in range(N):
        q[k0] = 0.0
    for i, j in allo.grid(N, M):
        s[j] += r[i] * A[i, j]
    for k, l in allo.grid(N, M):
        q[k] += A[k, l] * p[l]
    return s, q


def gesummv(alpha: float32, beta: float32, A: float32[NG, NG], B: float32[NG, NG], x: float32[NG]) -> float32[NG]:
    t: float32[NG]
    u: float32[NG]
    y: float32[NG]
    for i0 in range(NG):
        t[i0] = 0.0
        u[i0] = 0.0
    for i, j in allo.grid(NG, NG):
        t[i] += A[i, j] * x[j]
        u[i] += B[i, j] * x[j]
    for k in range(NG):
        y[k] = alpha * t[k] + beta * u[k]
    return y


def mvt(x1: float32[NV], x2: float32[NV], y1: float32[NV], y2: float32[NV], A: float32[NV, NV]):
    for i, j in allo.grid(NV, NV):
        x1[i] += A[i, j] * y1[j]
    for k, l in allo.grid(NV, NV):
        x2[k] += A[l, k] * y2[l]


def bicg_fused(A: float32[N, M], p: float32[M], r: float32[N]) -> (float32[M], float32[N]):
    s: float32[M]
    q: float32[N]
    for j0 in range(M):
        s[j0] = 0.0
    for k0 in range(N):
        q[k0] = 0.0
    for i, j in allo.grid(N, M):  # PolyBench's one nest: each A[i, j] read once for both sums
        s[j] += r[i] * A[i, j]
        q[i] += A[i, j] * p[j]
    return s, q


def _single_pass(rows, cols, row_acc, col_acc, row_in, col_in):
    """The single-pass nest (rows x cols, A read once) with either order (rows or columns outer).
    Under "tree" the lane block is summed two ways (`two_way`): the row sums `row_acc[i]` as trees
    over the column lanes, the column sums `col_acc[j]` over the row lanes (with one lane loop, the
    other accumulator gets one adder per lane). The accumulator that the innermost outer loop does
    not index is still updated every iteration (its adder and memory latency set the II, 4 to 6):
    the lanes share their operators over that II, so DSPs per lane fall by the same factor."""
    (r, nr, ra), (c, nc, cb) = rows, cols
    return {"orders": [((r, c), c), ((c, r), r)], "split": {r: (ra, nr), c: (cb, nc)}, "two_way": True,
            "partitions": [(row_acc, 1, r), (col_acc, 1, c), ("A", 1, r), ("A", 2, c), (row_in, 1, c),
                           (col_in, 1, r)]}


def single_pass_spaces(max_factor: int = 100) -> dict:
    """kernel name -> (kernel, the space of its single-pass designs): bicg in PolyBench's one nest,
    mvt's two nests merged into one (`merge`: x2's nest interchanged, then fused loop by loop)."""
    nl = dse.nest_lanes_space
    return {
        "bicg": (bicg_fused, nl([
            {"order": ("j0",), "split": {"j0": ("b", M)}}, {"order": ("k0",), "split": {"k0": ("a", N)}},
            _single_pass(("i", N, "a"), ("j", M, "b"), "q", "s", "p", "r"),
        ], max_factor=max_factor)),
        "mvt": (mvt, nl([
            _single_pass(("l", NV, "a"), ("k", NV, "b"), "x1", "x2", "y1", "y2"),
        ], max_factor=max_factor, merge=[(("i", "j"), ("l", "k"))])),
    }


_ATAX = [
    {"order": ("i0",), "split": {"i0": ("a", M)}}, {"order": ("l0",), "split": {"l0": ("b", N)}},
    {"order": ("j", "i"), "split": {"i": ("a", M), "j": ("b", N)}, "reduce": "j",
     "partitions": [("tmp", 1, "i"), ("A", 1, "i"), ("A", 2, "j"), ("x", 1, "j")]},
    {"order": ("k", "l"), "split": {"k": ("a", M), "l": ("b", N)}, "reduce": "k",
     "partitions": [("tmp", 1, "k"), ("y", 1, "l")]},
]


def tail_spaces(max_factor: int = 64) -> dict:
    """kernel name -> (kernel, its space with lane factors that need a guarded tail too:
    `nest_lanes_space(tails=True)`): atax's 390 x 410 gives 20 lanes per nest at most with
    divisors (2 x 10) where 220 DSP fit 22 (2 x 11, the last of 38 column blocks 7 lanes short).
    Too large for a grid (2,244 configs): bench_streamhls.py hill-climbs it per budget."""
    return {"atax": (atax, dse.nest_lanes_space(_ATAX, max_factor=max_factor, tails=True))}


def spaces(max_factor: int = 64) -> dict:
    """kernel name -> (kernel, its nest_lanes_space)."""
    nl = dse.nest_lanes_space
    return {
        # tmp = A x: lanes over rows i and the reduction j; y = A^T tmp: lanes over columns l and
        # the reduction k. A is partitioned a x b; both nests address it by lane-affine indices.
        "atax": (atax, nl(_ATAX, max_factor=max_factor)),
        # s = A^T r: lanes over columns j and the reduction i; q = A p: rows k and the reduction l
        "bicg": (bicg, nl([
            {"order": ("j0",), "split": {"j0": ("b", M)}}, {"order": ("k0",), "split": {"k0": ("a", N)}},
            {"order": ("i", "j"), "split": {"i": ("a", N), "j": ("b", M)}, "reduce": "i",
             "partitions": [("s", 1, "j"), ("A", 1, "i"), ("A", 2, "j"), ("r", 1, "i")]},
            {"order": ("l", "k"), "split": {"k": ("a", N), "l": ("b", M)}, "reduce": "l",
             "partitions": [("q", 1, "k"), ("p", 1, "l")]},
        ], max_factor=max_factor, dataflow=True)),
        # t, u = A x, B x: lanes over rows i and the reduction j; its own factor on y = alpha t + beta u
        "gesummv": (gesummv, nl([
            {"order": ("i0",), "split": {"i0": ("a", NG)}},
            {"order": ("j", "i"), "split": {"i": ("a", NG), "j": ("b", NG)}, "reduce": "j",
             "partitions": [("t", 1, "i"), ("u", 1, "i"), ("A", 1, "i"), ("A", 2, "j"), ("B", 1, "i"),
                            ("B", 2, "j"), ("x", 1, "j")]},
            {"order": ("k",), "split": {"k": ("u2", NG)}, "partitions": [("y", 1, "k")]},
        ], max_factor=max_factor, caps={"a": NG, "b": 10})),  # all rows as lanes: t, u become registers
        # x1 = A y1: lanes over rows i and the reduction j; x2 = A^T y2: columns k and the reduction l
        "mvt": (mvt, nl([
            {"order": ("j", "i"), "split": {"i": ("a", NV), "j": ("b", NV)}, "reduce": "j",
             "partitions": [("x1", 1, "i"), ("A", 1, "i"), ("A", 2, "j"), ("y1", 1, "j")]},
            {"order": ("l", "k"), "split": {"l": ("a", NV), "k": ("b", NV)}, "reduce": "l",
             "partitions": [("x2", 1, "k"), ("y2", 1, "l")]},
        ], max_factor=max_factor, dataflow=True)),
    }
