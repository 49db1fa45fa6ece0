"""2-D convolution with stride, zero padding, dilation and groups (torch.nn.functional.conv2d).

Template arguments carry every shape: output sizes Oh, Ow must be
`(H + 2*Ph - Dh*(Kh-1) - 1) // Sh + 1` (and likewise for W), as torch computes them.
With padding, the input is first copied into a zero-padded local `Xp`, so the main loop nest is
affine without conditionals (the usual HLS form, and what reuse_at needs).

Example::

    Y = nn.conv2d[float32, 1, 3, 8, 32, 32, 3, 3, 32, 32, 1, 1, 1, 1, 1, 1, 1](X, Wt, b)
"""
from __future__ import annotations

from .. import lang as allo  # the public names as kernel code spells them
from ..registry import schedule_for
from .common import OUT_SIZE, parallel_rows, targ


@allo.kernel(template="T, B, Cin, Cout, H, W, Kh, Kw, Oh, Ow, Sh, Sw, Ph, Pw, Dh, Dw, G")
def conv2d(X: "T[B, Cin, H, W]", Wt: "T[Cout, Cin // G, Kh, Kw]", b: "T[Cout]") -> "T[B, Cout, Oh, Ow]":
    """Grouped, strided, dilated, zero-padded 2-D convolution (NCHW, weight [Cout, Cin/G, Kh, Kw])."""
    if Ph + Pw == 0:
        Xp = X
    else:
        Xp: T[B, Cin, H + 2 * Ph, W + 2 * Pw] = 0
        for pn, pc, ph, pw in allo.grid(B, Cin, H, W):
            Xp[pn, pc, ph + Ph, pw + Pw] = X[pn, pc, ph, pw]
    Z: T[B, Cout, OUT_SIZE[H, Kh, Sh, Ph, Dh, Oh], OUT_SIZE[W, Kw, Sw, Pw, Dw, Ow]]  # checks Oh, Ow
    if Kh == 3 and Kw == 3 and Sh == 1 and Sw == 1 and Dh == 1 and Dw == 1:
        # The 3x3 unit-stride case with the window written out: constant row/column offsets
        # make the input a stencil, so the schedule can build line and window buffers (reuse_at).
        for n, g, co, oh, ow in allo.grid(B, G, Cout // G, Oh, Ow):
            acc: T = b[g * (Cout // G) + co]
            for ci in allo.reduction(Cin // G):
                acc += Xp[n, g * (Cin // G) + ci, oh, ow] * Wt[g * (Cout // G) + co, ci, 0, 0]
                acc += Xp[n, g * (Cin // G) + ci, oh, ow + 1] * Wt[g * (Cout // G) + co, ci, 0, 1]
                acc += Xp[n, g * (Cin // G) + ci, oh, ow + 2] * Wt[g * (Cout // G) + co, ci, 0, 2]
                acc += Xp[n, g * (Cin // G) + ci, oh + 1, ow] * Wt[g * (Cout // G) + co, ci, 1, 0]
                acc += Xp[n, g * (Cin // G) + ci, oh + 1, ow + 1] * Wt[g * (Cout // G) + co, ci, 1, 1]
                acc += Xp[n, g * (Cin // G) + ci, oh + 1, ow + 2] * Wt[g * (Cout // G) + co, ci, 1, 2]
                acc += Xp[n, g * (Cin // G) + ci, oh + 2, ow] * Wt[g * (Cout // G) + co, ci, 2, 0]
                acc += Xp[n, g * (Cin // G) + ci, oh + 2, ow + 1] * Wt[g * (Cout // G) + co, ci, 2, 1]
                acc += Xp[n, g * (Cin // G) + ci, oh + 2, ow + 2] * Wt[g * (Cout // G) + co, ci, 2, 2]
            Z[n, g * (Cout // G) + co, oh, ow] = acc
    else:
        for n, g, co, oh, ow in allo.grid(B, G, Cout // G, Oh, Ow):
            acc: T = b[g * (Cout // G) + co]
            for ci, kh, kw in allo.reduction(Cin // G, Kh, Kw):
                acc += Xp[n, g * (Cin // G) + ci, oh * Sh + kh * Dh, ow * Sw + kw * Dw] * Wt[g * (Cout // G) + co, ci, kh, kw]
            Z[n, g * (Cout // G) + co, oh, ow] = acc
    return Z


@schedule_for(conv2d)
def schedule_conv2d(s):
    """3x3 unit stride: line buffer over rows (`reuse_at(Xp, "oh")`), then a window buffer
    (`reuse_at(line, "ow")`), both partitioned along the window, pipelining the channel loop. Other shapes: pipeline the innermost
    window loop `kw`. The padding copy is pipelined along its rows."""
    padded = targ(s, "Ph") + targ(s, "Pw") > 0
    if padded:
        s.pipeline("pw")
    window = tuple(targ(s, p) for p in ("Kh", "Kw", "Sh", "Sw", "Dh", "Dw"))
    if window == (3, 3, 1, 1, 1, 1):
        line = s.reuse_at(s.Xp if padded else s.X, "oh")
        win = s.reuse_at(line, "ow")
        s.partition(line, allo.Partition.Complete, dim=2)
        s.partition(win, allo.Partition.Complete, dim=2)
        s.partition(win, allo.Partition.Complete, dim=3)
        s.pipeline("ci")
    else:
        s.pipeline("kw")
        # (the 3x3 form's line buffers are shared along oh: it stays serial)
        macs = targ(s, "B") * targ(s, "Cout") * targ(s, "Oh") * targ(s, "Ow") * targ(s, "Kh") * targ(s, "Kw")
        parallel_rows(s, "oh", work=macs * targ(s, "Cin") // targ(s, "G"))
