"""The QoR estimator: latency, II and resources of allo's loop IR as Vitis HLS 2022.1 builds it.

It walks the scheduled IR (the same tree the HLS emitter prints) and models what Vitis does with
the C++: functions run their statements in order (or overlap them as a dataflow region), calls
cost their callee plus a state, a sequential loop runs its body once per iteration, and a
pipelined loop (a `pipeline` pragma, or an innermost loop with >= 64 iterations, which Vitis
pipelines on its own) starts an iteration every II cycles:

    latency = (iterations - 1) * II + depth
    II      = max(target, recurrences, memory ports, calls)

Perfect nests around a pipelined loop are flattened into it (Vitis's loop flattening); inner
loops of a pipelined loop are unrolled (body.py models one iteration); local arrays whose ports
limit the II are partitioned along the unrolled dimension (Vitis's throughput-driven
partitioning). Trip counts of triangular loops are their worst case, as Vitis reports.

Example::

    est = Estimator(schedule.ir, clock_ns=3.33, part="xcu280", target="vhls")
    report = est.report()
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..errors import AlloError
from ..ir import effects as E
from ..ir import nodes as N
from ..ir import visit as V
from ..ir.attrs import DATAFLOW, PIPELINE_II, UNROLL, Partition
from .affine import Aff, index_aff
from .body import Interpreter, interpret
from .bundles import bundle_name
from .channels import in_order_once
from .nests import imperfect_level, promoted_accumulator
from .io_copies import io_copy_rows
from .memory import Mem, bind_param, interface_mem, local_mem, port_ii
from .report import LoopRow, QoRReport
from .resources import Resources
from .tables import part_info, tables_for


@dataclass
class FuncEst:
    name: str
    latency: int
    interval: int
    rows: list
    res: Resources
    inlined: bool = False
    notes: list = field(default_factory=list)


class FuncCtx:
    """One function being estimated: buffer -> Mem bindings, resources, callees."""

    def __init__(self, est, func, mems):
        self.est, self.func, self.tables = est, func, est.tables
        self.mems = dict(mems)
        self.res = Resources()
        self.callees = {}
        self.states = 0

    def mem(self, buf) -> Mem:
        m = self.mems.get(id(buf))
        if m is None:
            m = local_mem(buf, self.tables)
            if buf.kind in ("arg", "scalar_arg"):  # an unbound parameter: memory of some caller
                m.local = False
            self.mems[id(buf)] = m
        return m

    def callee_info(self, name):
        return self.est.func(self.est.mod.func(name), {})


def _sanitize(name: str) -> str:
    return name.replace(".", "_")


def _label(lp) -> str:
    return "l_" + _sanitize(lp.name)


def _has_loop(body) -> bool:
    return any(isinstance(s, (N.For, N.While)) for s in V.walk_stmts(body))


class Estimator:
    """See module docstring."""

    def __init__(self, module: N.Module, clock_ns: float = 3.33, part: str = "xcu280", target: str = "vhls",
                 bundle=None, wrap_io: bool = False):
        if target not in ("vhls", "vitis_hls"):
            raise AlloError(f"QoR: unknown target {target!r}; expected 'vhls' or 'vitis_hls'")
        self.mod = module
        self.tables = tables_for(float(clock_ns))
        self.clock_ns = float(clock_ns)
        self.part, self.available = part_info(part)
        self.target = target
        self.bundle = bundle
        self.wrap_io = bool(wrap_io) and target == "vitis_hls"  # copy loops around the body (interface.py)
        self._memo = {}
        self.notes = []
        self._modes = {}
        self.auto_parts = {}  # local array name -> partitions Vitis adds for throughput

    # ------------------------------------------------------------------ entry
    def report(self) -> QoRReport:
        top = self.mod.func(self.mod.top)
        mems = {}
        bundles = set()
        ports = [p for p in top.params if p.shape]
        ret = top.body[-1] if top.body and isinstance(top.body[-1], N.Return) else None
        for v in (ret.values if ret else []):  # returned arrays become output ports (the emitter aliases them)
            if isinstance(v, N.Buffer) and v.shape and v.kind in ("local", "result") and v not in ports:
                ports.append(v)
        for k, p in enumerate(ports):
            name = self._bundle_of(p, k)
            # wrap_io: the body works on an on-chip copy of each array port (partitions apply to it)
            mems[id(p)] = local_mem(p, self.tables) if self.wrap_io else interface_mem(p, self.target, name, self.tables)
            bundles.add(name)
        fe = self.func(top, mems)
        res = Resources()
        res.add(fe.res)
        latency, interval, rows = int(fe.latency), int(fe.interval), fe.rows
        if self.wrap_io:
            loads, stores = io_copy_rows(top, ports, self.tables)
            for p in ports:
                res.add_memory(mems[id(p)], self.tables)
            rows = loads + rows + stores
            copies = sum(r.latency for r in loads + stores)
            latency, interval = latency + copies, interval + copies
        if self.target == "vitis_hls":
            for _ in bundles:
                res.add_interface(self.tables)
        return QoRReport(top.name, latency, interval, self.clock_ns, self.part, rows,
                         res.as_dict(), dict(self.available), "estimate", self.target,
                         list(dict.fromkeys(self.notes + fe.notes)))

    def _bundle_of(self, p, k) -> str:
        return bundle_name(self.bundle, p.name, k)

    # ------------------------------------------------------------------ functions
    def func(self, func: N.Func, mems: dict) -> FuncEst:
        key = (func.name, tuple((k, m.uid, m.kind, tuple(m.all_parts), m.rate) for k, m in sorted(mems.items())))
        if key in self._memo:
            return self._memo[key]
        fctx = FuncCtx(self, func, mems)
        body = func.body[:-1] if func.body and isinstance(func.body[-1], N.Return) else func.body
        if func.attrs.get(DATAFLOW):
            lat, rows, interval = self.dataflow(fctx, body, {})
        else:
            lat, rows = self.block(fctx, body, {})
            interval = None
        copy = self._return_copy(fctx, func)
        if copy:
            rows = rows + [LoopRow("copy_result", "loop", None, False, None, None, None, copy,
                                   "the emitter copies a returned argument or constant into the output", [])]
        lat += copy
        ctrl = self.tables.control
        inlined = (func.name != self.mod.top and not _has_loop(func.body)
                   and _op_count(func.body) <= int(ctrl["inline_max_ops"])
                   and not any(isinstance(s, N.CallStmt) for s in V.walk_stmts(func.body)))
        lat = lat + (0 if inlined else int(ctrl["function_overhead"]))
        interval = lat + 1 if interval is None else interval
        for m in {id(m): m for m in fctx.mems.values()}.values():
            if m.local and m.uid not in {x.uid for x in mems.values()}:
                fctx.res.add_memory(m, self.tables, copies=2 if self._pingpong(func, m, fctx) else 1)
        fctx.res.add_fsm(fctx.states + 2, self.tables)
        for sub in fctx.callees.values():
            fctx.res.add(sub.res)
        fe = FuncEst(func.name, max(1, int(lat)), max(1, int(interval)), rows, fctx.res, inlined)
        self._memo[key] = fe
        return fe

    def _pingpong(self, func, mem, fctx) -> bool:
        """A local array passed between two processes of a dataflow region is double-buffered."""
        if not func.attrs.get(DATAFLOW) or mem.kind == "fifo":
            return False
        users = 0
        for s in func.body:
            if isinstance(s, N.CallStmt) and any(isinstance(a, N.Buffer) and fctx.mems.get(id(a)) is mem
                                                  for a in list(s.args) + list(s.results)):
                users += 1
        return users >= 2

    def _return_copy(self, fctx, func) -> int:
        """The emitter copies a returned argument/constant into the output array."""
        ret = func.body[-1] if func.body and isinstance(func.body[-1], N.Return) else None
        cost = 0
        for v in (ret.values if ret else []):
            if isinstance(v, N.Buffer) and v.shape and v.kind in ("arg", "global"):
                cost += v.type.size + 2
        return cost

    # ------------------------------------------------------------------ sequential code
    def block(self, fctx, body, ranges) -> tuple:
        """(latency, rows) of statements run one after another."""
        total, rows, segment = 0, [], []

        def flush():
            nonlocal total
            if segment:
                r = interpret(fctx, list(segment), var_ranges=ranges)
                fctx.res.add_sequential_ops(r.ops)
                total += r.depth + port_ii(r.accesses, self.tables)[0] - 1
                fctx.states += r.depth
                segment.clear()

        for s in body:
            if isinstance(s, N.Return):
                continue
            if isinstance(s, N.For):
                flush()
                lat, row = self.loop(fctx, s, ranges)
                total += lat + int(self.tables.control["loop_exit_state"])
                rows += row
            elif isinstance(s, N.CallStmt) and not self._inline_call(s):
                flush()
                lat, row = self.call(fctx, s)
                total += lat
                rows += row
            elif isinstance(s, N.If) and _has_loop([s]):
                flush()
                c = _expr_depth(fctx, s.cond, ranges)
                t_lat, t_rows = self.block(fctx, s.then, ranges)
                e_lat, e_rows = self.block(fctx, s.orelse, ranges)
                total += c + max(t_lat, e_lat)
                rows += t_rows + e_rows
            elif isinstance(s, N.While):
                flush()
                lat, sub = self.block(fctx, s.body, ranges)
                total += lat + 1
                rows.append(LoopRow("while", "loop", None, False, None, None, lat + 1, lat + 1,
                                    "while loop: trip count unknown (one iteration counted)", sub))
                self.notes.append("a while loop's trip count is unknown; the latency counts one iteration")
            elif isinstance(s, N.Alloc) and s.buf.shape and s.init is not None:
                flush()
                lat = self._fill(fctx, s.buf)
                total += lat
                if lat > 1:
                    per = self._fill_ii(fctx, s.buf)
                    rows.append(LoopRow(f"fill_{_sanitize(s.buf.name)}", "loop", s.buf.type.size, per is not None, per,
                                        None, None, lat, f"initialisation of {s.buf.name!r} (the emitter's fill loop)",
                                        []))
            else:
                segment.append(s)
        flush()
        return total, rows

    def _fill_ii(self, fctx, buf):
        """The II of an auto-pipelined fill loop, None when it is not pipelined (see `_fill`)."""
        mem = fctx.mem(buf)
        if int(buf.shape[-1]) >= int(self.tables.control["pipeline_loops"]) or buf.type.size >= 64:
            return port_ii([(mem, tuple(Aff({}, 0) for _ in buf.shape), "w", ("fill",))], self.tables)[0]
        return None

    def _fill(self, fctx, buf) -> int:
        """The emitter's initialisation nest of an array (auto-pipelined when large). A streamed
        buffer the caller initialises is written by this loop (`y_init.write(0)`): its reader
        gets one element per iteration of it (`Mem.rate`)."""
        mem = fctx.mem(buf)
        if mem.kind == "reg":
            return 1
        inner = int(buf.shape[-1])
        size = buf.type.size
        per = 1 if mem.kind == "fifo" else \
            port_ii([(mem, tuple(Aff({}, 0) for _ in buf.shape), "w", ("fill",))], self.tables)[0]
        if inner >= int(self.tables.control["pipeline_loops"]) or size >= 64:
            lat = size * per + 2
        else:
            lat = size * 2 + size // inner
        if mem.kind == "fifo":
            mem.rate = max(1, round((lat - 2) / max(1, size)))
        return lat

    def _inline_call(self, s) -> bool:
        callee = self.mod.func(s.callee)
        return (not _has_loop(callee.body) and not any(isinstance(x, N.CallStmt) for x in V.walk_stmts(callee.body))
                and _op_count(callee.body) <= int(self.tables.control["inline_max_ops"]))

    def call(self, fctx, s) -> tuple:
        callee = self.mod.func(s.callee)
        mems = self.bind(fctx, callee, s)
        fe = self.func(callee, mems)
        fctx.callees[fe.name] = fe
        lat = fe.latency + int(self.tables.control["call_overhead"])
        row = LoopRow(callee.name, "call", None, False, None, None, fe.latency, fe.latency,
                      "dataflow region" if callee.attrs.get(DATAFLOW) else "", fe.rows)
        if callee.attrs.get(DATAFLOW):
            row.kind, row.ii = "dataflow", fe.interval
        return lat, [row]

    def bind(self, fctx, callee, s) -> dict:
        mems = {}
        for p, a in zip(callee.params, s.args):
            if isinstance(a, N.Buffer) and a.shape and p.shape:
                mems[id(p)] = bind_param(p, fctx.mem(a))
        ret = callee.body[-1] if callee.body and isinstance(callee.body[-1], N.Return) else None
        if ret is not None:
            for v, r in zip(ret.values, s.results):
                if isinstance(v, N.Buffer) and isinstance(r, N.Buffer) and v.shape and v.kind in ("local", "result"):
                    mems[id(v)] = bind_param(v, fctx.mem(r))
        return mems

    # ------------------------------------------------------------------ loops
    def trip(self, s, ranges):
        """(worst-case trip count, (lo, hi) range of the loop variable); None trip if unknown."""
        lb, ub = index_aff(s.lb, {}), index_aff(s.ub, {})
        if lb is None or ub is None:
            return None, (0, 0)
        step = max(1, s.step)
        n = max(0, math.ceil(_extreme(ub.add(lb, -1), ranges, low=False) / step))
        lo, hi = _extreme(lb, ranges, low=True), _extreme(ub, ranges, low=False)
        return n, (lo, max(lo, hi - 1))

    def is_pipelined(self, s, ranges) -> tuple:
        """(pipelined?, target II, explicit?) for loop `s` in a sequential context."""
        if PIPELINE_II in s.attrs:
            return True, max(1, int(s.attrs[PIPELINE_II])), True
        if s.attrs.get(DATAFLOW) or s.attrs.get(UNROLL) == 0:
            return False, None, False
        if _inner_loops(s.body) or any(isinstance(x, N.While) for x in V.walk_stmts(s.body)):
            return False, None, False
        if any(isinstance(x, N.CallStmt) and not self._inline_call(x) for x in V.walk_stmts(s.body)):
            return False, None, False
        n, _ = self.trip(s, ranges)
        u = s.attrs.get(UNROLL)
        if n is not None and isinstance(u, int) and u > 1:
            n = math.ceil(n / u)  # the threshold applies to the iterations left after unrolling
        if n is None or n >= int(self.tables.control["pipeline_loops"]):
            return True, 1, False
        return False, None, False

    def loop(self, fctx, s, ranges) -> tuple:
        """(latency, [row]) of loop `s` started from sequential code."""
        n, rng = self.trip(s, ranges)
        unknown = n is None
        n = 1 if n is None else n
        inner_ranges = dict(ranges)
        inner_ranges[id(s.var)] = rng
        if s.attrs.get(DATAFLOW):
            lat1, rows, interval = self.dataflow(fctx, s.body, inner_ranges)
            lat = (n - 1) * interval + lat1 if n else 0
            return lat, [LoopRow(_label(s), "dataflow", n, False, interval, None, lat1, lat,
                                 "dataflow region per iteration (iterations overlap)", rows)]
        piped, target, explicit = self.is_pipelined(s, ranges)
        if piped:
            return self.pipelined(fctx, [s], ranges, target, explicit)
        chain, reset = self._flatten(s, inner_ranges, imperfect=True)
        if chain is not None:
            p = chain[-1]
            _, t, e = self.is_pipelined(p, self.chain_ranges(chain[:-1], ranges))
            return self.pipelined(fctx, chain, ranges, t, e, reset)
        unroll = s.attrs.get(UNROLL)
        if unroll is not None and not _has_loop(s.body):
            return self._unrolled(fctx, s, n, unroll, ranges)
        body_lat, rows = self.block(fctx, s.body, inner_ranges)
        it = body_lat + int(self.tables.control["loop_exit_state"])
        lat = n * it
        note = "trip count unknown (counted once)" if unknown else ""
        if unroll is not None:
            note = (note + "; " if note else "") + "unroll of a loop with inner loops modelled as sequential"
        return lat, [LoopRow(_label(s), "loop", None if unknown else n, False, None, None, it, lat, note, rows)]

    def _unrolled(self, fctx, s, n, factor, ranges):
        """A non-pipelined loop unrolled by `factor` (0 = fully): lanes run side by side."""
        u = n if factor in (0, None) else max(1, int(factor))
        lb = index_aff(s.lb, {})
        iters = math.ceil(n / u) if u else 0
        lanes = [{id(s.var): (lb if lb is not None else Aff()).add(Aff({id(s.var): s.step * u}, s.step * k))}
                 for k in range(u)] if iters > 1 else [{id(s.var): (lb or Aff()).add(Aff({}, s.step * k))}
                                                       for k in range(u)]
        r = interpret(fctx, s.body, lanes, var_ranges=ranges)
        fctx.res.add_sequential_ops(r.ops)
        it = r.depth + port_ii(r.accesses, self.tables)[0] - 1
        if factor in (0, None):
            return it, []
        lat = iters * (it + 1)
        return lat, [LoopRow(_label(s), "loop", iters, False, None, None, it + 1, lat, f"unrolled x{u}", [])]

    def flatten_chain(self, s, ranges):
        """Loops s .. p of a perfect nest ending in a pipelined loop p (Vitis flattens them;
        nests.py: not when p accumulates into a promoted register of an outer iteration)."""
        return self._flatten(s, ranges, imperfect=False)[0]

    def _flatten(self, s, ranges, imperfect):
        """(chain or None, reset): `imperfect` also folds outer statements nests.py allows (the
        static RTL builds only perfect nests); `reset`: such a fold resets the accumulators."""
        if s.attrs.get(UNROLL) is not None or s.attrs.get(DATAFLOW):
            return None, False
        chain, cur, reset = [s], s, False
        while True:
            if len(cur.body) == 1 and isinstance(cur.body[0], N.For):
                nxt = cur.body[0]
            elif imperfect and not _variable_bound(cur) and imperfect_level(cur) is not None:
                nxt, reset = imperfect_level(cur), True
            else:
                return None, False
            if _variable_bound(nxt):
                return None, False  # Vitis flattens only when inner bounds are constant
            chain.append(nxt)
            piped, _, _ = self.is_pipelined(nxt, self.chain_ranges(chain[:-1], ranges))
            if piped:
                if not reset and promoted_accumulator(nxt, [id(lp.var) for lp in chain[:-1]]):
                    return None, False
                return chain, reset
            if nxt.attrs.get(UNROLL) is not None or nxt.attrs.get(DATAFLOW):
                return None, False
            cur = nxt

    def chain_ranges(self, loops, ranges):
        out = dict(ranges)
        for lp in loops:
            _, rng = self.trip(lp, out)
            out[id(lp.var)] = rng
        return out

    def pipelined(self, fctx, chain, ranges, target, explicit, reset=False) -> tuple:
        """A pipelined loop (the last of `chain`; the others are flattened into it; `reset`: an
        imperfect nest whose accumulators restart from a select, nests.py)."""
        p = chain[-1]
        rng = dict(ranges)
        trips, unknown = [], False
        for lp in chain:
            n, r = self.trip(lp, rng)
            unknown = unknown or n is None
            trips.append(1 if n is None else n)
            rng[id(lp.var)] = r
        unroll = p.attrs.get(UNROLL)
        u = trips[-1] if unroll == 0 else max(1, int(unroll or 1))
        u = max(1, min(u, trips[-1] or 1))
        iters = math.ceil(trips[-1] / u) if trips[-1] else 0
        lb = index_aff(p.lb, {}) or Aff()
        lanes = [{id(p.var): lb.add(Aff({id(p.var): p.step * u}, p.step * k))} for k in range(u)]
        loop_vars = [(id(p.var), iters)] + [(id(lp.var), t) for lp, t in zip(reversed(chain[:-1]),
                                                                                reversed(trips[:-1]))]
        notes = []
        variable = [id(p.var)] if u == 1 and _variable_bound(p) else []
        for _ in range(4):  # auto-partitioning changes memories: analyse again until stable
            res = interpret(fctx, p.body, lanes, loop_vars, explicit, rng, variable, reset)
            ii, reason, more = self._ii(fctx, res, target)
            notes += more
            if not more:
                break
        total = iters
        for t in trips[:-1]:
            total *= t
        # an iteration's accesses beyond the ports of one cycle spread over later cycles (as in the
        # circuit's modulo schedule): they lengthen the iteration, not only the interval
        depth = res.depth + port_ii(res.accesses, self.tables)[0] - 1
        lat = (total - 1) * ii + depth if total else 0
        fctx.res.add_ops(res.ops, ii)
        fctx.res.add_pipeline(depth, max(1, sum(res.ops.values()) // max(1, ii)), self.tables)
        fctx.states += ii
        for c in res.calls:
            fe = fctx.callee_info(c)
            fctx.callees[c] = fe
        if not explicit:
            notes.insert(0, "pipelined automatically (innermost loop)")
        if unknown:  # a run-time trip count (Vitis prints '?')
            notes.insert(0, "trip count unknown (one iteration counted)")
        if len(chain) > 1:
            notes.insert(0, ("flattened (imperfect nest: accumulators reset by a select) " if reset else "flattened ")
                         + " x ".join(f"{_label(lp)}({t})" for lp, t in zip(chain, trips)))
        if u > 1:
            notes.append(f"unrolled x{u} in the pipeline")
        notes += res.notes
        name = "_".join(_label(lp) for lp in chain)
        lat += int(self.tables.control["pipeline_overhead"])
        row = LoopRow(name, "loop", None if unknown else total, True, ii, target, depth, lat, "; ".join([reason] + notes if reason
                                                                                 else notes), [])
        return lat, [row]

    def _ii(self, fctx, res, target) -> tuple:
        """(II, reason, notes of auto-partitions applied: the caller analyses again if any)."""
        port, pmem, preason = port_ii(res.accesses, self.tables)
        notes = []
        other = max(target, res.rec_ii, res.call_ii)
        while (port > other and pmem is not None and pmem.local and not pmem.bound
               and pmem.kind in ("bram", "lutram", "uram")):
            auto = self._auto_partition(pmem, res.accesses, other)
            if not auto:
                break
            notes.append(auto)
            port, pmem, preason = port_ii(res.accesses, self.tables)
        ii = max(other, port)
        reason = ""
        if ii > target:
            if port == ii:
                reason = f"II {ii}: memory ports: {preason}"
            elif res.rec_ii == ii:
                reason = f"II {ii}: {res.rec_reason}"
            else:
                reason = f"II {ii}: {res.call_reason}"
        return ii, reason, notes

    def _auto_partition(self, mem, accesses, want) -> str:
        """Vitis's throughput-driven partitioning: split the dimension the unrolled lanes index."""
        limit = int(self.tables.control["auto_partition_max_banks"])
        best = None
        base = list(mem.auto_parts)
        for d in range(1, len(mem.shape) + 1):
            if any(p[1] == d for p in mem.all_parts):
                continue
            n = int(mem.shape[d - 1])
            trial = (Partition.Complete, d, 0) if n <= limit else (Partition.Cyclic, d, limit)
            mem.auto_parts = base + [trial]
            got = port_ii([a for a in accesses if a[0].uid == mem.uid], self.tables)[0]
            if best is None or got < best[0] or (got == best[0] and n < best[2]):
                best = (got, trial, n)
        mem.auto_parts = base
        if best is None or best[0] >= port_ii([a for a in accesses if a[0].uid == mem.uid], self.tables)[0]:
            return ""
        mem.auto_parts = base + [best[1]]
        self.auto_parts[mem.name] = list(mem.auto_parts)  # the static RTL builds the same banks
        if all(any(p[0] == Partition.Complete and p[1] == d for p in mem.all_parts) for d in range(1, len(mem.shape) + 1)):
            mem.kind = "reg"  # every dimension split: registers
        kind, d, f = best[1]
        how = kind if kind == Partition.Complete else f"{kind} {f}"
        return f"auto-partitioned {mem.name!r} dim {d} ({how}, throughput-driven)"

    # ------------------------------------------------------------------ dataflow
    def dataflow(self, fctx, body, ranges) -> tuple:
        """(latency, rows, interval) of a dataflow region: processes overlap; a process waits for
        the ping-pong buffers it reads to be complete, and runs alongside its FIFO producers."""
        procs = []
        for s in body:
            if isinstance(s, N.Return) or (isinstance(s, N.Alloc) and s.init is None):
                continue
            lat, rows = self.block(fctx, [s], ranges)
            reads, writes = self._rw(fctx, s)
            procs.append((max(1, lat), reads, writes, rows, s))
        start, finish = [], []
        copy_rows, copy_done = self._reader_copies(fctx, procs)
        for k, (dur, reads, writes, _, _) in enumerate(procs):
            st, fin_floor = copy_done.get(k, 0), 0
            for uid, mem in reads.items():
                prod = next((j for j in range(k - 1, -1, -1) if uid in procs[j][2]), None)
                if prod is None:
                    continue
                if mem.kind == "fifo" or self._auto_fifo(fctx, mem, procs[prod][4], procs[k][4]):
                    st = max(st, start[prod] + 1)
                    fin_floor = max(fin_floor, finish[prod] + 1)
                else:
                    st = max(st, finish[prod])
            for uid in writes:  # writing what an earlier process still reads or writes: wait for it
                for j in range(k):
                    if uid in procs[j][1] or uid in procs[j][2]:
                        if procs[j][2].get(uid) is None or procs[j][2][uid].kind != "fifo":
                            if uid not in reads:
                                st = max(st, finish[j])
            start.append(st)
            finish.append(max(st + dur, fin_floor))
        latency = max(finish, default=0)
        interval = max([p[0] for p in procs] + [r.latency for r in copy_rows], default=1) + 1
        rows = list(copy_rows)
        for (dur, _, _, prow, s), st in zip(procs, start):
            rows += prow
        return latency, rows, interval

    def _auto_fifo(self, fctx, mem, producer, consumer) -> bool:
        """An array channel written and read once in sequential order: Vitis makes it a FIFO
        (channels.py), so the consumer runs alongside the producer."""
        if not mem.local or mem.all_parts or mem.kind not in ("bram", "lutram", "uram"):
            return False
        is_buf = lambda b: isinstance(b, N.Buffer) and b.shape and fctx.mem(b).uid == mem.uid  # noqa: E731
        return (in_order_once(self.mod, producer, is_buf, "w", mem.shape)
                and in_order_once(self.mod, consumer, is_buf, "r", mem.shape))

    def _reader_copies(self, fctx, procs) -> tuple:
        """A dataflow channel has one reader: an array the region only reads, read by several
        processes, needs a copy per extra reader (Vitis refuses the region otherwise). Each copy
        is a process of its own, run from the start at one element per bank per cycle, double-
        buffered; its reader starts when it is complete. Returns (rows, {process: copy finish})."""
        written = {uid for p in procs for uid in p[2]}
        readers: dict = {}
        for k, (_, reads, _, _, _) in enumerate(procs):
            for uid, mem in reads.items():
                if uid not in written and mem.shape and mem.kind not in ("fifo", "reg", "rom"):
                    readers.setdefault(uid, (mem, []))[1].append(k)
        rows, done = [], {}
        for mem, ks in readers.values():
            trip = math.ceil(mem.size / max(1, mem.banks))
            lat = trip + int(self.tables.control["pipeline_overhead"]) + 2
            for k in ks[1:]:
                copy = Mem(f"{mem.name}_copy{k}", "bram", mem.shape, mem.bits, parts=list(mem.all_parts))
                fctx.res.add_memory(copy, self.tables, copies=2)
                done[k] = max(done.get(k, 0), lat)
                rows.append(LoopRow(f"copy_{_sanitize(mem.name)}_{k}", "loop", trip, True, 1, 1, 1, lat,
                                    f"copy of {mem.name!r} for a second reader in the dataflow region "
                                    "(a channel has one reader)", []))
        return rows, done

    def _rw(self, fctx, s) -> tuple:
        """Memories a statement reads and writes ({uid: Mem} each); initialising a local writes it,
        and a call reads and writes what its callee does with each argument."""
        reads, writes = {}, {}
        for x in V.walk_stmts([s]):
            modes = {}
            if isinstance(x, N.CallStmt):
                callee = self.mod.func(x.callee)
                effects = E.param_effects(self.mod, callee.name, self._modes)
                for p, a in zip(callee.params, x.args):
                    r, w = modes.get(id(a), (False, False))
                    pr, pw = effects.get(id(p), (True, True))
                    modes[id(a)] = (r or pr, w or pw)
            for role, b in V.buffer_refs(x):
                if not b.shape:
                    continue
                r, w = (role == V.LOAD, role in (V.STORE, V.RESULT) or (role == V.DECLARE and x.init is not None))
                if role == V.PASS:
                    r, w = modes.get(id(b), (False, False))
                if r or w:
                    m = fctx.mem(b)
                    for hit, out in ((r, reads), (w, writes)):
                        if hit:
                            out[m.uid] = m
        return reads, writes


# ----------------------------------------------------------------------------- helpers
def _expr_depth(fctx, e, ranges) -> int:
    """States to evaluate expression `e` (a branch condition) in sequential code."""
    it = Interpreter(fctx, var_ranges=ranges)
    return max(1, it.ev(e, {})[0] + 1)


def _extreme(a: Aff, ranges, low: bool) -> int:
    total = a.const
    for k, c in a.coefs.items():
        lo, hi = ranges.get(k, (0, 0))
        total += min(c * lo, c * hi) if low else max(c * lo, c * hi)
    return total


def _variable_bound(lp) -> bool:
    """A loop whose bounds depend on enclosing loop variables (a triangular loop)."""
    lb, ub = index_aff(lp.lb, {}), index_aff(lp.ub, {})
    return lb is None or ub is None or not lb.known or not ub.known


def _inner_loops(body) -> bool:
    """Loops under `body` that stay loops (fully unrolled ones disappear)."""
    for s in V.walk_stmts(body):
        if isinstance(s, N.For) and s.attrs.get(UNROLL) != 0:
            return True
    return False


def _op_count(body) -> int:
    return sum(1 for x in V.body_exprs(body) if isinstance(x, (N.BinOp, N.MathCall, N.Cast, N.UnaryOp)))


__all__ = ["Estimator", "FuncEst"]
