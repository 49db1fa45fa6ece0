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

from ..ir.types import Int, UInt, index, int8, int16, int32  # noqa: F401 - annotations
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


@allo.kernel(template="K, Mt, Nt")
def PE_kernel_packed_int8xint8(A_in: "int8[K]", B_in: "int16[K]", A_out: "int8[K]",  # noqa: N802
                               B_out: "int16[K]", C: "int32[Mt, Nt]", i: index, j: index):
    """One processing element computing two int8 dot products with one multiplier (the DSP packing of
    upstream Allo): each B_in word holds two int8 columns (low byte first); |a| times both
    magnitudes, 17 bits apart, is one 18 x 27 bit product; the signs are put back on each half.
    C[i, j] holds the two int16 sums (column 2j in the low half, 2j + 1 in the high half)."""
    v: int32 = 0
    for k in allo.grid(K, name="reduction"):
        a: int8 = A_in[k]
        b_packed: int16 = B_in[k]
        b0: int8 = b_packed[0:8]
        b1: int8 = b_packed[8:16]
        s0: UInt(1) = a[7] ^ b0[7]
        s1: UInt(1) = a[7] ^ b1[7]
        au: UInt(8) = allo.abs(a)
        b0u: UInt(8) = allo.abs(b0)
        b1u: UInt(8) = allo.abs(b1)
        op0: UInt(18) = 0
        op1: UInt(27) = 0
        op0[0:8] = au
        op1[0:8] = b0u
        op1[17:25] = b1u
        res: UInt(45) = op0 * op1
        res0u: UInt(16) = res[0:16]
        res1u: UInt(16) = res[17:33]
        res0: int16 = -res0u if s0 else res0u
        res1: int16 = -res1u if s1 else res1u
        lo: int16 = v[0:16]
        hi: int16 = v[16:32]
        v[0:16] = lo + res0  # each half wraps on its own, as two int16 accumulators
        v[16:32] = hi + res1
        A_out[k] = a
        B_out[k] = b_packed
    C[i, j] = v


@allo.kernel(template="K, Mt, Nt")
def packed_int8xint8_tile(A: "int8[Mt, K]", B: "int16[K, Nt]", C: "int32[Mt, Nt]"):
    """`systolic_tile` of `PE_kernel_packed_int8xint8` processing elements (B and C hold two int8
    columns per element)."""
    A_fifo: int8[Mt, Nt + 1, K]
    B_fifo: int16[Nt, Mt + 1, K]
    for k in range(K, name="data_load"):
        for m in range(Mt):
            A_fifo[m, 0, k] = A[m, k]
        for n in range(Nt):
            B_fifo[n, 0, k] = B[k, n]
    for i, j in allo.grid(Mt, Nt, name="PE"):
        PE_kernel_packed_int8xint8[K, Mt, Nt](A_fifo[i, j], B_fifo[j, i], A_fifo[i, j + 1], B_fifo[j, i + 1], C, i, j)
    A_drain: int8[Mt]
    B_drain: int16[Nt]
    for k in range(K, name="data_drain"):
        for m in range(Mt):
            A_drain[m] = A_fifo[m, Nt, k]
        for n in range(Nt):
            B_drain[n] = B_fifo[n, Mt, k]


@allo.kernel(template="M, K, N, Mt, Nt, P")
def packed_int8xint8_systolic(A: "Int(8 * P)[M // P, K]", B: "Int(8 * P)[K, N // P]", C: "Int(8 * P)[M // P, N]"):
    """C = A @ B of int8 matrices (wrapping like numpy's int8 matmul) packed P to a word like
    `packed_systolic`'s, on processing elements that do two multiplications with one DSP product
    (`PE_kernel_packed_int8xint8`; upstream Allo's `packed_int8xint8_systolic`). Each half of the
    product is exact (|a * b| <= 2**14 fits below the 17-bit offset) and the sums wrap in 16 bits,
    which keeps their low 8 bits, the int8 result, exact for any K."""
    local_A: int8[Mt, K]
    local_B: int16[K, Nt // 2]
    local_C: int32[Mt, Nt // 2]
    for mi, ni in allo.grid(M // Mt, N // Nt, name="outer_tile"):
        for ak, ai in allo.grid(K, Mt // P, name="load_A_tile"):
            if ni == 0:  # the A tile is the same for every ni
                a: Int(8 * P) = A[mi * Mt // P + ai, ak]
                for p in range(P):
                    local_A[ai * P + p, ak] = a[p * 8:(p + 1) * 8]
        for bk, bj in allo.grid(K, Nt // P, name="load_B_tile"):
            b: Int(8 * P) = B[bk, ni * Nt // P + bj]
            for p in range(P // 2):  # two int8 columns per int16 element
                local_B[bk, bj * (P // 2) + p] = b[p * 16:(p + 1) * 16]
        packed_int8xint8_tile[K, Mt, Nt // 2](local_A, local_B, local_C)
        for sj, si in allo.grid(Nt // 2, Mt // P, name="store_C_tile"):
            c0: Int(8 * P) = 0
            c1: Int(8 * P) = 0
            for p in range(P):
                x: int32 = local_C[si * P + p, sj]
                c0[p * 8:(p + 1) * 8] = x[0:8]
                c1[p * 8:(p + 1) * 8] = x[16:24]
            C[mi * Mt // P + si, ni * Nt + 2 * sj] = c0
            C[mi * Mt // P + si, ni * Nt + 2 * sj + 1] = c1


__all__ = ["systolic", "systolic_tile", "PE_kernel", "packed_systolic", "PE_kernel_packed_int8xint8",
           "packed_int8xint8_tile", "packed_int8xint8_systolic"]
