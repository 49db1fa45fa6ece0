"""Embedding lookups and scaled dot-product attention.

`F.scaled_dot_product_attention` without a mask and with the default scale is one library call
(`nn.scaled_dot_product_attention`); masks and other scales become scores -> softmax -> matmul.
"""
from __future__ import annotations

import math

from ...ir.types import UInt
from ..graph import Const
from ..layout import numel
from .common import broadcast_shapes, elem_type, reshape_view
from .linalg import matmul_views
from .norms import softmax_view
from .table import torch_op


@torch_op("aten.embedding")
def embedding(ctx, node, a):
    table, ids = a["weight"], ctx.view(a["indices"])
    vocab, dim = ctx.sizes(table)
    if repr(ids.dtype) != "int64":
        raise ctx.error(f"embedding indices must be int64, got {ids.dtype!r}")
    length = numel(ids.sizes)
    ids = ctx.checked_ids(ids, vocab, negative=False, what="embedding id")
    return ctx.nn("embedding", [elem_type(ctx), vocab, dim, length],
                  [ctx.arr(ids, (length,)), ctx.arr(table, (vocab, dim))], node.shape, (length, dim))


# ---------------------------------------------------------------------------- attention
@torch_op("aten.scaled_dot_product_attention")
def sdpa(ctx, node, a):
    import torch

    q, k, v = ctx.view(a["query"]), ctx.view(a["key"]), ctx.view(a["value"])
    mask, causal, scale = a.get("attn_mask"), bool(a.get("is_causal")), a.get("scale")
    if a.get("dropout_p"):
        raise ctx.error("attention dropout (dropout_p > 0) cannot be imported; use dropout_p=0.0 at inference")
    if a.get("enable_gqa") and k.sizes[-3] != q.sizes[-3]:  # repeat each key/value head for its query group
        rep = q.sizes[-3] // k.sizes[-3]
        k, v = (reshape_view(ctx, t.unsqueeze(-3).expand(t.sizes[:-2] + (rep,) + t.sizes[-2:]),
                         t.sizes[:-3] + (t.sizes[-3] * rep,) + t.sizes[-2:]) for t in (k, v))
    length, d = q.sizes[-2:]
    s, dv = v.sizes[-2:]
    batch = broadcast_shapes(broadcast_shapes(q.sizes[:-2], k.sizes[:-2]), v.sizes[:-2])
    default_scale = scale is None or abs(scale - 1 / math.sqrt(d)) < 1e-12
    if mask is None and default_scale and dv == d:
        nb = numel(batch)
        args = [ctx.arr(t.expand(tuple(batch) + t.sizes[-2:]), (nb,) + t.sizes[-2:]) for t in (q, k, v)]
        return ctx.nn("scaled_dot_product_attention", [elem_type(ctx), nb, length, s, d, int(causal)], args, node.shape,
                      (nb, length, d))
    # general form: softmax(q k^T * scale + mask) v
    hint = ctx.hint
    scale = 1 / math.sqrt(d) if scale is None else scale
    ctx.hint = hint + "_scores"
    scores = matmul_views(ctx, q, k.transpose(-2, -1), tuple(batch) + (length, s))
    if causal:
        mask = Const(torch.ones(length, s, dtype=torch.bool).tril(), f"{hint}_causal")
    if mask is None:
        scores = ctx.ew("scale", lambda p: f"{p} * {float(scale)!r}", [scores], out_sizes=scores.sizes)
    elif isinstance(ctx.view(mask).dtype, UInt):
        scores = ctx.ew("mask", lambda p, m: f"({p} * {float(scale)!r} if {m} else NEG_INF)", [scores, mask],
                        out_sizes=scores.sizes, cast={0})
    else:
        scores = ctx.ew("mask", lambda p, m: f"{p} * {float(scale)!r} + {m}", [scores, mask], out_sizes=scores.sizes)
    ctx.hint = hint + "_probs"
    probs = softmax_view(ctx, scores, -1)
    ctx.hint = hint
    return matmul_views(ctx, probs, v, node.shape)
