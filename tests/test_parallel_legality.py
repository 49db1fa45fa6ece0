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
