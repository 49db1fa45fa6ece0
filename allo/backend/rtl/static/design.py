"""The control structure of a static design, decided with the estimator's own rules (allo.qor):
which loops are pipelines (a `pipeline` schedule, or an innermost loop of >= 64 iterations),
which perfect nests are flattened into them, which loops are unrolled lanes, and which loops and
branches stay in the function's FSM. Leaves are *units*: a pipelined loop (nest), a sequential
innermost loop, or a block of straight-line code, each with the dataflow graph of one iteration
and its schedule.

Example::

    d = Design(prepare_static(ir_module), clock_ns=3.33)
    d.root           # [Unit | Loop | IfC | WhileC, ...]
    d.units[0].sched.ii
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from ....errors import BackendError, located
from ....ir import nodes as N
from ....ir import visit as V
from ....ir.attrs import DATAFLOW, PIPELINE_II, STREAM, UNROLL
from ....ir.types import Index
from ....qor.affine import Aff, index_aff
from ....qor.estimate import Estimator
from ....qor.tables import tables_for
from .dfg import GraphBuilder, UnitGraph, mark_invariant, promote_accumulators
from .fastbind import bind_fast_recurrences
from .loopflow import LoopDataflowC, data_order, fallback, has_mark, pingpong, port_order, serial, used_outside
from .memories import Memory
from .regions import disjoint, footprints, partitions
from .prepare import PROCESS_MARK
from .schedule import schedule_unit

index_t = Index()


@dataclass(eq=False)
class Unit:
    uid: int
    name: str
    loops: list  # the flattened nest, outer to inner (empty: straight-line code)
    body: list
    pipelined: bool
    ii: int = 1
    unroll: int = 1
    fsm_vars: list = field(default_factory=list)
    ranges: dict = field(default_factory=dict)
    trips: list = field(default_factory=list)
    graph: UnitGraph = None
    sched: object = None
    loc: object = None

    @property
    def signals(self):
        return [f"u{self.uid}_v{j}" for j in range(len(self.loops))]


@dataclass(eq=False)
class Loop:
    var: N.IterVar
    lb: object
    ub: object
    step: int
    body: list
    name: str
    signal: str
    trip: int = None
    loc: object = None


@dataclass(eq=False)
class IfC:
    cond: object
    then: list
    orelse: list
    loc: object = None


@dataclass(eq=False)
class DataflowC:
    """A dataflow region: its processes run concurrently, each with its own FSM; a process starts
    when the processes that write the arrays it reads (not streams) have finished."""

    processes: list  # [[control items]]
    deps: list  # per process: indices of the processes it waits for
    names: list


@dataclass(eq=False)
class WhileC:
    cond: object
    body: list
    loc: object = None


def sv_ident(name: str) -> str:
    s = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return s if s and (s[0].isalpha() or s[0] == "_") else "v_" + s


class Design:
    """See module doc."""

    def __init__(self, hw, clock_ns: float = 3.33):
        self.hw = hw
        self.func = hw.func
        self.clock_ns = float(clock_ns)
        self.tables = tables_for(self.clock_ns)
        self.est = Estimator(N.Module([hw.func], hw.func.name), clock_ns=self.clock_ns)
        self.est.report()  # decides Vitis's automatic partitions of local arrays (est.auto_parts)
        self.mems, self.mem_bufs = {}, {}
        self.regs, self.reg_of = {}, {}
        self.inputs = {}
        self.units = []
        self.fsm_loops = {}  # id(var) -> Loop
        self.names = set()
        self.region_parts, self.fps = {}, []
        if getattr(hw, "dataflow", False):  # processes touching disjoint parts of an array get their own banks
            self.fps = footprints(_groups(self.func.body)[0])
            self.region_parts = partitions(self.fps, _region_arrays(self.func))
        for p in self.func.params:
            if p.shape:
                self.memory(p, is_arg=True)
            elif p.kind == "scalar_arg":
                self.inputs[id(p)] = self.fresh(p.name)
        self.unit_process = {}  # unit uid -> process index (dataflow regions)
        self.loop_regions, self.loop_notes = [], {}  # [(LoopDataflowC, {unit uid: process})], {loop: why sequential}
        self.reg_pp_bufs, self.reg_pingpong = {}, {}  # ping-pong register arrays: id -> {uid: parity}; reg -> (copy, ..)
        if getattr(hw, "dataflow", False):
            self.root = [self.region(self.func.body)]
        else:
            self.root = self.block(self.func.body, {}, [])
        for u in self.units:
            self.build_unit(u)
        self.register_copies()
        for region, k_of in self.loop_regions:  # first: the function-level rotation below keeps their clashes
            self.spread_ports(len(region.processes), k_of)
            port_order(region, self.units, k_of)
        if self.root and isinstance(self.root[0], DataflowC):
            self.port_deps(self.root[0])
        self.check_streams()

    # ------------------------------------------------------------------ names and storage
    def fresh(self, base: str) -> str:
        base = sv_ident(base)
        name, k = base, 1
        while name in self.names or name in _RESERVED:
            name, k = f"{base}_{k}", k + 1
        self.names.add(name)
        return name

    def memory(self, buf, is_arg: bool = False) -> Memory:
        m = self.mems.get(id(buf))
        if m is None:
            arg = is_arg or buf.kind == "arg"
            extra = tuple(self.region_parts.get(id(buf), ())) + (() if arg else tuple(self.est.auto_parts.get(buf.name, ())))
            m = Memory.of(buf, arg, extra)
            m.name = self.fresh(buf.name)
            self.mems[id(buf)] = m
            self.mem_bufs[id(buf)] = buf
        return m

    def register(self, buf) -> str:
        if id(buf) not in self.reg_of:
            name = self.fresh("r_" + buf.name)
            self.reg_of[id(buf)] = name
            self.regs[name] = buf.dtype
        return self.reg_of[id(buf)]

    def reg_type(self, name):
        return self.regs[name]

    def element(self, buf, pos, loc) -> str:
        for p, n in zip(pos, buf.shape):
            if not 0 <= p < n:
                raise located(BackendError, f"static RTL: index {tuple(pos)} is outside {buf.name!r} "
                                            f"{tuple(buf.shape)}", loc)
        key = (id(buf), tuple(pos))
        if key not in self.reg_of:
            name = self.fresh(f"r_{buf.name}_" + "_".join(map(str, pos)))
            self.reg_of[key] = name
            self.regs[name] = buf.dtype
        return self.reg_of[key]

    def elements(self, buf):
        idx = [()]
        for n in buf.shape:
            idx = [i + (k,) for i in idx for k in range(n)]
        return list(enumerate(idx))

    def input_node(self, gb, buf):
        name = self.inputs[id(buf)]
        key = ("input", name)
        if key not in gb.consts:
            gb.consts[key] = gb.add("input", [], reg=name, type=buf.dtype)
        return gb.consts[key]

    # ------------------------------------------------------------------ control structure
    def block(self, body, ranges, fsm_vars) -> list:
        out, segment = [], []

        def flush():
            if segment:
                out.append(self.new_unit("seg", [], list(segment), False, 1, 1, fsm_vars, ranges, segment[0].loc))
                segment.clear()

        for s in body:
            if isinstance(s, N.Return) or isinstance(s, N.Alloc) and s.buf.name == PROCESS_MARK:
                continue
            if isinstance(s, N.For):
                flush()
                out.append(self.loop(s, ranges, fsm_vars))
            elif isinstance(s, N.If) and _has_loop([s]):
                flush()
                out.append(IfC(s.cond, self.block(s.then, ranges, fsm_vars), self.block(s.orelse, ranges, fsm_vars),
                               s.loc))
            elif isinstance(s, N.While):
                flush()
                out.append(WhileC(s.cond, self.block(s.body, ranges, fsm_vars), s.loc))
            elif isinstance(s, N.CallStmt):
                raise located(BackendError, f"internal error: call to {s.callee!r} left after inlining", s.loc)
            elif isinstance(s, N.Alloc) and s.buf.shape:
                flush()
                self.memory(s.buf)
            else:
                segment.append(s)
        flush()
        return out

    def loop(self, s, ranges, fsm_vars):
        est = self.est
        n, rng = est.trip(s, ranges)
        inner = dict(ranges)
        inner[id(s.var)] = rng
        if s.attrs.get(DATAFLOW):
            region = self.loop_region(s, n, rng, ranges, fsm_vars)
            if region is not None:
                return region
        piped, target, _ = est.is_pipelined(s, ranges)
        if piped:
            return self.new_unit(s.name, [s], s.body, True, target, s.attrs.get(UNROLL), fsm_vars, ranges, s.loc)
        chain = est.flatten_chain(s, inner)
        if chain is not None:
            _, t, _ = est.is_pipelined(chain[-1], est.chain_ranges(chain[:-1], ranges))
            return self.new_unit("_".join(lp.name for lp in chain), chain, chain[-1].body, True, t,
                                 chain[-1].attrs.get(UNROLL), fsm_vars, ranges, s.loc)
        if not _has_loop(s.body):  # an innermost loop: its iterations one after another
            return self.new_unit(s.name, [s], s.body, False, 1, s.attrs.get(UNROLL), fsm_vars, ranges, s.loc)
        lp = Loop(s.var, s.lb, s.ub, max(1, s.step), [], s.name, self.fresh("l_" + s.name), n, s.loc)
        self.fsm_loops[id(s.var)] = lp
        lp.body = self.block(s.body, inner, fsm_vars + [s.var])
        return lp

    def loop_region(self, s, n, rng, ranges, fsm_vars):
        """A loop marked dataflow as processes that overlap its iterations (loopflow.py), or None:
        its iterations one after another like any FSM loop (`loop_notes[name]` says why)."""
        groups = _groups(s.body)[0] if has_mark(s.body) else [list(s.body)]
        why = fallback(groups)
        if why is not None:
            self.loop_notes[s.name] = why
            return None
        for st in s.body:
            if isinstance(st, N.Alloc) and st.buf.shape:
                self.memory(st.buf)  # an array of the loop body, shared by its processes
        lvars = [N.IterVar(f"{s.var.name}_p{k}", s.var.type, s.var.loc) for k in range(len(groups))]
        stmts = [V.Substitute({s.var: v}).stmts(g) for v, g in zip(lvars, groups)]
        lb = index_aff(s.lb, {})
        lbc = lb.const if lb is not None and lb.known else None
        trip = n if _const_bounds(s) else None
        fresh = {id(st.buf) for st in s.body if isinstance(st, N.Alloc) and st.buf.shape
                 and self.memory(st.buf).kind in ("mem", "reg")}
        order, why = data_order(stmts, lvars, ranges, lbc, max(1, s.step), trip, fresh)
        if serial(order, len(stmts)):
            self.loop_notes[s.name] = "every two statements share data that needs program order (nothing to overlap)"
            return None
        pp = [b for b in pingpong(stmts, lvars, ranges, lbc, max(1, s.step), trip, order,
                                  used_outside(self.func.body, s), fresh)
              if self.memory(b).kind == "mem" or self.memory(b).kind == "reg" and id(b) in fresh]
        if not fresh <= {id(b) for b in pp}:  # a body array left single: program order for it
            fresh &= {id(b) for b in pp}
            order, why = data_order(stmts, lvars, ranges, lbc, max(1, s.step), trip, fresh)
        parity = []  # per double-buffered array: unit uid -> its process's iteration parity
        for b in pp:
            self.memory(b).pingpong = {}
            parity.append(self.memory(b).pingpong)
            if self.memory(b).kind == "reg":
                self.reg_pp_bufs[id(b)] = self.memory(b).pingpong
        procs, k_of = [], {}
        for k, (v, g) in enumerate(zip(lvars, stmts)):
            inner = dict(ranges)
            inner[id(v)] = rng
            lp = Loop(v, s.lb, s.ub, max(1, s.step), [], f"{s.name}_p{k}", self.fresh(f"l_{s.name}_p{k}"), n, s.loc)
            self.fsm_loops[id(v)] = lp
            first = len(self.units)
            lp.body = self.block(g, inner, fsm_vars + [v])
            k_of.update({u.uid: k for u in self.units[first:]})
            for par in parity:
                par.update({u.uid: f"{lp.signal}_cnt[0]" for u in self.units[first:]})
            procs.append(lp)
        region = LoopDataflowC(s.name, self.fresh("l_" + s.name), procs, order, why, n, s.loc)
        self.loop_regions.append((region, k_of))
        return region

    def register_copies(self):
        """The second copy of each element register of a ping-pong register array."""
        for key, name in list(self.reg_of.items()):
            if isinstance(key, tuple) and key[0] in self.reg_pp_bufs:
                copy = self.fresh(name + "_c1")
                self.regs[copy] = self.regs[name]
                self.reg_pingpong[name] = (copy, self.reg_pp_bufs[key[0]])

    def new_unit(self, name, loops, body, pipelined, ii, unroll, fsm_vars, ranges, loc) -> Unit:
        for lp in loops:
            want = lp.attrs.get(PIPELINE_II)
            if want is not None and (isinstance(want, bool) or not isinstance(want, int) or want < 1):
                raise located(BackendError, f"static RTL: loop {lp.name!r} asks for II {want!r}; a pipeline "
                                            "needs an initiation interval of at least 1", lp.loc)
        u = Unit(len(self.units), self.fresh(name), list(loops), list(body), pipelined, int(ii or 1),
                 1, list(fsm_vars), dict(ranges), loc=loc)
        rng = dict(ranges)
        for lp in loops:
            n, r = self.est.trip(lp, rng)
            u.trips.append(1 if n is None else n)
            rng[id(lp.var)] = r
        u.ranges = rng
        if loops:
            t = u.trips[-1]
            u.unroll = t if unroll == 0 else max(1, int(unroll or 1))
            u.unroll = max(1, min(u.unroll, t or 1))
        self.units.append(u)
        return u

    def region(self, body) -> DataflowC:
        groups, self.process_lines = _groups(body)
        for s in body:
            if isinstance(s, N.Alloc) and s.buf.shape and s.buf.name != PROCESS_MARK:
                self.memory(s.buf)  # an array of the region, shared by its processes
        procs, names, rw = [], [], []
        for k, g in enumerate(groups):
            first = len(self.units)
            procs.append(self.block(g, {}, []))
            for u in self.units[first:]:
                self.unit_process[u.uid] = k
            names.append(self.fresh(f"p{k}"))
            rw.append(_arrays_rw(g))
        deps, self.dep_arrays = [], {}
        for k, (reads, writes) in enumerate(rw):
            dk = set()
            for j in range(k):
                rj, wj = rw[j]
                shared = {b for b in (reads & wj) | (writes & (rj | wj))
                          if not disjoint(self.fps[k].get(b), self.fps[j].get(b))}  # e.g. each PE its C[i, j]
                if shared:
                    dk.add(j)
                    self.dep_arrays[(k, j)] = sorted(self.mem_bufs[b].name for b in shared if b in self.mem_bufs)
            deps.append(sorted(dk))
        return DataflowC(procs, deps, names)

    def port_deps(self, region):
        """Concurrent processes must not share a port of a bank (reads included): the later one
        waits for the earlier one, as for shared data."""
        self.spread_ports(len(region.processes), self.unit_process)
        use = [set() for _ in region.processes]
        for u in self.units:
            k = self.unit_process.get(u.uid)
            for n in u.graph.nodes if k is not None else ():
                if n.kind in ("load", "store") and n.mem.kind == "mem":
                    use[k].update((n.mem.name, b, n.port) for b in n.candidates())
        for k in range(len(use)):
            for j in range(k):
                common = use[k] & use[j]
                if common and j not in _all_deps(region.deps, k) and k not in _all_deps(region.deps, j):
                    region.deps[k] = sorted(set(region.deps[k]) | {j})
                    self.dep_arrays[(k, j)] = sorted({m for m, _, _ in common})

    def spread_ports(self, nproc, k_of):
        """Rotate each process's port numbers per memory (a unit's own accesses keep distinct
        ports) so that processes reading the same banks use different ports where they can
        (`k_of`: unit uid -> process)."""
        taken = set()
        for k in range(nproc):
            by_mem = {}
            for u in self.units:
                if k_of.get(u.uid) == k:
                    for n in u.graph.nodes:
                        if n.kind in ("load", "store") and n.mem.kind == "mem" and n.mem.ports > 1:
                            by_mem.setdefault(n.mem.name, []).append(n)
            for name, ns in by_mem.items():
                ports = ns[0].mem.ports
                clash = [sum((name, b, (n.port + r) % ports) in taken for n in ns for b in n.candidates())
                         for r in range(ports)]
                r = clash.index(min(clash))
                for n in ns:
                    n.port = (n.port + r) % ports
                    taken.update((name, b, n.port) for b in n.candidates())

    def _process(self, k) -> str:
        line = self.process_lines[k] if k < len(self.process_lines) else None
        return f"process {k}" + (f" (line {line})" if line else "")

    def stream_buffers(self):
        return {id(b): b for b in self.mem_bufs.values() if self.mems[id(b)].kind == "fifo"}

    def check_streams(self):
        """FIFO depths and deadlocks, decided before any simulation (see docs/rtl.md)."""
        users = {}
        for u in self.units:
            for n in u.graph.nodes:
                if n.kind in ("fread", "fwrite"):
                    users.setdefault(n.mem.name, {"fread": set(), "fwrite": set()})[n.kind].add(u.uid)
        region = self.root[0] if self.root and isinstance(self.root[0], DataflowC) else None
        for bid, buf in self.stream_buffers().items():
            m = self.mems[bid]
            if m.depth <= 0:
                m.depth = m.size  # depth -1: as many elements as the array
            u = users.get(m.name, {"fread": set(), "fwrite": set()})
            pw = {self.unit_process.get(x) for x in u["fwrite"]}
            pr = {self.unit_process.get(x) for x in u["fread"]}
            concurrent = region is not None and len(pw) == 1 and len(pr) == 1 and None not in pw | pr and pw != pr
            if not concurrent:
                m.depth = max(m.depth, m.size)  # producer and consumer run one after the other: room for all
                continue
            (p,), (c,) = pw, pr
            if p in _all_deps(region.deps, c) and m.depth < m.size:
                via = sorted({a for j in region.deps[c] if j == p or p in _all_deps(region.deps, j)
                              for a in self.dep_arrays.get((c, j), [])})
                why = f" (they share array{'s' if len(via) > 1 else ''} {', '.join(map(repr, via))}, which a " \
                      "process may use only after the previous one finished)" if via else ""
                raise located(BackendError, f"static RTL: stream {buf.name!r} (depth {m.depth}) would deadlock: "
                                            f"its consumer, {self._process(c)}, waits for its producer, "
                                            f"{self._process(p)}, to finish{why}, which needs all {m.size} elements "
                                            f"in the FIFO; make the stream at least {m.size} deep or let the "
                                            "consumer exchange data with that producer through streams only", buf.loc)

    # ------------------------------------------------------------------ unit graphs
    def build_unit(self, u: Unit):
        gb = GraphBuilder(self, u.ranges)
        gb.iter_ranges = _iter_ranges(u)
        env, aenv = {}, {}
        for v in u.fsm_vars:
            env[id(v)] = gb.add("var", [], reg=self.fsm_loops[id(v)].signal, type=index_t, expr=0)
        loop_vars = []
        for j, lp in enumerate(u.loops[:-1]):
            env[id(lp.var)] = gb.add("var", [], reg=u.signals[j], type=index_t, expr=0)
        lanes = [None]
        if u.loops:
            p = u.loops[-1]
            uu = u.unroll
            iters = math.ceil(u.trips[-1] / uu) if u.trips[-1] else 0
            lb = index_aff(p.lb, {}) or Aff()
            loop_vars = [(id(p.var), iters)] + [(id(lp.var), t) for lp, t in zip(reversed(u.loops[:-1]),
                                                                                reversed(u.trips[:-1]))]
            ub_node = None
            lanes = []
            counted = iters > 1 or not _const_bounds(p)  # a run-time trip count (est.trip: None -> 1) counts too
            for k in range(uu):
                if not counted and lb.known:  # fully unrolled: every lane's value is a constant
                    vn = gb.const(lb.const + k * p.step, index_t)
                else:
                    vn = gb.add("var", [], reg=u.signals[-1], type=index_t, expr=k * p.step)
                pred = None
                if u.trips[-1] % uu or not _const_bounds(p):
                    if ub_node is None:
                        ub_node = gb.ev(p.ub, env, aenv, None)
                    pred = gb.logic("lt", [vn, ub_node]) if k else None
                step = Aff({id(p.var): p.step * uu}, p.step * k) if counted else Aff({}, p.step * k)
                lanes.append((vn, lb.add(step), pred))
        for lane in lanes:
            env2, aenv2, pred = dict(env), dict(aenv), None
            if lane is not None:
                vn, aff, pred = lane
                env2[id(u.loops[-1].var)], aenv2[id(u.loops[-1].var)] = vn, aff
            gb.block(u.body, env2, aenv2, pred)
        nodes = gb.nodes
        if u.pipelined and u.loops:
            nodes = promote_accumulators(nodes, loop_vars)
            mark_invariant(nodes, {id(lp.var) for lp in u.loops})
            if PIPELINE_II in u.loops[-1].attrs:  # an explicit pipeline: the estimator's recurrence binding
                bind_fast_recurrences(nodes)
        for k, n in enumerate(nodes):
            n.uid = k
        u.graph = UnitGraph(nodes, loop_vars, len(lanes))
        u.sched = schedule_unit(u.graph, u.ii if u.pipelined else None, u.pipelined, u.name)

    def fsm_graph(self, exprs, fsm_vars):
        """Nodes evaluating FSM-level expressions (loop bounds, branch conditions, results)."""
        gb = GraphBuilder(self, {})
        env = {}
        for v in fsm_vars:
            env[id(v)] = gb.add("var", [], reg=self.fsm_loops[id(v)].signal, type=index_t, expr=0)
        outs = []
        for e in exprs:
            for x in V.walk_expr(e):
                if isinstance(x, N.Load) and x.buf.shape:
                    raise located(BackendError, "static RTL: a loop bound or branch condition around loops reads "
                                                f"array {x.buf.name!r}; copy the value into a scalar first",
                                  getattr(x, "loc", None))
            outs.append(gb.ev(e, env, {}, None))
        return gb, outs


def _iter_ranges(u) -> dict:
    """Ranges of the aff terms of unit u's accesses: values of enclosing FSM loops (their signals
    hold the variable) and of the unit's outer loops when they count from 0 by 1; the innermost
    loop's term counts its iterations."""
    out = {k: r for k, r in u.ranges.items() if k not in {id(lp.var) for lp in u.loops}}
    for lp, t in zip(u.loops[:-1], u.trips[:-1]):
        lb = index_aff(lp.lb, {})
        if lb is not None and lb.known and lb.const == 0 and lp.step == 1 and t:
            out[id(lp.var)] = (0, t - 1)
    if u.loops and u.trips[-1]:
        out[id(u.loops[-1].var)] = (0, max(0, math.ceil(u.trips[-1] / u.unroll) - 1))
    return out


def _groups(body) -> tuple:
    """The statements of each process of a dataflow region body, and each one's first line."""
    groups, cur, lines = [], None, []
    for s in body:
        if isinstance(s, N.Alloc) and s.buf.name == PROCESS_MARK:
            cur = []
            groups.append(cur)
            lines.append(getattr(s.loc, "lineno", None))
        elif isinstance(s, N.Return) or isinstance(s, N.Alloc) and s.buf.shape:
            continue
        else:
            if cur is None:
                cur = []
                groups.append(cur)
                lines.append(getattr(s.loc, "lineno", None))
            cur.append(s)
    return groups, lines


def _region_arrays(func) -> dict:
    """{id: buffer} of the arrays processes may share: arguments and the region's own locals."""
    out = {id(p): p for p in func.params if p.shape and not p.attrs.get(STREAM)}
    out.update({id(s.buf): s.buf for s in func.body if isinstance(s, N.Alloc) and s.buf.shape
                and not s.buf.attrs.get(STREAM) and s.buf.name != PROCESS_MARK})
    return out


def _arrays_rw(body) -> tuple:
    """(names of non-stream arrays read, written) by statements."""
    reads, writes = set(), set()
    for s in V.walk_stmts(body):
        for role, b in V.buffer_refs(s):
            if not b.shape or b.attrs.get(STREAM):
                continue
            if role == V.LOAD:
                reads.add(id(b))
            elif role in (V.STORE, V.RESULT):
                writes.add(id(b))
    return reads, writes


def _all_deps(deps, k) -> set:
    out, todo = set(), list(deps[k])
    while todo:
        j = todo.pop()
        if j not in out:
            out.add(j)
            todo += deps[j]
    return out


def _const_bounds(lp) -> bool:
    lb, ub = index_aff(lp.lb, {}), index_aff(lp.ub, {})
    return lb is not None and ub is not None and lb.known and ub.known


def _has_loop(body) -> bool:
    return any(isinstance(s, (N.For, N.While)) for s in V.walk_stmts(body))


_RESERVED = {"clock", "reset", "ap_start", "ap_done", "ap_idle", "state", "module", "input", "output", "logic",
             "wire", "reg", "begin", "end", "assign", "always", "always_ff", "always_comb", "if", "else", "case",
             "for", "int", "bit", "byte", "function", "return", "signed", "unsigned", "default", "type", "do",
             "while", "final", "initial", "program", "class", "string", "time", "event", "real", "shortint",
             "longint", "integer", "or", "and", "not", "xor", "nor", "nand", "buf", "table", "task", "var",
             "const", "enum", "struct", "union", "package", "interface", "property", "sequence", "priority",
             "unique", "config", "cell", "library", "design", "instance", "edge", "posedge", "negedge", "force",
             "release", "fork", "join", "wait", "repeat", "forever", "generate", "genvar", "parameter",
             "localparam", "specify", "supply0", "supply1", "tri", "wand", "wor", "small", "medium", "large",
             "strong0", "strong1", "weak0", "weak1", "pull0", "pull1", "highz0", "highz1", "automatic", "static",
             "void", "shortreal", "chandle", "import", "export", "extern", "virtual", "rand", "randc", "new",
             "super", "this", "null", "inside", "dist", "with", "matches", "tagged", "bind", "alias", "context",
             "cover", "assert", "assume", "restrict", "expect", "checker", "global", "let", "soft", "until",
             "accept_on", "reject_on", "nexttime", "eventually", "implies", "strong", "weak", "unwire", "uwire"}

__all__ = ["Design", "Unit", "Loop", "IfC", "WhileC", "DataflowC", "sv_ident"]
