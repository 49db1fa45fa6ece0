"""Whole-array builtins that Allo kernels call: `allo.add/sub/mul/div`, `allo.matmul/bmm/linear`,
`allo.softmax/relu/gelu/layernorm`, `allo.conv2d/maxpool/sumpool`, `allo.tril/concat/view/copy`,
`allo.ones/zeros`, `allo.power` and the unary math functions on arrays.

Each call builds loop nests in the calling function over fresh local arrays, with the loops and
numerics of the library kernels (`allo.library.nn`): max-subtracted softmax, two-pass layer
norm, zero-initialised accumulation for contractions. `name="gemm"` names the band of the main
loop nest, whose loops are then `L_0, L_1, ...` (`s.get_loops().gemm.L_1`, as in upstream Allo).

Example::

    def kernel(X: float32[8, 16], W: float32[32, 16], b: float32[32]) -> float32[8, 32]:
        Y = allo.linear(X, W, b, name="fc")      # X @ W.T + b
        return allo.softmax(allo.relu(Y))
"""
from __future__ import annotations

import builtins
import math

from ..errors import AlloSyntaxError, AlloTypeError
from ..ir import emit
from ..ir.attrs import REDUCTION
from ..ir.nodes import Alloc, Buffer, Const, For, IterVar, Load, Store
from ..ir.ops import BinOpKind, MathFn
from ..ir.types import AlloType, ArrayType, Fixed, Float, UFixed, UInt, float32, index, int32, lowest


def _zero(dtype):
    return 0.0 if isinstance(dtype, (Float, Fixed, UFixed)) else 0


class Builtins:
    """Builders for the whole-array calls, bound to a FunctionBuilder."""

    def __init__(self, fb):
        self.fb = fb
        self.arrays = fb.arrays

    # ------------------------------------------------------------------ helpers
    def array(self, v, what, rank=None):
        if not isinstance(v, Buffer) or not v.shape:
            raise AlloTypeError(f"{what} needs an array argument, got {type(v).__name__}")
        if rank is not None and len(v.shape) not in (rank if isinstance(rank, tuple) else (rank,)):
            raise AlloTypeError(f"{what} needs a {rank}-D array, got shape {list(v.shape)}")
        return v

    def nest(self, extents, body_fn, loc, band=None, reduce_from=None, prefix="i"):
        """Emit one perfect loop nest over `extents`; loops from position `reduce_from` on are
        reduction loops. body_fn(ivs) -> statements."""
        names = self.arrays.loop_names(len(extents), prefix, band)
        ivs = [IterVar(n, loc=loc) for n in names]
        body = body_fn(ivs)
        for d in reversed(range(len(extents))):
            attrs = {REDUCTION: True} if reduce_from is not None and d >= reduce_from else {}
            body = [For(ivs[d], Const(0, index), Const(extents[d], index), 1, body, names[d], attrs, loc)]
        if extents:
            body[0].attrs.update(self.arrays.band_attr(names, band))
        for s in body:
            self.fb.emit(s)

    def fill(self, out, value, loc):
        self.arrays.copy_into(out, emit.to_expr(value, out.dtype, loc), loc)

    def contraction(self, out_shape, red_shape, dtype, product, loc, band=None, hint="out"):
        """out[o] = sum_r product(o, r): a zero-filled result, then one perfect nest o..., r...
        (the reduction loops innermost) that accumulates into it."""
        out = self.arrays.new_temp(dtype, out_shape, loc, hint)
        self.fill(out, _zero(dtype), loc)
        n = len(out_shape)

        def body(ivs):
            o, r = ivs[:n], ivs[n:]
            acc = emit.binary(BinOpKind.ADD, Load(out, list(o)), product(o, r), loc)
            return [Store(out, list(o), emit.cast(emit.to_expr(acc, dtype, loc), dtype, loc), loc)]

        self.nest(list(out_shape) + list(red_shape), body, loc, band, reduce_from=n)
        return out

    @staticmethod
    def mul_type(a, b):
        zero_a, zero_b = [Const(0, index)] * len(a.shape), [Const(0, index)] * len(b.shape)
        return emit.binary(BinOpKind.MUL, Load(a, zero_a), Load(b, zero_b)).type

    # ------------------------------------------------------------------ elementwise
    def binary(self, op, a, b, loc, band=None):
        fb = self.fb
        a, b = fb.value(a), fb.value(b)
        if not isinstance(a, Buffer) and not isinstance(b, Buffer):
            return emit.binary(op, a, b, loc)
        return self.arrays.elementwise(lambda x, y: emit.binary(op, x, y, loc), [a, b], loc, op, band)

    def unary(self, fn, x, loc, band=None):
        return self.arrays.elementwise(lambda a: fn(a), [self.array(x, "this builtin")], loc, "tmp", band)

    def copy(self, x, loc, band=None):
        x = self.array(x, "allo.copy")
        return self.arrays.elementwise(lambda a: a, [x], loc, "copy", band)

    def relu(self, x, loc, band=None):
        x = self.array(x, "allo.relu")
        return self.arrays.elementwise(lambda a: emit.binary(BinOpKind.MAX, a, _zero(x.dtype), loc), [x], loc, "relu",
                                       band)

    def gelu(self, x, loc, band=None):
        """0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), the tanh form of allo.gelu."""
        x = self.array(x, "allo.gelu")
        c = math.sqrt(2.0 / math.pi)

        def f(a):
            cube = emit.binary(BinOpKind.MUL, emit.binary(BinOpKind.MUL, a, a, loc), a, loc)
            inner = emit.binary(BinOpKind.ADD, a, emit.binary(BinOpKind.MUL, 0.044715, cube, loc), loc)
            t = emit.math_call(MathFn.TANH, [emit.binary(BinOpKind.MUL, c, inner, loc)], loc)
            half = emit.binary(BinOpKind.MUL, 0.5, a, loc)
            return emit.binary(BinOpKind.MUL, half, emit.binary(BinOpKind.ADD, 1.0, t, loc), loc)

        return self.arrays.elementwise(f, [x], loc, "gelu", band)

    def tril(self, x, loc, band=None):
        x = self.array(x, "allo.tril", rank=2)

        def f(ivs):
            i, j = ivs
            keep = emit.binary(BinOpKind.LE, j, i, loc)
            return [Store(out, [i, j], emit.select(keep, Load(x, [i, j]), emit.to_expr(_zero(x.dtype), x.dtype, loc),
                                                   loc), loc)]

        out = self.arrays.new_temp(x.dtype, x.shape, loc, "tril")
        self.arrays.loop_nest(x.shape, f, loc, band=band)
        return out

    def full(self, shape, dtype, value, loc):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        if not shape or not all(isinstance(d, int) and d > 0 for d in shape):
            raise AlloTypeError(f"allo.ones/zeros need a shape of positive integers, got {shape!r}")
        dtype = float32 if dtype is None else dtype
        # Python's own types, as upstream Allo reads them: float -> float32, int -> int32
        dtype = {float: float32, int: int32, builtins.bool: UInt(1)}.get(dtype, dtype) if isinstance(dtype, type) \
            else dtype
        if not isinstance(dtype, AlloType):
            raise AlloTypeError(f"dtype must be an allo type such as float32, got {dtype!r}")
        out = self.arrays.new_temp(dtype, shape, loc, "ones" if value else "zeros")
        self.fill(out, value, loc)
        return out

    # ------------------------------------------------------------------ contractions
    def matmul(self, a, b, loc, band=None):
        if isinstance(a, Buffer) and isinstance(b, Buffer) and len(a.shape) >= 3 and len(b.shape) == len(a.shape):
            return self.batched_matmul(a, b, loc, band)
        if not band:
            return self.arrays.matmul(a, b, loc)
        if not (isinstance(a, Buffer) and isinstance(b, Buffer) and len(a.shape) == 2 and len(b.shape) == 2
                and a.shape[1] == b.shape[0]):
            return self.arrays.matmul(a, b, loc)  # raises the shape error
        m, k = a.shape
        return self.contraction((m, b.shape[1]), (k,), self.mul_type(a, b),
                                lambda o, r: emit.binary(BinOpKind.MUL, Load(a, [o[0], r[0]]), Load(b, [r[0], o[1]]),
                                                         loc),
                                loc, band, "matmul")

    def batched_matmul(self, a, b, loc, band=None):
        """numpy's matmul of [..., M, K] x [..., K, N] arrays with the same leading (batch) dims."""
        if a.shape[:-2] != b.shape[:-2] or a.shape[-1] != b.shape[-2]:
            raise AlloTypeError(f"matmul of batches needs [..., M, K] x [..., K, N] arrays with the same batch "
                                f"dimensions, got {list(a.shape)} and {list(b.shape)}")
        lead, k = tuple(a.shape[:-2]), a.shape[-1]
        nb = len(lead)
        return self.contraction(lead + (a.shape[-2], b.shape[-1]), (k,), self.mul_type(a, b),
                                lambda o, r: emit.binary(BinOpKind.MUL, Load(a, list(o[:nb + 1]) + [r[0]]),
                                                         Load(b, list(o[:nb]) + [r[0], o[nb + 1]]), loc),
                                loc, band, "matmul")

    def bmm(self, a, b, loc, band=None):
        a, b = self.array(a, "allo.bmm"), self.array(b, "allo.bmm")
        if len(a.shape) != 3 or len(b.shape) != 3 or a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
            raise AlloTypeError(f"allo.bmm needs [B, M, K] x [B, K, N] arrays, got {list(a.shape)} and {list(b.shape)}")
        bs, m, k = a.shape
        return self.contraction((bs, m, b.shape[2]), (k,), self.mul_type(a, b),
                                lambda o, r: emit.binary(BinOpKind.MUL, Load(a, [o[0], o[1], r[0]]),
                                                         Load(b, [o[0], r[0], o[2]]), loc), loc, band, "bmm")

    def linear(self, x, w, bias, loc, band=None):
        """x @ w.T (+ bias): x[..., K], w[N, K], bias[N]."""
        x, w = self.array(x, "allo.linear"), self.array(w, "allo.linear", rank=2)
        if x.shape[-1] != w.shape[1]:
            raise AlloTypeError(f"allo.linear: x[..., {x.shape[-1]}] does not match weight {list(w.shape)} ([N, K])")
        lead = tuple(x.shape[:-1])
        out = self.contraction(lead + (w.shape[0],), (w.shape[1],), self.mul_type(x, w),
                               lambda o, r: emit.binary(BinOpKind.MUL, Load(x, list(o[:-1]) + [r[0]]),
                                                        Load(w, [o[-1], r[0]]), loc), loc, band, "linear")
        if bias is None:
            return out
        bias = self.fb.value(bias)
        return self.arrays.elementwise(lambda p, q: emit.binary(BinOpKind.ADD, p, q, loc), [out, bias], loc, "linear")

    def conv2d(self, inp, filt, loc, band=None):
        """out[n, f, h, w] = sum_{c, kh, kw} inp[n, c, h + kh, w + kw] * filt[f, c, kh, kw] (valid, stride 1)."""
        inp, filt = self.array(inp, "allo.conv2d", rank=4), self.array(filt, "allo.conv2d", rank=4)
        n, c, h, w = inp.shape
        f, fc, kh, kw = filt.shape
        if fc != c or kh > h or kw > w:
            raise AlloTypeError(f"allo.conv2d: input {list(inp.shape)} and filter {list(filt.shape)} do not match "
                                "([N, C, H, W] and [F, C, Kh, Kw], Kh <= H, Kw <= W)")

        def product(o, r):
            rows, cols = emit.binary(BinOpKind.ADD, o[2], r[1], loc), emit.binary(BinOpKind.ADD, o[3], r[2], loc)
            src = Load(inp, [o[0], r[0], rows, cols])
            return emit.binary(BinOpKind.MUL, src, Load(filt, [o[1], r[0], r[1], r[2]]), loc)

        return self.contraction((n, f, h - kh + 1, w - kw + 1), (c, kh, kw), self.mul_type(inp, filt), product,
                                loc, band, "conv")

    def pool(self, kind, inp, window, loc, band=None):
        """Max or sum pooling over `window` (an array whose last two dims are the window, or a
        (Kh, Kw) tuple), stride 1, no padding."""
        inp = self.array(inp, f"allo.{kind}", rank=4)
        kh, kw = tuple(window.shape[-2:]) if isinstance(window, Buffer) else tuple(window)
        n, c, h, w = inp.shape
        out = self.arrays.new_temp(inp.dtype, (n, c, h - kh + 1, w - kw + 1), loc, kind)
        self.fill(out, lowest(inp.dtype) if kind == "maxpool" else _zero(inp.dtype), loc)
        op = BinOpKind.MAX if kind == "maxpool" else BinOpKind.ADD

        def body(ivs):
            o, r = ivs[:4], ivs[4:]
            rows, cols = emit.binary(BinOpKind.ADD, o[2], r[0], loc), emit.binary(BinOpKind.ADD, o[3], r[1], loc)
            src = Load(inp, [o[0], o[1], rows, cols])
            v = emit.binary(op, Load(out, list(o)), src, loc)
            return [Store(out, list(o), emit.cast(emit.to_expr(v, inp.dtype, loc), inp.dtype, loc), loc)]

        self.nest(list(out.shape) + [kh, kw], body, loc, band, reduce_from=4)
        return out

    # ------------------------------------------------------------------ row-wise (last axis)
    def rows(self, x, stages, loc, band=None, hint="out"):
        """For every row of x (all axes but the last), run `stages`: a list of
        (scalars_init, body(row_ivs, k, state) -> statements) passes over the last axis.
        Returns the output array."""
        out = self.arrays.new_temp(x.dtype, x.shape, loc, hint)
        state = {}
        for key, init in stages["scalars"]:
            state[key] = Buffer(self.fb.fresh_buffer_name(key), ArrayType(x.dtype, ()), "local", loc=loc)
        lead, n = tuple(x.shape[:-1]), x.shape[-1]
        names = self.arrays.loop_names(len(lead) + 1, "i", band)
        ivs = [IterVar(nm, loc=loc) for nm in names]
        row, k = ivs[:-1], ivs[-1]

        for key, _ in stages["scalars"]:
            self.fb.emit(Alloc(state[key], None, loc))
        inner = [Store(state[key], [], emit.to_expr(init, x.dtype, loc), loc) for key, init in stages["scalars"]]
        for p, make in enumerate(stages["passes"]):
            var = k if p == 0 else IterVar(f"{names[-1]}_{p}" if band else self.fb.fresh_loop_name(f"{names[-1]}_{p}"),
                                           loc=loc)
            inner.append(For(var, Const(0, index), Const(n, index), 1, make(list(row), var, state, out), var.name,
                             {}, loc))
        body = inner
        for d in reversed(range(len(lead))):
            body = [For(ivs[d], Const(0, index), Const(lead[d], index), 1, body, names[d], {}, loc)]
        first = body[0] if lead else next(s for s in body if isinstance(s, For))
        first.attrs.update(self.arrays.band_attr(names, band))
        for s in body:
            self.fb.emit(s)
        return out

    def softmax(self, x, loc, band=None):
        x = self.array(x, "allo.softmax")
        t = x.dtype

        def st(buf, v):
            return Store(buf, [], emit.cast(emit.to_expr(v, t, loc), t, loc), loc)

        def p_max(row, k, s, out):
            return [st(s["mx"], emit.binary(BinOpKind.MAX, Load(s["mx"], []), Load(x, row + [k]), loc))]

        def p_exp(row, k, s, out):
            shifted = emit.binary(BinOpKind.SUB, Load(x, row + [k]), Load(s["mx"], []), loc)
            e = emit.math_call(MathFn.EXP, [shifted], loc)
            return [Store(out, row + [k], emit.cast(e, t, loc), loc),
                    st(s["sm"], emit.binary(BinOpKind.ADD, Load(s["sm"], []), Load(out, row + [k]), loc))]

        def p_div(row, k, s, out):
            q = emit.binary(BinOpKind.DIV, Load(out, row + [k]), Load(s["sm"], []), loc)
            return [Store(out, row + [k], emit.cast(q, t, loc), loc)]

        return self._rowwise(x, [("mx", lowest(t)), ("sm", _zero(t))], [p_max, p_exp, p_div], loc, band, "softmax")

    def layernorm(self, x, gamma, beta, eps, loc, band=None):
        """gamma * (x - mean) / sqrt(var + eps) + beta over the last axis (two passes for the moments)."""
        x = self.array(x, "allo.layernorm")
        t, n = x.dtype, x.shape[-1]
        for what, v in (("gamma", gamma), ("beta", beta)):
            if isinstance(v, Buffer) and tuple(v.shape) != (n,):
                raise AlloTypeError(f"allo.layernorm: {what} must have shape [{n}] (the last axis), got {list(v.shape)}")

        def param(v, k):
            return Load(v, [k]) if isinstance(v, Buffer) else self.fb.scalar(v)

        def st(buf, v):
            return Store(buf, [], emit.cast(emit.to_expr(v, t, loc), t, loc), loc)

        def p_sum(row, k, s, out):
            return [st(s["mean"], emit.binary(BinOpKind.ADD, Load(s["mean"], []), Load(x, row + [k]), loc))]

        def p_var(row, k, s, out):
            mean = emit.binary(BinOpKind.DIV, Load(s["mean"], []), float(n), loc)
            d = emit.binary(BinOpKind.SUB, Load(x, row + [k]), mean, loc)
            return [st(s["var"], emit.binary(BinOpKind.ADD, Load(s["var"], []), emit.binary(BinOpKind.MUL, d, d, loc),
                                             loc))]

        def p_norm(row, k, s, out):
            mean = emit.binary(BinOpKind.DIV, Load(s["mean"], []), float(n), loc)
            var = emit.binary(BinOpKind.DIV, Load(s["var"], []), float(n), loc)
            inv = emit.math_call(MathFn.SQRT, [emit.binary(BinOpKind.ADD, var, eps, loc)], loc)
            g = param(gamma, k)
            centred = emit.binary(BinOpKind.SUB, Load(x, row + [k]), mean, loc)
            y = emit.binary(BinOpKind.DIV, emit.binary(BinOpKind.MUL, g, centred, loc), inv, loc)
            shifted = emit.binary(BinOpKind.ADD, y, param(beta, k), loc)
            return [Store(out, row + [k], emit.cast(emit.to_expr(shifted, t, loc), t, loc), loc)]

        return self._rowwise(x, [("mean", 0.0), ("var", 0.0)], [p_sum, p_var, p_norm], loc, band, "layernorm")

    def _rowwise(self, x, scalars, passes, loc, band, hint):
        return self.rows(x, {"scalars": scalars, "passes": passes}, loc, band, hint)

    # ------------------------------------------------------------------ data movement
    def concat(self, x, y, axis, loc, band=None):
        x, y = self.array(x, "allo.concat"), self.array(y, "allo.concat")
        rank = len(x.shape)
        axis = axis + rank if axis < 0 else axis
        if len(y.shape) != rank or not 0 <= axis < rank or any(
                x.shape[d] != y.shape[d] for d in range(rank) if d != axis):
            raise AlloTypeError(f"allo.concat: shapes {list(x.shape)} and {list(y.shape)} do not concatenate on axis {axis}")
        if x.dtype != y.dtype:
            raise AlloTypeError(f"allo.concat: element types differ ({x.dtype!r} and {y.dtype!r}); cast one first")
        shape = list(x.shape)
        shape[axis] += y.shape[axis]
        out = self.arrays.new_temp(x.dtype, tuple(shape), loc, "concat")
        for src, off in ((x, 0), (y, x.shape[axis])):
            def body(ivs, src=src, off=off):
                dst = list(ivs)
                dst[axis] = emit.binary(BinOpKind.ADD, ivs[axis], off, loc) if off else ivs[axis]
                return [Store(out, dst, Load(src, list(ivs)), loc)]

            self.arrays.loop_nest(src.shape, body, loc, band=band if off == 0 else None)
        return out

    def view(self, x, shape, loc, band=None):
        """A reshaped copy (row-major order), as numpy's reshape."""
        x = self.array(x, "allo.view")
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        if math.prod(shape) != math.prod(x.shape):
            raise AlloTypeError(f"allo.view: cannot reshape {list(x.shape)} into {list(shape)}")
        out = self.arrays.new_temp(x.dtype, shape, loc, "view")

        def body(ivs):
            flat = 0
            for d, iv in enumerate(ivs):
                flat = emit.binary(BinOpKind.ADD, emit.binary(BinOpKind.MUL, flat, shape[d], loc), iv, loc) if d else iv
            src, rest = [], flat
            for d in reversed(range(len(x.shape))):
                src.append(emit.binary(BinOpKind.MOD, rest, x.shape[d], loc) if d else rest)
                if d:
                    rest = emit.binary(BinOpKind.FLOORDIV, rest, x.shape[d], loc)
            return [Store(out, list(ivs), Load(x, list(reversed(src))), loc)]

        self.arrays.loop_nest(shape, body, loc, band=band)
        return out


# ----------------------------------------------------------------------------- call handlers
REQUIRED = object()

# allo.<name>: (parameters with defaults, method of Builtins taking (*values, loc, band))
SIGNATURES = {
    "add": (("lhs", REQUIRED), ("rhs", REQUIRED)),
    "sub": (("lhs", REQUIRED), ("rhs", REQUIRED)),
    "mul": (("lhs", REQUIRED), ("rhs", REQUIRED)),
    "div": (("lhs", REQUIRED), ("rhs", REQUIRED)),
    "copy": (("x", REQUIRED),),
    "relu": (("x", REQUIRED),),
    "gelu": (("x", REQUIRED),),
    "tril": (("x", REQUIRED),),
    "softmax": (("x", REQUIRED),),
    "matmul": (("lhs", REQUIRED), ("rhs", REQUIRED)),
    "bmm": (("lhs", REQUIRED), ("rhs", REQUIRED)),
    "linear": (("X", REQUIRED), ("A", REQUIRED), ("bias", None)),
    "conv2d": (("inp", REQUIRED), ("filter", REQUIRED)),
    "maxpool": (("inp", REQUIRED), ("filter", REQUIRED)),
    "sumpool": (("inp", REQUIRED), ("filter", REQUIRED)),
    "layernorm": (("x", REQUIRED), ("gamma", 1.0), ("beta", 0.0), ("eps", 1e-5)),
    "concat": (("x", REQUIRED), ("y", REQUIRED), ("axis", 0)),
    "view": (("x", REQUIRED), ("shape", REQUIRED)),
    "ones": (("shape", REQUIRED), ("dtype", None)),
    "zeros": (("shape", REQUIRED), ("dtype", None)),
}
NO_NAME = ("ones", "zeros")


def bind_args(fb, node, fname, params, args, kwargs, named=True):
    """Match call arguments to `params` like Python would; `name=` (a band name) is split off.
    Returns (values, band)."""
    kwargs = dict(kwargs)
    band = kwargs.pop("name", None) if named else None
    if band is not None and not (isinstance(band, str) and band.isidentifier()):
        raise fb.error(AlloSyntaxError, f"allo.{fname}(name=...) must be a string that is a valid identifier, "
                       f"got {band!r}", node)
    names = [p for p, _ in params]
    if len(args) > len(params):
        raise fb.error(AlloSyntaxError, f"allo.{fname} takes at most {len(params)} positional argument(s) "
                       f"({', '.join(names)}), got {len(args)}", node)
    values = list(args) + [REQUIRED] * (len(params) - len(args))
    for key, v in kwargs.items():
        if key not in names:
            allowed = ", ".join(names + (["name"] if named else []))
            raise fb.error(AlloSyntaxError, f"allo.{fname}() has no keyword {key!r}; its parameters: {allowed}", node)
        values[names.index(key)] = v
    for k, (p, default) in enumerate(params):
        if values[k] is REQUIRED:
            if default is REQUIRED:
                raise fb.error(AlloSyntaxError, f"allo.{fname}() is missing argument {p!r}", node)
            values[k] = default
    return values, band


def array_handler(fname):
    def handler(d, args, kwargs, node):
        fb = d.fb
        values, band = bind_args(fb, node, fname, SIGNATURES[fname], args, kwargs, fname not in NO_NAME)
        b, loc = Builtins(fb), fb.loc(node)
        if fname in ("add", "sub", "mul", "div"):
            return b.binary(BinOpKind(fname), values[0], values[1], loc, band)
        if fname in ("ones", "zeros"):
            return b.full(values[0], values[1], 1 if fname == "ones" else 0, loc)
        if fname in ("maxpool", "sumpool"):
            return b.pool(fname, values[0], values[1], loc, band)
        return getattr(b, fname)(*values, loc, band=band)

    return handler


def register(builtin, dsl):
    """Register the handlers for `allo.<name>` (called once by calls.register_allo_builtins)."""
    for fname in SIGNATURES:
        builtin(getattr(dsl, fname))(array_handler(fname))
