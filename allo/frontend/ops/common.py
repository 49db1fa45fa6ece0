"""Small helpers shared by the op families: argument normalisation and per-channel parameters.

Example::

    k = pair(a["kernel_size"])                       # 3 -> [3, 3]
    b = flat_param(ctx, a["bias"], n, "bias", zeros)  # a [n] array name (zeros when bias is None)
"""
from __future__ import annotations

from ...errors import FrontendError
from ..graph import Const
from ..layout import View


def elem_type(ctx):
    """The element type of the current node's result (decided by the TypePlan)."""
    return ctx.dtype()


def pair(v, n=2):
    """`v` as a list of n ints (a scalar is repeated; a one-element list too)."""
    if isinstance(v, (list, tuple)):
        v = list(v)
        return v * n if len(v) == 1 else v
    return [v] * n


def ones(ctx, n, name):
    import torch

    return Const(torch.ones(n), f"{ctx.hint}_{name}")


def zeros(ctx, n, name):
    import torch

    return Const(torch.zeros(n), f"{ctx.hint}_{name}")


def flat_param(ctx, x, n, name, default):
    """A [n] array for a per-channel parameter (Const reshaped, View copied, None -> default)."""
    if x is None:
        return ctx.arr(default(ctx, n, name), (n,))
    if isinstance(x, Const):
        return ctx.arr(x if tuple(x.tensor.shape) == (n,) else Const(x.tensor.reshape(n), x.name), (n,))
    return ctx.arr(x, (n,))


def reshape_view(ctx, x, sizes):
    """x reshaped to `sizes`: a view when torch's would be one, else a contiguous copy first."""
    v = ctx.view(x)
    sizes = tuple(sizes)
    nv = v.reshape(sizes)
    if nv is None:  # torch copies here too: lay the data out contiguously first
        nv = View.whole(ctx.laid_out(v), sizes)
    return nv


def broadcast_shapes(s1, s2):
    """numpy/torch broadcast of two shapes (FrontendError when they do not broadcast)."""
    rank = max(len(s1), len(s2))
    s1 = (1,) * (rank - len(s1)) + tuple(s1)
    s2 = (1,) * (rank - len(s2)) + tuple(s2)
    out = []
    for p, q in zip(s1, s2):
        if p != q and 1 not in (p, q):
            raise FrontendError(f"batch dims {list(s1)} and {list(s2)} do not broadcast")
        out.append(max(p, q))
    return out


def reduce_dims(a, rank):
    """The dims a reduction runs over (`dim=None` or `[]` = all)."""
    dim = a.get("dim")
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return list(range(rank))
    return [dim] if isinstance(dim, int) else list(dim)


def with_hint(ctx, suffix, fn, *args, **kw):
    """Run `fn` with the result variable named `<hint>_<suffix>` (intermediates of one node)."""
    hint = ctx.hint
    ctx.hint = f"{hint}_{suffix}"
    try:
        return fn(*args, **kw)
    finally:
        ctx.hint = hint
