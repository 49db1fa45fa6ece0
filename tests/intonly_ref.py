"""numpy references of the integer-only kernels (allo.library.nn.intonly), written from their
docstrings in Python integers (exact), for the tests of test_intonly_kernels.py and test_intonly_import.py."""
import math

import numpy as np

RECIP_BITS = 30


def isoftmax(x, up, down, qln2, qb, qc, zmax, k):
    x = np.asarray(x, dtype=np.int64)
    out = np.zeros_like(x)
    for i, row in enumerate(x):
        d = np.maximum(((row - row.max()) << up) >> down, -zmax * qln2)
        z = (-d) // qln2
        p = d + z * qln2
        e = ((p + qb) ** 2 + qc) >> z
        r = (1 << (RECIP_BITS + k)) // int(e.sum())
        out[i] = np.minimum((e * r + (1 << (RECIP_BITS - 1))) >> RECIP_BITS, (1 << k) - 1)
    return out


def igelu(x, down, qb, qone):
    x = np.asarray(x, dtype=np.int64) >> down
    t = np.minimum(np.abs(x), qb)
    erf = qone - (qb - t) ** 2
    erf = np.where(x < 0, -erf, erf)
    return x * (qone + erf)


def isqrt_newton(v, iters):
    """The kernel's square root: Newton from 2^ceil(bitlen / 2), `iters` steps, never increasing."""
    sd = 1 << ((int(v).bit_length() + 1) >> 1)
    for _ in range(iters):
        nxt = (sd + (v // sd if sd else 0)) >> 1
        if nxt < sd:
            sd = nxt
    return sd


def ilayer_norm(x, g, b, qeps, r, k, iters):
    x = np.asarray(x, dtype=np.int64)
    n = x.shape[1]
    out = np.zeros_like(x)
    for i, row in enumerate(x):
        y = n * row - int(row.sum())
        v = int((y * y).sum()) // n + qeps
        sd = isqrt_newton(v, iters)
        rr = (1 << r) // sd if sd else 0
        out[i] = ((y * rr) >> (r - k)) * np.asarray(g, np.int64) + np.asarray(b, np.int64)
    return out


def iavg_pool2d(x, kh, kw, sh, sw, ph, pw):
    x = np.asarray(x, dtype=np.int64)
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    bsz, c, h, w = xp.shape
    oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
    out = np.zeros((bsz, c, oh, ow), dtype=np.int64)
    for i in range(oh):
        for j in range(ow):
            acc = xp[:, :, i * sh:i * sh + kh, j * sw:j * sw + kw].sum(axis=(2, 3))
            out[:, :, i, j] = (2 * acc + kh * kw) // (2 * kh * kw)
    return out
