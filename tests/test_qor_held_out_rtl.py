"""The QoR estimate against the static RTL circuit on schedules of other PolyBench kernels
(tests/qor/held_out_kernels.py, integer form, small sizes): LLVM and the circuit computed against
numpy first, then the estimate within 15% of the simulated cycles."""
import numpy as np
import pytest

from allo import qor
from tests.qor.held_out_kernels import KERNELS

TOL = 0.15


@pytest.mark.parametrize("name", list(KERNELS))
def test_estimate_within_15_percent_of_the_circuit(name):
    s, ref, outs = KERNELS[name]()
    rng = np.random.default_rng(0)
    params = s.ir.func(s.ir.top).params
    args = [rng.integers(-8, 9, size=p.shape).astype(np.int32) for p in params]
    want = ref(*[a.copy() for a in args])
    on_llvm, on_rtl = [a.copy() for a in args], [a.copy() for a in args]
    s.build()(*on_llvm)
    mod = s.build(target="rtl")
    mod(*on_rtl)
    for k, w in zip(outs, want):
        np.testing.assert_array_equal(on_llvm[k], w)
        np.testing.assert_array_equal(on_rtl[k], w)
    est = qor.estimate(s, clock_ns=3.33, part="xcu280", target="vhls").latency_cycles
    assert abs(est - mod.cycles) <= TOL * mod.cycles, f"{name}: estimate {est}, circuit {mod.cycles}"
