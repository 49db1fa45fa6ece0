"""`systolic`: an output-stationary systolic-array GEMM (upstream Allo's `allo.library.systolic`).

`systolic[TyA, TyB, TyC, M, K, N, M0, M1](A, B, C)` writes `C = A @ B` (A[M, K], B[K, N],
C[M, N], accumulated in TyC) tile by tile: an M0 x M1 grid of processing elements (band "PE")
accumulates one output tile while K streams through, then the tile drains into C. The predefined
schedule fully unrolls the PE grid, partitions the tile accumulator into registers and pipelines
the K loop, which is what HLS builds as a systolic array. When M0 does not divide M (or M1 N), the
PEs past the edge of the matrix idle in the last tiles.

Example::

    s = allo.customize(systolic, instantiate=[int8, int8, int16, 64, 64, 64, 4, 4])
    s.build()(A, B, C)          # C == A @ B
"""
from __future__ import annotations

from . import lang as allo  # the public names as kernel code spells them


@allo.kernel(template="TyA, TyB, TyC, M, K, N, M0, M1")
def systolic(A: "TyA[M, K]", B: "TyB[K, N]", C: "TyC[M, N]"):
    """C = A @ B on an M0 x M1 processing-element grid (output stationary)."""
    acc: TyC[M0, M1] = 0
    for mt, nt in allo.grid((M + M0 - 1) // M0, (N + M1 - 1) // M1, name="tile"):
        for pi, pj in allo.grid(M0, M1, name="init"):
            acc[pi, pj] = 0
        for k in allo.reduction(K):
            for pi, pj in allo.grid(M0, M1, name="PE"):
                with allo.meta_if(M % M0 == 0 and N % M1 == 0):
                    acc[pi, pj] += A[mt * M0 + pi, k] * B[k, nt * M1 + pj]
                with allo.meta_else():  # edge tiles: PEs past the matrix idle
                    if mt * M0 + pi < M and nt * M1 + pj < N:
                        acc[pi, pj] += A[mt * M0 + pi, k] * B[k, nt * M1 + pj]
        for pi, pj in allo.grid(M0, M1, name="drain"):
            with allo.meta_if(M % M0 == 0 and N % M1 == 0):
                C[mt * M0 + pi, nt * M1 + pj] = acc[pi, pj]
            with allo.meta_else():
                if mt * M0 + pi < M and nt * M1 + pj < N:
                    C[mt * M0 + pi, nt * M1 + pj] = acc[pi, pj]


def schedule_systolic(s):
    """The predefined schedule (`s.compose(systolic, ...)`): unrolled PE grid, register
    accumulators, pipelined K loop."""
    s.partition(s.acc)
    s.unroll("PE/pi")
    s.unroll("PE/pj")
    s.pipeline("k")
    s.unroll("init/pi")
    s.unroll("init/pj")


systolic.schedule_fn = schedule_systolic  # compose applies it; the registry lists allo's own names only

__all__ = ["systolic"]
