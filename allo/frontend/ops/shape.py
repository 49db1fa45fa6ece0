"""Layout and data-movement ops: views (reshape/permute/slice/...), indexing, gather, cat/stack,
repeat, copies, fills, dtype casts and inference no-ops (dropout).

Views only change metadata (no code); data moves only when a kernel needs an array of a given
shape. Example: `x.transpose(1, 2)` returns `View.permute`, `torch.cat` emits one loop nest per input.
"""
from __future__ import annotations

from ...ir.types import is_bool
from ..codegen import loop_text
from ..graph import Const
from ..layout import View, numel
from .common import pair, reshape_view
from .table import torch_op


# ---------------------------------------------------------------------------- no-ops and layout
@torch_op("aten.dropout", "aten.feature_dropout", "aten.alpha_dropout", "aten.feature_alpha_dropout")
def dropout(ctx, node, a):
    if a.get("train"):
        raise ctx.error("dropout in training mode cannot be imported (call model.eval(); allo imports inference graphs)")
    return a["input"]


@torch_op("aten.native_dropout")
def native_dropout(ctx, node, a):
    if a.get("train"):
        raise ctx.error("dropout in training mode cannot be imported (call model.eval())")
    return (a["input"], None)


@torch_op("aten.contiguous", "aten.clone", "aten.alias", "aten.detach", "aten.lift_fresh_copy", "aten.lift_fresh",
          "aten.positive", "aten.resolve_conj", "aten.resolve_neg", "aten.dequantize")
def identity(ctx, node, a):
    return a.get("self", a.get("input"))


@torch_op("aten.to", "aten._to_copy", "aten.type_as", "aten.float")
def to_dtype(ctx, node, a):
    x = a["self"]
    src = ctx.view(x).dtype if not isinstance(x, (int, float)) else None
    dst = ctx.dtype()
    if src == dst:
        return x
    if is_bool(dst):
        return ctx.ew("to_bool", lambda p: f"{p} != 0", [x], dtype=dst, cast=False)
    return ctx.ew("cast", lambda p: p, [x])


@torch_op("aten.view", "aten.reshape", "aten._unsafe_view", "aten.view_as", "aten.reshape_as", "aten.flatten",
          "aten.unflatten", "aten.view_copy")
def reshape(ctx, node, a):
    return reshape_view(ctx, a["self"], node.shape)


@torch_op("aten.permute", "aten.permute_copy")
def permute(ctx, node, a):
    return ctx.view(a["self"]).permute(a["dims"])


@torch_op("aten.movedim")
def movedim(ctx, node, a):
    v = ctx.view(a["self"])
    src = pair(a["source"], 1) if not isinstance(a["source"], (list, tuple)) else list(a["source"])
    dst = pair(a["destination"], 1) if not isinstance(a["destination"], (list, tuple)) else list(a["destination"])
    src = [s % v.rank for s in src]
    dst = [d % v.rank for d in dst]
    order = [d for d in range(v.rank) if d not in src]
    perm = [None] * v.rank
    for s, d in zip(src, dst):
        perm[d] = s
    it = iter(order)
    perm = [p if p is not None else next(it) for p in perm]
    return v.permute(perm)


@torch_op("aten.transpose", "aten.swapaxes", "aten.swapdims")
def transpose(ctx, node, a):
    d0 = a.get("dim0", a.get("axis0"))
    d1 = a.get("dim1", a.get("axis1"))
    return ctx.view(a["self"]).transpose(d0, d1)


@torch_op("aten.t", "aten.numpy_T")
def t(ctx, node, a):
    v = ctx.view(a["self"])
    return v if v.rank < 2 else v.permute(list(reversed(range(v.rank))))


@torch_op("aten.unsqueeze")
def unsqueeze(ctx, node, a):
    return ctx.view(a["self"]).unsqueeze(a["dim"])


@torch_op("aten.squeeze")
def squeeze(ctx, node, a):
    dim = a.get("dim")
    dims = None if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    return ctx.view(a["self"]).squeeze(dims)


@torch_op("aten.expand", "aten.expand_as", "aten.broadcast_to", "aten.expand_copy")
def expand(ctx, node, a):
    return ctx.view(a["self"]).expand(node.shape)


@torch_op("aten.select")
def select(ctx, node, a):
    return ctx.view(a["self"]).select(a["dim"], a["index"])


@torch_op("aten.slice", "aten.slice_copy")
def slice_(ctx, node, a):
    v = ctx.view(a["self"])
    start = a.get("start")
    end = a.get("end")
    start = 0 if start is None else start
    end = v.sizes[a["dim"]] if end is None else min(end, v.sizes[a["dim"]])
    return v.slice(a["dim"], start, end, a.get("step") or 1)


@torch_op("aten.narrow")
def narrow(ctx, node, a):
    return ctx.view(a["self"]).slice(a["dim"], a["start"], a["start"] + a["length"])


def _split(v, sizes, dim):
    out, off = [], 0
    for s in sizes:
        out.append(v.slice(dim, off, off + s))
        off += s
    return tuple(out)


@torch_op("aten.split", "aten.split_with_sizes", "aten.split_copy")
def split(ctx, node, a):
    v = ctx.view(a["self"])
    dim = a["dim"] % v.rank
    n = v.sizes[dim]
    size = a.get("split_size", a.get("split_sizes"))
    sizes = list(size) if isinstance(size, (list, tuple)) else [min(size, n - o) for o in range(0, n, size)]
    return _split(v, sizes, dim)


@torch_op("aten.chunk")
def chunk(ctx, node, a):
    v = ctx.view(a["self"])
    dim = a["dim"] % v.rank
    n = v.sizes[dim]
    step = -(-n // a["chunks"])
    return _split(v, [min(step, n - o) for o in range(0, n, step)], dim)


@torch_op("aten.unbind")
def unbind(ctx, node, a):
    v = ctx.view(a["self"])
    return tuple(v.select(a["dim"], i) for i in range(v.sizes[a["dim"]]))


@torch_op("getitem")
def getitem(ctx, node, a):
    seq, i = a["arg0"], a["arg1"]
    if isinstance(seq, Const):
        seq = seq.tensor
    if not isinstance(seq, (tuple, list)):
        raise ctx.error(f"cannot index a {type(seq).__name__} value")
    item = seq[i]
    if item is None:
        raise ctx.error(f"output {i} of {node.args[0].name!r} is not supported (e.g. pooling indices)")
    if not isinstance(item, (View, Const)) and hasattr(item, "shape"):
        return Const(item, node.name)
    return item


@torch_op("fx.index")
def tensor_index(ctx, node, a):
    """`x[:, 0, None, 1:3]` from the torch.fx fallback: basic indexing as views."""
    v = ctx.view(a["arg0"])
    idx = a["arg1"] if isinstance(a["arg1"], tuple) else (a["arg1"],)
    if any(i is Ellipsis for i in idx):
        k = idx.index(Ellipsis)
        fill = v.rank - sum(1 for i in idx if i is not None and i is not Ellipsis)
        idx = idx[:k] + (slice(None),) * fill + idx[k + 1:]
    dim = 0
    for i in idx:
        if i is None:
            v = v.unsqueeze(dim)
            dim += 1
        elif isinstance(i, int):
            v = v.select(dim, i)
        elif isinstance(i, slice):
            n = v.sizes[dim]
            start, stop, step = i.indices(n)
            v = v.slice(dim, start, stop, step)
            dim += 1
        else:
            raise ctx.error(f"indexing with {type(i).__name__} is not supported (only ints, slices, None, ...)")
    return v


@torch_op("aten.index", "aten.index_select")
def index(ctx, node, a):
    """`x[:, idx]` / `x.index_select(d, idx)` with one integer index tensor (constant or computed)."""
    v = ctx.view(a["self"])
    if node.key == "aten.index_select":
        dim, idx = a["dim"] % v.rank, a["index"]
    else:
        tensors = [(d, t) for d, t in enumerate(a["indices"]) if t is not None]
        if len(tensors) != 1:
            raise ctx.error("indexing with more than one index tensor is not supported")
        dim, idx = tensors[0]
    iv = ctx.view(idx)
    if repr(iv.dtype) not in ("int64", "int32"):
        raise ctx.error(f"only integer index tensors are supported (got {iv.dtype!r}; boolean masks give dynamic shapes)")
    out_sizes = tuple(node.shape) or (1,)
    k = iv.rank
    n = v.sizes[dim]
    iv = ctx.checked_ids(iv, n, negative=node.key == "aten.index", what="index")
    xname = ctx.arr(v)
    iname = ctx.arr(iv)
    names = [f"i{j}" for j in range(len(out_sizes))]
    iread = f"I[{', '.join(names[dim:dim + k]) or '0'}]"
    xidx = names[:dim] + [f"({iread} if {iread} >= 0 else {iread} + {n})"] + names[dim + k:]
    xbuf, ibuf = ctx.prog.bufs[xname], ctx.prog.bufs[iname]
    body = loop_text(list(out_sizes), names, [f"Y[{', '.join(names)}] = X[{', '.join(xidx)}]"])
    buf = ctx.prog.helper_call("index", [("X", xbuf), ("I", ibuf)], body, out_sizes, v.dtype, ctx.hint)
    return View.whole(buf, tuple(node.shape))


@torch_op("aten.gather")
def gather(ctx, node, a):
    """`torch.gather(x, dim, index)`: Y[.., i, ..] = X[.., I[.., i, ..], ..] over index's shape."""
    v, iv = ctx.view(a["self"]), ctx.view(a["index"])
    if repr(iv.dtype) not in ("int64", "int32"):
        raise ctx.error(f"gather needs an integer index tensor, got {iv.dtype!r}")
    dim = a["dim"] % max(v.rank, 1)
    iv = ctx.checked_ids(iv, v.sizes[dim] if v.sizes else 1, negative=False, what="gather index")
    out_sizes = tuple(iv.sizes) or (1,)
    xbuf, ibuf = ctx.laid_out(v), ctx.laid_out(iv, out_sizes)
    names = [f"i{j}" for j in range(len(out_sizes))]
    xidx = list(names)
    xidx[dim] = f"I[{', '.join(names)}]"
    body = loop_text(list(out_sizes), names, [f"Y[{', '.join(names)}] = X[{', '.join(xidx)}]"])
    buf = ctx.prog.helper_call("gather", [("X", xbuf), ("I", ibuf)], body, out_sizes, v.dtype, ctx.hint)
    return View.whole(buf, tuple(node.shape))


@torch_op("aten.cat", "aten.concat", "aten.concatenate")
def cat(ctx, node, a):
    xs = [x for x in a["tensors"] if numel(ctx.sizes(x))]
    if len(xs) == 1:
        return xs[0]
    return ctx.concat(xs, a["dim"], node.shape)


@torch_op("aten.stack")
def stack(ctx, node, a):
    dim = a["dim"] % len(node.shape)
    xs = [ctx.view(x).unsqueeze(dim) for x in a["tensors"]]
    return ctx.concat(xs, dim, node.shape)


@torch_op("aten.repeat")
def repeat(ctx, node, a):
    v = ctx.view(a["self"])
    reps = list(a["repeats"])
    lead = len(reps) - v.rank
    v = v.reshape((1,) * lead + v.sizes)
    inter, shape = [], []
    for r, n in zip(reps, v.sizes):
        inter += [r, n]
        shape.append(r * n)
    for k in range(v.rank):
        v = v.unsqueeze(2 * k)
    return reshape_view(ctx, v.expand(inter), shape)


@torch_op("aten.copy")
def copy(ctx, node, a):
    dst = a["self"]
    return ctx.ew("copy", lambda p: p, [a["src"]], out_sizes=ctx.sizes(dst), dtype=ctx.dtype())


@torch_op("aten.fill", "aten.zero")
def fill(ctx, node, a):
    import torch

    value = a.get("value", 0)
    if ctx.scalar(value) is not None:
        return Const(torch.full(node.shape, ctx.scalar(value), dtype=node.dtype), node.name)
    return ctx.ew("fill", lambda p: p, [value])


@torch_op("aten.zeros_like", "aten.ones_like", "aten.full_like", "aten.empty_like", "aten.new_zeros", "aten.new_ones",
          "aten.new_full", "aten.new_empty", "aten.rand_like", "aten.randn_like")
def like(ctx, node, a):
    import torch

    key = node.key.split(".")[-1]
    fill = {"zeros_like": 0, "ones_like": 1, "new_zeros": 0, "new_ones": 1, "empty_like": 0, "new_empty": 0}.get(key)
    if fill is None and "fill_value" in a:
        fill = a["fill_value"]
    if fill is None:
        raise ctx.error("random tensors cannot be imported")
    return Const(torch.full(node.shape, fill, dtype=node.dtype), node.name)
