"""Host-side constants of the integer-only kernels (allo.library.nn.intonly) for a given input scale.

Each `*_params` function takes the real scale of the kernel's input (real = q * scale) and returns
an `IntParams`: the template constants in kernel order (`targs`, after the types and shapes), the
output scale, and any integer arrays the kernel takes (LayerNorm's gamma and beta). It checks that
every intermediate fits the kernel's declared widths and raises AlloError naming what to change
when it cannot.

Example::

    p = isoftmax_params(0.05, bits=8)
    Y = nn.isoftmax[int8, int8, 4, 16, *p.targs](X)      # Y * p.out_scale ~ softmax(X * 0.05)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...errors import AlloError

LN2 = math.log(2.0)
EXP_A, EXP_B, EXP_C = 0.3585, 1.353, 0.344  # exp(p) ~ EXP_A (p + EXP_B)^2 + EXP_C on (-ln2, 0]
ERF_A, ERF_B = 0.2888, 1.769  # erf(u) ~ 1 - ERF_A (min(u, ERF_B) - ERF_B)^2 for u >= 0
EXP_LN2_STEPS = 1 << 10  # working scale of exp: ln 2 spans about this many integer steps
NEWTON_ITERS = 6  # from below 2 sqrt(v), six steps reach isqrt(v) for every v < 2^63 (tests check)


@dataclass(frozen=True)
class IntParams:
    """Template constants (`targs`), output scale and constant arrays of one integer kernel."""

    targs: tuple
    out_scale: float
    arrays: dict = field(default_factory=dict)


def _check_scale(scale, kernel):
    if not (isinstance(scale, (int, float, np.floating)) and math.isfinite(scale) and scale > 0):
        raise AlloError(f"{kernel}: the input scale must be a positive finite number, got {scale!r}")


def isoftmax_params(scale, bits=8, out_bits=8) -> IntParams:
    """Constants of `nn.isoftmax` for `bits`-bit inputs at `scale`: (U, D, QLN2, QB, QC, ZMAX, K);
    the output is at scale 2^-K, K = out_bits - 1 (0 .. 2^K - 1)."""
    _check_scale(scale, "isoftmax")
    shift = round(math.log2(scale * EXP_LN2_STEPS / LN2))
    up = max(0, min(shift, 30 - bits))
    down = max(0, -shift)
    work = scale * 2.0 ** (down - up)
    qln2 = max(1, round(LN2 / work))
    qb = round(EXP_B / work)
    qc = round(EXP_C / (EXP_A * work * work))
    emax = qb * qb + qc  # below 2^23: the working scale keeps ln 2 at about 2^10 steps
    if qln2 < 16:
        raise AlloError(f"isoftmax: the scale {scale!r} is too coarse for the integer exp ({qln2} steps per ln 2 "
                        f"with {bits}-bit inputs shifted left by {up}); requantize the logits to a finer scale")
    zmax = emax.bit_length() + 1
    k = out_bits - 1
    return IntParams((up, down, qln2, qb, qc, zmax, k), 2.0 ** -k)


def igelu_params(scale, bits=8) -> IntParams:
    """Constants of `nn.igelu` for `bits`-bit inputs at `scale`: (D, QB, QONE); the int32 output is
    at `out_scale`. D drops input bits until x (QONE + erf) fits 31 bits."""
    _check_scale(scale, "igelu")
    qmax = 2 ** (bits - 1)
    for down in range(bits):
        work = scale * 2.0 ** down
        sl = ERF_A * work * work / 2.0
        qone = round(1.0 / sl)
        qb = round(ERF_B * math.sqrt(2.0) / work)
        if (qmax >> down) * 2 * qone < 2 ** 31 and qb * qb < 2 ** 62:
            return IntParams((down, qb, qone), work * sl / 2.0)
    raise AlloError(f"igelu: no input shift makes x (1 + erf) fit 31 bits at scale {scale!r}")


def ilayer_norm_params(scale, n, gamma, beta, eps=1e-5, bits=8, frac=12, gamma_bits=12) -> IntParams:
    """Constants of `nn.ilayer_norm` over rows of `n` `bits`-bit values at `scale`:
    (QEPS, R, K, ITERS) and the arrays "G" (gamma at S_G = max|gamma| / (2^gamma_bits - 1), int16)
    and "B" (beta at the output scale 2^-K S_G, int32)."""
    _check_scale(scale, "ilayer_norm")
    gamma = np.asarray(gamma, dtype=np.float64).reshape(-1)
    beta = np.asarray(beta, dtype=np.float64).reshape(-1)
    gmax = float(np.abs(gamma).max()) if gamma.size else 0.0
    sg = gmax / (2 ** gamma_bits - 1) if gmax > 0 else 1.0
    g = np.floor(gamma / sg + 0.5).astype(np.int64)
    ybits = (n * 2 ** bits).bit_length()  # |N x - sum(x)| <= N 2^bits
    if 2 * ybits + n.bit_length() > 62:
        raise AlloError(f"ilayer_norm: rows of {n} {bits}-bit values overflow the int64 variance; use narrower "
                        "inputs or shorter rows")
    r = 62 - ybits
    k = frac
    out_scale = sg * 2.0 ** -k
    b = np.floor(beta / out_scale + 0.5)
    # |y| / isqrt(var) <= 2 sqrt(N) even for a tiny variance (isqrt rounds down), so |x_hat| < 2^K that much
    bound = 2 * (math.isqrt(n) + 1) * 2 ** k * int(np.abs(g).max(initial=0)) + float(np.abs(b).max(initial=0))
    if bound >= 2 ** 31 or r < k:
        raise AlloError(f"ilayer_norm: the int32 output overflows (bound {bound:.3g}); lower frac= (now {frac}) or "
                        "gamma_bits=")
    qeps = round(eps / (scale / n) ** 2)
    return IntParams((min(qeps, 2 ** 62), r, k, NEWTON_ITERS), out_scale,
                     {"G": g.astype(np.int16), "B": b.astype(np.int32)})


__all__ = ["IntParams", "isoftmax_params", "igelu_params", "ilayer_norm_params"]
