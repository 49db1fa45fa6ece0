"""SystemVerilog of a static design (allo.backend.rtl.static.design): one module with
Vitis-style ap_ctrl_hs control (ap_start / ap_done / ap_idle), ap_memory ports per bank of every
array argument (`A_address0, A_ce0, A_we0, A_d0, A_q0`; banks `A_b<k>_...`), scalar inputs,
results `ap_return_<r>`, on-chip RAMs for local arrays, an FSM for the control structure and one
datapath per unit: an iteration issue counter, a valid bit per stage and free-running delay
registers that carry each value from the cycle it is ready to the cycles it is used.

Example::

    text, ports = emit_design(design)
"""
from __future__ import annotations

from ....ir import nodes as N
from .design import DataflowC, IfC, Loop, Unit, WhileC
from .exprs import ExprEmitter, sv_width
from .loopflow import LoopDataflowC
from .memories import Memory


def _w(t) -> int:
    return sv_width(t)


def _lit(bits, value) -> str:
    return f"{bits}'d{int(value) & ((1 << bits) - 1)}"


class Emitter:
    def __init__(self, design):
        self.d = design
        self.ex = ExprEmitter()
        self.decl, self.body, self.ff = [], [], []  # declarations, assigns, always_ff statements
        self.ports = []  # (direction, width, name)
        self.accesses = {}  # (mem name, bank, port) -> [(unit, node)]
        self.counters = []
        self.regwrites = {}  # register -> [always_ff statements, in unit order]
        self.fifo_ops = {}  # stream -> {"fread"/"fwrite": [(enable, data)]}
        self.qsels = {}  # (unit, load) -> its RAM output expression
        self.nfsm = 0

    # ------------------------------------------------------------------ values
    def wire(self, name, bits, expr):
        self.decl.append(f"  logic [{bits - 1}:0] {name};")
        self.body.append(f"  assign {name} = {expr};")
        return name

    def reg(self, name, bits):
        self.decl.append(f"  logic [{bits - 1}:0] {name};")
        return name

    def base(self, u, n) -> str:
        return f"u{u.uid}_n{n.uid}"

    def val(self, u, n, t) -> str:
        """Node n's value at cycle t of its iteration."""
        k = n.kind
        if k == "const":
            return self.ex.emit(N.Const(n.expr, n.type), [])
        if k == "input":
            return n.reg
        if k == "var" and not n.reg.startswith("u"):
            return n.reg
        delay = t - n.ready
        if delay < 0:
            raise AssertionError(f"internal error: value {n.kind}#{n.uid} used at {t} before it is ready ({n.ready})")
        self.need[n.uid] = max(self.need.get(n.uid, 0), delay)
        return self.base(u, n) if delay == 0 else f"{self.base(u, n)}_d{delay}"

    # ------------------------------------------------------------------ units
    def unit(self, u):
        g, s = u.graph, u.sched
        self.need = {}
        k = u.uid
        D = max(1, s.depth)
        ii = s.ii if u.pipelined else D + 1
        p = f"u{k}"
        self.uff, self.stalls = [], []
        self.decl.append(f"  logic {p}_start, {p}_active, {p}_run, {p}_issue, {p}_issue_raw, {p}_done, {p}_ok, "
                         f"{p}_last, {p}_en, {p}_go;")
        pre = self.prologue(u, p)
        vs = [f"{p}_issue"] + [f"{p}_vs{t}" for t in range(1, D)]
        for t in range(1, D):
            self.decl.append(f"  logic {vs[t]};")
            self.uff.append(f"    if (reset) {vs[t]} <= 1'b0; else {vs[t]} <= {vs[t - 1]};")
        self.vs = vs
        busy = " | ".join(vs[1:]) or "1'b0"
        self.body.append(f"  assign {p}_done = {p}_active & ~{p}_run & ~({busy}){pre};")
        self.uff.append(f"    if (reset) {p}_active <= 1'b0; else if ({p}_start) {p}_active <= 1'b1; "
                       f"else if ({p}_done) {p}_active <= 1'b0;")
        self._counters(u, p, ii)
        for n in g.nodes:
            self.node(u, n)
        for uid, m in sorted(self.need.items()):
            n = g.nodes[uid]
            w = _w(n.type) if n.kind not in ("logic",) else 1
            prev = self.base(u, n)
            for j in range(1, m + 1):
                r = self.reg(f"{self.base(u, n)}_d{j}", w)
                self.uff.append(f"    {r} <= {prev};")
                prev = r
        self.body.append(f"  assign {p}_en = " + (" & ".join(f"~({x})" for x in self.stalls) or "1'b1") + ";")
        self.body.append(f"  assign {p}_issue = {p}_issue_raw & {p}_en;")
        self.ff.append(f"    if ({p}_en) begin  // {u.name}: every register of the unit holds while it stalls")
        self.ff += ["  " + x for x in self.uff]
        self.ff.append("    end")
        self.counters += [f"allo_cnt_{u.name}", f"allo_iss_{u.name}"]
        self.body.append(f"  assign allo_cnt_{u.name} = {p}_start | {p}_active;")
        self.body.append(f"  assign allo_iss_{u.name} = {p}_issue;")

    def prologue(self, u, p) -> str:
        """Loads whose address no iteration changes (from memory the unit never writes) are read
        once before the first iteration, into registers (Vitis hoists them out of the loop): a
        prologue of one cycle per port-slot they need, then `go` starts the iterations."""
        inv = [n for n in u.graph.nodes if n.kind == "load" and n.invariant]
        if not inv:
            self.body.append(f"  assign {p}_go = {p}_start;")
            return ""
        table, slots = {}, []
        for n in inv:
            banks = n.candidates()
            c = 0
            while any(table.get((n.mem.name, b, c), 0) >= n.mem.ports for b in banks) or \
                    len({table.get((n.mem.name, b, c), 0) for b in banks}) > 1:
                c += 1
            n.port = table.get((n.mem.name, banks[0], c), 0)
            for b in banks:
                table[(n.mem.name, b, c)] = n.port + 1
            slots.append(c)
        P = max(slots) + 1
        cb = max(1, (P + 1).bit_length())
        self.reg(f"{p}_pre", cb)
        self.reg(f"{p}_pron", 1)
        self.uff.append(f"    if (reset) {p}_pron <= 1'b0; else if ({p}_start) begin {p}_pron <= 1'b1; {p}_pre <= '0; "
                        f"end else if ({p}_go) {p}_pron <= 1'b0; else if ({p}_pron) {p}_pre <= {p}_pre + {cb}'d1;")
        self.body.append(f"  assign {p}_go = {p}_pron & ({p}_pre == {cb}'d{P + 1});")
        for n, c in zip(inv, slots):
            nm = self.base(u, n)
            addr, bexpr = self.address(u, n, 0)
            aw = n.mem.addr_bits
            self.wire(f"{nm}_a", aw, f"{aw}'({addr})")
            if bexpr is not None:
                self.wire(f"{nm}_bk", 32, f"32'({bexpr})")
            self.wire(f"{nm}_ce", 1, f"{p}_pron & ({p}_pre == {cb}'d{c})")
            banks = n.candidates()
            for b in banks:
                self.accesses.setdefault((n.mem.name, b, n.port), []).append((u, n, bexpr is not None))
            self.reg(nm, _w(n.type))
            q = self.qsel(u, n)
            self.uff.append(f"    if ({p}_pron && {p}_pre == {cb}'d{c + 1}) {nm} <= {q};")
        return f" & ~{p}_pron"

    def _counters(self, u, p, ii):
        """Loop counters of the unit's (flattened) nest: an iteration is issued every `ii` cycles."""
        loops = u.loops
        if not loops:
            self.body.append(f"  assign {p}_ok = 1'b1;\n  assign {p}_last = 1'b1;")
        else:
            gb, outs = self.d.fsm_graph([x for lp in loops for x in (lp.lb, lp.ub)], u.fsm_vars)
            vals = self.fsm_nodes(f"{p}_b", gb, outs)
            lbs, ubs = vals[0::2], vals[1::2]
            steps = [max(1, lp.step) for lp in loops]
            steps[-1] *= u.unroll
            oks, carry = [], "1'b1"
            for j in reversed(range(len(loops))):
                v, c = u.signals[j], f"{p}_c{j}"
                self.reg(c, 64)
                self.wire(v, 64, f"{p}_go ? {lbs[j]} : {c}")
                self.wire(f"{p}_nx{j}", 64, f"{v} + 64'd{steps[j]}")
                self.wire(f"{p}_w{j}", 1, f"!($signed({p}_nx{j}) < $signed({ubs[j]}))")
                self.wire(f"{p}_cy{j}", 1, carry)
                new = f"{p}_nx{j}" if j == 0 else f"({p}_w{j} ? {lbs[j]} : {p}_nx{j})"
                self.uff.append(f"    if ({p}_issue && {p}_cy{j}) {c} <= {new}; else if ({p}_issue) {c} <= {v};")
                carry = f"{p}_cy{j} & {p}_w{j}"
                oks.append(f"($signed({lbs[j]}) < $signed({ubs[j]}))")
            self.body.append(f"  assign {p}_ok = {' & '.join(oks)};\n  assign {p}_last = {carry};")
        if ii > 1:
            bits = max(1, (ii - 1).bit_length())
            self.reg(f"{p}_ph", bits)
            self.uff.append(f"    if ({p}_go) {p}_ph <= {_lit(bits, 1 % ii)}; else if ({p}_ph == {_lit(bits, ii - 1)}) "
                           f"{p}_ph <= {_lit(bits, 0)}; else {p}_ph <= {p}_ph + {_lit(bits, 1)};")
            phase = f" & ({p}_ph == {_lit(bits, 0)})"
        else:
            phase = ""
        self.body.append(f"  assign {p}_issue_raw = {p}_go ? {p}_ok : ({p}_run{phase});")
        self.uff.append(f"    if (reset) {p}_run <= 1'b0; else if ({p}_issue) {p}_run <= ~{p}_last; "
                       f"else if ({p}_go) {p}_run <= 1'b0;")

    def node(self, u, n):
        k, nm = n.kind, self.base(u, n)
        if k in ("const", "input") or (k == "var" and not n.reg.startswith("u")):
            return
        if k == "var":
            self.wire(nm, 64, f"{n.reg} + 64'd{n.expr}" if n.expr else n.reg)
        elif k == "op":
            args = [self.val(u, a, n.t) for a in n.args]
            w = _w(n.type)
            raw = self.wire(f"{nm}_raw", w, self.ex.emit(n.expr, args))
            c = n.cost.chain
            prev = raw
            for j in range(1, c + 1):
                r = self.reg(f"{nm}_p{j}", w)
                self.uff.append(f"    {r} <= {prev};")
                prev = r
            self.wire(nm, w, prev)
        elif k == "logic":
            self.wire(nm, 1, self.logic(n.expr, [self.val(u, a, n.t) for a in n.args], n.args))
        elif k == "mux":
            a = [self.val(u, x, n.t) for x in n.args]
            self.wire(nm, _w(n.type), f"{a[0]} ? {a[1]} : {a[2]}")
        elif k == "rread":
            self.wire(nm, _w(n.type), self.reg_word(u, n.reg))
        elif k == "rwrite":
            v = n.args[0]
            if n.early:
                src = self.early(u, v, n.t)
            else:
                src = self.val(u, v, n.t)
            for reg, cond in self.reg_copies(u, n.reg, f"{self.vs[n.t]} & u{u.uid}_en"):
                self.regwrites.setdefault(reg, []).append(f"if ({cond}) {reg} <= {src};")
        elif k == "load" and n.invariant:
            return  # loaded by the unit's prologue (see `prologue`)
        elif k == "load":
            self.access(u, n, None)
            w = _w(n.type)
            self.reg(nm, w)
            q = self.qsel(u, n)
            self.uff.append(f"    {nm} <= {q};")
        elif k == "store":
            v = n.args[0]
            self.access(u, n, self.early(u, v, n.t) if n.early and v.ready > n.t else self.val(u, v, n.t))
        elif k == "bypass":
            self.bypass(u, n)
        elif k in ("fread", "fwrite"):
            self.fifo_access(u, n, nm)
        else:
            raise AssertionError(f"internal error: node kind {k}")

    def reg_word(self, u, reg) -> str:
        """Register `reg` as unit u reads it (a ping-pong register, loopflow.py: u's copy)."""
        pp = self.d.reg_pingpong.get(reg)
        return reg if pp is None else f"({pp[1][u.uid]} ? {pp[0]} : {reg})"

    def reg_copies(self, u, reg, cond) -> list:
        """(register, enable) pairs a write of `reg` by unit u drives."""
        pp = self.d.reg_pingpong.get(reg)
        if pp is None:
            return [(reg, cond)]
        par = pp[1][u.uid]
        return [(pp[0], f"{cond} & {par}"), (reg, f"{cond} & ~{par}")]

    def early(self, u, n, t) -> str:
        """Node n's value formed at cycle t = ready - 1 from its operators' last stages (see
        schedule.early_ok): lets a register recurrence close one cycle sooner, as Vitis does."""
        if n.ready <= t:
            return self.val(u, n, t)
        if n.kind == "load":
            return self.qsel(u, n)
        if n.kind == "op" and n.cost.chain >= 1:
            c = n.cost.chain
            return f"{self.base(u, n)}_p{c - 1}" if c > 1 else f"{self.base(u, n)}_raw"
        args = [self.early(u, a, t) for a in n.args]
        if n.kind == "op":
            return self.ex.emit(n.expr, args)
        if n.kind == "logic":
            return self.logic(n.expr, args, n.args)
        return f"({args[0]} ? {args[1]} : {args[2]})"

    def logic(self, op, a, nodes) -> str:
        if op == "and":
            return "(" + " & ".join(a) + ")"
        if op == "not":
            return f"(~{a[0]})"
        x = [f"64'($signed({s}))" if _w(n.type) < 64 else s for s, n in zip(a, nodes)]
        cmp = {"lt": "<", "ge": ">=", "eq": "=="}[op]
        return f"($signed({x[0]}) {cmp} $signed({x[1]}))"

    # ------------------------------------------------------------------ memory accesses
    def address(self, u, n, t) -> tuple:
        """(bank-local address, bank number expression or None) of access n at cycle t."""
        mem = n.mem
        cs = [self.val(u, c, t) for c in n.coords]
        cs = [f"64'($signed({s}))" if _w(c.type) < 64 else s for s, c in zip(cs, n.coords)]
        off, bank = [], []
        for d, c in zip(mem.dims, cs):
            kind = None if d.kind is None else d.kind.value
            if kind is None:
                off.append(c)
            elif kind == "cyclic":
                off.append(f"({c} / 64'd{d.banks})")
                bank.append(f"({c} % 64'd{d.banks})")
            elif kind == "block":
                off.append(f"({c} % 64'd{d.words})")
                bank.append(f"({c} / 64'd{d.words})")
            else:
                off.append("64'd0")
                bank.append(c)
        lin, stride = [], 1
        for d, o in reversed(list(zip(mem.dims, off))):
            if d.words > 1:
                lin.append(o if stride == 1 else f"{o} * 64'd{stride}")
            stride *= d.words
        addr = " + ".join(reversed(lin)) or "64'd0"
        bexpr = None
        if n.bank is None and mem.banks > 1:
            terms, bstride = [], 1
            parts = [(d, b) for d, b in zip([d for d in mem.dims if d.kind is not None], bank)]
            for d, b in reversed(parts):
                terms.append(b if bstride == 1 else f"{b} * 64'd{bstride}")
                bstride *= d.banks
            bexpr = " + ".join(reversed(terms))
        return addr, bexpr

    def access(self, u, n, data):
        nm = self.base(u, n)
        addr, bexpr = self.address(u, n, n.t)
        aw = n.mem.addr_bits
        self.wire(f"{nm}_a", aw, f"{aw}'({addr})")
        ce = f"{self.vs[n.t]} & u{u.uid}_en"
        if n.kind == "store" and n.pred is not None:
            ce = f"{ce} & {self.val(u, n.pred, n.t)}"
        if bexpr is not None:
            self.wire(f"{nm}_bk", 32, f"32'({bexpr})")
        self.wire(f"{nm}_ce", 1, ce)
        if data is not None:
            self.wire(f"{nm}_d", n.mem.bits, data)
        banks = n.candidates()
        for b in banks:
            self.accesses.setdefault((n.mem.name, b, n.port), []).append((u, n, bexpr is not None))

    def qsel(self, u, n) -> str:
        """The RAM output word of load n in the cycle after its issue (banks muxed when the bank is
        chosen at run time); built once per load."""
        key = (u.uid, n.uid)
        if key not in self.qsels:
            self.qsels[key] = self._qsel(u, n)
        return self.qsels[key]

    def _qsel(self, u, n) -> str:
        mem, nm = n.mem, self.base(u, n)
        if n.bank is not None or mem.banks == 1:
            return self.qword(u, mem, n.bank or 0, n.port)
        self.reg(f"{nm}_bs", 32)
        self.uff.append(f"    {nm}_bs <= {nm}_bk;")
        cand = n.candidates()
        out = self.qword(u, mem, cand[-1], n.port)
        for b in reversed(cand[:-1]):
            out = f"({nm}_bs == 32'd{b}) ? {self.qword(u, mem, b, n.port)} : ({out})"
        return out

    def qword(self, u, mem, b, port) -> str:
        """The read word of port `port` of bank b for unit u (of the unit's ping-pong copy)."""
        pre = self.prefix(mem, b)
        if not mem.pingpong:
            return f"{pre}_q{port}"
        return f"({mem.pingpong[u.uid]} ? {pre}_c1_q{port} : {pre}_c0_q{port})"

    def bypass(self, u, n):
        """The promoted accumulator: the value the previous iteration stored, when it stored this element."""
        s, ld, nm = n.store, n.args[0], self.base(u, n)
        w = _w(n.type)
        acc, adr, hv = self.reg(f"{nm}_acc", w), self.reg(f"{nm}_adr", 64), self.reg(f"{nm}_hv", 1)
        here, _ = self.address(u, n, n.t)
        there, _ = self.address(u, s, s.t)
        sb = "" if s.bank is None else ""
        v = s.args[0]
        stored = self.early(u, v, s.t) if s.early and v.ready > s.t else self.val(u, v, s.t)
        self.uff.append(f"    if (reset || u{u.uid}_go) {hv} <= 1'b0; else if ({self.vs[s.t]}) begin {acc} <= "
                        f"{stored}; {adr} <= {there}; {hv} <= 1'b1; end{sb}")
        self.wire(nm, w, f"({hv} && {adr} == ({here})) ? {acc} : {self.val(u, ld, n.t)}")

    def fifo_access(self, u, n, nm):
        """A stream read (pop; the head word, first-word-fall-through) or write (push); the unit
        stalls while its FIFO is empty / full."""
        f, p = n.mem.name, f"u{u.uid}"
        raw = f"{p}_issue_raw" if n.t == 0 else self.vs[n.t]
        pred = f" & {self.val(u, n.pred, n.t)}" if n.pred is not None else ""
        want = self.wire(f"{nm}_want", 1, f"{raw}{pred}")
        self.stalls.append(f"{want} & {f}_{'empty' if n.kind == 'fread' else 'full'}")
        self.fifo_ops.setdefault(f, {"fread": [], "fwrite": []})[n.kind].append(
            (f"{want} & {p}_en", self.val(u, n.args[0], n.t) if n.kind == "fwrite" else None))
        if n.kind == "fread":
            self.wire(nm, n.mem.bits, f"{f}_dout")

    def fifos(self):
        """One FIFO (circular buffer with a count) per stream of the design."""
        for m in self.mem_by_name.values():
            if m.kind != "fifo":
                continue
            f, d, w = m.name, max(1, m.depth), m.bits
            ab = max(1, (d - 1).bit_length())
            cb = d.bit_length() + 1
            ops = self.fifo_ops.get(f, {"fread": [], "fwrite": []})
            push = " | ".join(f"({c})" for c, _ in ops["fwrite"]) or "1'b0"
            pop = " | ".join(f"({c})" for c, _ in ops["fread"]) or "1'b0"
            din = " | ".join(f"(({c}) ? {v} : {w}'d0)" for c, v in ops["fwrite"]) or f"{w}'d0"
            self.decl.append(f"  logic [{w - 1}:0] {f}_mem [0:{d - 1}];\n  logic [{ab - 1}:0] {f}_wp, {f}_rp;\n"
                             f"  logic [{cb - 1}:0] {f}_count;\n  logic {f}_push, {f}_pop, {f}_empty, {f}_full;\n"
                             f"  logic [{w - 1}:0] {f}_din, {f}_dout;")
            self.body.append(f"  assign {f}_push = {push};\n  assign {f}_pop = {pop};\n  assign {f}_din = {din};\n"
                             f"  assign {f}_dout = {f}_mem[{f}_rp];\n  assign {f}_empty = ({f}_count == {cb}'d0);\n"
                             f"  assign {f}_full = ({f}_count == {cb}'d{d});")
            wrap = (lambda x: f"({x} == {ab}'d{d - 1}) ? {ab}'d0 : {x} + {ab}'d1") if d > 1 else (lambda x: f"{ab}'d0")
            self.rams.append(f"  always_ff @(posedge clock) begin  // stream {f}, depth {d}\n"
                             f"    if (reset) begin {f}_wp <= '0; {f}_rp <= '0; {f}_count <= '0; end else begin\n"
                             f"      if ({f}_push) begin {f}_mem[{f}_wp] <= {f}_din; {f}_wp <= {wrap(f + '_wp')}; end\n"
                             f"      if ({f}_pop) {f}_rp <= {wrap(f + '_rp')};\n"
                             f"      {f}_count <= {f}_count + {cb}'({f}_push) - {cb}'({f}_pop);\n    end\n  end")

    def prefix(self, mem: Memory, bank: int) -> str:
        return mem.name if mem.banks == 1 else f"{mem.name}_b{bank}"

    # ------------------------------------------------------------------ FSM-level expressions
    def fsm_nodes(self, prefix, gb, outs) -> list:
        """Combinational wires for FSM-level expressions (values constant while a unit runs)."""
        names = {}

        def v(n):
            if n.kind == "const":
                return self.ex.emit(N.Const(n.expr, n.type), [])
            if n.kind in ("input", "var", "rread"):
                return n.reg if not (n.kind == "var" and n.expr) else f"({n.reg} + 64'd{n.expr})"
            return names[n.uid]

        for n in gb.nodes:
            nm = f"{prefix}{n.uid}"
            if n.kind == "op":
                names[n.uid] = self.wire(nm, _w(n.type), self.ex.emit(n.expr, [v(a) for a in n.args]))
            elif n.kind == "logic":
                names[n.uid] = self.wire(nm, 1, self.logic(n.expr, [v(a) for a in n.args], n.args))
            elif n.kind == "mux":
                a = [v(x) for x in n.args]
                names[n.uid] = self.wire(nm, _w(n.type), f"{a[0]} ? {a[1]} : {a[2]}")
            elif n.kind not in ("const", "input", "var", "rread"):
                raise AssertionError(f"internal error: {n.kind} at FSM level")
        out = []
        for n in outs:
            x = v(n)
            out.append(f"64'($signed({x}))" if _w(n.type) < 64 else x)
        return out

    def fsm_value(self, e, fsm_vars):
        gb, outs = self.d.fsm_graph([e], fsm_vars)
        self.nfsm += 1
        return self.fsm_nodes(f"f{self.nfsm}_n", gb, outs)[0]

    # ------------------------------------------------------------------ the FSMs
    def fsm(self):
        """The main FSM (and one per process of a dataflow region); returns (entry, done) of main."""
        main = FSM("")
        self.fsms = [main]
        done = main.new()
        entry = self.seq(self.d.root, done, [], main)
        main.add(done, f"{main.var} <= {main.idle};")
        main.entry = entry
        return entry, done

    def seq(self, items, succ, fsm_vars, m) -> int:
        entry = succ
        for it in reversed(items):
            entry = self.item(it, entry, fsm_vars, m)
        return entry

    def item(self, it, succ, fsm_vars, m) -> int:
        v = m.var
        if isinstance(it, Unit):
            s = m.new()
            p = f"u{it.uid}"
            self.starts.append(f"  assign {p}_start = ({v} == {m.sid(s)}) & ~{p}_active;")
            m.add(s, f"if ({p}_done) {v} <= {m.sid(succ)};")
            return s
        if isinstance(it, Loop):
            init, latch = m.new(), m.new()
            body = self.seq(it.body, latch, fsm_vars + [it.var], m)
            self.loop_counter(it, m, init, len(m.states) - 1, latch)
            lb, ub = self.fsm_value(it.lb, fsm_vars), self.fsm_value(it.ub, fsm_vars)
            sig = it.signal
            self.reg(sig, 64)
            m.add(init, f"{sig} <= {lb}; {v} <= ($signed({lb}) < $signed({ub})) ? {m.sid(body)} : {m.sid(succ)};")
            nxt = f"({sig} + 64'd{it.step})"
            m.add(latch, f"{sig} <= {nxt}; {v} <= ($signed({nxt}) < $signed({ub})) ? {m.sid(body)} : {m.sid(succ)};")
            return init
        if isinstance(it, IfC):
            s = m.new()
            c = self.fsm_value(it.cond, fsm_vars)
            t, e = self.seq(it.then, succ, fsm_vars, m), self.seq(it.orelse, succ, fsm_vars, m)
            m.add(s, f"{v} <= ({c} != 64'd0) ? {m.sid(t)} : {m.sid(e)};")
            return s
        if isinstance(it, WhileC):
            s = m.new()
            c = self.fsm_value(it.cond, fsm_vars)
            b = self.seq(it.body, s, fsm_vars, m)
            m.add(s, f"{v} <= ({c} != 64'd0) ? {m.sid(b)} : {m.sid(succ)};")
            return s
        if isinstance(it, DataflowC):
            s = m.new()
            procs = []
            for k, (items, name) in enumerate(zip(it.processes, it.names)):
                pm = FSM(name)
                self.fsms.append(pm)
                pdone = pm.new()
                pm.entry = self.seq(items, pdone, fsm_vars, pm)
                pm.done = pdone
                procs.append(pm)
            for k, pm in enumerate(procs):
                deps = "".join(f" & ({procs[j].var} == {procs[j].sid(procs[j].done)})" for j in it.deps[k])
                pm.idle_stmt = f"if (({v} == {m.sid(s)}){deps}) {pm.var} <= {pm.sid(pm.entry)};"
                pm.add(pm.done, f"if ({v} != {m.sid(s)}) {pm.var} <= {pm.idle};")
            alldone = " & ".join(f"({pm.var} == {pm.sid(pm.done)})" for pm in procs) or "1'b1"
            m.add(s, f"if ({alldone}) {v} <= {m.sid(succ)};")
            return s
        if isinstance(it, LoopDataflowC):
            return self.loop_region(it, succ, fsm_vars, m)
        raise AssertionError(f"internal error: control item {it!r}")

    def loop_region(self, it, succ, fsm_vars, m) -> int:
        """A dataflow loop (loopflow.py): one FSM per process, each counting the loop itself
        (init, wait, body, latch) and its finished iterations `cnt`; a process waits before each
        iteration b for its producers (cnt_j > b) and for the consumers of what it writes
        (cnt_c + depth > b)."""
        v, s = m.var, m.new()
        procs, cnts = [], []
        for k, lp in enumerate(it.processes):
            pm = FSM(f"{it.signal}_p{k}")
            self.fsms.append(pm)
            cnts.append(self.reg(f"{lp.signal}_cnt", 32))
            procs.append(pm)
        for k, (lp, pm) in enumerate(zip(it.processes, procs)):
            pm.done = pm.new()
            init, wait, latch = pm.new(), pm.new(), pm.new()
            body = self.seq(lp.body, latch, fsm_vars + [lp.var], pm)
            self.loop_counter(lp, pm, init, len(pm.states) - 1, latch)
            lb, ub = self.fsm_value(lp.lb, fsm_vars), self.fsm_value(lp.ub, fsm_vars)
            sig, c = lp.signal, cnts[k]
            self.reg(sig, 64)
            ready = [f"({cnts[j]} > {c})" for (j, kk) in sorted(it.order) if kk == k]
            ready += [f"({cnts[kk]} + 32'd{d} > {c})" for (j, kk), d in sorted(it.order.items()) if j == k]
            pm.add(init, f"{sig} <= {lb}; {c} <= 32'd0; "
                         f"{pm.var} <= ($signed({lb}) < $signed({ub})) ? {pm.sid(wait)} : {pm.sid(pm.done)};")
            cond = " & ".join(ready) or "1'b1"
            pm.add(wait, f"if ({cond}) {pm.var} <= {pm.sid(body)};")
            nxt = f"({sig} + 64'd{lp.step})"
            pm.add(latch, f"{sig} <= {nxt}; {c} <= {c} + 32'd1; "
                          f"{pm.var} <= ($signed({nxt}) < $signed({ub})) ? {pm.sid(wait)} : {pm.sid(pm.done)};")
            pm.idle_stmt = f"if ({v} == {m.sid(s)}) {pm.var} <= {pm.sid(init)};"
            pm.add(pm.done, f"if ({v} != {m.sid(s)}) {pm.var} <= {pm.idle};")
        alldone = " & ".join(f"({pm.var} == {pm.sid(pm.done)})" for pm in procs)
        m.add(s, f"if ({alldone}) {v} <= {m.sid(succ)};")
        self.body.append(f"  assign allo_cnt_{it.signal} = ({v} == {m.sid(s)});")
        self.body.append(f"  assign allo_iss_{it.signal} = allo_iss_{it.processes[0].signal};")
        self.counters += [f"allo_cnt_{it.signal}", f"allo_iss_{it.signal}"]
        return s

    def loop_counter(self, it, m, first, last, latch):
        """Outputs counting an FSM loop for mod.report(): busy while the FSM is in one of the
        loop's states (first..last, contiguous), one iteration per visit of its latch state."""
        name = it.signal
        states = " | ".join(f"({m.var} == {m.sid(k)})" for k in range(first, last + 1))
        self.body.append(f"  assign allo_cnt_{name} = {states};")
        self.body.append(f"  assign allo_iss_{name} = ({m.var} == {m.sid(latch)});")
        self.counters += [f"allo_cnt_{name}", f"allo_iss_{name}"]

    # ------------------------------------------------------------------ memories and ports
    def memories(self):
        """Port wiring of every bank: arguments become module ports, locals on-chip RAMs (a
        ping-pong local, loopflow.py, two RAMs per bank: the accessing process's iteration parity
        picks one)."""
        for key in sorted(self.accesses, key=lambda k: (k[0], k[1], k[2])):
            mem_name, b, j = key
            mem = self.mem_by_name[mem_name]
            acc = self.accesses[key]
            if mem.pingpong:
                for c in (0, 1):
                    par = {u.uid: f"({mem.pingpong[u.uid]} == 1'b{c})" for u, _, _ in acc}
                    self.port(mem, f"{self.prefix(mem, b)}_c{c}", (mem_name, b, c), j, acc, par)
            else:
                self.port(mem, self.prefix(mem, b), (mem_name, b), j, acc, {})
        for key, ports in sorted(self.port_use.items()):
            mem = self.mem_by_name[key[0]]
            if mem.is_arg:
                continue
            pre = self.prefix(mem, key[1]) + (f"_c{key[2]}" if len(key) > 2 else "")
            self.decl.append(f"  logic [{mem.bits - 1}:0] {pre}_ram [0:{mem.bank_words - 1}];")
            lines = []
            for j, (reads, writes) in sorted(ports.items()):
                if reads:
                    lines.append(f"    if ({pre}_ce{j}" + (f" && !{pre}_we{j}" if writes else "") +
                                 f") {pre}_q{j} <= {pre}_ram[{pre}_address{j}];")
                if writes:
                    lines.append(f"    if ({pre}_ce{j} && {pre}_we{j}) {pre}_ram[{pre}_address{j}] <= {pre}_d{j};")
            self.rams.append("  always_ff @(posedge clock) begin\n" + "\n".join(lines) + "\n  end")

    def port(self, mem, pre, key, j, acc, par):
        """Port j of one bank (`pre`): its accesses muxed (`par`: unit uid -> a further enable)."""
        aw, w = mem.addr_bits, mem.bits
        ces, wes, addrs, datas = [], [], [], []
        b = key[1]
        for u, n, dyn in acc:
            nm = self.base(u, n)
            ce = f"{nm}_ce" + (f" & ({nm}_bk == 32'd{b})" if dyn else "") + (f" & {par[u.uid]}" if par else "")
            ces.append(f"({ce})")
            addrs.append(f"(({ce}) ? {nm}_a : {aw}'d0)")
            if n.kind == "store":
                wes.append(f"({ce})")
                datas.append(f"(({ce}) ? {nm}_d : {w}'d0)")
        reads = any(n.kind == "load" for _, n, _ in acc)
        writes = bool(wes)
        self.port_use.setdefault(key, {})[j] = (reads, writes)
        sigs = [(f"{pre}_address{j}", aw, " | ".join(addrs)), (f"{pre}_ce{j}", 1, " | ".join(ces))]
        if writes:
            sigs += [(f"{pre}_we{j}", 1, " | ".join(wes)), (f"{pre}_d{j}", w, " | ".join(datas))]
        for name, bits, expr in sigs:
            if mem.is_arg:
                self.ports.append(("output", bits, name))
                self.body.append(f"  assign {name} = {expr};")
            else:
                self.wire(name, bits, expr)
        if reads:
            if mem.is_arg:
                self.ports.append(("input", w, f"{pre}_q{j}"))
            else:
                self.reg(f"{pre}_q{j}", w)

    # ------------------------------------------------------------------ the module
    def module(self) -> str:
        d = self.d
        self.mem_by_name = {m.name: m for m in d.mems.values()}
        self.port_use, self.rams, self.starts = {}, [], []
        for u in d.units:
            self.unit(u)
        entry, done = self.fsm()
        self.memories()
        self.fifos()
        for p in d.func.params:
            if not p.shape and p.kind == "scalar_arg":
                self.ports.append(("input", _w(p.dtype), d.inputs[id(p)]))
        ret = d.func.body[-1] if d.func.body and isinstance(d.func.body[-1], N.Return) else None
        self.results = []
        for r, e in enumerate(ret.values if ret else []):
            v = self.fsm_value(e, [])
            w = _w(e.type)
            self.ports.append(("output", w, f"ap_return_{r}"))
            self.body.append(f"  assign ap_return_{r} = {w}'({v});")
            self.results.append((r, w, e.type))
        for c in self.counters:
            self.ports.append(("output", 1, c))
        lines = [f"// Generated by allo: statically scheduled circuit of {d.func.name!r}", f"module {d.func.name}("]
        plist = ["  input logic clock", "  input logic reset", "  input logic ap_start", "  output logic ap_done",
                 "  output logic ap_idle"]
        plist += [f"  {io} logic [{b - 1}:0] {n}" for io, b, n in self.ports]
        lines.append(",\n".join(plist) + "\n);")
        lines.append(self.ex.functions())
        for m in self.fsms:
            lines += m.declarations()
        lines += self.decl
        for r in sorted(d.regs):
            lines.append(f"  logic [{_w(d.regs[r]) - 1}:0] {r};")
        lines.append(self.ex.instances())
        lines += self.body + self.starts
        main = self.fsms[0]
        lines.append(f"  assign ap_done = ({main.var} == {main.sid(done)});")
        lines.append(f"  assign ap_idle = ({main.var} == {main.idle});")
        lines.append("  always_ff @(posedge clock) begin")
        lines += self.ff
        for r, ws in self.regwrites.items():
            lines.append(f"    if (reset) {r} <= '0; else begin " + " ".join(ws) + " end")
        main.idle_stmt = f"if (ap_start) {main.var} <= {main.sid(entry)};"
        for m in self.fsms:
            lines += m.case()
        lines.append("  end")
        lines += self.rams
        lines.append("endmodule\n")
        return "\n".join(lines) + self.ex.modules()


class FSM:
    """One state machine: the function's (`state`) or a dataflow process's (`state_<name>`)."""

    def __init__(self, name: str):
        self.name = name
        self.var = f"state_{name}" if name else "state"
        self.idle = f"{self.var.upper()}_IDLE"
        self.states = []
        self.idle_stmt = ""
        self.entry = self.done = None

    def new(self) -> int:
        self.states.append([])
        return len(self.states) - 1

    def add(self, s: int, stmt: str):
        self.states[s].append(stmt)

    def sid(self, s) -> str:
        return f"{self.var.upper()}_S{s}"

    def declarations(self) -> list:
        sb = max(1, (len(self.states) + 1).bit_length())
        out = [f"  localparam logic [{sb - 1}:0] {self.idle} = {sb}'d{len(self.states)};"]
        out += [f"  localparam logic [{sb - 1}:0] {self.sid(s)} = {sb}'d{s};" for s in range(len(self.states))]
        return out + [f"  logic [{sb - 1}:0] {self.var};"]

    def case(self) -> list:
        out = [f"    if (reset) {self.var} <= {self.idle};", f"    else case ({self.var})",
               f"      {self.idle}: begin {self.idle_stmt} end"]
        out += [f"      {self.sid(s)}: begin " + " ".join(st) + " end" for s, st in enumerate(self.states)]
        return out + [f"      default: {self.var} <= {self.idle};", "    endcase"]


def emit_design(design) -> Emitter:
    """Print the design; the Emitter keeps `ports`, `port_use`, `results` and `counters`."""
    e = Emitter(design)
    e.text = e.module()
    return e


__all__ = ["Emitter", "emit_design"]
