"""Which dataflow channels Vitis HLS implements as FIFOs on its own.

UG1399 (2022.1, "Configuring Dataflow Memory Channels"): an array passed between two processes
of a dataflow region becomes a FIFO when Vitis determines that the producer writes it and the
consumer reads it in sequential order; otherwise a ping-pong buffer (the consumer starts when the
producer has finished). `in_order_once` decides the sequential case the way that analysis can:
one access site of the array in the process (the process may be a loop nest or a call; calls
are followed through their parameters), not under a condition, its indices exactly the loop
variables of the enclosing loops in dimension order, each loop covering its dimension from 0
with step 1. An enclosing loop that does not index the array repeats the access (the consumer
reads every element several times: a ping-pong buffer), unless it is unrolled into one
iteration (the lanes read the same element once); an unrolled loop that indexes it accesses
several elements a cycle, which one FIFO cannot (a ping-pong buffer, as is a partitioned array).

Example: the 2mm artifact's copy-in loop `buf0[a0, a1] = A[a0, a1]` and mm1's `A[i0, k0]` (read
once per (i0, k0), the j0 lanes share it) make `buf0` a FIFO; mm1 reads `B[k0, j0]` once per i0,
so `buf1` stays a ping-pong buffer.
"""
from __future__ import annotations

from ..ir import nodes as N
from ..ir import visit as V
from ..ir.attrs import PARTITION, PIPELINE_II, UNROLL
from .affine import index_aff


def in_order_once(mod, stmt, is_buf, role, shape) -> bool:
    """True when `stmt` accesses the array (`is_buf(buffer)`, of `shape`) exactly once per
    element in row-major order, with `role` "r" (a consumer: loads only) or "w" (a producer:
    stores only)."""
    sites = []
    if not _collect(mod, [stmt], is_buf, [], False, False, sites, 0):
        return False
    if len(sites) != 1:
        return False
    kind, idx, loops, cond = sites[0]
    if kind != role or cond:
        return False
    return _ordered(idx, loops, shape)


def _collect(mod, body, is_buf, loops, cond, piped, sites, depth) -> bool:
    """Gather (kind, indices, enclosing [(loop, unrolled)], conditional) of every access; False
    when an access cannot be analysed (a while loop, deep call chains)."""
    if depth > 8:
        return False
    for s in body:
        if isinstance(s, N.For):
            unrolled = piped or s.attrs.get(UNROLL) == 0
            inner_piped = piped or PIPELINE_II in s.attrs
            if not _collect(mod, s.body, is_buf, loops + [(s, unrolled)], cond, inner_piped, sites, depth):
                return False
            continue
        if isinstance(s, N.While):
            if any(is_buf(b) for _, b in _refs(s)):
                return False
            continue
        if isinstance(s, N.If):
            for e in V.walk_expr(s.cond):
                if isinstance(e, N.Load) and is_buf(e.buf):
                    sites.append(("r", e.indices, loops, cond))
            if not (_collect(mod, s.then, is_buf, loops, True, piped, sites, depth)
                    and _collect(mod, s.orelse, is_buf, loops, True, piped, sites, depth)):
                return False
            continue
        if isinstance(s, N.CallStmt):
            callee = mod.func(s.callee)
            for p, a in zip(callee.params, s.args):
                if isinstance(a, N.Buffer) and a.shape and is_buf(a):
                    if p.attrs.get(PARTITION):
                        return False  # the callee partitions its view: banks, not one FIFO
                    if not _collect(mod, callee.body, lambda b, p=p: b is p, loops, cond, piped, sites, depth + 1):
                        return False
            for e in V.stmt_exprs(s):
                for x in V.walk_expr(e):
                    if isinstance(x, N.Load) and is_buf(x.buf):
                        sites.append(("r", x.indices, loops, cond))
            continue
        if isinstance(s, N.Alloc):
            if is_buf(s.buf) and s.init is not None:
                sites.append(("w", None, loops, cond))
            continue
        if isinstance(s, N.Store) and is_buf(s.buf):
            sites.append(("w", s.indices, loops, cond))
        for e in V.stmt_exprs(s):
            for x in V.walk_expr(e):
                if isinstance(x, N.Load) and is_buf(x.buf):
                    sites.append(("r", x.indices, loops, cond))
    return True


def _refs(s):
    for x in V.walk_stmts([s]):
        yield from V.buffer_refs(x)


def _ordered(idx, loops, shape) -> bool:
    """Indices = the enclosing loops' variables in dimension order, each loop spanning its
    dimension; other enclosing loops must be unrolled (one access for all lanes)."""
    if idx is None or len(idx) != len(shape):
        return False
    affs = [index_aff(e, {}) for e in idx]
    if any(a is None or a.const != 0 or len(a.coefs) != 1 or next(iter(a.coefs.values())) != 1 for a in affs):
        return False
    want = [next(iter(a.coefs)) for a in affs]
    used = [lp for lp, _ in loops if id(lp.var) in want]
    if [id(lp.var) for lp in used] != want:
        return False
    for lp, unrolled in loops:
        if (id(lp.var) not in want) != unrolled:
            return False  # repeated (a loop not indexing it) or several elements a cycle (unrolled index)
    for lp, n in zip(used, shape):
        lb, ub = index_aff(lp.lb, {}), index_aff(lp.ub, {})
        if lb is None or ub is None or not lb.known or not ub.known or lb.const != 0 or lp.step != 1 \
                or ub.const != int(n):
            return False
    return True


__all__ = ["in_order_once"]
