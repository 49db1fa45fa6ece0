"""2-D convolution with stride, zero padding, dilation and groups (torch.nn.functional.conv2d).

Template arguments carry every shape: output sizes Oh, Ow must be
`(H + 2*Ph - Dh*(Kh-1) - 1) // Sh + 1` (and likewise for W), as torch computes them.
With padding, the input is first copied into a zero-padded local `Xp`, so the main loop nest is
affine without conditionals (the usual HLS form, and what reuse_at needs).

Example::

    Y = nn.conv2d[float32, 1, 3, 8, 32, 32, 3, 3, 32, 32, 1, 1, 1, 1, 1, 1, 1](X, Wt, b)
"""
from __future__ import annotations

import allo

from ..registry import schedule_for
from .common import targ, try_step


@allo.kernel(template="T, B, Cin, Cout, H, W, Kh, Kw, Oh, Ow, Sh, Sw, Ph, Pw, Dh, Dw, G")
def conv2d(X: "T[B, Cin, H, W]", Wt: "T[Cout, Cin // G, Kh, Kw]", b: "T[Cout]") -> "T[B, Cout, Oh, Ow]":
    """Grouped, strided, dilated, zero-padded 2-D convolution (NCHW, weight [Cout, Cin/G, Kh, Kw])."""
    if Ph + Pw == 0:
        Xp = X
    else:
        Xp: T[B, Cin, H + 2 * Ph, W + 2 * Pw] = 0
        for pn, pc, ph, pw in allo.grid(B, Cin, H, W):
            Xp[pn, pc, ph + Ph, pw + Pw] = X[pn, pc, ph, pw]
    Z: T[B, Cout, Oh, Ow]
    for n, g, co, oh, ow in allo.grid(B, G, Cout // G, Oh, Ow):
        acc: T = b[g * (Cout // G) + co]
        for ci, kh, kw in allo.reduction(Cin // G, Kh, Kw):
            acc += Xp[n, g * (Cin // G) + ci, oh * Sh + kh * Dh, ow * Sw + kw * Dw] * Wt[g * (Cout // G) + co, ci, kh, kw]
        Z[n, g * (Cout // G) + co, oh, ow] = acc
    return Z


@schedule_for(conv2d)
def schedule_conv2d(s):
    """Line buffer over rows (`reuse_at(Xp, "oh")`) when legal (unit stride and dilation); then
    pipeline the innermost reduction loop; the padding copy is pipelined along its rows."""
    if targ(s, "Ph") + targ(s, "Pw") > 0:
        s.pipeline("pw")
    if (targ(s, "Sh"), targ(s, "Sw"), targ(s, "Dh"), targ(s, "Dw")) == (1, 1, 1, 1):
        target = s.Xp if targ(s, "Ph") + targ(s, "Pw") > 0 else s.X
        try_step(s.reuse_at, target, "oh")
    s.pipeline("kw")
