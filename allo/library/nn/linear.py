"""Dense layers and matrix products: linear, linear3d, matmul, bmm.

Products are exact (bit growth) and accumulate in the element type T (integers wrap at T's width,
fixed point floors and wraps into T); nn.quant has variants with a separate accumulator type. Schedules follow the seed's HLS recipe: move the reduction loop `k`
outside the output-column loop `j`, accumulate one output row in a local buffer (`buffer_at`),
and pipeline `j` with II=1, giving `i -> [j_init, k -> j, j_back]`.

Example::

    Y = nn.linear[float32, 8, 32, 16, "1"](X, W, b)     # X[8,16] W[32,16] b[32] -> Y[8,32]
"""
from __future__ import annotations

from .. import lang as allo  # the public names as kernel code spells them
from ..registry import schedule_for
from .common import parallel_rows, targ


@allo.kernel(template="T, M, N, K")
def linear(X: "T[M, K]", W: "T[N, K]", b: "T[N]") -> "T[M, N]":
    """`X @ W.T + b` with PyTorch's weight layout W[out, in]."""
    Z: T[M, N]
    for i0, j0 in allo.grid(M, N):
        Z[i0, j0] = b[j0]
    for i, j in allo.grid(M, N):
        for k in allo.reduction(K):
            Z[i, j] += X[i, k] * W[j, k]
    return Z


def row_buffered_gemm(s):
    """reorder(k, j) + buffer_at(Z, i) + pipeline(j): the seed's i -> [j_init, k -> j, j_back]."""
    s.reorder("k", "j")
    s.buffer_at(s.Z, "i")
    for loop in ("j", "j_init", "j_back"):
        s.pipeline(loop)


@schedule_for(linear)
def schedule_linear(s):
    row_buffered_gemm(s)
    s.pipeline("j0")  # the bias initialisation
    parallel_rows(s, "i0", "i", work=targ(s, "M") * targ(s, "N") * targ(s, "K"))


@allo.kernel(template="T, B, M, N, K")
def linear3d(X: "T[B, M, K]", W: "T[N, K]", b: "T[N]") -> "T[B, M, N]":
    """`X @ W.T + b` over a batch of matrices X[b] (torch.nn.Linear on a 3-D input)."""
    Z: T[B, M, N]
    for n0, i0, j0 in allo.grid(B, M, N):
        Z[n0, i0, j0] = b[j0]
    for n, i, j in allo.grid(B, M, N):
        for k in allo.reduction(K):
            Z[n, i, j] += X[n, i, k] * W[j, k]
    return Z


@schedule_for(linear3d)
def schedule_linear3d(s):
    row_buffered_gemm(s)
    s.pipeline("j0")  # the bias initialisation
    parallel_rows(s, "i0", "i", work=targ(s, "B") * targ(s, "M") * targ(s, "N") * targ(s, "K"))


@allo.kernel(template="T, M, K, N")
def matmul(A: "T[M, K]", B: "T[K, N]") -> "T[M, N]":
    """`A @ B`."""
    Z: T[M, N] = 0
    for i, j in allo.grid(M, N):
        for k in allo.reduction(K):
            Z[i, j] += A[i, k] * B[k, j]
    return Z


@schedule_for(matmul)
def schedule_matmul(s):
    row_buffered_gemm(s)
    parallel_rows(s, "i", work=targ(s, "M") * targ(s, "K") * targ(s, "N"))


@allo.kernel(template="T, B, M, K, N")
def bmm(A: "T[B, M, K]", B: "T[B, K, N]") -> "T[B, M, N]":
    """Batched `A[n] @ B[n]` (torch.bmm). The batch extent is read as `A.shape[0]` because the
    argument `B` shadows the template name `B` inside the body."""
    Z: T[B, M, N] = 0
    for n, i, j in allo.grid(A.shape[0], M, N):
        for k in allo.reduction(K):
            Z[n, i, j] += A[n, i, k] * B[n, k, j]
    return Z


@schedule_for(bmm)
def schedule_bmm(s):
    row_buffered_gemm(s)
    parallel_rows(s, "i", work=targ(s, "B") * targ(s, "M") * targ(s, "K") * targ(s, "N"))
