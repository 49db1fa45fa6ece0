"""The unscheduled PolyBench kernels of the artifact's Vitis baseline (plain C, every array an
m_axi port on one shared bundle `gmem`): build with
`s.build(target="vitis_hls")` / `allo.qor.estimate(s, target="vitis_hls")` (gmem is the default bundle).

Each factory takes the problem sizes and returns (kernel, numpy reference). The reference takes
the same arguments and returns the arrays the kernel updates in place, as a tuple. `T=int32` gives
the integer form (tests/qor/dtypes.py: jacobi's 0.2 becomes 3, correlation's square roots a shift and
the integer square root of N, as in designs.correlation); pass integer scalars to it. Example::

    kernel, ref = FACTORIES["gemm"](P=8, R=8, Q=8, T=int32)
"""
import math

import numpy as np

import allo
from allo.ir.types import float32, int32
from tests.qor.dtypes import constant, int_form, trunc_div, zero_one

TARGET, BUNDLE = "vitis_hls", None  # None: the default shared m_axi bundle `gmem`, as in the published baselines


def gemm(P, R, Q, T=float32):
    zero, one = zero_one(T)
    NI, NJ, NK = P, R, Q

    def kernel(alpha: T, beta: T, C: T[NI, NJ], A: T[NI, NK], B: T[NK, NJ]):
        for i in range(NI):
            for j in range(NJ):
                C[i, j] *= beta
            for k in range(NK):
                for j in range(NJ):
                    C[i, j] += alpha * A[i, k] * B[k, j]

    def ref(alpha, beta, C, A, B):
        return (beta * C + alpha * (A @ B),)

    return kernel, ref


def k2mm(P, R, Q, S, T=float32):
    zero, one = zero_one(T)
    NI, NJ, NK, NL = P, R, Q, S

    def kernel(alpha: T, beta: T, tmp: T[NI, NJ], A: T[NI, NK], B: T[NK, NJ],
               C: T[NJ, NL], D: T[NI, NL]):
        for i in range(NI):
            for j in range(NJ):
                tmp[i, j] = zero
                for k in range(NK):
                    tmp[i, j] += alpha * A[i, k] * B[k, j]
        for i in range(NI):
            for j in range(NL):
                D[i, j] *= beta
                for k in range(NJ):
                    D[i, j] += tmp[i, k] * C[k, j]

    def ref(alpha, beta, tmp, A, B, C, D):
        t = alpha * (A @ B)
        return t, beta * D + t @ C

    return kernel, ref


def atax(M, N, T=float32):
    zero, one = zero_one(T)
    def kernel(A: T[M, N], x: T[N], y: T[N], tmp: T[M]):
        for i in range(N):
            y[i] = zero
        for i in range(M):
            tmp[i] = zero
            for j in range(N):
                tmp[i] = tmp[i] + A[i, j] * x[j]
            for j in range(N):
                y[j] = y[j] + A[i, j] * tmp[i]

    def ref(A, x, y, tmp):
        t = A @ x
        return A.T @ t, t

    return kernel, ref


def correlation(M, N, T=float32):
    zero, one = zero_one(T)
    if int_form(T):
        return _correlation_int(M, N, T)

    def kernel(float_n: T, data: T[N, M], corr: T[M, M], mean: T[M], stddev: T[M]):
        eps: float32 = 0.1
        for j in range(M):
            mean[j] = zero
            for i in range(N):
                mean[j] += data[i, j]
            mean[j] /= float_n
        for j in range(M):
            stddev[j] = zero
            for i in range(N):
                stddev[j] += (data[i, j] - mean[j]) * (data[i, j] - mean[j])
            stddev[j] /= float_n
            stddev[j] = allo.sqrt(stddev[j])
            stddev[j] = 1.0 if stddev[j] <= eps else stddev[j]
        for i in range(N):
            for j in range(M):
                data[i, j] -= mean[j]
                data[i, j] /= allo.sqrt(float_n) * stddev[j]
        for i in range(M - 1):
            corr[i, i] = one
            for j in range(i + 1, M):
                corr[i, j] = zero
                for k in range(N):
                    corr[i, j] += data[k, i] * data[k, j]
                corr[j, i] = corr[i, j]
        corr[M - 1, M - 1] = one

    def ref(float_n, data, corr, mean, stddev):
        mu = data.mean(axis=0)
        sd = np.sqrt(((data - mu) ** 2).mean(axis=0))
        sd = np.where(sd <= 0.1, 1.0, sd)
        z = (data - mu) / (np.sqrt(float_n) * sd)
        return (z.T @ z,)

    return kernel, ref


def _correlation_int(M, N, T):
    """The integer form: `sqrt(v)` -> `v >> 4`, `sqrt(float_n)` -> isqrt(N) (float_n must be N)."""
    zero, one = zero_one(T)
    sqrt_n = math.isqrt(N)

    def kernel(float_n: T, data: T[N, M], corr: T[M, M], mean: T[M], stddev: T[M]):
        for j in range(M):
            mean[j] = zero
            for i in range(N):
                mean[j] += data[i, j]
            mean[j] /= float_n
        for j in range(M):
            stddev[j] = zero
            for i in range(N):
                stddev[j] += (data[i, j] - mean[j]) * (data[i, j] - mean[j])
            stddev[j] /= float_n
            stddev[j] = stddev[j] >> 4
            stddev[j] = one if stddev[j] <= zero else stddev[j]
        for i in range(N):
            for j in range(M):
                data[i, j] -= mean[j]
                data[i, j] /= sqrt_n * stddev[j]
        for i in range(M - 1):
            corr[i, i] = one
            for j in range(i + 1, M):
                corr[i, j] = zero
                for k in range(N):
                    corr[i, j] += data[k, i] * data[k, j]
                corr[j, i] = corr[i, j]
        corr[M - 1, M - 1] = one

    def ref(float_n, data, corr, mean, stddev):
        d = data.astype(np.int64)
        mu = trunc_div(d.sum(axis=0), float_n)
        sd = trunc_div(((d - mu) ** 2).sum(axis=0), float_n) >> 4
        sd = np.where(sd <= 0, 1, sd)
        z = trunc_div(d - mu, sqrt_n * sd)
        c = z.T @ z
        np.fill_diagonal(c, 1)
        return (c.astype(np.int32),)

    return kernel, ref


def jacobi_2d(TSTEPS, N, T=float32):
    zero, one = zero_one(T)
    c_w = constant(T, 0.2)
    def kernel(A: T[N, N], B: T[N, N]):
        for t in range(TSTEPS):
            for i in range(1, N - 1):
                for j in range(1, N - 1):
                    B[i, j] = c_w * (A[i, j] + A[i, j - 1] + A[i, j + 1] + A[i + 1, j] + A[i - 1, j])
            for i in range(1, N - 1):
                for j in range(1, N - 1):
                    A[i, j] = c_w * (B[i, j] + B[i, j - 1] + B[i, j + 1] + B[i + 1, j] + B[i - 1, j])

    def ref(A, B):
        A, B = A.astype(np.float64), B.astype(np.float64)
        for _ in range(TSTEPS):
            B[1:-1, 1:-1] = c_w * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
            A[1:-1, 1:-1] = c_w * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])
        return A, B

    return kernel, ref


def symm(M, N, T=float32):
    zero, one = zero_one(T)
    def kernel(alpha: T, beta: T, C: T[M, N], A: T[M, M], B: T[M, N]):
        for i in range(M):
            for j in range(N):
                temp2: T = zero
                for k in range(i):
                    C[k, j] += alpha * B[i, j] * A[i, k]
                    temp2 += B[k, j] * A[i, k]
                C[i, j] = beta * C[i, j] + alpha * B[i, j] * A[i, i] + alpha * temp2

    def ref(alpha, beta, C, A, B):
        C = C.astype(np.float64).copy()
        for i in range(M):
            for j in range(N):
                temp2 = 0.0
                for k in range(i):
                    C[k, j] += alpha * B[i, j] * A[i, k]
                    temp2 += B[k, j] * A[i, k]
                C[i, j] = beta * C[i, j] + alpha * B[i, j] * A[i, i] + alpha * temp2
        return (C,)

    return kernel, ref


def syr2k(M, N, T=float32):
    zero, one = zero_one(T)
    def kernel(alpha: T, beta: T, C: T[N, N], A: T[N, M], B: T[N, M]):
        for i in range(N):
            for j in range(i + 1):
                C[i, j] *= beta
            for k in range(M):
                for j in range(i + 1):
                    C[i, j] += A[j, k] * alpha * B[i, k] + B[j, k] * alpha * A[i, k]

    def ref(alpha, beta, C, A, B):
        full = beta * C + alpha * (A @ B.T) + alpha * (B @ A.T)
        return (np.where(np.tril(np.ones_like(C)) > 0, full, C),)

    return kernel, ref


def trmm(M, N, T=float32):
    zero, one = zero_one(T)
    def kernel(alpha: T, A: T[M, M], B: T[M, N]):
        for i in range(M):
            for j in range(N):
                for k in range(M):
                    if k >= i + 1:
                        B[i, j] += A[k, i] * B[k, j]
                B[i, j] = alpha * B[i, j]

    def ref(alpha, A, B):
        return (alpha * ((np.eye(M) + np.tril(A, -1).T) @ B),)

    return kernel, ref


def syrk(M, N, T=float32):
    zero, one = zero_one(T)
    def kernel(alpha: T, beta: T, C: T[N, N], A: T[N, M]):
        for i in range(N):
            for j in range(i + 1):
                C[i, j] *= beta
            for k in range(M):
                for j in range(i + 1):
                    C[i, j] += alpha * A[i, k] * A[j, k]

    def ref(alpha, beta, C, A):
        full = beta * C + alpha * (A @ A.T)
        return (np.where(np.tril(np.ones_like(C)) > 0, full, C),)

    return kernel, ref


def k3mm(NI, NJ, NK, NL, NM, T=float32):
    Ty = T
    zero, one = zero_one(Ty)

    def kernel(E: Ty[NI, NJ], A: Ty[NI, NK], B: Ty[NK, NJ], F: Ty[NJ, NL], C: Ty[NJ, NM], D: Ty[NM, NL],
               G: Ty[NI, NL]):
        for i in range(NI):
            for j in range(NJ):
                E[i, j] = zero
                for k in range(NK):
                    E[i, j] += A[i, k] * B[k, j]
        for i in range(NJ):
            for j in range(NL):
                F[i, j] = zero
                for k in range(NM):
                    F[i, j] += C[i, k] * D[k, j]
        for i in range(NI):
            for j in range(NL):
                G[i, j] = zero
                for k in range(NJ):
                    G[i, j] += E[i, k] * F[k, j]

    def ref(E, A, B, F, C, D, G):
        e, f = A @ B, C @ D
        return e, f, e @ f

    return kernel, ref


def bicg(M, N, T=float32):
    zero, one = zero_one(T)
    def kernel(A: T[N, M], s: T[M], q: T[N], p: T[M], r: T[N]):
        for i in range(M):
            s[i] = zero
        for i in range(N):
            q[i] = zero
            for j in range(M):
                s[j] = s[j] + r[i] * A[i, j]
                q[i] = q[i] + A[i, j] * p[j]

    def ref(A, s, q, p, r):
        return r @ A, A @ p

    return kernel, ref


def gesummv(N, T=float32):
    zero, one = zero_one(T)
    def kernel(alpha: T, beta: T, A: T[N, N], B: T[N, N], tmp: T[N], x: T[N], y: T[N]):
        for i in range(N):
            tmp[i] = zero
            y[i] = zero
            for j in range(N):
                tmp[i] = A[i, j] * x[j] + tmp[i]
                y[i] = B[i, j] * x[j] + y[i]
            y[i] = alpha * tmp[i] + beta * y[i]

    def ref(alpha, beta, A, B, tmp, x, y):
        t = A @ x
        return t, alpha * t + beta * (B @ x)

    return kernel, ref


def mvt(N, T=float32):
    zero, one = zero_one(T)
    def kernel(x1: T[N], x2: T[N], y1: T[N], y2: T[N], A: T[N, N]):
        for i in range(N):
            for j in range(N):
                x1[i] = x1[i] + A[i, j] * y1[j]
        for i in range(N):
            for j in range(N):
                x2[i] = x2[i] + A[j, i] * y2[j]

    def ref(x1, x2, y1, y2, A):
        return x1 + A @ y1, x2 + A.T @ y2

    return kernel, ref


FACTORIES = {"2mm": k2mm, "atax": atax, "correlation": correlation, "gemm": gemm, "jacobi-2d": jacobi_2d,
             "symm": symm, "syr2k": syr2k, "trmm": trmm}
# kernels held out of the model's tuning (added after it): the same artifact's Vitis baselines
HELD_OUT = {"3mm": k3mm, "bicg": bicg, "gesummv": gesummv, "mvt": mvt, "syrk": syrk}
FACTORIES.update(HELD_OUT)


# Sizes of the integer forms for cycle-accurate simulation: every innermost loop keeps >= 64
# iterations, so Vitis's automatic pipelining (the estimator's rule) still applies as at the
# published sizes; the other dimensions are small.
INT_SMALL = {"2mm": dict(P=4, R=64, Q=64, S=4), "atax": dict(M=8, N=64), "correlation": dict(M=8, N=64),
             "gemm": dict(P=4, R=64, Q=4), "jacobi-2d": dict(TSTEPS=1, N=66), "symm": dict(M=65, N=4),
             "syr2k": dict(M=4, N=64), "trmm": dict(M=64, N=4)}


def int_args(name, sizes, params, rng) -> list:
    """Arguments of the integer form: small integers, and the scalars its float constants stand for
    (alpha = 1.5 -> 3, beta = 1.2 -> 2, float_n = N)."""
    scalars = {"alpha": constant(int32, 1.5), "beta": constant(int32, 1.2), "float_n": sizes.get("N")}
    return [rng.integers(-8, 9, size=p.shape).astype(np.int32) if p.shape else np.int32(scalars[p.name])
            for p in params]


def build(name, sizes):
    """(schedule, target, bundle) of the baseline of kernel `name` at `sizes` (no primitives)."""
    kernel, _ = FACTORIES[name](**sizes)
    return allo.customize(kernel), TARGET, BUNDLE
