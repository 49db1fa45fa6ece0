"""Quantized dense layers and convolution: separate input, weight, accumulator and output types.

`TI` (inputs), `TW` (weights), `TA` (accumulator, also the bias type) and `TO` (output) come first;
the shapes follow as in `linear`, `matmul`, `bmm` and `conv2d`. Products grow exactly
(int8 x int8 is an int16, Fixed(16, 8) x Fixed(16, 8) a Fixed(32, 16)) and are accumulated in
TA; the result is converted to TO once at the end (integers wrap, fixed point floors and wraps).
The schedules are the float kernels' (reduction outside the output columns, row buffer,
pipelined), plus a pipelined output conversion.

Example::

    Y = nn.qlinear[int8, int8, int32, int32, 8, 32, 16](X, W, b)        # exact int8 GEMM + bias
    Y = nn.qmatmul[Fixed(16, 8), Fixed(16, 8), Fixed(40, 16), Fixed(32, 16), 8, 16, 8](A, B)
"""
from __future__ import annotations

from .. import lang as allo  # the public names as kernel code spells them
from ..registry import schedule_for
from .common import OUT_SIZE, targ
from .linear import row_buffered_gemm


@allo.kernel(template="TI, TW, TA, TO, M, N, K")
def qlinear(X: "TI[M, K]", W: "TW[N, K]", b: "TA[N]") -> "TO[M, N]":
    """`X @ W.T + b` (PyTorch weight layout) accumulated in TA, returned as TO."""
    Z: TA[M, N]
    for i0, j0 in allo.grid(M, N):
        Z[i0, j0] = b[j0]
    for i, j in allo.grid(M, N):
        for k in allo.reduction(K):
            Z[i, j] += X[i, k] * W[j, k]
    Y: TO[M, N]
    for i1, j1 in allo.grid(M, N):
        Y[i1, j1] = Z[i1, j1]
    return Y


@schedule_for(qlinear)
def schedule_qlinear(s):
    row_buffered_gemm(s)
    s.pipeline("j0")  # the bias initialisation
    s.pipeline("j1")  # the output conversion


@allo.kernel(template="TI, TW, TA, TO, M, K, N")
def qmatmul(A: "TI[M, K]", B: "TW[K, N]") -> "TO[M, N]":
    """`A @ B` accumulated in TA, returned as TO."""
    Z: TA[M, N] = 0
    for i, j in allo.grid(M, N):
        for k in allo.reduction(K):
            Z[i, j] += A[i, k] * B[k, j]
    Y: TO[M, N]
    for i1, j1 in allo.grid(M, N):
        Y[i1, j1] = Z[i1, j1]
    return Y


@schedule_for(qmatmul)
def schedule_qmatmul(s):
    row_buffered_gemm(s)
    s.pipeline("j1")


@allo.kernel(template="TI, TW, TA, TO, B, M, K, N")
def qbmm(A: "TI[B, M, K]", B: "TW[B, K, N]") -> "TO[B, M, N]":
    """Batched `A[n] @ B[n]` accumulated in TA, returned as TO (`A.shape[0]` is the batch: the
    argument `B` shadows the template name)."""
    Z: TA[B, M, N] = 0
    for n, i, j in allo.grid(A.shape[0], M, N):
        for k in allo.reduction(K):
            Z[n, i, j] += A[n, i, k] * B[n, k, j]
    Y: TO[B, M, N]
    for n1, i1, j1 in allo.grid(A.shape[0], M, N):
        Y[n1, i1, j1] = Z[n1, i1, j1]
    return Y


@schedule_for(qbmm)
def schedule_qbmm(s):
    row_buffered_gemm(s)
    s.pipeline("j1")


@allo.kernel(template="TI, TW, TA, TO, B, Cin, Cout, H, W, Kh, Kw, Oh, Ow, Sh, Sw, Ph, Pw, Dh, Dw, G")
def qconv2d(X: "TI[B, Cin, H, W]", Wt: "TW[Cout, Cin // G, Kh, Kw]", b: "TA[Cout]") -> "TO[B, Cout, Oh, Ow]":
    """conv2d (grouped, strided, dilated, zero-padded; NCHW) accumulated in TA, returned as TO."""
    if Ph + Pw == 0:
        Xp = X
    else:
        Xp: TI[B, Cin, H + 2 * Ph, W + 2 * Pw] = 0
        for pn, pc, ph, pw in allo.grid(B, Cin, H, W):
            Xp[pn, pc, ph + Ph, pw + Pw] = X[pn, pc, ph, pw]
    Z: TO[B, Cout, OUT_SIZE[H, Kh, Sh, Ph, Dh, Oh], OUT_SIZE[W, Kw, Sw, Pw, Dw, Ow]]  # checks Oh, Ow
    for n, g, co, oh, ow in allo.grid(B, G, Cout // G, Oh, Ow):
        acc: TA = b[g * (Cout // G) + co]
        for ci, kh, kw in allo.reduction(Cin // G, Kh, Kw):
            acc += Xp[n, g * (Cin // G) + ci, oh * Sh + kh * Dh, ow * Sw + kw * Dw] * Wt[g * (Cout // G) + co, ci, kh, kw]
        Z[n, g * (Cout // G) + co, oh, ow] = acc
    return Z


@schedule_for(qconv2d)
def schedule_qconv2d(s):
    """Pipeline the innermost window loop `kw` (and the padding copy along its rows)."""
    if targ(s, "Ph") + targ(s, "Pw") > 0:
        s.pipeline("pw")
    s.pipeline("kw")
