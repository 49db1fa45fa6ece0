"""Integer instances of the PolyBench kernels (for the hardware flows, which have no float units).

Same algorithms and loop structure as kernels.py, on integer types of several widths (int8/int16
inputs with int32 accumulators, a 12-bit and a 24-bit kernel), at sizes small enough for a
cycle-accurate simulation. Inputs are small, so no result overflows and the numpy references
(exact int64 arithmetic) hold whatever integer typing rule applies to intermediates. Divisions
(jacobi-2d, covariance) follow numpy's floor semantics like allo's `//`.

    from tests.polybench.int_kernels import INT_KERNELS
    for case in INT_KERNELS:
        args = case.make_inputs(np.random.default_rng(0))
        case.check(case.run(allo.customize(case.kernel).build(), args), args)

`correlation` needs a square root; its integer stand-in is PolyBench's `covariance`.
"""
import numpy as np

import allo
from allo.ir.types import Int, int8, int16, int32

from .kernels import Case

NI, NJ, NK, NL, NM = 4, 5, 3, 4, 3
M, N = 4, 5
TSTEPS = 2
int12, int24 = Int(12), Int(24)


# ---------------------------------------------------------------------------- kernels
def gemm_int(alpha: int32, beta: int32, C: int32[NI, NJ], A: int16[NI, NK], B: int16[NK, NJ]):
    for i in range(NI):
        for j in range(NJ):
            C[i, j] *= beta
        for k in range(NK):
            for j in range(NJ):
                C[i, j] += alpha * A[i, k] * B[k, j]


def k2mm_int(alpha: int32, beta: int32, A: int8[NI, NK], B: int8[NK, NJ], C: int8[NJ, NL], D: int32[NI, NL]):
    tmp: int32[NI, NJ] = 0
    for i, j in allo.grid(NI, NJ):
        for k in allo.reduction(NK):
            tmp[i, j] += alpha * A[i, k] * B[k, j]
    for i, j in allo.grid(NI, NL):
        D[i, j] *= beta
        for k in allo.reduction(NJ):
            D[i, j] += tmp[i, k] * C[k, j]


def k3mm_int(A: int8[NI, NK], B: int8[NK, NJ], C: int8[NJ, NM], D: int8[NM, NL]) -> int32[NI, NL]:
    E: int32[NI, NJ] = 0
    for i, j in allo.grid(NI, NJ):
        for k in allo.reduction(NK):
            E[i, j] += A[i, k] * B[k, j]
    F: int32[NJ, NL] = 0
    for i, j in allo.grid(NJ, NL):
        for k in allo.reduction(NM):
            F[i, j] += C[i, k] * D[k, j]
    G: int32[NI, NL] = 0
    for i, j in allo.grid(NI, NL):
        for k in allo.reduction(NJ):
            G[i, j] += E[i, k] * F[k, j]
    return G


def atax_int(A: int16[M, N], x: int16[N]) -> int32[N]:
    y: int32[N] = 0
    tmp: int32[M] = 0
    for i in range(M):
        for j in range(N):
            tmp[i] += A[i, j] * x[j]
        for j in range(N):
            y[j] += A[i, j] * tmp[i]
    return y


def bicg_int(A: int12[N, M], p: int12[M], r: int12[N]) -> (int32[M], int32[N]):
    s: int32[M] = 0
    q: int32[N] = 0
    for i in range(N):
        for j in range(M):
            s[j] += r[i] * A[i, j]
            q[i] += A[i, j] * p[j]
    return s, q


def gesummv_int(alpha: int32, beta: int32, A: int16[N, N], B: int16[N, N], x: int16[N]) -> int32[N]:
    y: int32[N] = 0
    for i in range(N):
        t: int32 = 0
        u: int32 = 0
        for j in range(N):
            t += A[i, j] * x[j]
            u += B[i, j] * x[j]
        y[i] = alpha * t + beta * u
    return y


def mvt_int(x1: int32[N], x2: int32[N], y1: int16[N], y2: int16[N], A: int16[N, N]):
    for i, j in allo.grid(N, N):
        x1[i] += A[i, j] * y1[j]
    for i, j in allo.grid(N, N):
        x2[i] += A[j, i] * y2[j]


def syrk_int(alpha: int32, beta: int32, C: int32[N, N], A: int16[N, M]):
    for i in range(N):
        for j in range(i + 1):
            C[i, j] *= beta
        for k in range(M):
            for j in range(i + 1):
                C[i, j] += alpha * A[i, k] * A[j, k]


def syr2k_int(alpha: int32, beta: int32, C: int32[N, N], A: int16[N, M], B: int16[N, M]):
    for i in range(N):
        for j in range(i + 1):
            C[i, j] *= beta
        for k in range(M):
            for j in range(i + 1):
                C[i, j] += A[j, k] * alpha * B[i, k] + B[j, k] * alpha * A[i, k]


def trmm_int(alpha: int32, A: int16[M, M], B: int32[M, N]):
    for i in range(M):
        for j in range(N):
            for k in range(i + 1, M):
                B[i, j] += A[k, i] * B[k, j]
            B[i, j] = alpha * B[i, j]


def symm_int(alpha: int32, beta: int32, C: int32[M, N], A: int16[M, M], B: int16[M, N]):
    for i in range(M):
        for j in range(N):
            temp2: int32 = 0
            for k in range(i):
                C[k, j] += alpha * B[i, j] * A[i, k]
                temp2 += B[k, j] * A[i, k]
            C[i, j] = beta * C[i, j] + alpha * B[i, j] * A[i, i] + alpha * temp2


def jacobi_2d_int(A: int24[N, N], B: int24[N, N]):
    for t in range(TSTEPS):
        for i in range(1, N - 1):
            for j in range(1, N - 1):
                B[i, j] = (A[i, j] + A[i, j - 1] + A[i, j + 1] + A[i + 1, j] + A[i - 1, j]) // 5
        for i in range(1, N - 1):
            for j in range(1, N - 1):
                A[i, j] = (B[i, j] + B[i, j - 1] + B[i, j + 1] + B[i + 1, j] + B[i - 1, j]) // 5


def covariance_int(data: int16[N, M]) -> int32[M, M]:
    mean: int32[M] = 0
    cov: int32[M, M] = 0
    for j in range(M):
        for i in range(N):
            mean[j] += data[i, j]
        mean[j] = mean[j] // N
    for i, j in allo.grid(N, M):
        data[i, j] -= mean[j]
    for i in range(M):
        for j in range(i, M):
            for k in range(N):
                cov[i, j] += data[k, i] * data[k, j]
            cov[i, j] = cov[i, j] // (N - 1)
            cov[j, i] = cov[i, j]
    return cov


def doitgen_int(A: int32[2, 3, 4], C4: int16[4, 4]):
    s: int32[4] = 0
    for r, q in allo.grid(2, 3):
        for p in range(4):
            s[p] = 0
            for k in range(4):
                s[p] += A[r, q, k] * C4[k, p]
        for p in range(4):
            A[r, q, p] = s[p]


def floyd_warshall_int(path: int32[N, N]):
    for k in range(N):
        for i in range(N):
            for j in range(N):
                path[i, j] = min(path[i, j], path[i, k] + path[k, j])


# ---------------------------------------------------------------------------- inputs and references
def _i(rng, dtype, *shape, lo=-8, hi=8):
    return rng.integers(lo, hi, size=shape).astype(dtype)


def _ab(rng):
    return 3, -2


def _q(x):
    return np.asarray(x, dtype=np.int64)


def _tril_update(full, C):
    return (np.where(np.tril(np.ones_like(full)) > 0, full, _q(C)).astype(np.int32),)


def ref_gemm(alpha, beta, C, A, B):
    return ((beta * _q(C) + alpha * _q(A) @ _q(B)).astype(np.int32),)


def ref_2mm(alpha, beta, A, B, C, D):
    return ((beta * _q(D) + (alpha * _q(A) @ _q(B)) @ _q(C)).astype(np.int32),)


def ref_3mm(A, B, C, D):
    return ((_q(A) @ _q(B)) @ (_q(C) @ _q(D))).astype(np.int32)


def ref_atax(A, x):
    return (_q(A).T @ (_q(A) @ _q(x))).astype(np.int32)


def ref_bicg(A, p, r):
    return (_q(r) @ _q(A)).astype(np.int32), (_q(A) @ _q(p)).astype(np.int32)


def ref_gesummv(alpha, beta, A, B, x):
    return (alpha * (_q(A) @ _q(x)) + beta * (_q(B) @ _q(x))).astype(np.int32)


def ref_mvt(x1, x2, y1, y2, A):
    return (_q(x1) + _q(A) @ _q(y1)).astype(np.int32), (_q(x2) + _q(A).T @ _q(y2)).astype(np.int32)


def ref_syrk(alpha, beta, C, A):
    return _tril_update(beta * _q(C) + alpha * _q(A) @ _q(A).T, C)


def ref_syr2k(alpha, beta, C, A, B):
    return _tril_update(beta * _q(C) + alpha * (_q(A) @ _q(B).T + _q(B) @ _q(A).T), C)


def ref_trmm(alpha, A, B):
    unit = np.tril(_q(A), -1) + np.eye(A.shape[0], dtype=np.int64)
    return ((alpha * unit.T @ _q(B)).astype(np.int32),)


def ref_symm(alpha, beta, C, A, B):
    low = np.tril(_q(A))
    sym = low + np.tril(_q(A), -1).T
    return ((alpha * sym @ _q(B) + beta * _q(C)).astype(np.int32),)


def ref_jacobi_2d(A, B):
    A, B = _q(A).copy(), _q(B).copy()
    for _ in range(TSTEPS):
        B[1:-1, 1:-1] = (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1]) // 5
        A[1:-1, 1:-1] = (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1]) // 5
    return A.astype(np.int32), B.astype(np.int32)


def ref_covariance(data):
    d = _q(data)
    mean = d.sum(axis=0) // d.shape[0]
    z = d - mean
    return ((z.T @ z) // (d.shape[0] - 1)).astype(np.int32)


def ref_doitgen(A, C4):
    return (np.einsum("rqk,kp->rqp", _q(A), _q(C4)).astype(np.int32),)


def ref_floyd_warshall(path):
    p = _q(path).copy()
    for k in range(p.shape[0]):
        p = np.minimum(p, p[:, k:k + 1] + p[k:k + 1, :])
    return (p.astype(np.int32),)


def _jacobi_inputs(r):
    return [_i(r, np.int32, N, N, lo=-1000, hi=1000), _i(r, np.int32, N, N, lo=-1000, hi=1000)]


INT_KERNELS = [
    Case("gemm", gemm_int, lambda r: [*_ab(r), _i(r, np.int32, NI, NJ), _i(r, np.int16, NI, NK),
                                      _i(r, np.int16, NK, NJ)], ref_gemm, outputs=(2,)),
    Case("2mm", k2mm_int, lambda r: [*_ab(r), _i(r, np.int8, NI, NK), _i(r, np.int8, NK, NJ),
                                     _i(r, np.int8, NJ, NL), _i(r, np.int32, NI, NL)], ref_2mm, outputs=(5,)),
    Case("3mm", k3mm_int, lambda r: [_i(r, np.int8, NI, NK), _i(r, np.int8, NK, NJ), _i(r, np.int8, NJ, NM),
                                     _i(r, np.int8, NM, NL)], ref_3mm),
    Case("atax", atax_int, lambda r: [_i(r, np.int16, M, N), _i(r, np.int16, N)], ref_atax),
    Case("bicg", bicg_int, lambda r: [_i(r, np.int16, N, M, lo=-100, hi=100), _i(r, np.int16, M),
                                      _i(r, np.int16, N)], ref_bicg),
    Case("gesummv", gesummv_int, lambda r: [*_ab(r), _i(r, np.int16, N, N), _i(r, np.int16, N, N),
                                            _i(r, np.int16, N)], ref_gesummv),
    Case("mvt", mvt_int, lambda r: [_i(r, np.int32, N), _i(r, np.int32, N), _i(r, np.int16, N), _i(r, np.int16, N),
                                    _i(r, np.int16, N, N)], ref_mvt, outputs=(0, 1)),
    Case("syrk", syrk_int, lambda r: [*_ab(r), _i(r, np.int32, N, N), _i(r, np.int16, N, M)], ref_syrk, outputs=(2,)),
    Case("syr2k", syr2k_int, lambda r: [*_ab(r), _i(r, np.int32, N, N), _i(r, np.int16, N, M),
                                        _i(r, np.int16, N, M)], ref_syr2k, outputs=(2,)),
    Case("trmm", trmm_int, lambda r: [3, _i(r, np.int16, M, M), _i(r, np.int32, M, N)], ref_trmm, outputs=(2,)),
    Case("symm", symm_int, lambda r: [*_ab(r), _i(r, np.int32, M, N), _i(r, np.int16, M, M),
                                      _i(r, np.int16, M, N)], ref_symm, outputs=(2,)),
    Case("jacobi-2d", jacobi_2d_int, _jacobi_inputs, ref_jacobi_2d, outputs=(0, 1)),
    Case("covariance", covariance_int, lambda r: [_i(r, np.int16, N, M, lo=-100, hi=100)], ref_covariance),
    Case("doitgen", doitgen_int, lambda r: [_i(r, np.int32, 2, 3, 4), _i(r, np.int16, 4, 4)], ref_doitgen,
         outputs=(0,)),
    Case("floyd-warshall", floyd_warshall_int, lambda r: [_i(r, np.int32, N, N, lo=1, hi=100)], ref_floyd_warshall,
         outputs=(0,)),
]

INT_BY_NAME = {c.name: c for c in INT_KERNELS}

__all__ = ["INT_KERNELS", "INT_BY_NAME"]
