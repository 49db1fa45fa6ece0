"""Pooling, padding and resampling: max/avg pooling (1-D and 2-D, dilation, ceil_mode,
count_include_pad, divisor_override), adaptive average pooling, F.pad (constant, reflect, replicate,
circular) and upsample/interpolate (nearest, bilinear with or without align_corners).

Plain pooling (no dilation, floor mode) is the library's `nn.max_pool2d`/`nn.avg_pool2d`. The other
forms pad the input explicitly (with -inf for max, zeros for average) so every window is in bounds,
then run a generated window loop; averages multiply by a per-output table of 1/divisor computed
with torch's rules. Reflect/replicate/circular padding and resampling read the input through
constant index tables (`X[b, c, H0[i], W0[j]]`), computed at import time like torch does.
"""
from __future__ import annotations

import numpy as np

from ..codegen import literal, loop_text
from ..graph import Const
from ..layout import Buf, View, numel, plan_loops
from .common import elem_type, pair
from .table import torch_op


# ---------------------------------------------------------------------------- pooling
@torch_op("aten.max_pool2d", "aten.max_pool2d_with_indices", "aten.max_pool1d", "aten.max_pool1d_with_indices")
def max_pool(ctx, node, a):
    out = _pool(ctx, node, a, "max")
    return (out, None) if node.key.endswith("with_indices") else out


@torch_op("aten.avg_pool2d", "aten.avg_pool1d")
def avg_pool(ctx, node, a):
    return _pool(ctx, node, a, "avg")


def _pool(ctx, node, a, kind):
    one_d = node.key.split(".")[-1].startswith(("max_pool1d", "avg_pool1d"))
    v = ctx.view(a["self"])
    if v.rank == (2 if one_d else 3):
        v = v.unsqueeze(0)
    if one_d:
        v = v.unsqueeze(2)
    k = [1] + pair(a["kernel_size"], 1) if one_d else pair(a["kernel_size"])
    s = [1] + pair(a.get("stride") or k[1:], 1) if one_d else pair(a.get("stride") or k)
    p = [0] + pair(a.get("padding", 0), 1) if one_d else pair(a.get("padding", 0))
    d = [1] + pair(a.get("dilation", 1), 1) if one_d else pair(a.get("dilation", 1))
    b, c, h, w = v.sizes
    oh, ow = (1, node.shape[-1]) if one_d else tuple(node.shape[-2:])
    plain = all(x == 1 for x in d) and (oh, ow) == ((h + 2 * p[0] - k[0]) // s[0] + 1, (w + 2 * p[1] - k[1]) // s[1] + 1)
    divisor = a.get("divisor_override")
    exclude_pad = not a.get("count_include_pad", True) and any(p)
    if plain and (kind == "max" or (divisor is None and not exclude_pad)):
        xname = ctx.arr(v, (b, c, h, w))
        kernel = "max_pool2d" if kind == "max" else "avg_pool2d"
        return ctx.nn(kernel, [elem_type(ctx), b, c, h, w, k[0], k[1], oh, ow, s[0], s[1], p[0], p[1]], [xname],
                      node.shape, (b, c, oh, ow))
    table = None
    if kind == "avg":
        recip = _avg_reciprocals((h, w), k, s, p, (oh, ow), not exclude_pad, divisor)
        table = ctx.arr(Const(_torch(recip), f"{ctx.hint}_divisors"), (oh, ow))
    need = [(o - 1) * st + dl * (kk - 1) + 1 for o, st, dl, kk in zip((oh, ow), s, d, k)]
    hi = [max(0, n - size - lo) for n, size, lo in zip(need, (h, w), p)]
    padded = _constant_pad(ctx, v, [(0, 0), (0, 0), (p[0], hi[0]), (p[1], hi[1])],
                           "NEG_INF" if kind == "max" else literal(0.0))
    return _window_loop(ctx, padded, (b, c, oh, ow), k, s, d, kind, table, node.shape)


def _window_loop(ctx, x: Buf, out_shape, k, s, d, kind, table, out_sizes) -> View:
    T = elem_type(ctx)
    read = f"X[b, c, i * {s[0]} + p * {d[0]}, j * {s[1]} + q * {d[1]}]"
    init, step = ("NEG_INF", f"max(acc, {read})") if kind == "max" else ("0.0", f"acc + {read}")
    result = "acc" if table is None else "acc * R[i, j]"
    body = [f"acc: {T!r} = {init}", f"for p, q in allo.reduction({k[0]}, {k[1]}):", f"    acc = {step}",
            f"Y[b, c, i, j] = {result}"]
    lines = loop_text(list(out_shape), ["b", "c", "i", "j"], body)
    params = [("X", x)] + ([("R", ctx.prog.bufs[table])] if table is not None else [])
    buf = ctx.prog.helper_call(f"{kind}_pool", params, lines, out_shape, T, ctx.hint)
    return View.whole(buf, tuple(out_sizes))


def _avg_reciprocals(size, k, s, p, out, include_pad, divisor):
    """1/divisor per output position, with torch's avg_pool2d rules (ceil_mode windows are clipped
    at the padded border; count_include_pad=False counts only input elements)."""
    recip = np.zeros(out, dtype=np.float32)
    for i in range(out[0]):
        for j in range(out[1]):
            span = []
            for o, n, kk, st, pd in ((i, size[0], k[0], s[0], p[0]), (j, size[1], k[1], s[1], p[1])):
                start = o * st - pd
                end = min(start + kk, n + pd)
                span.append((end - start, min(end, n) - max(start, 0)))
            count = span[0][0] * span[1][0] if include_pad else span[0][1] * span[1][1]
            recip[i, j] = 1.0 / (divisor if divisor else count)
    return recip


def _torch(array):
    import torch

    return torch.from_numpy(np.ascontiguousarray(array))


@torch_op("aten.adaptive_avg_pool2d", "aten._adaptive_avg_pool2d")
def adaptive_avg_pool2d(ctx, node, a):
    v = ctx.view(a["self"])
    h, w = v.sizes[-2:]
    oh, ow = node.shape[-2:]
    if h % oh or w % ow:  # uneven windows: a product with a constant averaging matrix
        pool = np.zeros((h * w, oh * ow), dtype=np.float32)
        for i in range(oh):
            for j in range(ow):
                r0, r1 = (i * h) // oh, -(-((i + 1) * h) // oh)
                c0, c1 = (j * w) // ow, -(-((j + 1) * w) // ow)
                for r in range(r0, r1):
                    pool[r * w + c0:r * w + c1, i * ow + j] = 1.0 / ((r1 - r0) * (c1 - c0))
        rows = numel(v.sizes[:-2])
        xname = ctx.arr(v, (rows, h * w))
        pname = ctx.arr(Const(_torch(pool), f"{ctx.hint}_window"), (h * w, oh * ow))
        return ctx.nn("matmul", [elem_type(ctx), rows, h * w, oh * ow], [xname, pname], node.shape, (rows, oh * ow))
    kh, kw = h // oh, w // ow
    lead = v.sizes[:-2]
    v4 = v.reshape((1,) * (2 - len(lead)) + tuple(lead) + (h, w)) if len(lead) < 2 else v
    b, c = v4.sizes[:2]
    xname = ctx.arr(v4, (b, c, h, w))
    return ctx.nn("avg_pool2d", [elem_type(ctx), b, c, h, w, kh, kw, oh, ow, kh, kw, 0, 0], [xname], node.shape,
                  (b, c, oh, ow))


# ---------------------------------------------------------------------------- padding
@torch_op("aten.constant_pad_nd", "aten.pad", "aten.reflection_pad1d", "aten.reflection_pad2d",
          "aten.replication_pad1d", "aten.replication_pad2d")
def pad(ctx, node, a):
    """F.pad: constant mode fills the result and copies the input into its interior; reflect,
    replicate and circular read the input through index tables."""
    key = node.key.split(".")[-1]
    mode = {"reflection_pad1d": "reflect", "reflection_pad2d": "reflect", "replication_pad1d": "replicate",
            "replication_pad2d": "replicate"}.get(key, a.get("mode") or "constant")
    v = ctx.view(a["self"])
    pads = list(a.get("pad", a.get("padding")))
    if mode == "constant":
        value = a.get("value") or 0.0
        for k in range(len(pads) // 2):  # negative pads crop: a view
            dim = v.rank - 1 - k
            lo, hi = pads[2 * k], pads[2 * k + 1]
            if lo < 0 or hi < 0:
                v = v.slice(dim, max(0, -lo), v.sizes[dim] - max(0, -hi))
                pads[2 * k], pads[2 * k + 1] = max(lo, 0), max(hi, 0)
        widths = [(0, 0)] * (v.rank - len(pads) // 2) + [(pads[2 * k], pads[2 * k + 1])
                                                          for k in reversed(range(len(pads) // 2))]
        return View.whole(_constant_pad(ctx, v, widths, literal(value)))
    if mode not in ("reflect", "replicate", "circular"):
        raise ctx.error(f"padding mode {mode!r} is not supported (constant, reflect, replicate, circular)")
    tables = {}
    for k in range(len(pads) // 2):
        dim = v.rank - 1 - k
        tables[dim] = _pad_index(v.sizes[dim], pads[2 * k], pads[2 * k + 1], mode, ctx)
    return remap(ctx, v, tables, tuple(node.shape))


def _constant_pad(ctx, v: View, widths, value: str) -> Buf:
    """A [.., n + lo + hi, ..] array filled with `value` around a copy of v."""
    out_sizes = tuple(n + lo + hi for n, (lo, hi) in zip(v.sizes, widths))
    dst = View.whole(Buf("Y", out_sizes, v.dtype))
    for dim, (lo, _) in enumerate(widths):
        dst = dst.slice(dim, lo, lo + v.sizes[dim])
    names = [f"f{d}" for d in range(len(out_sizes))]
    lines = loop_text(list(out_sizes), names, [f"Y[{', '.join(names)}] = {value}"])
    extents, lnames, idx = plan_loops(v.sizes, [dst, v])
    lines += loop_text(extents, lnames, [f"Y[{', '.join(idx[0])}] = X[{', '.join(idx[1])}]"])
    return ctx.prog.helper_call("pad", [("X", v.buf)], lines, out_sizes, v.dtype, ctx.hint)


def _pad_index(n, lo, hi, mode, ctx):
    out = []
    for o in range(n + lo + hi):
        i = o - lo
        if mode == "reflect":
            if lo >= n or hi >= n:
                raise ctx.error(f"reflect padding ({lo}, {hi}) must be smaller than the dimension size {n}")
            i = -i if i < 0 else (2 * (n - 1) - i if i >= n else i)
        elif mode == "replicate":
            i = min(max(i, 0), n - 1)
        else:
            i %= n
        out.append(i)
    return np.asarray(out, dtype=np.int64)


def remap(ctx, x, tables: dict, out_sizes) -> View:
    """`Y[.., i_d, ..] = X[.., T_d[i_d], ..]` for the dims d that have a constant index table."""
    v = ctx.view(x)
    xbuf = ctx.laid_out(v)
    names = [f"i{d}" for d in range(len(out_sizes))]
    params, idx = [("X", xbuf)], list(names)
    for dim, table in sorted(tables.items()):
        pname = f"I{dim}"
        params.append((pname, ctx.prog.bufs[ctx.arr(Const(_torch(table), f"{ctx.hint}_index{dim}"))]))
        idx[dim] = f"{pname}[{names[dim]}]"
    body = loop_text(list(out_sizes), names, [f"Y[{', '.join(names)}] = X[{', '.join(idx)}]"])
    buf = ctx.prog.helper_call("remap", params, body, tuple(out_sizes), v.dtype, ctx.hint)
    return View.whole(buf)


# ---------------------------------------------------------------------------- resampling
@torch_op("aten.upsample_nearest2d", "aten._upsample_nearest_exact2d", "aten.upsample_nearest1d")
def upsample_nearest(ctx, node, a):
    v = ctx.view(a.get("input", a.get("self")))
    spatial = len(node.shape) - 2
    scales = _scales(a, spatial)
    exact = "exact" in node.key
    tables = {}
    for k in range(spatial):
        dim = 2 + k
        n_in, n_out = v.sizes[dim], node.shape[dim]
        scale = _scale_value(scales[k], n_in, n_out)
        src = np.arange(n_out, dtype=np.float32)
        src = np.floor((src + np.float32(0.5)) * scale) if exact else np.floor(src * scale)
        tables[dim] = np.minimum(src.astype(np.int64), n_in - 1)
    return remap(ctx, v, tables, tuple(node.shape))


@torch_op("aten.upsample_bilinear2d")
def upsample_bilinear(ctx, node, a):
    v = ctx.view(a.get("input", a.get("self")))
    if v.rank != 4:
        raise ctx.error("bilinear upsampling needs a [N, C, H, W] input")
    align = bool(a.get("align_corners"))
    scales = _scales(a, 2)
    idx, lam = [], []
    for k in range(2):
        n_in, n_out = v.sizes[2 + k], node.shape[2 + k]
        i0, i1, l0, l1 = _linear_taps(n_in, n_out, align, scales[k])
        idx.append((i0, i1))
        lam.append((l0, l1))
    xbuf = ctx.laid_out(v)
    params = [("X", xbuf)]
    for name, arr in (("H0", idx[0][0]), ("H1", idx[0][1]), ("W0", idx[1][0]), ("W1", idx[1][1]),
                      ("A0", lam[0][0]), ("A1", lam[0][1]), ("B0", lam[1][0]), ("B1", lam[1][1])):
        params.append((name, ctx.prog.bufs[ctx.arr(Const(_torch(arr), f"{ctx.hint}_{name.lower()}"))]))

    def read(h, w):
        return f"X[b, c, {h}[i], {w}[j]]"

    expr = (f"A0[i] * (B0[j] * {read('H0', 'W0')} + B1[j] * {read('H0', 'W1')}) + "
            f"A1[i] * (B0[j] * {read('H1', 'W0')} + B1[j] * {read('H1', 'W1')})")
    body = loop_text(list(node.shape), ["b", "c", "i", "j"], [f"Y[b, c, i, j] = {expr}"])
    buf = ctx.prog.helper_call("bilinear", params, body, tuple(node.shape), v.dtype, ctx.hint)
    return View.whole(buf)


def _scales(a, n):
    if "scale_factors" in a:
        sf = a.get("scale_factors")
        return list(sf) if sf else [None] * n
    keys = ["scales_h", "scales_w"] if n == 2 else ["scales"]
    return [a.get(k) for k in keys]


def _scale_value(scale, n_in, n_out):
    """torch's compute_scales_value: 1/scale_factor when given, else in/out (float32)."""
    if scale is not None and scale > 0:
        return np.float32(1.0 / scale)
    return np.float32(n_in) / np.float32(n_out)


def _linear_taps(n_in, n_out, align_corners, scale):
    """Source taps (i0, i1) and weights (l0, l1) per output index, as torch's upsample_bilinear2d."""
    if align_corners:
        ratio = np.float32((n_in - 1) / (n_out - 1)) if n_out > 1 else np.float32(0)
    else:
        ratio = _scale_value(scale, n_in, n_out)
    dst = np.arange(n_out, dtype=np.float32)
    real = ratio * dst if align_corners else np.maximum(ratio * (dst + np.float32(0.5)) - np.float32(0.5), 0)
    real = real.astype(np.float32)
    i0 = real.astype(np.int64)
    i1 = i0 + (i0 < n_in - 1)
    l1 = (real - i0.astype(np.float32)).astype(np.float32)
    l0 = (np.float32(1) - l1).astype(np.float32)
    return i0, i1, l0, l1
