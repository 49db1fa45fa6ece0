"""The default DSE space of an imperfect nest (a 3x3 convolution with a scalar accumulator): it
offers pipelining the loop around the inner 3x3 loops, finds a design at least as fast as the
manual `pipeline("x")`, and reports the loops it leaves out and why."""
import numpy as np

import allo
from allo import dse, qor
from allo.dse.space import recipe_key
from allo.ir.types import float32


def conv(A: float32[12, 12], W: float32[3, 3]) -> float32[10, 10]:
    B: float32[10, 10] = 0.0
    for y, x in allo.grid(10, 10):
        v: float32 = 0.0
        for r, c in allo.grid(3, 3):
            v += A[y + r, x + c] * W[r, c]
        B[y, x] = v
    return B


def test_conv_default_space_covers_the_outer_loop_and_beats_manual_pipelining():
    manual = allo.customize(conv)
    manual.pipeline("x")
    target = qor.estimate(manual).latency_cycles
    space = dse.default_space(allo.customize(conv))
    pipe = next(p for p in space.params if p.name.endswith(":pipe"))
    assert "loop:x" in pipe.options and "loop:y" in pipe.options  # y: 10 x 9 = 90 <= 256 lanes
    r = dse.explore(conv, space=space, trials=space.size, strategy="grid", executor="inline", verify=1)
    best = r.best_trial
    assert best.latency <= target and best.verified
    A, W = np.random.rand(12, 12).astype(np.float32), np.random.rand(3, 3).astype(np.float32)
    want = sum(A[r:r + 10, c:c + 10] * W[r, c] for r in range(3) for c in range(3))
    np.testing.assert_allclose(best.schedule.build()(A, W), want, rtol=1e-5)


def test_default_space_reports_left_out_loops():
    space = dse.default_space(allo.customize(conv), max_lanes=16)
    # x unrolls 9 iterations (offered); y would unroll 90 > 16: left out, with the reason
    assert list(space.left_out) == ["conv:y"]
    assert "90 inner iterations" in space.left_out["conv:y"] and "max_lanes=16" in space.left_out["conv:y"]
    r = dse.explore(conv, space=space, trials=4, strategy="random", executor="inline", verify=0)
    assert "left out of the space: conv:y: pipelining it unrolls 90" in r.summary()


def test_dse_table_shows_each_design_once():
    space = dse.default_space(allo.customize(conv))
    r = dse.explore(conv, space=space, trials=space.size, strategy="grid", executor="inline", verify=0)
    lines = r.table(n=1000).splitlines()[2:]
    designs = [line.split()[2:] for line in lines]  # latency ... steps, without rank and trial
    keys = {recipe_key(t.steps) for t in r.ranked()}
    assert len(lines) == len(keys) < len(r.ranked())  # configs that give one schedule are one row
    assert any("same)" in line for line in lines) and designs


def fill_kernel(A: float32[16, 16]) -> float32[16, 16]:
    B: float32[16, 16] = 0.0
    for i, j in allo.grid(16, 16):
        B[i, j] += A[i, j] * 2.0
    return B


def test_fill_loops_are_rows_and_rows_add_up():
    s = allo.customize(fill_kernel)
    s.pipeline("j")
    r = qor.estimate(s)
    names = [row.name for row in r.loops]
    assert names[0] == "fill_B" and r.loops[0].trip_count == 256
    # the rows account for the latency but for the exit states and the function's overhead
    assert 0 <= r.latency_cycles - sum(row.latency for row in r.loops) <= 4
