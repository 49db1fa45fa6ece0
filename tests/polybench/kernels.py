"""PolyBench kernels in the allo DSL at small sizes, each with an input maker and a numpy reference.

Reusable by other tests (LLVM, HLS csim, schedules)::

    from tests.polybench.kernels import KERNELS
    for case in KERNELS:
        args = case.make_inputs(np.random.default_rng(0))
        got = allo.customize(case.kernel).build()(*[a.copy() for a in args])
        want = case.reference(*args)
        case.check(got, want, args)

Each case's `reference` takes the same arguments as the kernel and returns what the kernel
returns; for in-place kernels (no return) `outputs` lists the argument positions the kernel
updates and `reference` returns their expected contents (a tuple, in that order).
Sizes follow PolyBench's naming (NI, NJ, ...) but are tiny so that a build + run stays fast.
"""

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

import allo
from allo.ir.types import float32, int32

# ---------------------------------------------------------------------------- sizes
NI, NJ, NK, NL, NM = 8, 10, 12, 6, 7
M, N = 8, 10  # atax, bicg, mvt, syrk/syr2k (N x M), trmm/symm (M x N), correlation (N samples x M)
TSTEPS = 3


# ---------------------------------------------------------------------------- kernels
def gemm(alpha: float32, beta: float32, C: float32[NI, NJ], A: float32[NI, NK], B: float32[NK, NJ]):
    for i in range(NI):
        for j in range(NJ):
            C[i, j] *= beta
        for k in range(NK):
            for j in range(NJ):
                C[i, j] += alpha * A[i, k] * B[k, j]


def k2mm(alpha: float32, beta: float32, A: float32[NI, NK], B: float32[NK, NJ], C: float32[NJ, NL],
         D: float32[NI, NL]):
    tmp: float32[NI, NJ] = 0.0
    for i, j in allo.grid(NI, NJ):
        for k in allo.reduction(NK):
            tmp[i, j] += alpha * A[i, k] * B[k, j]
    for i, j in allo.grid(NI, NL):
        D[i, j] *= beta
        for k in allo.reduction(NJ):
            D[i, j] += tmp[i, k] * C[k, j]


def k3mm(A: float32[NI, NK], B: float32[NK, NJ], C: float32[NJ, NM], D: float32[NM, NL]) -> float32[NI, NL]:
    E: float32[NI, NJ] = 0.0
    for i, j in allo.grid(NI, NJ):
        for k in allo.reduction(NK):
            E[i, j] += A[i, k] * B[k, j]
    F: float32[NJ, NL] = 0.0
    for i, j in allo.grid(NJ, NL):
        for k in allo.reduction(NM):
            F[i, j] += C[i, k] * D[k, j]
    G: float32[NI, NL] = 0.0
    for i, j in allo.grid(NI, NL):
        for k in allo.reduction(NJ):
            G[i, j] += E[i, k] * F[k, j]
    return G


def atax(A: float32[M, N], x: float32[N]) -> float32[N]:
    y: float32[N] = 0.0
    tmp: float32[M] = 0.0
    for i in range(M):
        for j in range(N):
            tmp[i] += A[i, j] * x[j]
        for j in range(N):
            y[j] += A[i, j] * tmp[i]
    return y


def bicg(A: float32[N, M], p: float32[M], r: float32[N]) -> (float32[M], float32[N]):
    s: float32[M] = 0.0
    q: float32[N] = 0.0
    for i in range(N):
        for j in range(M):
            s[j] += r[i] * A[i, j]
            q[i] += A[i, j] * p[j]
    return s, q


def gesummv(alpha: float32, beta: float32, A: float32[N, N], B: float32[N, N], x: float32[N]) -> float32[N]:
    y: float32[N] = 0.0
    for i in range(N):
        t: float32 = 0.0
        u: float32 = 0.0
        for j in range(N):
            t += A[i, j] * x[j]
            u += B[i, j] * x[j]
        y[i] = alpha * t + beta * u
    return y


def mvt(x1: float32[N], x2: float32[N], y1: float32[N], y2: float32[N], A: float32[N, N]):
    for i, j in allo.grid(N, N):
        x1[i] += A[i, j] * y1[j]
    for i, j in allo.grid(N, N):
        x2[i] += A[j, i] * y2[j]


def syrk(alpha: float32, beta: float32, C: float32[N, N], A: float32[N, M]):
    for i in range(N):
        for j in range(i + 1):
            C[i, j] *= beta
        for k in range(M):
            for j in range(i + 1):
                C[i, j] += alpha * A[i, k] * A[j, k]


def syr2k(alpha: float32, beta: float32, C: float32[N, N], A: float32[N, M], B: float32[N, M]):
    for i in range(N):
        for j in range(i + 1):
            C[i, j] *= beta
        for k in range(M):
            for j in range(i + 1):
                C[i, j] += A[j, k] * alpha * B[i, k] + B[j, k] * alpha * A[i, k]


def trmm(alpha: float32, A: float32[M, M], B: float32[M, N]):
    for i in range(M):
        for j in range(N):
            for k in range(i + 1, M):
                B[i, j] += A[k, i] * B[k, j]
            B[i, j] = alpha * B[i, j]


def symm(alpha: float32, beta: float32, C: float32[M, N], A: float32[M, M], B: float32[M, N]):
    for i in range(M):
        for j in range(N):
            temp2: float32 = 0.0
            for k in range(i):
                C[k, j] += alpha * B[i, j] * A[i, k]
                temp2 += B[k, j] * A[i, k]
            C[i, j] = beta * C[i, j] + alpha * B[i, j] * A[i, i] + alpha * temp2


def jacobi_2d(A: float32[N, N], B: float32[N, N]):
    for t in range(TSTEPS):
        for i in range(1, N - 1):
            for j in range(1, N - 1):
                B[i, j] = 0.2 * (A[i, j] + A[i, j - 1] + A[i, j + 1] + A[i + 1, j] + A[i - 1, j])
        for i in range(1, N - 1):
            for j in range(1, N - 1):
                A[i, j] = 0.2 * (B[i, j] + B[i, j - 1] + B[i, j + 1] + B[i + 1, j] + B[i - 1, j])


def correlation(data: float32[N, M]) -> float32[M, M]:
    float_n: float32 = float32(N)
    eps: float32 = 0.1
    mean: float32[M] = 0.0
    stddev: float32[M] = 0.0
    corr: float32[M, M] = 0.0
    for j in range(M):
        for i in range(N):
            mean[j] += data[i, j]
        mean[j] = mean[j] / float_n
    for j in range(M):
        for i in range(N):
            stddev[j] += (data[i, j] - mean[j]) * (data[i, j] - mean[j])
        stddev[j] = allo.sqrt(stddev[j] / float_n)
        stddev[j] = 1.0 if stddev[j] <= eps else stddev[j]
    for i, j in allo.grid(N, M):
        data[i, j] -= mean[j]
        data[i, j] /= allo.sqrt(float_n) * stddev[j]
    for i in range(M - 1):
        corr[i, i] = 1.0
        for j in range(i + 1, M):
            for k in range(N):
                corr[i, j] += data[k, i] * data[k, j]
            corr[j, i] = corr[i, j]
    corr[M - 1, M - 1] = 1.0
    return corr


def doitgen(A: float32[4, 5, 6], C4: float32[6, 6]):
    s: float32[6] = 0.0
    for r, q in allo.grid(4, 5):
        for p in range(6):
            s[p] = 0.0
            for k in range(6):
                s[p] += A[r, q, k] * C4[k, p]
        for p in range(6):
            A[r, q, p] = s[p]


def floyd_warshall(path: int32[N, N]):
    for k in range(N):
        for i in range(N):
            for j in range(N):
                path[i, j] = min(path[i, j], path[i, k] + path[k, j])


# ---------------------------------------------------------------------------- inputs
def _f32(rng, *shape):
    return rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)


def _alpha_beta(rng):
    return np.float32(1.5), np.float32(1.2)


# ---------------------------------------------------------------------------- numpy references
# All references compute in float64 from the (float32) inputs; the check uses a tolerance.
def _d(x):
    return np.asarray(x, dtype=np.float64)


def ref_gemm(alpha, beta, C, A, B):
    return (beta * _d(C) + alpha * _d(A) @ _d(B),)


def ref_2mm(alpha, beta, A, B, C, D):
    return (beta * _d(D) + (alpha * _d(A) @ _d(B)) @ _d(C),)


def ref_3mm(A, B, C, D):
    return (_d(A) @ _d(B)) @ (_d(C) @ _d(D))


def ref_atax(A, x):
    return _d(A).T @ (_d(A) @ _d(x))


def ref_bicg(A, p, r):
    return _d(r) @ _d(A), _d(A) @ _d(p)


def ref_gesummv(alpha, beta, A, B, x):
    return alpha * (_d(A) @ _d(x)) + beta * (_d(B) @ _d(x))


def ref_mvt(x1, x2, y1, y2, A):
    return _d(x1) + _d(A) @ _d(y1), _d(x2) + _d(A).T @ _d(y2)


def ref_syrk(alpha, beta, C, A):
    full = beta * _d(C) + alpha * _d(A) @ _d(A).T
    return (np.where(np.tril(np.ones_like(full)) > 0, full, _d(C)),)


def ref_syr2k(alpha, beta, C, A, B):
    full = beta * _d(C) + alpha * (_d(A) @ _d(B).T + _d(B) @ _d(A).T)
    return (np.where(np.tril(np.ones_like(full)) > 0, full, _d(C)),)


def ref_trmm(alpha, A, B):
    # B := alpha * A^T B with A unit lower triangular (diagonal taken as 1, upper part ignored)
    unit = np.tril(_d(A), -1) + np.eye(A.shape[0])
    return (alpha * unit.T @ _d(B),)


def ref_symm(alpha, beta, C, A, B):
    # C := alpha * A B + beta * C with A symmetric, only its lower triangle read
    low = np.tril(_d(A))
    sym = low + np.tril(_d(A), -1).T
    return (alpha * sym @ _d(B) + beta * _d(C),)


def ref_jacobi_2d(A, B):
    A, B = _d(A).copy(), _d(B).copy()
    for _ in range(TSTEPS):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])
    return A, B


def ref_correlation(data):
    d = _d(data)
    n = d.shape[0]
    mean = d.mean(axis=0)
    std = np.sqrt(((d - mean) ** 2).mean(axis=0))
    std = np.where(std <= 0.1, 1.0, std)
    z = (d - mean) / (np.sqrt(n) * std)
    corr = z.T @ z
    np.fill_diagonal(corr, 1.0)
    return corr


def ref_doitgen(A, C4):
    return (np.einsum("rqk,kp->rqp", _d(A), _d(C4)),)


def ref_floyd_warshall(path):
    p = path.astype(np.int64).copy()
    for k in range(p.shape[0]):
        p = np.minimum(p, p[:, k:k + 1] + p[k:k + 1, :])
    return (p.astype(np.int32),)


# ---------------------------------------------------------------------------- the table
@dataclass
class Case:
    """One PolyBench kernel: `kernel(*make_inputs(rng))` should match `reference(*inputs)`.

    `outputs`: argument positions updated in place (kernels without a return), in the order of
    the reference's tuple. `rtol/atol` apply to float results; integer results must be exact.
    """

    name: str
    kernel: Callable
    make_inputs: Callable
    reference: Callable
    outputs: tuple = ()
    rtol: float = 1e-4
    atol: float = 1e-4
    top: str = field(default="")

    def __post_init__(self):
        self.top = self.top or self.kernel.__name__

    def __iter__(self):
        """`kernel, make_inputs, reference = case` also works."""
        return iter((self.kernel, self.make_inputs, self.reference))

    def run(self, mod, args):
        """Call built module `mod` on copies of `args`; returns the results to compare with `reference`."""
        args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        out = mod(*args)
        if self.outputs:
            assert out is None, f"{self.name}: in-place kernel returned {type(out).__name__}"
            return tuple(args[i] for i in self.outputs)
        return out

    def check(self, got, args):
        """Assert `got` (from run) matches the numpy reference on `args`."""
        want = self.reference(*args)
        got_t = got if isinstance(got, tuple) else (got,)
        want_t = want if isinstance(want, tuple) else (want,)
        assert len(got_t) == len(want_t), f"{self.name}: {len(got_t)} results, expected {len(want_t)}"
        for g, w in zip(got_t, want_t):
            g = np.asarray(g)
            assert g.shape == np.shape(w), f"{self.name}: shape {g.shape}, expected {np.shape(w)}"
            if np.issubdtype(g.dtype, np.integer):
                np.testing.assert_array_equal(g, w, err_msg=self.name)
            else:
                np.testing.assert_allclose(g, w, rtol=self.rtol, atol=self.atol, err_msg=self.name)


KERNELS = [
    Case("gemm", gemm, lambda r: [*_alpha_beta(r), _f32(r, NI, NJ), _f32(r, NI, NK), _f32(r, NK, NJ)],
         ref_gemm, outputs=(2,)),
    Case("2mm", k2mm, lambda r: [*_alpha_beta(r), _f32(r, NI, NK), _f32(r, NK, NJ), _f32(r, NJ, NL), _f32(r, NI, NL)],
         ref_2mm, outputs=(5,)),
    Case("3mm", k3mm, lambda r: [_f32(r, NI, NK), _f32(r, NK, NJ), _f32(r, NJ, NM), _f32(r, NM, NL)], ref_3mm),
    Case("atax", atax, lambda r: [_f32(r, M, N), _f32(r, N)], ref_atax),
    Case("bicg", bicg, lambda r: [_f32(r, N, M), _f32(r, M), _f32(r, N)], ref_bicg),
    Case("gesummv", gesummv, lambda r: [*_alpha_beta(r), _f32(r, N, N), _f32(r, N, N), _f32(r, N)], ref_gesummv),
    Case("mvt", mvt, lambda r: [_f32(r, N), _f32(r, N), _f32(r, N), _f32(r, N), _f32(r, N, N)], ref_mvt,
         outputs=(0, 1)),
    Case("syrk", syrk, lambda r: [*_alpha_beta(r), _f32(r, N, N), _f32(r, N, M)], ref_syrk, outputs=(2,)),
    Case("syr2k", syr2k, lambda r: [*_alpha_beta(r), _f32(r, N, N), _f32(r, N, M), _f32(r, N, M)], ref_syr2k,
         outputs=(2,)),
    Case("trmm", trmm, lambda r: [np.float32(1.5), _f32(r, M, M), _f32(r, M, N)], ref_trmm, outputs=(2,)),
    Case("symm", symm, lambda r: [*_alpha_beta(r), _f32(r, M, N), _f32(r, M, M), _f32(r, M, N)], ref_symm,
         outputs=(2,)),
    Case("jacobi-2d", jacobi_2d, lambda r: [_f32(r, N, N), _f32(r, N, N)], ref_jacobi_2d, outputs=(0, 1)),
    Case("correlation", correlation, lambda r: [_f32(r, N, M)], ref_correlation, rtol=1e-3, atol=1e-4),
    Case("doitgen", doitgen, lambda r: [_f32(r, 4, 5, 6), _f32(r, 6, 6)], ref_doitgen, outputs=(0,)),
    Case("floyd-warshall", floyd_warshall,
         lambda r: [r.integers(1, 100, size=(N, N)).astype(np.int32)], ref_floyd_warshall, outputs=(0,)),
]

BY_NAME = {c.name: c for c in KERNELS}

__all__ = ["Case", "KERNELS", "BY_NAME"]
