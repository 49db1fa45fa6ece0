"""Is a loop safe to run in parallel? (no value flows between its iterations)

A loop `for v` is accepted when every buffer written in its body is either
  - allocated inside the body (private to an iteration), or
  - scratch: a local without initialiser, used only inside the loop, whose first use in the
    body is a write (each thread gets its own copy), or
  - accessed (every read and write inside the body) through one common dimension whose index
    is `c*v + r`, identical in all accesses, with `r` built from inner loop variables of
    constant bounds whose range stays inside [0, |c|) — so iterations touch disjoint slices.
Anything the analysis cannot prove is refused (conservative, unlike HLS pragmas which are hints).

Example::

    for i: for j: C[i, j] += A[i, k] * B[k, j]      # parallel(i): accepted (C sliced by i)
    for i: for k in range(i+1, N): B[i, j] += A[k, i] * B[k, j]   # refused: reads rows k > i
"""
from __future__ import annotations

import functools

from ..errors import ScheduleError
from ..ir.attrs import PARALLEL
from ..ir import effects as E, nodes as N, visit as V
from . import rewrite as R


def carried_dependence(func: N.Func, loop: N.For) -> str | None:
    """A reason why `loop` cannot run in parallel, or None when it can."""
    private = {id(s.buf) for s in V.walk_stmts(loop.body) if isinstance(s, N.Alloc)}
    private |= _scratch_buffers(func, loop)
    ranges = _inner_ranges(loop.body)
    accesses = {}
    for s in V.walk_stmts(loop.body):
        if isinstance(s, N.Store):
            accesses.setdefault(id(s.buf), (s.buf, [], []))[1].append(s.indices)
        if isinstance(s, N.CallStmt):
            for a in s.args:
                if isinstance(a, N.Buffer) and id(a) not in private:
                    return f"it calls {s.callee!r} with array {a.name!r}, which the callee may write"
    for ld in E.loads(loop.body):
        if id(ld.buf) in accesses:
            accesses[id(ld.buf)][2].append(ld.indices)
    for key, (buf, writes, reads) in accesses.items():
        if key in private:
            continue
        if not buf.shape:
            return f"every iteration updates the scalar {buf.name!r}"
        if not _disjoint_slices(loop.var, writes + reads, ranges):
            return f"iterations may touch the same elements of {buf.name!r}"
    return None


def _scratch_buffers(func, loop) -> set:
    inside = set(E.used(loop.body))
    outside = set()
    for s in V.walk_stmts(func.body):
        if s is loop:
            continue
        if isinstance(s, N.Alloc) and s.init is None:
            continue
        if not any(s is x for x in V.walk_stmts(loop.body)):
            outside |= {id(b) for role, b in V.buffer_refs(s) if role in E.USE_ROLES}
    locals_ = {id(s.buf): s.buf for s in V.walk_stmts(func.body) if isinstance(s, N.Alloc) and s.init is None}
    found = set()
    for key in inside & set(locals_) - outside:
        first = next(st for st in loop.body if key in E.used([st]))
        reads = {id(ld.buf) for ld in E.loads([first])}
        if key not in reads:
            found.add(key)
    return found


def _inner_ranges(body) -> dict:
    """{id(IterVar): (lo, hi)} for inner loops with constant bounds (hi inclusive)."""
    out = {}
    for s in V.walk_stmts(body):
        if isinstance(s, N.For):
            lb, ub = R.as_int(s.lb), R.as_int(s.ub)
            if lb is not None and ub is not None and ub > lb:
                out[id(s.var)] = (lb, lb + (ub - lb - 1) // s.step * s.step)
    return out


def _disjoint_slices(var, index_lists, ranges) -> bool:
    first = index_lists[0]
    for d in range(len(first)):
        if not all(R.expr_equal(idx[d], first[d]) for idx in index_lists):
            continue
        form = R.affine(first[d])
        if form is None or id(var) not in form[0]:
            continue
        coeff = form[0][id(var)][1]
        lo = hi = 0
        ok = True
        for key, (v, c) in form[0].items():
            if key == id(var):
                continue
            if key not in ranges:
                ok = False
                break
            a, b = ranges[key]
            lo, hi = lo + min(c * a, c * b), hi + max(c * a, c * b)
        if ok and hi - lo < abs(coeff):
            return True
    return False


def keeps_parallel_loops(primitive: str, impl):
    """`impl` (a primitive's rewrite of a Func, or of the module for `to`) followed by the check
    that every loop marked parallel can still run in parallel. A rewrite after `s.parallel` can
    create state shared by the iterations (the one reuse buffer of `reuse_at`, a fused loop whose
    inner iterations depend on each other), which `parallel` itself would have refused.

    Example::

        reuse_at = keeps_parallel_loops("reuse_at", memory_transforms.reuse_at)
        reuse_at(func, "A", "y")   # ScheduleError when loop 'y' is parallel: one shared line buffer
    """
    @functools.wraps(impl)
    def rewrite(head, *args, **kwargs):
        result = impl(head, *args, **kwargs)
        for func in getattr(head, "funcs", None) or [head]:
            for loop in V.walk_stmts(func.body):
                if isinstance(loop, N.For) and loop.attrs.get(PARALLEL):
                    reason = carried_dependence(func, loop)
                    if reason is not None:
                        raise ScheduleError(f"{primitive}: loop {loop.name!r} is marked parallel (s.parallel) and "
                                            f"could no longer run in parallel after {primitive}: {reason}")
        return result

    return rewrite
