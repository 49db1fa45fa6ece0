"""Operators of the MLIR renderer (a mixin of `_FuncRenderer`): comparisons and binary arithmetic
per type category, with allo's semantics where LLVM's differ (non-trapping integer division,
numpy floor division and modulo, defined out-of-range shifts, fixed-point multiply and divide).

Example::

    v = self.arith("floordiv", a, b, Int(32))   # SSA name of numpy-style a // b
"""
from __future__ import annotations

from ..ir.ops import BinOpKind
from ..ir.types import Fixed, is_signed
from .scalars import cat, type_bits

FLOAT_OPS = {BinOpKind.ADD: "arith.addf", BinOpKind.SUB: "arith.subf", BinOpKind.MUL: "arith.mulf",
              BinOpKind.DIV: "arith.divf", BinOpKind.MIN: "arith.minimumf", BinOpKind.MAX: "arith.maximumf",
              BinOpKind.POW: "math.powf"}
INT_OPS = {BinOpKind.ADD: "arith.addi", BinOpKind.SUB: "arith.subi", BinOpKind.MUL: "arith.muli",
            BinOpKind.AND: "arith.andi", BinOpKind.OR: "arith.ori", BinOpKind.XOR: "arith.xori",
            BinOpKind.SHL: "arith.shli"}
SINT_OPS = {BinOpKind.DIV: "arith.divsi", BinOpKind.FLOORDIV: "arith.floordivsi", BinOpKind.MIN: "arith.minsi",
             BinOpKind.MAX: "arith.maxsi", BinOpKind.SHR: "arith.shrsi"}
UINT_OPS = {BinOpKind.DIV: "arith.divui", BinOpKind.FLOORDIV: "arith.divui", BinOpKind.MOD: "arith.remui",
             BinOpKind.MIN: "arith.minui", BinOpKind.MAX: "arith.maxui", BinOpKind.SHR: "arith.shrui"}
FIXED_OK = (BinOpKind.ADD, BinOpKind.SUB, BinOpKind.AND, BinOpKind.OR, BinOpKind.XOR, BinOpKind.SHL, BinOpKind.SHR,
             BinOpKind.MIN, BinOpKind.MAX)
# comparison -> (float predicate, signed predicate, unsigned predicate)
CMP = {BinOpKind.LT: ("olt", "slt", "ult"), BinOpKind.LE: ("ole", "sle", "ule"), BinOpKind.GT: ("ogt", "sgt", "ugt"),
        BinOpKind.GE: ("oge", "sge", "uge"), BinOpKind.EQ: ("oeq", "eq", "eq"), BinOpKind.NE: ("une", "ne", "ne")}


class ArithMixin:
    """Operator sequences on SSA values; the host class provides `op`/`val`/`emit`/`const`/
    `iconst`/`error`."""

    def compare(self, op, a, b, t) -> str:
        fp, sp, up = CMP[op]
        c = cat(t)
        if c == "f":
            return self.op(f"arith.cmpf {fp}, {a}, {b} : {t.mlir}")
        return self.op(f"arith.cmpi {sp if c in ('s', 'sfx') else up}, {a}, {b} : {t.mlir}")

    def arith(self, op, a, b, t) -> str:
        c, ty = cat(t), t.mlir
        if c == "f":
            if op in FLOAT_OPS:
                return self.op(f"{FLOAT_OPS[op]} {a}, {b} : {ty}")
            if op == BinOpKind.FLOORDIV:
                q = self.op(f"arith.divf {a}, {b} : {ty}")
                return self.op(f"math.floor {q} : {ty}")
            if op == BinOpKind.MOD:
                r = self.op(f"arith.remf {a}, {b} : {ty}")
                zero = self.const(0.0, t)
                fix = self.sign_fix(r, b, zero, lambda p, x, y: self.op(f"arith.cmpf {p}, {x}, {y} : {ty}"), "o")
                rb = self.op(f"arith.addf {r}, {b} : {ty}")
                return self.op(f"arith.select {fix}, {rb}, {r} : {ty}")
            raise self.error(f"operator {op!r} is not defined on {t!r}")
        if c in ("sfx", "ufx"):
            if op == BinOpKind.MUL:
                return self.fixed_muldiv(a, b, t, BinOpKind.MUL)
            if op == BinOpKind.DIV:
                return self.fixed_muldiv(a, b, t, BinOpKind.DIV)
            if op not in FIXED_OK:
                raise self.error(f"operator {op!r} is not supported on fixed-point type {t!r}")
        signed = c in ("s", "sfx")
        if op in (BinOpKind.SHL, BinOpKind.SHR):
            return self.shift(op, a, b, ty, type_bits(t), signed)
        if op in INT_OPS:
            return self.op(f"{INT_OPS[op]} {a}, {b} : {ty}")
        if op == BinOpKind.POW:
            return self.int_pow(a, b, t)
        if op in (BinOpKind.DIV, BinOpKind.FLOORDIV, BinOpKind.MOD):
            return self.int_div(op, a, b, ty, signed)
        table = SINT_OPS if signed else UINT_OPS
        if op in table:
            return self.op(f"{table[op]} {a}, {b} : {ty}")
        raise self.error(f"operator {op!r} is not defined on {t!r}")

    def int_div(self, op, a, b, ty, signed) -> str:
        """Integer div (C truncation) / floordiv / mod (numpy floor) that never traps: x / 0 and
        x % 0 give 0, and MIN / -1 wraps (x86 raises SIGFPE for both; the interpreter gives these)."""
        zero, one = self.iconst(0, ty), self.iconst(1, ty)
        is0 = self.op(f"arith.cmpi eq, {b}, {zero} : {ty}")
        bad, m1 = is0, None
        if signed:
            m1 = self.op(f"arith.cmpi eq, {b}, {self.iconst(-1, ty)} : {ty}")
            bad = self.op(f"arith.ori {is0}, {m1} : i1")
        bs = self.op(f"arith.select {bad}, {one}, {b} : {ty}")
        if op == BinOpKind.MOD:
            if not signed:
                return self.op(f"arith.remui {a}, {bs} : {ty}")
            r = self.op(f"arith.remsi {a}, {bs} : {ty}")
            fix = self.sign_fix(r, bs, zero, lambda p, x, y: self.op(f"arith.cmpi {p}, {x}, {y} : {ty}"), "s")
            rb = self.op(f"arith.addi {r}, {bs} : {ty}")
            return self.op(f"arith.select {fix}, {rb}, {r} : {ty}")
        table = SINT_OPS if signed else UINT_OPS
        if op == BinOpKind.FLOORDIV and signed and ty != "index" and int(ty[1:]) > 64:
            q = self.wide_floordiv(a, bs, zero, ty)  # arith.floordivsi lowers wrongly beyond 64 bits
        else:
            q = self.op(f"{table[op]} {a}, {bs} : {ty}")
        if signed:
            neg = self.op(f"arith.subi {zero}, {a} : {ty}")
            q = self.op(f"arith.select {m1}, {neg}, {q} : {ty}")
        return self.op(f"arith.select {is0}, {zero}, {q} : {ty}")

    def wide_floordiv(self, a, b, zero, ty) -> str:
        """floor(a / b) as a truncating division and a remainder fix-up (b != 0)."""
        q = self.op(f"arith.divsi {a}, {b} : {ty}")
        r = self.op(f"arith.remsi {a}, {b} : {ty}")
        fix = self.sign_fix(r, b, zero, lambda p, x, y: self.op(f"arith.cmpi {p}, {x}, {y} : {ty}"), "s")
        return self.op(f"arith.subi {q}, {self.op(f'arith.extui {fix} : i1 to {ty}')} : {ty}")

    def shift(self, op, a, b, ty, bits, signed) -> str:
        """Shifts by amounts outside [0, bits) give 0 (shl, unsigned shr) or the sign fill (signed
        shr) instead of LLVM poison."""
        oob = self.op(f"arith.cmpi uge, {b}, {self.iconst(bits, ty)} : {ty}")
        if op == BinOpKind.SHR and signed:
            n = self.op(f"arith.select {oob}, {self.iconst(bits - 1, ty)}, {b} : {ty}")
            return self.op(f"arith.shrsi {a}, {n} : {ty}")
        v = self.op(f"arith.{'shli' if op == BinOpKind.SHL else 'shrui'} {a}, {b} : {ty}")
        return self.op(f"arith.select {oob}, {self.iconst(0, ty)}, {v} : {ty}")

    def sign_fix(self, r, b, zero, cmp, p):
        """i1: remainder r is nonzero and its sign differs from divisor b (numpy floor mod fix-up)."""
        ne = cmp("une" if p == "o" else "ne", r, zero)
        rneg = cmp("olt" if p == "o" else "slt", r, zero)
        bneg = cmp("olt" if p == "o" else "slt", b, zero)
        diff = self.op(f"arith.xori {rneg}, {bneg} : i1")
        return self.op(f"arith.andi {ne}, {diff} : i1")

    def fixed_muldiv(self, a, b, t, op):
        w, f = t.bits, t.frac
        wide = f"i{2 * w}"
        ext = "arith.extsi" if isinstance(t, Fixed) else "arith.extui"
        xa = self.op(f"{ext} {a} : {t.mlir} to {wide}")
        xb = self.op(f"{ext} {b} : {t.mlir} to {wide}")
        signed = isinstance(t, Fixed)
        if op == BinOpKind.MUL:
            p = self.op(f"arith.muli {xa}, {xb} : {wide}")
            if f:
                p = self.op(f"arith.{'shrsi' if signed else 'shrui'} {p}, {self.iconst(f, wide)} : {wide}")
        else:
            if f:
                xa = self.op(f"arith.shli {xa}, {self.iconst(f, wide)} : {wide}")
            p = self.int_div(BinOpKind.DIV, xa, xb, wide, signed)
        return self.op(f"arith.trunci {p} : {wide} to {t.mlir}")

    def int_pow(self, a, b, t):
        """base ** exp by squaring, wrapping at t's width. A negative exponent gives the C
        truncation of 1 / base**-exp: 1 for base 1, +-1 for base -1, else 0 (also for base 0,
        as x / 0 is 0 in allo)."""
        ty = t.mlir
        one, zero = self.iconst(1, ty), self.iconst(0, ty)
        res = self.val()
        r, bb, ee = self.val(), self.val(), self.val()
        gt = "sgt" if is_signed(t) else "ne"
        self.emit(f"{res}:3 = scf.while ({r} = {one}, {bb} = {a}, {ee} = {b}) : ({ty}, {ty}, {ty}) -> ({ty}, {ty}, {ty}) {{")
        self.ind += 1
        c = self.op(f"arith.cmpi {gt}, {ee}, {zero} : {ty}")
        self.emit(f"scf.condition({c}) {r}, {bb}, {ee} : {ty}, {ty}, {ty}")
        self.ind -= 1
        r2, b2, e2 = self.val(), self.val(), self.val()
        self.emit("} do {")
        self.emit(f"^bb0({r2}: {ty}, {b2}: {ty}, {e2}: {ty}):")
        self.ind += 1
        bit = self.op(f"arith.andi {e2}, {one} : {ty}")
        odd = self.op(f"arith.cmpi ne, {bit}, {zero} : {ty}")
        m = self.op(f"arith.muli {r2}, {b2} : {ty}")
        r3 = self.op(f"arith.select {odd}, {m}, {r2} : {ty}")
        b3 = self.op(f"arith.muli {b2}, {b2} : {ty}")
        e3 = self.op(f"arith.shrui {e2}, {one} : {ty}")
        self.emit(f"scf.yield {r3}, {b3}, {e3} : {ty}, {ty}, {ty}")
        self.ind -= 1
        self.emit("}")
        if not is_signed(t):
            return f"{res}#0"
        return self.int_pow_negative(a, b, f"{res}#0", ty)

    def int_pow_negative(self, a, b, positive, ty):
        """The result for exponent b < 0 (see int_pow), else `positive`."""
        zero, one, mone = self.iconst(0, ty), self.iconst(1, ty), self.iconst(-1, ty)
        odd = self.op(f"arith.cmpi ne, {self.op(f'arith.andi {b}, {one} : {ty}')}, {zero} : {ty}")
        sign = self.op(f"arith.select {odd}, {mone}, {one} : {ty}")
        is_m1 = self.op(f"arith.cmpi eq, {a}, {mone} : {ty}")
        is_1 = self.op(f"arith.cmpi eq, {a}, {one} : {ty}")
        neg = self.op(f"arith.select {is_m1}, {sign}, {zero} : {ty}")
        neg = self.op(f"arith.select {is_1}, {one}, {neg} : {ty}")
        below = self.op(f"arith.cmpi slt, {b}, {zero} : {ty}")
        return self.op(f"arith.select {below}, {neg}, {positive} : {ty}")
