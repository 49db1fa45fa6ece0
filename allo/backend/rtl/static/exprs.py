"""Scalar expressions of allo's loop IR as SystemVerilog expressions, bit-exact with the LLVM build.

A value of scalar type t is a raw bit vector of `sv_width(t)` bits (two's complement for signed
integers, the scaled integer value * 2**frac for Fixed/UFixed, 1 bit for bool, 64 bits for
index), held in an unsigned `logic [w-1:0]`. `ExprEmitter.emit(e, args)` prints node `e` given
the SV expressions of its operands (in the order of `allo.qor.body.children(e)`); the result is
a self-determined expression of exactly the result's width (a `{...}` concatenation, a helper
call or a sized literal), so it can be embedded anywhere. The semantics are those of
allo.render (arith.py, casts.py, bitops.py): non-trapping division (x / 0 == 0, MIN / -1 wraps),
numpy floor division and modulo, shifts by >= the width give 0 or the sign, fixed point floors
and wraps. Floating point is printed by float_exprs.py: every node that produces or reads a
float goes to the `float_op` hook, which calls the float32 units of allo.backend.rtl.static.float.

Example::

    em = ExprEmitter()
    e = BinOp("add", Load(A, [], int8), Load(B, [], int8), int8)
    em.emit(e, ["a", "b"])              # '{a + b}'
    em.emit(Cast(Load(A, []), int16), ["a"])   # "{{8{a[7]}}, a}"
    em.functions()                      # SV helper functions used so far ('' here)
"""
from __future__ import annotations

import re

from ....errors import BackendError, located
from ....ir import nodes as N
from ....ir.ops import CMP_OPS, LOGIC_OPS, BinOpKind, MathFn, UnaryOpKind
from ....ir.types import Fixed, Float, Index, Int, UFixed, UInt, is_bool, is_fixed, is_signed
from ....ir.visit import child_exprs  # the operand order of allo.qor.body.children
from ....render.scalars import fixed_raw
from .float import FloatUnits
from .float_exprs import FloatPrinter
from .svfuncs import SVFunctions, iso, lit

INT64 = Int(64)
_FIXED_OK = (BinOpKind.ADD, BinOpKind.SUB, BinOpKind.AND, BinOpKind.OR, BinOpKind.XOR, BinOpKind.SHL,
             BinOpKind.SHR, BinOpKind.MIN, BinOpKind.MAX, BinOpKind.MUL, BinOpKind.DIV)
_INFIX = {BinOpKind.ADD: "+", BinOpKind.SUB: "-", BinOpKind.MUL: "*", BinOpKind.AND: "&", BinOpKind.OR: "|",
          BinOpKind.XOR: "^"}
_REL = {BinOpKind.LT: "<", BinOpKind.LE: "<=", BinOpKind.GT: ">", BinOpKind.GE: ">=", BinOpKind.EQ: "==",
        BinOpKind.NE: "!="}
_HELPER_OPS = {BinOpKind.DIV: "div", BinOpKind.FLOORDIV: "floordiv", BinOpKind.MOD: "mod", BinOpKind.MIN: "min",
               BinOpKind.MAX: "max", BinOpKind.POW: "pow"}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*\Z")


def sv_width(t) -> int:
    """Bits of scalar type `t` in hardware: index -> 64, bool -> 1, else t.bits.

    Example: `sv_width(Fixed(16, 8))` is 16, `sv_width(index)` is 64."""
    if isinstance(t, Index):
        return 64
    if isinstance(t, (Int, UInt, Fixed, UFixed, Float)):
        return t.bits
    raise BackendError(f"the static RTL has no bit-vector form for type {t!r}")


def _float(t) -> bool:
    return isinstance(t, Float)


def _signed(t) -> bool:
    return is_signed(t) and not _float(t)




def op_kind(e) -> str:
    """The operator class of expression node `e` the scheduler looks latencies up by: "add", "mul",
    "div", "cmp", "logic", "shift", "shift_const", "select", "cast", "bit", "const"; "float" for
    nodes that compute on floating point (the float units' hook decides their cost).

    Example: `op_kind(BinOp("shl", x, Const(3, int8), int8))` is "shift_const"."""
    if _touches_float(e):
        return "float"
    if isinstance(e, N.Const):
        return "const"
    if isinstance(e, N.BinOp):
        op = e.op
        if op in (BinOpKind.ADD, BinOpKind.SUB):
            return "add"
        if op in (BinOpKind.MUL, BinOpKind.POW):
            return "mul"
        if op in (BinOpKind.DIV, BinOpKind.FLOORDIV, BinOpKind.MOD):
            return "div"
        if op in CMP_OPS or op in (BinOpKind.MIN, BinOpKind.MAX):
            return "cmp"
        if op in (BinOpKind.SHL, BinOpKind.SHR):
            return "shift_const" if isinstance(e.rhs, N.Const) else "shift"
        return "logic"
    if isinstance(e, N.UnaryOp):
        return "add" if e.op == UnaryOpKind.NEG else "logic"
    if isinstance(e, N.Cast):
        return "cast"
    if isinstance(e, N.Select):
        return "select"
    if isinstance(e, N.MathCall):
        if e.fn == MathFn.ABS:
            return "add"
        if e.fn == MathFn.POW:
            return "mul"
        return "bit"
    raise BackendError(f"op_kind: {type(e).__name__} is not an operator node (loads and loop variables are "
                       "wires of the schedule)")


def _touches_float(e) -> bool:
    types = [getattr(e, "type", None)] + [getattr(c, "type", None) for c in child_exprs(e)]
    return any(_float(t) for t in types)


class ExprEmitter:
    """Prints IR expression nodes as SV expressions (see the module docstring) and collects the
    helper functions they call. One emitter per SV module: `functions()` goes inside it.

    Example::

        em = ExprEmitter()
        q = em.emit(BinOp("floordiv", x, y, int32), ["x", "y"])   # 'allo_floordiv_s32(x, y)'
        module_text = f"module m(...);\\n{em.functions()}  assign q = {q};\\nendmodule"
    """

    def __init__(self, taken=()):
        self.lib = SVFunctions()
        self.funits = FloatUnits(taken)  # float32 units (allo.backend.rtl.static.float) used so far
        self.pipe = None  # (latency, clock enable, clock) for the next pipelined float unit
        self.piped = None  # the pipelined unit instance the last emit_pipelined made

    def emit_pipelined(self, e, args, lat: int, en: str, clk: str = "clock"):
        """(SV expression, early expression or None) of node `e` printed with its float unit
        pipelined (PIPELINED: add, sub, mul, div, floor division, sqrt) with `lat` registers
        inside, on clock `clk`, enabled by `en`; the early expression is the value one cycle
        before (from the D inputs of the unit's last registers). (expression, None) when `e` has
        no pipelined unit: the caller puts its latency in registers after it."""
        self.pipe, self.piped = (lat, en, clk), None
        try:
            x = self.emit(e, args)
        finally:
            self.pipe = None
        if self.piped is None:
            return x, None
        y = self.piped
        return x, re.sub(rf"\b{y}\b", self.funits.early[y], x)

    # ------------------------------------------------------------------ public API
    def emit(self, e, args) -> str:
        """SV expression of node `e` whose operand children are the SV expressions `args`."""
        args = list(args)
        kids = child_exprs(e)
        if len(args) != len(kids):
            raise BackendError(f"internal error: {type(e).__name__} has {len(kids)} operands, got {len(args)} "
                               "SV expressions")
        handler = self._HANDLERS.get(type(e))
        if handler is None:
            raise located(BackendError, f"the static RTL cannot print a {type(e).__name__} as an expression "
                          "(loads and loop variables are the schedule's wires)", getattr(e, "loc", None))
        if _touches_float(e):
            return self.float_op(e, args)
        return handler(self, e, args)

    def functions(self) -> str:
        """SV definitions of the helper functions and float function units used by the expressions
        printed so far (they go inside the module, before its declarations)."""
        return self.funits.text() + self.lib.text()

    def instances(self) -> str:
        """The float unit instances the expressions read (inside the module, after every other
        declaration: their inputs name the module's wires)."""
        return self.funits.instances()

    def modules(self) -> str:
        """Definitions of the float unit modules instantiated (after the module's `endmodule`)."""
        return self.funits.modules()

    def float_op(self, e, args) -> str:
        """Nodes that compute on floating point: calls of the float32 units (float_exprs.py)."""
        return FloatPrinter(self).emit(e, args)

    def error(self, e, message: str) -> BackendError:
        return located(BackendError, f"{message} (static RTL)", getattr(e, "loc", None))

    def literal(self, value, t) -> str:
        """The sized literal of a constant of type `t` (`value` in the value domain, as Const)."""
        w = sv_width(t)
        if is_bool(t):
            return lit(1 if value else 0, 1)
        if is_fixed(t):
            return lit(fixed_raw(value, t), w)
        return lit(int(value), w)

    def as_bool(self, x: str, t) -> str:
        """The truth value (1 bit) of SV value `x` of integer or fixed type `t`."""
        if is_bool(t):
            return x
        return f"{{{iso(x)} != {lit(0, sv_width(t))}}}"

    def resize(self, x: str, sw: int, dw: int, signed: bool) -> str:
        """`x` of `sw` bits truncated or extended (sign or zero) to `dw` bits."""
        if sw == dw:
            return x
        if dw < sw:
            return f"{{{dw}'({iso(x)})}}"
        if not signed:
            return f"{{{lit(0, dw - sw)}, {iso(x)}}}"
        if sw == 1:  # the sign bit is the value (and a 1-bit scalar may not be indexable)
            return f"{{{dw}{{{iso(x)}}}}}"
        if _IDENT.match(x.strip()):
            return f"{{{{{dw - sw}{{{x.strip()}[{sw - 1}]}}}}, {x.strip()}}}"
        return f"{{{dw}'($signed({iso(x)}))}}"

    def shift_right(self, x: str, bits: int, k: int, signed: bool) -> str:
        """floor(x / 2**k) at `bits` bits (shifts by >= the width saturate to the sign)."""
        if k == 0:
            return x
        if k >= bits:
            if not signed:
                return lit(0, bits)
            k = bits - 1
        return f"{{$signed({iso(x)}) >>> {k}}}" if signed else f"{{{iso(x)} >> {k}}}"

    def cast(self, x: str, s, d) -> str:
        """SV value `x` of type `s` converted to type `d` by allo's cast rules (allo.render.casts)."""
        if s == d:
            return x
        if _float(s) or _float(d):
            raise BackendError(f"floating-point cast {s!r} -> {d!r} is not supported by the static RTL yet")
        if is_bool(d):
            return self.as_bool(x, s)
        if isinstance(s, Index):
            s = INT64
            if s == d:
                return x
        if isinstance(d, Index):
            return self.cast(x, s, INT64)
        signed = _signed(s)
        if not is_fixed(s) and not is_fixed(d):
            return self.resize(x, s.bits, d.bits, signed)
        if not is_fixed(s):  # int -> fixed: the value times 2**frac, wrapped
            if d.frac >= d.bits:
                return lit(0, d.bits)
            r = self.resize(x, s.bits, d.bits, signed)
            return f"{{{iso(r)} << {d.frac}}}" if d.frac else r
        if not is_fixed(d):  # fixed -> int: floor, then wrap or extend
            return self.resize(self.shift_right(x, s.bits, s.frac, signed), s.bits, d.bits, signed)
        if d.frac >= s.frac:
            k = d.frac - s.frac
            if k >= d.bits:
                return lit(0, d.bits)
            r = self.resize(x, s.bits, d.bits, signed)
            return f"{{{iso(r)} << {k}}}" if k else r
        return self.resize(self.shift_right(x, s.bits, s.frac - d.frac, signed), s.bits, d.bits, signed)

    # ------------------------------------------------------------------ handlers
    def _const(self, e, args):
        return self.literal(e.value, e.type)

    def _cast(self, e, args):
        return self.cast(args[0], e.value.type, e.type)

    def _call(self, kind, t, *xs, more=()):
        name = self.lib.use(kind, sv_width(t), _signed(t), *more)
        return f"{name}({', '.join(x.strip() for x in xs)})"

    def _compare(self, op, a, b, t) -> str:
        if _signed(t) and op not in (BinOpKind.EQ, BinOpKind.NE):
            return f"{{$signed({iso(a)}) {_REL[op]} $signed({iso(b)})}}"
        return f"{{{iso(a)} {_REL[op]} {iso(b)}}}"

    def _binop(self, e, args):
        a, b = args
        op = e.op
        if op in LOGIC_OPS:
            x, y = self.as_bool(a, e.lhs.type), self.as_bool(b, e.rhs.type)
            return f"{{{iso(x)} {'&' if op == BinOpKind.LAND else '|'} {iso(y)}}}"
        if op in CMP_OPS:
            t = e.lhs.type
            return self._compare(op, a, self.cast(b, e.rhs.type, t), t)
        t = e.type
        a = self.cast(a, e.lhs.type, t)
        if op in (BinOpKind.SHL, BinOpKind.SHR):
            # SV shifts take the amount as unsigned and give 0 (or the sign fill for >>>) from the
            # width on, which is allo's rule. On fixed point the amount is an integer of t's width.
            if not is_fixed(t):
                b = self.cast(b, e.rhs.type, t)
            if op == BinOpKind.SHL:
                return f"{{{iso(a)} << {iso(b)}}}"
            return f"{{$signed({iso(a)}) >>> {iso(b)}}}" if _signed(t) else f"{{{iso(a)} >> {iso(b)}}}"
        b = self.cast(b, e.rhs.type, t)
        if is_fixed(t):
            if op not in _FIXED_OK:
                raise self.error(e, f"operator {op!r} is not supported on fixed-point type {t!r}")
            if op in (BinOpKind.MUL, BinOpKind.DIV):
                kind = "fxmul" if op == BinOpKind.MUL else "fxdiv"
                return self._call(kind, t, a, b, more=(t.frac,))
        if op in _INFIX:
            return f"{{{iso(a)} {_INFIX[op]} {iso(b)}}}"
        if op in _HELPER_OPS:
            return self._call(_HELPER_OPS[op], t, a, b)
        raise self.error(e, f"operator {op!r} is not defined on {t!r}")

    def _unary(self, e, args):
        t = e.type
        if e.op == UnaryOpKind.NOT:
            return f"{{~{iso(self.as_bool(args[0], e.operand.type))}}}"
        x = iso(self.cast(args[0], e.operand.type, t))
        if e.op == UnaryOpKind.NEG:
            return f"{{{lit(0, sv_width(t))} - {x}}}"
        if e.op == UnaryOpKind.INVERT:
            return f"{{~{x}}}"
        raise self.error(e, f"unsupported unary operator {e.op!r}")

    def _select(self, e, args):
        c = self.as_bool(args[0], e.cond.type)
        a, b = self.cast(args[1], e.a.type, e.type), self.cast(args[2], e.b.type, e.type)
        return f"{{{iso(c)} ? {iso(a)} : {iso(b)}}}"

    def _math(self, e, args):
        t, fn = e.type, e.fn
        handler = self._BIT_OPS.get(fn)
        if handler is not None:
            return handler(self, e, args)
        if fn == MathFn.ABS:
            x = self.cast(args[0], e.args[0].type, t)
            return self._call("abs", t, x) if _signed(t) else x
        if fn == MathFn.POW and len(args) == 2:
            return self._call("pow", t, self.cast(args[0], e.args[0].type, t), self.cast(args[1], e.args[1].type, t))
        return self.float_op(e, args)  # elementary functions compute in floating point

    # --- bit-level operations (allo.ir.bits): run-time indices outside the value read 0 / write nothing
    def _bit_get(self, e, args):
        x, i = args
        w = sv_width(e.args[0].type)
        if isinstance(e.args[1], N.Const):
            k = int(e.args[1].value)
            return lit(0, 1) if not 0 <= k < w else f"{{|({iso(x)} & {lit(1 << k, w)})}}"
        return f"{{|({iso(x)} & ({lit(1, w)} << {iso(self.cast(i, e.args[1].type, INT64))}))}}"

    def _bit_slice(self, e, args):
        x = args[0]
        w = sv_width(e.args[0].type)
        lo, hi = int(e.args[1].value), int(e.args[2].value)
        v = f"{{{iso(x)} >> {lo}}}" if lo else x
        return self.resize(v, w, hi - lo, False)

    def _bit_reverse(self, e, args):
        w = sv_width(e.type)
        return args[0] if w == 1 else f"{self.lib.use('bitrev', w)}({args[0].strip()})"

    def _bit_set(self, e, args):
        x, i, b = args
        w = sv_width(e.type)
        i = self.cast(i, e.args[1].type, INT64)
        return f"{self.lib.use('bitset', w)}({x.strip()}, {i.strip()}, {self.as_bool(b, e.args[2].type).strip()})"

    def _bit_setslice(self, e, args):
        x, _, _, v = args
        w = sv_width(e.type)
        lo, hi = int(e.args[1].value), int(e.args[2].value)
        n = hi - lo
        v = self.cast(v, e.args[3].type, UInt(n))
        mask = ((1 << n) - 1) << lo
        kept = f"{iso(x)} & {lit(~mask, w)}" if mask != (1 << w) - 1 else None
        moved = self.resize(v, n, w, False)
        moved = f"{iso(moved)} << {lo}" if lo else iso(moved)
        return f"{{{kept} | {moved}}}" if kept else f"{{{moved}}}"

    _BIT_OPS = {MathFn.BIT_GET: _bit_get, MathFn.BIT_SLICE: _bit_slice, MathFn.BIT_REVERSE: _bit_reverse,
                MathFn.BIT_SET: _bit_set, MathFn.BIT_SETSLICE: _bit_setslice}
    _HANDLERS = {N.Const: _const, N.Cast: _cast, N.BinOp: _binop, N.UnaryOp: _unary, N.Select: _select,
                 N.MathCall: _math}


__all__ = ["ExprEmitter", "sv_width", "op_kind", "iso"]
