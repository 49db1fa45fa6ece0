"""s.parallel refuses loops whose iterations may depend on each other; partition refuses scalars."""
import numpy as np
import pytest

import allo
from allo.ir.types import float32, int32


def gemm(A: float32[16, 16], B: float32[16, 16]) -> float32[16, 16]:
    C: float32[16, 16] = 0.0
    for i, j in allo.grid(16, 16):
        for k in allo.reduction(16):
            C[i, j] += A[i, k] * B[k, j]
    return C


def trmm(A: float32[8, 8], B: float32[8, 8]):
    for i, j in allo.grid(8, 8):
        for k in range(i + 1, 8):
            B[i, j] += A[k, i] * B[k, j]     # reads rows k > i that later iterations write


def running(A: int32[8]) -> int32[8]:
    B: int32[8] = 0
    for i in range(1, 8):
        B[i] = B[i - 1] + A[i]
    return B


def carried_scratch(A: float32[8]) -> float32[8]:
    out: float32[8]
    prev: float32[1]
    for i in range(8):
        if i > 0:
            out[i] = prev[0] + A[i]       # reads the previous iteration's value
        prev[0] = A[i]
    return out


def tiled(A: float32[16, 4]) -> float32[16, 4]:
    B: float32[16, 4] = 0.0
    for i, j in allo.grid(16, 4):
        B[i, j] = A[i, j] * 2.0
    return B


@pytest.mark.parametrize("kernel,loop,buf", [(trmm, "i", "B"), (running, "i", "B"), (carried_scratch, "i", "prev")])
def test_parallel_refuses_carried_dependences(kernel, loop, buf):
    s = allo.customize(kernel)
    before = str(s.module)
    with pytest.raises(allo.AlloError, match=f"parallel: argument 'axis'.*{buf}"):
        s.parallel(loop)
    assert str(s.module) == before and not s.steps


def test_parallel_accepts_disjoint_slices_and_split_tiles():
    s = allo.customize(gemm)
    s.parallel("i")
    A, B = np.random.rand(16, 16).astype(np.float32), np.random.rand(16, 16).astype(np.float32)
    np.testing.assert_allclose(s.build(threads=2)(A, B), A @ B, rtol=1e-5)
    t = allo.customize(tiled)
    t.split("i", 4)
    t.parallel("i.outer")     # index i.outer*4 + i.inner: tiles of 4 rows never overlap
    X = np.random.rand(16, 4).astype(np.float32)
    np.testing.assert_array_equal(t.build(threads=2)(X), X * 2)


def scaled(A: float32[4], alpha: float32) -> float32[4]:
    B: float32[4] = 0.0
    for i in range(4):
        B[i] = A[i] * alpha
    return B


def test_partition_refuses_scalars():
    s = allo.customize(scaled)
    with pytest.raises(allo.AlloError, match="partition: argument 'target'.*scalar"):
        s.partition(s.alpha, allo.Partition.Complete)
    assert not s.steps


def blur(A: int32[10, 10]) -> int32[8, 8]:
    B: int32[8, 8] = 0
    for y, x in allo.grid(8, 8):
        v: int32 = 0
        for r, c in allo.reduction(3, 3):
            v += A[y + r, x + c]
        B[y, x] = v
    return B


def row_scan(A: int32[8, 8]) -> int32[8, 8]:
    B: int32[8, 8] = 0
    for i in range(8):
        for j in range(1, 8):
            B[i, j] = B[i, j - 1] + A[i, j]
    return B


AFTER_PARALLEL = {  # a rewrite after s.parallel that would share state between the iterations
    "reuse_at": (blur, "y", lambda s: s.reuse_at(s.A, "y"), "A_reuse_y"),      # one line buffer for all rows
    "reuse_at_inner": (blur, "y", lambda s: s.reuse_at(s.A, "x"), "A_reuse_x"),
    "buffer_at": (blur, "y", lambda s: s.buffer_at(s.B, "x"), "B_buf"),          # one scalar, outside 'y'
    "fuse": (row_scan, "i", lambda s: s.fuse("i", "j"), "B"),                    # the scan's j would run in parallel
}
LOOP_AFTER = {"fuse": "i_j_fused"}


@pytest.mark.parametrize("case", sorted(AFTER_PARALLEL))
def test_a_rewrite_after_parallel_that_shares_state_is_refused_like_the_other_order(case):
    """reuse_at after parallel was accepted and ran with one shared reuse buffer (wrong results with
    threads=2); the other order was refused. Both orders are refused now, naming loop and primitive."""
    kernel, loop, rewrite, shared = AFTER_PARALLEL[case]
    primitive = case.split("_inner")[0]
    first = allo.customize(kernel)
    rewrite(first)
    after = LOOP_AFTER.get(primitive, loop)
    with pytest.raises(allo.AlloError, match=f"parallel: argument 'axis': loop '{after}'.*{shared}"):
        first.parallel(after)
    s = allo.customize(kernel)
    s.parallel(loop)
    before = (str(s.module), list(s.steps))
    with pytest.raises(allo.ScheduleError, match=f"{primitive}: loop '{after}' is marked parallel.*{shared}"):
        rewrite(s)
    assert (str(s.module), list(s.steps)) == before


def test_rewrites_after_parallel_that_keep_iterations_apart_still_run_in_parallel():
    A = np.random.default_rng(0).integers(-50, 50, (10, 10)).astype(np.int32)
    want = sum(A[r:r + 8, c:c + 8] for r in range(3) for c in range(3))
    for rewrite in (lambda s: s.buffer_at(s.B, "y"), lambda s: s.split("y", 3), lambda s: s.reshape(s.B, (4, 16))):
        s = allo.customize(blur)
        s.parallel("y")
        rewrite(s)
        mod = s.build(threads=2)
        for _ in range(3):
            np.testing.assert_array_equal(mod(A).reshape(8, 8), want)
    s = allo.customize(row_scan)
    s.parallel("i")
    s.reorder("j", "i")       # the parallel rows become the inner loop: still independent
    np.testing.assert_array_equal(s.build(threads=2)(A[:8, :8]), np.cumsum(A[:8, :8] * (np.arange(8) > 0), axis=1))
