"""`allo.verify(s1, s2)`: do two schedules compute the same function? (upstream Allo's name)

allo checks it by differential testing: both schedules are built for LLVM and run on the same
random inputs (`trials` sets, seeded); the answer is True when every result and every written
argument agrees (exactly for integers and fixed point, to `rtol` for floats). Schedules with
different signatures are not equivalent. This finds wrong schedules quickly; it is a test, not a
proof.

Example::

    s = allo.customize(gemm); s.reorder("k", "j")
    assert allo.verify(s, allo.customize(gemm))
"""
from __future__ import annotations

import numpy as np

from .ir.types import Fixed, Float, Int, UFixed


def _random_input(p, rng):
    t = p.dtype
    shape = tuple(p.shape)
    if isinstance(t, Float):
        return rng.uniform(-1, 1, size=shape).astype(t.np_dtype)
    if isinstance(t, (Fixed, UFixed)):
        lo = 0.0 if isinstance(t, UFixed) else -1.0
        return rng.uniform(lo, 1.0, size=shape)
    bits = min(t.bits, 16)  # small values: index-like arguments stay in range more often
    lo = -(1 << (bits - 1)) if isinstance(t, Int) else 0
    hi = (1 << (bits - 1)) if isinstance(t, Int) else (1 << bits)
    out = rng.integers(lo, hi, size=shape)
    return out.astype(t.np_dtype) if shape else int(out)


def _signature(s):
    f = s.top_func
    return [(p.kind, p.type) for p in f.params], list(f.result_types)


def _same(a, b, rtol):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        return bool(np.allclose(a, b, rtol=rtol, atol=rtol, equal_nan=True))
    return bool(np.array_equal(a, b))


def verify(s1, s2, trials: int = 3, seed: int = 0, rtol: float = 1e-5) -> bool:
    """True when schedules `s1` and `s2` give the same results on `trials` random input sets."""
    if _signature(s1) != _signature(s2):
        return False
    m1, m2 = s1.build(), s2.build()
    rng = np.random.default_rng(seed)
    for _ in range(trials):
        args = [_random_input(p, rng) for p in s1.top_func.params]
        a1 = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        a2 = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        r1, r2 = m1(*a1), m2(*a2)
        r1 = r1 if isinstance(r1, tuple) else (r1,)
        r2 = r2 if isinstance(r2, tuple) else (r2,)
        if not all(_same(x, y, rtol) for x, y in zip(r1, r2)):
            return False
        if not all(_same(x, y, rtol) for x, y in zip(a1, a2) if isinstance(x, np.ndarray)):
            return False
    return True


__all__ = ["verify"]
