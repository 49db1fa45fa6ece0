"""Row-wise reductions with normalisation: softmax, log_softmax, layer_norm, rms_norm, batch_norm2d.

Numerically careful forms, as torch computes them: softmax subtracts the row maximum before exp;
layer_norm takes the mean first, then the variance of the centred values (biased, divided by N).
Schedules pipeline every inner (column) loop with II=1.

Example::

    P = nn.softmax[float32, 4, 16](S)
    Y = nn.layer_norm[float32, 8, 32](X, gamma, beta, 1e-5)
"""
from __future__ import annotations

from ...ir.types import float32
from .. import lang as allo  # the public names as kernel code spells them
from ..registry import schedule_for
from .common import output_size, parallel_rows, targ


@allo.kernel(template="T, M, N")
def softmax(X: "T[M, N]") -> "T[M, N]":
    """Softmax over the last axis: `exp(x - max) / sum(exp(x - max))`."""
    Z: T[M, N]
    for i in range(M):
        mx: T = X[i, 0]
        for j_max in range(N):
            mx = max(mx, X[i, j_max])
        total: T = 0.0
        for j_exp in range(N):
            e: T = allo.exp(X[i, j_exp] - mx)
            Z[i, j_exp] = e
            total += e
        for j_norm in range(N):
            Z[i, j_norm] = Z[i, j_norm] / total
    return Z


@allo.kernel(template="T, M, N")
def log_softmax(X: "T[M, N]") -> "T[M, N]":
    """Log-softmax over the last axis: `(x - max) - log(sum(exp(x - max)))` (exact for large x)."""
    Z: T[M, N]
    for i in range(M):
        mx: T = X[i, 0]
        for j_max in range(N):
            mx = max(mx, X[i, j_max])
        total: T = 0.0
        for j_exp in range(N):
            total += allo.exp(X[i, j_exp] - mx)
        lse: T = allo.log(total)
        for j_norm in range(N):
            Z[i, j_norm] = (X[i, j_norm] - mx) - lse
    return Z


@schedule_for(softmax, log_softmax)
def schedule_softmax(s):
    for loop in ("j_max", "j_exp", "j_norm"):
        s.pipeline(loop)
    parallel_rows(s, "i", work=8 * output_size(s))


@allo.kernel(template="T, M, N")
def layer_norm(X: "T[M, N]", gamma: "T[N]", beta: "T[N]", eps: float32 = 1e-5) -> "T[M, N]":
    """LayerNorm over the last axis: `(x - mean) / sqrt(var + eps) * gamma + beta` (biased var)."""
    Z: T[M, N]
    for i in range(M):
        mean: T = 0.0
        for j_sum in range(N):
            mean += X[i, j_sum]
        mean = mean / N
        var: T = 0.0
        for j_var in range(N):
            d: T = X[i, j_var] - mean
            var += d * d
        var = var / N
        rstd: T = 1.0 / allo.sqrt(var + eps)
        for j_out in range(N):
            Z[i, j_out] = (X[i, j_out] - mean) * rstd * gamma[j_out] + beta[j_out]
    return Z


@schedule_for(layer_norm)
def schedule_layer_norm(s):
    for loop in ("j_sum", "j_var", "j_out"):
        s.pipeline(loop)
    parallel_rows(s, "i", work=8 * output_size(s))


@allo.kernel(template="T, M, N")
def rms_norm(X: "T[M, N]", gamma: "T[N]", eps: float32) -> "T[M, N]":
    """RMSNorm over the last axis: `x / sqrt(mean(x^2) + eps) * gamma` (torch.nn.functional.rms_norm)."""
    Z: T[M, N]
    for i in range(M):
        ss: T = 0.0
        for j_sum in range(N):
            ss += X[i, j_sum] * X[i, j_sum]
        rstd: T = 1.0 / allo.sqrt(ss / N + eps)
        for j_out in range(N):
            Z[i, j_out] = X[i, j_out] * rstd * gamma[j_out]
    return Z


@schedule_for(rms_norm)
def schedule_rms_norm(s):
    for loop in ("j_sum", "j_out"):
        s.pipeline(loop)
    parallel_rows(s, "i", work=8 * output_size(s))


@allo.kernel(template="T, B, C, H, W")
def batch_norm2d(X: "T[B, C, H, W]", mean: "T[C]", var: "T[C]", gamma: "T[C]", beta: "T[C]",
                 eps: float32 = 1e-5) -> "T[B, C, H, W]":
    """Inference BatchNorm2d with running statistics: `(x - mean) / sqrt(var + eps) * gamma + beta`."""
    scale: T[C]
    shift: T[C]
    for c0 in range(C):
        scale[c0] = gamma[c0] / allo.sqrt(var[c0] + eps)
        shift[c0] = beta[c0] - mean[c0] * scale[c0]
    Z: T[B, C, H, W]
    for n, c, h, w in allo.grid(B, C, H, W):
        Z[n, c, h, w] = X[n, c, h, w] * scale[c] + shift[c]
    return Z


@schedule_for(batch_norm2d)
def schedule_batch_norm2d(s):
    s.pipeline("c0")
    s.pipeline("w")
    parallel_rows(s, "c", work=targ(s, "B") * targ(s, "C") * targ(s, "H") * targ(s, "W"))
