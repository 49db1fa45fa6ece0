"""Conversions of the MLIR renderer (a mixin of `_FuncRenderer`): allo's cast rules between bool,
index, integer, float and fixed-point types (see the notes on fixed point in `allo.ir.fixed`).

After the bool and index special cases, a cast is looked up in `_CASTS` by the pair of type
families (float, int, fixed) of source and destination.

Example::

    v = self.cast(v, Fixed(8, 4), Float(32))   # sitofp(raw) * 2**-4, then truncf to f32
"""
from __future__ import annotations

from ..ir.ops import BinOpKind
from ..ir.types import Float, Index, is_bool
from .scalars import cat, i64_t

F64 = Float(64)

# category (see scalars._cat) -> type family
_FAMILY = {"f": "float", "s": "int", "u": "int", "sfx": "fixed", "ufx": "fixed"}


class CastMixin:
    """Casts between allo scalar types; the host class provides `op`/`const`/`iconst`/`error`
    and `compare` (from `ArithMixin`)."""

    def resize(self, v, sbits, dbits, signed) -> str:
        if sbits == dbits:
            return v
        if dbits > sbits:
            return self.op(f"arith.{'extsi' if signed else 'extui'} {v} : i{sbits} to i{dbits}")
        return self.op(f"arith.trunci {v} : i{sbits} to i{dbits}")

    def cast(self, v, s, d) -> str:
        """Convert SSA value v of allo type s to allo type d (allo's cast rules, see common notes)."""
        if s == d:
            return v
        cs, cd = cat(s), cat(d)
        if is_bool(d):
            if cs == "f":
                return self.compare(BinOpKind.NE, v, self.const(0.0, s), s)
            return self.op(f"arith.cmpi ne, {v}, {self.iconst(0, s.mlir)} : {s.mlir}")
        if isinstance(s, Index):
            v = self.op(f"arith.index_cast {v} : index to i64")
            s, cs = i64_t, "s"
            if s == d:
                return v
        if isinstance(d, Index):
            v = self.cast(v, s, i64_t)
            return self.op(f"arith.index_cast {v} : i64 to index")
        handler = self._CASTS.get((_FAMILY[cs], _FAMILY[cd]))
        if handler is None:
            raise self.error(f"cannot cast {s!r} to {d!r}")
        return handler(self, v, s, d, cs, cd)

    def _float_to_float(self, v, s, d, cs, cd) -> str:
        if s.bits == d.bits:  # f16 <-> bf16
            v = self.op(f"arith.extf {v} : {s.mlir} to f32")
            return self.op(f"arith.truncf {v} : f32 to {d.mlir}")
        kind = "extf" if d.bits > s.bits else "truncf"
        return self.op(f"arith.{kind} {v} : {s.mlir} to {d.mlir}")

    def _float_to_int(self, v, s, d, cs, cd) -> str:
        return self.float_to_bits(self.cast(v, s, F64), d.bits)

    def float_to_bits(self, x, bits) -> str:
        """The f64 value x truncated toward zero and wrapped to `bits` bits (NaN and +-inf give 0),
        the rule of docs/language.md section 4 at every width. |x| < 2**63: fptosi. Else x is an
        integer m * 2**e with e >= 11 (m the 53-bit mantissa): its low bits are m << e, or 0 once
        e reaches the width. The same steps as the C++ helper allo_fptoi of the HLS backend."""
        w, wt = max(64, bits), f"i{max(64, bits)}"
        c = lambda n: self.iconst(n, "i64")  # noqa: E731
        lo = self.compare(BinOpKind.GE, x, self.const(-2.0 ** 63, F64), F64)
        inside = self.op(f"arith.andi {lo}, {self.compare(BinOpKind.LT, x, self.const(2.0 ** 63, F64), F64)} : i1")
        fast = self.resize(self.op(f"arith.fptosi {x} : f64 to i64"), 64, w, True)
        raw = self.op(f"arith.bitcast {x} : f64 to i64")
        biased = self.op(f"arith.andi {self.op(f'arith.shrui {raw}, {c(52)} : i64')}, {c(0x7FF)} : i64")
        e = self.op(f"arith.subi {biased}, {c(1075)} : i64")
        m = self.op(f"arith.ori {self.op(f'arith.andi {raw}, {c((1 << 52) - 1)} : i64')}, {c(1 << 52)} : i64")
        shifted = self.op(f"arith.shli {self.resize(m, 64, w, False)}, {self.resize(e, 64, w, True)} : {wt}")
        finite = self.op(f"arith.cmpi ne, {biased}, {c(0x7FF)} : i64")
        fits = self.op(f"arith.andi {finite}, {self.op(f'arith.cmpi ult, {e}, {c(w)} : i64')} : i1")
        zero = self.iconst(0, wt)
        big = self.op(f"arith.select {fits}, {shifted}, {zero} : {wt}")
        negative = self.op(f"arith.cmpi slt, {raw}, {c(0)} : i64")
        big = self.op(f"arith.select {negative}, {self.op(f'arith.subi {zero}, {big} : {wt}')}, {big} : {wt}")
        return self.resize(self.op(f"arith.select {inside}, {fast}, {big} : {wt}"), w, bits, True)

    def _int_to_float(self, v, s, d, cs, cd) -> str:
        if s.bits > 64 and d.bits < 64:  # wide ints round through f64 (as the csim code and numpy)
            f = self.op(f"arith.{'sitofp' if cs == 's' else 'uitofp'} {v} : {s.mlir} to f64")
            return self.cast(f, F64, d)
        return self.op(f"arith.{'sitofp' if cs == 's' else 'uitofp'} {v} : {s.mlir} to {d.mlir}")

    def _int_to_int(self, v, s, d, cs, cd) -> str:
        return self.resize(v, s.bits, d.bits, cs == "s")

    def _fixed_to_float(self, v, s, d, cs, cd) -> str:
        f = self.op(f"arith.{'sitofp' if cs == 'sfx' else 'uitofp'} {v} : {s.mlir} to f64")
        if s.frac:
            f = self.op(f"arith.mulf {f}, {self.const(2.0 ** -s.frac, Float(64))} : f64")
        return self.cast(f, Float(64), d)

    def _float_to_fixed(self, v, s, d, cs, cd) -> str:
        x = self.cast(v, s, F64)
        if d.frac:
            x = self.op(f"arith.mulf {x}, {self.const(2.0 ** d.frac, F64)} : f64")
        return self.float_to_bits(self.op(f"math.floor {x} : f64"), d.bits)

    def _int_to_fixed(self, v, s, d, cs, cd) -> str:
        r = self.resize(v, s.bits, d.bits, cs == "s")
        if d.frac >= d.bits:
            return self.iconst(0, d.mlir)
        if d.frac:
            r = self.op(f"arith.shli {r}, {self.iconst(d.frac, d.mlir)} : {d.mlir}")
        return r

    def _fixed_to_int(self, v, s, d, cs, cd) -> str:
        r = self.shift_right(v, s.bits, s.frac, cs == "sfx")
        return self.resize(r, s.bits, d.bits, cs == "sfx")

    def _fixed_to_fixed(self, v, s, d, cs, cd) -> str:
        signed = cs == "sfx"
        if d.frac >= s.frac:
            r = self.resize(v, s.bits, d.bits, signed)
            k = d.frac - s.frac
            if k >= d.bits:
                return self.iconst(0, d.mlir)
            if k:
                r = self.op(f"arith.shli {r}, {self.iconst(k, d.mlir)} : {d.mlir}")
            return r
        r = self.shift_right(v, s.bits, s.frac - d.frac, signed)
        return self.resize(r, s.bits, d.bits, signed)

    # (source family, destination family) -> conversion
    _CASTS = {("float", "float"): _float_to_float, ("float", "int"): _float_to_int,
              ("int", "float"): _int_to_float, ("int", "int"): _int_to_int,
              ("fixed", "float"): _fixed_to_float, ("float", "fixed"): _float_to_fixed,
              ("int", "fixed"): _int_to_fixed, ("fixed", "int"): _fixed_to_int,
              ("fixed", "fixed"): _fixed_to_fixed}

    def shift_right(self, v, bits, k, signed) -> str:
        """floor(v / 2**k) at width `bits` (shifts >= width saturate to the sign)."""
        if k == 0:
            return v
        ty = f"i{bits}"
        if k >= bits:
            if not signed:
                return self.iconst(0, ty)
            k = bits - 1
        return self.op(f"arith.{'shrsi' if signed else 'shrui'} {v}, {self.iconst(k, ty)} : {ty}")
