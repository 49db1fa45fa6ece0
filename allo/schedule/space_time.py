"""`s.to(buf, pe, axis=..., depth=...)`: upstream Allo's space-time streams of a systolic array.

After `pe = s.unfold("PE", [0, 1])` (which returns the unfolded axes, as upstream's does), the
local array `A_fifo: int8[M, N + 1, K]` that carries operands between processing elements
becomes an array of FIFOs: the dimensions listed in `pe` are space (one FIFO per index, here
M x (N + 1) of them) and the others are time (the K elements each FIFO carries, in row-major
order). HLS emits `hls::stream<int8_t> A_fifo[M][N + 1]` with `A_fifo[i][j].write(v)` /
`.read()`; the CPU keeps the array, which computes the same numbers because the primitive checks
by tracing the function's accesses (all loop bounds are constants after unfold) that every FIFO:

- is written at one place (one producer) and read at one place (one consumer),
- receives its elements exactly once each, in row-major order of the time dimensions,
- is read the same way, every element after it was written (so nothing is left in it, which
  would stall the producer in hardware).

`axis` is accepted as upstream spells it (the direction the data flows) and, as there, changes
nothing. Example::

    pe = s.unfold("PE", [0, 1])
    s.to(s.A_fifo, pe, axis=1, depth=M + 1)
"""
from __future__ import annotations

from ..errors import ScheduleError
from ..ir import effects as E, nodes as N, visit as V
from ..ir.attrs import DATAFLOW, PARTITION, STREAM, STREAM_SPACE, TEMP
from ..ir.loops import find_buffer
from . import rewrite as R

TRACE_LIMIT = 2_000_000  # statement executions the check may trace


def _err(arg, msg):
    return ScheduleError(f"to: argument '{arg}': {msg}")


def to_space_time(module: N.Module, func_name: str, target, space: tuple, depth: int) -> N.Buffer:
    """Make local array `target` of `func_name` an array of FIFOs over dimensions `space`."""
    func = module.func(func_name)
    buf = find_buffer(func, target, "to", "target")
    shape = [int(d) for d in buf.shape]
    if buf.kind != "local" or not shape:
        raise _err("target", f"{buf.name!r} must be a local array of {func_name!r} (the FIFOs between processing "
                             "elements)")
    if buf.attrs.get(PARTITION):
        raise _err("target", f"{buf.name!r} is partitioned; an array of streams cannot be partitioned")
    if buf.attrs.get(STREAM):
        raise _err("target", f"{buf.name!r} is a stream already")
    space = tuple(sorted(set(space)))
    if not space or space[0] < 0 or space[-1] >= len(shape) or len(space) == len(shape):
        raise _err("dst", f"the unfolded axes {list(space)} must name some, not all, of the {len(shape)} dimensions "
                          f"of {buf.name!r} (the space dimensions; the others are the elements of each FIFO)")
    init = next((st for st in V.walk_stmts(func.body) if isinstance(st, N.Alloc) and st.buf is buf), None)
    if init is not None and init.init is not None:
        raise _err("target", f"{buf.name!r} has an initial value; FIFOs start empty (declare it without one)")
    time = [d for d in range(len(shape)) if d not in space]
    elems = 1
    for d in time:
        elems *= shape[d]
    if depth == 0:
        raise _err("depth", f"expected a positive FIFO depth or -1 (= {elems}, the elements per FIFO), got 0")
    _drop_dead_copy_ins(module, func, buf)
    _check_fifo_order(func, buf, space, time, shape)
    buf.attrs[STREAM] = elems if depth == -1 else depth
    buf.attrs[STREAM_SPACE] = space
    func.attrs[DATAFLOW] = True
    return buf


class _Tracer:
    """Runs the loop structure of a function with constant bounds, recording the accesses of `buf`
    as (kind, statement, indices) in execution order."""

    def __init__(self, buf):
        self.buf, self.events, self.steps, self.uses = buf, [], 0, {}

    def touches(self, s) -> bool:
        if id(s) not in self.uses:
            self.uses[id(s)] = E.uses_buffer(s, self.buf)
        return self.uses[id(s)]

    def run(self, stmts, env):
        for s in stmts:
            if not self.touches(s) or isinstance(s, N.Alloc) and s.buf is self.buf:
                continue
            if isinstance(s, N.For):
                lb, ub = self.value(s.lb, env, s), self.value(s.ub, env, s)
                for v in range(lb, ub, s.step):
                    env[id(s.var)] = v
                    self.run(s.body, env)
                env.pop(id(s.var), None)
                continue
            if isinstance(s, (N.If, N.While)):
                raise _err("target", f"{self.buf.name!r} is accessed under an if/while; a FIFO's accesses must not "
                                     "depend on data")
            if isinstance(s, N.CallStmt) or isinstance(s, N.Return):
                raise _err("target", f"{self.buf.name!r} is passed to {getattr(s, 'callee', 'return')!r} whole; "
                                     "processing elements take one FIFO each (A_fifo[i, j])")
            self.steps += 1
            if self.steps > TRACE_LIMIT:
                raise _err("target", f"checking the FIFO order of {self.buf.name!r} takes more than {TRACE_LIMIT} "
                                     "steps; unfold fewer or smaller loops")
            for e in V.stmt_exprs(s):
                for x in V.walk_expr(e):
                    if isinstance(x, N.Load) and x.buf is self.buf:
                        self.events.append(("read", s, tuple(self.value(i, env, s) for i in x.indices)))
            if isinstance(s, N.Store) and s.buf is self.buf:
                self.events.append(("write", s, tuple(self.value(i, env, s) for i in s.indices)))

    def value(self, e, env, s):
        aff = R.affine(e)
        if aff is None or any(key not in env for key in aff[0]):
            raise _err("target", f"an index or loop bound near an access of {self.buf.name!r} (line "
                                 f"{getattr(s.loc, 'lineno', '?')}) is not known at compile time; FIFO indices must be "
                                 "constants or loop variables")
        return aff[1] + sum(k * env[key] for key, (_, k) in aff[0].items())


def _drop_dead_copy_ins(module, func, buf):
    """A region argument (`A_fifo[i, j + 1]`) is a copy: copied in before the call, back after it.
    For an output FIFO (`A_out`, which the callee writes in full and never reads) the copy-in reads
    the FIFO before anything wrote it; it is dead, so it goes (the copy back stays)."""
    for st in list(V.walk_stmts(func.body)):
        if not isinstance(st, N.CallStmt):
            continue
        callee = module.func(st.callee)
        for a, p in zip(st.args, callee.params):
            if not (isinstance(a, N.Buffer) and a.attrs.get(TEMP) and p.shape) or not _written_in_full(callee, p):
                continue
            body, pos = V.parent_list(func, st)
            for k in reversed(range(pos)):
                if _copies(body[k], buf, a):
                    del body[k]
                    break


def _written_in_full(callee, p) -> bool:
    """Does `callee` write every element of parameter `p` and never read it (traced)?"""
    loads, stores, calls = E.accesses(callee.body, p)
    if loads or calls:
        return False
    tracer = _Tracer(p)
    try:
        tracer.run(callee.body, {})
    except ScheduleError:
        return False
    n = 1
    for d in p.shape:
        n *= int(d)
    return len({idx for _, _, idx in tracer.events}) == n


def _copies(stmt, src, dst) -> bool:
    """Is `stmt` a loop nest whose only store copies `src` into `dst`?"""
    if not isinstance(stmt, N.For):
        return False
    stores = [s for s in V.walk_stmts([stmt]) if isinstance(s, N.Store)]
    return len(stores) == 1 and stores[0].buf is dst and isinstance(stores[0].value, N.Load) and \
        stores[0].value.buf is src


def _check_fifo_order(func, buf, space, time, shape):
    tracer = _Tracer(buf)
    tracer.run(func.body, {})
    fifos = {}
    for kind, stmt, idx in tracer.events:
        if any(not 0 <= i < n for i, n in zip(idx, shape)):
            raise _err("target", f"{buf.name}[{', '.join(map(str, idx))}] is outside the array {shape}")
        key = tuple(idx[d] for d in space)
        t = 0
        for d in time:
            t = t * shape[d] + idx[d]
        f = fifos.setdefault(key, {"write": [], "read": [], "sites": {"write": set(), "read": set()}})
        name = f"FIFO {buf.name}[{', '.join(map(str, key))}]"
        f["sites"][kind].add(id(stmt))
        if len(f["sites"][kind]) > 1:
            raise _err("target", f"{name} is {'written' if kind == 'write' else 'read'} at two places; a FIFO has one "
                                 f"{'producer' if kind == 'write' else 'consumer'}")
        if t != len(f[kind]):
            raise _err("target", f"{name}: element {t} is {'written' if kind == 'write' else 'read'} where element "
                                 f"{len(f[kind])} is due; a FIFO moves its elements once each, in row-major order")
        if kind == "read" and t >= len(f["write"]):
            raise _err("target", f"{name}: element {t} is read before it is written")
        f[kind].append(t)
    elems = 1
    for d in time:
        elems *= shape[d]
    for key, f in fifos.items():
        if len(f["write"]) != elems or len(f["read"]) != elems:
            raise _err("target", f"FIFO {buf.name}[{', '.join(map(str, key))}] is written {len(f['write'])} and read "
                                 f"{len(f['read'])} time(s); each FIFO must carry all {elems} of its elements from "
                                 "one producer to one consumer (drain the last ones)")


__all__ = ["to_space_time"]
