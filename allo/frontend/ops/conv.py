"""Convolutions: conv1d/conv2d (grouped, dilated, padded, 'same') through the library's `nn.conv2d`,
and transposed convolutions (ConvTranspose1d/2d) as a zero-stuffed input convolved with the flipped
kernel.

A 1-D convolution is a 2-D one with height 1. A transposed convolution with stride s inserts s-1
zeros between input pixels, pads by dil*(k-1)-pad on each side (+output_padding at the end) and
runs a stride-1 convolution with the kernel flipped and its in/out channels swapped per group.
"""
from __future__ import annotations

from ..codegen import literal, loop_text
from ..graph import Const
from ..layout import Buf, View, plan_loops
from .common import elem_type, flat_param, pair, zeros
from .table import torch_op


@torch_op("aten.conv2d", "aten.conv1d", "aten.convolution", "aten._convolution")
def conv(ctx, node, a):
    if a.get("transposed"):
        return _transposed(ctx, node, a, a.get("output_padding", 0))
    x, w = ctx.view(a["input"]), a["weight"]
    rank = len(ctx.sizes(w))
    if rank not in (3, 4):
        raise ctx.error(f"only 1-D and 2-D convolutions are supported (weight shape {list(ctx.sizes(w))})")
    x, w = as_2d(ctx, x, w, rank)
    stride, dil = per_dim(a.get("stride", 1), rank), per_dim(a.get("dilation", 1), rank)
    kh, kw = ctx.sizes(w)[2:]
    pad = padding(ctx, a.get("padding", 0), rank, dil, (kh, kw))
    return conv2d_call(ctx, x, w, a.get("bias"), stride, pad, dil, a.get("groups", 1), tuple(node.shape))


def conv2d_call(ctx, x: View, w, bias, stride, pad, dil, groups, out_sizes):
    """`nn.conv2d[...]` on a [B, Cin, H, W] view and [Cout, Cin/G, Kh, Kw] weights."""
    cout, cin_g, kh, kw = ctx.sizes(w)
    bsz, cin, h, wd = x.sizes
    oh = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    xname = ctx.arr(x, (bsz, cin, h, wd))
    wname = ctx.arr(w, (cout, cin_g, kh, kw))
    bname = flat_param(ctx, bias, cout, "bias", zeros)
    targs = [elem_type(ctx), bsz, cin, cout, h, wd, kh, kw, oh, ow, stride[0], stride[1], pad[0], pad[1], dil[0],
             dil[1], groups]
    return ctx.nn("conv2d", targs, [xname, wname, bname], out_sizes, (bsz, cout, oh, ow))


def as_2d(ctx, x: View, w, rank):
    """Batched 2-D operands: an unbatched input gets a batch dim, a 1-D conv a height of 1."""
    if x.rank == rank - 1:
        x = x.unsqueeze(0)
    if rank == 3:
        x = x.unsqueeze(2)
        w = Const(w.tensor.unsqueeze(2), w.name) if isinstance(w, Const) else ctx.view(w).unsqueeze(2)
    return x, w


def per_dim(v, rank):
    """stride/dilation/padding as [h, w]; a 1-D conv's value applies to w (h is 1 / 0 padding)."""
    if rank == 3:
        return [1] + pair(v, 1)
    return pair(v, 2)


def padding(ctx, pad, rank, dil, ks):
    if isinstance(pad, str):
        if pad == "valid":
            return [0, 0]
        tot = [d * (k - 1) for d, k in zip(dil, ks)]
        if any(t % 2 for t in tot):
            raise ctx.error("padding='same' with an even kernel extent (asymmetric padding) is not supported")
        return [t // 2 for t in tot]
    if rank == 3:
        return [0] + pair(pad, 1)
    return pair(pad, 2)


@torch_op("aten.conv_transpose2d", "aten.conv_transpose1d")
def conv_transpose(ctx, node, a):
    return _transposed(ctx, node, a, a.get("output_padding", 0))


def _transposed(ctx, node, a, output_padding):
    x, w = ctx.view(a["input"]), a["weight"]
    if not isinstance(w, Const):
        raise ctx.error("transposed convolution needs constant weights (a parameter)")
    rank = w.tensor.dim()
    if rank not in (3, 4):
        raise ctx.error(f"only 1-D and 2-D transposed convolutions are supported (weight shape {list(w.tensor.shape)})")
    x, w = as_2d(ctx, x, w, rank)
    stride, dil = per_dim(a.get("stride", 1), rank), per_dim(a.get("dilation", 1), rank)
    pad, extra = per_dim(a.get("padding", 0), rank), per_dim(output_padding, rank)
    if rank == 3:
        pad[0] = extra[0] = 0
    groups = a.get("groups", 1)
    cin, cout_g, kh, kw = w.tensor.shape
    flipped = w.tensor.flip(2, 3).reshape(groups, cin // groups, cout_g, kh, kw).transpose(1, 2)
    weight = Const(flipped.reshape(groups * cout_g, cin // groups, kh, kw).contiguous(), f"{w.name}_flipped")
    lo = [d * (k - 1) - p for d, k, p in zip(dil, (kh, kw), pad)]
    hi = [low + e for low, e in zip(lo, extra)]
    stuffed = _zero_stuff(ctx, x, stride, lo, hi)
    return conv2d_call(ctx, stuffed, weight, a.get("bias"), [1, 1], [0, 0], dil, groups, tuple(node.shape))


def _zero_stuff(ctx, x: View, stride, lo, hi) -> View:
    """[B, C, H, W] -> zeros with x[h, w] at (lo + h*s, lo + w*s); negative lo/hi crop the result."""
    b, c, h, w = x.sizes
    full = [(n - 1) * s + 1 + max(p, 0) + max(q, 0) for n, s, p, q in zip((h, w), stride, lo, hi)]
    out_sizes = (b, c, *full)
    dst = View.whole(Buf("Y", out_sizes, x.dtype))
    for d, (n, s, p) in enumerate(zip((h, w), stride, lo)):
        start = max(p, 0)
        dst = dst.slice(2 + d, start, start + (n - 1) * s + 1, s)
    names = [f"f{d}" for d in range(4)]
    lines = loop_text(list(out_sizes), names, [f"Y[{', '.join(names)}] = {literal(0.0)}"])

    extents, lnames, idx = plan_loops(x.sizes, [dst, x])
    lines += loop_text(extents, lnames, [f"Y[{', '.join(idx[0])}] = X[{', '.join(idx[1])}]"])
    buf = ctx.prog.helper_call("zero_stuff", [("X", x.buf)], lines, out_sizes, x.dtype, ctx.hint + "_stuffed")
    v = View.whole(buf)
    for d, (p, q) in enumerate(zip(lo, hi)):  # negative padding: crop
        if p < 0 or q < 0:
            n = v.sizes[2 + d]
            v = v.slice(2 + d, max(-p, 0), n - max(-q, 0))
    return v
