"""Held-out schedules on other PolyBench kernels (integer form, small sizes), written after the
issue-26 model changes to check the estimate against the static RTL circuit (docs/rtl.md): doitgen
(reorder + pipeline + complete partitions), covariance (three pipelined phases, a reduction nest),
jacobi-1d (two pipelined sweeps per step), trmm with a triangular guard and complete partitions,
a 2-D stencil unrolled x2 over cyclic banks whose bank is known only at run time, and a two-stage
matrix-product chain in a dataflow region.

`KERNELS[name]()` returns (schedule, numpy reference of the written arrays, indices of the written
arguments). Example::

    s, ref, outs = KERNELS["doitgen"]()
    s.build(target="rtl")
"""
import numpy as np

import allo
from allo.ir.types import int32


def doitgen(R=4, Q=4, P=16):
    def k(A: int32[R, Q, P], C4: int32[P, P], out: int32[R, Q, P]):
        for r, q in allo.grid(R, Q):
            s: int32[P] = 0
            for p in range(P):
                for ss in range(P):
                    s[p] += A[r, q, ss] * C4[ss, p]
            for p2 in range(P):
                out[r, q, p2] = s[p2]
    sch = allo.customize(k)
    sch.reorder("ss", "p")
    sch.pipeline("ss")
    sch.partition(sch.C4, allo.Partition.Complete, dim=2)
    sch.partition(sch.s, allo.Partition.Complete, dim=1)
    def ref(A, C4, out):
        return (np.einsum("rqs,sp->rqp", A.astype(np.int64), C4.astype(np.int64)).astype(np.int32),)
    return sch, ref, (2,)


def covariance(M=8, N=16):
    def k(data: int32[N, M], cov: int32[M, M]):
        mean: int32[M] = 0
        for j in range(M):
            for i in range(N):
                mean[j] += data[i, j]
            mean[j] = mean[j] // N
        d: int32[N, M]
        for i2, j2 in allo.grid(N, M):
            d[i2, j2] = data[i2, j2] - mean[j2]
        for a in range(M):
            for b in range(M):
                acc: int32 = 0
                for c in range(N):
                    acc += d[c, a] * d[c, b]
                cov[a, b] = acc
    sch = allo.customize(k)
    sch.pipeline("i")
    sch.pipeline("j2")
    sch.pipeline("c")
    def ref(data, cov):
        d = data.astype(np.int64)
        # C-style truncating division for negatives
        mu = d.sum(0) // N
        x = d - mu
        return ((x.T @ x).astype(np.int32),)
    return sch, ref, (1,)


def jacobi1d(T=2, N=32):
    def k(A: int32[N], B: int32[N]):
        for t in range(T):
            for i in range(1, N - 1):
                B[i] = (A[i - 1] + A[i] + A[i + 1]) // 3
            for j in range(1, N - 1):
                A[j] = (B[j - 1] + B[j] + B[j + 1]) // 3
    sch = allo.customize(k)
    sch.pipeline("i")
    sch.pipeline("j")
    def ref(A, B):
        A = A.astype(np.int64).copy(); B = B.astype(np.int64).copy()
        def td(x): return x // 3
        for t in range(T):
            B[1:-1] = td(A[:-2] + A[1:-1] + A[2:])
            A[1:-1] = td(B[:-2] + B[1:-1] + B[2:])
        return A.astype(np.int32), B.astype(np.int32)
    return sch, ref, (0, 1)


def trmm_unroll(M=8, N=16):
    def k(A: int32[M, M], B: int32[M, N]):
        for i in range(M):
            for j in range(N):
                acc: int32 = B[i, j]
                for kk in range(M):
                    if kk > i:
                        acc += A[kk, i] * B[kk, j]
                B[i, j] = acc
    sch = allo.customize(k)
    sch.pipeline("j")
    sch.partition(sch.A, allo.Partition.Complete, dim=1)
    sch.partition(sch.B, allo.Partition.Complete, dim=1)
    def ref(A, B):
        A = A.astype(np.int64); B = B.astype(np.int64).copy()
        for i in range(M):
            for j in range(N):
                acc = B[i, j]
                for kk in range(i + 1, M):
                    acc += A[kk, i] * B[kk, j]
                B[i, j] = acc
        return (B.astype(np.int32),)
    return sch, ref, (1,)


def heat2d_unroll(N=10):
    def k(A: int32[N, N], B: int32[N, N]):
        for i in range(1, N - 1):
            for j in range(1, N - 1):
                B[i, j] = (A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1] + A[i, j]) // 5
    sch = allo.customize(k)
    sch.pipeline("j")
    sch.unroll("j", 2)
    sch.partition(sch.A, allo.Partition.Cyclic, dim=2, factor=4)
    sch.partition(sch.B, allo.Partition.Cyclic, dim=2, factor=2)
    def ref(A, B):
        A = A.astype(np.int64); B = B.astype(np.int64).copy()
        s = A[:-2, 1:-1] + A[2:, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[1:-1, 1:-1]
        B[1:-1, 1:-1] = s // 5
        return (B.astype(np.int32),)
    return sch, ref, (1,)


def mm_chain_dataflow(N=8):
    def mmA(A: int32[N, N], B: int32[N, N], C: int32[N, N]):
        for i, j in allo.grid(N, N):
            acc: int32 = 0
            for k in range(N):
                acc += A[i, k] * B[k, j]
            C[i, j] = acc
    def mmB(C: int32[N, N], D: int32[N, N], E: int32[N, N]):
        for i, j in allo.grid(N, N):
            acc: int32 = 0
            for k in range(N):
                acc += C[i, k] * D[k, j]
            E[i, j] = acc
    def top(A: int32[N, N], B: int32[N, N], D: int32[N, N], E: int32[N, N]):
        C: int32[N, N]
        mmA(A, B, C)
        mmB(C, D, E)
    s1 = allo.customize(mmA); s1.pipeline("j"); s1.partition(s1.A, allo.Partition.Complete, dim=2); s1.partition(s1.B, allo.Partition.Complete, dim=1)
    s2 = allo.customize(mmB); s2.pipeline("j"); s2.partition(s2.D, allo.Partition.Complete, dim=1); s2.partition(s2.C, allo.Partition.Complete, dim=2)
    s = allo.customize(top); s.compose(s1); s.compose(s2); s.dataflow("top")
    def ref(A, B, D, E):
        return (((A.astype(np.int64) @ B) @ D).astype(np.int32),)
    return s, ref, (3,)


KERNELS = {"doitgen": doitgen, "covariance": covariance, "jacobi1d": jacobi1d, "trmm_unroll": trmm_unroll,
           "heat2d_unroll": heat2d_unroll, "mm_chain_dataflow": mm_chain_dataflow}
