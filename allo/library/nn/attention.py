"""Attention building blocks: scaled_dot_product_attention (optionally causal), rope, embedding.

Example::

    O = nn.scaled_dot_product_attention[float32, 4, 16, 16, 32, 1](Q, K, V)   # causal
    Y = nn.rope[float32, 4, 16, 32](X, cos, sin)
"""
from __future__ import annotations

from ...ir.types import int64  # noqa: F401 - used by the "int64[L]" annotation
from .. import lang as allo  # the public names as kernel code spells them
from ..registry import schedule_for
from .common import LOWEST, parallel_rows, targ


@allo.kernel(template="T, H, L, S, D, CAUSAL")
def scaled_dot_product_attention(Q: "T[H, L, D]", K: "T[H, S, D]", V: "T[H, S, D]") -> "T[H, L, D]":
    """`softmax(Q K^T / sqrt(D) + mask) V` per head; CAUSAL=1 keeps keys s <= l (torch is_causal)."""
    Z: T[H, L, D]
    row: T[S]
    for h, l in allo.grid(H, L):
        mx: T = LOWEST[T]
        for s in range(S):
            score: T = 0.0
            for d in range(D):
                score += Q[h, l, d] * K[h, s, d]
            score = score * (1.0 / D ** 0.5)
            if CAUSAL:
                if s > l:
                    score = LOWEST[T]
            row[s] = score
            mx = max(mx, score)
        total: T = 0.0
        for s_exp in range(S):
            p: T = allo.exp(row[s_exp] - mx)
            row[s_exp] = p
            total += p
        for d_out in range(D):
            acc: T = 0.0
            for s_out in range(S):
                acc += row[s_out] * V[h, s_out, d_out]
            Z[h, l, d_out] = acc / total
    return Z


@schedule_for(scaled_dot_product_attention)
def schedule_sdpa(s):
    for loop in ("d", "s_exp", "s_out"):
        s.pipeline(loop)
    # query rows in parallel (the heads share the score row buffer)
    parallel_rows(s, "l", work=targ(s, "H") * targ(s, "L") * targ(s, "S") * targ(s, "D"))


@allo.kernel(template="T, H, L, D")
def rope(X: "T[H, L, D]", cos: "T[L, D]", sin: "T[L, D]") -> "T[H, L, D]":
    """Rotary embedding `X*cos + rotate_half(X)*sin`, rotate_half(x) = concat(-x[D/2:], x[:D/2])."""
    Z: T[H, L, D]
    for h, l, d in allo.grid(H, L, D // 2):
        Z[h, l, d] = X[h, l, d] * cos[l, d] - X[h, l, d + D // 2] * sin[l, d]
        Z[h, l, d + D // 2] = X[h, l, d + D // 2] * cos[l, d + D // 2] + X[h, l, d] * sin[l, d + D // 2]
    return Z


@schedule_for(rope)
def schedule_rope(s):
    s.pipeline("d")


@allo.kernel(template="T, V, D, L", bounds_check=True)
def embedding(ids: "int64[L]", table: "T[V, D]") -> "T[L, D]":
    """Row gather `table[ids[l], :]` (torch.nn.functional.embedding). The ids are checked in every
    build (`bounds_check=True` on the kernel): an id outside 0..V-1 raises `allo.BoundsError`."""
    Z: T[L, D]
    for l in range(L):
        row: int64 = ids[l]  # read once per row: the row loop copies (and the check stays out of it)
        for d in range(D):
            Z[l, d] = table[row, d]
    return Z


@schedule_for(embedding)
def schedule_embedding(s):
    s.pipeline("d")
    parallel_rows(s, "l", work=targ(s, "L") * targ(s, "D"))
