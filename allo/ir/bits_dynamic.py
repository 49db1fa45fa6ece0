"""Bit slices with run-time bounds of constant width: `x[i * 8:(i + 1) * 8]` (upstream Allo
packs and unpacks words this way). `hi - lo` must simplify to a constant k (1 <= k <= width of x);
the slice is then `(x >> lo)` truncated to UInt(k), and the update writes k bits at `lo` through
masks. Bits at or beyond the width read as 0 and are not written (shifts by >= width give 0).

Example::

    slice_width(BinOp(MUL, i, 8), BinOp(MUL, BinOp(ADD, i, 1), 8))   # 8
"""
from __future__ import annotations

from ..errors import AlloTypeError
from . import emit
from .nodes import BinOp, Cast, Const, Expr, IterVar, MathCall
from .ops import BinOpKind, MathFn, UnaryOpKind
from .types import Index, Int, UInt, index


def _linear(e) -> dict | None:
    """{atom key: coefficient} with key None for the constant term, or None if not linear."""
    if emit.is_number(e):
        v = emit.py_number(e)
        return {None: int(v)} if float(v).is_integer() else None
    if isinstance(e, Const):
        return _linear(e.value)
    if isinstance(e, Cast):
        return _linear(e.value)
    if isinstance(e, BinOp) and e.op in (BinOpKind.ADD, BinOpKind.SUB):
        a, b = _linear(e.lhs), _linear(e.rhs)
        if a is None or b is None:
            return None
        sign = 1 if e.op == BinOpKind.ADD else -1
        out = dict(a)
        for k, v in b.items():
            out[k] = out.get(k, 0) + sign * v
        return out
    if isinstance(e, BinOp) and e.op == BinOpKind.MUL:
        a, b = _linear(e.lhs), _linear(e.rhs)
        if a is None or b is None:
            return None
        for const, other in ((a, b), (b, a)):
            if set(const) == {None}:
                return {k: v * const[None] for k, v in other.items()}
        return None
    key = id(e) if isinstance(e, IterVar) else repr(e)
    return {key: 1}


def slice_width(lo, hi) -> int | None:
    """The constant value of `hi - lo`, or None when it is not a constant."""
    a, b = _linear(lo), _linear(hi)
    if a is None or b is None:
        return None
    diff = dict(b)
    for k, v in a.items():
        diff[k] = diff.get(k, 0) - v
    if any(v for k, v in diff.items() if k is not None):
        return None
    return diff.get(None, 0)


def _width_of(x, lo, hi) -> int:
    k = slice_width(lo, hi)
    if k is None:
        raise AlloTypeError("bit slice bounds must be compile-time integers (x[0:4]) or differ by a constant "
                            "(x[i * 8:(i + 1) * 8])")
    if not 1 <= k <= x.type.bits:
        raise AlloTypeError(f"bit slice of width {k} does not fit {x.type!r} (need 1..{x.type.bits} bits)")
    return k


def dynamic_slice(x: Expr, lo, hi, loc=None) -> Expr:
    """`x[lo:hi]` with run-time `lo` and constant `hi - lo` = k: a UInt(k)."""
    k = _width_of(x, lo, hi)
    bits = UInt(x.type.bits)
    shifted = emit.shift(BinOpKind.SHR, emit.cast(x, bits, loc), emit.to_expr(lo), loc)
    return _low(shifted, k, loc)


def _low(v: Expr, k: int, loc) -> Expr:
    """The low k bits of integer v as UInt(k) (a cast to UInt(1) would test v != 0 instead)."""
    if k == 1:
        return MathCall(MathFn.BIT_SLICE, [v, Const(0, index, loc), Const(1, index, loc)], UInt(1), loc)
    return emit.cast(v, UInt(k), loc)


def dynamic_slice_set(x: Expr, lo, hi, v, loc=None) -> Expr:
    """x with the k = hi - lo bits at run-time offset `lo` replaced by the low k bits of `v`."""
    k = _width_of(x, lo, hi)
    v = emit.to_expr(v, UInt(k), loc)
    if not isinstance(v.type, (Int, UInt, Index)):
        raise AlloTypeError(f"x[lo:hi] = v needs an integer v, got {v.type!r}")
    bits = UInt(x.type.bits)
    lo = emit.to_expr(lo)
    mask = emit.shift(BinOpKind.SHL, Const((1 << k) - 1, bits, loc), lo, loc)
    keep = emit.binary(BinOpKind.AND, emit.cast(x, bits, loc), emit.unary(UnaryOpKind.INVERT, mask, loc), loc)
    if isinstance(v.type, Index):
        v = emit.cast(v, Int(64), loc)
    low = emit.cast(_low(v, k, loc), bits, loc)
    new = emit.binary(BinOpKind.OR, keep, emit.shift(BinOpKind.SHL, low, lo, loc), loc)
    return emit.cast(new, x.type, loc)
