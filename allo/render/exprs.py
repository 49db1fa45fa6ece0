"""Expressions of the MLIR renderer (a mixin of `_FuncRenderer`), dispatched through the `_EXPRS`
table; operators go to `ArithMixin`, conversions to `CastMixin`.

Example::

    v = self.expr_as(e, Float(32))    # SSA name of expression e converted to f32
"""
from __future__ import annotations

import math

from ..ir import nodes as N
from ..ir.bits import BIT_FUNCS
from ..ir.ops import LOGIC_OPS, BinOpKind, MathFn, UnaryOpKind
from ..ir.promote import common
from ..ir.types import Fixed, Float, Int, UFixed, UInt, is_fixed
from .arith import CMP
from .bitops import render_bit_op
from .scalars import cat, int_literal

MATH = {MathFn.EXP: "math.exp", MathFn.LOG: "math.log", MathFn.LOG2: "math.log2", MathFn.SQRT: "math.sqrt",
         MathFn.RSQRT: "math.rsqrt", MathFn.TANH: "math.tanh", MathFn.SIN: "math.sin", MathFn.COS: "math.cos",
         MathFn.ERF: "math.erf", MathFn.FLOOR: "math.floor", MathFn.CEIL: "math.ceil"}


class ExprMixin:
    """Expression handlers; the host class provides `op`/`const`/`iconst`/`error`, `load` and
    `env`. A subclass that overrides a handler must also put it in its own `_EXPRS`."""

    def expr(self, e) -> str:
        """The SSA value of e. A node shared within one expression (the expansion of a rounding /
        saturating cast reads its operand several times, fixed_modes.py) is emitted once: without
        that, its text grows exponentially with chained mode casts. The memo lives for one
        outermost call only (expressions emit straight-line code; callers may rebind loop
        variables or open regions between calls)."""
        memo = getattr(self, "memo", None)
        if memo is None:
            self.memo = {}
            try:
                return self._expr(e)
            finally:
                self.memo = None
        if id(e) in memo:
            return memo[id(e)][1]
        v = self._expr(e)
        if not isinstance(e, (N.Const, N.IterVar)):
            memo[id(e)] = (e, v)  # e kept alive so that its id is not reused meanwhile
        return v

    def _expr(self, e) -> str:
        handler = self._EXPRS.get(type(e))
        if handler is None:
            raise self.error(f"unsupported expression {type(e).__name__}")
        if getattr(e, "loc", None) is not None:
            prev, self.loc = self.loc, e.loc
            try:
                return handler(self, e)
            finally:
                self.loc = prev
        return handler(self, e)

    def expr_as(self, e, t) -> str:
        return self.cast(self.expr(e), e.type, t)

    def as_bool(self, e) -> str:
        return self.expr_as(e, UInt(1))

    def e_const(self, e: N.Const):
        return self.const(e.value, e.type)

    def e_itervar(self, e: N.IterVar):
        b = self.env.get(e)
        if b is None:
            raise self.error(f"loop variable {e.name!r} used outside its loop")
        return b[0]

    def e_load(self, e: N.Load):
        return self.load(e)

    def e_binop(self, e: N.BinOp):
        op = e.op
        if op in LOGIC_OPS:
            a, b = self.as_bool(e.lhs), self.as_bool(e.rhs)
            return self.op(f"arith.{'andi' if op == BinOpKind.LAND else 'ori'} {a}, {b} : i1")
        if op in CMP:
            t = e.lhs.type
            a, b = self.expr(e.lhs), self.expr_as(e.rhs, t)
            return self.compare(op, a, b, t)
        t = e.type
        if op == BinOpKind.MUL and is_fixed(t) and t.frac:
            v = self.fixed_product(e)
            if v is not None:
                return v
        a = self.expr_as(e.lhs, t)
        if op in (BinOpKind.SHL, BinOpKind.SHR) and is_fixed(t):  # the amount: an integer of t's raw width
            return self.arith(op, a, self.expr(e.rhs), t)
        return self.arith(op, a, self.expr_as(e.rhs, t), t)

    def fixed_product(self, e):
        """`a * b` in fixed type t when both operands are exact conversions of values whose
        fraction bits add up to t's (bit growth makes every product like that): the raw product
        is then the result, at t's width, without the double-width multiply and shift."""
        t = e.type
        srcs = [_exact_source(x, t) for x in (e.lhs, e.rhs)]
        fracs = [f for _, f in srcs]
        if None in fracs:
            known = [f for f in fracs if f is not None]
            if not known or known[0] > t.frac:
                return None
            fracs = [f if f is not None else t.frac - known[0] for f in fracs]
        if sum(fracs) != t.frac:
            return None
        raws = []
        for (x, _), f in zip(srcs, fracs):
            if isinstance(x, N.Const):
                scaled = x.value * 2 ** f
                if scaled != math.floor(scaled):
                    return None
                raws.append(self.op(f"arith.constant {int_literal(int(scaled), t.bits)} : {t.mlir}"))
            else:
                signed = isinstance(x.type, (Int, Fixed))
                raws.append(self.resize(self.expr(x), x.type.bits, t.bits, signed))
        return self.op(f"arith.muli {raws[0]}, {raws[1]} : {t.mlir}")

    def e_unary(self, e: N.UnaryOp):
        t = e.type
        if e.op == UnaryOpKind.NOT:
            x = self.as_bool(e.operand)
            return self.op(f"arith.xori {x}, {self.iconst(1, 'i1')} : i1")
        x = self.expr_as(e.operand, t)
        if e.op == UnaryOpKind.NEG:
            if isinstance(t, Float):
                return self.op(f"arith.negf {x} : {t.mlir}")
            return self.op(f"arith.subi {self.iconst(0, t.mlir)}, {x} : {t.mlir}")
        if e.op == UnaryOpKind.INVERT:
            if isinstance(t, Float):
                raise self.error(f"bitwise invert (~) is not defined on {t!r}")
            return self.op(f"arith.xori {x}, {self.iconst(-1, t.mlir)} : {t.mlir}")
        raise self.error(f"unsupported unary operator {e.op!r}")

    def e_cast(self, e: N.Cast):
        return self.expr_as(e.value, e.type)

    def e_select(self, e: N.Select):
        c = self.as_bool(e.cond)
        a, b = self.expr_as(e.a, e.type), self.expr_as(e.b, e.type)
        return self.op(f"arith.select {c}, {a}, {b} : {e.type.mlir}")

    def e_math(self, e: N.MathCall):
        t, fn = e.type, e.fn
        if fn in BIT_FUNCS:
            return render_bit_op(self, e)
        if fn == MathFn.ABS:
            x = self.expr_as(e.args[0], t)
            c = cat(t)
            if c == "f":
                return self.op(f"math.absf {x} : {t.mlir}")
            if c in ("s", "sfx"):
                return self.op(f"math.absi {x} : {t.mlir}")
            return x
        if fn == MathFn.POW and not isinstance(t, Float):
            return self.int_pow(self.expr_as(e.args[0], t), self.expr_as(e.args[1], t), t)
        # 16-bit floats and non-float results compute in f32/f64 (libm has no f16 entry points)
        ct = t if isinstance(t, Float) and t.bits >= 32 else (Float(32) if isinstance(t, Float) else Float(64))
        args = [self.expr_as(a, ct) for a in e.args]
        ty = ct.mlir
        if fn == MathFn.SIGMOID:
            neg = self.op(f"arith.negf {args[0]} : {ty}")
            ex = self.op(f"math.exp {neg} : {ty}")
            one = self.const(1.0, ct)
            den = self.op(f"arith.addf {one}, {ex} : {ty}")
            v = self.op(f"arith.divf {one}, {den} : {ty}")
        elif fn == MathFn.POW:
            v = self.op(f"math.powf {args[0]}, {args[1]} : {ty}")
        elif fn in MATH:
            v = self.op(f"{MATH[fn]} {args[0]} : {ty}")
        else:
            raise self.error(f"unsupported math function {fn!r}")
        return self.cast(v, ct, t)

    _EXPRS = {N.Const: e_const, N.IterVar: e_itervar, N.Load: e_load, N.BinOp: e_binop, N.UnaryOp: e_unary,
              N.Cast: e_cast, N.Select: e_select, N.MathCall: e_math}


def _exact_source(x, t):
    """(value, its fraction bits) under an exact conversion to fixed type t; a constant's fraction
    bits are free (None); anything else is taken as it is in t."""
    if isinstance(x, N.Const) and isinstance(x.value, (int, float)) and not isinstance(x.value, bool):
        return x, None
    if isinstance(x, N.Cast) and isinstance(x.value.type, (Int, UInt, Fixed, UFixed)) and common(x.value.type, t) == t:
        return x.value, getattr(x.value.type, "frac", 0)
    return x, t.frac
