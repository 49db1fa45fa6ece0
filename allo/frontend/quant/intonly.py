"""Integer-only lowering of the ops between quantized layers (`from_pytorch(..., integer_only=True)`).

With integer_only the ops that an int8 import runs in float32 on dequantized values get integer
kernels instead (allo.library.nn.intonly, constants from intparams): softmax -> `nn.isoftmax`
(int8 probabilities at scale 2^-7), GELU -> `nn.igelu` (int32), LayerNorm -> `nn.ilayer_norm`
(int32), average pooling -> `nn.iavg_pool2d` (same scale); additions and subtractions of two
quantized tensors rescale both operands to the calibrated output scale by integer multiplies and one
rounding shift (int16 for int8 models, like I-BERT's wider residual stream); multiplying or dividing
by a constant changes only the scale. Integer values of another width or scale entering a layer
are requantized by an integer multiply and shift (`requantize`); a float model input is quantized
once on the host (at the residual width `wide_bits` when an add reads it, `residual_inputs`) and
requantized for readers of another width. An op
with no integer form is a FrontendError naming it, so the core never holds a float op.

Example::

    mod = from_pytorch(block, [x], precision="int8", integer_only=True, calibration_data=cal)
    "f32" in str(mod.core.module)       # False: the core computes in integers only
"""
from __future__ import annotations

import math

import numpy as np

from ...ir.types import Int, int16, int32
from ...library.nn import intparams
from ..graph import Const
from ..layout import View
from ..ops.common import pair
from .config import LAYOUT_OPS, LayerPrecision, op_kind, scale_for
from .kernels import _const


def int_operand(plan, ctx, x, lp):
    """(View of integers, scale) for x: itself when it is an integer value with a scale, else x
    quantized to Int(lp.bits) (a float model input: the quantizer runs on the host)."""
    v = ctx.view(x)
    if id(v.buf) in plan.scales and isinstance(v.dtype, Int):
        return v, plan.scales[id(v.buf)]
    return plan.to_int(ctx, v, lp.bits)


def wide_bits(bits):
    """Width of the residual stream (additions, model inputs) for `bits`-bit layers: 2 x, at most 32."""
    return min(2 * bits, 32)


def residual_inputs(graph) -> set:
    """Names of the model inputs that an add / sub reads (directly or through layout ops): they
    enter an integer-only core at the residual width (`wide_bits`), the others at the layer width."""

    producers = {tn.name: tn for tn in graph.nodes}
    inputs = {i[1] for i in graph.inputs}  # (fx node, name, shape, dtype)
    found = set()
    for tn in graph.nodes:
        if op_kind(tn.op) not in ("add", "sub"):
            continue
        for a in tn.args:
            name = getattr(a, "name", None)
            while name in producers and producers[name].op in LAYOUT_OPS and producers[name].args:
                name = getattr(producers[name].args[0], "name", None)
            if name in inputs:
                found.add(name)
    return found


def multiplier(real, bits=30):
    """(m, shift) with m / 2^shift ~ real > 0 and m below 2^(bits+1)."""
    shift = int(min(62, max(0, bits - math.ceil(math.log2(max(real, 1e-30))))))
    return int(math.floor(real * 2.0 ** shift + 0.5)), shift


def requantize(plan, ctx, v, s_in, T, s_out):
    """Integers v at scale s_in as T at s_out: clamp((v * m + 2^(shift-1)) >> shift), symmetric."""
    m, shift = multiplier(s_in / s_out)
    qmax = 2 ** (T.bits - 1) - 1
    rnd = (1 << (shift - 1)) if shift > 0 else 0
    out = ctx.ew("requant", lambda q: f"{T!r}(min(max((int64({q}) * {m} + {rnd}) >> {shift}, {-qmax}), {qmax}))",
                 [v], out_sizes=v.sizes, dtype=T, cast=False)
    plan.scales[id(out.buf)] = s_out
    plan._inherit(out, v)
    return out


def lower(plan, ctx, tn, a, lp):
    """The integer value of node tn, or None when its op has no integer form here."""
    fn = HANDLERS.get(op_kind(tn.op))
    return fn(plan, ctx, tn, a, lp) if fn is not None else None


def _softmax(plan, ctx, tn, a, lp):
    if "log_softmax" in tn.op:
        return None
    v, s = int_operand(plan, ctx, a["self"], lp)
    dim = a["dim"] % v.rank
    perm = [d for d in range(v.rank) if d != dim] + [dim]
    pv = v.permute(perm) if dim != v.rank - 1 else v
    name, (m, n) = ctx.rows(pv)
    p = intparams.isoftmax_params(s, v.dtype.bits, lp.bits)
    T = Int(lp.bits)
    out = ctx.nn("isoftmax", [v.dtype, T, m, n, *p.targs], [name], pv.sizes, (m, n), dtype=T)
    if dim != v.rank - 1:
        out = out.permute([perm.index(d) for d in range(v.rank)])
    return _done(plan, tn, lp, out, v, s, p.out_scale)


def _gelu(plan, ctx, tn, a, lp):
    v, s = int_operand(plan, ctx, a["self"], lp)
    name, (m, n) = ctx.rows(v)
    p = intparams.igelu_params(s, v.dtype.bits)
    out = ctx.nn("igelu", [v.dtype, int32, m, n, *p.targs], [name], v.sizes, (m, n), dtype=int32)
    return _done(plan, tn, lp, out, v, s, p.out_scale)


def _layer_norm(plan, ctx, tn, a, lp):
    d = int(np.prod(a["normalized_shape"]))
    v, s = int_operand(plan, ctx, a["input"], lp)
    gamma, beta = (_param(a.get(k), d, fill) for k, fill in (("weight", 1.0), ("bias", 0.0)))
    if gamma is None or beta is None:
        return None
    p = intparams.ilayer_norm_params(s, d, gamma, beta, float(a.get("eps", 1e-5)), bits=v.dtype.bits)
    name, (m, _) = ctx.rows(v, d)
    g = ctx.arr(_const(plan, ctx, p.arrays["G"], "gamma_q", int16), (d,))
    b = ctx.arr(_const(plan, ctx, p.arrays["B"], "beta_q", int32), (d,))
    out = ctx.nn("ilayer_norm", [v.dtype, int16, int32, m, d, *p.targs], [name, g, b], tn.shape, (m, d), dtype=int32)
    return _done(plan, tn, lp, out, v, s, p.out_scale)


def _param(x, d, fill):

    if x is None:
        return np.full(d, fill)
    if isinstance(x, Const):
        return x.tensor.detach().double().reshape(-1).numpy()
    return None  # computed at run time: no integer form


def _add_sub(plan, ctx, tn, a, lp):
    x, y = a.get("self"), a.get("other")
    if not (isinstance(x, View) and isinstance(y, View)) or a.get("alpha", 1) != 1:
        return None
    wide = LayerPrecision("int", wide_bits(plan.config.default.bits))  # model inputs enter at this width
    (qa, sa), (qb, sb) = int_operand(plan, ctx, x, wide), int_operand(plan, ctx, y, wide)
    T = Int(wide.bits)
    qmax = 2 ** (T.bits - 1) - 1
    sy = scale_for(plan.range_of(tn).absmax, qmax)
    ma, shift = multiplier(max(sa, sb) / sy)
    ma, mb = (int(math.floor(sx / sy * 2.0 ** shift + 0.5)) for sx in (sa, sb))
    op = "-" if op_kind(tn.op) == "sub" else "+"
    rnd = (1 << (shift - 1)) if shift > 0 else 0
    out = ctx.ew("iadd", lambda p, q: f"{T!r}(min(max((int64({p}) * {ma} {op} int64({q}) * {mb} + {rnd}) >> {shift}, "
                 f"{-qmax}), {qmax}))", [qa, qb], out_sizes=tn.shape, dtype=T, cast=False)
    return _done(plan, tn, lp, out, qa, sa, sy)


def _scale_by_constant(plan, ctx, tn, a, lp):
    """x * c or x / c for a constant c: the same integers at scale s * c (negated when c < 0)."""
    c = ctx.scalar(a.get("other"))
    x = a.get("self")
    if c is None or not isinstance(x, View) or c == 0 or "rounding_mode" in a and a["rounding_mode"] is not None:
        return None
    v, s = int_operand(plan, ctx, x, lp)
    factor = float(c) if op_kind(tn.op) == "mul" else 1.0 / float(c)
    fn = (lambda q: q) if factor > 0 else (lambda q: f"-{q}")
    out = ctx.ew("rescale", fn, [v], out_sizes=tn.shape, dtype=v.dtype, cast=False)
    return _done(plan, tn, lp, out, v, s, s * abs(factor))


def _avg_pool(plan, ctx, tn, a, lp):

    v, s = int_operand(plan, ctx, a["self"], lp)
    if op_kind(tn.op) == "adaptive_avg_pool2d":
        (h, w), (oh, ow) = v.sizes[-2:], tn.shape[-2:]
        if h % oh or w % ow or v.rank != 4:
            return None
        k, st, p = [h // oh, w // ow], [h // oh, w // ow], [0, 0]
    else:
        k = pair(a["kernel_size"])
        st, p = pair(a.get("stride") or k), pair(a.get("padding", 0))
        plain = (not a.get("ceil_mode", False) and a.get("divisor_override") is None and a.get("count_include_pad", True)
                 and v.rank == 4)
        if not plain or len(k) != 2:
            return None
    b, c, h, w = v.sizes
    oh, ow = tn.shape[-2:]
    name = ctx.arr(v, (b, c, h, w))
    out = ctx.nn("iavg_pool2d", [v.dtype, int32, b, c, h, w, k[0], k[1], oh, ow, st[0], st[1], p[0], p[1]], [name],
                 tn.shape, (b, c, oh, ow), dtype=v.dtype)
    return _done(plan, tn, lp, out, v, s, s)


def _done(plan, tn, lp, out, v, s_in, s_out):
    plan.scales[id(out.buf)] = s_out
    plan.record(tn, lp, {"input": v.dtype, "output": out.dtype}, {"input": plan.buf_ranges.get(id(v.buf)),
                                                                   "output": plan.range_of(tn)},
                {"input": s_in, "output": s_out}, out=out)
    return out


HANDLERS = {"softmax": _softmax, "_softmax": _softmax, "special_softmax": _softmax, "gelu": _gelu,
            "layer_norm": _layer_norm, "add": _add_sub, "sub": _add_sub, "mul": _scale_by_constant,
            "div": _scale_by_constant, "avg_pool2d": _avg_pool, "adaptive_avg_pool2d": _avg_pool,
            "_adaptive_avg_pool2d": _avg_pool}
