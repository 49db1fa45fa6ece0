"""Times of a unit's operations: an ASAP schedule with the operator latencies of allo.qor's
tables (one source of truth with the estimator), memory ports reserved per bank and per cycle
modulo the II, the order of possibly aliasing accesses kept, and the loop-carried dependences
of a pipeline checked; a pipeline whose dependences or ports do not fit its II is rescheduled at
a larger II, with the reason.

A read on a loop-carried path (a load of memory a later store of the unit writes, a register read
before the unit writes it) is first placed ASAP; when that breaks the II it is delayed, as far as
its users allow, to where the value of the earlier iteration exists (the estimator counts the
recurrence from the read's value to the store, i.e. reads placed as late as they can be).

Timing rules (allo.qor.body): an operator with latency L starts when its operands are ready and
its result is ready L + 1 cycles later (L = 0: chained in the same cycle); a load issued at cycle
t (address on the port) is ready at t + 2 (the RAM's output register, then the datapath's); a
store or register write happens in the cycle its value is ready.

Example::

    s = schedule_unit(graph, ii=1, pipelined=True)
    s.ii, s.depth, s.reason
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ....errors import BackendError
from ....qor.affine import MAY, dependence_distance

LOAD_READY = 2  # cycles from a load's issue to its value (1-cycle RAM + the load register)
MAX_II = 4096


@dataclass
class UnitSchedule:
    ii: int
    depth: int
    reason: str = ""


class _NeedII(Exception):
    def __init__(self, ii, reason):
        self.ii, self.reason = ii, reason


class _Delay(Exception):
    """Read `node` no earlier than cycle `t` and schedule again at the same II."""

    def __init__(self, node, t):
        self.node, self.t = node, t


def schedule_unit(graph, ii: int, pipelined: bool, name: str = "") -> UnitSchedule:
    """Schedule `graph` (see module doc); `ii` is the requested II (pipelines) or None."""
    want = max(1, int(ii or 1))
    cur, reason = want, ""
    while True:
        floor = {}  # id(read node) -> earliest cycle
        try:
            for _ in range(4 * len(graph.nodes) + 4):
                try:
                    depth = _asap(graph.nodes, cur if pipelined else None, floor)
                    if pipelined:
                        _check_recurrences(graph, cur)
                    return UnitSchedule(cur, depth, reason if cur > want else "")
                except _Delay as dl:
                    if dl.t <= floor.get(id(dl.node), 0):
                        raise _NeedII(cur + 1, reason or "loop-carried reads") from None
                    floor[id(dl.node)] = dl.t
            raise _NeedII(cur + 1, reason or "loop-carried reads")
        except _NeedII as need:
            if need.ii > MAX_II:
                raise BackendError(f"static RTL: loop {name!r} needs an II above {MAX_II} ({need.reason})") from None
            cur, reason = max(cur + 1, need.ii), need.reason


def _asap(nodes, ii, floor=None):
    loaded = {n.mem.name for n in nodes if n.kind == "load"}
    table = {}  # (memory, bank, slot) -> ports used
    order = {}  # memory name -> [(node, "r"|"w")] in program order
    last = 0
    for n in nodes:
        start = max([a.ready for a in n.args] + [c.ready for c in (n.coords or [])]
                    + ([n.pred.ready] if n.pred is not None else []) + [0])
        k = n.kind
        low = (floor or {}).get(id(n), 0)
        if k == "rread":
            n.t = n.ready = low
        elif k in ("const", "var", "input"):
            n.t = n.ready = 0
        elif k in ("op",):
            n.t, n.ready = start, start + n.cost.chain
        elif k in ("logic", "mux", "bypass"):
            n.t = n.ready = start
        elif k == "load" and n.invariant:
            n.t, n.ready = 0, 0  # a register loaded before the first iteration
        elif k in ("load", "store"):
            if k == "store":
                start = _early_store(n, start, ii is not None and n.mem.name in loaded)
            start = max(start, low, _after(order.get(n.mem.name, []), n))
            n.t = _reserve(table, n, start, ii)
            n.ready = n.t + LOAD_READY if k == "load" else n.t
            order.setdefault(n.mem.name, []).append(n)
            last = max(last, n.t + (1 if k == "load" else 0))
        elif k in ("fread", "fwrite"):
            n.t = _reserve(table, n, start, ii)
            n.ready = n.t
            last = max(last, n.t)
        elif k == "rwrite":
            v = n.args[0]
            n.early = False
            if start == v.ready and v.ready >= 1 and (n.pred is None or n.pred.ready < v.ready) \
                    and early_ok(v, v.ready - 1):
                start = v.ready - 1  # computed from the operators' last stages: no extra register
                n.early = True
            n.t = n.ready = start
            last = max(last, n.t)
        else:
            raise BackendError(f"internal error: unknown node kind {k!r}")
        if k == "op":
            last = max(last, n.t + n.cost.latency)
    for n in nodes:  # a register is read when its first user needs it (then carried)
        if n.kind in ("rread", "bypass"):
            n.t = n.ready = min((u.t for u in n.users), default=(floor or {}).get(id(n), 0))
    for n in nodes:
        if n.kind in ("rwrite", "store") and n.early:
            _pull_reads(n.args[0], n.t)
    return last + 1


def _early_store(n, start, recurrent: bool) -> int:
    """A store whose value comes out of an operator's pipeline writes it from the last stage,
    one cycle sooner (like an early register write): a recurrence through memory closes at the
    operator's latency + 1, as the estimator counts it."""
    v = n.args[0]
    n.early = False
    if not recurrent:  # only where it closes a loop-carried dependence (the estimator's datapath has no such cut)
        return start
    others = [c.ready for c in (n.coords or [])] + ([n.pred.ready] if n.pred is not None else [])
    if start == v.ready >= 1 and all(r < v.ready for r in others) and early_ok(v, v.ready - 1, loads=False):
        n.early = True
        return v.ready - 1
    return start


def _pull_reads(n, t):
    """Registers read inside an early-formed value are read at cycle t."""
    if n.kind in ("rread", "bypass"):
        if n.ready > t:
            n.t = n.ready = t
        return
    if n.ready == t + 1 and (n.kind in ("logic", "mux") or (n.kind == "op" and n.cost.chain == 0)):
        for a in n.args:
            _pull_reads(a, t)


def early_ok(n, t, loads: bool = True) -> bool:
    """Can node n's value be formed at cycle t (one cycle before `ready` at most)? `loads`: may a
    load's word be taken from the RAM's output (register writes) rather than its register
    (stores: the estimator counts a load-to-store recurrence with the load register)."""
    if n.ready <= t:
        return True
    if n.ready > t + 1:
        return False
    if (n.kind == "load" and loads) or (n.kind == "op" and n.cost.chain >= 1):
        return True  # the RAM's output / the operator's last pipeline stage
    if n.kind in ("op", "logic", "mux"):
        return all(early_ok(a, t, loads) for a in n.args)
    return False


def _may_alias(a, b) -> bool:
    if not set(a.candidates()) & set(b.candidates()):
        return False
    if None in a.aff or None in b.aff:
        return True
    diff = [x.add(y, -1) for x, y in zip(a.aff, b.aff)]
    return not any(d.known and d.const != 0 for d in diff)


def _after(prior, n) -> int:
    """Earliest cycle for access `n` after the accesses before it in program order."""
    t = 0
    for p in prior:
        if not _may_alias(p, n):
            continue
        if n.kind == "load" and p.kind == "store":
            t = max(t, p.t + 1)
        elif n.kind == "store" and p.kind == "load":
            t = max(t, p.t)  # read-first RAM: the read of the same edge sees the old word
        elif n.kind == "store" and p.kind == "store":
            t = max(t, p.t + 1)
    return t


def _reserve(table, n, start, ii) -> int:
    """First cycle >= start with a free port on every bank the access may hit; records it."""
    mem = n.mem
    banks = n.candidates()
    ports = 1 if mem.kind == "fifo" else mem.ports
    t = start
    limit = start + (ii or 1) * 4 + 64 * len(banks) + 4096
    while t < limit:
        slot = t % ii if ii else t
        if all(table.get((mem.name, b, slot), 0) < ports for b in banks):
            used = [table.get((mem.name, b, slot), 0) for b in banks]
            n.port = max(used)
            if any(u != n.port for u in used):  # dynamic bank: the same port number on every bank
                t += 1
                continue
            for b in banks:
                table[(mem.name, b, slot)] = n.port + 1
            return t
        t += 1
    raise _NeedII((ii or 1) + 1, f"memory ports of {mem.name!r}")


def _check_recurrences(graph, ii):
    nodes = graph.nodes
    writes, reads = {}, {}
    last_write = {}
    for n in nodes:
        if n.kind == "rwrite":
            writes[n.reg] = max(writes.get(n.reg, 0), n.t)
            if n.t >= writes[n.reg]:
                last_write[n.reg] = n
        elif n.kind == "rread":
            reads[n.reg] = n
    for n in nodes:
        if n.kind == "bypass":  # a promoted accumulator: the register path from the store back to its use
            s = n.store
            if s.t - n.t + 1 > ii:
                raise _NeedII(s.t - n.t + 1, f"loop-carried dependence on {s.mem.name!r} (kept in a register): "
                                             f"{s.t - n.t + 1} cycles")
            # the element comes back before memory has it (expr None: an element fixed for the whole
            # run of the unit; the bypass register is cleared when the unit starts, after its drain)
            if n.expr is not None and n.expr * ii + n.args[0].t < s.t + 1:
                raise _NeedII(math.ceil((s.t + 1 - n.args[0].t) / n.expr), f"memory {s.mem.name!r}: "
                              f"revisited after {n.expr} iterations")
    for reg, tw in writes.items():
        r = reads.get(reg)
        if r is not None and tw - r.t + 1 > ii:
            path = _path(nodes, r, last_write[reg])
            if path is None or path + 1 <= ii:  # read the old value later: the write stays where it is
                raise _Delay(r, tw - ii + 1)
            raise _NeedII(path + 1, f"loop-carried dependence on {reg!r}: {path + 1} cycles")
    stores = [n for n in nodes if n.kind == "store"]
    loads = [n for n in nodes if n.kind == "load"]
    lv = graph.loop_vars
    for s in stores:
        for ld in loads:
            if ld.mem is not s.mem or ld.bypass or (s.bank is not None and ld.bank is not None and s.bank != ld.bank):
                continue
            d = _distance(s.aff, ld.aff, lv)
            if d is not None and ld.t + d * ii < s.t + 1:  # a later iteration reads what this one stores
                path = _path(nodes, ld, s)
                if path is None or path + 1 <= d * ii:  # issue the load later: the store stays where it is
                    raise _Delay(ld, s.t + 1 - d * ii)
                need = math.ceil((path + 1) / d)
                raise _NeedII(need, f"loop-carried dependence through memory {s.mem.name!r}: "
                                    f"{path + 1} cycles" + (f" over {d} iterations" if d > 1 else ""))
            d = _distance(ld.aff, s.aff, lv)
            if d is not None and s.t + d * ii < ld.t:  # a later iteration overwrites what this one reads
                raise _NeedII(math.ceil((ld.t - s.t) / d), f"memory {s.mem.name!r}: a read after a later store")
    for a in stores:
        for b in stores:
            if a is b or a.mem is not b.mem:
                continue
            d = _distance(a.aff, b.aff, lv)
            if d is not None and b.t + d * ii <= a.t:
                raise _NeedII(math.ceil((a.t + 1 - b.t) / d), f"stores to {a.mem.name!r} out of order")


def _path(nodes, a, b):
    """Cycles from read `a` (its issue) to operation `b` along the dependences between them, as
    scheduled (operator and load latencies, early register captures); None if b does not depend on a."""
    rel = {id(a): a.ready - a.t}  # id -> cycle (relative to a's issue) the node's value is ready
    found = None
    for n in nodes[nodes.index(a) + 1:]:
        ins = [rel[id(x)] for x in n.args + (n.coords or []) + ([n.pred] if n.pred is not None else [])
               if id(x) in rel]
        if not ins:
            continue
        t = max(ins)
        if n.kind in ("rwrite", "store") and n.early:
            t -= 1
        rel[id(n)] = t + (n.ready - n.t)
        if n is b:
            found = t
    return found


def _distance(store, load, loop_vars):
    if not loop_vars:
        return None
    d = dependence_distance(store, load, loop_vars)
    return 1 if d == MAY else d


__all__ = ["schedule_unit", "UnitSchedule", "LOAD_READY"]
