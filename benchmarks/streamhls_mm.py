"""The chained matrix products of bench_streamhls.py, 2mm and 3mm (PolyBench medium sizes, float32),
and their lane spaces (`allo.dse.nest_lanes_space` with row-block fusion).

PolyBench's computations as perfect nests: each product `X[i, j] += Y[i, k] * Z[k, j]` with the
reduction k outermost (the lanes structure of gemm), its zeroing as its own nest, and (as in
bench_streamhls's gemm) alpha = beta = 1: 2mm is `D += (A @ B) @ C`, 3mm `G = (A @ B) @ (C @ D)`.
Per nest the row loop i is split by the shared factor "ui" (outermost, k below it) and the
columns j by the nest's own factor: ui x uj multiply-add lanes, k x j.outer pipelined. The choice
"fuse" moves the producer's row blocks into the consumer's block loop (zeroing, product, next
product: `compute_at`) and makes that loop a dataflow region: the consumer multiplies block b
while the producer makes block b + 1 (3mm's C @ D, which every block of the last product needs
whole, runs first on its own).
"""
from __future__ import annotations

import allo
from allo import dse
from allo.ir.types import float32

NI, NJ, NK, NL = 180, 190, 210, 220  # 2mm: tmp[NI, NJ] = A[NI, NK] B[NK, NJ]; D[NI, NL] += tmp C[NJ, NL]
I3, J3, K3, L3, M3 = 180, 190, 200, 210, 220  # 3mm: E = A[I,K] B[K,J]; F = C[J,M] D[M,L]; G = E F


def k2mm(A: float32[NI, NK], B: float32[NK, NJ], C: float32[NJ, NL], D: float32[NI, NL]):
    tmp: float32[NI, NJ]
    for i0, j0 in allo.grid(NI, NJ):
        tmp[i0, j0] = 0.0
    for k, i, j in allo.grid(NK, NI, NJ):
        tmp[i, j] += A[i, k] * B[k, j]
    for k2, i2, j2 in allo.grid(NJ, NI, NL):
        D[i2, j2] += tmp[i2, k2] * C[k2, j2]


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


def _zero(i, j, ni, nj, buf, ui="ui", uj="uj"):
    return {"order": (i, j), "split": {i: (ui, ni), j: (uj, nj)}, "partitions": [(buf, 1, i), (buf, 2, j)]}


def _product(k, i, j, ni, nj, out, rows, cols, ui="ui", uj="uj"):
    """`out[i, j] += rows[i, k] * cols[k, j]`: lanes ui x uj, i.outer outermost, k x j.outer pipelined."""
    return {"order": (i, k, j), "split": {i: (ui, ni), j: (uj, nj)},
            "partitions": [(out, 1, i), (out, 2, j), (rows, 1, i), (cols, 2, j)]}


def spaces(max_factor: int = 64) -> dict:
    """kernel name -> (kernel, its nest_lanes_space)."""
    nl = dse.nest_lanes_space
    return {
        "2mm": (k2mm, nl([
            _zero("i0", "j0", NI, NJ, "tmp", uj="uj"),
            _product("k", "i", "j", NI, NJ, "tmp", "A", "B", uj="uj"),
            _product("k2", "i2", "j2", NI, NL, "D", "tmp", "C", uj="uj2"),
        ], max_factor=max_factor, fuse=[("i0", "i"), ("i", "i2")])),
        # 3mm in k-blocks of uk: block b makes rows b of F = C D and columns b of E = A B, and adds
        # E[:, b] F[b, :] into G (G's reduction k2 outermost): the three products overlap
        "3mm": (k3mm, nl([
            {"order": ("f0", "f1"), "block": {"f0": ("uk", J3)}, "split": {"f1": ("uf", L3)}},
            {"order": ("fi", "fk", "fj"), "block": {"fi": ("uk", J3)}, "split": {"fj": ("uf", L3), "fk": ("ufk", M3)},
             "reduce": "fk", "partitions": [("F", 2, "fj"), ("D", 2, "fj"), ("D", 1, "fk"), ("C", 2, "fk")]},
            {"order": ("e1", "e0"), "block": {"e1": ("uk", J3)}, "split": {"e0": ("ue", I3)}},
            {"order": ("j", "k", "i"), "block": {"j": ("uk", J3)}, "split": {"i": ("ue", I3), "k": ("uek", K3)},
             "reduce": "k", "partitions": [("E", 1, "i"), ("A", 1, "i"), ("A", 2, "k"), ("B", 1, "k")]},
            # G's lanes are E's rows (ue) and F's columns (uf): E and F are then partitioned by one
            # factor per dimension, so every lane of both products addresses a fixed bank (other
            # factors leave run-time banks, each access a port on every bank)
            _zero("g0", "g1", I3, L3, "G", ui="ue", uj="uf"),
            {"order": ("k2", "i2", "j2"), "block": {"k2": ("uk", J3)}, "split": {"i2": ("ue", I3), "j2": ("uf", L3)},
             "partitions": [("G", 1, "i2"), ("G", 2, "j2"), ("E", 1, "i2"), ("F", 2, "j2")]},
        ], max_factor=max_factor,
           fuse=[("f0", "fi"), ("fi", "k2"), ("e1", "j"), ("j", "k2")], fuse_options=(True,))),
    }
