"""Synthesisable float32 operator units of the static RTL backend: one SystemVerilog `function
automatic` per unit, one unit per .sv file in this folder, each with a header (format, latency,
rounding) and a `// needs:` line naming the files it calls into.

The units are combinational; the static emitter pipelines every operator by putting its latency
(allo.qor's operator table, `Tables.float_op(kind, 32)`, the one source of truth with the
estimator) in registers after it. Semantics are IEEE-754 binary32 with round to nearest even,
subnormals in and out, signed zeros, infinities and NaNs, bit-exact with the CPU (x86 SSE:
invalid operations give the default NaN 0xffc00000, a NaN operand comes back quietened), and
allo's cast rules (docs/language.md section 4) for the conversions; floor / ceil (f32_round), C fmod
(f32_fmod) and allo's % (f32_mod) are exact. The math functions (exp, log, log2, pow, sin, cos,
tanh, sigmoid, rsqrt, erf) are fixed sequences of those units (range reduction + polynomial), within
the ulp bounds of docs/rtl.md of the CPU build's libm (checked by math_checks.py).

Example::

    lib = FloatUnits()
    lib.use("f32_add")          # 'allo_f32_add' (f32_common comes with it)
    lib.text()                  # the SV text of f32_common.sv and f32_add.sv
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

HERE = Path(__file__).parent
_NEEDS = re.compile(r"^// needs:(.*)$", re.M)

# unit file -> the SV function it defines (f32_common defines helpers only)
UNITS = {"f32_common": None, "f32_add": "allo_f32_add", "f32_mul": "allo_f32_mul", "f32_div": "allo_f32_div",
         "f32_sqrt": "allo_f32_sqrt", "f32_cmp": "allo_f32_cmp", "f32_minmax": "allo_f32_minmax",
         "f32_sign": "allo_f32_sign", "f32_from_int": "allo_f32_from_int", "f32_from_fixed": "allo_f32_from_fixed",
         "f32_to_fixed": "allo_f32_to_fixed", "f32_exp": "allo_f32_exp", "f32_sigmoid": "allo_f32_sigmoid",
         "f32_tanh": "allo_f32_tanh", "f32_rsqrt": "allo_f32_rsqrt", "f32_erf": "allo_f32_erf",
         "f32_log": "allo_f32_log", "f32_log2": "allo_f32_log2", "f32_pow": "allo_f32_pow",
         "f32_round": "allo_f32_round", "f32_fmod": "allo_f32_fmod", "f32_mod": "allo_f32_mod",
         "f32_trig": "allo_f32_trig"}


@functools.lru_cache(maxsize=None)
def unit_source(name: str) -> str:
    """The text of unit file `name` (without .sv).

    Example: `unit_source("f32_mul").startswith("// allo float32 multiply")` is True."""
    if name not in UNITS:
        raise KeyError(f"no float unit {name!r}; units: {', '.join(UNITS)}")
    return (HERE / f"{name}.sv").read_text()


def needs(name: str) -> list:
    """Unit files `name` calls into (its `// needs:` line)."""
    m = _NEEDS.search(unit_source(name))
    return m.group(1).split() if m else []


class FloatUnits:
    """The float units one SV module uses, each included once, dependencies first."""

    def __init__(self):
        self._order = []

    def use(self, name: str) -> str:
        """Include unit file `name` (and what it needs); returns its SV function name."""
        if name not in self._order:
            for dep in needs(name):
                self.use(dep)
            self._order.append(name)
        return UNITS[name]

    def names(self) -> list:
        return list(self._order)

    def text(self) -> str:
        """The SV text of every unit used so far, or '' when none."""
        return "".join(unit_source(n) for n in self._order)


__all__ = ["FloatUnits", "UNITS", "unit_source", "needs"]
