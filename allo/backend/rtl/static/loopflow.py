"""Loop-level dataflow in the static circuit: a loop marked `dataflow` whose body statements run
as processes, each an FSM that iterates the loop itself (its own copy of the loop variable), so
iteration b + 1 of an early stage overlaps iteration b of a later one, as Vitis runs such a loop
(the estimator's model: docs/qor.md, "a loop with dataflow overlaps its iterations").

Synchronisation is a count of finished iterations per process. For every pair of processes
j < k that share data (one writes what the other reads or writes: arrays and scalars) or a port
of a memory bank, the pair gets an order of depth D:
- k starts iteration b only when j has finished iteration b (program order within an iteration);
- j starts iteration b + D only when k has finished iteration b.
D = 2 (j may run one iteration ahead, Vitis's ping-pong) when what j touches in iteration b + 1
is apart from what k touches in iteration b for every shared array (e.g. 2mm's row blocks of tmp,
3mm's k-blocks of E and F), and no port of a bank is shared; otherwise D = 1: the pair runs in
program order (j(b) < k(b) < j(b + 1)), which keeps arrays that carry values across iterations or
are read-modify-written by several stages correct. Pairs that share nothing run freely. Every
wait is for an event earlier in program order, so the processes cannot deadlock.

Double buffering (`pingpong`): a local used only in the loop whose elements no two iterations
share, or an array the body declares, gets two copies (RAMs per bank, or register sets) picked
by the accessing process's iteration parity, so neighbouring iterations never share its ports.

The loop runs its iterations one after another instead (`fallback` says why) when its body has
one statement or a stream between two of its statements, or when every two statements need
program order (nothing to overlap: `serial`). Inside a function-level dataflow region (Allo's
dataflow callees with a dataflow loop, once inlined) the loop's processes are FSMs started by
their process's FSM.

Example::

    why = fallback(groups)        # None: build a LoopDataflowC
    order, why = data_order(stmts, lvars, ranges, lb, step, trip, fresh)  # {(j, k): depth}, {(j, k): names}
"""
from __future__ import annotations

from dataclasses import dataclass

from ....ir import nodes as N
from ....ir import visit as V
from ....ir.attrs import STREAM
from .prepare import PROCESS_MARK
from .regions import disjoint, footprint

MAX_CHECKED = 256  # iterations whose footprints are compared; a longer loop keeps depth 1 for shared arrays
MAX_PINGPONG = 64  # iterations compared pairwise for ping-pong buffers


@dataclass(eq=False)
class LoopDataflowC:
    """See module doc. `processes`: one design.Loop per process (own variable and signal);
    `order`: {(j, k): depth}; `why`: {(j, k): what they share}."""

    name: str
    signal: str
    processes: list
    order: dict
    why: dict
    trip: int = None
    loc: object = None


def fallback(groups) -> str | None:
    """Why the loop's iterations must run one after another in the circuit (None: they overlap)."""
    if len(groups) < 2:
        return "one statement: nothing to overlap"
    users = {}
    for k, g in enumerate(groups):
        for s in V.walk_stmts(g):
            for _, b in V.buffer_refs(s):
                if b.attrs.get(STREAM):
                    users.setdefault(b.name, set()).add(k)
    for name, ks in users.items():
        if len(ks) > 1:  # a stream to the rest of the function is fine (design.check_streams)
            return f"stream {name!r} between two statements of the body (FIFO stages would need the " \
                   "per-iteration deadlock check)"
    return None


def buffer_rw(stmts) -> tuple:
    """({id: buffer} read, {id: buffer} written) by statements, scalars included (a declaration
    with its initial value counts as a write)."""
    reads, writes = {}, {}
    for s in V.walk_stmts(stmts):
        for role, b in V.buffer_refs(s):
            if b.name == PROCESS_MARK:
                continue
            if role in (V.LOAD, V.COPY):
                reads[id(b)] = b
            elif role in (V.STORE, V.RESULT, V.DECLARE, V.PASS):
                writes[id(b)] = b
    return reads, writes


def data_order(stmts, lvars, ranges, lb, step, trip, fresh=frozenset()) -> tuple:
    """({(j, k): depth}, {(j, k): [names]}) for processes sharing data (see module doc).
    `stmts[k]` are process k's statements over its loop variable `lvars[k]`; `ranges` the
    enclosing loops' value ranges; the loop runs `trip` iterations from `lb` by `step` (None:
    not known at build time); `fresh`: ids of the arrays the body declares (a new array every
    iteration: double-buffered, so never shared between iterations)."""
    rw = [buffer_rw(g) for g in stmts]
    order, why = {}, {}
    fp_cache = {}

    def fp(k, b):
        if (k, b) not in fp_cache:
            v = lb + b * step
            fp_cache[(k, b)] = footprint(stmts[k], {**ranges, id(lvars[k]): (v, v)})
        return fp_cache[(k, b)]

    for k in range(len(stmts)):
        rk, wk = rw[k]
        for j in range(k):
            rj, wj = rw[j]
            # two readers of a body's array take turns too, so that every stage using one of its
            # copies is ordered (pingpong's condition)
            shared = (set(wj) & (set(rk) | set(wk))) | (set(rj) & set(wk)) | (set(rj) & set(rk) & set(fresh))
            if not shared:
                continue
            known = shared - set(fresh)
            ahead = not known or trip is not None and lb is not None and trip <= MAX_CHECKED and all(
                disjoint(fp(j, b + 1).get(x), fp(k, b).get(x)) for x in known for b in range(trip - 1))
            order[(j, k)] = 2 if ahead else 1
            names = {**rj, **wj, **rk, **wk}
            why[(j, k)] = sorted(names[x].name for x in shared)
    return order, why


def serial(order, n) -> bool:
    """Does every pair of the n processes keep program order (depth 1)? Then no two ever run at
    the same time and a plain FSM loop does the same with fewer states."""
    return all(order.get((j, k)) == 1 for k in range(n) for j in range(k))


def pingpong(stmts, lvars, ranges, lb, step, trip, order, outside, fresh=frozenset()) -> list:
    """Local arrays of the loop to double-buffer (two copies, picked by the accessing process's
    iteration parity, so a stage filling block b + 1 never shares a RAM port with a later stage
    reading block b): written in the loop, used nowhere else (`outside`: ids of buffers the rest
    of the function uses), every pair of processes using it ordered, and no element touched in
    two iterations (so no value passes from one iteration to another: splitting the array by
    parity keeps every element in one copy), or declared by the body (`fresh`: a new array every
    iteration)."""
    rw = [buffer_rw(g) for g in stmts]
    written = {x: b for _, w in rw for x, b in w.items()}
    out = []
    for x, buf in written.items():
        users = [k for k, (r, w) in enumerate(rw) if x in r or x in w]
        if (not buf.shape or buf.kind != "local" or buf.attrs.get(STREAM) or x in outside
                or any((j, k) not in order for k in users for j in users if j < k)):
            continue
        if x in fresh:
            out.append(buf)
            continue
        if trip is None or lb is None or trip > MAX_PINGPONG or trip < 2:
            continue
        hulls = []
        for b in range(trip):
            v = lb + b * step
            dims = None
            for k in users:
                d = footprint(stmts[k], {**ranges, id(lvars[k]): (v, v)}).get(x)
                dims = d if dims is None else [None if p is None or q is None else (min(p[0], q[0]), max(p[1], q[1]))
                                               for p, q in zip(dims, d)]
            hulls.append(dims)
        if all(disjoint(hulls[a], hulls[b]) for a in range(trip) for b in range(a)):
            out.append(buf)
    return out


def used_outside(body, loop) -> set:
    """Ids of the buffers statements of `body` use outside statement `loop` (declarations aside)."""
    out = set()
    todo = list(body)
    while todo:
        s = todo.pop()
        if s is loop:
            continue
        out.update(id(b) for role, b in V.buffer_refs(s) if role != V.DECLARE or getattr(s, "init", None) is not None)
        for blk in V.blocks(s):
            todo += blk
    return out


def port_use(units, k_of) -> list:
    """Per process: the (memory, bank, port) its units access (a load the unit hoists into its
    prologue may take any port of its banks: emit assigns those ports later)."""
    use = {}
    for u in units:
        k = k_of.get(u.uid)
        if k is None:
            continue
        s = use.setdefault(k, set())
        for n in u.graph.nodes:
            if n.kind in ("load", "store") and n.mem.kind == "mem" and not n.mem.pingpong:
                ports = range(n.mem.ports) if getattr(n, "invariant", False) else (n.port,)
                s.update((n.mem.name, b, p) for b in n.candidates() for p in ports)
    return [use.get(k, set()) for k in range(max(k_of.values(), default=-1) + 1)]


def port_order(region, units, k_of) -> None:
    """Processes that may run at the same time must not share a port of a bank: such a pair
    gets depth 1 (they then never overlap)."""
    use = port_use(units, k_of)
    for k in range(len(use)):
        for j in range(k):
            common = use[j] & use[k]
            if common and region.order.get((j, k)) != 1:
                region.order[(j, k)] = 1
                region.why[(j, k)] = sorted(set(region.why.get((j, k), [])) | {f"port of {m}" for m, _, _ in common})


def has_mark(body) -> bool:
    return any(isinstance(s, N.Alloc) and s.buf.name == PROCESS_MARK for s in body)


__all__ = ["LoopDataflowC", "fallback", "data_order", "serial", "pingpong", "used_outside", "port_order", "buffer_rw",
           "has_mark"]
