"""Elementwise arithmetic with broadcasting, and unary math.

Binary ops come in four forms (op = add, sub, mul, div; `r`-prefixed forms put the broadcast
operand on the left, for `1 - x` or `1 / x`):

| form | template | arguments -> result |
|---|---|---|
| same shape | `op[T, M, N]` | `A[M, N], B[M, N] -> [M, N]` |
| scalar | `op_scalar[T, M, N]`, `rsub_scalar`, `rdiv_scalar` | `A[M, N], s: T -> [M, N]` |
| middle broadcast | `op_mid[T, P, Q, R]`, `rsub_mid`, `rdiv_mid` | `A[P, Q, R], B[Q] -> [P, Q, R]` |
| outer broadcast | `op_outer[T, P, Q, R]`, `rsub_outer`, `rdiv_outer` | `A[P, Q, R], B[P, R] -> [P, Q, R]` |

Every numpy broadcast of one operand against a full-shape operand reduces to one of these after
merging adjacent axes (row-major views): axes where B is present and absent alternate at most
three times in practice. Examples: `[M, N] + [N]` is `add_mid[T, M, N, 1]`; `[M, N] + [M, 1]` is
`add_mid[T, 1, M, N]`; `[B, C, H, W] + [1, C, 1, 1]` is `add_mid[T, B, C, H*W]`;
`[B, H, L, S] + [B, 1, 1, S]` is `add_outer[T, B, H*L, S]`.

Schedules pipeline the innermost loop (II=1); for the broadcast forms the innermost loop with
more than one iteration.

Example::

    Y = nn.add_mid[float32, 8, 32, 1](X, bias)         # X[8, 32, 1] + bias[32]
"""
from __future__ import annotations

from .. import lang as allo  # the public names as kernel code spells them
from ..registry import schedule_for
from .common import output_size, parallel_rows, targ


@allo.kernel(template="T, M, N")
def add(A: "T[M, N]", B: "T[M, N]") -> "T[M, N]":
    """`A + B` for same-shape arrays (any rank through a 2-D view)."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = A[i, j] + B[i, j]
    return Z


@allo.kernel(template="T, M, N")
def sub(A: "T[M, N]", B: "T[M, N]") -> "T[M, N]":
    """`A - B` for same-shape arrays (any rank through a 2-D view)."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = A[i, j] - B[i, j]
    return Z


@allo.kernel(template="T, M, N")
def mul(A: "T[M, N]", B: "T[M, N]") -> "T[M, N]":
    """`A * B` for same-shape arrays (any rank through a 2-D view)."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = A[i, j] * B[i, j]
    return Z


@allo.kernel(template="T, M, N")
def div(A: "T[M, N]", B: "T[M, N]") -> "T[M, N]":
    """`A / B` for same-shape arrays (any rank through a 2-D view)."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = A[i, j] / B[i, j]
    return Z


@allo.kernel(template="T, M, N")
def add_scalar(A: "T[M, N]", s: "T") -> "T[M, N]":
    """`A + s` for a scalar s."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = A[i, j] + s
    return Z


@allo.kernel(template="T, M, N")
def sub_scalar(A: "T[M, N]", s: "T") -> "T[M, N]":
    """`A - s` for a scalar s."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = A[i, j] - s
    return Z


@allo.kernel(template="T, M, N")
def mul_scalar(A: "T[M, N]", s: "T") -> "T[M, N]":
    """`A * s` for a scalar s."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = A[i, j] * s
    return Z


@allo.kernel(template="T, M, N")
def div_scalar(A: "T[M, N]", s: "T") -> "T[M, N]":
    """`A / s` for a scalar s."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = A[i, j] / s
    return Z


@allo.kernel(template="T, M, N")
def rsub_scalar(A: "T[M, N]", s: "T") -> "T[M, N]":
    """`s - A` (scalar on the left)."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = s - A[i, j]
    return Z


@allo.kernel(template="T, M, N")
def rdiv_scalar(A: "T[M, N]", s: "T") -> "T[M, N]":
    """`s / A` (scalar on the left)."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = s / A[i, j]
    return Z


@allo.kernel(template="T, P, Q, R")
def add_mid(A: "T[P, Q, R]", B: "T[Q]") -> "T[P, Q, R]":
    """`A + B` with B[Q] broadcast over axes P and R (row: P=M,Q=N,R=1; column: P=1,Q=M,R=N; channel: P=batch,Q=C,R=H*W)."""
    Z: T[P, Q, R]
    for p, q, r in allo.grid(P, Q, R):
        Z[p, q, r] = A[p, q, r] + B[q]
    return Z


@allo.kernel(template="T, P, Q, R")
def sub_mid(A: "T[P, Q, R]", B: "T[Q]") -> "T[P, Q, R]":
    """`A - B` with B[Q] broadcast over axes P and R (row: P=M,Q=N,R=1; column: P=1,Q=M,R=N; channel: P=batch,Q=C,R=H*W)."""
    Z: T[P, Q, R]
    for p, q, r in allo.grid(P, Q, R):
        Z[p, q, r] = A[p, q, r] - B[q]
    return Z


@allo.kernel(template="T, P, Q, R")
def mul_mid(A: "T[P, Q, R]", B: "T[Q]") -> "T[P, Q, R]":
    """`A * B` with B[Q] broadcast over axes P and R (row: P=M,Q=N,R=1; column: P=1,Q=M,R=N; channel: P=batch,Q=C,R=H*W)."""
    Z: T[P, Q, R]
    for p, q, r in allo.grid(P, Q, R):
        Z[p, q, r] = A[p, q, r] * B[q]
    return Z


@allo.kernel(template="T, P, Q, R")
def div_mid(A: "T[P, Q, R]", B: "T[Q]") -> "T[P, Q, R]":
    """`A / B` with B[Q] broadcast over axes P and R (row: P=M,Q=N,R=1; column: P=1,Q=M,R=N; channel: P=batch,Q=C,R=H*W)."""
    Z: T[P, Q, R]
    for p, q, r in allo.grid(P, Q, R):
        Z[p, q, r] = A[p, q, r] / B[q]
    return Z


@allo.kernel(template="T, P, Q, R")
def rsub_mid(A: "T[P, Q, R]", B: "T[Q]") -> "T[P, Q, R]":
    """`B - A` with B[Q] broadcast over axes P and R (row: P=M,Q=N,R=1; column: P=1,Q=M,R=N; channel: P=batch,Q=C,R=H*W)."""
    Z: T[P, Q, R]
    for p, q, r in allo.grid(P, Q, R):
        Z[p, q, r] = B[q] - A[p, q, r]
    return Z


@allo.kernel(template="T, P, Q, R")
def rdiv_mid(A: "T[P, Q, R]", B: "T[Q]") -> "T[P, Q, R]":
    """`B / A` with B[Q] broadcast over axes P and R (row: P=M,Q=N,R=1; column: P=1,Q=M,R=N; channel: P=batch,Q=C,R=H*W)."""
    Z: T[P, Q, R]
    for p, q, r in allo.grid(P, Q, R):
        Z[p, q, r] = B[q] / A[p, q, r]
    return Z


@allo.kernel(template="T, P, Q, R")
def add_outer(A: "T[P, Q, R]", B: "T[P, R]") -> "T[P, Q, R]":
    """`A + B` with B[P, R] broadcast over the middle axis Q (e.g. an attention mask [B, 1, S] on scores [B, H*L, S])."""
    Z: T[P, Q, R]
    for p, q, r in allo.grid(P, Q, R):
        Z[p, q, r] = A[p, q, r] + B[p, r]
    return Z


@allo.kernel(template="T, P, Q, R")
def sub_outer(A: "T[P, Q, R]", B: "T[P, R]") -> "T[P, Q, R]":
    """`A - B` with B[P, R] broadcast over the middle axis Q (e.g. an attention mask [B, 1, S] on scores [B, H*L, S])."""
    Z: T[P, Q, R]
    for p, q, r in allo.grid(P, Q, R):
        Z[p, q, r] = A[p, q, r] - B[p, r]
    return Z


@allo.kernel(template="T, P, Q, R")
def mul_outer(A: "T[P, Q, R]", B: "T[P, R]") -> "T[P, Q, R]":
    """`A * B` with B[P, R] broadcast over the middle axis Q (e.g. an attention mask [B, 1, S] on scores [B, H*L, S])."""
    Z: T[P, Q, R]
    for p, q, r in allo.grid(P, Q, R):
        Z[p, q, r] = A[p, q, r] * B[p, r]
    return Z


@allo.kernel(template="T, P, Q, R")
def div_outer(A: "T[P, Q, R]", B: "T[P, R]") -> "T[P, Q, R]":
    """`A / B` with B[P, R] broadcast over the middle axis Q (e.g. an attention mask [B, 1, S] on scores [B, H*L, S])."""
    Z: T[P, Q, R]
    for p, q, r in allo.grid(P, Q, R):
        Z[p, q, r] = A[p, q, r] / B[p, r]
    return Z


@allo.kernel(template="T, P, Q, R")
def rsub_outer(A: "T[P, Q, R]", B: "T[P, R]") -> "T[P, Q, R]":
    """`B - A` with B[P, R] broadcast over the middle axis Q (e.g. an attention mask [B, 1, S] on scores [B, H*L, S])."""
    Z: T[P, Q, R]
    for p, q, r in allo.grid(P, Q, R):
        Z[p, q, r] = B[p, r] - A[p, q, r]
    return Z


@allo.kernel(template="T, P, Q, R")
def rdiv_outer(A: "T[P, Q, R]", B: "T[P, R]") -> "T[P, Q, R]":
    """`B / A` with B[P, R] broadcast over the middle axis Q (e.g. an attention mask [B, 1, S] on scores [B, H*L, S])."""
    Z: T[P, Q, R]
    for p, q, r in allo.grid(P, Q, R):
        Z[p, q, r] = B[p, r] / A[p, q, r]
    return Z


@schedule_for(add, sub, mul, div, add_scalar, sub_scalar, mul_scalar, div_scalar, rsub_scalar, rdiv_scalar)
def schedule_binary_2d(s):
    s.pipeline("j")
    parallel_rows(s, "i", work=output_size(s))


@schedule_for(add_mid, sub_mid, mul_mid, div_mid, rsub_mid, rdiv_mid,
              add_outer, sub_outer, mul_outer, div_outer, rsub_outer, rdiv_outer)
def schedule_binary_3d(s):
    s.pipeline("r" if targ(s, "R") > 1 else "q")


# ---------------------------------------------------------------------------- unary math


@allo.kernel(template="T, M, N")
def exp(X: "T[M, N]") -> "T[M, N]":
    """`exp(x)`."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = allo.exp(X[i, j])
    return Z


@allo.kernel(template="T, M, N")
def log(X: "T[M, N]") -> "T[M, N]":
    """`log(x)` (natural)."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = allo.log(X[i, j])
    return Z


@allo.kernel(template="T, M, N")
def sqrt(X: "T[M, N]") -> "T[M, N]":
    """`sqrt(x)`."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = allo.sqrt(X[i, j])
    return Z


@allo.kernel(template="T, M, N")
def rsqrt(X: "T[M, N]") -> "T[M, N]":
    """`1 / sqrt(x)`."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = 1.0 / allo.sqrt(X[i, j])
    return Z


@allo.kernel(template="T, M, N")
def neg(X: "T[M, N]") -> "T[M, N]":
    """`-x`."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = -X[i, j]
    return Z


@allo.kernel(template="T, M, N")
def abs(X: "T[M, N]") -> "T[M, N]":  # noqa: A001 - torch's name
    """`|x|`."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = allo.abs(X[i, j])
    return Z


@allo.kernel(template="T, M, N")
def pow_scalar(X: "T[M, N]", p: "T") -> "T[M, N]":
    """`x ** p` for a run-time scalar exponent (math pow: negative x needs an integral p)."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = allo.pow(X[i, j], p)
    return Z


@allo.kernel(template="T, M, N, P")
def pow_int(X: "T[M, N]") -> "T[M, N]":
    """`x ** P` for a compile-time integer 0 <= P <= 8, as exact repeated multiplication."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = X[i, j] ** P
    return Z


@allo.kernel(template="T, M, N")
def clamp(X: "T[M, N]", lo: "T", hi: "T") -> "T[M, N]":
    """`min(max(x, lo), hi)` (torch.clamp / hardtanh; relu6 is clamp(x, 0, 6))."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = min(max(X[i, j], lo), hi)
    return Z


@allo.kernel(template="T, M, N")
def maximum(A: "T[M, N]", B: "T[M, N]") -> "T[M, N]":
    """Elementwise `max(a, b)`."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = max(A[i, j], B[i, j])
    return Z


@allo.kernel(template="T, M, N")
def minimum(A: "T[M, N]", B: "T[M, N]") -> "T[M, N]":
    """Elementwise `min(a, b)`."""
    Z: T[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = min(A[i, j], B[i, j])
    return Z


@allo.kernel(template="T, U, M, N")
def cast(X: "T[M, N]") -> "U[M, N]":
    """Convert element type T to U with allo's cast rules (float -> int truncates toward zero,
    float -> fixed floors, integers wrap), e.g. to quantise activations."""
    Z: U[M, N]
    for i, j in allo.grid(M, N):
        Z[i, j] = U(X[i, j])
    return Z


@schedule_for(exp, log, sqrt, rsqrt, neg, abs, pow_scalar, pow_int, clamp, maximum, minimum, cast)
def schedule_unary(s):
    s.pipeline("j")
    parallel_rows(s, "i", work=output_size(s))
