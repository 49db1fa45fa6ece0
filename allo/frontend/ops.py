"""The op table: one handler per torch op, registered with `@torch_op(<aten names>)`.

A handler gets the lowering context, the node, and the op's arguments bound by name (from the aten
schema, defaults filled in; graph values already converted to Views/Consts/numbers). It emits library
calls (`ctx.nn("linear", [T, M, N, K], ...)`) or generated loops (`ctx.ew`, `ctx.reduce`), or just
returns a new View for layout ops, and returns the node's value.

Example::

    @torch_op("aten.relu")
    def relu(ctx, node, a):
        return activation(ctx, a["self"], "relu", lambda x: f"max({x}, 0.0)")
"""
from __future__ import annotations

import math

from ..errors import FrontendError
from .capture import Const
from .layout import View, numel

OPS: dict = {}


def torch_op(*keys):
    """Register the decorated handler for the given op keys (`"aten.linear"`, ...)."""

    def deco(fn):
        for k in keys:
            OPS[k] = fn
        return fn

    return deco


def supported_ops() -> list:
    return sorted(OPS)


def bind(target, args, kwargs) -> dict:
    """Arguments by schema name (defaults filled in) for an aten OpOverload; positional otherwise."""
    schema = getattr(target, "_schema", None)
    if schema is None:
        out = {f"arg{i}": a for i, a in enumerate(args)}
        out.update(kwargs)
        return out
    out = {}
    for i, arg in enumerate(schema.arguments):
        if i < len(args) and not arg.kwarg_only:
            out[arg.name] = args[i]
        elif arg.name in kwargs:
            out[arg.name] = kwargs[arg.name]
        elif arg.has_default_value():
            out[arg.name] = arg.default_value
        else:
            out[arg.name] = None
    return out


# ---------------------------------------------------------------------------- small helpers
def _T(ctx):
    return ctx.dtype()


def _pair(v, n=2):
    if isinstance(v, (list, tuple)):
        v = list(v)
        return v * n if len(v) == 1 else v
    return [v] * n


def _ones(ctx, n, name):
    import torch

    return Const(torch.ones(n), f"{ctx.hint}_{name}")


def _zeros(ctx, n, name):
    import torch

    return Const(torch.zeros(n), f"{ctx.hint}_{name}")


def _flat_param(ctx, x, n, name, default):
    """A [n] array for a per-channel parameter (Const reshaped, View copied, None -> default)."""
    if x is None:
        return ctx.arr(default(ctx, n, name), (n,))
    if isinstance(x, Const):
        return ctx.arr(x if tuple(x.tensor.shape) == (n,) else Const(x.tensor.reshape(n), x.name), (n,))
    return ctx.arr(x, (n,))


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
    if repr(dst) == "bool":
        return ctx.ew("to_bool", lambda p: f"{p} != 0", [x], dtype=dst, cast=False)
    return ctx.ew("cast", lambda p: p, [x])


def _reshape(ctx, x, sizes):
    v = ctx.view(x)
    sizes = tuple(sizes)
    nv = v.reshape(sizes)
    if nv is None:  # torch copies here too: lay the data out contiguously first
        nv = View.whole(ctx.laid_out(v), sizes)
    return nv


@torch_op("aten.view", "aten.reshape", "aten._unsafe_view", "aten.view_as", "aten.reshape_as", "aten.flatten",
          "aten.unflatten", "aten.view_copy")
def reshape(ctx, node, a):
    return _reshape(ctx, a["self"], node.shape)


@torch_op("aten.permute", "aten.permute_copy")
def permute(ctx, node, a):
    return ctx.view(a["self"]).permute(a["dims"])


@torch_op("aten.movedim")
def movedim(ctx, node, a):
    v = ctx.view(a["self"])
    src = _pair(a["source"], 1) if not isinstance(a["source"], (list, tuple)) else list(a["source"])
    dst = _pair(a["destination"], 1) if not isinstance(a["destination"], (list, tuple)) else list(a["destination"])
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
    xname = ctx.arr(v)
    iname = ctx.arr(iv)
    names = [f"i{j}" for j in range(len(out_sizes))]
    n = v.sizes[dim]
    iread = f"I[{', '.join(names[dim:dim + k]) or '0'}]"
    xidx = names[:dim] + [f"({iread} if {iread} >= 0 else {iread} + {n})"] + names[dim + k:]
    xbuf, ibuf = ctx.prog.bufs[xname], ctx.prog.bufs[iname]
    from .codegen import loop_text

    body = loop_text(list(out_sizes), names, [f"Y[{', '.join(names)}] = X[{', '.join(xidx)}]"])
    buf = ctx.prog.helper_call("index", [("X", xbuf), ("I", ibuf)], body, out_sizes, v.dtype, ctx.hint)
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
    return _reshape(ctx, v.expand(inter), shape)


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


# ---------------------------------------------------------------------------- elementwise math
def activation(ctx, x, kernel, formula, extra=()):
    """A library activation (`nn.<kernel>[T, M, N]`) on a whole 2-D array, else a generated loop."""
    v = ctx.view(x)
    if kernel and v.is_whole() and len(v.buf.shape) == 2 and v.dtype == ctx.dtype() and not extra:
        m, n = v.buf.shape
        return ctx.nn(kernel, [_T(ctx), m, n], [v.buf.name], v.sizes, (m, n))
    return ctx.ew(kernel or ctx.node.key.split(".")[-1], formula, [x])


UNARY = {
    "aten.relu": ("relu", lambda x: f"max({x}, 0.0)"),
    "aten.sigmoid": ("sigmoid", lambda x: f"1.0 / (1.0 + allo.exp(-{x}))"),
    "aten.tanh": ("tanh", lambda x: f"allo.tanh({x})"),
    "aten.silu": ("silu", lambda x: f"{x} / (1.0 + allo.exp(-{x}))"),
    "aten.exp": (None, lambda x: f"allo.exp({x})"),
    "aten.log": (None, lambda x: f"allo.log({x})"),
    "aten.sqrt": (None, lambda x: f"allo.sqrt({x})"),
    "aten.rsqrt": (None, lambda x: f"1.0 / allo.sqrt({x})"),
    "aten.neg": (None, lambda x: f"-{x}"),
    "aten.abs": (None, lambda x: f"allo.abs({x})"),
    "aten.sin": (None, lambda x: f"allo.sin({x})"),
    "aten.cos": (None, lambda x: f"allo.cos({x})"),
    "aten.erf": (None, lambda x: f"allo.erf({x})"),
    "aten.reciprocal": (None, lambda x: f"1.0 / {x}"),
    "aten.square": (None, lambda x: f"{x} * {x}"),
    "aten.floor": (None, lambda x: f"allo.floor({x})"),
    "aten.ceil": (None, lambda x: f"allo.ceil({x})"),
    "aten.mish": (None, lambda x: f"{x} * allo.tanh(allo.log(1.0 + allo.exp({x})))"),
    "aten.hardswish": (None, lambda x: f"{x} * min(max({x} + 3.0, 0.0), 6.0) / 6.0"),
    "aten.hardsigmoid": (None, lambda x: f"min(max({x} + 3.0, 0.0), 6.0) / 6.0"),
    "aten.log_sigmoid": (None, lambda x: f"-allo.log(1.0 + allo.exp(-{x}))"),
}


def _unary(key, kernel, formula):
    @torch_op(key)
    def handler(ctx, node, a):
        x = a["self"]
        if kernel is None:
            return ctx.ew(key.split(".")[-1], formula, [x])
        return activation(ctx, x, kernel, formula)

    return handler


for _key, (_kernel, _formula) in UNARY.items():
    _unary(_key, _kernel, _formula)


@torch_op("aten.gelu")
def gelu(ctx, node, a):
    if a.get("approximate", "none") == "tanh":
        return activation(ctx, a["self"], "gelu_tanh", lambda x: (
            f"0.5 * {x} * (1.0 + allo.tanh(0.7978845608028654 * ({x} + 0.044715 * {x} * {x} * {x})))"))
    return activation(ctx, a["self"], "gelu", lambda x: f"0.5 * {x} * (1.0 + allo.erf({x} * 0.7071067811865476))")


@torch_op("aten.leaky_relu")
def leaky_relu(ctx, node, a):
    s = float(a.get("negative_slope", 0.01))
    return ctx.ew("leaky_relu", lambda x: f"({x} if {x} > 0.0 else {x} * {s!r})", [a["self"]])


@torch_op("aten.elu")
def elu(ctx, node, a):
    al = float(a.get("alpha", 1.0))
    return ctx.ew("elu", lambda x: f"({x} if {x} > 0.0 else {al!r} * (allo.exp({x}) - 1.0))", [a["self"]])


@torch_op("aten.softplus")
def softplus(ctx, node, a):
    b, th = float(a.get("beta", 1.0)), float(a.get("threshold", 20.0))
    return ctx.ew("softplus", lambda x: f"({x} if {x} * {b!r} > {th!r} else allo.log(1.0 + allo.exp({x} * {b!r})) / {b!r})",
                  [a["self"]])


@torch_op("aten.hardtanh", "aten.clamp", "aten.clip", "aten.clamp_min", "aten.clamp_max", "aten.relu6")
def clamp(ctx, node, a):
    key = node.key.split(".")[-1]
    lo = a.get("min_val", a.get("min"))
    hi = a.get("max_val", a.get("max"))
    if key == "relu6":
        lo, hi = 0.0, 6.0
    if key == "clamp_max":
        lo, hi = None, a.get("max")
    for v in (lo, hi):
        if v is not None and ctx.scalar(v) is None:
            raise ctx.error("clamp with tensor bounds is not supported")
    from .codegen import literal

    def fmt(x):
        if lo is not None:
            x = f"max({x}, {literal(lo)})"
        if hi is not None:
            x = f"min({x}, {literal(hi)})"
        return x

    return ctx.ew(key, fmt, [a["self"]])


BINARY = {
    "aten.add": lambda p, q: f"{p} + {q}",
    "aten.sub": lambda p, q: f"{p} - {q}",
    "aten.rsub": lambda p, q: f"{q} - {p}",
    "aten.mul": lambda p, q: f"{p} * {q}",
    "aten.maximum": lambda p, q: f"max({p}, {q})",
    "aten.minimum": lambda p, q: f"min({p}, {q})",
    "aten.fmax": lambda p, q: f"max({p}, {q})",
    "aten.fmin": lambda p, q: f"min({p}, {q})",
}
COMPARE = {"aten.eq": "==", "aten.ne": "!=", "aten.lt": "<", "aten.le": "<=", "aten.gt": ">", "aten.ge": ">="}
LOGICAL = {"aten.logical_and": "and", "aten.logical_or": "or", "aten.bitwise_and": "and", "aten.bitwise_or": "or",
           "aten.__and__": "and", "aten.__or__": "or", "aten.logical_xor": "!=", "aten.bitwise_xor": "!=",
           "aten.__xor__": "!="}


LIBRARY_BINARY = {"aten.add": ("add", "add_scalar", "add_scalar"), "aten.sub": ("sub", "sub_scalar", "rsub_scalar"),
                  "aten.mul": ("mul", "mul_scalar", "mul_scalar"), "aten.div": ("div", "div_scalar", "rdiv_scalar")}


def _as_2d(ctx, v):
    """The shape of a whole 2-D array, else None. (Arrays of other ranks stay with generated loops,
    whose result shape can still adapt to the consumer; a library result's shape is fixed.)"""
    return tuple(v.buf.shape) if v.is_whole() and len(v.buf.shape) == 2 else None


def library_binary(ctx, key, x, y):
    """`nn.add[T, M, N](A, B)` / `nn.mul_scalar[T, M, N](A, s)` when both operands are whole arrays
    of the result's shape and type (or one is a scalar); None when a generated loop is needed."""
    from .codegen import literal

    names = LIBRARY_BINARY.get(key)
    T = ctx.dtype()
    if names is None or repr(T) != "float32":
        return None
    out = tuple(ctx.node.shape)
    sx, sy = ctx.scalar(x) if not isinstance(x, View) else None, ctx.scalar(y) if not isinstance(y, View) else None
    if sx is None and sy is None:
        vx, vy = ctx.view(x), ctx.view(y)
        if vx.sizes != out or vy.sizes != out or vx.dtype != T or vy.dtype != T or vx.buf is vy.buf:
            return None
        shape = _as_2d(ctx, vx)
        if shape is None or not vy.is_whole() or not ctx.prog.can_reshape(vy.buf, shape):
            return None
        return ctx.nn(names[0], [T, *shape], [ctx.arr(vx, shape), ctx.arr(vy, shape)], out, shape)
    if (sx is None) == (sy is None):
        return None
    v = ctx.view(x if sy is not None else y)
    if v.sizes != out or v.dtype != T:
        return None
    shape = _as_2d(ctx, v)
    if shape is None:
        return None
    kernel = names[1] if sy is not None else names[2]
    return ctx.nn(kernel, [T, *shape], [ctx.arr(v, shape), literal(float(sy if sy is not None else sx))], out, shape)


def _binary(key, fn):
    @torch_op(key)
    def handler(ctx, node, a):
        x, y = a["self"], a["other"]
        alpha = a.get("alpha", 1)
        if alpha in (None, 1):
            out = library_binary(ctx, key, x, y)
            if out is not None:
                return out
        if alpha not in (None, 1):
            from .codegen import literal

            return ctx.ew(key.split(".")[-1], lambda p, q: fn(p, f"{q} * {literal(alpha)}"), [x, y])
        return ctx.ew(key.split(".")[-1], fn, [x, y])

    return handler


for _key, _fn in BINARY.items():
    _binary(_key, _fn)


@torch_op("aten.div", "aten.true_divide")
def div(ctx, node, a):
    mode = a.get("rounding_mode")
    if mode is None:
        out = library_binary(ctx, "aten.div", a["self"], a["other"])
        if out is not None:
            return out
        return ctx.ew("div", lambda p, q: f"{p} / {q}", [a["self"], a["other"]])
    if ctx.dtype().__class__.__name__ == "Float":
        if mode == "floor":
            return ctx.ew("div", lambda p, q: f"allo.floor({p} / {q})", [a["self"], a["other"]])
        return ctx.ew("div", lambda p, q: f"(allo.floor({p} / {q}) if {p} / {q} >= 0.0 else allo.ceil({p} / {q}))",
                      [a["self"], a["other"]])
    if mode == "floor":
        return ctx.ew("div", lambda p, q: f"{p} // {q}", [a["self"], a["other"]])
    raise ctx.error("integer division with rounding_mode='trunc' is not supported")


@torch_op("aten.floor_divide")
def floor_divide(ctx, node, a):
    return div(ctx, node, {"self": a["self"], "other": a["other"], "rounding_mode": "floor"})


@torch_op("aten.pow")
def pow_(ctx, node, a):
    x = a.get("self")
    e = a.get("exponent")
    es = ctx.scalar(e) if not isinstance(e, View) else None
    if es is not None and not isinstance(x, (int, float)):
        table = {1: lambda p: p, 2: lambda p: f"{p} * {p}", 3: lambda p: f"{p} * {p} * {p}",
                 0.5: lambda p: f"allo.sqrt({p})", -0.5: lambda p: f"1.0 / allo.sqrt({p})", -1: lambda p: f"1.0 / {p}",
                 -2: lambda p: f"1.0 / ({p} * {p})"}
        if es in table:
            return ctx.ew("pow", table[es], [x])
        from .codegen import literal

        return ctx.ew("pow", lambda p: f"allo.pow({p}, {literal(float(es))})", [x])
    return ctx.ew("pow", lambda p, q: f"allo.pow({p}, {q})", [x, e])


def _compare(key, sym):
    @torch_op(key)
    def handler(ctx, node, a):
        return ctx.ew(key.split(".")[-1], lambda p, q: f"{p} {sym} {q}", [a["self"], a["other"]], cast=False)

    return handler


for _key, _sym in COMPARE.items():
    _compare(_key, _sym)


def _logical(key, word):
    @torch_op(key)
    def handler(ctx, node, a):
        if repr(ctx.dtype()) != "bool":
            raise ctx.error("bitwise ops are only supported on bool tensors")
        return ctx.ew(key.split(".")[-1], lambda p, q: f"({p} != 0) {word} ({q} != 0)", [a["self"], a["other"]],
                      cast=False)

    return handler


for _key, _word in LOGICAL.items():
    _logical(_key, _word)


@torch_op("aten.logical_not", "aten.bitwise_not", "aten.__invert__")
def logical_not(ctx, node, a):
    if repr(ctx.dtype()) != "bool":
        raise ctx.error("bitwise_not is only supported on bool tensors")
    return ctx.ew("logical_not", lambda p: f"not ({p} != 0)", [a["self"]], cast=False)


@torch_op("aten.where")
def where(ctx, node, a):
    return ctx.ew("where", lambda c, p, q: f"({p} if {c} else {q})", [a["condition"], a["self"], a["other"]],
                  cast={1, 2})


@torch_op("aten.masked_fill")
def masked_fill(ctx, node, a):
    value = a["value"]
    if ctx.scalar(value) is None:
        raise ctx.error("masked_fill with a tensor value needs a one-element tensor")
    return ctx.ew("masked_fill", lambda p, m, v: f"({v} if {m} else {p})", [a["self"], a["mask"], value], cast={0})


def _tri(upper):
    def handler(ctx, node, a):
        import torch

        v = ctx.view(a["self"])
        rows, cols = v.sizes[-2], v.sizes[-1]
        ones = torch.ones(rows, cols, dtype=torch.bool)
        mask = torch.triu(ones, a["diagonal"]) if upper else torch.tril(ones, a["diagonal"])
        return ctx.ew("triu" if upper else "tril", lambda p, m: f"({p} if {m} else 0)", [v, Const(mask, f"{ctx.hint}_mask")],
                      cast={0})

    return handler


torch_op("aten.triu")(_tri(True))
torch_op("aten.tril")(_tri(False))


# ---------------------------------------------------------------------------- reductions
def _dims(a, rank):
    dim = a.get("dim")
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return list(range(rank))
    return [dim] if isinstance(dim, int) else list(dim)


@torch_op("aten.sum")
def sum_(ctx, node, a):
    v = ctx.view(a["self"])
    return ctx.reduce("sum", v, _dims(a, v.rank), a.get("keepdim", False), "0", lambda s, x: f"{s} + {x}")


@torch_op("aten.mean")
def mean(ctx, node, a):
    v = ctx.view(a["self"])
    return ctx.reduce("mean", v, _dims(a, v.rank), a.get("keepdim", False), "0.0", lambda s, x: f"{s} + {x}",
                      lambda s, n: f"{s} / {float(n)!r}")


@torch_op("aten.amax")
def amax(ctx, node, a):
    v = ctx.view(a["self"])
    return ctx.reduce("amax", v, _dims(a, v.rank), a.get("keepdim", False), "NEG_INF", lambda s, x: f"max({s}, {x})")


@torch_op("aten.amin")
def amin(ctx, node, a):
    v = ctx.view(a["self"])
    return ctx.reduce("amin", v, _dims(a, v.rank), a.get("keepdim", False), "INF", lambda s, x: f"min({s}, {x})")


@torch_op("aten.var", "aten.std")
def var(ctx, node, a):
    v = ctx.view(a["self"])
    dims = _dims(a, v.rank)
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


# ---------------------------------------------------------------------------- linear algebra
@torch_op("aten.linear")
def linear(ctx, node, a):
    return _linear(ctx, a["input"], a["weight"], a["bias"], node.shape)


def _linear(ctx, x, w, b, out_sizes):
    n, k = ctx.sizes(w)
    v = ctx.view(x)
    T = _T(ctx)
    wname = ctx.arr(w, (n, k))
    bname = _flat_param(ctx, b, n, "bias", _zeros)
    if v.is_whole() and len(v.buf.shape) == 3 and v.buf.shape[2] == k and ctx.prog.uses.get(id(v.buf)):
        bb, m, _ = v.buf.shape
        return ctx.nn("linear3d", [T, bb, m, n, k], [v.buf.name, wname, bname], out_sizes, (bb, m, n))
    xname, (m, _) = ctx.rows(v, k)
    return ctx.nn("linear", [T, m, n, k], [xname, wname, bname], out_sizes, (m, n))


@torch_op("aten.addmm")
def addmm(ctx, node, a):
    bias, m1, m2 = a["self"], a["mat1"], a["mat2"]
    beta, alpha = a.get("beta", 1), a.get("alpha", 1)
    n = ctx.sizes(m2)[1]
    if isinstance(m2, Const) and isinstance(bias, Const) and numel(tuple(bias.tensor.shape)) == n:
        w = Const((m2.tensor.t() * alpha).contiguous(), f"{m2.name}_t")
        b = Const((bias.tensor.reshape(n) * beta).contiguous(), bias.name)
        return _linear(ctx, m1, w, b, node.shape)
    hint = ctx.hint
    ctx.hint = hint + "_mm"
    prod = _matmul(ctx, m1, m2, node.shape)
    ctx.hint = hint
    from .codegen import literal

    return ctx.ew("addmm", lambda p, q: f"{q} * {literal(alpha)} + {p} * {literal(beta)}", [bias, prod])


@torch_op("aten.matmul", "aten.mm", "aten.bmm")
def matmul(ctx, node, a):
    return _matmul(ctx, a["self"], a.get("other", a.get("mat2")), node.shape)


def _matmul(ctx, x, y, out_sizes):
    a, b = ctx.view(x), ctx.view(y)
    squeeze = []
    if a.rank == 1:
        a = a.unsqueeze(0)
        squeeze.append(-2)
    if b.rank == 1:
        b = b.unsqueeze(1)
        squeeze.append(-1)
    T = _T(ctx)
    m, k = a.sizes[-2:]
    n = b.sizes[-1]
    batch = _broadcast(a.sizes[:-2], b.sizes[:-2])
    full = tuple(batch) + (m, n)
    if b.rank == 2 or all(s == 0 for s in b.expand(tuple(batch) + (k, n)).strides[:len(batch)]):
        # one weight matrix for every batch: a plain [B*M, K] x [K, N] product
        b2 = b if b.rank == 2 else _drop_batch(b, batch, k, n)
        a_full = a.expand(tuple(batch) + (m, k))
        aname, (rows, _) = ctx.rows(a_full, k)
        out = ctx.nn("matmul", [T, rows, k, n], [aname, ctx.arr(b2, (k, n))], full, (rows, n))
    else:
        nb = numel(batch)
        aname = ctx.arr(a.expand(tuple(batch) + (m, k)), (nb, m, k))
        bname = ctx.arr(b.expand(tuple(batch) + (k, n)), (nb, k, n))
        out = ctx.nn("bmm", [T, nb, m, k, n], [aname, bname], full, (nb, m, n))
    if squeeze:
        out = out.reshape(tuple(out_sizes))
    return out


def _drop_batch(b, batch, k, n):
    v = b.expand(tuple(batch) + (k, n))
    for _ in batch:
        v = v.select(0, 0)
    return v


def _broadcast(s1, s2):
    rank = max(len(s1), len(s2))
    s1 = (1,) * (rank - len(s1)) + tuple(s1)
    s2 = (1,) * (rank - len(s2)) + tuple(s2)
    out = []
    for p, q in zip(s1, s2):
        if p != q and 1 not in (p, q):
            raise FrontendError(f"batch dims {list(s1)} and {list(s2)} do not broadcast")
        out.append(max(p, q))
    return out


# ---------------------------------------------------------------------------- normalisation
@torch_op("aten.layer_norm")
def layer_norm(ctx, node, a):
    d = numel(a["normalized_shape"])
    xname, (m, _) = ctx.rows(a["input"], d)
    g = _flat_param(ctx, a["weight"], d, "gamma", _ones)
    b = _flat_param(ctx, a["bias"], d, "beta", _zeros)
    return ctx.nn("layer_norm", [_T(ctx), m, d], [xname, g, b, repr(float(a["eps"]))], node.shape, (m, d))


@torch_op("aten.rms_norm")
def rms_norm(ctx, node, a):
    import torch

    d = numel(a["normalized_shape"])
    eps = a.get("eps")
    if eps is None:
        eps = torch.finfo(node.dtype).eps
    xname, (m, _) = ctx.rows(a["input"], d)
    g = _flat_param(ctx, a["weight"], d, "gamma", _ones)
    return ctx.nn("rms_norm", [_T(ctx), m, d], [xname, g, repr(float(eps))], node.shape, (m, d))


@torch_op("aten.batch_norm", "aten._native_batch_norm_legit_no_training", "aten.native_batch_norm",
          "aten._native_batch_norm_legit")
def batch_norm(ctx, node, a):
    training = a.get("training", False)
    mean, var = a.get("running_mean"), a.get("running_var")
    if training or mean is None or var is None:
        raise ctx.error("batch norm with batch statistics (training mode or track_running_stats=False) cannot be "
                        "imported; call model.eval() on a model with running statistics")
    v = ctx.view(a["input"])
    if v.rank < 2:
        raise ctx.error("batch norm needs an input with a channel dimension")
    b, c = v.sizes[0], v.sizes[1]
    rest = v.sizes[2:]
    h, w = (rest[0], numel(rest[1:])) if rest else (1, 1)
    x = ctx.arr(v, (b, c, h, w))
    args = [x, _flat_param(ctx, mean, c, "mean", _zeros), _flat_param(ctx, var, c, "var", _ones),
            _flat_param(ctx, a.get("weight"), c, "gamma", _ones), _flat_param(ctx, a.get("bias"), c, "beta", _zeros),
            repr(float(a["eps"]))]
    out = ctx.nn("batch_norm2d", [_T(ctx), b, c, h, w], args, v.sizes, (b, c, h, w))
    if node.key == "aten.batch_norm":
        return out
    return (out, None, None)


@torch_op("aten.softmax", "aten._softmax", "aten.log_softmax", "aten._log_softmax", "aten.special_softmax")
def softmax(ctx, node, a):
    x = ctx.view(a["self"])
    kernel = "log_softmax" if "log_softmax" in node.key else "softmax"
    return _softmax(ctx, x, a["dim"], kernel)


def _softmax(ctx, v, dim, kernel="softmax"):
    if v.rank == 0:
        raise ctx.error("softmax of a scalar")
    dim = dim % v.rank
    perm = [d for d in range(v.rank) if d != dim] + [dim]
    pv = v.permute(perm) if dim != v.rank - 1 else v
    name, (m, n) = ctx.rows(pv)
    out = ctx.nn(kernel, [_T(ctx), m, n], [name], pv.sizes, (m, n))
    if dim == v.rank - 1:
        return out
    inv = [perm.index(d) for d in range(v.rank)]
    return out.permute(inv)


# ---------------------------------------------------------------------------- convolution and pooling
@torch_op("aten.conv2d", "aten.conv1d", "aten.convolution", "aten._convolution")
def conv(ctx, node, a):
    x, w, bias = a["input"], a["weight"], a.get("bias")
    if a.get("transposed"):
        raise ctx.error("transposed convolution is not supported")
    wsz = ctx.sizes(w)
    one_d = len(wsz) == 3
    if len(wsz) not in (3, 4):
        raise ctx.error(f"only 1-D and 2-D convolutions are supported (weight shape {list(wsz)})")
    v = ctx.view(x)
    unbatched = v.rank == len(wsz) - 1
    if unbatched:
        v = v.unsqueeze(0)
    if one_d:
        v = v.unsqueeze(2)
        if not isinstance(w, Const):
            raise ctx.error("1-D convolution needs constant weights")
        w = Const(w.tensor.unsqueeze(2), w.name)
    n = 2
    stride, dil = _pair(a.get("stride", 1), 1 if one_d else n), _pair(a.get("dilation", 1), 1 if one_d else n)
    pad = a.get("padding", 0)
    cout, cin_g, kh, kw = ctx.sizes(w)
    if one_d:
        stride, dil = [1] + list(stride), [1] + list(dil)
    if isinstance(pad, str):
        if pad == "valid":
            pad = [0, 0]
        else:
            tot = [d * (k - 1) for d, k in zip(dil, (kh, kw))]
            if any(t % 2 for t in tot):
                raise ctx.error("padding='same' with an even kernel extent (asymmetric padding) is not supported")
            pad = [t // 2 for t in tot]
    else:
        pad = _pair(pad, 1 if one_d else 2)
        if one_d:
            pad = [0] + list(pad)
    bsz, cin, h, wd = v.sizes
    groups = a.get("groups", 1)
    out_sizes = tuple(node.shape)
    oh = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    xname = ctx.arr(v, (bsz, cin, h, wd))
    wname = ctx.arr(w, (cout, cin_g, kh, kw))
    bname = _flat_param(ctx, bias, cout, "bias", _zeros)
    targs = [_T(ctx), bsz, cin, cout, h, wd, kh, kw, oh, ow, stride[0], stride[1], pad[0], pad[1], dil[0], dil[1], groups]
    return ctx.nn("conv2d", targs, [xname, wname, bname], out_sizes, (bsz, cout, oh, ow))


def _pool_args(ctx, node, a, kernel):
    v = ctx.view(a["self"])
    unbatched = v.rank == 3
    if unbatched:
        v = v.unsqueeze(0)
    k = _pair(a["kernel_size"])
    s = _pair(a.get("stride") or k)
    p = _pair(a.get("padding", 0))
    if any(d != 1 for d in _pair(a.get("dilation", 1))):
        raise ctx.error("dilated pooling is not supported")
    b, c, h, w = v.sizes
    oh = (h + 2 * p[0] - k[0]) // s[0] + 1
    ow = (w + 2 * p[1] - k[1]) // s[1] + 1
    if tuple(node.shape[-2:]) != (oh, ow):
        raise ctx.error("ceil_mode=True pooling that changes the output size is not supported")
    xname = ctx.arr(v, (b, c, h, w))
    return ctx.nn(kernel, [_T(ctx), b, c, h, w, k[0], k[1], oh, ow, s[0], s[1], p[0], p[1]], [xname], node.shape,
                  (b, c, oh, ow))


@torch_op("aten.max_pool2d", "aten.max_pool2d_with_indices")
def max_pool2d(ctx, node, a):
    out = _pool_args(ctx, node, a, "max_pool2d")
    return (out, None) if node.key.endswith("with_indices") else out


@torch_op("aten.avg_pool2d")
def avg_pool2d(ctx, node, a):
    if a.get("divisor_override") is not None:
        raise ctx.error("avg_pool2d with divisor_override is not supported")
    if not a.get("count_include_pad", True) and any(_pair(a.get("padding", 0))):
        raise ctx.error("avg_pool2d with count_include_pad=False and padding is not supported")
    return _pool_args(ctx, node, a, "avg_pool2d")


@torch_op("aten.adaptive_avg_pool2d", "aten._adaptive_avg_pool2d")
def adaptive_avg_pool2d(ctx, node, a):
    v = ctx.view(a["self"])
    h, w = v.sizes[-2:]
    oh, ow = node.shape[-2:]
    if h % oh or w % ow:  # uneven windows: a product with a constant averaging matrix
        import torch

        pool = torch.zeros(h * w, oh * ow)
        for i in range(oh):
            for j in range(ow):
                r0, r1 = (i * h) // oh, -(-((i + 1) * h) // oh)
                c0, c1 = (j * w) // ow, -(-((j + 1) * w) // ow)
                for r in range(r0, r1):
                    pool[r * w + c0:r * w + c1, i * ow + j] = 1.0 / ((r1 - r0) * (c1 - c0))
        rows = numel(v.sizes[:-2])
        xname = ctx.arr(v, (rows, h * w))
        pname = ctx.arr(Const(pool, f"{ctx.hint}_window"), (h * w, oh * ow))
        return ctx.nn("matmul", [_T(ctx), rows, h * w, oh * ow], [xname, pname], node.shape, (rows, oh * ow))
    kh, kw = h // oh, w // ow
    return _pool_args(ctx, node, {"self": v, "kernel_size": [kh, kw], "stride": [kh, kw], "padding": [0, 0]},
                      "avg_pool2d")


@torch_op("aten.constant_pad_nd", "aten.pad")
def pad(ctx, node, a):
    """F.pad (constant mode): fill the result, then copy the input into its interior."""
    from .codegen import literal
    from .layout import Buf

    if a.get("mode", "constant") != "constant":
        raise ctx.error(f"padding mode {a.get('mode')!r} is not supported (only 'constant')")
    v = ctx.view(a["self"])
    pads = list(a["pad"])
    value = a.get("value") or 0.0
    for k in range(len(pads) // 2):  # negative pads crop: a view
        dim = v.rank - 1 - k
        lo, hi = pads[2 * k], pads[2 * k + 1]
        if lo < 0 or hi < 0:
            v = v.slice(dim, max(0, -lo), v.sizes[dim] - max(0, -hi))
            pads[2 * k], pads[2 * k + 1] = max(lo, 0), max(hi, 0)
    out_sizes = tuple(node.shape)
    dst = View.whole(Buf("Y", out_sizes, ctx.dtype()))
    for k in range(len(pads) // 2):
        dim = v.rank - 1 - k
        dst = dst.slice(dim, pads[2 * k], pads[2 * k] + v.sizes[dim])
    from .codegen import loop_text
    from .layout import plan_loops

    names = [f"f{d}" for d in range(len(out_sizes))]
    lines = loop_text(list(out_sizes), names, [f"Y[{', '.join(names)}] = {literal(value)}"])
    extents, lnames, idx = plan_loops(v.sizes, [dst, v])
    lines += loop_text(extents, lnames, [f"Y[{', '.join(idx[0])}] = X[{', '.join(idx[1])}]"])
    buf = ctx.prog.helper_call("pad", [("X", v.buf)], lines, out_sizes, ctx.dtype(), ctx.hint)
    return View.whole(buf)


@torch_op("aten.einsum")
def einsum(ctx, node, a):
    """One- and two-operand einsum: permute + reshape + bmm/matmul (views), sums for dropped indices."""
    eq = a["equation"].replace(" ", "")
    ops = list(a["tensors"])
    lhs, _, out = eq.partition("->")
    specs = lhs.split(",")
    if "..." in eq or len(specs) != len(ops) or len(ops) not in (1, 2):
        raise ctx.error(f"einsum {eq!r} is not supported (one or two operands, no ellipsis)")
    if not _:
        letters = "".join(specs)
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    views = [ctx.view(t) for t in ops]
    for spec, v in zip(specs, views):
        if len(set(spec)) != len(spec):
            raise ctx.error(f"einsum {eq!r}: repeated indices in one operand (diagonals) are not supported")
    hint = ctx.hint
    if len(ops) == 2:
        sa, sb = specs
        size = {c: n for spec, v in zip(specs, views) for c, n in zip(spec, v.sizes)}
        for spec in (sa, sb):  # indices only in one operand and not in the output are summed out first
            lonely = [c for c in spec if c not in out and c not in (sb if spec is sa else sa)]
            if lonely:
                raise ctx.error(f"einsum {eq!r}: summing an index of one operand only is not supported")
        batch = [c for c in out if c in sa and c in sb]
        fa = [c for c in out if c in sa and c not in sb]
        fb = [c for c in out if c in sb and c not in sa]
        k = [c for c in sa if c in sb and c not in out]
        va = views[0].permute([sa.index(c) for c in batch + fa + k])
        vb = views[1].permute([sb.index(c) for c in batch + k + fb])
        nb, m, kk, n = (numel([size[c] for c in g]) for g in (batch, fa, k, fb))
        va = _reshape(ctx, va, (nb, m, kk))
        vb = _reshape(ctx, vb, (nb, kk, n))
        ctx.hint = hint + "_mm"
        prod = _matmul(ctx, va, vb, (nb, m, n))
        ctx.hint = hint
        res = _reshape(ctx, prod, tuple(size[c] for c in batch + fa + fb))
        order = batch + fa + fb
    else:
        (sa,), (v,) = specs, views
        dropped = [i for i, c in enumerate(sa) if c not in out]
        res = v
        order = [c for c in sa if c in out]
        if dropped:
            res = ctx.reduce("einsum_sum", v, dropped, False, "0", lambda acc, x: f"{acc} + {x}")
    return res.permute([order.index(c) for c in out]) if order != list(out) else res


@torch_op("aten.baddbmm")
def baddbmm(ctx, node, a):
    from .codegen import literal

    beta, alpha = a.get("beta", 1), a.get("alpha", 1)
    hint = ctx.hint
    ctx.hint = hint + "_mm"
    prod = _matmul(ctx, a["batch1"], a["batch2"], node.shape)
    ctx.hint = hint
    return ctx.ew("baddbmm", lambda p, q: f"{q} * {literal(alpha)} + {p} * {literal(beta)}", [a["self"], prod])


@torch_op("aten.embedding")
def embedding(ctx, node, a):
    table, ids = a["weight"], ctx.view(a["indices"])
    vocab, dim = ctx.sizes(table)
    if repr(ids.dtype) != "int64":
        raise ctx.error(f"embedding indices must be int64, got {ids.dtype!r}")
    length = numel(ids.sizes)
    return ctx.nn("embedding", [_T(ctx), vocab, dim, length], [ctx.arr(ids, (length,)), ctx.arr(table, (vocab, dim))],
                  node.shape, (length, dim))


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
        k, v = (_reshape(ctx, t.unsqueeze(-3).expand(t.sizes[:-2] + (rep,) + t.sizes[-2:]),
                         t.sizes[:-3] + (t.sizes[-3] * rep,) + t.sizes[-2:]) for t in (k, v))
    length, d = q.sizes[-2:]
    s, dv = v.sizes[-2:]
    batch = _broadcast(_broadcast(q.sizes[:-2], k.sizes[:-2]), v.sizes[:-2])
    default_scale = scale is None or abs(scale - 1 / math.sqrt(d)) < 1e-12
    if mask is None and default_scale and dv == d:
        nb = numel(batch)
        args = [ctx.arr(t.expand(tuple(batch) + t.sizes[-2:]), (nb,) + t.sizes[-2:]) for t in (q, k, v)]
        return ctx.nn("scaled_dot_product_attention", [_T(ctx), nb, length, s, d, int(causal)], args, node.shape,
                      (nb, length, d))
    # general form: softmax(q k^T * scale + mask) v
    hint = ctx.hint
    scale = 1 / math.sqrt(d) if scale is None else scale
    ctx.hint = hint + "_scores"
    scores = _matmul(ctx, q, k.transpose(-2, -1), tuple(batch) + (length, s))
    if causal:
        mask = Const(torch.ones(length, s, dtype=torch.bool).tril(), f"{hint}_causal")
    if mask is None:
        scores = ctx.ew("scale", lambda p: f"{p} * {float(scale)!r}", [scores], out_sizes=scores.sizes)
    elif ctx.view(mask).dtype.__class__.__name__ == "UInt":
        scores = ctx.ew("mask", lambda p, m: f"({p} * {float(scale)!r} if {m} else NEG_INF)", [scores, mask],
                        out_sizes=scores.sizes, cast={0})
    else:
        scores = ctx.ew("mask", lambda p, m: f"{p} * {float(scale)!r} + {m}", [scores, mask], out_sizes=scores.sizes)
    ctx.hint = hint + "_probs"
    probs = _softmax(ctx, scores, -1)
    ctx.hint = hint
    return _matmul(ctx, probs, v, node.shape)
