"""Multipliers by width (Vitis's binding rule: an operand of at most 10 bits -> LUT fabric, else
DSP48E2 tiles of 26x17) and joint budgets: an int8 design spends LUTs, not DSPs, so a LUT budget
binds it; an int16 design spends DSPs, so a DSP budget binds it."""
import numpy as np

import allo
from allo import dse, qor
from allo.ir.types import int8, int16, int32
from allo.qor.tables import tables_for


def test_multiplier_binding_by_width():
    t = tables_for(3.33)
    m8, m16, m32 = t.int_op("mul", 16, 8, 8), t.int_op("mul", 32, 16, 16), t.int_op("mul", 64, 32, 32)
    assert (m8.dsp, m16.dsp, m32.dsp) == (0, 1, 4)  # 32x32: ceil(32/26) x ceil(32/17) tiles
    assert m8.lut > 0 and m8.lut > m16.lut


def mm8(A: int8[8, 16], B: int8[16, 8]) -> int32[8, 8]:
    C: int32[8, 8] = 0
    for i, j in allo.grid(8, 8):
        for k in allo.reduction(16):
            C[i, j] += A[i, k] * B[k, j]
    return C


def mm16(A: int16[8, 16], B: int16[16, 8]) -> int32[8, 8]:
    C: int32[8, 8] = 0
    for i, j in allo.grid(8, 8):
        for k in allo.reduction(16):
            C[i, j] += A[i, k] * B[k, j]
    return C


def _search(kernel, budget):
    return dse.explore(kernel, budget=budget, trials=48, strategy="random", seed=0, executor="inline", verify=1)


def _lanes(kernel, u):
    s = allo.customize(kernel)
    s.pipeline("k")
    s.unroll("k", u)
    s.partition("A", allo.Partition.Cyclic, dim=2, factor=u)
    s.partition("B", allo.Partition.Cyclic, dim=1, factor=u)
    return qor.estimate(s)


def test_int8_lanes_cost_luts_and_a_lut_budget_binds():
    one, eight = _lanes(mm8, 1), _lanes(mm8, 8)
    assert one.resources["DSP"] == eight.resources["DSP"] == 0
    assert eight.resources["LUT"] > one.resources["LUT"]
    free = _search(mm8, {"DSP": 0}).best_trial  # a DSP budget of 0 does not bind int8 multipliers
    limit = (one.resources["LUT"] + free.resources["LUT"]) // 2
    bound = _search(mm8, {"DSP": 0, "LUT": limit}).best_trial
    assert bound.resources["LUT"] <= limit < free.resources["LUT"] and bound.latency > free.latency
    assert bound.verified and free.verified
    A, B = np.random.randint(-128, 128, (8, 16)).astype(np.int8), np.random.randint(-128, 128, (16, 8)).astype(np.int8)
    np.testing.assert_array_equal(bound.schedule.build()(A, B), A.astype(np.int32) @ B.astype(np.int32))


def test_int16_lanes_cost_dsps_and_a_dsp_budget_binds():
    one, eight = _lanes(mm16, 1), _lanes(mm16, 8)
    assert eight.resources["DSP"] >= 8 * one.resources["DSP"] > 0
    free = _search(mm16, None).best_trial
    bound = _search(mm16, {"DSP": 2}).best_trial
    assert bound.dsp <= 2 < free.dsp and bound.latency > free.latency and bound.verified
