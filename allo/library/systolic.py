"""`systolic`: an output-stationary systolic-array GEMM (upstream Allo's `allo.library.systolic`).

`systolic[TyA, TyB, TyC, M, K, N, M0, M1](A, B, C)` writes `C = A @ B` (A[M, K], B[K, N],
C[M, N], accumulated in TyC) tile by tile: an M0 x M1 grid of processing elements (band "PE")
accumulates one output tile while K streams through, then the tile drains into C. The predefined
schedule fully unrolls the PE grid, partitions the tile accumulator into registers and pipelines
the K loop, which is what HLS builds as a systolic array. When M0 does not divide M (or M1 N), the
PEs past the edge of the matrix idle in the last tiles.

`systolic_tile[TyA, TyB, TyC, K, Mt, Nt](A, B, C)` is upstream's one-tile array written with
explicit data movement: an Mt x Nt grid of `PE_kernel` calls (band "PE"), each reading its row
of A and column of B from the FIFO arrays `A_fifo`/`B_fifo`, passing them on to its right and
lower neighbour and writing its dot product into C; the last column and row drain into
`A_drain`/`B_drain`. After `pe = s.unfold("PE", [0, 1])`, `s.to(s.A_fifo, pe, axis=1)` and
`s.to(s.B_fifo, pe, axis=0)` make both arrays of FIFOs (upstream's space-time streams).

Example::

    s = allo.customize(systolic, instantiate=[int8, int8, int16, 64, 64, 64, 4, 4])
    s.build()(A, B, C)          # C == A @ B
    t = allo.customize(systolic_tile, instantiate=[int8, int8, int16, 4, 4, 4])
    t.build()(A4, B4, C4)       # C4 == A4 @ B4 (A4[4, 4], B4[4, 4])
"""
from __future__ import annotations

from ..ir.types import Int, index
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


@allo.kernel(template="TyA, TyB, TyC, K, Mt, Nt")
def PE_kernel(A_in: "TyA[K]", B_in: "TyB[K]", A_out: "TyA[K]", B_out: "TyB[K]", C: "TyC[Mt, Nt]",  # noqa: N802
              i: index, j: index):
    """One processing element: C[i, j] = A_in . B_in (accumulated in TyC), passing A_in and B_in on."""
    v: TyC = 0
    for k in allo.grid(K, name="reduction"):
        a: TyA = A_in[k]
        b: TyB = B_in[k]
        v += a * b
        A_out[k] = a
        B_out[k] = b
    C[i, j] = v


@allo.kernel(template="TyA, TyB, TyC, K, Mt, Nt")
def systolic_tile(A: "TyA[Mt, K]", B: "TyB[K, Nt]", C: "TyC[Mt, Nt]"):
    """C = A @ B on an Mt x Nt grid of PE_kernel instances linked by the FIFO arrays A_fifo/B_fifo."""
    A_fifo: TyA[Mt, Nt + 1, K]
    B_fifo: TyB[Nt, Mt + 1, K]
    for k in range(K, name="data_load"):
        for m in range(Mt):
            A_fifo[m, 0, k] = A[m, k]
        for n in range(Nt):
            B_fifo[n, 0, k] = B[k, n]
    for i, j in allo.grid(Mt, Nt, name="PE"):
        PE_kernel[TyA, TyB, TyC, K, Mt, Nt](A_fifo[i, j], B_fifo[j, i], A_fifo[i, j + 1], B_fifo[j, i + 1], C, i, j)
    A_drain: TyA[Mt]  # the last PEs' outputs: read, so that every FIFO of `s.to(s.A_fifo, pe, ...)` drains
    B_drain: TyB[Nt]
    for k in range(K, name="data_drain"):
        for m in range(Mt):
            A_drain[m] = A_fifo[m, Nt, k]
        for n in range(Nt):
            B_drain[n] = B_fifo[n, Mt, k]


@allo.kernel(template="TyA, TyB, TyC, M, K, N, Mt, Nt, P")
def packed_systolic(A: "Int(TyA.bits * P)[M // P, K]", B: "Int(TyB.bits * P)[K, N // P]",
                    C: "Int(TyC.bits * P)[M // P, N]"):
    """C = A @ B on P-packed words: each element of A (and C) holds P consecutive rows' values of
    TyA (TyC) side by side, lowest bits first; each element of B holds P consecutive columns'.
    Tiles of Mt x Nt go through `systolic_tile` (upstream Allo's `packed_systolic`)."""
    local_A: TyA[Mt, K]
    local_B: TyB[K, Nt]
    local_C: TyC[Mt, Nt]
    for mi, ni in allo.grid(M // Mt, N // Nt, name="outer_tile"):
        for ak, ai in allo.grid(K, Mt // P, name="load_A_tile"):
            if ni == 0:  # the A tile is the same for every ni
                a: Int(TyA.bits * P) = A[mi * Mt // P + ai, ak]
                for p in range(P):
                    local_A[ai * P + p, ak] = a[p * TyA.bits:(p + 1) * TyA.bits]
        for bk, bj in allo.grid(K, Nt // P, name="load_B_tile"):
            b: Int(TyB.bits * P) = B[bk, ni * Nt // P + bj]
            for p in range(P):
                local_B[bk, bj * P + p] = b[p * TyB.bits:(p + 1) * TyB.bits]
        systolic_tile[TyA, TyB, TyC, K, Mt, Nt](local_A, local_B, local_C)
        for sj, si in allo.grid(Nt, Mt // P, name="store_C_tile"):
            c: Int(TyC.bits * P) = 0
            for p in range(P):
                c[p * TyC.bits:(p + 1) * TyC.bits] = local_C[si * P + p, sj]
            C[mi * Mt // P + si, ni * Nt + sj] = c


__all__ = ["systolic", "systolic_tile", "PE_kernel", "packed_systolic"]
