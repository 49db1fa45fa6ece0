"""Loop primitives: split, reorder, fuse (real rewrites) and unroll/pipeline/parallel/dataflow
(attributes the backends act on). Each mutates a `nodes.Func` in place and raises
ScheduleError("<primitive>: argument '<arg>': ...") before touching the IR when it cannot apply.
Argument values (factors, intervals) are checked before by their declared kinds (primitives.py:
use `allo.schedule.split`, not these functions, from outside the package).
"""
from __future__ import annotations

import math

from ..errors import ScheduleError
from ..ir import effects as E, nodes as N, visit as V
from ..ir.attrs import DATAFLOW, FILL, OP_NAME, PARALLEL, PIPELINE_II, REWIND, UNROLL
from ..ir.loops import find_loop
from ..ir.ops import BinOpKind
from . import rewrite as R
from .dependence import check_dependences
from .parallel_check import carried_dependence


def _err(prim, arg, msg):
    return ScheduleError(f"{prim}: argument '{arg}': {msg}")


def _var(name: str) -> N.IterVar:
    return N.IterVar(R.sanitize(name))


# ----------------------------------------------------------------------------- split
def split(func: N.Func, loop, factor) -> tuple:
    """Split `loop` into "<name>.outer" (keeps op_name and attributes) and "<name>.inner".

    Before / after (extent 10, factor 4)::

        for i in range(0, 10):           for i.outer in range(0, 3):
            S(i)                             for i.inner in range(0, 4):
                                                 if i.outer*4 + i.inner < 10:
                                                     S(i.outer*4 + i.inner)

    Loops with non-constant bounds split as `for o in range(lb, ub, step*f): for n in
    range(0, step*f, step): if o + n < ub: S(o + n)`. A factor larger than a constant trip count
    is clamped to it (the inner loop then covers the whole loop). Returns (outer, inner) For nodes.
    """
    lp = find_loop(func, loop, "split", "axis")
    name = lp.name
    outer_v, inner_v = _var(name + ".outer"), _var(name + ".inner")
    n = R.trip_count(lp)
    if n is not None and n >= 1:
        factor = min(factor, n)
    lb = R.as_int(lp.lb)
    if n is not None:
        outer_ub, inner_ub, inner_step = math.ceil(n / factor), factor, 1
        linear = R.add(R.mul(outer_v, factor), inner_v)
        value = R.add(R.mul(linear, lp.step), lb)
        guard = None if n % factor == 0 else R.cmp(BinOpKind.LT, linear, n)
        outer_lb = R.const(0)
    else:
        outer_lb, outer_ub = lp.lb, lp.ub
        inner_ub, inner_step = lp.step * factor, lp.step
        value = R.add(outer_v, inner_v)
        guard = R.cmp(BinOpKind.LT, V.copy_expr(value), V.copy_expr(lp.ub))
    V.subst_stmts(lp.body, {lp.var: value})
    body = [N.If(guard, lp.body, loc=lp.loc)] if guard is not None else lp.body
    inner = N.For(inner_v, R.const(0), R.const(inner_ub), inner_step, body, name + ".inner", {}, lp.loc)
    lp.var, lp.lb, lp.ub, lp.body, lp.name = outer_v, outer_lb, R.idx(outer_ub), [inner], name + ".outer"
    lp.step = 1 if n is not None else lp.step * factor
    return lp, inner


# ----------------------------------------------------------------------------- nests
def _pure_guard(body) -> bool:
    """A lone `if` without else whose condition reads no memory (e.g. a split's bound guard)."""
    return len(body) == 1 and isinstance(body[0], N.If) and not body[0].orelse and not E.has_load(body[0].cond)


def guarded_chain(prim: str, arg: str, outer: N.For, inner: N.For) -> tuple:
    """(loops from `outer` down to `inner`, guards between them). Each loop must hold only the
    next loop, possibly wrapped in pure guards (which may move freely between loops)."""
    chain, guards = [outer], []
    while chain[-1] is not inner:
        body = chain[-1].body
        while _pure_guard(body):
            guards.append(body[0])
            body = body[0].then
        if len(body) != 1 or not isinstance(body[0], N.For):
            raise _err(prim, arg, f"loops {outer.name!r} .. {inner.name!r} are not a perfect nest: the body of "
                                  f"loop {chain[-1].name!r} has {len(body)} statements, not just the next loop")
        chain.append(body[0])
    return chain, guards


def perfect_chain(prim: str, arg: str, outer: N.For, inner: N.For) -> list:
    """The loops from `outer` down to `inner`, each the only statement of its parent's body."""
    chain, guards = guarded_chain(prim, arg, outer, inner)
    if guards:
        raise _err(prim, arg, f"loops {outer.name!r} .. {inner.name!r} are not a perfect nest (an `if` "
                              "sits between them)")
    return chain


def relink(loops: list, guards: list, body: list) -> None:
    """Nest `loops` (outermost first) around `body`; each guard goes just inside the innermost
    of these loops whose variable it uses (the outermost one if it uses none)."""
    pos = {id(f.var): k for k, f in enumerate(loops)}
    at = {}
    for g in guards:
        k = max((pos[v] for v in R.expr_vars(g.cond) if v in pos), default=0)
        at.setdefault(k, []).append(g)
    for k in reversed(range(len(loops))):
        if k in at:
            body = [N.If(R.land([g.cond for g in at[k]]), body, loc=at[k][0].loc)]
        loops[k].body = body
        body = [loops[k]]


def _nest_of(prim, func, fors) -> tuple:
    """The (loops, guards) chain spanning the given loops (which must lie on one path)."""
    paths = {id(f): V.loop_path(func, f) for f in fors}
    ordered = sorted(fors, key=lambda f: len(paths[id(f)]))
    deepest = paths[id(ordered[-1])]
    for f in ordered:
        if not any(x is f for x in deepest):
            raise _err(prim, "axes", f"loops {ordered[-1].name!r} and {f.name!r} are not nested in one another")
    return guarded_chain(prim, "axes", ordered[0], ordered[-1])


# ----------------------------------------------------------------------------- reorder
def reorder(func: N.Func, *loops) -> None:
    """Permute loops of one perfect nest; the arguments give the new order, outermost first.
    Loops of the nest not mentioned keep their positions.

    Example: `reorder(f, "k", "j")` on `for i: for j: for k: S` gives `for i: for k: for j: S`.
    The nest's outermost op_name stays on the outermost position; other attributes move with
    their loop. Split guards (`if i.outer*4 + i.inner < n`) between the loops are moved to just
    inside the loops they test. Raises if a loop bound depends on a loop that would end up
    inside it.
    """
    if len(loops) < 2:
        raise _err("reorder", "axes", f"expected at least two loops, got {len(loops)}")
    fors = [find_loop(func, lp, "reorder", "axes") for lp in loops]
    if len({id(f) for f in fors}) != len(fors):
        raise _err("reorder", "axes", f"a loop is named twice: {[f.name for f in fors]}")
    chain, guards = _nest_of("reorder", func, fors)
    ids = {id(f) for f in fors}
    slots = [k for k, c in enumerate(chain) if id(c) in ids]
    new = list(chain)
    for k, f in zip(slots, fors):
        new[k] = f
    for k, f in enumerate(new):
        inside = {id(x.var): x.name for x in new[k:]}
        for e in (f.lb, f.ub):
            for v in R.expr_vars(e):
                if v in inside:
                    raise _err("reorder", "axes", f"the bounds of loop {f.name!r} depend on loop {inside[v]!r}, "
                                                  "which would no longer enclose it")
    if all(a is b for a, b in zip(new, chain)):
        return
    check_dependences("reorder", chain, new)
    body, pos = V.parent_list(func, chain[0])
    innermost_body = chain[-1].body
    top_name = chain[0].attrs.pop(OP_NAME, None)
    if top_name is not None and OP_NAME in new[0].attrs:
        chain[0].attrs[OP_NAME] = new[0].attrs.pop(OP_NAME)  # keep every band name on some loop
    if top_name is not None:
        new[0].attrs = {OP_NAME: top_name, **new[0].attrs}
    relink(new, guards, innermost_body)
    body[pos] = new[0]


# ----------------------------------------------------------------------------- fuse
def fuse(func: N.Func, *loops) -> N.For:
    """Fuse consecutive perfectly nested loops with constant bounds into one loop
    "<a>_<b>_fused" (outermost first in the arguments); the outermost keeps its attributes.
    Split guards between the loops move into the fused body.

    Before / after::

        for i in range(4):               for i_j_fused in range(0, 12):
            for j in range(3):               S(i_j_fused // 3, i_j_fused % 3)
                S(i, j)
    """
    if len(loops) < 2:
        raise _err("fuse", "axes", f"expected at least two loops, got {len(loops)}")
    fors = [find_loop(func, lp, "fuse", "axes") for lp in loops]
    chain = guards = None
    if len({id(f) for f in fors}) == len(fors) and all(any(x is a for x in V.loop_path(func, b)) for a, b in zip(fors, fors[1:])):
        chain, guards = guarded_chain("fuse", "axes", fors[0], fors[-1])
    if chain is None or len(chain) != len(fors) or any(a is not b for a, b in zip(chain, fors)):
        raise _err("fuse", "axes", f"loops {[f.name for f in fors]} must be consecutive, perfectly nested "
                                   "and given outermost first")
    counts = []
    for f in fors:
        n = R.trip_count(f)
        if n is None:
            raise _err("fuse", "axes", f"loop {f.name!r} has non-constant bounds")
        counts.append(n)
    fused_v = _var("_".join(f.name for f in fors) + "_fused")
    mapping, stride = {}, math.prod(counts)
    for f, n in zip(fors, counts):
        stride //= n
        pos = R.mod(R.floordiv(fused_v, stride), n) if f is not fors[0] else R.floordiv(fused_v, stride)
        mapping[f.var] = R.add(R.mul(pos, f.step), R.as_int(f.lb))
    top = fors[0]
    relink([top], guards, fors[-1].body)
    V.subst_stmts(top.body, mapping)
    top.var, top.lb, top.ub, top.step = fused_v, R.const(0), R.const(math.prod(counts)), 1
    top.name = "_".join(f.name for f in fors) + "_fused"
    return top


# ----------------------------------------------------------------------------- attributes
def unroll(func: N.Func, loop, factor=0) -> None:
    """Mark `loop` for unrolling: factor 0 = fully (`#pragma HLS unroll`), else by `factor`."""
    find_loop(func, loop, "unroll", "axis").attrs[UNROLL] = factor


def pipeline(func: N.Func, loop, ii=1, rewind=False) -> None:
    """Mark `loop` as pipelined with initiation interval `ii` (>= 1); `rewind=True` asks HLS to
    overlap successive runs of the whole loop (`#pragma HLS pipeline II=n rewind`)."""
    lp = find_loop(func, loop, "pipeline", "axis")
    lp.attrs[PIPELINE_II] = ii
    if rewind:
        lp.attrs[REWIND] = True
    else:
        lp.attrs.pop(REWIND, None)
    _fills_follow(func, lp, ii)


def _fills_follow(func, lp, ii):
    """reuse_at's fill loops follow a pipeline: one inside `lp` is unrolled by it (its own pipeline is
    dropped); one beside `lp` inside the loop it serves takes `lp`'s II (they alternate per row)."""
    for fill, path in V.iter_loops(func.body):
        served = fill.attrs.get(FILL)
        if served is None or fill is lp:
            continue
        if any(p is lp for p in path):
            fill.attrs.pop(PIPELINE_II, None)
        elif any(p.name == served for p in path) and any(p.name == served for p in V.loop_path(func, lp)):
            fill.attrs[PIPELINE_II] = ii


def parallel(func: N.Func, loop) -> None:
    """Mark `loop` as parallel (OpenMP on LLVM); refused when iterations may depend on each other."""
    lp = find_loop(func, loop, "parallel", "axis")
    reason = carried_dependence(func, lp)
    if reason is not None:
        raise _err("parallel", "axis", f"loop {lp.name!r} cannot run in parallel: {reason}")
    lp.attrs[PARALLEL] = True


def dataflow(func: N.Func, loop=None) -> None:
    """Mark the function (loop=None) or one loop as a dataflow region."""
    if loop is None:
        func.attrs[DATAFLOW] = True
    else:
        find_loop(func, loop, "dataflow", "func_or_axis").attrs[DATAFLOW] = True
