"""Bit-level operations on integer scalars (upstream Allo's spellings), as `MathCall` nodes.

| kernel code       | node                                   | type                        |
|-------------------|----------------------------------------|-----------------------------|
| `x[i]`            | bit_get(x, i)                          | bool (0 when i is outside x) |
| `x[lo:hi]`        | bit_slice(x, lo, hi)                   | UInt(hi - lo), hi excluded  |
| `x.reverse()`     | bit_reverse(x)                         | x's type                    |
| `x.bitcast()`     | bitcast(x)                             | intN/uintN <-> floatN       |
| `x[i] = b`        | x = bit_set(x, i, b)                   | x's type (no-op outside x)  |
| `x[lo:hi] = v`    | x = bit_setslice(x, lo, hi, v)         | x's type                    |

A bit index may be computed at run time. Compile-time slice bounds need 0 <= lo < hi <= width.
Bounds computed at run time (`x[p * 8:(p + 1) * 8]` in a loop over p, `x[lsb:msb]` of index
variables) become shifts and masks in x's width (`dynamic_slice`, `dynamic_slice_set`): the
result is UInt(hi - lo) when hi - lo is the same number for every run (a linear difference,
as upstream infers it), else UInt(width of x); bits beyond x read as 0 and writes there are
dropped. The HLS C++ uses ap_int's `[]`, `range(hi, lo)` and `reverse()`.

Example::

    bit_slice(Load(X, [i]), 4, 8)    # MathCall("bit_slice", [X[i], 4, 8], UInt(4))
"""
from __future__ import annotations

from ..errors import AlloTypeError
from . import emit
from .nodes import BinOp, Cast, Const, Expr, IterVar, Load, MathCall
from .ops import BinOpKind, MathFn
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


def _is_dynamic(lo, hi) -> bool:
    return isinstance(lo, Expr) or isinstance(hi, Expr)


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


def bit_slice(x, lo, hi, step=None, loc=None) -> Expr:
    x = _integer(x, "x[lo:hi]")
    if _is_dynamic(lo, hi):
        return dynamic_slice(x, lo, hi, step, loc)
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
    if _is_dynamic(lo, hi):
        return dynamic_slice_set(x, lo, hi, step, v, loc)
    lo, hi = slice_bounds(lo, hi, step, x)
    v = emit.to_expr(v, UInt(hi - lo), loc)
    if not isinstance(v.type, (Int, UInt, Index)):
        raise AlloTypeError(f"x[{lo}:{hi}] = v needs an integer v, got {v.type!r}")
    return MathCall(MathFn.BIT_SETSLICE, [x, Const(lo, index, loc), Const(hi, index, loc), _low_bits(v, hi - lo, loc)],
                    x.type, loc)


# ----------------------------------------------------------------------------- run-time bounds
def dynamic_slice(x: Expr, lo, hi, step=None, loc=None) -> Expr:
    """`x[lo:hi]` with bounds computed at run time: (x >> lo) & mask, in x's width unsigned."""
    u, lo_e, hi_e, w = _dynamic_bounds(x, lo, hi, step, loc)
    got = BinOp(BinOpKind.AND, _shift(BinOpKind.SHR, _unsigned(x, loc), lo_e, loc), _mask(u, w, lo_e, hi_e, loc), u,
                loc)
    return emit.cast(got, UInt(w), loc) if w is not None else got


def dynamic_slice_set(x: Expr, lo, hi, step, v, loc=None) -> Expr:
    """x with bits lo..hi-1 (run-time bounds) replaced by the low bits of v:
    (x & ~(mask << lo)) | ((v & mask) << lo), in x's width unsigned, then x's type again."""
    u, lo_e, hi_e, w = _dynamic_bounds(x, lo, hi, step, loc)
    v = emit.to_expr(v, x.type, loc)
    if not isinstance(v.type, (Int, UInt, Index)):
        raise AlloTypeError(f"x[lo:hi] = v needs an integer v, got {v.type!r}")
    mask = _mask(u, w, lo_e, hi_e, loc)
    ones = Const((1 << u.bits) - 1, u, loc)
    keep = BinOp(BinOpKind.XOR, _shift(BinOpKind.SHL, mask, lo_e, loc), ones, u, loc)
    new = BinOp(BinOpKind.AND, emit.cast(v, u, loc) if not isinstance(v.type, Index) else
                emit.cast(emit.cast(v, int64, loc), u, loc), mask, u, loc)
    out = BinOp(BinOpKind.OR, BinOp(BinOpKind.AND, _unsigned(x, loc), keep, u, loc),
                _shift(BinOpKind.SHL, new, lo_e, loc), u, loc)
    return emit.cast(out, x.type, loc)


def _dynamic_bounds(x, lo, hi, step, loc):
    """(unsigned type of x's width, lo, hi as that type, hi - lo when a compile-time number)."""
    if step is not None:
        raise AlloTypeError("bit slices take no step: write x[lo:hi]")
    width = x.type.bits
    lo = 0 if lo is None else lo
    hi = width if hi is None else hi
    for b in (lo, hi):
        if isinstance(b, float) or (isinstance(b, Expr) and not isinstance(b.type, (Int, UInt, Index))):
            raise AlloTypeError(f"bit slice bounds must be integers, got {getattr(b, 'type', b)!r}")
    w = _difference(hi, lo)
    if w is not None and not 0 < w <= width:
        raise AlloTypeError(f"bit slice x[lo:hi] of {x.type!r} spans {w} bits; need 0 < hi - lo <= {width}")
    u = UInt(width)
    return u, _amount(lo, loc), _amount(hi, loc), w


def _amount(b, loc) -> Expr:
    if not isinstance(b, Expr):
        return Const(int(b), index, loc)
    return b if isinstance(b.type, Index) else emit.cast(b, index, loc)


def _shift(op, a: Expr, amount: Expr, loc) -> Expr:
    return BinOp(op, a, emit.cast(emit.cast(amount, int64, loc), a.type, loc), a.type, loc)


def _unsigned(x: Expr, loc) -> Expr:
    return emit.cast(x, UInt(x.type.bits), loc) if not isinstance(x.type, UInt) else x


def _mask(u, w, lo_e, hi_e, loc) -> Expr:
    """hi - lo ones: a constant when the width is known, else all-ones >> (width - (hi - lo))."""
    if w is not None:
        return Const((1 << w) - 1, u, loc)
    span = emit.binary(BinOpKind.SUB, hi_e, lo_e, loc)
    return _shift(BinOpKind.SHR, Const((1 << u.bits) - 1, u, loc), emit.binary(BinOpKind.SUB, u.bits, span, loc), loc)


def _difference(hi, lo):
    """hi - lo when it is the same number whatever the run-time values (both linear), else None."""
    a, b = _linear(hi), _linear(lo)
    if a is None or b is None:
        return None
    diff = {k: a.get(k, 0) - b.get(k, 0) for k in set(a) | set(b)}
    if any(c for k, c in diff.items() if k is not None):
        return None
    return diff.get(None, 0)


def _linear(e):
    """{atom id: coefficient, None: constant} of an integer expression, or None when not linear.
    Atoms: loop variables and scalar loads (read at the same moment within one slice)."""
    if emit.is_number(e) and not isinstance(e, float):
        return {None: int(e)}
    if isinstance(e, Const) and isinstance(e.value, int):
        return {None: int(e.value)}
    if isinstance(e, IterVar):
        return {id(e): 1}
    if isinstance(e, Load) and not e.indices:
        return {("load", id(e.buf)): 1}
    if isinstance(e, Cast) and isinstance(e.type, (Int, UInt, Index)):
        return _linear(e.value)
    if isinstance(e, BinOp) and e.op in (BinOpKind.ADD, BinOpKind.SUB, BinOpKind.MUL):
        a, b = _linear(e.lhs), _linear(e.rhs)
        if a is None or b is None:
            return None
        if e.op == BinOpKind.MUL:
            if set(a) == {None}:
                a, b = b, a
            if set(b) - {None}:
                return None
            return {k: c * b.get(None, 0) for k, c in a.items()}
        sign = 1 if e.op == BinOpKind.ADD else -1
        return {k: a.get(k, 0) + sign * b.get(k, 0) for k in set(a) | set(b)}
    return None


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

