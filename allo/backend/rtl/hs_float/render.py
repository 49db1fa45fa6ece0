"""Casts between float32 and integers / fixed point on the handshake route: the renderer emits a
call of the conversion unit (units.py) instead of allo's float64 sequence (docs/language.md
section 4), which the float32 units compute in one step with the same result bits; a float32
sigmoid is a call of its unit too.

A mixin of the hardware function renderer (lower.HWFuncRenderer); casts that do not involve
float32 (or involve another float type, which rewrite.py then refuses) are the CastMixin's.

Example::

    v = renderer.cast(v, Fixed(16, 8), Float(32))   # func.call @allo_hsf_from_fxs16_8(%v) : (i16) -> f32
"""
from __future__ import annotations

from ....ir import nodes as N
from ....ir.ops import MathFn
from ....ir.types import Float
from ....render.casts import CastMixin as _Casts
from ....render.exprs import ExprMixin
from .units import PREFIX


def _f32(t) -> bool:
    return isinstance(t, Float) and t.bits == 32 and not t.brain


class FloatCastMixin:
    """Overrides the float <-> int / fixed entries of CastMixin._CASTS for float32 (see above),
    and renders a float32 sigmoid as its unit (the static circuit's allo_f32_sigmoid_m, not
    the 1 / (1 + exp(-x)) of the CPU build)."""

    def e_math(self, e):
        if e.fn == MathFn.SIGMOID and _f32(e.type):
            return self.unit_call(f"{PREFIX}sigmoid", self.expr_as(e.args[0], e.type), "f32", "f32")
        return ExprMixin.e_math(self, e)

    _EXPRS = {**ExprMixin._EXPRS, N.MathCall: e_math}

    def unit_call(self, name: str, v: str, ity: str, oty: str) -> str:
        calls = self.__dict__.setdefault("unit_calls", {})
        calls[name] = (ity, oty)
        return self.op(f"func.call @{name}({v}) : ({ity}) -> {oty}")

    def _hs_float_to_int(self, v, s, d, cs, cd):
        if not _f32(s) or d.bits > 64:
            return _Casts._float_to_int(self, v, s, d, cs, cd)
        return self.unit_call(f"{PREFIX}to_i{d.bits}", v, "f32", f"i{d.bits}")

    def _hs_int_to_float(self, v, s, d, cs, cd):
        if not _f32(d) or s.bits > 64:
            return _Casts._int_to_float(self, v, s, d, cs, cd)
        return self.unit_call(f"{PREFIX}from_{cs}{s.bits}", v, f"i{s.bits}", "f32")

    def _hs_fixed_to_float(self, v, s, d, cs, cd):
        if not _f32(d) or s.bits > 64:
            return _Casts._fixed_to_float(self, v, s, d, cs, cd)
        sign = "s" if cs == "sfx" else "u"
        return self.unit_call(f"{PREFIX}from_fx{sign}{s.bits}_{s.frac}", v, f"i{s.bits}", "f32")

    def _hs_float_to_fixed(self, v, s, d, cs, cd):
        if not _f32(s) or d.bits > 64:
            return _Casts._float_to_fixed(self, v, s, d, cs, cd)
        return self.unit_call(f"{PREFIX}to_fx{d.bits}_{d.frac}", v, "f32", f"i{d.bits}")

    _CASTS = {**_Casts._CASTS, ("float", "int"): _hs_float_to_int, ("int", "float"): _hs_int_to_float,
              ("fixed", "float"): _hs_fixed_to_float, ("float", "fixed"): _hs_float_to_fixed}


def unit_declarations(renderer) -> str:
    """`func.func private` lines for the conversion units `renderer` called."""
    calls = getattr(renderer, "unit_calls", {})
    return "".join(f"  func.func private @{n}({i}) -> {o}\n" for n, (i, o) in calls.items())


__all__ = ["FloatCastMixin", "unit_declarations"]
