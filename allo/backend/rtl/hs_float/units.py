"""The float units of the handshake route: one external function per operator kind, its name
saying what it computes, and the SystemVerilog module (elastic.sv around allo's combinational
float32 function units, allo/backend/rtl/static/float/) that CIRCT's extern instance binds to.

Names (operands are the bits of float32 values, i32, unless said otherwise):
- `allo_hsf_add`, `_sub`, `_mul`, `_div`, `_rem` (C fmodf), `_min`, `_max` (LLVM minimumf /
  maximumf), `_sqrt`, `_floor`, `_ceil`: float32 results, exact as the LLVM build;
- `allo_hsf_exp`, `_log`, `_log2`, `_tanh`, `_erf`, `_rsqrt`, `_sigmoid`, `_sin`, `_cos`, `_pow`:
  the math units of the static circuit (fixed sequences of the basic units; the same bits as
  `scheduling="static"`, within docs/rtl.md's ulp bounds of the LLVM build's libm);
- `allo_hsf_cmp_<p>` (p an arith.cmpf predicate: oeq, ult, ...): an i1;
- `allo_hsf_from_s<w>` / `_from_u<w>`: a signed / unsigned w-bit integer to float32;
- `allo_hsf_from_fxs<w>_<f>` / `_from_fxu<w>_<f>`: a w-bit Fixed / UFixed raw value with f
  fraction bits to float32 (through float64, as the LLVM build);
- `allo_hsf_to_i<w>`: float32 to a w-bit integer (truncated toward zero, wrapped; NaN, inf -> 0);
- `allo_hsf_to_fx<w>_<f>`: float32 to a w-bit Fixed / UFixed raw value (floored, wrapped).

Example::

    unit_signature("allo_hsf_cmp_olt")      # ([32, 32], 1)
    text = unit_modules(["allo_hsf_add"])   # "module allo_hsf_add(..." with its function units
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

from ....errors import BackendError
from ..static.float import FloatUnits, module_source

PREFIX = "allo_hsf_"
_TEMPLATE = Path(__file__).with_name("elastic.sv")

# arith.cmpf predicate number -> its name and allo_f32_cmp's predicate bits (bit 0: equal,
# bit 1: greater, bit 2: less, bit 3: unordered; f32_cmp.sv)
CMPF = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une", "uno",
        "true"]
_CMP_BITS = {"false": 0, "oeq": 1, "ogt": 2, "oge": 3, "olt": 4, "ole": 5, "one": 6, "ord": 7, "ueq": 9, "ugt": 10,
             "uge": 11, "ult": 12, "ule": 13, "une": 14, "uno": 8, "true": 15}
# float32 -> float32 operators: operand count, float unit, the SV of the result from a function
# unit `{f}` (None: an instance of the module unit, on the operands and `extra`)
F32_OPS = {"add": (2, "f32_add", "{f}(in0, in1, 1'b0)"), "sub": (2, "f32_add", "{f}(in0, in1, 1'b1)"),
           "mul": (2, "f32_mul", "{f}(in0, in1)"), "div": (2, "f32_div", "{f}(in0, in1)"),
           "min": (2, "f32_minmax", "{f}(in0, in1, 1'b0)"), "max": (2, "f32_minmax", "{f}(in0, in1, 1'b1)"),
           "sqrt": (1, "f32_sqrt", "{f}(in0)"), "floor": (1, "f32_round", "{f}(in0, 1'b0)"),
           "ceil": (1, "f32_round", "{f}(in0, 1'b1)"), "rem": (2, "f32_fmod", None), "pow": (2, "f32_pow", None),
           "exp": (1, "f32_exp", None), "log": (1, "f32_log", None), "log2": (1, "f32_log2", None),
           "tanh": (1, "f32_tanh", None), "erf": (1, "f32_erf", None), "rsqrt": (1, "f32_rsqrt", None),
           "sigmoid": (1, "f32_sigmoid", None), "sin": (1, "f32_trig", None), "cos": (1, "f32_trig", None)}
_EXTRA = {"sin": ["1'b0"], "cos": ["1'b1"]}  # the module unit's inputs after the operands
_FROM_INT = re.compile(r"from_([su])(\d+)$")
_FROM_FIXED = re.compile(r"from_fx([su])(\d+)_(\d+)$")
_TO_INT = re.compile(r"to_i(\d+)$")
_TO_FIXED = re.compile(r"to_fx(\d+)_(\d+)$")


def _kind(name: str) -> str:
    if not name.startswith(PREFIX):
        raise BackendError(f"internal error: {name!r} is not a handshake float unit")
    return name[len(PREFIX):]


def unit_signature(name: str) -> tuple:
    """([operand bit widths], result bit width) of unit `name`."""
    k = _kind(name)
    if k in F32_OPS:
        return [32] * F32_OPS[k][0], 32
    if k.startswith("cmp_") and k[4:] in _CMP_BITS:
        return [32, 32], 1
    m = _FROM_INT.match(k) or _FROM_FIXED.match(k)
    if m:
        return [int(m.group(2))], 32
    m = _TO_INT.match(k) or _TO_FIXED.match(k)
    if m:
        return [32], int(m.group(1))
    raise BackendError(f"internal error: no handshake float unit {name!r}")


def _extend(x: str, w: int, signed: bool) -> str:
    """SV of the w-bit value x extended to 64 bits."""
    if w == 64:
        return x
    fill = f"{{{64 - w}{{{x}[{w - 1}]}}}}" if signed else f"{64 - w}'d0"
    return f"{{{fill}, {x}}}"


def _body(name: str, fu: FloatUnits) -> str:
    """SV lines assigning `y` (the result) from in0.. with the units of `fu`."""
    k = _kind(name)
    ins, wo = unit_signature(name)
    if k in F32_OPS:
        n, unit, form = F32_OPS[k]
        if form is None:  # a module unit
            return f"  assign y = {fu.instance(unit, [f'in{j}' for j in range(n)] + _EXTRA.get(k, []))};\n"
        return f"  assign y = {form.format(f=fu.use(unit))};\n"
    if k.startswith("cmp_"):
        return f"  assign y = {fu.use('f32_cmp')}(in0, in1, 4'd{_CMP_BITS[k[4:]]});\n"
    m = _FROM_INT.match(k)
    if m:
        signed, w = m.group(1) == "s", ins[0]
        return f"  assign y = {fu.use('f32_from_int')}({_extend('in0', w, signed)}, 1'b{int(signed)});\n"
    m = _FROM_FIXED.match(k)
    if m:
        signed, w, frac = m.group(1) == "s", ins[0], int(m.group(3))
        return (f"  assign y = {fu.use('f32_from_fixed')}({_extend('in0', w, signed)}, 1'b{int(signed)}, "
                f"12'd{frac});\n")
    m = _TO_INT.match(k) or _TO_FIXED.match(k)
    frac, flr = (int(m.group(2)), 1) if m.re is _TO_FIXED else (0, 0)
    return (f"  logic [63:0] t;\n  assign t = {fu.use('f32_to_fixed')}(in0, 12'd{frac}, 1'b{flr});\n"
            f"  assign y = t[{wo - 1}:0];\n")


@functools.lru_cache(maxsize=None)
def _template() -> str:
    return _TEMPLATE.read_text()


def unit_module(name: str, fu: FloatUnits) -> str:
    """The SV module of unit `name` (module units it instantiates are recorded in `fu`)."""
    ins, wo = unit_signature(name)
    body = _body(name, fu)
    n = len(ins)
    ports = "".join(f"  input  logic [{w - 1}:0] in{k},\n  input  logic in{k}_valid,\n  output logic in{k}_ready,\n"
                    for k, w in enumerate(ins))
    ports += f"  input  logic in{n}_valid,\n  output logic in{n}_ready,"
    ready = "".join(f"  assign in{k}_ready = take;\n" for k in range(n + 1))
    subs = {"@NAME@": name, "@CTRL@": str(n), "@PORTS@": ports, "@WO@": str(wo - 1),
            "@ALL_VALID@": " & ".join(f"in{k}_valid" for k in range(n + 1)), "@READY@": ready.rstrip("\n"),
            "@BODY@": fu.instances() + body.rstrip("\n"), "@FUNCTIONS@": fu.text().rstrip("\n")}
    text = _template()
    for key, value in subs.items():
        text = text.replace(key, value)
    return text


def unit_modules(names) -> str:
    """The SV of every unit in `names` (each once) and of the float module units they instantiate."""
    out, mods = [], []
    for name in dict.fromkeys(names):
        fu = FloatUnits()
        out.append(unit_module(name, fu))
        if fu.instances():  # (a unit with an instance uses no function unit itself: names() are its modules)
            mods += [m for m in fu.names() if m not in mods]
    return "".join(out) + "".join(module_source(m) for m in mods)


__all__ = ["unit_signature", "unit_module", "unit_modules", "CMPF", "PREFIX"]
