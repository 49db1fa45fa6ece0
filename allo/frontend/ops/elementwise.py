"""Elementwise ops: unary math and activations, binary arithmetic with broadcasting, comparisons,
logical ops, where/masked_fill, clamp, triangular masks.

Whole 2-D float operands of the result's shape go to library kernels (`nn.relu`, `nn.add`, ...);
everything else becomes a generated loop (`ctx.ew`) that reads broadcast views in place.
"""
from __future__ import annotations

from ...ir.types import Float
from ..codegen import literal
from ..graph import Const
from ..layout import View
from .common import elem_type
from .table import torch_op


def activation(ctx, x, kernel, formula, extra=()):
    """A library activation (`nn.<kernel>[T, M, N]`) on a whole 2-D array, else a generated loop."""
    v = ctx.view(x)
    if kernel and v.is_whole() and len(v.buf.shape) == 2 and v.dtype == ctx.dtype() and not extra:
        m, n = v.buf.shape
        return ctx.nn(kernel, [elem_type(ctx), m, n], [v.buf.name], v.sizes, (m, n))
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
    if isinstance(ctx.dtype(), Float):
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
