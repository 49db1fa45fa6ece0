"""Bit-level operations on integer scalars (upstream Allo's spellings), as `MathCall` nodes.

| kernel code       | node                                   | type                        |
|-------------------|----------------------------------------|-----------------------------|
| `x[i]`            | bit_get(x, i)                          | bool (0 when i is outside x) |
| `x[lo:hi]`        | bit_slice(x, lo, hi)                   | UInt(hi - lo), hi excluded  |
| `x.reverse()`     | bit_reverse(x)                         | x's type                    |
| `x.bitcast()`     | bitcast(x)                             | intN/uintN <-> floatN       |
| `x[i] = b`        | x = bit_set(x, i, b)                   | x's type (no-op outside x)  |
| `x[lo:hi] = v`    | x = bit_setslice(x, lo, hi, v)         | x's type                    |

`lo`/`hi` of a slice are compile-time integers with 0 <= lo < hi <= width, or run-time bounds a
constant width apart (`x[i * 8:(i + 1) * 8]`, see bits_dynamic); a bit index may be computed at
run time. The HLS C++ uses ap_int's `[]`, `range(hi, lo)` and `reverse()`.

Example::

    bit_slice(Load(X, [i]), 4, 8)    # MathCall("bit_slice", [X[i], 4, 8], UInt(4))
"""
from __future__ import annotations

from ..errors import AlloTypeError
from . import emit
from .bits_dynamic import dynamic_slice, dynamic_slice_set
from .nodes import Const, Expr, MathCall
from .ops import MathFn
from .types import Float, Index, Int, UInt, float16, float32, float64, index, int16, int32, int64

BIT_FUNCS = (MathFn.BIT_GET, MathFn.BIT_SLICE, MathFn.BIT_REVERSE, MathFn.BITCAST, MathFn.BIT_SET, MathFn.BIT_SETSLICE)
_FLOAT_OF = {16: float16, 32: float32, 64: float64}
_INT_OF = {16: int16, 32: int32, 64: int64}


def _integer(x, what: str) -> Expr:
    x = emit.to_expr(x)
    if not isinstance(x.type, (Int, UInt)) or isinstance(x.type, Index):
        raise AlloTypeError(f"{what} needs an integer scalar (intN / uintN), got {x.type!r}")
    return x


def _bit_index(i, x, loc) -> Expr:
    if emit.is_number(i):
        if isinstance(i, float) or not 0 <= int(i) < x.type.bits:
            raise AlloTypeError(f"bit index {i!r} is outside {x.type!r} (bits 0..{x.type.bits - 1})")
        return Const(int(i), index, loc)
    if not isinstance(i.type, (Int, UInt, Index)):
        raise AlloTypeError(f"a bit index must be an integer, got {i.type!r}")
    return emit.cast(i, index, loc)


def slice_bounds(lo, hi, step, x) -> tuple:
    """Validated compile-time (lo, hi) of `x[lo:hi]` (None bounds mean 0 and the width)."""
    width = x.type.bits
    lo = 0 if lo is None else lo
    hi = width if hi is None else hi
    if step is not None:
        raise AlloTypeError("bit slices take no step: write x[lo:hi]")
    if not (emit.is_number(lo) and emit.is_number(hi)) or isinstance(lo, float) or isinstance(hi, float):
        raise AlloTypeError("bit slice bounds must be compile-time integers, e.g. x[0:4]")
    lo, hi = int(lo), int(hi)
    if not 0 <= lo < hi <= width:
        raise AlloTypeError(f"bit slice [{lo}:{hi}] is outside {x.type!r}: need 0 <= lo < hi <= {width}")
    return lo, hi


def bit_get(x, i, loc=None) -> Expr:
    x = _integer(x, "x[i]")
    return MathCall(MathFn.BIT_GET, [x, _bit_index(i, x, loc)], UInt(1), loc)


def _dynamic(lo, hi, step) -> bool:
    """A slice whose bounds are not both compile-time numbers (bits_dynamic handles it)."""
    return step is None and lo is not None and hi is not None and not (emit.is_number(lo) and emit.is_number(hi))


def bit_slice(x, lo, hi, step=None, loc=None) -> Expr:
    x = _integer(x, "x[lo:hi]")
    if _dynamic(lo, hi, step):
        return dynamic_slice(x, lo, hi, loc)
    lo, hi = slice_bounds(lo, hi, step, x)
    return MathCall(MathFn.BIT_SLICE, [x, Const(lo, index, loc), Const(hi, index, loc)], UInt(hi - lo), loc)


def bit_reverse(x, loc=None) -> Expr:
    x = _integer(x, "x.reverse()")
    return MathCall(MathFn.BIT_REVERSE, [x], x.type, loc)


def bitcast(x, loc=None) -> Expr:
    """Same bits, other type: intN/uintN -> floatN, floatN -> intN (N in 16, 32, 64)."""
    x = emit.to_expr(x)
    t = x.type
    if isinstance(t, Float) and not t.brain and t.bits in _INT_OF:
        return MathCall(MathFn.BITCAST, [x], _INT_OF[t.bits], loc)
    if isinstance(t, (Int, UInt)) and t.bits in _FLOAT_OF:
        return MathCall(MathFn.BITCAST, [x], _FLOAT_OF[t.bits], loc)
    raise AlloTypeError(f"x.bitcast() needs int16/32/64, uint16/32/64 or float16/32/64, got {t!r}")


def bit_set(x, i, b, loc=None) -> Expr:
    """x with bit i replaced by the truth value of b."""
    x = _integer(x, "x[i] = b")
    return MathCall(MathFn.BIT_SET, [x, _bit_index(i, x, loc), emit.to_bool(b, loc)], x.type, loc)


def slice_set(x, lo, hi, step, v, loc=None) -> Expr:
    """x with bits lo..hi-1 replaced by the low bits of v."""
    x = _integer(x, "x[lo:hi] = v")
    if _dynamic(lo, hi, step):
        return dynamic_slice_set(x, lo, hi, v, loc)
    lo, hi = slice_bounds(lo, hi, step, x)
    v = emit.to_expr(v, UInt(hi - lo), loc)
    if not isinstance(v.type, (Int, UInt, Index)):
        raise AlloTypeError(f"x[{lo}:{hi}] = v needs an integer v, got {v.type!r}")
    return MathCall(MathFn.BIT_SETSLICE, [x, Const(lo, index, loc), Const(hi, index, loc), _low_bits(v, hi - lo, loc)],
                    x.type, loc)


def _low_bits(v: Expr, k: int, loc) -> Expr:
    """The low k bits of integer v as a UInt(k). A cast to UInt(1) is a truth test (v != 0), so
    one bit is taken by slicing instead."""
    if isinstance(v, Const):
        return Const(int(v.value) & ((1 << k) - 1), UInt(k), loc)
    if isinstance(v.type, Index):
        v = emit.cast(v, int64, loc)
    if k == 1 and v.type != UInt(1):
        return MathCall(MathFn.BIT_SLICE, [v, Const(0, index, loc), Const(1, index, loc)], UInt(1), loc)
    return emit.cast(v, UInt(k), loc)

