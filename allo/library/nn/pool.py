"""Pooling: max_pool2d, avg_pool2d (zero padding counted, torch's default), global_avg_pool2d.

Padded positions are skipped by a bounds test on the window index (compiled away when
Ph = Pw = 0). Output sizes Oh, Ow are template arguments: `(H + 2*Ph - Kh) // Sh + 1`.

Example::

    Y = nn.max_pool2d[float32, 1, 8, 32, 32, 2, 2, 16, 16, 2, 2, 0, 0](X)
"""
from __future__ import annotations

from .. import lang as allo  # the public names as kernel code spells them
from ..registry import schedule_for
from .common import LOWEST, OUT_SIZE, parallel_rows, targ


@allo.kernel(template="T, B, C, H, W, Kh, Kw, Oh, Ow, Sh, Sw, Ph, Pw")
def max_pool2d(X: "T[B, C, H, W]") -> "T[B, C, Oh, Ow]":
    """Maximum over each Kh x Kw window (padding never wins, as torch's implicit -inf padding)."""
    Z: T[B, C, OUT_SIZE[H, Kh, Sh, Ph, 1, Oh], OUT_SIZE[W, Kw, Sw, Pw, 1, Ow]]  # checks Oh, Ow
    for n, c, oh, ow in allo.grid(B, C, Oh, Ow):
        mx: T = LOWEST[T]
        for kh, kw in allo.reduction(Kh, Kw):
            if Ph + Pw == 0:
                mx = max(mx, X[n, c, oh * Sh + kh, ow * Sw + kw])
            elif oh * Sh + kh >= Ph and oh * Sh + kh < H + Ph and ow * Sw + kw >= Pw and ow * Sw + kw < W + Pw:
                mx = max(mx, X[n, c, oh * Sh + kh - Ph, ow * Sw + kw - Pw])
        Z[n, c, oh, ow] = mx
    return Z


@allo.kernel(template="T, B, C, H, W, Kh, Kw, Oh, Ow, Sh, Sw, Ph, Pw")
def avg_pool2d(X: "T[B, C, H, W]") -> "T[B, C, Oh, Ow]":
    """Mean over each Kh x Kw window; padded zeros count in the divisor (count_include_pad=True)."""
    Z: T[B, C, OUT_SIZE[H, Kh, Sh, Ph, 1, Oh], OUT_SIZE[W, Kw, Sw, Pw, 1, Ow]]  # checks Oh, Ow
    for n, c, oh, ow in allo.grid(B, C, Oh, Ow):
        acc: T = 0
        for kh, kw in allo.reduction(Kh, Kw):
            if Ph + Pw == 0:
                acc += X[n, c, oh * Sh + kh, ow * Sw + kw]
            elif oh * Sh + kh >= Ph and oh * Sh + kh < H + Ph and ow * Sw + kw >= Pw and ow * Sw + kw < W + Pw:
                acc += X[n, c, oh * Sh + kh - Ph, ow * Sw + kw - Pw]
        Z[n, c, oh, ow] = acc / (Kh * Kw)
    return Z


@schedule_for(max_pool2d, avg_pool2d)
def schedule_pool2d(s):
    s.pipeline("kw")
    parallel_rows(s, "c", work=targ(s, "B") * targ(s, "C") * targ(s, "Oh") * targ(s, "Ow") * targ(s, "Kh") * targ(s, "Kw"))


@allo.kernel(template="T, B, C, H, W")
def global_avg_pool2d(X: "T[B, C, H, W]") -> "T[B, C, 1, 1]":
    """Mean over H and W (torch.nn.AdaptiveAvgPool2d(1)); keeps torch's [B, C, 1, 1] shape."""
    Z: T[B, C, 1, 1]
    for n, c in allo.grid(B, C):
        acc: T = 0
        for h, w in allo.reduction(H, W):
            acc += X[n, c, h, w]
        Z[n, c, 0, 0] = acc / (H * W)
    return Z


@schedule_for(global_avg_pool2d)
def schedule_global_avg_pool2d(s):
    s.pipeline("w")
