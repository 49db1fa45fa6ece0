"""Typing rules of kernel arithmetic: bit growth as ap_int/ap_fixed (and upstream Allo's defaults).

Integers and fixed point are described by (I, F, S): integer bits (including the sign bit),
fraction bits and signedness. Int(w) is (w, 0, signed), UInt(w) (w, 0, unsigned),
Fixed(W, F) (W - F, F, signed), UFixed(W, F) (W - F, F, unsigned); `index` counts as Int(64)
next to other integers. An integer mixed with fixed point is Fixed(bits, 0) first. With mixed
signedness the unsigned operand gains a sign bit first (`I + 1`).

| operation                  | result type (floats: the wider float, as before)                    |
|----------------------------|---------------------------------------------------------------------|
| a + b                      | I = max(Ia, Ib) + 1, F = max(Fa, Fb), signed if either is           |
| a - b                      | as +, always signed (uint8 - uint8 is Int(9), as ap_int)            |
| a * b                      | I = Ia + Ib, F = Fa + Fb, signed if either is                       |
| a / b  (int: truncating)   | I = Ia + Fb (+1 if b is signed), F = max(Fa, Fb), quotient truncated toward zero |
| a // b (floor, as numpy)   | int: I = Ia (+1 if b is signed), signed if either is                |
| a % b  (sign of b, numpy)  | int: b's type (|a % b| < |b|)                                       |
| -a                         | one bit wider, signed                                               |
| a << n, a >> n, ~a, abs(a) | a's type (wraps like ap_int; shifts by >= width give 0 / the sign)  |
| a ** n                     | n a literal 0..8: the product a * ... * a; else the common type     |
| & | ^, min, max, compare, select | the common type (holds both operands exactly), no growth   |

index op index stays index. The value of an expression is converted to the target's type when
it is stored (ints wrap, fixed point floors and wraps), so storing int32 + int32 into an int32
gives the wrapped sum as before. A Python literal takes the other operand's type when its value
fits; otherwise the smallest type that holds it (300 -> UInt(9), -1 -> Int(1)); a float literal
next to fixed point keeps that operand's fraction bits and gets the integer bits it needs.

Example::

    result_type("mul", int8, int8)           # Int(16)
    result_type("add", Fixed(16, 8), int8)   # Fixed(17, 8)
    literal_type(300, int8)                  # UInt(9)
    common(int8, uint8)                      # Int(9)
"""
from __future__ import annotations

import math

from ..errors import AlloTypeError
from .ops import BinOpKind
from .types import MAX_BITS, AlloType, Fixed, Float, Index, Int, UFixed, UInt, float32, is_fixed

GROWING_OPS = (BinOpKind.ADD, BinOpKind.SUB, BinOpKind.MUL, BinOpKind.DIV, BinOpKind.FLOORDIV, BinOpKind.MOD)


def _shape(t):
    """(I, F, signed) of an integer, index or fixed type."""
    if isinstance(t, Index):
        return 64, 0, True
    if isinstance(t, (Int, UInt)):
        return t.bits, 0, isinstance(t, Int)
    if isinstance(t, (Fixed, UFixed)):
        return t.bits - t.frac, t.frac, isinstance(t, Fixed)
    raise AlloTypeError(f"no integer/fixed-point shape for {t!r}")


def _make(ints: int, frac: int, signed: bool, fixed: bool, what: str = "") -> AlloType:
    ints = max(ints, 0 if fixed else 1)
    width = max(ints + frac, 1)
    if width > MAX_BITS:
        raise AlloTypeError(f"{what or 'this expression'} needs {width} bits, more than allo's {MAX_BITS}: "
                            "cast an operand to a narrower type first, e.g. int64(a * b)")
    if fixed:
        return Fixed(width, frac) if signed else UFixed(width, frac)
    return Int(width) if signed else UInt(width)


def _aligned_ints(sa, sb, ia, ib):
    """Integer bits of a and b in a type of the combined signedness (unsigned gains a sign bit)."""
    signed = sa or sb
    return ia + (signed and not sa), ib + (signed and not sb), signed


def common(a: AlloType, b: AlloType) -> AlloType:
    """The smallest type holding every value of `a` and of `b` (compare, select, min/max, & | ^)."""
    if a == b:
        return a
    if isinstance(a, Float) and isinstance(b, Float):
        return a if a.bits >= b.bits else b
    if isinstance(a, Float) or isinstance(b, Float):
        return a if isinstance(a, Float) else b
    if isinstance(a, Index) and isinstance(b, Index):
        return a
    (ia, fa, sa), (ib, fb, sb) = _shape(a), _shape(b)
    ia, ib, signed = _aligned_ints(sa, sb, ia, ib)
    return _make(max(ia, ib), max(fa, fb), signed, is_fixed(a) or is_fixed(b), f"{a!r} with {b!r}")


def result_type(op: str, a: AlloType, b: AlloType) -> AlloType:
    """Type of `a <op> b` for op in GROWING_OPS (see the table in the module docstring)."""
    if isinstance(a, Float) or isinstance(b, Float) or (isinstance(a, Index) and isinstance(b, Index)):
        return common(a, b)
    (ia, fa, sa), (ib, fb, sb) = _shape(a), _shape(b)
    fixed = is_fixed(a) or is_fixed(b)
    what = f"{a!r} {op} {b!r}"
    if op in (BinOpKind.ADD, BinOpKind.SUB):
        ja, jb, signed = _aligned_ints(sa, sb, ia, ib)
        return _make(max(ja, jb) + 1, max(fa, fb), signed or op == BinOpKind.SUB, fixed, what)
    if op == BinOpKind.MUL:
        return _make(ia + ib, fa + fb, sa or sb, fixed, what)
    if op == BinOpKind.DIV:
        return _make(ia + fb + sb, max(fa, fb), sa or sb, fixed, what)
    if op == BinOpKind.FLOORDIV:
        if fixed:
            raise AlloTypeError(f"'//' is not defined on fixed-point types ({what}); use '/' or cast to an integer")
        return _make(ia + sb, 0, sa or sb, False, what)
    if op == BinOpKind.MOD:
        if fixed:
            raise AlloTypeError(f"'%' is not defined on fixed-point types ({what}); cast to an integer first")
        return b if not isinstance(b, Index) else Int(64)
    raise AlloTypeError(f"no typing rule for {op!r}")


def negate_type(t: AlloType) -> AlloType:
    """Type of `-a`: one bit wider and signed (-(-128) = 128 needs 9 bits)."""
    if isinstance(t, (Float, Index)):
        return t
    i, f, _ = _shape(t)
    return _make(i + 1, f, True, is_fixed(t), f"-{t!r}")


def power_type(t: AlloType, n: int) -> AlloType:
    """Type of `a ** n` for a literal n >= 1 multiplied out: the n-fold product."""
    if isinstance(t, (Float, Index)):
        return t
    i, f, s = _shape(t)
    return _make(i * n, f * n, s, is_fixed(t), f"{t!r} ** {n}")


def smallest_int_type(value: int) -> AlloType:
    """The narrowest Int/UInt holding `value` (UInt for values >= 0)."""
    value = int(value)
    if value >= 0:
        return _make(max(value.bit_length(), 1), 0, False, False, f"literal {value}")
    return _make((-value - 1).bit_length() + 1, 0, True, False, f"literal {value}")


def fits(value, t: AlloType) -> bool:
    """Does literal `value` convert to type `t` exactly?"""
    if isinstance(t, Float):
        return True
    if isinstance(t, Index):
        return isinstance(value, int) and -(2 ** 63) <= value < 2 ** 63
    i, f, s = _shape(t)
    scaled = value * 2 ** f
    if isinstance(value, float):
        if not math.isfinite(value) or scaled != math.floor(scaled):
            return False
        scaled = int(scaled)
    lo, hi = (-(2 ** (i + f - 1)), 2 ** (i + f - 1)) if s else (0, 2 ** (i + f))
    return lo <= scaled < hi


def literal_type(value, other: AlloType | None) -> AlloType:
    """Type of a Python literal next to an operand of type `other` (None: a standalone literal)."""
    if isinstance(value, bool):
        return other if other is not None and not isinstance(other, Float) else UInt(1)
    if isinstance(value, int):
        if other is None:
            return Int(32) if -(2 ** 31) <= value < 2 ** 31 else Int(64) if -(2 ** 63) <= value < 2 ** 63 \
                else smallest_int_type(value)
        return other if fits(value, other) else smallest_int_type(value)
    if isinstance(value, float):
        if other is not None and isinstance(other, Float):
            return other
        if other is not None and is_fixed(other):
            if fits(value, other) or not math.isfinite(value):
                return other
            return _fixed_literal_type(value, other)
        return float32
    raise AlloTypeError(f"{value!r} is not a number")


def _fixed_literal_type(value: float, other):
    """`other`'s fraction bits (the literal floors to them) and the integer bits it needs."""
    raw = math.floor(value * 2.0 ** other.frac)
    signed = isinstance(other, Fixed) or raw < 0
    bits = raw.bit_length() + 1 if raw >= 0 else (-raw - 1).bit_length() + 1
    if not signed:
        bits = max(raw.bit_length(), 1)
    return _make(max(bits - other.frac, 1), other.frac, signed, True, f"literal {value!r}")


def promote(a: AlloType, b: AlloType) -> AlloType:
    """The common type of two operands (kept for callers of the former single rule table)."""
    return common(a, b)
