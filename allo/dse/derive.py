"""The default search space of a kernel, derived from its loops, arrays and calls.

Per function reachable from the top, for every innermost loop `L` and the perfect chain of loops
above it (up to three), one group of parameters (`<func>:<L>:<what>`):

- `order`  the chain's loop permutations (the identity first; reorder refuses illegal ones);
- `pipe`   "none" (Vitis's defaults), "inner" (pipeline the innermost loop of the order),
           "outer" (pipeline the loop above it, which unrolls the innermost fully), or
           "loop:<name>" for a loop enclosing the chain that the chain cannot include (an
           imperfect nest, e.g. a scalar accumulator initialised and stored around the inner
           loops): pipelining it unrolls everything inside, offered when that is at most
           `max_lanes` iterations;
- `lanes`  unroll factor of a pipelined innermost loop: the divisors of the innermost loop's
           trip count nearest below 1, 2, 4, ..., max_lanes (for another order: the largest
           divisor of the new innermost loop's trip count not above the value);
- `ii`     the requested initiation interval (above 1 it shares operators: fewer DSPs);
- `part`   "none", "auto" or "complete": partition the dimensions of the arrays that the
           unrolled loops index, so the lanes get their own banks: "auto" cyclically by the lane
           count, except arrays the nest reads and writes (accumulators), which it partitions
           completely so that their recurrences go through registers.

Plus, per function: `dataflow` when it has two or more loops/calls at top level, `<loop>:dataflow`
for a loop holding two or more loops, and `<array>:stream` for a local array one call writes and
a later call reads (`s.to`). Partition requests for one array dimension are merged (complete
wins, else the largest factor) and arrays that became streams are not partitioned.

Seeds (scored first): the kernel unchanged, and every nest pipelined with one lane count for all
(1, 2, 4, ...), "auto" partitions, streams and dataflow on.

`space.left_out` ({loop address: reason}) lists the loops no parameter covers and why (an
imperfect nest's outer loops whose bodies unroll to too many iterations, loops above the three
innermost, unknown trip counts).

Example::

    space = allo.dse.default_space(allo.customize(gemm))
    [p.name for p in space.params]     # ['gemm:j:pipe', 'gemm:j:lanes', ..., 'gemm:k:order', ...]
"""
from __future__ import annotations

import itertools

from ..errors import DSEError
from ..ir import effects as E, nodes as N, visit as V
from ..ir.attrs import PARTITION, Partition
from ..ir.loops import all_loops, band_of
from ..schedule import rewrite as R
from .space import Space

LANE_LADDER = (1, 2, 4, 8, 16, 32, 64, 128, 256)
DEFAULT_IIS = (1, 2, 4)
MAX_ORDER_DEPTH = 3


def _ir_of(obj):
    ir = getattr(obj, "ir", obj)
    if not isinstance(ir, N.Module):
        raise DSEError(f"default_space: expected a Schedule or an allo IR Module, got {type(obj).__name__}")
    return ir


def reachable_funcs(ir: N.Module) -> list:
    """Names of the functions the top calls (transitively), in module order, top last."""
    seen, todo = {ir.top}, [ir.top]
    while todo:
        f = ir.func(todo.pop())
        for s in V.walk_stmts(f.body):
            if isinstance(s, N.CallStmt) and s.callee not in seen and s.callee in {g.name for g in ir.funcs}:
                seen.add(s.callee)
                todo.append(s.callee)
    return [f.name for f in ir.funcs if f.name in seen]


def default_space(obj, funcs=None, max_lanes: int = 256, iis=DEFAULT_IIS, streams: bool = True) -> Space:
    """The default space of a Schedule (or IR module): see the module docstring.

    `funcs`: restrict to these function names (default: every function reachable from the top).
    """
    ir = _ir_of(obj)
    names = funcs if funcs is not None else reachable_funcs(ir)
    space = Space()
    space.left_out = {}
    streamed = set()  # (func, buffer) made FIFOs by the chosen stream options
    for name in names:
        func = ir.func(name)
        covered = set()
        for leaf, chain in _leaf_chains(func):
            covered |= _add_nest(space, func, chain, max_lanes, iis, streamed)
        space.left_out.update(_left_out(func, covered, max_lanes))
        _add_dataflow(space, func)
        if streams:
            _add_streams(space, ir, func, streamed)
    space.rule(lambda s, cfg: _drop_streamed(s, streamed, cfg), name="partitions")
    _add_seeds(space, max_lanes)
    return space


def _add_seeds(space, max_lanes):
    """Starting points: the kernel as it is, then every nest pipelined with the same lane count
    (1, 2, 4, ... as far as each nest allows), partitions "auto", streams and dataflow on: the
    uniform schedules a person tries first, which the search then refines nest by nest."""
    space.seed({})
    for v in LANE_LADDER:
        if v > max_lanes:
            break
        cfg = {}
        for p in space.params:
            role = p.name.rsplit(":", 1)[1]
            if role == "pipe":
                cfg[p.name] = "inner"
            elif role == "lanes":
                cfg[p.name] = max(o for o in p.options if o <= v)
            elif role == "part":
                cfg[p.name] = "auto"
            elif role in ("dataflow", "stream"):
                cfg[p.name] = True
        space.seed(cfg)


# ----------------------------------------------------------------------------- loop nests
def _leaf_chains(func):
    """(innermost loop, the perfect chain of up to MAX_ORDER_DEPTH loops ending with it)."""
    out = []
    for lp, path in V.iter_loops(func.body):
        if any(isinstance(s, N.For) for s in V.walk_stmts(lp.body)):
            continue
        chain = [lp]
        for parent in reversed(path):
            if len(chain) == MAX_ORDER_DEPTH or len(parent.body) != 1 or parent.body[0] is not chain[0]:
                break
            chain.insert(0, parent)
        out.append((lp, chain))
    return out


def loop_address(func, loop) -> str:
    """`func:name`, or `func:band/name` when the name alone is ambiguous in the function."""
    same = [lp for lp in all_loops(func) if lp.name == loop.name]
    if len(same) == 1:
        return f"{func.name}:{loop.name}"
    return f"{func.name}:{band_of(func, loop)}/{loop.name}"


def _indexed_dims(func, loop) -> dict:
    """{id(IterVar) of a loop in `loop`'s subtree: [(buffer name, 1-based dim, extent)]} for the
    array accesses of the subtree whose index in that dimension uses the loop variable."""
    names = {}
    for b in V.iter_buffers(func):
        names.setdefault(b.name, []).append(b)
    out = {}

    def note(buf, indices):
        if not buf.shape or len(names.get(buf.name, ())) != 1:
            return
        for d, e in enumerate(indices):
            for vid in R.expr_vars(e):
                out.setdefault(vid, set()).add((buf.name, d + 1, buf.shape[d]))

    for s in V.walk_stmts([loop]):
        if isinstance(s, N.Store):
            note(s.buf, s.indices)
    for ld in E.loads([loop]):
        note(ld.buf, ld.indices)
    return {k: sorted(v) for k, v in out.items()}


def _already_partitioned(func) -> set:
    out = set()
    for b in V.iter_buffers(func):
        for kind, dim, factor in b.attrs.get(PARTITION, ()):
            dims = range(1, len(b.shape) + 1) if dim == 0 else [dim]
            out.update((b.name, d) for d in dims)
    return out


def _divisor_at_most(n: int, cap: int) -> int:
    return max(d for d in range(1, min(n, cap) + 1) if n % d == 0)


def _unrolled_iterations(loop):
    """Iterations of everything inside `loop` when pipelining it unrolls them (None: unknown)."""
    total = 0
    for s in loop.body:
        if isinstance(s, N.For):
            n, inner = R.trip_count(s), _unrolled_iterations(s)
            if n is None or inner is None:
                return None
            total += n * max(1, inner)
        elif any(isinstance(x, (N.For, N.While)) for x in V.walk_stmts([s])):
            return None  # loops under if/while: not unrolled by a count we know
    return total


def _enclosing_options(func, chain, max_lanes) -> dict:
    """{"loop:<name>": loop} for loops enclosing `chain` whose bodies unroll to <= max_lanes iterations."""
    path = V.loop_path(func, chain[0])[:-1]
    out = {}
    for lp in reversed(path):
        n = _unrolled_iterations(lp)
        if n is None or n > max_lanes:
            break
        out[f"loop:{loop_address(func, lp).split(':', 1)[1]}"] = lp
    return out


def _left_out(func, covered, max_lanes) -> dict:
    out = {}
    for lp, _path in V.iter_loops(func.body):
        if id(lp) in covered:
            continue
        n = _unrolled_iterations(lp)
        if R.trip_count(lp) is None:
            why = "trip count unknown"
        elif n is None:
            why = "holds loops under if/while: pipelining it would unroll an unknown number of iterations"
        elif n > max_lanes:
            why = (f"pipelining it unrolls {n} inner iterations (> max_lanes={max_lanes}); "
                   "only the loops inside it are searched")
        else:
            why = f"above the {MAX_ORDER_DEPTH} innermost loops of a perfect nest: kept in place, not pipelined"
        out[loop_address(func, lp)] = why
    return out


def _add_nest(space, func, chain, max_lanes, iis, streamed) -> set:
    """Add one nest's group; returns the ids of the loops its parameters cover."""
    tail = chain[-MAX_ORDER_DEPTH:]
    trips = {id(lp): R.trip_count(lp) for lp in tail}
    addr = {id(lp): loop_address(func, lp) for lp in tail}
    local = {id(lp): addr[id(lp)].split(":", 1)[1] for lp in tail}
    by_local = {local[id(lp)]: lp for lp in tail}
    group = f"{func.name}:{local[id(chain[-1])]}"
    orders = [list(p) for p in itertools.permutations(tail)] if len(tail) > 1 else [list(tail)]
    dims = _indexed_dims(func, tail[0])
    updated = _updated_buffers(tail[0])
    done = _already_partitioned(func)
    if len(orders) > 1:
        space.choice(f"{group}:order", [[local[id(lp)] for lp in o] for o in orders], group=group)
    enclosing = _enclosing_options(func, tail, max_lanes)
    space.choice(f"{group}:pipe", ["none", "inner"] + (["outer"] if len(tail) > 1 else []) + list(enclosing),
                 group=group)
    space.choice(f"{group}:lanes", _lane_options(trips[id(chain[-1])], max_lanes), group=group)
    space.choice(f"{group}:ii", [int(k) for k in iis], group=group)
    if dims:
        space.choice(f"{group}:part", ["none", "auto", "complete"], group=group)

    def record(s, cfg):
        order = [by_local[n] for n in cfg.get(f"{group}:order", [local[id(lp)] for lp in tail])]
        if order != list(tail):
            s.reorder(*[addr[id(lp)] for lp in order])
        pipe = cfg[f"{group}:pipe"]
        if pipe in enclosing:
            s.pipeline(loop_address(func, enclosing[pipe]), cfg[f"{group}:ii"])
            unrolled = {id(lp.var): R.trip_count(lp) for lp, _ in V.iter_loops(enclosing[pipe].body)}
        else:
            unrolled = _record_pipeline(s, cfg, group, order, addr, trips, max_lanes)
        kind = cfg.get(f"{group}:part", "none")
        if kind == "none":
            return
        for vid, factor in unrolled.items():
            for buf, dim, extent in dims.get(vid, ()):
                if (buf, dim) in done:
                    continue
                full = kind == "complete" or factor >= extent or buf in updated
                s.request_partition(func.name, buf, dim, Partition.Complete if full else Partition.Cyclic,
                                    0 if full else factor)

    space.rule(record, name=group)
    return {id(lp) for lp in tail} | {id(lp) for lp in enclosing.values()}


def _record_pipeline(s, cfg, group, order, addr, trips, max_lanes) -> dict:
    """Record the pipeline/unroll steps of a nest; {id(IterVar): lanes} of the unrolled loops."""
    pipe, ii = cfg[f"{group}:pipe"], cfg[f"{group}:ii"]
    inner = order[-1]
    n = trips[id(inner)]
    if pipe == "outer" and n is not None and n <= max_lanes:
        s.pipeline(addr[id(order[-2])], ii)
        return {id(inner.var): n}
    if pipe == "none":
        return {}
    s.pipeline(addr[id(inner)], ii)
    factor = _divisor_at_most(n, cfg[f"{group}:lanes"]) if n else 1
    if factor == 1:
        return {}
    s.unroll(addr[id(inner)], factor)
    return {id(inner.var): factor}


def _updated_buffers(loop) -> set:
    """Names of the arrays a nest both reads and writes (accumulators: their recurrences go
    through registers when completely partitioned)."""
    reads = {b.name for b in E.reads([loop]).values()}
    return {b.name for b in E.writes([loop]).values() if b.name in reads and b.shape}


def _lane_options(trip, max_lanes: int) -> list:
    """Distinct unroll factors of the innermost loop: its largest divisors not above 1, 2, 4, ...
    (up to max_lanes), and its trip count when it fits; [1] for a loop of unknown trip count."""
    if not trip:
        return [1]
    out = {_divisor_at_most(trip, v) for v in LANE_LADDER if v <= max_lanes}
    if trip <= max_lanes:
        out.add(trip)
    return sorted(out)


# ----------------------------------------------------------------------------- dataflow and streams
def _processes(body) -> int:
    return sum(isinstance(s, (N.For, N.CallStmt)) for s in body)


def _add_dataflow(space, func):
    for lp in all_loops(func):
        if _processes(lp.body) >= 2:
            addr = loop_address(func, lp)
            space.choice(f"{addr}:dataflow", [False, True], lambda s, v, a=addr: s.dataflow(a) if v else None,
                         group=func.name)
    if _processes(func.body) >= 2:
        space.choice(f"{func.name}:dataflow", [False, True],
                     lambda s, v, f=func.name: s.dataflow(f) if v else None, group=func.name)


def _add_streams(space, ir, func, streamed):
    calls = [s for s in func.body if isinstance(s, N.CallStmt)]
    for buf in V.iter_buffers(func):
        if buf.kind not in ("local", "result") or not buf.shape:
            continue
        users = [(c, [k for k, a in enumerate(list(c.args) + list(c.results)) if a is buf]) for c in calls]
        users = [(c, ks) for c, ks in users if ks]
        if len(users) != 2 or len(users[0][1]) != 1 or len(users[1][1]) != 1:
            continue
        (prod, (kp,)), (cons, (kc,)) = users
        ends = [(prod.callee, _param_name(ir, prod.callee, kp)), (cons.callee, _param_name(ir, cons.callee, kc))]
        name = f"{func.name}:{buf.name}:stream"

        def apply(s, v, b=buf.name, c=cons.callee, ends=ends, name=name):
            if v:
                s.to(f"{func.name}:{b}", c)
        space.choice(name, [False, True], apply, group=func.name)
        streamed.add((name, tuple(ends)))


def _param_name(ir, callee, k):
    params = ir.func(callee).params
    return params[k].name if k < len(params) else None


def _drop_streamed(s, streamed, cfg):
    """Arrays that became FIFOs are not partitioned (a stream has no banks)."""
    fifo = {end for name, ends in streamed if cfg.get(name) for end in ends}
    for key in [k for k in s.partitions if (k[0], k[1]) in fifo]:
        del s.partitions[key]


__all__ = ["default_space", "reachable_funcs", "loop_address", "LANE_LADDER"]
