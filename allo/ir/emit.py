"""Typed scalar expression construction: literals, casts and operators with promotion.

Values flowing through the builder are one of:
  - an `Expr` (a typed run-time scalar),
  - a `Buffer` (an array),
  - any other Python object (a compile-time value: numbers, types, kernels, numpy arrays).
Compile-time numbers combine by constant folding; mixed with a typed value they take its type
(promote.literal_type).

Example::

    binary("add", Load(A, [i]), 1)     # BinOp("add", A[i], Const(1, A.dtype), A.dtype)
"""
from __future__ import annotations

import operator

import numpy as np

from ..errors import AlloTypeError
from .nodes import BinOp, Cast, Const, Expr, MathCall, Select, UnaryOp
from .promote import literal_type, promote
from .types import AlloType, Float, Index, Int, UInt, float32, index, int64, is_bool, is_fixed, is_float

bool_t = UInt(1)

PY_FOLD = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv,
    "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow,
    "and": operator.and_, "or": operator.or_, "xor": operator.xor,
    "shl": operator.lshift, "shr": operator.rshift,
    "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge,
    "eq": operator.eq, "ne": operator.ne, "min": min, "max": max,
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
    from .nodes import describe

    raise AlloTypeError(f"expected a scalar value, got {describe(v)}")


def _const_value(v, t):
    if isinstance(t, Float) or is_fixed(t):
        return float(v)
    if isinstance(t, (Int, UInt, Index)):
        if isinstance(v, float):
            return int(v)  # truncation toward zero, as a C cast
        return int(v)
    return v


def cast(e: Expr, t: AlloType, loc=None) -> Expr:
    """Convert scalar `e` to type `t` (index <-> non-integer goes through int64)."""
    if not isinstance(e, Expr):
        return to_expr(e, t, loc) if not isinstance(t, Index) else Const(int(e), index, loc)
    if e.type == t:
        return e
    if isinstance(e, Const) and not is_fixed(t) and not is_fixed(e.type) and not is_bool(t):
        if isinstance(t, (Int, UInt)) and isinstance(e.value, int) and 0 <= e.value < 2 ** (t.bits - (1 if isinstance(t, Int) else 0)):
            return Const(e.value, t, loc)
        if isinstance(t, Float) and isinstance(e.value, (int, float)) and isinstance(e.type, Float):
            return Cast(e, t, loc)
        if isinstance(t, Index) and isinstance(e.value, int):
            return Const(e.value, t, loc)
    if isinstance(e.type, Index) and not isinstance(t, (Int, UInt)):
        return Cast(Cast(e, int64, loc), t, loc)
    if isinstance(t, Index) and not isinstance(e.type, (Int, UInt)):
        return Cast(Cast(e, int64, loc), t, loc)
    return Cast(e, t, loc)


def to_bool(e, loc=None) -> Expr:
    """Truth value of a scalar, as a bool Expr."""
    e = to_expr(e, None, loc)
    if is_bool(e.type):
        return e
    zero = Const(0.0 if isinstance(e.type, Float) or is_fixed(e.type) else 0, e.type, loc)
    return BinOp("ne", e, zero, bool_t, loc)


def binary(op: str, a, b, loc=None):
    """Scalar binary operation with promotion; folds when both operands are Python numbers."""
    if is_number(a) and is_number(b):
        a, b = py_number(a), py_number(b)
        if op in ("land", "lor"):
            return (a and b) if op == "land" else (a or b)
        if op == "div" and isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool):
            return a / b
        return PY_FOLD[op](a, b)
    if op in ("land", "lor"):
        return BinOp(op, to_bool(a, loc), to_bool(b, loc), bool_t, loc)
    if op in ("shl", "shr"):
        a = to_expr(a, b.type if isinstance(b, Expr) else None, loc)
        if not isinstance(a.type, (Int, UInt, Index)):
            raise AlloTypeError(f"shift needs an integer operand, got {a.type!r}")
        return BinOp(op, a, cast(to_expr(b, a.type, loc), a.type, loc), a.type, loc)
    if op == "pow":
        return power(a, b, loc)
    ta = a.type if isinstance(a, Expr) else None
    tb = b.type if isinstance(b, Expr) else None
    if ta is None:
        a = to_expr(a, tb, loc)
        ta = a.type
    if tb is None:
        b = to_expr(b, ta, loc)
        tb = b.type
    t = promote(ta, tb)
    if op in ("and", "or", "xor") and not isinstance(t, (Int, UInt, Index)):
        raise AlloTypeError(f"bitwise '{op}' needs integer operands, got {ta!r} and {tb!r}")
    if op in ("floordiv", "mod") and isinstance(t, Index):
        pass
    a, b = cast(a, t, loc), cast(b, t, loc)
    if op in ("lt", "le", "gt", "ge", "eq", "ne"):
        return BinOp(op, a, b, bool_t, loc)
    return BinOp(op, a, b, t, loc)


def power(a, b, loc=None):
    """`a ** b`: small non-negative integer exponents multiply out (exact); else math pow."""
    if is_number(b) and float(b).is_integer() and 0 <= int(b) <= 8 and isinstance(a, Expr):
        n = int(b)
        if n == 0:
            return to_expr(1, a.type, loc)
        result = a
        for _ in range(n - 1):
            result = BinOp("mul", result, a, a.type, loc)
        return result
    ta = a.type if isinstance(a, Expr) else None
    tb = b.type if isinstance(b, Expr) else None
    a = to_expr(a, tb, loc)
    b = to_expr(b, a.type, loc)
    t = promote(a.type, b.type)
    if not isinstance(t, Float):
        if isinstance(t, (Int, UInt)) and not is_fixed(t):
            return BinOp("pow", cast(a, t, loc), cast(b, t, loc), t, loc)
        t = float32
    return MathCall("pow", [cast(a, t, loc), cast(b, t, loc)], t, loc)


def unary(op: str, v, loc=None):
    if is_number(v):
        v = py_number(v)
        return {"neg": operator.neg, "not": operator.not_, "invert": operator.invert, "pos": operator.pos}[op](v)
    if op == "pos":
        return v
    if op == "not":
        return UnaryOp("not", to_bool(v, loc), bool_t, loc)
    if op == "invert" and not isinstance(v.type, (Int, UInt)):
        raise AlloTypeError(f"'~' needs an integer operand, got {v.type!r}")
    return UnaryOp(op, v, v.type, loc)


def math_call(fn: str, args, loc=None) -> Expr:
    """Elementary function on scalars; integers are computed in float32 (abs stays integral)."""
    exprs = [to_expr(a, None, loc) for a in args]
    if fn == "abs":
        e = exprs[0]
        return MathCall("abs", [e], e.type, loc)
    t = exprs[0].type
    for e in exprs[1:]:
        t = promote(t, e.type)
    if not is_float(t):
        t = float32
    return MathCall(fn, [cast(e, t, loc) for e in exprs], t, loc)


def select(cond, a, b, loc=None) -> Expr:
    c = to_bool(cond, loc)
    ta = a.type if isinstance(a, Expr) else None
    tb = b.type if isinstance(b, Expr) else None
    a = to_expr(a, tb, loc)
    b = to_expr(b, a.type, loc)
    t = promote(a.type, b.type)
    return Select(c, cast(a, t, loc), cast(b, t, loc), t, loc)
