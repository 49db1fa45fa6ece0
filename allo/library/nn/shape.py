"""Data movement: transpose, permute, reshape, concat, slice, select, expand.

Apart from the 2-D `transpose`, these take whole shapes as tuple template arguments, so one
kernel serves ranks 1 to 4: `nn.permute[float32, (2, 8, 4, 16), (0, 2, 1, 3)](X)`. Axes are
non-negative (normalise torch's negative dims first). Each is a copy; allo arrays have no views.

Example::

    Y = nn.concat[float32, (4, 8), (4, 2), 1](A, B)        # -> [4, 10]
    Z = nn.reshape[float32, (2, 3, 4), (6, 4)](X)
"""
from __future__ import annotations

from .. import lang as allo  # the public names as kernel code spells them
from ..registry import schedule_for
from .common import CAT, DROP, INSERT, PERMUTED, RANK, SIZE, SLICED, targ


def _pipeline_innermost(s, prefix, rank):
    s.pipeline(f"{prefix}{rank - 1}")


@allo.kernel(template="T, M, N")
def transpose(X: "T[M, N]") -> "T[N, M]":
    """Matrix transpose `X.T`."""
    Z: T[N, M]
    for i, j in allo.grid(N, M):
        Z[i, j] = X[j, i]
    return Z


@schedule_for(transpose)
def schedule_transpose(s):
    s.pipeline("j")


@allo.kernel(template="T, SHAPE, PERM")
def permute(X: "T[SHAPE]") -> "T[PERMUTED[SHAPE, PERM]]":
    """`X.permute(PERM)` for any rank (`Z[idx[PERM[0]], idx[PERM[1]], ...] = X[idx]`)."""
    Z: T[PERMUTED[SHAPE, PERM]]
    for i in allo.grid(*SHAPE):  # i = (i0, i1, ...)
        Z[PERMUTED[i, PERM]] = X[i]
    return Z


@schedule_for(permute)
def schedule_permute(s):
    _pipeline_innermost(s, "i", len(targ(s, "SHAPE")))


@allo.kernel(template="T, IN, OUT")
def reshape(X: "T[IN]") -> "T[OUT]":
    """Row-major reshape (torch.reshape / view / flatten) between ranks 1-4 of equal size."""
    flat: T[SIZE[IN]]
    if RANK[IN] == 1:
        for i0 in range(IN[0]):
            flat[i0] = X[i0]
    elif RANK[IN] == 2:
        for i0, i1 in allo.grid(IN[0], IN[1]):
            flat[i0 * IN[1] + i1] = X[i0, i1]
    elif RANK[IN] == 3:
        for i0, i1, i2 in allo.grid(IN[0], IN[1], IN[2]):
            flat[(i0 * IN[1] + i1) * IN[2] + i2] = X[i0, i1, i2]
    else:
        for i0, i1, i2, i3 in allo.grid(IN[0], IN[1], IN[2], IN[3]):
            flat[((i0 * IN[1] + i1) * IN[2] + i2) * IN[3] + i3] = X[i0, i1, i2, i3]
    Z: T[OUT]
    if RANK[OUT] == 1:
        for o0 in range(OUT[0]):
            Z[o0] = flat[o0]
    elif RANK[OUT] == 2:
        for o0, o1 in allo.grid(OUT[0], OUT[1]):
            Z[o0, o1] = flat[o0 * OUT[1] + o1]
    elif RANK[OUT] == 3:
        for o0, o1, o2 in allo.grid(OUT[0], OUT[1], OUT[2]):
            Z[o0, o1, o2] = flat[(o0 * OUT[1] + o1) * OUT[2] + o2]
    else:
        for o0, o1, o2, o3 in allo.grid(OUT[0], OUT[1], OUT[2], OUT[3]):
            Z[o0, o1, o2, o3] = flat[((o0 * OUT[1] + o1) * OUT[2] + o2) * OUT[3] + o3]
    return Z


@schedule_for(reshape)
def schedule_reshape(s):
    _pipeline_innermost(s, "i", len(targ(s, "IN")))
    _pipeline_innermost(s, "o", len(targ(s, "OUT")))


@allo.kernel(template="T, SA, SB, AXIS")
def concat(A: "T[SA]", B: "T[SB]") -> "T[CAT[SA, SB, AXIS]]":
    """`torch.cat([A, B], AXIS)` for ranks 1-4 (chain calls for more inputs)."""
    Z: T[CAT[SA, SB, AXIS]]
    if RANK[SA] == 1:
        for i0 in range(SA[0]):
            Z[i0] = A[i0]
        for j0 in range(SB[0]):
            Z[j0 + SA[0]] = B[j0]
    elif RANK[SA] == 2:
        for i0, i1 in allo.grid(SA[0], SA[1]):
            Z[i0, i1] = A[i0, i1]
        for j0, j1 in allo.grid(SB[0], SB[1]):
            Z[j0 + (SA[0] if AXIS == 0 else 0), j1 + (SA[1] if AXIS == 1 else 0)] = B[j0, j1]
    elif RANK[SA] == 3:
        for i0, i1, i2 in allo.grid(SA[0], SA[1], SA[2]):
            Z[i0, i1, i2] = A[i0, i1, i2]
        for j0, j1, j2 in allo.grid(SB[0], SB[1], SB[2]):
            Z[j0 + (SA[0] if AXIS == 0 else 0), j1 + (SA[1] if AXIS == 1 else 0),
              j2 + (SA[2] if AXIS == 2 else 0)] = B[j0, j1, j2]
    else:
        for i0, i1, i2, i3 in allo.grid(SA[0], SA[1], SA[2], SA[3]):
            Z[i0, i1, i2, i3] = A[i0, i1, i2, i3]
        for j0, j1, j2, j3 in allo.grid(SB[0], SB[1], SB[2], SB[3]):
            Z[j0 + (SA[0] if AXIS == 0 else 0), j1 + (SA[1] if AXIS == 1 else 0),
              j2 + (SA[2] if AXIS == 2 else 0), j3 + (SA[3] if AXIS == 3 else 0)] = B[j0, j1, j2, j3]
    return Z


@schedule_for(concat)
def schedule_concat(s):
    _pipeline_innermost(s, "i", len(targ(s, "SA")))
    _pipeline_innermost(s, "j", len(targ(s, "SA")))


@allo.kernel(template="T, SHAPE, AXIS, START, STOP, STEP")
def slice(X: "T[SHAPE]") -> "T[SLICED[SHAPE, AXIS, START, STOP, STEP]]":  # noqa: A001 - torch's name
    """`X[..., START:STOP:STEP, ...]` along AXIS for ranks 1-4 (STOP is clamped to the extent)."""
    Z: T[SLICED[SHAPE, AXIS, START, STOP, STEP]]
    if RANK[SHAPE] == 1:
        for o0 in range(Z.shape[0]):
            Z[o0] = X[o0 * STEP + START]
    elif RANK[SHAPE] == 2:
        for o0, o1 in allo.grid(Z.shape[0], Z.shape[1]):
            Z[o0, o1] = X[o0 * STEP + START if AXIS == 0 else o0, o1 * STEP + START if AXIS == 1 else o1]
    elif RANK[SHAPE] == 3:
        for o0, o1, o2 in allo.grid(Z.shape[0], Z.shape[1], Z.shape[2]):
            Z[o0, o1, o2] = X[o0 * STEP + START if AXIS == 0 else o0, o1 * STEP + START if AXIS == 1 else o1,
                              o2 * STEP + START if AXIS == 2 else o2]
    else:
        for o0, o1, o2, o3 in allo.grid(Z.shape[0], Z.shape[1], Z.shape[2], Z.shape[3]):
            Z[o0, o1, o2, o3] = X[o0 * STEP + START if AXIS == 0 else o0, o1 * STEP + START if AXIS == 1 else o1,
                                  o2 * STEP + START if AXIS == 2 else o2, o3 * STEP + START if AXIS == 3 else o3]
    return Z


@schedule_for(slice)
def schedule_slice(s):
    _pipeline_innermost(s, "o", len(targ(s, "SHAPE")))


@allo.kernel(template="T, SHAPE, AXIS, INDEX")
def select(X: "T[SHAPE]") -> "T[DROP[SHAPE, AXIS]]":
    """`X.select(AXIS, INDEX)` (e.g. `x[:, 0]`): drops axis AXIS, for input ranks 2-4."""
    Z: T[DROP[SHAPE, AXIS]]
    if RANK[SHAPE] == 2:
        for o0 in range(Z.shape[0]):
            Z[o0] = X[INSERT[(o0,), AXIS, INDEX][0], INSERT[(o0,), AXIS, INDEX][1]]
    elif RANK[SHAPE] == 3:
        for o0, o1 in allo.grid(Z.shape[0], Z.shape[1]):
            Z[o0, o1] = X[INSERT[(o0, o1), AXIS, INDEX][0], INSERT[(o0, o1), AXIS, INDEX][1],
                          INSERT[(o0, o1), AXIS, INDEX][2]]
    else:
        for o0, o1, o2 in allo.grid(Z.shape[0], Z.shape[1], Z.shape[2]):
            Z[o0, o1, o2] = X[INSERT[(o0, o1, o2), AXIS, INDEX][0], INSERT[(o0, o1, o2), AXIS, INDEX][1],
                              INSERT[(o0, o1, o2), AXIS, INDEX][2], INSERT[(o0, o1, o2), AXIS, INDEX][3]]
    return Z


@schedule_for(select)
def schedule_select(s):
    _pipeline_innermost(s, "o", len(targ(s, "SHAPE")) - 1)


@allo.kernel(template="T, IN, OUT")
def expand(X: "T[IN]") -> "T[OUT]":
    """`X.expand(OUT)` as a copy: same rank, axes of extent 1 in IN are repeated (ranks 1-4)."""
    Z: T[OUT]
    if RANK[OUT] == 1:
        for o0 in range(OUT[0]):
            Z[o0] = X[o0 if IN[0] > 1 else 0]
    elif RANK[OUT] == 2:
        for o0, o1 in allo.grid(OUT[0], OUT[1]):
            Z[o0, o1] = X[o0 if IN[0] > 1 else 0, o1 if IN[1] > 1 else 0]
    elif RANK[OUT] == 3:
        for o0, o1, o2 in allo.grid(OUT[0], OUT[1], OUT[2]):
            Z[o0, o1, o2] = X[o0 if IN[0] > 1 else 0, o1 if IN[1] > 1 else 0, o2 if IN[2] > 1 else 0]
    else:
        for o0, o1, o2, o3 in allo.grid(OUT[0], OUT[1], OUT[2], OUT[3]):
            Z[o0, o1, o2, o3] = X[o0 if IN[0] > 1 else 0, o1 if IN[1] > 1 else 0, o2 if IN[2] > 1 else 0,
                                  o3 if IN[3] > 1 else 0]
    return Z


@schedule_for(expand)
def schedule_expand(s):
    _pipeline_innermost(s, "o", len(targ(s, "OUT")))
