"""Reductions: sum, mean, amax/amin, var/std, and the scans and index reductions cumsum,
argmax/argmin.

Example: `x.mean(-1, keepdim=True)` becomes one generated loop nest `acc = 0.0; acc += X[...]; Y = acc / n`.
"""
from __future__ import annotations

from ...ir.types import int64
from ..codegen import loop_text
from ..layout import View, numel
from .common import reduce_dims
from .table import torch_op


@torch_op("aten.sum")
def sum_(ctx, node, a):
    v = ctx.view(a["self"])
    return ctx.reduce("sum", v, reduce_dims(a, v.rank), a.get("keepdim", False), "0", lambda s, x: f"{s} + {x}")


@torch_op("aten.mean")
def mean(ctx, node, a):
    v = ctx.view(a["self"])
    return ctx.reduce("mean", v, reduce_dims(a, v.rank), a.get("keepdim", False), "0.0", lambda s, x: f"{s} + {x}",
                      lambda s, n: f"{s} / {float(n)!r}")


@torch_op("aten.amax")
def amax(ctx, node, a):
    v = ctx.view(a["self"])
    return ctx.reduce("amax", v, reduce_dims(a, v.rank), a.get("keepdim", False), "NEG_INF", lambda s, x: f"max({s}, {x})")


@torch_op("aten.amin")
def amin(ctx, node, a):
    v = ctx.view(a["self"])
    return ctx.reduce("amin", v, reduce_dims(a, v.rank), a.get("keepdim", False), "INF", lambda s, x: f"min({s}, {x})")


@torch_op("aten.var", "aten.std")
def var(ctx, node, a):
    v = ctx.view(a["self"])
    dims = reduce_dims(a, v.rank)
    keep = a.get("keepdim", False)
    corr = a.get("correction")
    if corr is None:
        corr = 1 if a.get("unbiased", True) else 0
    n = numel([v.sizes[d % v.rank] for d in dims])
    hint = ctx.hint
    ctx.hint = hint + "_mean"
    m = ctx.reduce("mean", v, dims, True, "0.0", lambda s, x: f"{s} + {x}", lambda s, c: f"{s} / {float(c)!r}")
    ctx.hint = hint + "_sq"
    sq = ctx.ew("sqdev", lambda p, q: f"({p} - {q}) * ({p} - {q})", [v, m], out_sizes=v.sizes)
    ctx.hint = hint
    fin = (lambda s, c: f"{s} / {float(n - corr)!r}") if node.key == "aten.var" else \
        (lambda s, c: f"allo.sqrt({s} / {float(n - corr)!r})")
    return ctx.reduce(node.key.split(".")[-1], sq, dims, keep, "0.0", lambda s, x: f"{s} + {x}", fin)


# ---------------------------------------------------------------------------- scans and index reductions
def _around(ctx, v: View, dim):
    """x laid out as [M, N, K] around `dim` (M = sizes before it, K = after): the array name and shape."""
    dim = dim % max(v.rank, 1)
    m, n, k = numel(v.sizes[:dim]), (v.sizes[dim] if v.sizes else 1), numel(v.sizes[dim + 1:])
    return ctx.arr(v, (m, n, k)), (m, n, k)


@torch_op("aten.cumsum", "aten.cumprod")
def cumsum(ctx, node, a):
    """Running sum/product along `dim` (a sequential loop per row)."""
    v = ctx.view(a["self"])
    T = ctx.dtype()
    name, (m, n, k) = _around(ctx, v, a["dim"])
    read = "X[i, j, k]" if v.dtype == T else f"{T!r}(X[i, j, k])"
    prod = node.key.endswith("cumprod")
    body = [f"acc: {T!r} = {1 if prod else 0}", f"for j in range({n}):",
            f"    acc = acc {'*' if prod else '+'} {read}", "    Y[i, j, k] = acc"]
    lines = loop_text([m, k], ["i", "k"], body)
    buf = ctx.prog.helper_call("cumprod" if prod else "cumsum", [("X", ctx.prog.bufs[name])], lines, (m, n, k), T,
                               ctx.hint)
    return View.whole(buf, tuple(node.shape))


@torch_op("aten.argmax", "aten.argmin")
def argmax(ctx, node, a):
    """Index of the first largest (smallest) element along `dim` (all elements when dim is None)."""
    v = ctx.view(a["self"])
    dim = a.get("dim")
    if dim is None:
        v, dim = v.reshape((numel(v.sizes),)) or View.whole(ctx.laid_out(v), (numel(v.sizes),)), 0
    name, (m, n, k) = _around(ctx, v, dim)
    better = ">" if node.key.endswith("argmax") else "<"
    T = v.dtype
    body = [f"best: {T!r} = X[i, 0, k]", "pos: int64 = 0", f"for j in range({n}):",
            f"    if X[i, j, k] {better} best:", "        best = X[i, j, k]", "        pos = j",
            "Y[i, k] = pos"]
    lines = loop_text([m, k], ["i", "k"], body)
    buf = ctx.prog.helper_call(node.key.split(".")[-1], [("X", ctx.prog.bufs[name])], lines, (m, k), int64,
                               ctx.hint)
    return View.whole(buf, tuple(node.shape))
