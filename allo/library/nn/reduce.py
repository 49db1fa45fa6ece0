"""Reductions over one axis: sum, mean, amax (keepdim=True shapes; ranks 1-4).

`nn.mean[float32, (2, 8, 16), 2](X)` returns [2, 8, 1], like `X.mean(2, keepdim=True)`; for
keepdim=False reshape the result (same data). The result accumulates in place while the input is
read in row-major order, so every loop nest is a plain perfect band.

Example::

    m = nn.mean[float32, (8, 32), 1](X)        # [8, 1]
"""
from __future__ import annotations

import allo

from ..registry import schedule_for
from .common import LOWEST, RANK, REPLACE, targ


@allo.kernel(template="T, SHAPE, AXIS")
def sum(X: "T[SHAPE]") -> "T[REPLACE[SHAPE, AXIS, 1]]":  # noqa: A001 - torch's name
    """Sum over AXIS (keepdim)."""
    Z: T[REPLACE[SHAPE, AXIS, 1]] = 0
    if RANK[SHAPE] == 1:
        for i0 in range(SHAPE[0]):
            Z[0] += X[i0]
    elif RANK[SHAPE] == 2:
        for i0, i1 in allo.grid(SHAPE[0], SHAPE[1]):
            Z[REPLACE[(i0, i1), AXIS, 0][0], REPLACE[(i0, i1), AXIS, 0][1]] += X[i0, i1]
    elif RANK[SHAPE] == 3:
        for i0, i1, i2 in allo.grid(SHAPE[0], SHAPE[1], SHAPE[2]):
            Z[REPLACE[(i0, i1, i2), AXIS, 0][0], REPLACE[(i0, i1, i2), AXIS, 0][1],
              REPLACE[(i0, i1, i2), AXIS, 0][2]] += X[i0, i1, i2]
    else:
        for i0, i1, i2, i3 in allo.grid(SHAPE[0], SHAPE[1], SHAPE[2], SHAPE[3]):
            Z[REPLACE[(i0, i1, i2, i3), AXIS, 0][0], REPLACE[(i0, i1, i2, i3), AXIS, 0][1],
              REPLACE[(i0, i1, i2, i3), AXIS, 0][2], REPLACE[(i0, i1, i2, i3), AXIS, 0][3]] += X[i0, i1, i2, i3]
    return Z


@allo.kernel(template="T, SHAPE, AXIS")
def amax(X: "T[SHAPE]") -> "T[REPLACE[SHAPE, AXIS, 1]]":
    """Maximum over AXIS (keepdim), torch.amax."""
    Z: T[REPLACE[SHAPE, AXIS, 1]] = LOWEST[T]
    if RANK[SHAPE] == 1:
        for i0 in range(SHAPE[0]):
            Z[0] = max(Z[0], X[i0])
    elif RANK[SHAPE] == 2:
        for i0, i1 in allo.grid(SHAPE[0], SHAPE[1]):
            Z[REPLACE[(i0, i1), AXIS, 0][0], REPLACE[(i0, i1), AXIS, 0][1]] = max(
                Z[REPLACE[(i0, i1), AXIS, 0][0], REPLACE[(i0, i1), AXIS, 0][1]], X[i0, i1])
    elif RANK[SHAPE] == 3:
        for i0, i1, i2 in allo.grid(SHAPE[0], SHAPE[1], SHAPE[2]):
            Z[REPLACE[(i0, i1, i2), AXIS, 0][0], REPLACE[(i0, i1, i2), AXIS, 0][1], REPLACE[(i0, i1, i2), AXIS, 0][2]] = max(
                Z[REPLACE[(i0, i1, i2), AXIS, 0][0], REPLACE[(i0, i1, i2), AXIS, 0][1], REPLACE[(i0, i1, i2), AXIS, 0][2]],
                X[i0, i1, i2])
    else:
        for i0, i1, i2, i3 in allo.grid(SHAPE[0], SHAPE[1], SHAPE[2], SHAPE[3]):
            Z[REPLACE[(i0, i1, i2, i3), AXIS, 0][0], REPLACE[(i0, i1, i2, i3), AXIS, 0][1],
              REPLACE[(i0, i1, i2, i3), AXIS, 0][2], REPLACE[(i0, i1, i2, i3), AXIS, 0][3]] = max(
                Z[REPLACE[(i0, i1, i2, i3), AXIS, 0][0], REPLACE[(i0, i1, i2, i3), AXIS, 0][1],
                  REPLACE[(i0, i1, i2, i3), AXIS, 0][2], REPLACE[(i0, i1, i2, i3), AXIS, 0][3]], X[i0, i1, i2, i3])
    return Z


@schedule_for(sum, amax)
def schedule_reduce(s):
    s.pipeline(f"i{len(targ(s, 'SHAPE')) - 1}")


@allo.kernel(template="T, SHAPE, AXIS")
def mean(X: "T[SHAPE]") -> "T[REPLACE[SHAPE, AXIS, 1]]":
    """Mean over AXIS (keepdim): the sum loops of `sum`, then one division per output element."""
    Z: T[REPLACE[SHAPE, AXIS, 1]] = 0
    if RANK[SHAPE] == 1:
        for i0 in range(SHAPE[0]):
            Z[0] += X[i0]
    elif RANK[SHAPE] == 2:
        for i0, i1 in allo.grid(SHAPE[0], SHAPE[1]):
            Z[REPLACE[(i0, i1), AXIS, 0][0], REPLACE[(i0, i1), AXIS, 0][1]] += X[i0, i1]
    elif RANK[SHAPE] == 3:
        for i0, i1, i2 in allo.grid(SHAPE[0], SHAPE[1], SHAPE[2]):
            Z[REPLACE[(i0, i1, i2), AXIS, 0][0], REPLACE[(i0, i1, i2), AXIS, 0][1],
              REPLACE[(i0, i1, i2), AXIS, 0][2]] += X[i0, i1, i2]
    else:
        for i0, i1, i2, i3 in allo.grid(SHAPE[0], SHAPE[1], SHAPE[2], SHAPE[3]):
            Z[REPLACE[(i0, i1, i2, i3), AXIS, 0][0], REPLACE[(i0, i1, i2, i3), AXIS, 0][1],
              REPLACE[(i0, i1, i2, i3), AXIS, 0][2], REPLACE[(i0, i1, i2, i3), AXIS, 0][3]] += X[i0, i1, i2, i3]
    Y: T[REPLACE[SHAPE, AXIS, 1]]
    if RANK[SHAPE] == 1:
        Y[0] = Z[0] / SHAPE[0]
    elif RANK[SHAPE] == 2:
        for m0, m1 in allo.grid(Y.shape[0], Y.shape[1]):
            Y[m0, m1] = Z[m0, m1] / SHAPE[AXIS]
    elif RANK[SHAPE] == 3:
        for m0, m1, m2 in allo.grid(Y.shape[0], Y.shape[1], Y.shape[2]):
            Y[m0, m1, m2] = Z[m0, m1, m2] / SHAPE[AXIS]
    else:
        for m0, m1, m2, m3 in allo.grid(Y.shape[0], Y.shape[1], Y.shape[2], Y.shape[3]):
            Y[m0, m1, m2, m3] = Z[m0, m1, m2, m3] / SHAPE[AXIS]
    return Y


@schedule_for(mean)
def schedule_mean(s):
    rank = len(targ(s, "SHAPE"))
    s.pipeline(f"i{rank - 1}")
    if rank > 1:
        s.pipeline(f"m{rank - 1}")
