"""Rounding and overflow modes of Fixed / UFixed (ap_fixed's Q and O parameters) as plain IR.

A conversion into a type with modes, `Cast(x, Fixed(8, 4, rounding="rnd", overflow="sat"))`, is
built as exact fixed-point steps on mode-less types: x is widened exactly into
E = Fixed(Ie + Fe, Fe) (two more integer bits than source or destination need, one more fraction
bit than the destination; a float source gets 25 / 54 extra fraction bits, enough to see an exact
tie), a rounding constant is added in E, the sum is floored to the destination's fraction bits,
compared with the destination's range and selected (saturation), and the in-range value cast to
the destination. Every backend (LLVM, interpreter, static RTL, HLS C++) then computes the same
bits with operations it already has. Constants are converted here, exactly (`quantize_exact`).

The rounding rules (y = x * 2**frac, n = floor(y)): trn n; trn_zero n, +1 when y < 0 and y != n;
rnd (half up) floor(y + 1/2); rnd_min_inf (half down) ceil(y - 1/2); rnd_zero ties toward zero;
rnd_inf ties away from zero; rnd_conv ties to even. Overflow: wrap (two's complement), sat (clamp
to [min, max]), sat_zero (0), sat_sym (clamp to [-max, max]). NaN converts to 0; +-inf saturates,
or is 0 under wrap (allo's float -> integer rule).

Example::

    quantize_exact(Fraction(3, 8), Fixed(4, 2, rounding="rnd_conv"))    # Fraction(1, 2)
"""
from __future__ import annotations

import math
from fractions import Fraction

from .nodes import BinOp, Cast, Const, Select, UnaryOp
from .ops import BinOpKind, UnaryOpKind
from .types import Fixed, Float, Int, UFixed, UInt

_bool = UInt(1)


def raw_bounds(t) -> tuple[int, int]:
    """(lowest, highest) raw integer of fixed type t."""
    if isinstance(t, UFixed):
        return 0, (1 << t.bits) - 1
    return -(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1


def round_raw(y: Fraction, mode: str) -> int:
    """The integer y rounds to under `mode` (see the module docstring)."""
    n = math.floor(y)
    rem = y - n
    half = Fraction(1, 2)
    if mode == "trn" or rem == 0:
        return n
    if mode == "trn_zero":
        return n + 1 if y < 0 else n
    if rem != half:
        return n + 1 if rem > half else n
    return n + {"rnd": 1, "rnd_min_inf": 0, "rnd_zero": 1 if y < 0 else 0, "rnd_inf": 0 if y < 0 else 1,
                "rnd_conv": n % 2}[mode]


def overflow_raw(n: int, t) -> int:
    lo, hi = raw_bounds(t)
    if lo <= n <= hi and not (t.overflow == "sat_sym" and isinstance(t, Fixed) and n == lo):
        return n
    if t.overflow == "wrap":
        return ((n - lo) % (1 << t.bits)) + lo
    if t.overflow == "sat_zero":
        return 0
    if t.overflow == "sat_sym" and isinstance(t, Fixed):
        lo = -hi
    return min(max(n, lo), hi)


def quantize_exact(value, t) -> Fraction:
    """The value of fixed type t (with its modes) that `value` (int, float, Fraction) converts to."""
    if isinstance(value, float):
        if math.isnan(value):
            return Fraction(0)
        if math.isinf(value):
            if t.overflow == "wrap":
                return Fraction(0)
            lo, hi = raw_bounds(t)
            if t.overflow == "sat_zero":
                return Fraction(0)
            if t.overflow == "sat_sym" and isinstance(t, Fixed):
                lo = -hi
            return Fraction(hi if value > 0 else lo, 1 << t.frac)
    n = overflow_raw(round_raw(Fraction(value) * (1 << t.frac), t.rounding), t)
    return Fraction(n, 1 << t.frac)


# ----------------------------------------------------------------------------- IR expansion
def _int_bits(t) -> int:
    """Integer bits (sign included) a signed type needs to hold every value of t."""
    if isinstance(t, (Int, UInt)):
        return t.bits + (0 if isinstance(t, Int) else 1)
    return t.bits - t.frac + (0 if isinstance(t, Fixed) else 1)


def expand_cast(e, t, loc=None):
    """The IR computing `Cast(e, t)` for a fixed type t with modes (see the module docstring)."""
    s = e.type
    if isinstance(e, Const) and not isinstance(e.value, bool):
        return Const(_num(quantize_exact(e.value, t)), t, loc)
    is_float = isinstance(s, Float)
    F = t.frac
    if is_float:
        ie, fe = _int_bits(t) + 2, F + (25 if s.bits <= 32 else 54)
    else:
        ie, fe = max(_int_bits(s), _int_bits(t)) + 2, max(getattr(s, "frac", 0), F + 1)
    E = Fixed(ie + fe, fe)
    R = Fixed(ie + F, F)
    x = Cast(e, E, loc)
    needs_round = is_float or getattr(s, "frac", 0) > F
    if needs_round:
        # the sign that picks a rounding direction: the float's own (its widening into E wraps
        # values beyond E's range, which can flip the sign of x)
        neg = BinOp(BinOpKind.LT, e, Const(0.0, s, loc), _bool, loc) if is_float else _lt0(x, E, loc)
        r = _round(x, E, R, t.rounding, loc, neg)
    else:
        r = Cast(x, R, loc)
    if t.overflow != "wrap":
        r = _saturate(r, R, t, loc)
        if is_float:
            r = _huge_floats(e, s, r, R, t, ie, loc)
    return Cast(r, t, loc)


def _num(v: Fraction):
    """A Const value: an int when integral (exact at any width), else a float (powers of two only)."""
    return int(v) if v.denominator == 1 else float(v)


def _add(a, v, E, loc):
    return BinOp(BinOpKind.ADD, a, Const(_num(v), E, loc), E, loc) if v else a


def _neg(a, T, loc):
    return UnaryOp(UnaryOpKind.NEG, a, T, loc)


def _lt0(x, E, loc):
    return BinOp(BinOpKind.LT, x, Const(0, E, loc), _bool, loc)


def _round(x, E, R, mode, loc, neg):
    """x (in E) rounded to R's fraction bits; `neg` is the condition "the value is negative". Only
    powers of two appear as constants (exact in every backend); ceilings are negated floors of the
    negated value."""
    half = Fraction(1, 2 << R.frac)
    floor = Cast(x, R, loc)
    if mode == "trn":
        return floor
    ceil = _neg(Cast(_neg(x, E, loc), R, loc), R, loc)
    if mode == "trn_zero":
        return Select(neg, ceil, floor, R, loc)
    up = Cast(_add(x, half, E, loc), R, loc)  # floor(y + 1/2): ties up
    down = _neg(Cast(_add(_neg(x, E, loc), half, E, loc), R, loc), R, loc)  # ceil(y - 1/2): ties down
    if mode == "rnd":
        return up
    if mode == "rnd_min_inf":
        return down
    if mode == "rnd_zero":
        return Select(neg, up, down, R, loc)
    if mode == "rnd_inf":
        return Select(neg, down, up, R, loc)
    # rnd_conv: ties (up != down) go to the even one of the two
    tie = BinOp(BinOpKind.NE, up, down, _bool, loc)
    if R.frac == 0:
        wide = Int(R.bits)
        odd = BinOp(BinOpKind.NE, BinOp(BinOpKind.AND, Cast(up, wide, loc), Const(1, wide, loc), wide, loc),
                    Const(0, wide, loc), _bool, loc)
    else:
        odd = BinOp(BinOpKind.NE, Cast(Cast(up, Fixed(R.bits, R.frac - 1), loc), R, loc), up, _bool, loc)
    return Select(BinOp(BinOpKind.AND, tie, odd, _bool, loc), down, up, R, loc)


def _limits(t, R, loc):
    """(too big, too small, highest, lowest) of t for a value r of R: compares with powers of two."""
    top = Fraction(2) ** (t.bits - t.frac - (1 if isinstance(t, Fixed) else 0))  # first value above t
    hi = BinOp(BinOpKind.SUB, Const(_num(top), R, loc), Const(_num(Fraction(1, 1 << t.frac)), R, loc), R, loc)
    big = lambda r: BinOp(BinOpKind.GE, r, Const(_num(top), R, loc), _bool, loc)  # noqa: E731
    if isinstance(t, UFixed):
        return big, (lambda r: _lt0(r, R, loc)), hi, Const(0, R, loc)
    if t.overflow == "sat_sym":
        return big, (lambda r: BinOp(BinOpKind.LE, r, Const(_num(-top), R, loc), _bool, loc)), hi, _neg(hi, R, loc)
    return big, (lambda r: BinOp(BinOpKind.LT, r, Const(_num(-top), R, loc), _bool, loc)), hi, Const(_num(-top), R, loc)


def _saturate(r, R, t, loc):
    big, small, hi, lo = _limits(t, R, loc)
    if t.overflow == "sat_zero":
        hi = lo = Const(0, R, loc)
    return Select(big(r), hi, Select(small(r), lo, r, R, loc), R, loc)


def _huge_floats(e, s, r, R, t, ie, loc):
    """Floats beyond E's range wrapped in the exact widening: saturate them by a float compare."""
    bound = 2.0 ** (ie - 1)
    if bound > {16: 65504.0, 32: 3.4e38}.get(s.bits, 1.7e308):
        return r
    _, _, hi, lo = _limits(t, R, loc)
    if t.overflow == "sat_zero":
        lo = hi = Const(0, R, loc)
    big = BinOp(BinOpKind.GE, e, Const(bound, s, loc), _bool, loc)
    small = BinOp(BinOpKind.LE, e, Const(-bound, s, loc), _bool, loc)
    return Select(big, hi, Select(small, lo, r, R, loc), R, loc)


def needs_expansion(s, t) -> bool:
    """Does a conversion from s to t have to apply t's modes (t fixed with modes, s another format)?"""
    if not isinstance(t, (Fixed, UFixed)) or not t.has_modes:
        return False
    return not (type(s) is type(t) and s.bits == t.bits and s.frac == t.frac)


__all__ = ["expand_cast", "needs_expansion", "quantize_exact", "round_raw", "overflow_raw", "raw_bounds"]
