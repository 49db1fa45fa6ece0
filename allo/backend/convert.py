"""Input arrays of another dtype than the kernel's: converted with a warning when no value changes.

Upstream Allo converts inputs to the kernel's types; allo does the same when it is exact (an int64
array of small values into an int32 or Int(5) argument, 0/1 ints into bool) and for float64 into
float32 (rounding to the nearest float32, as numpy does). A conversion that would change a value
(out of range, a fraction into an integer) stays an AlloTypeError, so results are never silently
wrong. Every argument follows one rule: a value outside the parameter's type is an AlloTypeError
naming the argument, the value and the type's range, never a wrap-around: integer scalars,
integer arrays (also of the container dtype of an odd width: an int8 array for `Int(5)`), and
fixed-point scalars and arrays (the value is floored to the fraction bits first; NaN and +-inf
are refused). A fixed-point type that saturates (overflow="sat", "sat_zero", "sat_sym") takes
values outside its range and +-inf and saturates them as its overflow mode says; NaN stays refused.

Example::

    A = np.arange(8)                      # int64
    mod(A)                                # kernel takes int32[8]: AlloWarning, then runs
    mod(np.full(8, 2**40))                # AlloTypeError: values out of the range of int32
    check_scalar_fixed(200.0, Fixed(8, 0), "k: argument 0 ('s')")   # AlloTypeError: range [-128, 127]
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import AlloTypeError, warn
from ..ir.fixed import raw_limits, saturate_scaled, saturates
from ..ir.types import Float, Index, Int, UInt


def value_range(t) -> tuple[int, int]:
    """The integers an integer type holds, e.g. Int(5) -> (-16, 15)."""
    if isinstance(t, Index):
        return -(1 << 63), (1 << 63) - 1
    if isinstance(t, Int):
        return -(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1
    return 0, (1 << t.bits) - 1


def fixed_range(t) -> tuple:
    """(lowest, highest) raw integer of a fixed-point type, e.g. Fixed(8, 2) -> (-128, 127)
    (values -32 .. 31.75)."""
    return value_range(Int(t.bits) if t.signed else UInt(t.bits))


def _fixed_text(t) -> str:
    lo, hi = fixed_range(t)
    text = f"range [{lo / 2 ** t.frac:.17g}, {hi / 2 ** t.frac:.17g}]"
    return f"{text} in steps of 2**-{t.frac}" if t.frac else text


def check_scalar_fixed(x, t, where: str) -> int:
    """The raw integer of scalar `x` for fixed type `t`: floor(x * 2**frac), exact; an
    AlloTypeError for NaN, +-inf and values outside the type."""
    v = float(x) if not isinstance(x, (int, np.integer)) or isinstance(x, (bool, np.bool_)) else int(x)
    sat = saturates(t)
    if isinstance(v, float) and (math.isnan(v) or (math.isinf(v) and not sat)):
        raise AlloTypeError(f"{where}: {v!r} is not a value of {t!r} ({_fixed_text(t)})")
    if isinstance(v, float) and math.isinf(v):
        return int(saturate_scaled(v, t))
    raw = math.floor(v * 2 ** t.frac) if isinstance(v, int) else math.floor(math.ldexp(v, t.frac))
    lo, hi = fixed_range(t)
    if sat:
        if t.overflow == "sat_zero":
            return raw if lo <= raw <= hi else 0
        slo, shi = raw_limits(t)
        return min(max(raw, slo), shi)
    if not lo <= raw <= hi:
        raise AlloTypeError(f"{where}: {x!r} is outside {t!r} ({_fixed_text(t)})")
    return raw


def check_fixed_values(x: np.ndarray, t, where: str) -> None:
    """Raise AlloTypeError unless every element of `x` (floored to t's fraction bits) lies in
    fixed type `t`; NaN and +-inf are refused."""
    if not x.size:
        return
    if saturates(t):  # out-of-range values (and +-inf) saturate when converted (ir.fixed.to_raw)
        if x.dtype.kind == "f" and np.isnan(x).any():
            raise AlloTypeError(f"{where}: NaN is not a value of {t!r} ({_fixed_text(t)}); {int(np.isnan(x).sum())} "
                                f"of {x.size} elements are NaN")
        return
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = np.floor(np.asarray(x, dtype=np.float64) * 2.0 ** t.frac)
    lo, hi = fixed_range(t)
    # lo and hi + 1 are powers of two (or 0): exact as float64, so the comparisons are exact
    bad = ~((scaled >= float(lo)) & (scaled < float(hi + 1)))
    if bad.any():
        first = x.reshape(-1)[int(np.argmax(bad.reshape(-1)))]
        raise AlloTypeError(f"{where}: element {first!r} is outside {t!r} ({_fixed_text(t)}); "
                            f"{int(bad.sum())} of {x.size} elements are")


def check_int_values(x: np.ndarray, t, where: str) -> None:
    """Raise AlloTypeError unless the integers of `x` (already of t's container dtype) lie in
    integer type `t` (only an odd width, `Int(5)` in int8, can hold values outside it)."""
    if not isinstance(t, (Int, UInt)) or isinstance(t, Index) or t.bits == 1 or not x.size:
        return
    if t.bits == np.dtype(t.np_dtype).itemsize * 8:
        return
    lo, hi = value_range(t)
    if int(x.min()) < lo or int(x.max()) > hi:
        raise AlloTypeError(f"{where}: {x.dtype} values in [{int(x.min())}, {int(x.max())}] do not fit {t!r} "
                            f"(range [{lo}, {hi}])")


def check_scalar_int(x, t, where: str) -> int:
    """The Python int of an integer scalar argument; an AlloTypeError outside t's range."""
    v = int(x)
    lo, hi = value_range(t)
    if not lo <= v <= hi:
        raise AlloTypeError(f"{where}: {x!r} is outside {t!r} (range [{lo}, {hi}])")
    return v


def check_convertible(x: np.ndarray, t, where: str):
    """Raise AlloTypeError unless array `x` converts to allo type `t` without changing a value."""
    src = x.dtype
    if isinstance(t, Float):
        if src.kind == "f":
            with np.errstate(over="ignore", invalid="ignore"):
                y = x.astype(t.np_dtype)
            if np.any(np.isfinite(x) & ~np.isfinite(y)):
                raise AlloTypeError(f"{where}: {src} values overflow {t!r}; pass a {t.np_dtype} array")
            return
        if src.kind in "iub":
            limit = 1 << (t.fracs + 1)  # integers a float of this width holds exactly
            if x.size and (np.max(np.abs(x.astype(np.float64))) > limit):
                raise AlloTypeError(f"{where}: {src} values above {limit} are not exact in {t!r}; pass a "
                                    f"{t.np_dtype} array")
            return
    elif isinstance(t, (Int, UInt, Index)):
        if src.kind == "b":
            return
        if src.kind in "iu":
            lo, hi = value_range(t)
            if x.size and (int(x.min()) < lo or int(x.max()) > hi):
                raise AlloTypeError(f"{where}: {src} values in [{int(x.min())}, {int(x.max())}] do not fit {t!r} "
                                    f"(range [{lo}, {hi}]); pass a {t.np_dtype} array or change the kernel's type")
            return
        raise AlloTypeError(f"{where}: expected an integer array for {t!r}, got dtype {src}; convert it "
                            f"explicitly (e.g. .astype(np.{np.dtype(t.np_dtype).name})) if truncation is intended")
    raise AlloTypeError(f"{where}: expected dtype {np.dtype(t.np_dtype)} for {t!r}, got {src}")


def convert_input(x: np.ndarray, t, where: str) -> np.ndarray:
    """`x` as an array of t's numpy dtype (a new array), warning that it was converted."""
    check_convertible(x, t, where)
    warn(f"{where}: converted the {x.dtype} input to {np.dtype(t.np_dtype)} for {t!r} (no value changed"
         f"{', rounded to the nearest float' if x.dtype.kind == 'f' else ''}); pass "
         f"{np.dtype(t.np_dtype)} arrays to avoid the copy")
    return np.ascontiguousarray(x.astype(t.np_dtype))
