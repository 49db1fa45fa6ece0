"""`s.config_op(op, impl)`: Vitis's `config_op` operator binding, chosen by the schedule. The QoR
estimate binds multipliers (and adders) the same way, per unrolled lane; run.tcl carries the
command; the computed values do not change."""
import numpy as np
import pytest

import allo
from allo import qor
from allo.errors import ScheduleError
from allo.ir.types import int8, int16, int32

LANES = 4


def _mm(T):
    def mm(A: T[8, 16], B: T[16, 8]) -> int32[8, 8]:
        C: int32[8, 8] = 0
        for i, j in allo.grid(8, 8):
            for k in allo.reduction(16):
                C[i, j] += A[i, k] * B[k, j]
        return C

    s = allo.customize(mm)
    s.split("k", LANES)
    s.pipeline("k.outer")
    s.partition(s.A, allo.Partition.Cyclic, dim=2, factor=LANES)
    s.partition(s.B, allo.Partition.Cyclic, dim=1, factor=LANES)
    return s


def _res(s):
    r = qor.estimate(s)
    return r.resources["DSP"], r.resources["LUT"], r


@pytest.mark.parametrize("T, narrow", [(int8, True), (int16, False)])
def test_binding_moves_multipliers_between_dsp_and_lut(T, narrow):
    base = _mm(T)
    dsp0, lut0, _ = _res(base)
    assert (dsp0 == 0) == narrow  # Vitis's width rule: an 8-bit operand -> LUTs, 16 bits -> a DSP per lane
    on_dsp, on_lut = _mm(T), _mm(T)
    on_dsp.config_op("mul", "dsp")
    on_lut.config_op("mul", "fabric")
    dsp_d, lut_d, _ = _res(on_dsp)
    dsp_f, lut_f, _ = _res(on_lut)
    assert dsp_d >= LANES and dsp_f == 0  # one multiplier per unrolled lane
    assert lut_f > lut_d
    if not narrow:
        assert dsp_d == dsp0 and lut_f > lut0


def test_config_op_in_run_tcl_and_results_unchanged():
    s = _mm(int8)
    s.config_op("mul", "dsp", latency=3)
    assert "config_op mul -impl dsp -latency 3" in s.build(target="vhls").tcl
    rng = np.random.default_rng(0)
    A, B = rng.integers(-8, 8, (8, 16)).astype(np.int8), rng.integers(-8, 8, (16, 8)).astype(np.int8)
    np.testing.assert_array_equal(s.build()(A, B), A.astype(np.int32) @ B.astype(np.int32))
    s.config_op("mul", "auto")
    assert "config_op" not in s.build(target="vhls").tcl


def test_latency_option_lengthens_the_iteration():
    fast, slow = _mm(int16), _mm(int16)
    slow.config_op("mul", "dsp", latency=4)
    f = qor.estimate(fast).loop("l_k_outer")
    g = qor.estimate(slow).loop("l_k_outer")
    assert g.iteration_latency > f.iteration_latency


def test_adder_on_dsp_counts_slices():
    s = _mm(int16)
    s.config_op("add", "dsp")
    assert _res(s)[0] > _res(_mm(int16))[0]


def test_bad_op_is_refused_and_schedule_unchanged():
    s = _mm(int8)
    before = dict(s.ir.meta)
    with pytest.raises(ScheduleError, match="config_op: argument 'op': expected one of mul, add, sub"):
        s.config_op("div", "dsp")
    with pytest.raises(ScheduleError, match="argument 'impl'"):
        s.config_op("mul", "uram")
    assert dict(s.ir.meta) == before
