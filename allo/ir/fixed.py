"""The numpy side of allo's integer and fixed-point rules (one place, shared by I/O and tests).

Fixed(W, F) is stored as a W-bit two's-complement integer holding value * 2**F.
Quantisation truncates toward minus infinity; overflow wraps (ap_fixed defaults).

Example::

    quantize(np.array([1.3, -1.3]), Fixed(8, 2))   # array([ 1.25, -1.5 ])

Types are read through their attributes (`bits`, `frac`, `signed`, `np_dtype`), so this module
imports nothing of allo: `allo.ir.types` builds its numpy conversions on it.
"""
from __future__ import annotations

import math

import numpy as np


def container_bits(bits: int) -> int:
    """Width of the memory word holding `bits` bits: 8, 16, 32, 64, then multiples of 64."""
    for c in (8, 16, 32, 64):
        if bits <= c:
            return c
    return -(-bits // 64) * 64


def wrap_int(values, bits: int, signed: bool) -> np.ndarray:
    """Wrap integer values (any numpy int array or Python ints) to `bits` bits."""
    v = np.asarray(values).astype(np.int64, copy=False) if np.asarray(values).dtype != np.uint64 else np.asarray(values)
    if bits == 64:
        u = v.astype(np.uint64)
        return u.astype(np.int64) if signed else u
    mask = np.uint64((1 << bits) - 1)
    u = v.astype(np.uint64) & mask
    if signed:
        sign = np.uint64(1 << (bits - 1))
        return (u.astype(np.int64) ^ np.int64(int(sign))) - np.int64(int(sign))
    return u.astype(np.int64)


def to_raw(x, t) -> np.ndarray:
    """Float values -> raw scaled integers of fixed type `t` (floor, then wrap), in the container dtype."""
    signed = t.signed
    scaled = np.floor(np.asarray(x, dtype=np.float64) * (2.0 ** t.frac))
    # Values beyond int64 cannot wrap exactly; clip them first (they are far outside any W<=64 range anyway).
    scaled = np.clip(scaled, -(2.0 ** 63), 2.0 ** 63 - 1)
    raw = wrap_int(scaled.astype(np.int64), t.bits, signed)
    dt = np.dtype(f"{'int' if signed else 'uint'}{container_bits(t.bits)}")
    return raw.astype(dt)


def from_raw(raw, t) -> np.ndarray:
    """Raw container integers of fixed type `t` -> float64 values (sign-extends at width)."""
    signed = t.signed
    v = wrap_int(np.asarray(raw), t.bits, signed)
    return v.astype(np.float64) / (2.0 ** t.frac)


def quantize(x, t) -> np.ndarray:
    """Round-trip float values through fixed type `t` (what a kernel sees as input)."""
    return from_raw(to_raw(x, t), t)


def float_to_int(x, bits: int, signed: bool) -> int:
    """allo's float -> integer rule (docs/language.md section 4), exact at any width: truncate
    toward zero, wrap to `bits` bits (two's complement); NaN and +-inf give 0.

    Example: `float_to_int(1e19, 64, True)` -> -8446744073709551616."""
    x = float(x)
    if not math.isfinite(x):
        return 0
    v = int(x) & ((1 << bits) - 1)
    return v - (1 << bits) if signed and v >> (bits - 1) else v


def float_to_fixed_raw(x, bits: int, frac: int, signed: bool) -> int:
    """Raw integer of float `x` converted to a fixed type: floor(x * 2**frac) computed in float64
    (a product beyond float64 counts as inf), then `float_to_int`.

    Example: `float_to_fixed_raw(-1.3, 8, 2, True)` -> -6 (the raw of -1.5)."""
    try:
        s = math.ldexp(float(x), frac)
    except OverflowError:
        return 0
    return float_to_int(math.floor(s) if math.isfinite(s) else s, bits, signed)


def int_wrap_array(x, t) -> np.ndarray:
    """Wrap an integer array to allo integer type `t` and return it in t's numpy dtype."""
    if t.np_dtype == np.bool_:
        return np.asarray(x).astype(np.bool_)
    return wrap_int(np.asarray(x), t.bits, t.signed).astype(t.np_dtype)


__all__ = ["container_bits", "wrap_int", "to_raw", "from_raw", "quantize", "int_wrap_array", "float_to_int",
           "float_to_fixed_raw"]
