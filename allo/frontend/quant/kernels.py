"""Quantized linear / conv / matmul nodes: `nn.qlinear`, `nn.qconv2d`, `nn.qmatmul`, `nn.qbmm`.

Integer layers: the input is quantized per tensor (or already is), weights per output channel
(symmetric, round to nearest), the bias is an accumulator-typed integer at scale s_x * s_w[c], and
the accumulator is requantized to the output's calibrated scale by an integer multiply and a
rounding shift, `q_y = clamp((acc * M[c] + 2^(S-1)) >> S)` with M[c] / 2^S = s_x s_w[c] / s_y:
integer arithmetic only, so LLVM and the HLS C simulation agree bit for bit.

Fixed-point layers: the input in its fixed type (float inputs converted to the layer's type),
weights rounded to the weight type, an exact accumulator (or the configured one), and the kernel
converts to the output type (floor, wrap) once at the end.

Unsupported shapes (transposed convolutions, broadcast batched products) return None: the node
then runs in float32 on dequantized inputs.
"""
from __future__ import annotations

import math

import numpy as np

from ...ir.types import Fixed, Int, int32, int64
from ..graph import Const
from ..layout import numel
from ..ops.conv import as_2d, padding, per_dim
from .config import fixed_type, scale_for


def lower_compute(plan, ctx, tn, a, lp, kind):
    """The quantized value of a linear / conv / matmul node, or None (then it runs in float)."""
    if kind == "linear":
        if tn.op == "aten.addmm":
            x, w, b = a["mat1"], a["mat2"], a["self"]
            if not (isinstance(w, Const) and isinstance(b, Const) and a.get("beta", 1) == 1 and a.get("alpha", 1) == 1):
                return None
            w = Const(w.tensor.t().contiguous(), f"{w.name}_t")
            b = Const(b.tensor.reshape(-1), b.name)
        else:
            x, w, b = a["input"], a["weight"], a.get("bias")
        if not isinstance(w, Const) or (b is not None and not isinstance(b, Const)):
            return None
        return _linear(plan, ctx, tn, ctx.view(x), w, b, lp)
    if kind == "conv":
        return _conv(plan, ctx, tn, a, lp)
    return _matmul(plan, ctx, tn, a, lp)


# ---------------------------------------------------------------------------- layer types
def _layer_types(plan, ctx, tn, x, lp, wabs, k):
    """(x converted, TI, TW, TA, TO, input scale) for a layer of reduction length k."""
    family = lp.family
    if family == "auto":
        family = "int" if _int8_ok(plan, x) else "fixed"
    if family == "int":
        bits = lp.bits
        xq, sx = plan.to_int(ctx, x, bits)
        TI = Int(bits)
        TA = lp.accum or (int32 if bits <= 8 else int64)
        return "int", xq, TI, TI, TA, TA, sx
    bits = lp.bits if lp.family == "fixed" else 16
    TI = x.dtype if isinstance(x.dtype, Fixed) and lp.act is None else (lp.act or plan.fixed_for(x, bits))
    xq = plan.to_fixed(ctx, x, TI)
    TW = lp.weight or fixed_type(wabs, bits)
    TO = lp.act or fixed_type(plan.range_of(tn).absmax, bits)
    TA = lp.accum or exact_accumulator(TI, TW, k)
    return "fixed", xq, TI, TW, TA, TO, None


def exact_accumulator(TI, TW, k):
    """A Fixed type holding any sum of k products exactly (at most 64 bits: above that the integer
    bits are kept and fraction bits dropped)."""
    bits = TI.bits + TW.bits + max(1, math.ceil(math.log2(max(k, 2))))
    frac = TI.frac + TW.frac
    if bits > 64:
        frac, bits = max(0, frac - (bits - 64)), 64
    return Fixed(bits, frac)


def _int8_ok(plan, x):
    """"auto": int8 unless the activation's calibrated peak is far above its typical size (then
    int8 steps would swallow most values) - a crest factor above 16."""
    r = plan.buf_ranges.get(id(x.buf))
    return r is None or r.rms == 0 or r.absmax / r.rms <= 16


def _weights(tensor, family, TW, bits, per_channel_axis=0):
    """Quantized weights: (numpy array of stored values, per-channel scales or None)."""
    w = tensor.detach().double().numpy()
    if family == "int":
        qmax = 2 ** (bits - 1) - 1
        axes = tuple(i for i in range(w.ndim) if i != per_channel_axis)
        absmax = np.abs(w).max(axis=axes) if w.size else np.zeros(w.shape[per_channel_axis])
        scales = np.where(absmax > 0, absmax / qmax, 1.0)
        shape = [1] * w.ndim
        shape[per_channel_axis] = -1
        q = np.clip(np.floor(w / scales.reshape(shape) + 0.5), -qmax, qmax).astype(np.int8 if bits <= 8 else np.int16)
        return q, scales
    return fixed_round(w, TW), None


def fixed_round(w, T):
    """Values rounded to the nearest multiple of 2^-frac and clamped to T's range (float64)."""
    step = 2.0 ** -T.frac
    lo, hi = -(2.0 ** (T.bits - T.frac - 1)), 2.0 ** (T.bits - T.frac - 1) - step
    return np.clip(np.floor(w / step + 0.5) * step, lo, hi)


def _const(plan, ctx, array, name, T):
    import torch

    c = Const(torch.from_numpy(np.ascontiguousarray(array)), f"{ctx.hint}_{name}")
    plan.weight_types[id(c)] = T
    return c


def _bias(plan, ctx, b, n, family, TA, sx, sw):
    bias = b.tensor.detach().double().reshape(n).numpy() if b is not None else np.zeros(n)
    if family == "int":
        lim = 2.0 ** (TA.bits - 1) - 1
        q = np.clip(np.floor(bias / (sx * sw) + 0.5), -lim, lim).astype(np.int64 if TA.bits > 32 else np.int32)
        return _const(plan, ctx, q, "bias_q", TA)
    return _const(plan, ctx, fixed_round(bias, TA), "bias_q", TA)


# ---------------------------------------------------------------------------- requantization
def requant(plan, ctx, tn, acc, mult, lp, channel_shape):
    """acc (integer accumulators at scale `mult` per channel) -> Int(bits) at the node's scale."""
    bits = lp.bits if lp.family == "int" else 8
    qmax = 2 ** (bits - 1) - 1
    sy = scale_for(plan.range_of(tn).absmax, qmax)
    real = np.asarray(mult, dtype=np.float64) / sy
    shift = int(min(62, max(0, 30 - math.ceil(math.log2(max(real.max(), 1e-30))))))
    m = np.floor(real * 2.0 ** shift + 0.5).astype(np.int64)
    rnd = (1 << (shift - 1)) if shift > 0 else 0
    wide = "int64" if acc.dtype.bits <= 32 else "int128"
    T = Int(bits)
    if m.size == 1:
        fn = (lambda q: f"{T!r}(min(max(({wide}({q} * {int(m.reshape(-1)[0])}) + {rnd}) >> {shift}, {-qmax}), {qmax}))")
        operands = [acc]
    else:
        fn = (lambda q, mm: f"{T!r}(min(max(({wide}({q} * {mm}) + {rnd}) >> {shift}, {-qmax}), {qmax}))")
        operands = [acc, _const(plan, ctx, m.astype(np.int32).reshape(channel_shape), "requant_m", int32)]
    out = ctx.ew("requant", fn, operands, out_sizes=tn.shape, dtype=T, cast=False)
    plan.scales[id(out.buf)] = sy
    return out, sy


# ---------------------------------------------------------------------------- layers
def _linear(plan, ctx, tn, x, w, b, lp):
    n, k = tuple(w.tensor.shape)
    wabs = float(w.tensor.abs().max()) if w.tensor.numel() else 0.0
    family, xq, TI, TW, TA, TO, sx = _layer_types(plan, ctx, tn, x, lp, wabs, k)
    wq, sw = _weights(w.tensor, family, TW, getattr(TI, "bits", 8))
    wname = ctx.arr(_const(plan, ctx, wq, "weight_q", TW), (n, k))
    bname = ctx.arr(_bias(plan, ctx, b, n, family, TA, sx, sw), (n,))
    xname, (m, _) = ctx.rows(xq, k)
    acc = ctx.nn("qlinear", [TI, TW, TA, TO, m, n, k], [xname, wname, bname], tn.shape, (m, n), dtype=TO)
    return _finish(plan, ctx, tn, lp, family, acc, x, (TI, TW, TA, TO), sx, sw, (n,), wabs)


def _finish(plan, ctx, tn, lp, family, acc, x, types, sx, sw, channel_shape, wabs):
    TI, TW, TA, TO = types
    ranges = {"input": plan.buf_ranges.get(id(x.buf)), "output": plan.range_of(tn)}
    if family == "int":
        out, sy = requant(plan, ctx, tn, acc, sx * sw, lp, channel_shape)
        plan.record(tn, lp, {"input": TI, "weight": TW, "accum": TA, "output": out.dtype}, ranges,
                    {"input": sx, "weight": (float(np.min(sw)), float(np.max(sw))), "output": sy}, out=out)
        return out
    plan.record(tn, lp, {"input": TI, "weight": TW, "accum": TA, "output": TO}, ranges, out=acc)
    return acc


def _conv(plan, ctx, tn, a, lp):
    if a.get("transposed"):
        return None
    x, w = ctx.view(a["input"]), a["weight"]
    b = a.get("bias")
    if not isinstance(w, Const) or (b is not None and not isinstance(b, Const)) or w.tensor.dim() not in (3, 4):
        return None
    rank = w.tensor.dim()
    x, w = as_2d(ctx, x, w, rank)
    stride, dil = per_dim(a.get("stride", 1), rank), per_dim(a.get("dilation", 1), rank)
    cout, cin_g, kh, kw = tuple(w.tensor.shape)
    pad = padding(ctx, a.get("padding", 0), rank, dil, (kh, kw))
    groups = a.get("groups", 1)
    bsz, cin, h, wd = x.sizes
    oh = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    wabs = float(w.tensor.abs().max()) if w.tensor.numel() else 0.0
    family, xq, TI, TW, TA, TO, sx = _layer_types(plan, ctx, tn, x, lp, wabs, cin_g * kh * kw)
    wq, sw = _weights(w.tensor, family, TW, getattr(TI, "bits", 8))
    xname = ctx.arr(xq, (bsz, cin, h, wd))
    wname = ctx.arr(_const(plan, ctx, wq, "weight_q", TW), (cout, cin_g, kh, kw))
    bname = ctx.arr(_bias(plan, ctx, b, cout, family, TA, sx, sw), (cout,))
    targs = [TI, TW, TA, TO, bsz, cin, cout, h, wd, kh, kw, oh, ow, stride[0], stride[1], pad[0], pad[1], dil[0],
             dil[1], groups]
    acc = ctx.nn("qconv2d", targs, [xname, wname, bname], tn.shape, (bsz, cout, oh, ow), dtype=TO)
    channel_shape = (cout,) + (1,) * (len(tn.shape) - 2)
    return _finish(plan, ctx, tn, lp, family, acc, x, (TI, TW, TA, TO), sx, sw, channel_shape, wabs)


def _matmul(plan, ctx, tn, a, lp):
    """Products of two activations (per-tensor scales) or of an activation and a constant matrix
    (per-column weight scales)."""
    x, y = a["self"], a.get("other", a.get("mat2"))
    if isinstance(y, Const) and y.tensor.dim() == 2:
        # x @ W == linear with W^T: per output column scales, no bias
        w = Const(y.tensor.t().contiguous(), f"{y.name}_t")
        return _linear(plan, ctx, tn, ctx.view(x), w, None, lp)
    av, bv = ctx.view(x), ctx.view(y)
    if av.rank < 2 or bv.rank < 2 or (bv.rank > 2 and av.sizes[:-2] != bv.sizes[:-2]):
        return None
    m, k = av.sizes[-2:]
    n = bv.sizes[-1]
    family = "int" if lp.family == "int" or (lp.family == "auto" and _int8_ok(plan, av)) else "fixed"
    if family == "int":
        aq, sa = plan.to_int(ctx, av, lp.bits)
        bq, sb = plan.to_int(ctx, bv, lp.bits)
        TI = TW = Int(lp.bits)
        TA = TO = lp.accum or (int32 if lp.bits <= 8 else int64)
    else:
        bits = lp.bits if lp.family == "fixed" else 16
        TI, TW = (v.dtype if isinstance(v.dtype, Fixed) and lp.act is None else (lp.act or plan.fixed_for(v, bits))
                  for v in (av, bv))
        aq, bq = plan.to_fixed(ctx, av, TI), plan.to_fixed(ctx, bv, TW)
        TO = lp.act or fixed_type(plan.range_of(tn).absmax, bits)
        TA = lp.accum or exact_accumulator(TI, TW, k)
        sa = sb = None
    batch = tuple(av.sizes[:-2])
    if bv.rank == 2:
        aname, (rows, _) = ctx.rows(aq, k)
        acc = ctx.nn("qmatmul", [TI, TW, TA, TO, rows, k, n], [aname, ctx.arr(bq, (k, n))], tn.shape, (rows, n),
                     dtype=TO)
    else:
        nb = numel(batch)
        acc = ctx.nn("qbmm", [TI, TW, TA, TO, nb, m, k, n], [ctx.arr(aq, (nb, m, k)), ctx.arr(bq, (nb, k, n))],
                     tn.shape, (nb, m, n), dtype=TO)
    if family == "int":
        return _finish(plan, ctx, tn, lp, "int", acc, av, (TI, TW, TA, TO), sa, np.array([sb]), (1,), 0.0)
    return _finish(plan, ctx, tn, lp, "fixed", acc, av, (TI, TW, TA, TO), None, None, None, 0.0)


__all__ = ["lower_compute", "requant", "exact_accumulator", "fixed_round"]
