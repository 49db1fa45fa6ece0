"""Floating-point expressions of the static RTL: every IR node that produces or reads a float
printed as calls of the float32 units (allo.backend.rtl.static.float), bit-exact with the LLVM
build. `ExprEmitter.float_op` hands such nodes here.

Covered: float32 + - * / // % min max, the six comparisons (ordered, != unordered, as
allo.render), unary minus, abs, floor, ceil, sqrt, exp, log, log2, pow (and ** with a non-literal
or non-small exponent), sin, cos, tanh, sigmoid, rsqrt, erf (float/f32_*.sv), select, and/or/not
of floats (x != 0), constants, bitcasts, and casts float32 <-> bool / int / uint (8..64 bits) /
index / Fixed / UFixed (raw width <= 64). Other float types (float16, bfloat16, float64) raise a
BackendError naming the operation and the kernel line.

Example::

    em = ExprEmitter()
    em.emit(BinOp("add", a, b, float32), ["a", "b"])   # 'allo_fu0', an allo_f32_add_m's output
    em.functions(), em.instances(), em.modules()       # '', its instance line, its module
    em.emit_pipelined(BinOp("add", a, b, float32), ["a", "b"], 7, "u0_en")
    # ('allo_fu1', 'allo_fu1_e'): an allo_f32_add_p #(7) on clock and enable u0_en, its early value
"""
from __future__ import annotations


from ....errors import BackendError, located
from ....ir import nodes as N
from ....ir.ops import CMP_OPS, LOGIC_OPS, BinOpKind, MathFn, UnaryOpKind
from ....ir.types import Float, Index, is_bool, is_fixed, is_signed
import numpy as np

from ....ir import visit as V
from ....ir.visit import child_exprs
from .float import MODULES, PIPELINED
from .svfuncs import iso, lit

# comparison -> LLVM fcmp predicate number (f32_cmp.sv): olt, ole, ogt, oge, oeq, une
PRED = {BinOpKind.LT: 4, BinOpKind.LE: 5, BinOpKind.GT: 2, BinOpKind.GE: 3, BinOpKind.EQ: 1, BinOpKind.NE: 14}
UNE = 14
# one-argument math functions -> their unit file (float/f32_*.sv)
MATH_UNITS = {MathFn.SQRT: "f32_sqrt", MathFn.EXP: "f32_exp", MathFn.TANH: "f32_tanh", MathFn.SIGMOID: "f32_sigmoid",
              MathFn.RSQRT: "f32_rsqrt", MathFn.ERF: "f32_erf",
              MathFn.LOG: "f32_log", MathFn.LOG2: "f32_log2"}


def f32_bits(value) -> int:
    """The binary32 bit pattern of a Python number (rounded to float32 as numpy does).

    Example: `f32_bits(1.0)` is 0x3f800000."""
    return int(np.array(value, dtype=np.float32).view(np.uint32))


def float_bits(value, t) -> int:
    """The bit pattern of a constant of float type `t` (bfloat16: the top half of its float32)."""
    if t.brain:  # float32 rounded to nearest even at 16 bits
        u = f32_bits(value)
        return (u >> 16) | 0x40 if (u >> 23) & 0xff == 0xff and u & 0x7fffff else (u + 0x7fff + ((u >> 16) & 1)) >> 16
    return int(np.array(value, dtype=f"f{t.bits // 8}").view(f"u{t.bits // 8}"))


def _is_f32(t) -> bool:
    return isinstance(t, Float) and t.bits == 32 and not t.brain


def _what(e) -> str:
    if isinstance(e, N.BinOp):
        return f"operator {e.op!r} on {e.lhs.type!r}, {e.rhs.type!r}"
    if isinstance(e, N.UnaryOp):
        return f"unary {e.op!r} on {e.operand.type!r}"
    if isinstance(e, N.Cast):
        return f"cast {e.value.type!r} -> {e.type!r}"
    if isinstance(e, N.MathCall):
        return f"{e.fn}() on {', '.join(repr(a.type) for a in e.args)} -> {e.type!r}"
    if isinstance(e, N.Select):
        return f"select of {e.type!r}"
    if isinstance(e, N.Const):
        return f"constant {e.value!r} of {e.type!r}"
    return type(e).__name__


class FloatPrinter:
    """The float half of an ExprEmitter `em` (its `funits` collects the units used)."""

    def __init__(self, em):
        self.em = em

    def unit(self, name: str) -> str:
        return self.em.funits.use(name)

    def call(self, name: str, *args) -> str:
        """Unit `name` on the SV expressions `args`: an instance of its module (a module unit,
        float/__init__.py), else a call of its function."""
        pipe = getattr(self.em, "pipe", None)
        if pipe is not None and name in PIPELINED:  # the node's unit: its latency inside it
            self.em.pipe = None
            lat, en, clk = pipe
            self.em.piped = self.em.funits.instance(name, args, lat=lat, en=en, clk=clk)
            return self.em.piped
        if name in MODULES:
            return self.em.funits.instance(name, args)
        return f"{self.unit(name)}({', '.join(a.strip() for a in args)})"

    def fail(self, e, why: str) -> BackendError:
        return located(BackendError, f"static RTL: floating-point {_what(e)} {why}", getattr(e, "loc", None))

    def check(self, e, *types):
        for t in types:
            if isinstance(t, Float) and not _is_f32(t):
                raise self.fail(e, f"is not supported: the hardware float units are float32 only ({t!r} has "
                                   "no unit; cast to float32 in the kernel)")

    # ------------------------------------------------------------------ entry
    def emit(self, e, args) -> str:
        self.node = e
        if isinstance(e, N.Const):
            if not isinstance(e.type, Float):
                return self.em.literal(e.value, e.type)
            return lit(float_bits(e.value, e.type), e.type.bits)
        kids = [getattr(k, "type", None) for k in _children(e)]
        self.check(e, getattr(e, "type", None), *kids)
        if isinstance(e, N.Cast):
            return self.cast(args[0], e.value.type, e.type)
        if isinstance(e, N.BinOp):
            return self.binop(e, args)
        if isinstance(e, N.UnaryOp):
            return self.unary(e, args)
        if isinstance(e, N.Select):
            c = self.as_bool(args[0], e.cond.type)
            a, b = self.cast(args[1], e.a.type, e.type), self.cast(args[2], e.b.type, e.type)
            return f"{{{_iso(c)} ? {_iso(a)} : {_iso(b)}}}"
        if isinstance(e, N.MathCall):
            return self.math(e, args)
        raise self.fail(e, "has no hardware unit in the static RTL")

    # ------------------------------------------------------------------ pieces
    def as_bool(self, x: str, t) -> str:
        if isinstance(t, Float):
            return f"{self.unit('f32_cmp')}({x.strip()}, {lit(0, 32)}, 4'd{UNE})"
        return self.em.as_bool(x, t)

    def cast(self, x: str, s, d) -> str:
        """SV value `x` of type `s` as type `d` (allo's cast rules, float32 on one side at least)."""
        if s == d:
            return x
        fs, fd = isinstance(s, Float), isinstance(d, Float)
        if not fs and not fd:
            return self.em.cast(x, s, d)
        if fs and fd:
            raise self.fail(self.node, "is not supported: the hardware float units are float32 only")
        if fd:  # to float32
            if isinstance(s, Index):
                return f"{self.unit('f32_from_int')}({x.strip()}, 1'b1)"
            if s.bits > 64:
                raise self.fail(self.node, f"is not supported: {s!r} is wider than the 64-bit conversion unit")
            signed = is_signed(s) and not is_bool(s)
            x64 = self.em.resize(x, s.bits, 64, signed)
            if is_fixed(s):
                return f"{self.unit('f32_from_fixed')}({x64.strip()}, 1'b{int(signed)}, {lit(s.frac, 12)})"
            return f"{self.unit('f32_from_int')}({x64.strip()}, 1'b{int(signed)})"
        if is_bool(d):  # from float32
            return self.as_bool(x, s)
        if isinstance(d, Index):
            return f"{self.unit('f32_to_fixed')}({x.strip()}, {lit(0, 12)}, 1'b0)"
        if d.bits > 64:
            raise self.fail(self.node, f"is not supported: {d!r} is wider than the 64-bit conversion unit")
        frac = d.frac if is_fixed(d) else 0
        r = f"{self.unit('f32_to_fixed')}({x.strip()}, {lit(frac, 12)}, 1'b{int(is_fixed(d))})"
        return self.em.resize(r, 64, d.bits, True)

    def binop(self, e, args):
        a, b = args
        op = e.op
        if op in LOGIC_OPS:
            x, y = self.as_bool(a, e.lhs.type), self.as_bool(b, e.rhs.type)
            return f"{{{_iso(x)} {'&' if op == BinOpKind.LAND else '|'} {_iso(y)}}}"
        if op in CMP_OPS:
            t = e.lhs.type
            if not isinstance(t, Float):
                raise self.fail(e, "compares a non-float left operand with a float (cast it first)")
            b = self.cast(b, e.rhs.type, t)
            return f"{self.unit('f32_cmp')}({a.strip()}, {b.strip()}, 4'd{PRED[op]})"
        t = e.type
        if not isinstance(t, Float):
            raise self.fail(e, f"has no hardware unit (result type {t!r})")
        a, b = self.cast(a, e.lhs.type, t).strip(), self.cast(b, e.rhs.type, t).strip()
        if op in (BinOpKind.ADD, BinOpKind.SUB):
            return self.call("f32_add", a, b, f"1'b{int(op == BinOpKind.SUB)}")
        if op == BinOpKind.MUL:
            return self.call("f32_mul", a, b)
        if op == BinOpKind.DIV:
            return self.call("f32_div", a, b)
        if op in (BinOpKind.MIN, BinOpKind.MAX):
            return f"{self.unit('f32_minmax')}({a}, {b}, 1'b{int(op == BinOpKind.MAX)})"
        if op == BinOpKind.FLOORDIV:  # floor(a / b), as the LLVM build
            return self.call("f32_round", self.call("f32_div", a, b), "1'b0")
        if op == BinOpKind.MOD:
            return self.call("f32_mod", a, b)
        if op == BinOpKind.POW:
            return self.call("f32_pow", a, b)
        raise self.fail(e, "has no hardware unit in the static RTL yet (float32 + - * / // % ** min max "
                           "and comparisons are supported)")

    def unary(self, e, args):
        if e.op == UnaryOpKind.NOT:
            return f"{{~{_iso(self.as_bool(args[0], e.operand.type))}}}"
        t = e.type
        x = self.cast(args[0], e.operand.type, t)
        if e.op == UnaryOpKind.NEG and isinstance(t, Float):
            return f"{self.unit('f32_sign')}({x.strip()}, 1'b0)"
        raise self.fail(e, "has no hardware unit in the static RTL")

    def math(self, e, args):
        fn, t = e.fn, e.type
        if fn == MathFn.BITCAST:
            if e.args[0].type.bits != t.bits:
                raise self.fail(e, "changes the width")
            return args[0]
        if fn == MathFn.ABS and isinstance(t, Float):
            return f"{self.unit('f32_sign')}({self.cast(args[0], e.args[0].type, t).strip()}, 1'b1)"
        if not isinstance(t, Float):
            raise self.fail(e, f"has no hardware unit (result type {t!r})")
        xs = [self.cast(x, a.type, t).strip() for x, a in zip(args, e.args)]
        if fn in MATH_UNITS:
            return self.call(MATH_UNITS[fn], xs[0])
        if fn in (MathFn.FLOOR, MathFn.CEIL):
            return f"{self.unit('f32_round')}({xs[0]}, 1'b{int(fn == MathFn.CEIL)})"
        if fn in (MathFn.SIN, MathFn.COS):
            return self.call("f32_trig", xs[0], f"1'b{int(fn == MathFn.COS)}")
        if fn == MathFn.POW:
            return self.call("f32_pow", xs[0], xs[1])
        raise self.fail(e, "has no hardware unit in the static RTL yet (of the math functions abs, floor, ceil, "
                           f"pow, sin, cos, {', '.join(map(str, MATH_UNITS))} have float32 units)")


def _children(e):
    return child_exprs(e)


def _iso(x: str) -> str:
    return iso(x)





def check_float_types(func):
    """BackendError (with the kernel line) for the first operation on a float type without hardware
    units (float16, bfloat16, float64) in `func`; loads, stores and constants of them are bits."""
    bad = lambda t: isinstance(t, Float) and not _is_f32(t)  # noqa: E731
    for s in V.walk_stmts(func.body):
        for e in V.stmt_exprs(s):
            for x in V.walk_expr(e):
                if isinstance(x, (N.Const, N.Load)):
                    continue  # moving the bits of any float needs no unit
                if any(bad(t) for t in [getattr(x, "type", None)] + [getattr(k, "type", None) for k in _children(x)]):
                    raise located(BackendError, f"static RTL: floating-point {_what(x)} is not supported: the "
                                  "hardware float units are float32 only (compute in float32 in the kernel, or "
                                  "build for 'llvm'/'vhls')", getattr(x, "loc", None) or s.loc)


__all__ = ["FloatPrinter", "f32_bits", "PRED", "check_float_types"]
