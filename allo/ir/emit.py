"""Typed scalar expression construction: literals, casts and operators with promotion.

Values flowing through the builder are one of:
  - an `Expr` (a typed run-time scalar),
  - a `Buffer` (an array),
  - any other Python object (a compile-time value: numbers, types, kernels, numpy arrays).
Compile-time numbers combine by constant folding; mixed with a typed value they take its type
when they fit, else the smallest type that holds them (promote.literal_type).

Arithmetic follows the bit-growth rules of `promote` (operands are cast to the grown type and the
operation is computed at that width, so every intermediate is exact). `cast` to a narrower
integer type pushes the truncation into add/sub/mul/and/or/xor/neg trees (the low bits of a sum
or product depend only on the low bits of its operands), so `C[i] = A[i] + B[i]` on int32 still
computes at 32 bits.

Example::

    binary("add", Load(A, [i]), 1)     # int8 A: BinOp("add", Cast(A[i], Int(9)), Const(1, Int(9)), Int(9))
"""
from __future__ import annotations

import operator

import numpy as np

from ..errors import AlloTypeError
from .fixed_modes import expand_cast, needs_expansion
from .nodes import BinOp, Cast, Const, Expr, MathCall, Select, UnaryOp, describe
from .ops import CMP_OPS, LOGIC_OPS, BinOpKind, MathFn, UnaryOpKind
from .promote import common, fits, literal_type, negate_type, result_type
from .types import AlloType, Fixed, Float, Index, Int, UInt, float32, index, int64, is_bool, is_fixed, is_float

bool_t = UInt(1)

PY_FOLD = {
    BinOpKind.ADD: operator.add, BinOpKind.SUB: operator.sub, BinOpKind.MUL: operator.mul,
    BinOpKind.DIV: operator.truediv, BinOpKind.FLOORDIV: operator.floordiv, BinOpKind.MOD: operator.mod,
    BinOpKind.POW: operator.pow, BinOpKind.AND: operator.and_, BinOpKind.OR: operator.or_,
    BinOpKind.XOR: operator.xor, BinOpKind.SHL: operator.lshift, BinOpKind.SHR: operator.rshift,
    BinOpKind.LT: operator.lt, BinOpKind.LE: operator.le, BinOpKind.GT: operator.gt, BinOpKind.GE: operator.ge,
    BinOpKind.EQ: operator.eq, BinOpKind.NE: operator.ne, BinOpKind.MIN: min, BinOpKind.MAX: max,
}


def is_number(v) -> bool:
    return isinstance(v, (bool, int, float, np.integer, np.floating, np.bool_))


def py_number(v):
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    return v


def to_expr(v, like: AlloType | None = None, loc=None) -> Expr:
    """A run-time scalar for `v` (numbers become Consts typed next to `like`)."""
    if isinstance(v, Expr):
        return v
    if is_number(v):
        v = py_number(v)
        t = literal_type(v, like)
        return Const(_const_value(v, t), t, loc)

    raise AlloTypeError(f"expected a scalar value, got {describe(v)}")


def _const_value(v, t):
    if isinstance(t, Float) or is_fixed(t):
        return float(v) if not (is_fixed(t) and isinstance(v, int) and not isinstance(v, bool)) else v
    if isinstance(t, (Int, UInt, Index)):
        return int(v)  # a float truncates toward zero, as a C cast
    return v


def _is_intlike(t) -> bool:
    return isinstance(t, (Int, UInt, Index))


def cast(e: Expr, t: AlloType, loc=None) -> Expr:
    """Convert scalar `e` to type `t` (index <-> non-integer goes through int64)."""
    if not isinstance(e, Expr):
        return to_expr(e, t, loc) if not isinstance(t, Index) else Const(int(e), index, loc)
    if e.type == t:
        return e
    if isinstance(e, Const) and not is_bool(t) and not is_bool(e.type) and not isinstance(e.type, Float) \
            and not isinstance(t, Float) and fits(e.value, t):
        return Const(e.value if not isinstance(t, Index) else int(e.value), t, loc)
    if isinstance(e, Const) and isinstance(t, Float) and isinstance(e.type, Float):
        return Cast(e, t, loc)
    if needs_expansion(e.type, t):  # rounding / saturating fixed point: explicit steps (fixed_modes.py)
        return expand_cast(e, t, loc)
    narrowed = narrow(e, t)
    if narrowed is not None:
        return narrowed
    if isinstance(e.type, Index) and not isinstance(t, (Int, UInt)):
        return Cast(Cast(e, int64, loc), t, loc)
    if isinstance(t, Index) and not isinstance(e.type, (Int, UInt)):
        return Cast(Cast(e, int64, loc), t, loc)
    return Cast(e, t, loc)


# ----------------------------------------------------------------------------- narrowing
_MOD_OPS = (BinOpKind.ADD, BinOpKind.SUB, BinOpKind.MUL, BinOpKind.AND, BinOpKind.OR, BinOpKind.XOR)


def _same_raw(s, t) -> bool:
    """Is a value of type s converted to t by keeping its low t.bits raw bits (a pure wrap)?"""
    if isinstance(s, (Int, UInt)) and isinstance(t, (Int, UInt)):
        return not is_bool(t)
    return is_fixed(s) and is_fixed(t) and s.frac == t.frac


def narrow(e: Expr, t: AlloType):
    """`e` computed directly in the narrower type `t` (same result as wrapping e's value), or None.

    Valid because the low bits of +, -, *, &, |, ^, negation and of a wrapping cast depend only on
    the low bits of the operands (for fixed point: with the same fraction bits, and no `*`); an
    integer /, // or % is exact in t when both operands fit t (t's wrap of MIN / -1 included)."""
    s = e.type
    if not _same_raw(s, t) or t.bits > s.bits:
        return None
    if isinstance(e, BinOp) and e.lhs.type == s and e.rhs.type == s:
        if e.op in _MOD_OPS and not (e.op == BinOpKind.MUL and is_fixed(s) and s.frac):
            return BinOp(e.op, _narrow_operand(e.lhs, t), _narrow_operand(e.rhs, t), t, e.loc)
        if e.op in (BinOpKind.DIV, BinOpKind.FLOORDIV, BinOpKind.MOD) and not is_fixed(s):
            a, b = _exact_source(e.lhs), _exact_source(e.rhs)
            if _fits_exactly(a, t) and _fits_exactly(b, t):
                return BinOp(e.op, cast(a, t, e.loc), cast(b, t, e.loc), t, e.loc)
        return None
    if isinstance(e, UnaryOp) and e.op in (UnaryOpKind.NEG, UnaryOpKind.INVERT) and e.operand.type == s:
        return UnaryOp(e.op, _narrow_operand(e.operand, t), t, e.loc)
    if isinstance(e, Cast) and (_is_intlike(e.value.type) or _same_raw(e.value.type, t)):
        return cast(e.value, t, e.loc)
    if isinstance(e, Const) and isinstance(e.value, int) and not isinstance(e.value, bool):
        return Const(_wrap(e.value, t), t, e.loc)
    if isinstance(e, Select) and e.a.type == s and e.b.type == s:
        return Select(e.cond, _narrow_operand(e.a, t), _narrow_operand(e.b, t), t, e.loc)
    return None


def _holds(t, s) -> bool:
    """Does type t hold every value of integer type s?"""
    return _is_intlike(s) and (s == t or (not isinstance(s, Index) and not isinstance(t, Index)
                                         and common(s, t) == t))


def _fits_exactly(e, t) -> bool:
    if isinstance(e, Const):
        return isinstance(e.value, int) and not isinstance(e.value, bool) and fits(e.value, t)
    return _holds(t, e.type)


def _exact_source(e):
    """e without the value-preserving (widening) casts on top of it."""
    while isinstance(e, Cast) and _holds(e.type, e.value.type):
        e = e.value
    return e


def _narrow_operand(e, t):
    n = narrow(e, t) if e.type != t else e
    return n if n is not None else Cast(e, t, e.loc)


def _wrap(v: int, t) -> int:
    """Raw-domain wrap of an integer-valued constant to t (fixed constants hold their value)."""
    scale = 2 ** t.frac if is_fixed(t) else 1
    raw = (int(v) * scale) & ((1 << t.bits) - 1)
    if isinstance(t, (Int, Fixed)) and raw >> (t.bits - 1):
        raw -= 1 << t.bits
    return raw // scale if scale == 1 or raw % scale == 0 else raw / scale


# ----------------------------------------------------------------------------- operators
def to_bool(e, loc=None) -> Expr:
    """Truth value of a scalar, as a bool Expr."""
    e = to_expr(e, None, loc)
    if is_bool(e.type):
        return e
    zero = Const(0.0 if isinstance(e.type, Float) or is_fixed(e.type) else 0, e.type, loc)
    return BinOp(BinOpKind.NE, e, zero, bool_t, loc)


def _typed_pair(a, b, loc):
    """Both operands as Exprs; a literal is typed next to the other operand."""
    ta = a.type if isinstance(a, Expr) else None
    tb = b.type if isinstance(b, Expr) else None
    if ta is None:
        a = to_expr(a, tb, loc)
    if tb is None:
        b = to_expr(b, a.type, loc)
    return a, b


def binary(op: str, a, b, loc=None):
    """Scalar binary operation with the typing rules of `promote`; folds Python numbers."""
    if is_number(a) and is_number(b):
        a, b = py_number(a), py_number(b)
        if op in LOGIC_OPS:
            return (a and b) if op == BinOpKind.LAND else (a or b)
        if op == BinOpKind.DIV and isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool):
            return a / b
        return PY_FOLD[op](a, b)
    if op in LOGIC_OPS:
        return BinOp(op, to_bool(a, loc), to_bool(b, loc), bool_t, loc)
    if op in (BinOpKind.SHL, BinOpKind.SHR):
        return shift(op, a, b, loc)
    if op == BinOpKind.POW:
        return power(a, b, loc)
    a, b = _typed_pair(a, b, loc)
    ta, tb = a.type, b.type
    if op in CMP_OPS + (BinOpKind.MIN, BinOpKind.MAX, BinOpKind.AND, BinOpKind.OR, BinOpKind.XOR):
        t = common(ta, tb)
        if op in (BinOpKind.AND, BinOpKind.OR, BinOpKind.XOR) and not _is_intlike(t):
            raise AlloTypeError(f"bitwise '{op}' needs integer operands, got {ta!r} and {tb!r}")
        a, b = cast(a, t, loc), cast(b, t, loc)
        return BinOp(op, a, b, bool_t if op in CMP_OPS else t, loc)
    r = result_type(op, ta, tb)
    # computed in a type holding both operands and the result (the result type itself, except for
    # / // % and products of fixed-point values without integer bits), then narrowed exactly
    c = common(common(ta, tb), r) if op != BinOpKind.MOD else common(ta, tb)
    if op in (BinOpKind.ADD, BinOpKind.SUB, BinOpKind.MUL) and c == r:
        return BinOp(op, cast(a, r, loc), cast(b, r, loc), r, loc)
    q = BinOp(op, cast(a, c, loc), cast(b, c, loc), c, loc)
    return cast(q, r, loc) if r != c else q


def shift(op: str, a, b, loc=None) -> Expr:
    """`a << b`, `a >> b`: the result has a's type; amounts >= a's width give 0 (or the sign). On
    fixed point (as ap_fixed's) the raw bits shift: `x << 1` doubles x, wrapping at its width; the
    amount is then an integer of x's raw width."""
    a = to_expr(a, b.type if isinstance(b, Expr) and _is_intlike(b.type) else None, loc)
    if not _is_intlike(a.type) and not is_fixed(a.type):
        raise AlloTypeError(f"shift needs an integer or fixed-point operand, got {a.type!r}")
    width = 64 if isinstance(a.type, Index) else a.type.bits
    amount_t = a.type if not is_fixed(a.type) else (Int if isinstance(a.type, Fixed) else UInt)(width)
    if is_number(b):
        n = py_number(b)
        if isinstance(n, float) or n < 0:
            raise AlloTypeError(f"shift amount must be a non-negative integer, got {n!r}")
        return BinOp(op, a, Const(min(int(n), width), amount_t, loc), a.type, loc)
    if not _is_intlike(b.type):
        raise AlloTypeError(f"shift amount must be an integer, got {b.type!r}")
    bbits = 64 if isinstance(b.type, Index) else b.type.bits
    if bbits > width and not isinstance(a.type, Index):
        # clamp first: truncating a large amount to a's width could make it small again
        u = cast(b, UInt(bbits), loc) if not isinstance(b.type, Index) else cast(b, UInt(64), loc)
        b = BinOp(BinOpKind.MIN, u, Const(width, u.type, loc), u.type, loc)
    return BinOp(op, a, cast(b, amount_t, loc), a.type, loc)


def power(a, b, loc=None):
    """`a ** b`: literal exponents 0..8 multiply out (exact, with bit growth); else math pow."""
    if is_number(b) and float(b).is_integer() and 0 <= int(b) <= 8 and isinstance(a, Expr):
        n = int(b)
        if n == 0:
            return to_expr(1, a.type, loc)
        result = a
        for _ in range(n - 1):
            result = binary(BinOpKind.MUL, result, a, loc)
        return result
    a, b = _typed_pair(a, b, loc)
    t = common(a.type, b.type)
    if not isinstance(t, Float):
        if isinstance(t, (Int, UInt)):
            return BinOp(BinOpKind.POW, cast(a, t, loc), cast(b, t, loc), t, loc)
        t = float32
    return MathCall(MathFn.POW, [cast(a, t, loc), cast(b, t, loc)], t, loc)


_PY_UNARY = {UnaryOpKind.NEG: operator.neg, UnaryOpKind.NOT: operator.not_, UnaryOpKind.INVERT: operator.invert,
             "pos": operator.pos}  # unary `+` (the builder's "pos") is the operand itself


def unary(op: str, v, loc=None):
    if is_number(v):
        v = py_number(v)
        return _PY_UNARY[op](v)
    if op == "pos":
        return v
    if op == UnaryOpKind.NOT:
        return UnaryOp(UnaryOpKind.NOT, to_bool(v, loc), bool_t, loc)
    if op == UnaryOpKind.INVERT and not isinstance(v.type, (Int, UInt)) and not is_fixed(v.type):
        raise AlloTypeError(f"'~' needs an integer or fixed-point operand, got {v.type!r}")
    if op == UnaryOpKind.NEG:
        t = negate_type(v.type)
        return UnaryOp(UnaryOpKind.NEG, cast(v, t, loc), t, loc)
    return UnaryOp(op, v, v.type, loc)


def math_call(fn: str, args, loc=None) -> Expr:
    """Elementary function on scalars; integers are computed in float32 (abs stays integral)."""
    exprs = [to_expr(a, None, loc) for a in args]
    if fn == MathFn.ABS:
        e = exprs[0]
        return MathCall(MathFn.ABS, [e], e.type, loc)
    t = exprs[0].type
    for e in exprs[1:]:
        t = common(t, e.type)
    if not is_float(t):
        t = float32
    return MathCall(fn, [cast(e, t, loc) for e in exprs], t, loc)


def select(cond, a, b, loc=None) -> Expr:
    c = to_bool(cond, loc)
    a, b = _typed_pair(a, b, loc)
    t = common(a.type, b.type)
    return Select(c, cast(a, t, loc), cast(b, t, loc), t, loc)
