"""Primitives build what an HLS engineer means (issue 26, item 3), each checked by the estimator and
by csim against numpy and the LLVM build:

- reuse_at's row-fill loop is pipelined by default, named in the schedule log, follows the II of the
  loop it serves and is unrolled (its own pipeline dropped) under a pipelined outer loop;
- buffer_at after split buffers the tile the inner loops address (4x4), not the whole array;
- s.to streams a buffer the caller initialises (the initialisation writes the FIFO)."""
import numpy as np
import pytest

import allo
from allo.ir import nodes as N, visit as V
from allo.ir.attrs import PIPELINE_II
from allo.ir.types import float32, int32

RNG = np.random.default_rng(26)
H = W = 16


def blur(A: int32[H, W]) -> int32[H - 2, W - 2]:
    B: int32[H - 2, W - 2] = 0
    for y, x in allo.grid(H - 2, W - 2):
        v: int32 = 0
        for r, c in allo.reduction(3, 3):
            v += A[y + r, x + c] * (r + 2 * c + 1)
        B[y, x] = v
    return B


def _blur_ref(A):
    return np.array([[sum(int(A[y + r, x + c]) * (r + 2 * c + 1) for r in range(3) for c in range(3))
                      for x in range(W - 2)] for y in range(H - 2)])


def _loop(s, name):
    return next(lp for lp in V.walk_stmts(s.top_func.body) if isinstance(lp, N.For) and lp.name == name)


def _line_buffered(ii=1):
    s = allo.customize(blur)
    lb = s.reuse_at(s.A, "y")
    s.reuse_at(lb, "x")
    s.pipeline("x", initiation_interval=ii)
    return s


def test_reuse_at_fill_is_pipelined_named_and_faster_than_no_line_buffer():
    plain = allo.customize(blur)
    plain.pipeline("x")
    s = _line_buffered()
    assert _loop(s, "A_reuse_y_c0").attrs[PIPELINE_II] == 1
    assert "A_reuse_y_c0 (pipelined II=1)" in str(s)  # the log names the loop users can address
    assert PIPELINE_II not in _loop(s, "A_reuse_y_reuse_x_c0").attrs  # inside pipelined x: unrolled there
    est, base = allo.qor.estimate(s), allo.qor.estimate(plain)
    assert est.loop("A_reuse_y_c0").pipelined and est.loop("A_reuse_y_c0").ii == 1
    assert est.latency_cycles < base.latency_cycles, (est.latency_cycles, base.latency_cycles)
    A = RNG.integers(-20, 20, size=(H, W)).astype(np.int32)
    want = _blur_ref(A)
    np.testing.assert_array_equal(s.build()(A), want)
    np.testing.assert_array_equal(s.build(target="vhls", mode="csim")(A), want)


def test_reuse_at_fill_follows_the_pipeline_of_the_loop_it_serves():
    s = _line_buffered(ii=2)
    assert _loop(s, "A_reuse_y_c0").attrs[PIPELINE_II] == 2
    assert allo.qor.estimate(s).loop("A_reuse_y_c0").ii == 2
    outer = allo.customize(blur)
    outer.reuse_at(outer.A, "y")
    outer.pipeline("y")  # the fill now runs inside a pipelined loop: Vitis unrolls it
    assert PIPELINE_II not in _loop(outer, "A_reuse_y_c0").attrs
    A = RNG.integers(-20, 20, size=(H, W)).astype(np.int32)
    np.testing.assert_array_equal(outer.build(target="vhls", mode="csim")(A), _blur_ref(A))


def _mm(n):
    def mm(A: int32[n, n], B: int32[n, n]) -> int32[n, n]:
        C: int32[n, n] = 0
        for i, j, k in allo.grid(n, n, n):
            C[i, j] += A[i, k] * B[k, j]
        return C
    return mm


@pytest.mark.parametrize("n", [16, 6])  # 6: the split by 4 leaves a partial last tile (guarded copies)
def test_buffer_at_after_split_buffers_the_tile(n):
    s = allo.customize(_mm(n))
    s.split("i", 4)
    s.split("j", 4)
    s.reorder("i.outer", "j.outer", "i.inner", "j.inner")
    tile = s.buffer_at(s.C, "j.outer")
    s.pipeline("k")
    buf = next(b for b in V.iter_buffers(s.top_func) if b.name == tile.name)
    assert tuple(buf.shape) == (4, 4)
    est = allo.qor.estimate(s)
    # per tile: 16 copies in and 16 out (a few cycles each, unpipelined), not 2 * n * n
    assert est.loop("i_inner_init").trip_count == 4 and est.loop("j_inner_init").trip_count == 4
    copies = est.loop("i_inner_init").latency + est.loop("i_inner_back").latency
    assert copies <= 2 * 16 * 5, copies
    A = RNG.integers(-8, 8, size=(n, n)).astype(np.int32)
    B = RNG.integers(-8, 8, size=(n, n)).astype(np.int32)
    np.testing.assert_array_equal(s.build()(A, B), A @ B)
    np.testing.assert_array_equal(s.build(target="vhls", mode="csim")(A, B), A @ B)


M = 8


def acc(A: float32[M, M], x: float32[M], y0: float32[M], y: float32[M]):
    for i in range(M):
        v: float32 = y0[i]
        for j in range(M):
            v += A[i, j] * x[j]
        y[i] = v


def gesummv_like(A: float32[M, M], x: float32[M]) -> float32[M]:
    y_init: float32[M] = 1.5
    y: float32[M]
    acc(A, x, y_init, y)
    return y


def test_to_streams_a_buffer_the_caller_initialises():
    s = allo.customize(gesummv_like)
    s.to(s.y_init, "acc")
    code = str(s.build(target="vhls"))
    assert "hls::stream< float > y_init;" in code and "y_init.write(1.5f);" in code
    A = RNG.random((M, M), dtype=np.float32)
    x = RNG.random(M, dtype=np.float32)
    want = A.astype(np.float64) @ x + 1.5
    np.testing.assert_allclose(s.build()(A, x), want, rtol=1e-5)
    np.testing.assert_allclose(s.build(target="vhls", mode="csim")(A, x), want, rtol=1e-5)
    est = allo.qor.estimate(s)
    assert est.latency_cycles >= est.loop("acc").latency


def put(y0: float32[M]):
    for i in range(M):
        y0[i] = 2.0


def two_writers(A: float32[M, M], x: float32[M]) -> float32[M]:
    y_init: float32[M] = 0.0
    y: float32[M]
    put(y_init)
    acc(A, x, y_init, y)
    return y


def test_to_refuses_an_initialised_buffer_that_a_kernel_also_writes():
    s = allo.customize(two_writers)
    with pytest.raises(allo.ScheduleError, match="has an initial value, which writes the FIFO, and is also passed"):
        s.to(s.y_init, "acc")
