"""Reductions over one axis: sum, mean, amax (keepdim=True shapes; ranks 1-4).

`nn.mean[float32, (2, 8, 16), 2](X)` returns [2, 8, 1], like `X.mean(2, keepdim=True)`; for
keepdim=False reshape the result (same data). The result accumulates in place while the input is
read in row-major order, so every loop nest is a plain perfect band.

Example::

    m = nn.mean[float32, (8, 32), 1](X)        # [8, 1]
"""
from __future__ import annotations

from .. import lang as allo  # the public names as kernel code spells them
from ..registry import schedule_for
from .common import LOWEST, REPLACE, targ


@allo.kernel(template="T, SHAPE, AXIS")
def sum(X: "T[SHAPE]") -> "T[REPLACE[SHAPE, AXIS, 1]]":  # noqa: A001 - torch's name
    """Sum over AXIS (keepdim)."""
    Z: T[REPLACE[SHAPE, AXIS, 1]] = 0
    for i in allo.grid(*SHAPE):  # i = (i0, i1, ...): one loop per axis, any rank
        Z[REPLACE[i, AXIS, 0]] += X[i]
    return Z


@allo.kernel(template="T, SHAPE, AXIS")
def amax(X: "T[SHAPE]") -> "T[REPLACE[SHAPE, AXIS, 1]]":
    """Maximum over AXIS (keepdim), torch.amax."""
    Z: T[REPLACE[SHAPE, AXIS, 1]] = LOWEST[T]
    for i in allo.grid(*SHAPE):
        Z[REPLACE[i, AXIS, 0]] = max(Z[REPLACE[i, AXIS, 0]], X[i])
    return Z


@schedule_for(sum, amax)
def schedule_reduce(s):
    s.pipeline(f"i{len(targ(s, 'SHAPE')) - 1}")


@allo.kernel(template="T, SHAPE, AXIS")
def mean(X: "T[SHAPE]") -> "T[REPLACE[SHAPE, AXIS, 1]]":
    """Mean over AXIS (keepdim): the sum loops of `sum`, then one division per output element."""
    Z: T[REPLACE[SHAPE, AXIS, 1]] = 0
    for i in allo.grid(*SHAPE):
        Z[REPLACE[i, AXIS, 0]] += X[i]
    Y: T[REPLACE[SHAPE, AXIS, 1]]
    for m in allo.grid(*REPLACE[SHAPE, AXIS, 1]):
        Y[m] = Z[m] / SHAPE[AXIS]
    return Y


@schedule_for(mean)
def schedule_mean(s):
    rank = len(targ(s, "SHAPE"))
    s.pipeline(f"i{rank - 1}")
    if rank > 1:
        s.pipeline(f"m{rank - 1}")
