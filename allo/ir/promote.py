"""Type promotion: the one numbered table of rules for mixed-type arithmetic.

Rules (first match wins; `a`, `b` are the operand types):
 1. a == b                          -> a
 2. one is a Python literal          -> the other (the literal is cast to it); an untyped float
                                         literal with an integer/index/fixed operand -> float32
 3. Float, Float                     -> the wider float
 4. Float, anything                  -> the float
 5. Index, Index                     -> index
 6. Index, Int/UInt                  -> the integer type
 7. Fixed/UFixed with Fixed/UFixed   -> frac = max(F), int bits = max(I) (+1 if signedness differs),
                                         signed if either is signed (width capped at 64)
 8. Fixed/UFixed with Int/UInt/Index -> the integer becomes Fixed(bits + F, F); then rule 7
 9. Int, Int / UInt, UInt            -> the wider
10. Int(m), UInt(n)                  -> Int(max(m, n + 1)) capped at 64

Example::

    promote(int8, int32)        # int32
    promote(int8, uint8)        # Int(9), i.e. ap_int<9> (rule 10)
    promote(Fixed(8, 4), int8)  # Fixed(12, 4)
"""
from __future__ import annotations

from .types import AlloType, Fixed, Float, Index, Int, UFixed, UInt, float32, is_fixed


def promote(a: AlloType, b: AlloType) -> AlloType:
    """The common type of two typed operands (rules 1, 3-10)."""
    if a == b:
        return a
    if isinstance(a, Float) and isinstance(b, Float):
        return a if a.bits >= b.bits else b
    if isinstance(a, Float):
        return a
    if isinstance(b, Float):
        return b
    if isinstance(a, Index) and isinstance(b, Index):
        return a
    if isinstance(a, Index) and isinstance(b, (Int, UInt)):
        return b
    if isinstance(b, Index) and isinstance(a, (Int, UInt)):
        return a
    if is_fixed(a) or is_fixed(b):
        return _promote_fixed(_as_fixed(a), _as_fixed(b))
    if type(a) is type(b):
        return a if a.bits >= b.bits else b
    s, u = (a, b) if isinstance(a, Int) else (b, a)
    return Int(min(64, max(s.bits, u.bits + 1)))


def literal_type(value, other: AlloType | None) -> AlloType:
    """Type of a Python literal next to an operand of type `other` (rule 2)."""
    if isinstance(value, bool):
        return other if other is not None and not isinstance(other, Float) else UInt(1)
    if isinstance(value, int):
        if other is None:
            return Int(32) if -(2 ** 31) <= value < 2 ** 31 else Int(64)
        return other
    if isinstance(value, float):
        if other is not None and (isinstance(other, Float) or is_fixed(other)):
            return other
        return float32
    raise TypeError(value)


def _as_fixed(t: AlloType):
    if is_fixed(t):
        return t
    if isinstance(t, Index):
        return Fixed(64, 0)
    if isinstance(t, Int):
        return Fixed(t.bits, 0)
    if isinstance(t, UInt):
        return UFixed(t.bits, 0)
    raise TypeError(t)


def _promote_fixed(a, b):
    frac = max(a.frac, b.frac)
    ia, ib = a.bits - a.frac, b.bits - b.frac
    signed = isinstance(a, Fixed) or isinstance(b, Fixed)
    ints = max(ia, ib)
    if isinstance(a, Fixed) != isinstance(b, Fixed):
        # the unsigned side needs one more integer bit to stay representable
        ints = max(ia + (0 if isinstance(a, Fixed) else 1), ib + (0 if isinstance(b, Fixed) else 1))
    width = min(64, ints + frac)
    return Fixed(width, frac) if signed else UFixed(width, frac)
