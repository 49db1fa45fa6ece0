"""C++ expressions for the HLS emitter: precedence-aware text, literals, casts, helper functions.

Every format function returns `Code(text, prec)`; parentheses appear only where C needs them or
where GCC's -Wparentheses asks for them. Every result whose C type would differ from its allo
type (integer promotion, half computed in float, odd widths, fixed point) is cast back, so the
C++ computes exactly what the IR means, bit for bit like allo's LLVM backend.

Example::

    const_text(1.5, float32)          # Code('1.5f', ATOM)
    cast("int8_t", Code("a + b", ADD))  # Code('(int8_t)(a + b)', UNARY)
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...errors import BackendError
from ...ir import nodes as N
from ...ir.attrs import STREAM, STREAM_SPACE
from ...ir.bits import BIT_FUNCS
from ...ir.ops import CMP_OPS, LOGIC_OPS, BinOpKind, MathFn, UnaryOpKind
from ...ir.promote import common
from ...ir.types import Fixed, Float, Index, Int, UFixed, UInt, is_bool, is_fixed
from .helpers import HALF_MATH, HELPERS
from .types import cpp_type, is_ap, is_native

# ----------------------------------------------------------------------------- precedence
ATOM, UNARY, MUL, ADD, SHIFT, REL, EQ, BAND, BXOR, BOR, LAND, LOR, COND = 16, 15, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3


class Code(NamedTuple):
    text: str
    prec: int


def par(c: Code, need: int) -> str:
    """`c` as an operand that must bind at least as tightly as `need`."""
    return c.text if c.prec >= need else f"({c.text})"


def cast(ctype: str, c: Code) -> Code:
    return Code(f"({ctype}){par(c, UNARY)}", UNARY)


def negate(c: Code) -> Code:
    """`-c`; an operand that starts with '-' gets parentheses (`--x` would be a decrement)."""
    text = par(c, UNARY)
    return Code(f"-({text})" if text.startswith(("-", "+")) else f"-{text}", UNARY)


# op -> (C operator, precedence, precedence needed left, needed right). Bitwise, shift and
# logical operands get parentheses around any binary operator to keep -Wparentheses quiet.
_INFIX = {
    BinOpKind.ADD: ("+", ADD, ADD, MUL), BinOpKind.SUB: ("-", ADD, ADD, MUL),
    BinOpKind.MUL: ("*", MUL, MUL, UNARY), BinOpKind.DIV: ("/", MUL, MUL, UNARY), BinOpKind.MOD: ("%", MUL, MUL, UNARY),
    BinOpKind.SHL: ("<<", SHIFT, UNARY, UNARY), BinOpKind.SHR: (">>", SHIFT, UNARY, UNARY),
    BinOpKind.AND: ("&", BAND, UNARY, UNARY), BinOpKind.OR: ("|", BOR, UNARY, UNARY),
    BinOpKind.XOR: ("^", BXOR, UNARY, UNARY),
    BinOpKind.LT: ("<", REL, SHIFT, SHIFT), BinOpKind.LE: ("<=", REL, SHIFT, SHIFT),
    BinOpKind.GT: (">", REL, SHIFT, SHIFT), BinOpKind.GE: (">=", REL, SHIFT, SHIFT),
    BinOpKind.EQ: ("==", EQ, SHIFT, SHIFT), BinOpKind.NE: ("!=", EQ, SHIFT, SHIFT),
    BinOpKind.LAND: ("&&", LAND, EQ, EQ), BinOpKind.LOR: ("||", LOR, EQ, EQ),
}
_COMPARE = set(CMP_OPS + LOGIC_OPS)
_NONNEG_OPS = (BinOpKind.ADD, BinOpKind.MUL, BinOpKind.FLOORDIV, BinOpKind.MOD, BinOpKind.MIN, BinOpKind.MAX)
FIXED_OK = {BinOpKind.ADD, BinOpKind.SUB, BinOpKind.MUL, BinOpKind.DIV, BinOpKind.MIN, BinOpKind.MAX, BinOpKind.AND,
             BinOpKind.OR, BinOpKind.XOR}

# Math functions on float/double (std:: overloads keep float in float); half computes in float.
MATH = {
    MathFn.EXP: "std::exp({0})", MathFn.LOG: "std::log({0})", MathFn.LOG2: "std::log2({0})",
    MathFn.SQRT: "std::sqrt({0})", MathFn.TANH: "std::tanh({0})", MathFn.SIN: "std::sin({0})",
    MathFn.COS: "std::cos({0})", MathFn.ERF: "std::erf({0})", MathFn.ABS: "std::abs({0})",
    MathFn.FLOOR: "std::floor({0})", MathFn.CEIL: "std::ceil({0})", MathFn.POW: "std::pow({0}, {1})",
    MathFn.RSQRT: "{one} / std::sqrt({0})", MathFn.SIGMOID: "{one} / ({one} + std::exp({neg0}))",
}


# ----------------------------------------------------------------------------- literals
def float_literal(v: float, t: Float) -> str:
    v = float(v)
    if t.bits == 16:
        v = float(np.float16(v))
    if np.isnan(v):
        text = "NAN"
    elif np.isinf(v):
        text = "INFINITY" if v > 0 else "-INFINITY"
    elif t.bits == 64:
        text = repr(v)
    else:
        text = str(np.float32(v)) + "f"
    if t.bits == 64 and not np.isfinite(v):
        text = f"(double){text}"
    return text


def int_literal(v: int, t) -> str:
    """A C integer literal whose C type can hold `v` (suffixes only beyond int)."""
    v = int(v)
    if isinstance(t, UInt) and t.bits == 1:
        return "true" if v else "false"
    if -(2**31) < v < 2**31:
        return str(v)
    if v == -(2**31):
        return "(-2147483647 - 1)"
    if v == -(2**63):
        return "(-9223372036854775807LL - 1)"
    if isinstance(t, UInt) and v < 2**32:
        return f"{v}u"
    return f"{v}ULL" if v >= 2**63 else f"{v}LL"


def wide_int_text(v: int, t, need) -> Code:
    """A constant of ap type t whose value needs more than 64 bits: allo_words<T>(0, w_hi, ..., w_lo)."""
    ctype = cpp_type(t)
    bits = max(t.bits, 64)
    raw = int(v) & ((1 << bits) - 1)
    words = [(raw >> (64 * k)) & (2 ** 64 - 1) for k in reversed(range(-(-bits // 64)))]
    args = ", ".join(f"0x{w:X}ULL" for w in words)
    return Code(f"{need('allo_words')}<{ctype}>(({ctype})0, {args})", ATOM)


def _fits_64(v: int) -> bool:
    return -(2 ** 63) <= v < 2 ** 64


def const_text(value, t, typed: bool = False, need=None) -> Code:
    """A literal of allo type `t`. `typed` forces the exact C++ type (e.g. in `c ? x : 1`)."""
    if isinstance(t, Float):
        text = float_literal(value, t)
        if t.bits == 16:
            return Code(f"(half){text}", UNARY)
        return Code(text, UNARY if text.startswith(("-", "(")) else ATOM)
    if is_fixed(t):  # an int is exact at any width; a float is floored by the conversion
        if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
            if not -(2 ** 63) <= int(value) < 2 ** 63:
                k = max(int(value).bit_length() + 1, 65)
                return cast(cpp_type(t), wide_int_text(int(value), Int(k), need))
            return Code(f"({cpp_type(t)}){int_literal(int(value), Int(64))}", UNARY)
        return Code(f"({cpp_type(t)}){float(value)!r}", UNARY)
    if isinstance(value, float) and not float(value).is_integer():
        raise BackendError(f"integer constant of type {t!r} holds a non-integer {value!r}")
    if not _fits_64(int(value)) or (int(value) >= 2 ** 63 and isinstance(t, Int)):
        return wide_int_text(int(value), t, need)
    text = int_literal(value, t)
    if is_ap(t) or (typed and not is_native(t) and not (isinstance(t, UInt) and t.bits == 1)):
        return Code(f"({cpp_type(t)}){text}", UNARY)
    return Code(text, UNARY if text.startswith(("-", "(")) else ATOM)


# ----------------------------------------------------------------------------- expressions
class ExprEmitter:
    """Expression rendering, mixed into the function emitter. Needs `self.ctx.need(helper)`,
    `self.bname(buf)`, `self.var_names` / `self.nonneg_vars` (by IterVar id) and `self.func`."""

    def expr(self, e) -> Code:
        fmt = _EXPRS.get(type(e))
        if fmt is None:
            raise BackendError(f"HLS backend: unsupported expression {type(e).__name__}")
        return fmt(self, e)

    def value_as(self, e, t) -> Code:
        """`e` converted to allo type `t` by allo's cast rules (C's own conversions differ)."""
        return self.expr(e) if e.type == t else self.expr(N.Cast(e, t))

    def as_bool(self, e) -> Code:
        return self.value_as(e, BOOL)

    def operand(self, e, t) -> Code:
        """`e` as an operand of an operation computed in type `t` (half computes in float)."""
        c = self.value_as(e, t)
        return cast("float", c) if _is_half(t) else c

    def finish(self, c: Code, t, op: str = "") -> Code:
        """Bring a C arithmetic result back to allo type `t` (integer promotion, half, ap types)."""
        if is_native(t):
            return c
        if is_bool(t):
            if op in (BinOpKind.AND, BinOpKind.OR, BinOpKind.XOR):
                return cast("bool", c)
            return cast("bool", Code(f"{par(c, UNARY)} & 1", BAND))
        return cast(cpp_type(t), c)

    def e_const(self, e: N.Const) -> Code:
        return const_text(e.value, e.type, need=self.ctx.need)

    def e_var(self, e: N.IterVar) -> Code:
        if id(e) not in self.var_names:
            raise BackendError(f"loop variable {e.name!r} used outside its loop in {self.func.name!r}")
        return Code(self.var_names[id(e)], ATOM)

    def subscript(self, buf: N.Buffer, indices) -> str:
        """`name[i][j]` (FuncEmitter flattens the Vitis ports it indexes directly)."""
        return self.bname(buf) + "".join(f"[{i}]" for i in indices)

    def e_load(self, e: N.Load) -> Code:
        name = self.bname(e.buf)
        if len(e.indices) != len(e.buf.shape):
            raise BackendError(f"load of {e.buf.name!r} with {len(e.indices)} indices, rank {len(e.buf.shape)}")
        if e.buf.attrs.get(STREAM_SPACE):  # an array of FIFOs (space-time s.to): the space indices pick one
            return Code(name + "".join(f"[{self.expr(e.indices[d]).text}]" for d in e.buf.attrs[STREAM_SPACE])
                        + ".read()", ATOM)
        if e.buf.attrs.get(STREAM):  # a FIFO (s.to): elements arrive in row-major order
            port = self.block_port(e.buf, "reader")
            return Code(f"{port}.get({name})" if port else f"{name}.read()", ATOM)
        return Code(self.subscript(e.buf, [self.expr(i).text for i in e.indices]), ATOM)

    def e_binop(self, e: N.BinOp) -> Code:
        op = e.op
        if op in LOGIC_OPS:
            sym, prec, nl, nr = _INFIX[op]
            return Code(f"{par(self.as_bool(e.lhs), nl)} {sym} {par(self.as_bool(e.rhs), nr)}", prec)
        if op in _INFIX and op in _COMPARE:  # operands compared in the left operand's type
            t = e.lhs.type
            sym, prec, nl, nr = _INFIX[op]
            a, b = self.operand(e.lhs, t), self.operand(e.rhs, t)
            if a.text == b.text:
                return _self_compare(op, a, t)
            return Code(f"{par(a, nl)} {sym} {par(b, nr)}", prec)
        t = e.type
        if is_fixed(t) and op in (BinOpKind.SHL, BinOpKind.SHR):
            return self.fixed_shift(e, t)
        if is_fixed(t) and op not in FIXED_OK:
            raise BackendError(f"operator {op!r} is not supported on fixed-point type {t!r}")
        if isinstance(t, Float) and op in _NOT_FLOAT:
            raise BackendError(f"operator {op!r} is not defined on {t!r}")
        special = _BINOP_SPECIAL.get(op)
        if special is not None:
            return special(self, e, self.operand(e.lhs, t), self.operand(e.rhs, t), t)
        if op not in _INFIX:
            raise BackendError(f"HLS backend: unsupported binary operator {op!r}")
        sym, prec, nl, nr = _INFIX[op]
        src = _same_fixed_sources(e) if op in (BinOpKind.ADD, BinOpKind.SUB, BinOpKind.MUL) else None
        if src is not None:  # ap_fixed grows exactly: `x * h` instead of widening both first
            a, b = self.expr(src[0]), self.expr(src[1])
        else:
            a, b = self.operand(e.lhs, t), self.operand(e.rhs, t)
        return self.finish(Code(f"{par(a, nl)} {sym} {par(b, nr)}", prec), t, op)

    def helper(self, name: str, args, t, returns: str) -> Code:
        """A call of helper `name` (returning C type `returns`) brought back to allo type `t`."""
        c = Code(f"{self.ctx.need(name)}({', '.join(a.text for a in args)})", ATOM)
        return self.finish(c, t) if cpp_type(t) == returns or not is_native(t) else cast(cpp_type(t), c)

    def wide(self, name: str, args, t) -> Code:
        """Helper `name` for integers wider than 64 bits (templated on the ap type)."""
        return Code(f"{self.ctx.need(name)}<{cpp_type(t)}>({', '.join(a.text for a in args)})", ATOM)

    def b_div(self, e, a: Code, b: Code, t) -> Code:
        if isinstance(t, Float) or is_fixed(t) or self._plain_divisor(e.rhs, t):
            return self.finish(Code(f"{par(a, MUL)} / {par(b, UNARY)}", MUL), t)
        if _is_wide(t):
            return self.wide("allo_wdivu" if _is_unsigned(t) else "allo_wdiv", [a, b], t)
        if _is_unsigned(t):
            return self.helper("allo_divu", [a, b], t, "uint64_t")
        return self.helper("allo_div", [a, b], t, "int64_t")

    def b_floordiv(self, e, a: Code, b: Code, t) -> Code:
        if isinstance(t, Float):
            return self.finish(Code(f"std::floor({a.text} / {par(b, UNARY)})", ATOM), t)
        if self._plain_divisor(e.rhs, t) and (_is_unsigned(t) or self.nonneg(e.lhs) and self.nonneg(e.rhs)):
            return self.finish(Code(f"{par(a, MUL)} / {par(b, UNARY)}", MUL), t)
        if _is_wide(t):
            return self.wide("allo_wdivu" if _is_unsigned(t) else "allo_wfloordiv", [a, b], t)
        if _is_unsigned(t):
            return self.helper("allo_divu", [a, b], t, "uint64_t")
        return self.helper("allo_floordiv", [a, b], t, "int64_t")

    def b_mod(self, e, a: Code, b: Code, t) -> Code:
        if isinstance(t, Float):
            return self.finish(Code(f"{self.ctx.need('allo_fmod')}({a.text}, {b.text})", ATOM), t)
        if self._plain_divisor(e.rhs, t) and (_is_unsigned(t) or self.nonneg(e.lhs) and self.nonneg(e.rhs)):
            return self.finish(Code(f"{par(a, MUL)} % {par(b, UNARY)}", MUL), t)
        if _is_wide(t):
            return self.wide("allo_wmodu" if _is_unsigned(t) else "allo_wmod", [a, b], t)
        if _is_unsigned(t):
            return self.helper("allo_modu", [a, b], t, "uint64_t")
        return self.helper("allo_mod", [a, b], t, "int64_t")

    def b_shift(self, e, a: Code, b: Code, t) -> Code:
        bits = t.bits
        if isinstance(e.rhs, N.Const) and 0 <= int(e.rhs.value) < bits:
            sym = "<<" if e.op == BinOpKind.SHL else ">>"
            return self.finish(Code(f"{par(a, UNARY)} {sym} {int(e.rhs.value)}", SHIFT), t, e.op)
        if _is_wide(t):
            name = "allo_wshl" if e.op == BinOpKind.SHL else "allo_wshru" if _is_unsigned(t) else "allo_wshr"
            return self.wide(name, [a, b, Code(str(bits), ATOM)], t)
        if e.op == BinOpKind.SHL:
            return self.helper("allo_shl", [a, b, Code(str(bits), ATOM)], t, "uint64_t")
        name, ret = ("allo_shru", "uint64_t") if _is_unsigned(t) else ("allo_shr", "int64_t")
        return self.helper(name, [a, b, Code(str(bits), ATOM)], t, ret)

    def fixed_shift(self, e, t) -> Code:
        """A shift of a fixed-point value's raw bits, by allo's integer rule (not ap_fixed's, which
        reverses the direction of a negative amount)."""
        if t.bits > 64:
            raise BackendError(f"HLS backend: shifts of fixed-point values wider than 64 bits ({t!r}) are not "
                               "supported; shift an integer (x.bitcast) or a narrower type")
        a, n = self.operand(e.lhs, t), self.expr(e.rhs)
        if e.op == BinOpKind.SHL:
            return Code(f"{self.ctx.need('allo_fxshl')}<{t.bits}>({a.text}, (long long){par(n, UNARY)})", ATOM)
        return Code(f"{self.ctx.need('allo_fxshr')}<{t.bits}, {str(isinstance(t, Fixed)).lower()}>({a.text}, "
                    f"(long long){par(n, UNARY)})", ATOM)

    @staticmethod
    def _plain_divisor(e, t) -> bool:
        """A constant divisor that can neither be 0 nor overflow (MIN / -1): C's `/` is exact."""
        return isinstance(e, N.Const) and int(e.value) != 0 and (int(e.value) != -1 or _is_unsigned(t))

    def nonneg(self, e) -> bool:
        """Provably >= 0 (loop counters from non-negative bounds, their sums and products)."""
        if _is_unsigned(e.type):
            return True
        if isinstance(e, N.Const):
            return e.value >= 0
        if isinstance(e, N.IterVar):
            return id(e) in self.nonneg_vars
        if isinstance(e, N.BinOp) and e.op in _NONNEG_OPS:
            return self.nonneg(e.lhs) and self.nonneg(e.rhs)
        return False

    def b_pow(self, e, a: Code, b: Code, t) -> Code:
        if isinstance(t, Float):
            return self.finish(Code(f"std::pow({a.text}, {b.text})", ATOM), t)
        return Code(f"{self.ctx.need('allo_ipow')}<{cpp_type(t)}>({a.text}, {b.text})", ATOM)

    def b_minmax(self, e, a: Code, b: Code, t) -> Code:
        if isinstance(t, Float):  # NaN-propagating, -0 < +0 (arith.minimumf / maximumf)
            fn = self.ctx.need("allo_fmin" if e.op == BinOpKind.MIN else "allo_fmax")
            return self.finish(Code(f"{fn}({a.text}, {b.text})", ATOM), t)
        return Code(f"std::{e.op}<{cpp_type(t)}>({a.text}, {b.text})", ATOM)

    def e_unary(self, e: N.UnaryOp) -> Code:
        t = e.type
        if e.op == UnaryOpKind.NOT:
            return _lnot(self.as_bool(e.operand))
        if e.op == UnaryOpKind.NEG:
            if is_bool(t):
                return self.value_as(e.operand, t)  # -x == x in one bit
            return self.finish(negate(self.operand(e.operand, t)), t)
        if e.op == UnaryOpKind.INVERT:
            if isinstance(t, Float):
                raise BackendError(f"operator '~' is not defined on {t!r}")
            if is_bool(t):
                return _lnot(self.value_as(e.operand, t))
            return self.finish(Code(f"~{par(self.operand(e.operand, t), UNARY)}", UNARY), t)
        raise BackendError(f"HLS backend: unsupported unary operator {e.op!r}")

    def e_select(self, e: N.Select) -> Code:
        cond = self.as_bool(e.cond)
        a, b = self._typed(e.a, e.type), self._typed(e.b, e.type)
        return Code(f"{par(cond, LOR)} ? {par(a, LOR)} : {par(b, COND)}", COND)

    def _typed(self, e, t) -> Code:
        if isinstance(e, N.Const):
            return const_text(e.value, t, typed=True, need=self.ctx.need)
        return self.value_as(e, t)

    def e_math(self, e: N.MathCall) -> Code:
        t, fn = e.type, e.fn
        if fn in BIT_FUNCS:
            return self.bit_op(e)
        if fn not in MATH:
            raise BackendError(f"HLS backend: unsupported math function {fn!r}")
        if fn == MathFn.ABS and not isinstance(t, Float):
            x = self.value_as(e.args[0], t)
            if _is_unsigned(t):
                return x
            return Code(f"{self.ctx.need('allo_abs')}({x.text})", ATOM)
        if fn == MathFn.POW and not isinstance(t, Float):
            return self.b_pow(e, self.value_as(e.args[0], t), self.value_as(e.args[1], t), t)
        if not isinstance(t, Float):  # computed in double, then converted (as on LLVM)
            return self.expr(N.Cast(N.MathCall(fn, e.args, F64), t))
        if _is_half(t) and not t.brain and fn in HALF_MATH:
            self.ctx.need("allo_hls_half")
            args = ", ".join(self.value_as(a, t).text for a in e.args)
            return Code(f"hls::{HALF_MATH[fn]}({args})", ATOM)
        args = [self.operand(a, t) for a in e.args]
        one = "1.0" if t.bits == 64 else "1.0f"
        text = MATH[fn].format(*[a.text for a in args], one=one, neg0=negate(args[0]).text)
        return self.finish(Code(text, MUL if fn in (MathFn.RSQRT, MathFn.SIGMOID) else ATOM), t)

    def bit_op(self, e: N.MathCall) -> Code:
        """Bit-level operations through ap_uint's `[]`, `range(hi, lo)` and `reverse()`."""
        x = e.args[0]
        w, xt = x.type.bits, self.expr(x).text
        bits = f"((ap_uint<{w}>)({xt}))"
        if e.fn == MathFn.BIT_GET:
            i = e.args[1]
            if isinstance(i, N.Const):
                return cast("bool", Code(f"{bits}[{int(i.value)}]", ATOM))
            return Code(f"{self.ctx.need('allo_get_bit')}<{w}>({xt}, {self.expr(i).text})", ATOM)
        if e.fn == MathFn.BIT_SLICE:
            lo, hi = int(e.args[1].value), int(e.args[2].value)
            if hi - lo == 1:
                return cast("bool", Code(f"{bits}[{lo}]", ATOM))
            k = f"ap_uint<{hi - lo}>"
            c = cast(k, Code(f"{bits}.range({hi - 1}, {lo})", ATOM))
            return c if cpp_type(e.type) == k else cast(cpp_type(e.type), c)
        if e.fn == MathFn.BIT_REVERSE:
            return Code(f"{self.ctx.need('allo_reverse')}<{w}>({xt})", ATOM)
        if e.fn == MathFn.BITCAST:
            return Code(f"{self.ctx.need('allo_bitcast')}<{cpp_type(e.type)}>({xt})", ATOM)
        if e.fn == MathFn.BIT_SET:
            i, b = (self.expr(a).text for a in e.args[1:])
            return Code(f"{self.ctx.need('allo_set_bit')}<{w}>({xt}, {i}, {b})", ATOM)
        lo, hi = int(e.args[1].value), int(e.args[2].value)
        v = self.expr(e.args[3]).text
        return Code(f"{self.ctx.need('allo_set_range')}<{w}>({xt}, {hi - 1}, {lo}, {v})", ATOM)

    def e_cast(self, e: N.Cast) -> Code:
        src, dst = e.value.type, e.type
        if src == dst:
            return self.expr(e.value)
        rule = _CASTS.get((_kind(src), _kind(dst)))
        if rule is None:
            raise BackendError(f"HLS backend: no cast from {src!r} to {dst!r}")
        return rule(self.expr(e.value), src, dst, self.ctx.need)


BOOL, F64 = UInt(1), Float(64)
_NOT_FLOAT = {BinOpKind.AND, BinOpKind.OR, BinOpKind.XOR, BinOpKind.SHL, BinOpKind.SHR}


def _self_compare(op: str, a: Code, t) -> Code:
    """`x <op> x` without GCC's -Wtautological-compare: only a NaN makes it depend on x."""
    holds = op in (BinOpKind.EQ, BinOpKind.LE, BinOpKind.GE)
    if not isinstance(t, Float):
        return Code("true" if holds else "false", ATOM)
    if op == BinOpKind.NE:
        return Code(f"std::isnan({a.text})", ATOM)
    return _lnot(Code(f"std::isnan({a.text})", ATOM)) if holds else Code("false", ATOM)


def _lnot(c: Code) -> Code:
    # `!a == b` trips -Wlogical-not-parentheses: rank `!x` below comparisons so they parenthesise it
    return Code(f"!{par(c, UNARY)}", REL)


def _is_half(t) -> bool:
    return isinstance(t, Float) and t.bits == 16


def _is_unsigned(t) -> bool:
    return isinstance(t, (UInt, UFixed))


def _same_fixed_sources(e):
    """(x, y) when both operands of fixed-point `e` are exact conversions of values of one
    ap_fixed type: the C++ operator on x and y is exact, so its cast to e's type is e."""
    t = e.type
    if not is_fixed(t) or not all(isinstance(x, N.Cast) for x in (e.lhs, e.rhs)):
        return None
    s = e.lhs.value.type
    if not is_fixed(s) or e.rhs.value.type != s or common(s, t) != t:
        return None
    return e.lhs.value, e.rhs.value


def _is_wide(t) -> bool:
    """An integer wider than 64 bits (computed by ap_int operators, not through long long)."""
    return isinstance(t, (Int, UInt)) and t.bits > 64


# ----------------------------------------------------------------------------- casts
# Rules keyed by (source kind, target kind); each gets the rendered value and both types.
def _kind(t) -> str:
    if isinstance(t, Float):
        return "half" if t.bits == 16 else "float"
    if is_fixed(t):
        return "fixed"
    return "bool" if is_bool(t) else "int"


def _c_plain(c, src, dst, need=None):
    return cast(cpp_type(dst), c)


def _c_from_half(rule):
    return lambda c, src, dst, need=None: rule(cast("float", c), Float(32), dst, need)


def _c_to_bool(c, src, dst, need=None):
    zero = f"({cpp_type(src)})0" if is_fixed(src) else "0"
    return Code(f"{par(c, SHIFT)} != {zero}", EQ)


def _c_fixed_to_int(c, src, dst, need=None):
    # floor(value) exactly: drop the fraction into a W-F integer-bit fixed type (AP_TRN floors),
    # where the Xilinx to_int64() would round toward zero.
    i = max(src.bits - src.frac, 1)
    kind, conv = ("ap_fixed", "to_int64") if isinstance(src, Fixed) else ("ap_ufixed", "to_uint64")
    if _is_wide(dst):
        return cast(cpp_type(dst), Code(f"{kind}<{i}, {i}>({c.text})", ATOM))
    return cast(cpp_type(dst), Code(f"{kind}<{i}, {i}>({c.text}).{conv}()", ATOM))


def _c_fixed_to_float(c, src, dst, need=None):
    d = Code(f"{par(c, ATOM)}.to_double()", ATOM)
    return d if dst.bits == 64 else cast(cpp_type(dst), d)


def _c_float_to_int(c, src, dst, need):
    # truncate toward zero, wrap to dst's width, NaN/inf -> 0: the steps of the LLVM renderer's
    # float_to_bits (allo.render.casts), so csim and LLVM agree on every value
    if _is_wide(dst):
        return Code(f"{need('allo_fptoiw')}<{cpp_type(dst)}, {dst.bits}>({c.text})", ATOM)
    wide = Code(f"{need('allo_fptoi')}({c.text})", ATOM)
    return wide if isinstance(dst, (Int, Index)) and dst.bits == 64 else cast(cpp_type(dst), wide)


def _c_float_to_fixed(c, src, dst, need):
    # floor(x * 2**F) in double, then the float -> integer rule on the raw bits (as LLVM)
    scale = f" * {float_literal(2.0 ** dst.frac, F64)}" if dst.frac else ""
    scaled = Code(f"std::floor((double){par(c, UNARY)}{scale})", ATOM)
    if dst.bits > 64:  # the ap_fixed constructor is exact; only NaN, inf and overflow need the rule
        return Code(f"{need('allo_fptofxw')}<{cpp_type(dst)}>({c.text}, {scaled.text})", ATOM)
    need("allo_fptoi")
    return Code(f"{need('allo_fptofx')}<{cpp_type(dst)}>({scaled.text})", ATOM)


def _c_int_to_half(c, src, dst, need=None):
    return cast("half", _c_int_to_float(c, src, Float(32)))


def _c_int_to_float(c, src, dst, need=None):
    if _is_wide(src):  # ap_int's own to_double() is wrong beyond 64 bits in the Xilinx headers
        kind = "ap_fixed" if isinstance(src, Int) else "ap_ufixed"
        d = Code(f"{kind}<{src.bits}, {src.bits}>({c.text}).to_double()", ATOM)
        return d if dst.bits == 64 else cast(cpp_type(dst), d)
    return cast(cpp_type(dst), c)


_CASTS = {
    ("float", "float"): _c_plain, ("half", "float"): _c_plain, ("float", "half"): _c_plain,
    ("int", "float"): _c_int_to_float, ("bool", "float"): _c_plain,
    ("int", "half"): _c_int_to_half, ("bool", "half"): _c_int_to_half,
    ("float", "int"): _c_float_to_int, ("half", "int"): _c_from_half(_c_float_to_int),
    ("int", "int"): _c_plain, ("bool", "int"): _c_plain,
    ("int", "fixed"): _c_plain, ("bool", "fixed"): _c_plain, ("fixed", "fixed"): _c_plain,
    ("float", "fixed"): _c_float_to_fixed, ("half", "fixed"): _c_from_half(_c_float_to_fixed),
    ("fixed", "int"): _c_fixed_to_int,
    ("fixed", "float"): _c_fixed_to_float, ("fixed", "half"): _c_fixed_to_float,
    ("float", "bool"): _c_to_bool, ("half", "bool"): _c_to_bool, ("int", "bool"): _c_to_bool,
    ("fixed", "bool"): _c_to_bool,
}

_BINOP_SPECIAL = {
    BinOpKind.DIV: ExprEmitter.b_div, BinOpKind.FLOORDIV: ExprEmitter.b_floordiv, BinOpKind.MOD: ExprEmitter.b_mod,
    BinOpKind.POW: ExprEmitter.b_pow, BinOpKind.SHL: ExprEmitter.b_shift, BinOpKind.SHR: ExprEmitter.b_shift,
    BinOpKind.MIN: ExprEmitter.b_minmax, BinOpKind.MAX: ExprEmitter.b_minmax,
}

_EXPRS = {
    N.Const: ExprEmitter.e_const, N.IterVar: ExprEmitter.e_var, N.Load: ExprEmitter.e_load,
    N.BinOp: ExprEmitter.e_binop, N.UnaryOp: ExprEmitter.e_unary, N.Cast: ExprEmitter.e_cast,
    N.MathCall: ExprEmitter.e_math, N.Select: ExprEmitter.e_select,
}

__all__ = ["Code", "ExprEmitter", "HELPERS", "const_text", "float_literal", "int_literal", "cast", "par"]
