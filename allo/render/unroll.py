"""Loop unrolling on allo's loop IR, done while rendering in "llvm" mode (the "view" mode keeps
the `unroll` attribute for HLS).

On the CPU `unroll` is a hint: a loop kept (or unrolled partially) computes the same. The copies
are capped twice: a full unroll of more than MAX_FULL_UNROLL iterations becomes a partial one
(FALLBACK_UNROLL), and one nest of unrolled loops expands to about MAX_TOTAL_UNROLL statement
copies at most (`plan_unroll`): nested unrolls multiply (82 x 65 lanes of a DSE design are 10,660
statements, whose LLVM compile took 370 s), so beyond the cap the outer unrolled loops unroll
partially or stay loops while the inner ones (the lanes) are still expanded.

Example::

    factor, inner = plan_unroll(loop, allowance)   # the factor to use, what each copy may expand to
    stmts = unroll_for(loop, factor)               # loop.attrs[UNROLL] == 0 -> one copy per iteration
"""
from __future__ import annotations

import dataclasses

from ..ir import nodes as N, visit as V
from ..ir.attrs import UNROLL
from ..ir.ops import BinOpKind
from .affine import aff_const
from .scalars import index_t

MAX_FULL_UNROLL = 1024  # full unroll beyond this trip count falls back to a partial unroll
FALLBACK_UNROLL = 8
MAX_TOTAL_UNROLL = 512  # statement copies one nest of unrolled loops may expand to


def _trip(s: N.For):
    """The trip count of loop `s`, or None when its bounds are not constant."""
    lb, ub = aff_const(s.lb), aff_const(s.ub)
    return None if lb is None or ub is None else len(range(lb, ub, s.step))


def requested_factor(s: N.For):
    """The unroll factor loop `s` asks for, as `unroll_for` applies it (the trip count for a full
    unroll within MAX_FULL_UNROLL), or None when it is not unrolled (no attribute, bounds not
    constant)."""
    trip = _trip(s) if UNROLL in s.attrs else None
    if trip is None:
        return None
    factor = int(s.attrs.get(UNROLL) or 0)
    if factor == 0 or factor >= trip:
        return trip if trip <= MAX_FULL_UNROLL else min(FALLBACK_UNROLL, trip)
    return max(factor, 1)


def unroll_cost(body: list) -> int:
    """Statements that rendering `body` in "llvm" mode produces, every requested unroll applied
    (a loop kept as a loop counts itself and its body once)."""
    total = 0
    for s in body:
        inner = sum(unroll_cost(b) for b in V.blocks(s))
        factor = requested_factor(s) if isinstance(s, N.For) else None
        if factor is None:
            total += 1 + inner
        else:
            trip = _trip(s)
            total += factor * inner + (inner if trip % factor else 0)  # + the remainder loop
    return total


def plan_unroll(s: N.For, allowance: int = MAX_TOTAL_UNROLL):
    """(factor, allowance of each copy of the body) for unrolled loop `s` rendered where
    `allowance` statement copies are left: the requested factor when its expansion fits, else
    the largest factor whose copies of the (fully expanded) body fit, else 1 (the loop kept; its
    body keeps the allowance, so inner unrolled loops still expand)."""
    want = requested_factor(s)
    if want is None:
        return None, allowance
    body = max(unroll_cost(s.body), 1)
    rem = 1 if _trip(s) % want else 0
    if (want + rem) * body <= allowance:
        return want, allowance // (want + rem)
    factor = max(1, allowance // body - 1)  # one copy more for a remainder loop
    return factor, (allowance // (factor + 1) if factor > 1 else allowance)


def unroll_for(s: N.For, factor: int | None = None):
    """Statements replacing loop `s` per its `unroll` attribute (0 = full), or by `factor`
    (`plan_unroll`'s; 1 keeps the loop), or None when the bounds are not constant (the loop then
    runs rolled; results are the same)."""
    attrs = {k: v for k, v in s.attrs.items() if k != UNROLL}
    trip = _trip(s)
    if trip is None:
        return None
    if trip == 0:
        return []
    lb, ub = aff_const(s.lb), aff_const(s.ub)
    factor = requested_factor(s) if factor is None else factor
    if factor >= trip:
        out = []
        for v in range(lb, ub, s.step):
            out += V.Substitute({s.var: N.Const(v, index_t)}).stmts(s.body)
        return out
    if factor <= 1:
        return [dataclasses.replace(s, attrs=attrs)]
    main = trip // factor * factor
    main_ub = lb + main * s.step
    body = []
    for k in range(factor):
        shifted = N.BinOp(BinOpKind.ADD, s.var, N.Const(k * s.step, index_t), index_t) if k else s.var
        body += V.Substitute({s.var: shifted}).stmts(s.body) if k else s.body
    out = [dataclasses.replace(s, lb=N.Const(lb, index_t), ub=N.Const(main_ub, index_t), step=s.step * factor,
                               body=body, attrs=attrs)]
    if main < trip:
        out.append(dataclasses.replace(s, lb=N.Const(main_ub, index_t), ub=N.Const(ub, index_t), attrs=attrs))
    return out
