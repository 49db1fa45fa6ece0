"""A reader of Calyx's native language (`.futil`), the subset a compiled Calyx program without
static timing uses: components with `cells` (std primitives, `@external` memories), `wires`
(groups, comb groups, continuous assignments with guards) and `control` (seq / par / while / if /
enables). It gives allo's interpreter (futil_sim.py) a program to run, so the `.futil` that
`cx.futil` prints is checked by executing it, not only by its shape, without the Calyx compiler.

Example::

    prog = parse_futil(cx.futil)
    comp = prog["main"]
    comp.cells["ext_mem0"]          # Cell(name='ext_mem0', prim='comb_mem_d1', params=(32, 4, 2), external=True)
    comp.control                    # Seq([...]) tree of control statements
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ....errors import BackendError

_TOKEN = re.compile(r"""
    (?P<ws>\s+|//[^\n]*)
  | (?P<str>"[^"]*")
  | (?P<const>\d+'[dbhx][0-9a-fA-F_]+)
  | (?P<num>\d+)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>->|==|!=|<=|>=|[{}()\[\];,=?!&|.:@<>])
""", re.X)


class FutilSyntaxError(BackendError):
    """The `.futil` text is not in the subset allo reads (with the line)."""


@dataclass(frozen=True)
class Const:
    width: int
    value: int


@dataclass(frozen=True)
class Port:
    cell: str | None  # None: a port of the component itself
    port: str  # for a group's hole: "done"/"go", with `cell` the group name and `hole` True
    hole: bool = False

    def __str__(self):
        if self.hole:
            return f"{self.cell}[{self.port}]"
        return self.port if self.cell is None else f"{self.cell}.{self.port}"


@dataclass(frozen=True)
class Guard:
    op: str  # "port" | "const" | "!" | "&" | "|" | a comparison
    args: tuple


@dataclass(frozen=True)
class Assign:
    dest: Port
    src: object  # Port | Const
    guard: Guard | None
    line: int


@dataclass
class Cell:
    name: str
    prim: str
    params: tuple
    external: bool = False


@dataclass
class Group:
    name: str
    comb: bool
    assigns: list = field(default_factory=list)


@dataclass
class Enable:
    group: str


@dataclass
class Seq:
    body: list


@dataclass
class Par:
    body: list


@dataclass
class While:
    cond: Port
    comb: str | None
    body: Seq


@dataclass
class If:
    cond: Port
    comb: str | None
    then: Seq
    orelse: Seq


@dataclass
class Component:
    name: str
    inputs: dict  # port name -> width
    outputs: dict
    cells: dict = field(default_factory=dict)
    groups: dict = field(default_factory=dict)
    wires: list = field(default_factory=list)  # continuous assignments
    control: Seq = field(default_factory=lambda: Seq([]))


def _tokens(text: str) -> list:
    out, pos, line = [], 0, 1
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise FutilSyntaxError(f".futil line {line}: cannot read {text[pos:pos + 20]!r}")
        kind = m.lastgroup
        if kind != "ws":
            out.append((kind, m.group(), line))
        line += m.group().count("\n")
        pos = m.end()
    return out


class _Reader:
    def __init__(self, text: str):
        self.toks, self.i = _tokens(text), 0

    # -------------------------------------------------------------- token helpers
    def peek(self, k: int = 0):
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else ("eof", "", self.toks[-1][2] if self.toks else 0)

    def line(self) -> int:
        return self.peek()[2]

    def next(self):
        t = self.peek()
        self.i += 1
        return t

    def expect(self, value: str):
        prev = self.toks[self.i - 1] if self.i else None
        kind, text, line = self.next()
        if text != value:
            where = f"line {prev[2]}: expected {value!r} after {prev[1]!r}" if prev else f"line {line}: expected {value!r}"
            raise FutilSyntaxError(f".futil {where}, found {text or 'the end'!r} (line {line})")
        return text

    def name(self) -> str:
        kind, text, line = self.next()
        if kind != "name":
            raise FutilSyntaxError(f".futil line {line}: expected a name, found {text!r}")
        return text

    def accept(self, value: str) -> bool:
        if self.peek()[1] == value:
            self.i += 1
            return True
        return False

    # -------------------------------------------------------------- program
    def program(self) -> dict:
        comps = {}
        while self.peek()[0] != "eof":
            if self.accept("import"):
                self.next()
                self.expect(";")
                continue
            self.expect("component")
            c = self.component()
            comps[c.name] = c
        return comps

    def ports(self) -> dict:
        self.expect("(")
        out = {}
        while not self.accept(")"):
            while self.accept("@"):  # port attributes such as @go
                self.name()
                if self.accept("("):
                    self.next()
                    self.expect(")")
            n = self.name()
            self.expect(":")
            out[n] = int(self.next()[1])
            self.accept(",")
        return out

    def component(self) -> Component:
        name = self.name()
        ins = self.ports()
        self.expect("->")
        comp = Component(name, ins, self.ports())
        self.expect("{")
        while not self.accept("}"):
            section = self.name()
            self.expect("{")
            if section == "cells":
                self.cells(comp)
            elif section == "wires":
                self.wires(comp)
            elif section == "control":
                comp.control = Seq(self.statements())
            else:
                raise FutilSyntaxError(f".futil line {self.line()}: unknown section {section!r}")
        return comp

    def cells(self, comp: Component):
        while not self.accept("}"):
            external = False
            while self.accept("@"):
                external |= self.name() == "external"
                if self.accept("("):
                    self.next()
                    self.expect(")")
            n = self.name()
            self.expect("=")
            prim = self.name()
            self.expect("(")
            params = []
            while not self.accept(")"):
                params.append(int(self.next()[1]))
                self.accept(",")
            self.expect(";")
            comp.cells[n] = Cell(n, prim, tuple(params), external)

    def wires(self, comp: Component):
        while not self.accept("}"):
            if self.peek()[1] in ("group", "comb"):
                comb = self.accept("comb")
                self.expect("group")
                g = Group(self.name(), comb)
                self.expect("{")
                while not self.accept("}"):
                    g.assigns.append(self.assign())
                comp.groups[g.name] = g
            else:
                comp.wires.append(self.assign())

    def assign(self) -> Assign:
        line = self.line()
        dest = self.port()
        self.expect("=")
        guard, src = None, self.guard()
        if self.accept("?"):
            guard, src = src, self.atom_value()
        elif src.op in ("port", "const"):
            src = src.args[0]
        else:
            raise FutilSyntaxError(f".futil line {line}: the right side of an assignment must be a port or a constant")
        self.expect(";")
        return Assign(dest, src, guard, line)

    def port(self) -> Port:
        n = self.name()
        if self.accept("."):
            return Port(n, self.name())
        if self.accept("["):
            hole = self.name()
            self.expect("]")
            return Port(n, hole, hole=True)
        return Port(None, n)

    def atom_value(self):
        kind, text, line = self.peek()
        if kind == "const":
            self.i += 1
            w, v = text.split("'")
            base = {"d": 10, "b": 2, "h": 16, "x": 16}[v[0]]
            return Const(int(w), int(v[1:].replace("_", ""), base))
        return self.port()

    # guard := or ; or := and ('|' and)* ; and := cmp ('&' cmp)* ; cmp := unary (op unary)? ; unary := '!' unary | '(' or ')' | atom
    def guard(self) -> Guard:
        g = self._and()
        while self.accept("|"):
            g = Guard("|", (g, self._and()))
        return g

    def _and(self) -> Guard:
        g = self._cmp()
        while self.accept("&"):
            g = Guard("&", (g, self._cmp()))
        return g

    def _cmp(self) -> Guard:
        g = self._unary()
        if self.peek()[1] in ("==", "!=", "<", ">", "<=", ">="):
            op = self.next()[1]
            g = Guard(op, (g, self._unary()))
        return g

    def _unary(self) -> Guard:
        if self.accept("!"):
            return Guard("!", (self._unary(),))
        if self.accept("("):
            g = self.guard()
            self.expect(")")
            return g
        v = self.atom_value()
        return Guard("const" if isinstance(v, Const) else "port", (v,))

    # -------------------------------------------------------------- control
    def statements(self) -> list:
        out = []
        while not self.accept("}"):
            out.append(self.statement())
        return out

    def statement(self):
        kind, text, line = self.peek()
        if text in ("seq", "par") and self.peek(1)[1] == "{":
            self.i += 2
            return (Seq if text == "seq" else Par)(self.statements())
        if text in ("while", "if") and self.peek(1)[1] != ";":
            self.i += 1
            cond = self.port()
            comb = self.name() if self.accept("with") else None
            self.expect("{")
            body = Seq(self.statements())
            if text == "while":
                return While(cond, comb, body)
            orelse = Seq([])
            if self.accept("else"):
                self.expect("{")
                orelse = Seq(self.statements())
            return If(cond, comb, body, orelse)
        if text == "empty":
            self.i += 1
            self.accept(";")
            return Seq([])
        g = self.name()
        self.expect(";")
        return Enable(g)


def parse_futil(text: str) -> dict:
    """{component name: Component} of `.futil` text; FutilSyntaxError (with the line) otherwise."""
    return _Reader(text).program()


__all__ = ["parse_futil", "FutilSyntaxError", "Component", "Cell", "Group", "Assign", "Port", "Const", "Guard",
           "Enable", "Seq", "Par", "While", "If"]
