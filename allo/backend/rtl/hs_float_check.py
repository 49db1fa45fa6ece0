"""Which float operations the handshake route (hs_float/) has units for (checked on allo's IR,
so that the error names the kernel's operation and line).

float32 only: + - * / // % ** min max, the comparisons, and / or / not of floats, negation, abs,
sqrt, floor, ceil, the math functions of the static circuit's units (exp, log, log2, tanh, erf,
rsqrt, sigmoid, sin, cos, pow), select, bitcast, constants, loads and stores, and casts between
float32 and bool / index / integers / Fixed / UFixed of up to 64 bits. Anything on float64,
float16 or bfloat16 is a BackendError naming the operation and its line.

Example::

    check_handshake_floats([top_func])     # raises for `t: float64 = A[i]`
"""
from __future__ import annotations

from ...errors import BackendError, located
from ...ir import nodes as N
from ...ir import visit as V
from ...ir.ops import CMP_OPS, LOGIC_OPS, BinOpKind, MathFn, UnaryOpKind
from ...ir.types import ArrayType, Float
from ...ir.visit import child_exprs

_BINOPS = set(CMP_OPS) | set(LOGIC_OPS) | {BinOpKind.ADD, BinOpKind.SUB, BinOpKind.MUL, BinOpKind.DIV,
                                           BinOpKind.FLOORDIV, BinOpKind.MOD, BinOpKind.MIN, BinOpKind.MAX,
                                           BinOpKind.POW}
_MATH = {MathFn.SQRT, MathFn.ABS, MathFn.FLOOR, MathFn.CEIL, MathFn.BITCAST, MathFn.EXP, MathFn.LOG, MathFn.LOG2,
         MathFn.TANH, MathFn.ERF, MathFn.RSQRT, MathFn.SIGMOID, MathFn.SIN, MathFn.COS, MathFn.POW}
_UNARY = {UnaryOpKind.NEG, UnaryOpKind.NOT}
COVERED = ("float32 + - * / // % ** min max, comparisons, neg, abs, sqrt, floor, ceil, exp, log, log2, tanh, erf, "
           "rsqrt, sigmoid, sin, cos, pow, select and casts to and from bool/int/uint/index/Fixed/UFixed of up to 64 "
           "bits")


def _f32(t) -> bool:
    return isinstance(t, Float) and t.bits == 32 and not t.brain


def _msg(what: str) -> str:
    return (f"the handshake circuit (scheduling='dynamic') has no floating-point unit for this: {what}. Its units "
            f"cover {COVERED}; compute in float32, or build for 'llvm'/'vhls'")


def _what(x) -> str:
    if isinstance(x, N.BinOp):
        return f"the operator {x.op!r}"
    if isinstance(x, N.UnaryOp):
        return f"the operator {x.op!r}"
    if isinstance(x, N.MathCall):
        return f"{x.fn}()"
    if isinstance(x, N.Cast):
        return f"the cast from {x.value.type!r} to {x.type!r}"
    return f"a {type(x).__name__.lower()}"


def _wide(t) -> bool:
    return not isinstance(t, Float) and getattr(t, "bits", 0) > 64


def _problem(x) -> str | None:
    """What in expression node `x` has no unit, or None."""
    t = getattr(x, "type", None)
    kids = [getattr(k, "type", None) for k in child_exprs(x)]
    floats = [u for u in [t, *kids] if isinstance(u, Float)]
    if not floats:
        return None
    bad = [u for u in floats if not _f32(u)]
    if bad and not isinstance(x, (N.Load, N.Const)):
        return f"{_what(x)} on {bad[0]!r}"
    if isinstance(x, N.BinOp) and x.op not in _BINOPS:
        return f"the operator {x.op!r} on {x.lhs.type!r}"
    if isinstance(x, N.UnaryOp) and x.op not in _UNARY:
        return f"the operator {x.op!r} on {x.operand.type!r}"
    if isinstance(x, N.MathCall) and (x.fn not in _MATH or not isinstance(t, Float) and x.fn != MathFn.BITCAST):
        return f"{x.fn}() on {', '.join(repr(u) for u in kids)}"
    if isinstance(x, N.Cast) and (_wide(t) or _wide(x.value.type)):
        return f"the cast from {x.value.type!r} to {t!r} (wider than 64 bits)"
    return None


def check_handshake_floats(funcs):
    """BackendError (kernel file:line) for the first float operation of `funcs` without a unit."""
    for f in funcs:
        for p in f.params:
            if isinstance(p.dtype, Float) and not _f32(p.dtype):
                raise located(BackendError, _msg(f"argument {p.name!r} of {f.name!r} is {p.dtype!r}"),
                              p.loc or f.loc)
        for rt in f.result_types:
            t = rt.dtype if isinstance(rt, ArrayType) else rt
            if isinstance(t, Float) and not _f32(t):
                raise located(BackendError, _msg(f"{f.name!r} returns {rt!r}"), f.loc)
        for s in V.walk_stmts(f.body):
            if isinstance(s, N.Alloc) and isinstance(s.buf.dtype, Float) and not _f32(s.buf.dtype):
                raise located(BackendError, _msg(f"local {s.buf.name!r} is {s.buf.type!r}"), s.loc or s.buf.loc)
            for e in V.stmt_exprs(s):
                for x in V.walk_expr(e):
                    what = _problem(x)
                    if what is not None:
                        raise located(BackendError, _msg(what), getattr(x, "loc", None) or s.loc)


__all__ = ["check_handshake_floats", "COVERED"]
