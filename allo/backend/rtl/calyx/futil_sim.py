"""allo's interpreter of native Calyx (`.futil`, read by futil_parse.py): a cycle-level execution of
one component with the semantics the Calyx compiler gives it, so `cx.futil` is checked by running
it (results == the LLVM build) without the Calyx compiler, which is not installable here.

Semantics (Calyx's, as compile-control and go-insertion define them):
- each cycle, the groups the control enables are active; their assignments, the continuous ones
  and the comb group of a `while`/`if` being tested drive cell inputs; combinational cells settle
  to a fixed point; an input no active assignment drives reads 0; two active assignments driving
  different values into one port are an error (a multiple-driver conflict);
- a group whose `[done]` hole is high is finished in that cycle and its assignments are off (the
  `!done` in `go`), then the clock edge updates registers, memories and pipelined units; the
  control moves on the next cycle;
- `while c with g` / `if c with g` test `c` between cycles with only `g` and the continuous
  assignments active; `seq` runs its children one after the other, `par` together until all end.
Primitives: std_reg, std_const, std_wire, std_slice/pad/signext, std_not/and/or/xor, add/sub,
lsh/rsh/srsh, unsigned and signed compares, std_mux, std_mult_pipe, std_div_pipe, std_sdiv_pipe
(C semantics: quotient truncated, remainder with the dividend's sign), comb_mem_d1 (combinational
read, write at the edge, `done` one cycle later). Pipelined units' latencies are the
interpreter's own; results do not depend on them (the control waits for `done`).

Example::

    cycles, mems, outs = run_futil(cx.futil, {"ext_mem0": [1, 2, 3, 4]}, {"in2": 5})
"""
from __future__ import annotations

from ....errors import BackendError
from .futil_parse import Const, Enable, If, Par, Port, Seq, While, parse_futil

MULT_LATENCY = 3


class FutilRuntimeError(BackendError):
    """The `.futil` program did something Calyx does not allow (a conflict, an address out of range,
    a primitive the interpreter lacks, no end within max_cycles)."""


def _mask(w: int) -> int:
    return (1 << w) - 1


def _signed(v: int, w: int) -> int:
    return v - (1 << w) if w and v >> (w - 1) else v


def _bin(fn):
    return {"ins": lambda p: {"left": p[0], "right": p[0]}, "outs": lambda p: {"out": p[0]},
            "comb": lambda p, i: {"out": fn(i["left"], i["right"], p[0]) & _mask(p[0])}}


def _cmp(fn, signed=False):
    def comb(p, i):
        a, b = i["left"], i["right"]
        if signed:
            a, b = _signed(a, p[0]), _signed(b, p[0])
        return {"out": int(fn(a, b))}
    return {"ins": lambda p: {"left": p[0], "right": p[0]}, "outs": lambda p: {"out": 1}, "comb": comb}


def _shift_left(a, b, w):
    return 0 if b >= w else a << b


def _srsh(a, b, w):
    return (_signed(a, w) >> min(b, w)) & _mask(w)


COMB = {
    "std_add": _bin(lambda a, b, w: a + b), "std_sub": _bin(lambda a, b, w: a - b),
    "std_and": _bin(lambda a, b, w: a & b), "std_or": _bin(lambda a, b, w: a | b),
    "std_xor": _bin(lambda a, b, w: a ^ b), "std_lsh": _bin(_shift_left),
    "std_rsh": _bin(lambda a, b, w: 0 if b >= w else a >> b), "std_srsh": _bin(_srsh),
    "std_eq": _cmp(lambda a, b: a == b), "std_neq": _cmp(lambda a, b: a != b),
    "std_lt": _cmp(lambda a, b: a < b), "std_gt": _cmp(lambda a, b: a > b),
    "std_le": _cmp(lambda a, b: a <= b), "std_ge": _cmp(lambda a, b: a >= b),
    "std_seq": _cmp(lambda a, b: a == b, True), "std_sneq": _cmp(lambda a, b: a != b, True),
    "std_slt": _cmp(lambda a, b: a < b, True), "std_sgt": _cmp(lambda a, b: a > b, True),
    "std_sle": _cmp(lambda a, b: a <= b, True), "std_sge": _cmp(lambda a, b: a >= b, True),
    "std_not": {"ins": lambda p: {"in": p[0]}, "outs": lambda p: {"out": p[0]},
                "comb": lambda p, i: {"out": ~i["in"] & _mask(p[0])}},
    "std_wire": {"ins": lambda p: {"in": p[0]}, "outs": lambda p: {"out": p[0]}, "comb": lambda p, i: {"out": i["in"]}},
    "std_const": {"ins": lambda p: {}, "outs": lambda p: {"out": p[0]}, "comb": lambda p, i: {"out": p[1] & _mask(p[0])}},
    "std_slice": {"ins": lambda p: {"in": p[0]}, "outs": lambda p: {"out": p[1]},
                  "comb": lambda p, i: {"out": i["in"] & _mask(p[1])}},
    "std_pad": {"ins": lambda p: {"in": p[0]}, "outs": lambda p: {"out": p[1]}, "comb": lambda p, i: {"out": i["in"]}},
    "std_signext": {"ins": lambda p: {"in": p[0]}, "outs": lambda p: {"out": p[1]},
                    "comb": lambda p, i: {"out": _signed(i["in"], p[0]) & _mask(p[1])}},
    "std_mux": {"ins": lambda p: {"cond": 1, "tru": p[0], "fal": p[0]}, "outs": lambda p: {"out": p[0]},
                "comb": lambda p, i: {"out": i["tru"] if i["cond"] else i["fal"]}},
}


def _div(a: int, b: int, w: int, signed: bool):
    """(quotient, remainder) as C computes them (division by zero: all-ones quotient, remainder = a)."""
    if b == 0:
        return _mask(w), a
    if signed:
        sa, sb = _signed(a, w), _signed(b, w)
        q = abs(sa) // abs(sb) * (1 if (sa < 0) == (sb < 0) else -1)
        return q & _mask(w), (sa - q * sb) & _mask(w)
    return a // b, a % b


class _Cell:
    """One cell's state and ports: `ins` {port: width}, `outs` {port: width}."""

    def __init__(self, cell):
        self.name, self.prim, self.p = cell.name, cell.prim, cell.params
        p = self.p
        if self.prim in COMB:
            spec = COMB[self.prim]
            self.ins, self.outs, self._comb = spec["ins"](p), spec["outs"](p), spec["comb"]
        elif self.prim == "std_reg":
            self.ins, self.outs = {"in": p[0], "write_en": 1}, {"out": p[0], "done": 1}
            self.state = {"out": 0, "done": 0}
        elif self.prim == "comb_mem_d1":
            self.ins = {"addr0": p[2], "write_data": p[0], "write_en": 1}
            self.outs, self.data, self.done = {"read_data": p[0], "done": 1}, [0] * p[1], 0
        elif self.prim in ("std_mult_pipe", "std_div_pipe", "std_sdiv_pipe"):
            self.ins = {"left": p[0], "right": p[0], "go": 1}
            res = {"out": p[0]} if self.prim == "std_mult_pipe" else {"out_quotient": p[0], "out_remainder": p[0]}
            self.outs = {**res, "done": 1}
            self.state, self.count = {**{k: 0 for k in res}, "done": 0}, 0
            self.latency = MULT_LATENCY if self.prim == "std_mult_pipe" else p[0]
        else:
            raise FutilRuntimeError(f"allo's Calyx interpreter has no primitive {self.prim!r} (cell {self.name})")
        self.stateful = self.prim not in COMB

    def outputs(self, ins: dict) -> dict:
        if self.prim in COMB:
            return self._comb(self.p, ins)
        if self.prim == "comb_mem_d1":
            addr = ins["addr0"]
            return {"read_data": self.data[addr] if addr < len(self.data) else 0, "done": self.done}
        return self.state

    def edge(self, ins: dict, cycle: int):
        if self.prim == "std_reg":
            we = ins["write_en"]
            self.state = {"out": ins["in"] if we else self.state["out"], "done": we}
        elif self.prim == "comb_mem_d1":
            self.done = ins["write_en"]
            if self.done:
                if ins["addr0"] >= len(self.data):
                    raise FutilRuntimeError(f"cycle {cycle}: {self.name} written at address {ins['addr0']}, "
                                            f"it has {len(self.data)} words")
                self.data[ins["addr0"]] = ins["write_data"]
        elif not self.stateful:
            return
        else:
            self.count = self.count + 1 if ins["go"] else 0
            self.state = {**self.state, "done": 0}
            if self.count == self.latency:
                self.count, w = 0, self.p[0]
                if self.prim == "std_mult_pipe":
                    self.state = {"out": ins["left"] * ins["right"] & _mask(w), "done": 1}
                else:
                    q, r = _div(ins["left"], ins["right"], w, self.prim == "std_sdiv_pipe")
                    self.state = {"out_quotient": q, "out_remainder": r, "done": 1}


class FutilMachine:
    """One component ready to run: cells, groups and control of a parsed `.futil`."""

    def __init__(self, comp, inputs: dict):
        self.comp = comp
        self.cells = {n: _Cell(c) for n, c in comp.cells.items()}
        self.inputs = {k: int(v) & _mask(w) for k, v in inputs.items() for w in [comp.inputs.get(k, 64)]}
        missing = set(comp.inputs) - set(self.inputs) - {"go", "clk", "reset"}
        if missing:
            raise FutilRuntimeError(f"no value for the input ports {sorted(missing)} of component {comp.name}")
        self.cycle = 0
        self._zeros = {n: {p: 0 for p in c.ins} for n, c in self.cells.items()}

    # -------------------------------------------------------------- combinational settling
    def _width(self, port: Port) -> int:
        if port.hole:
            return 1
        if port.cell is None:
            return self.comp.outputs.get(port.port, self.comp.inputs.get(port.port, 64))
        cell = self.cells.get(port.cell)
        if cell is None:
            raise FutilRuntimeError(f"assignment names an unknown cell {port.cell!r}")
        w = cell.ins.get(port.port, cell.outs.get(port.port))
        if w is None:
            raise FutilRuntimeError(f"cell {port.cell} ({cell.prim}) has no port {port.port!r}")
        return w

    def _read(self, x, values: dict) -> int:
        if isinstance(x, Const):
            return x.value
        if x.cell is None and x.port in self.inputs:
            return self.inputs[x.port]
        return values.get(str(x), 0)

    def _guard(self, g, values) -> int:
        if g is None:
            return 1
        op, a = g.op, g.args
        if op in ("port", "const"):
            return self._read(a[0], values)
        if op == "!":
            return int(not self._guard(a[0], values))
        if op == "&":
            return int(bool(self._guard(a[0], values)) and bool(self._guard(a[1], values)))
        if op == "|":
            return int(bool(self._guard(a[0], values)) or bool(self._guard(a[1], values)))
        x, y = self._guard(a[0], values), self._guard(a[1], values)
        return int({"==": x == y, "!=": x != y, "<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y}[op])

    def settle(self, assigns: list) -> dict:
        """Port values ("cell.port", "group[done]", output names) after the combinational logic of
        the active `assigns` settles."""
        touched = {a.dest.cell for a in assigns if a.dest.cell is not None and not a.dest.hole}
        base = {}
        for n, cell in self.cells.items():  # cells no assignment drives: outputs of all-zero inputs
            if n not in touched:
                for p, v in cell.outputs(self._zeros[n]).items():
                    base[f"{n}.{p}"] = v
        live = [(n, self.cells[n]) for n in self.cells if n in touched]
        values = dict(base)
        for _ in range(2 * len(live) + 4):
            drive = {}
            for a in assigns:
                if self._guard(a.guard, values):
                    key, v = str(a.dest), self._read(a.src, values) & _mask(self._width(a.dest))
                    if key in drive and drive[key][0] != v:
                        other = drive[key][1]
                        raise FutilRuntimeError(f"cycle {self.cycle}: {key} driven with {drive[key][0]} (.futil line "
                                                f"{other.line}) and {v} (line {a.line}) at once")
                    drive[key] = (v, a)
            new = dict(base)
            new.update((k, v) for k, (v, _) in drive.items())
            for n, cell in live:
                ins = {p: new.get(f"{n}.{p}", 0) for p in cell.ins}
                for p, v in cell.outputs(ins).items():
                    new[f"{n}.{p}"] = v
            if new == values:
                return values
            values = new
        raise FutilRuntimeError(f"cycle {self.cycle}: the combinational logic does not settle (a loop through "
                                "comb cells)")

    def _edge(self, values: dict):
        for n, cell in self.cells.items():
            if cell.stateful:
                cell.edge({p: values.get(f"{n}.{p}", 0) for p in cell.ins}, self.cycle)
        self.cycle += 1

    # -------------------------------------------------------------- control
    def _test(self, cond: Port, comb: str | None) -> int:
        assigns = list(self.comp.wires) + (self.comp.groups[comb].assigns if comb else [])
        return self._read(cond, self.settle(assigns))

    def _run(self, node):
        """A generator: yields the set of active groups each cycle, is sent the finished ones."""
        if isinstance(node, Enable):
            if node.group not in self.comp.groups:
                raise FutilRuntimeError(f"control enables an undefined group {node.group!r}")
            while node.group not in (yield {node.group}):
                pass
        elif isinstance(node, Seq):
            for c in node.body:
                yield from self._run(c)
        elif isinstance(node, Par):
            yield from self._par(node)
        elif isinstance(node, While):
            spins = 0
            while self._test(node.cond, node.comb):
                before = self.cycle
                yield from self._run(node.body)
                spins = spins + 1 if self.cycle == before else 0
                if spins > 1_000_000:
                    raise FutilRuntimeError(f"a while on {node.cond} with an empty body never ends")
        elif isinstance(node, If):
            yield from self._run(node.then if self._test(node.cond, node.comb) else node.orelse)

    def _par(self, node):
        live = []
        for c in node.body:
            g = self._run(c)
            try:
                live.append((g, next(g)))
            except StopIteration:
                pass
        while live:
            done = yield set().union(*(a for _, a in live))
            nxt = []
            for g, _ in live:
                try:
                    nxt.append((g, g.send(done)))
                except StopIteration:
                    pass
            live = nxt

    def run(self, max_cycles: int) -> tuple:
        """Run the control to its end: (cycles, output port values)."""
        gen = self._run(self.comp.control)
        try:
            active = next(gen)
        except StopIteration:
            active = None
        while active is not None:
            if self.cycle >= max_cycles:
                raise FutilRuntimeError(f"the .futil program did not finish within {max_cycles} cycles")
            assigns = list(self.comp.wires) + [a for g in sorted(active) for a in self.comp.groups[g].assigns]
            values = self.settle(assigns)
            done = {g for g in active if values.get(f"{g}[done]", 0)}
            if done:  # a finished group's assignments are off in its done cycle (go = !done & ...)
                keep = [a for g in sorted(active - done) for a in self.comp.groups[g].assigns]
                values = self.settle(list(self.comp.wires) + keep)
            self._edge(values)
            try:
                active = gen.send(done)
            except StopIteration:
                active = None
        final = self.settle(list(self.comp.wires))
        return self.cycle, {o: self._read(Port(None, o), final) for o in self.comp.outputs}


def run_futil(text_or_program, mems: dict, inputs: dict, component: str = "main", max_cycles: int = 10_000_000):
    """Run `component` of a `.futil` program. `mems`: {external memory cell: list of words (unsigned)}
    loaded before the run; `inputs`: {input port: int}. Returns (cycles, {memory: words after the
    run}, {output port: unsigned int})."""
    prog = parse_futil(text_or_program) if isinstance(text_or_program, str) else text_or_program
    if component not in prog:
        raise FutilRuntimeError(f"the .futil program has no component {component!r} (it has {sorted(prog)})")
    m = FutilMachine(prog[component], inputs)
    for name, words in mems.items():
        cell = m.cells.get(name)
        if cell is None or cell.prim != "comb_mem_d1":
            raise FutilRuntimeError(f"no memory cell {name!r} in component {component}")
        if len(words) != len(cell.data):
            raise FutilRuntimeError(f"memory {name} has {len(cell.data)} words, {len(words)} given")
        cell.data = [int(w) & _mask(cell.p[0]) for w in words]
    cycles, outs = m.run(max_cycles)
    return cycles, {n: list(c.data) for n, c in m.cells.items() if c.prim == "comb_mem_d1"}, outs


__all__ = ["run_futil", "FutilMachine", "FutilRuntimeError", "MULT_LATENCY"]
