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


def saturates(t) -> bool:
    """True for a fixed-point type whose overflow mode saturates (sat, sat_zero, sat_sym)."""
    return getattr(t, "overflow", "wrap") != "wrap" and hasattr(t, "frac")


def raw_limits(t) -> tuple:
    """(lowest, highest) raw integer a value of fixed type t saturates to (sat_sym: -highest)."""
    hi = (1 << (t.bits - 1)) - 1 if t.signed else (1 << t.bits) - 1
    lo = -(1 << (t.bits - 1)) if t.signed else 0
    return (-hi if t.overflow == "sat_sym" and t.signed else lo), hi


def saturate_scaled(scaled, t) -> np.ndarray:
    """Floored raw values (float64, +-inf allowed, no NaN) saturated as t's overflow mode does, in
    t's container dtype: clamped to t's range (sat), to [-max, max] (sat_sym), or 0 when out of
    range (sat_zero). Exact at 64 bits too (the limits are not float64 values there)."""
    arr = np.asarray(scaled, dtype=np.float64)
    lo, hi = raw_limits(t)
    top = float(1 << (t.bits - 1)) if t.signed else float(1 << t.bits)  # hi + 1, exact
    bottom = -top if t.signed else 0.0
    over, under = arr >= top, arr < bottom
    if t.overflow == "sat_sym" and t.signed:
        under |= arr == bottom
    dt = np.dtype(f"{'int' if t.signed else 'uint'}{container_bits(t.bits)}")
    out = np.where(over | under, 0.0, arr).astype(dt)
    if t.overflow != "sat_zero":
        out[over] = hi
        out[under] = lo
    return out


def to_raw(x, t) -> np.ndarray:
    """Float values -> raw scaled integers of fixed type `t` (floor, then wrap; a saturating type
    saturates instead), in the container dtype. Exact at every width up to 64 bits (a UFixed(64, f)
    raw of 2**63 or more stays exact); NaN gives 0, +-inf 0 (wrap) or the saturated limit. (Kernel
    arguments are range-checked before, see allo.backend.convert.check_fixed_values.)"""
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = np.floor(np.asarray(x, dtype=np.float64) * (2.0 ** t.frac))
    if saturates(t):
        return saturate_scaled(np.where(np.isnan(scaled), 0.0, scaled), t)
    raw = wrap_int(wrap64(scaled), t.bits, t.signed)
    dt = np.dtype(f"{'int' if t.signed else 'uint'}{container_bits(t.bits)}")
    return raw.astype(dt)


def wrap64(scaled) -> np.ndarray:
    """Integer-valued float64 values modulo 2**64, exactly, as uint64 bits (non-finite -> 0)."""
    scaled = np.asarray(scaled, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        r = np.fmod(np.where(np.isfinite(scaled), scaled, 0.0), 2.0 ** 64)  # fmod is exact
    out = np.zeros(r.shape, np.uint64)
    mid = (r >= -(2.0 ** 63)) & (r < 2.0 ** 63)
    out[mid] = r[mid].astype(np.int64).view(np.uint64)
    high = r >= 2.0 ** 63
    out[high] = r[high].astype(np.uint64)
    low = r < -(2.0 ** 63)  # 2**64 + r is a multiple of r's ulp below 2**63: exact
    out[low] = (r[low] + 2.0 ** 64).astype(np.uint64)
    return out


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


__all__ = ["container_bits", "wrap_int", "wrap64", "to_raw", "from_raw", "quantize", "int_wrap_array", "float_to_int",
           "float_to_fixed_raw", "saturates", "raw_limits", "saturate_scaled"]
