"""Input arrays of another dtype than the kernel's: converted with a warning when no value changes.

Upstream Allo converts inputs to the kernel's types; allo does the same when it is exact (an int64
array of small values into an int32 or Int(5) argument, 0/1 ints into bool) and for float64 into
float32 (rounding to the nearest float32, as numpy does). A conversion that would change a value
(out of range, a fraction into an integer) stays an AlloTypeError, so results are never silently
wrong.

Example::

    A = np.arange(8)                      # int64
    mod(A)                                # kernel takes int32[8]: AlloWarning, then runs
    mod(np.full(8, 2**40))                # AlloTypeError: values out of the range of int32
"""
from __future__ import annotations

import numpy as np

from ..errors import AlloTypeError, warn
from ..ir.types import Float, Index, Int, UInt


def value_range(t) -> tuple[int, int]:
    """The integers an integer type holds, e.g. Int(5) -> (-16, 15)."""
    if isinstance(t, Index):
        return -(1 << 63), (1 << 63) - 1
    if isinstance(t, Int):
        return -(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1
    return 0, (1 << t.bits) - 1


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
