"""Loop unrolling on allo's loop IR, done while rendering in "llvm" mode (the "view" mode keeps
the `unroll` attribute for HLS).

Example::

    stmts = unroll_for(loop)      # loop.attrs[UNROLL] == 0 -> one copy of the body per iteration
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


def unroll_for(s: N.For):
    """Statements replacing loop `s` per its `unroll` attribute (0 = full), or None when the
    bounds are not constant (the loop then runs rolled; results are the same)."""
    factor = int(s.attrs.get(UNROLL) or 0)
    attrs = {k: v for k, v in s.attrs.items() if k != UNROLL}
    lb, ub = aff_const(s.lb), aff_const(s.ub)
    if lb is None or ub is None:
        return None
    values = range(lb, ub, s.step)
    trip = len(values)
    if trip == 0:
        return []
    if factor == 0 or factor >= trip:
        if trip <= MAX_FULL_UNROLL:
            out = []
            for v in values:
                out += V.Substitute({s.var: N.Const(v, index_t)}).stmts(s.body)
            return out
        factor = FALLBACK_UNROLL
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
