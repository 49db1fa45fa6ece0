"""Integer-only kernels for quantized transformers: exp/softmax, GELU, LayerNorm, average pooling.

Each kernel takes quantized integers whose real value is `q * S` and integer constants (template
arguments) derived from the scale S on the host by `allo.library.nn.intparams`; it returns integers
and the host knows their output scale. Nothing inside is a float operation, so a quantized model
built from them needs no floating-point hardware. The methods are the ones of I-BERT (Kim et al.
2021), reworked for our types:

- exp(x) for x <= 0: x = -z ln2 + p with p in (-ln2, 0], exp(p) ~ 0.3585 (p + 1.353)^2 + 0.344, and
  exp(x) = exp(p) >> z (`isoftmax` divides by the row sum through one reciprocal per row);
- erf(t) for t >= 0: 1 - 0.2888 (min(t, 1.769) - 1.769)^2 (odd), GELU(x) = x (1 + erf(x / sqrt 2)) / 2;
- LayerNorm with N x - sum(x) (exact, no rounded mean), the variance's integer square root by
  Newton's iteration from a power of two above it, and one reciprocal per row;
- average pooling rounding half up (floor((2 acc + K) / 2K)).

Example::

    c = intparams.isoftmax_params(scale=0.05, bits=8)     # template constants and output scale
    P = nn.isoftmax[int8, int8, 64, 8, *c.targs](S)       # P * c.out_scale ~ softmax(S * 0.05)
"""
from __future__ import annotations

from ...ir.types import int32, int64
from .. import lang as allo  # the public names as kernel code spells them
from ..registry import schedule_for
from .common import OUT_SIZE, output_size, parallel_rows, targ

RECIP_BITS = 30  # fraction bits of the per-row reciprocals of isoftmax


@allo.kernel(template="TI, TO, M, N, U, D, QLN2, QB, QC, ZMAX, K")
def isoftmax(X: "TI[M, N]") -> "TO[M, N]":
    """Softmax over the last axis of `X * S`, returned at scale 2^-K (clamped to 2^K - 1).

    U / D shift the centred input left / right to the working scale S' = S * 2^(D - U); QLN2, QB and
    QC are ln 2 / S', 1.353 / S' and 0.344 / (0.3585 S'^2) rounded; z saturates at ZMAX."""
    Z: TO[M, N]
    E: int32[N]
    for i in range(M):
        mx: TI = X[i, 0]
        for j_max in range(N):
            mx = max(mx, X[i, j_max])
        total: int64 = 0
        for j_exp in range(N):
            x: int32 = max((int32(X[i, j_exp] - mx) << U) >> D, -ZMAX * QLN2)
            z: int32 = (-x) // QLN2
            p: int32 = x + z * QLN2
            e: int32 = ((p + QB) * (p + QB) + QC) >> z
            E[j_exp] = e
            total += e
        r: int64 = (1 << (RECIP_BITS + K)) // total
        for j_norm in range(N):
            Z[i, j_norm] = min((E[j_norm] * r + (1 << (RECIP_BITS - 1))) >> RECIP_BITS, (1 << K) - 1)
    return Z


@schedule_for(isoftmax)
def schedule_isoftmax(s):
    for loop in ("j_max", "j_exp", "j_norm"):
        s.pipeline(loop)
    parallel_rows(s, "i", work=8 * output_size(s))


@allo.kernel(template="TI, TO, M, N, D, QB, QONE")
def igelu(X: "TI[M, N]") -> "TO[M, N]":
    """GELU of `X * S` at the scale S' S_L / 2 (S' = S 2^D, S_L = 0.2888 S'^2 / 2): x' = x >> D,
    t = min(|x'|, QB), L = QONE - (QB - t)^2 (erf(|x| / sqrt 2) / S_L), out = x' (QONE + sign(x) L).
    QB = 1.769 sqrt(2) / S', QONE = 1 / S_L, both rounded."""
    Z: TO[M, N]
    for i, j in allo.grid(M, N):
        x: int32 = X[i, j] >> D
        t: int32 = min(x if x >= 0 else -x, QB)  # a select, not math.absi: Calyx's lowering has no math dialect
        erf: int64 = QONE - (QB - t) * (QB - t)
        if x < 0:
            erf = -erf
        Z[i, j] = x * (QONE + erf)
    return Z


@schedule_for(igelu)
def schedule_igelu(s):
    s.pipeline("j")
    parallel_rows(s, "i", work=8 * output_size(s))


@allo.kernel(template="TI, TG, TO, M, N, QEPS, R, K, ITERS")
def ilayer_norm(X: "TI[M, N]", G: "TG[N]", B: "TO[N]") -> "TO[M, N]":
    """LayerNorm over the last axis: `((x - mean) / std) * 2^K * G + B`, i.e. the float LayerNorm at
    scale 2^-K S_G when G = gamma / S_G and B = beta / (2^-K S_G) (rounded).

    In units of S / N: y = N x - sum(x) exactly, var = sum(y^2) // N + QEPS (eps / (S/N)^2),
    std = isqrt(var) by ITERS Newton steps, then (y * (2^R // std)) >> (R - K)."""
    Z: TO[M, N]
    Y: int64[N]
    for i in range(M):
        total: int64 = 0
        for j_sum in range(N):
            total += X[i, j_sum]
        ss: int64 = 0
        for j_var in range(N):
            y: int64 = N * X[i, j_var] - total
            Y[j_var] = y
            ss += y * y
        v: int64 = ss // N + QEPS
        bl: int32 = 0
        for b in range(63):
            if (v >> b) > 0:
                bl = b + 1
        sd: int64 = 1
        sd = sd << ((bl + 1) >> 1)  # >= sqrt(v): Newton's integer steps then fall to isqrt(v)
        for it in range(ITERS):
            nxt: int64 = (sd + v // sd) >> 1
            if nxt < sd:
                sd = nxt
        r: int64 = (1 << R) // sd
        for j_out in range(N):
            Z[i, j_out] = ((Y[j_out] * r) >> (R - K)) * G[j_out] + B[j_out]
    return Z


@schedule_for(ilayer_norm)
def schedule_ilayer_norm(s):
    for loop in ("j_sum", "j_var", "j_out", "b"):
        s.pipeline(loop)
    parallel_rows(s, "i", work=8 * output_size(s))


@allo.kernel(template="T, TA, B, C, H, W, Kh, Kw, Oh, Ow, Sh, Sw, Ph, Pw")
def iavg_pool2d(X: "T[B, C, H, W]") -> "T[B, C, Oh, Ow]":
    """Integer mean over each Kh x Kw window (zero padding counted, as torch's default), rounded half
    up: floor((2 sum + Kh Kw) / (2 Kh Kw)); the sum accumulates in TA. Same scale in and out."""
    Z: T[B, C, OUT_SIZE[H, Kh, Sh, Ph, 1, Oh], OUT_SIZE[W, Kw, Sw, Pw, 1, Ow]]  # checks Oh, Ow
    for n, c, oh, ow in allo.grid(B, C, Oh, Ow):
        acc: TA = 0
        for kh, kw in allo.reduction(Kh, Kw):
            if Ph + Pw == 0:
                acc += X[n, c, oh * Sh + kh, ow * Sw + kw]
            elif oh * Sh + kh >= Ph and oh * Sh + kh < H + Ph and ow * Sw + kw >= Pw and ow * Sw + kw < W + Pw:
                acc += X[n, c, oh * Sh + kh - Ph, ow * Sw + kw - Pw]
        Z[n, c, oh, ow] = (2 * acc + Kh * Kw) // (2 * Kh * Kw)
    return Z


@schedule_for(iavg_pool2d)
def schedule_iavg_pool2d(s):
    s.pipeline("kw")
    parallel_rows(s, "c", work=targ(s, "B") * targ(s, "C") * targ(s, "Oh") * targ(s, "Ow") * targ(s, "Kh") * targ(s, "Kw"))


__all__ = ["isoftmax", "igelu", "ilayer_norm", "iavg_pool2d"]
