"""SystemVerilog helper functions of the static RTL expression printer (allo.backend.rtl.static.exprs):
operations whose SV form would name an operand twice (division with its guards, min/max, abs,
bit_set), or that need a loop (pow, bit_reverse) or a double-width product (fixed-point * and /).

Each helper is a `function automatic` on raw bit vectors, named after its operation, signedness
and widths (`allo_div_s32`, `allo_fxmul_u16_8`), so one name is one definition. They are written
in the SV subset Yosys 0.70 reads: no `return` (the result is assigned to the function's name),
declarations before statements.

Example::

    lib = SVFunctions()
    name = lib.use("div", 32, True)       # 'allo_div_s32'
    lib.text()                            # its definition (and those of its dependencies)
"""
from __future__ import annotations

import re


def lit(value: int, width: int) -> str:
    """The sized SV literal of the low `width` bits of `value`: lit(-1, 8) is "8'hff"."""
    return f"{width}'h{int(value) & ((1 << width) - 1):x}"


def _head(name: str, width: int, params) -> str:
    ps = ", ".join(f"input logic [{w - 1}:0] {p}" for p, w in params)
    return f"function automatic logic [{width - 1}:0] {name}({ps});"


def _sname(kind: str, w: int, signed: bool, *more) -> str:
    return f"allo_{kind}_{'s' if signed else 'u'}{w}" + "".join(f"_{m}" for m in more)


def _div(w, signed):
    """C division that never traps: x / 0 is 0, MIN / -1 wraps to MIN (allo.render.arith.int_div)."""
    name = _sname("div", w, signed)
    if signed:
        body = (f"  if (b == {lit(0, w)}) {name} = {lit(0, w)};\n"
                f"  else if (b == {lit(-1, w)}) {name} = {lit(0, w)} - a;\n"
                f"  else {name} = $signed(a) / $signed(b);")
    else:
        body = f"  if (b == {lit(0, w)}) {name} = {lit(0, w)};\n  else {name} = a / b;"
    return name, [], f"{_head(name, w, [('a', w), ('b', w)])}\n{body}\nendfunction"


def _floordiv(w, signed):
    """numpy floor division (signed: the truncated quotient minus 1 when the remainder's sign
    differs from the divisor's); x // 0 is 0, MIN // -1 wraps."""
    if not signed:
        return _div(w, False)
    name = _sname("floordiv", w, True)
    body = (f"  logic [{w - 1}:0] q, r;\n"
            f"  q = {lit(0, w)};\n"
            f"  if (b == {lit(-1, w)}) q = {lit(0, w)} - a;\n"
            f"  else if (b != {lit(0, w)}) begin\n"
            f"    q = $signed(a) / $signed(b);\n"
            f"    r = $signed(a) % $signed(b);\n"
            f"    if (r != {lit(0, w)} && r[{w - 1}] != b[{w - 1}]) q = q - {lit(1, w)};\n"
            f"  end\n"
            f"  {name} = q;")
    return name, [], f"{_head(name, w, [('a', w), ('b', w)])}\n{body}\nendfunction"


def _mod(w, signed):
    """numpy remainder (the sign of the divisor); x % 0 is 0."""
    name = _sname("mod", w, signed)
    if not signed:
        body = f"  if (b == {lit(0, w)}) {name} = {lit(0, w)};\n  else {name} = a % b;"
    else:
        body = (f"  logic [{w - 1}:0] r;\n"
                f"  r = {lit(0, w)};\n"
                f"  if (b != {lit(0, w)} && b != {lit(-1, w)}) begin\n"
                f"    r = $signed(a) % $signed(b);\n"
                f"    if (r != {lit(0, w)} && r[{w - 1}] != b[{w - 1}]) r = r + b;\n"
                f"  end\n"
                f"  {name} = r;")
    return name, [], f"{_head(name, w, [('a', w), ('b', w)])}\n{body}\nendfunction"


def _minmax(kind):
    def make(w, signed):
        name = _sname(kind, w, signed)
        rel = "<" if kind == "min" else ">"
        cond = f"$signed(a) {rel} $signed(b)" if signed else f"a {rel} b"
        return name, [], f"{_head(name, w, [('a', w), ('b', w)])}\n  {name} = ({cond}) ? a : b;\nendfunction"
    return make


def _abs(w, signed):
    """|a| of a signed value (MIN stays MIN, as math.absi)."""
    name = _sname("abs", w, True)
    return name, [], f"{_head(name, w, [('a', w)])}\n  {name} = a[{w - 1}] ? {lit(0, w)} - a : a;\nendfunction"


def _pow(w, signed):
    """a ** b by squaring, wrapping at w bits; a negative (signed) exponent gives the C truncation
    of 1 / a**-b: 1 for a == 1, +-1 for a == -1, else 0 (allo.render.arith.int_pow)."""
    name = _sname("pow", w, signed)
    body = (f"  logic [{w - 1}:0] r, p;\n"
            f"  r = {lit(1, w)};\n"
            f"  p = a;\n"
            f"  for (int k = 0; k < {w}; k++) begin\n"
            f"    if (b[k]) r = r * p;\n"
            f"    p = p * p;\n"
            f"  end\n")
    if signed:
        body += (f"  if (b[{w - 1}]) begin\n"
                 f"    if (a == {lit(1, w)}) r = {lit(1, w)};\n"
                 f"    else if (a == {lit(-1, w)}) r = b[0] ? {lit(-1, w)} : {lit(1, w)};\n"
                 f"    else r = {lit(0, w)};\n"
                 f"  end\n")
    body += f"  {name} = r;"
    return name, [], f"{_head(name, w, [('a', w), ('b', w)])}\n{body}\nendfunction"


def _fxmul(w, signed, frac):
    """Fixed-point product: the double-width product of the raw values shifted right by frac."""
    name = _sname("fxmul", w, signed, frac)
    prod = "$signed(a) * $signed(b)" if signed else "a * b"
    body = (f"  logic [{2 * w - 1}:0] p;\n"
            f"  p = {prod};\n"
            f"  {name} = p[{frac + w - 1}:{frac}];")
    return name, [], f"{_head(name, w, [('a', w), ('b', w)])}\n{body}\nendfunction"


def _fxdiv(w, signed, frac):
    """Fixed-point quotient: (a << frac) / b at double width, truncated toward zero (x / 0 is 0)."""
    name = _sname("fxdiv", w, signed, frac)
    div = _sname("div", 2 * w, signed)
    ext = (lambda v: f"{{{{{w}{{{v}[{w - 1}]}}}}, {v}}}") if signed else (lambda v: f"{{{lit(0, w)}, {v}}}")
    body = (f"  logic [{2 * w - 1}:0] xa, xb, q;\n"
            f"  xa = {ext('a')};\n"
            f"  xb = {ext('b')};\n"
            f"  q = {div}(xa << {frac}, xb);\n"
            f"  {name} = q[{w - 1}:0];")
    return name, [("div", 2 * w, signed)], f"{_head(name, w, [('a', w), ('b', w)])}\n{body}\nendfunction"


def _bitrev(w, signed):
    name = f"allo_bitrev{w}"
    body = (f"  logic [{w - 1}:0] r;\n"
            f"  for (int k = 0; k < {w}; k++) r[k] = a[{w - 1} - k];\n"
            f"  {name} = r;")
    return name, [], f"{_head(name, w, [('a', w)])}\n{body}\nendfunction"


def _bitset(w, signed):
    """x with bit i set to b; an index outside x (the mask shifts out) changes nothing."""
    name = f"allo_bitset{w}"
    body = (f"  logic [{w - 1}:0] m;\n"
            f"  m = {lit(1, w)} << i;\n"
            f"  {name} = (x & ~m) | (b ? m : {lit(0, w)});")
    return name, [], f"{_head(name, w, [('x', w), ('i', 64), ('b', 1)])}\n{body}\nendfunction"


_MAKERS = {"div": _div, "floordiv": _floordiv, "mod": _mod, "min": _minmax("min"), "max": _minmax("max"),
           "abs": _abs, "pow": _pow, "fxmul": _fxmul, "fxdiv": _fxdiv, "bitrev": _bitrev, "bitset": _bitset}


class SVFunctions:
    """The helper functions one module uses, each defined once, in a deterministic order."""

    def __init__(self):
        self._defs = {}

    def use(self, kind: str, width: int, signed: bool = False, *more) -> str:
        """Register helper `kind` at `width` (and its dependencies); returns its SV name."""
        name, deps, text = _MAKERS[kind](width, signed, *more)
        if name not in self._defs:
            for dep in deps:
                self.use(*dep)
            self._defs[name] = text
        return name

    def names(self) -> list:
        return sorted(self._defs)

    def text(self) -> str:
        """Definitions of every helper used so far (sorted by name), or '' when none."""
        return "".join(self._defs[n] + "\n" for n in self.names())



_SIMPLE = re.compile(r"([A-Za-z_][A-Za-z0-9_$]*(\[[^\[\]]*\])*|\d+'[hdbo][0-9a-fA-F_]+)\Z")


def _closed(x: str, opener: str, closer: str) -> bool:
    """Does `x` start with `opener` whose matching `closer` is its last character?"""
    if not (x.startswith(opener) and x.endswith(closer)):
        return False
    depth = 0
    for k, ch in enumerate(x):
        depth += (ch == opener) - (ch == closer)
        if depth == 0:
            return k == len(x) - 1
    return False


def iso(x: str) -> str:
    """`x` as a self-determined primary: unchanged when it already is one (a name, a select, a
    sized literal, a concatenation, a function call), else wrapped in a concatenation."""
    x = x.strip()
    if _SIMPLE.match(x) or _closed(x, "{", "}"):
        return x
    m = re.match(r"\$?[A-Za-z_][A-Za-z0-9_$]*(?=\()", x)
    if m and _closed(x[m.end():], "(", ")"):
        return x
    return f"{{{x}}}"


__all__ = ["SVFunctions", "lit", "iso"]
