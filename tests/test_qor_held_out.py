"""allo.qor on PolyBench designs it was not tuned on (tests/qor/held_out.py, baselines.HELD_OUT):
the other kernels of the Allo PLDI'24 artifact, Allo-scheduled and plain C, against their
published Vitis HLS 2022.1 latencies. Each estimate must stay within 15%; each design is checked
numerically against numpy on LLVM at a small size, so the estimate is of a design that computes
the kernel.
"""
import allo
import numpy as np
import pytest

from allo import qor
from allo.ir.types import int32
from tests.qor import baselines, held_out, published

TOL = 0.15
# 3mm (Allo): the artifact's C++ streams mm3's out_CD (`#pragma HLS stream`) although mm3 reads it
# once per row, so Vitis estimated an overlap the circuit cannot have (it failed RTL co-simulation in
# Stream-HLS's table, streamhls_compare.csv); `s.to` refuses that stream, and the ping-pong design
# built here waits for mm2 (>= 46,215 copy-in + 169,779 mm2 + 139,145 mm3). Checked against the
# static RTL circuit below instead.
KNOWN_DEVIATIONS = {"3mm"}
ALLO = [k for k in held_out.DESIGNS if held_out.CYCLES[k][0] is not None and k not in KNOWN_DEVIATIONS]
BASE = list(baselines.HELD_OUT)


def _err(est, pub):
    return (est - pub) / pub


@pytest.mark.parametrize("name", ALLO)
def test_allo_schedule_within_15_percent(name):
    d = held_out.DESIGNS[name](**held_out.SIZES[name])
    r = qor.estimate(d.schedule, clock_ns=published.CLOCK_NS, part=published.PART, target=d.target)
    pub = held_out.CYCLES[name][0]
    assert abs(_err(r.latency_cycles, pub)) <= TOL, f"{name}: {r.latency_cycles} vs {pub}\n{r}"


@pytest.mark.parametrize("name", BASE)
def test_baseline_within_15_percent(name):
    kernel, _ = baselines.HELD_OUT[name](**held_out.SIZES[name])
    r = qor.estimate(allo.customize(kernel), clock_ns=published.CLOCK_NS, part=published.PART,
                     target=baselines.TARGET, bundle=baselines.BUNDLE)
    pub = held_out.CYCLES[name][1]
    assert abs(_err(r.latency_cycles, pub)) <= TOL, f"{name}: {r.latency_cycles} vs {pub}\n{r}"


def test_3mm_deviation_is_what_the_channels_imply():
    d = held_out.k3mm(**held_out.SIZES["3mm"])
    r = qor.estimate(d.schedule, clock_ns=published.CLOCK_NS, part=published.PART, target=d.target)
    mm2, mm3 = r.loop("mm2"), r.loop("mm3")
    assert r.latency_cycles >= mm2.latency + mm3.latency > held_out.CYCLES["3mm"][0]


def test_variable_bound_sequential_rmw_on_m_axi_is_ordered():
    """syrk's baseline: the triangular j loop reads and writes C[i][j] on m_axi; Vitis orders each
    read after the previous write (II = read-to-write path + 2); the same body with a constant
    bound runs at its port II, and a row stride (symm) is not affected."""
    kernel, _ = baselines.syrk(M=200, N=240)
    r = qor.estimate(allo.customize(kernel), clock_ns=3.33, part=published.PART, target="vitis_hls")
    inner = [row for row in r.rows() if row.name == "l_j" and row.pipelined]
    assert len(inner) == 2 and all("variable-bound" in row.reason for row in inner)
    assert max(row.ii for row in inner) >= 15
    kernel, _ = baselines.gemm(P=200, R=220, Q=240)
    g = qor.estimate(allo.customize(kernel), clock_ns=3.33, part=published.PART, target="vitis_hls")
    assert g.loop("l_k_l_j").ii == 3
    kernel, _ = baselines.symm(M=200, N=240)
    s = qor.estimate(allo.customize(kernel), clock_ns=3.33, part=published.PART, target="vitis_hls")
    assert "variable-bound" not in s.loop("l_k").reason


@pytest.mark.parametrize("name", list(held_out.DESIGNS))
def test_held_out_design_computes_the_kernel(name):
    d = held_out.DESIGNS[name](**held_out.SMALL[name])
    mod = d.schedule.build()
    args = d.make_inputs(np.random.default_rng(0))
    out = mod(*args)
    for got, want in zip(d.outputs(out, args), d.reference(*args)):
        if d.mask is not None:
            m = d.mask(0)
            got, want = got[m], want[m]
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", BASE)
def test_held_out_baseline_computes_the_kernel(name):
    small = {"3mm": dict(NI=3, NJ=4, NK=5, NL=6, NM=7), "bicg": dict(M=5, N=6), "gesummv": dict(N=5),
             "mvt": dict(N=5), "syrk": dict(M=4, N=6)}[name]
    kernel, ref = baselines.HELD_OUT[name](**small)
    s = allo.customize(kernel)
    mod = s.build()
    rng = np.random.default_rng(1)
    params = s.ir.func(s.ir.top).params
    args = [rng.standard_normal(p.shape).astype(np.float32) if p.shape else np.float32(1.5) for p in params]
    want = ref(*[a.copy() if hasattr(a, "copy") else a for a in args])
    mod(*args)
    arrays = [a for a, p in zip(args, params) if p.shape]
    written = {"3mm": (0, 3, 6), "bicg": (1, 2), "gesummv": (2, 4), "mvt": (0, 1), "syrk": (0,)}[name]
    for k, w in zip(written, want):
        np.testing.assert_allclose(arrays[k], w, rtol=1e-3, atol=1e-3)


# The static RTL circuit (docs/rtl.md) at small integer sizes: cycles simulated, results checked
# exact against numpy first. Designs whose schedule the circuit implements as Vitis does (bicg's
# fully partitioned top-level arrays stay memory ports in the circuit: docs/qor.md).
RTL_SIZES = {"syrk": {"M": 8, "N": 12}, "mvt": {"N": 32}, "3mm": dict(NI=8, NJ=8, NK=8, NL=8, NM=8),
             "gesummv": {"N": 32}}  # gesummv: y_init's fill loop (not pipelined at 32) paces its reader


@pytest.mark.parametrize("name", list(RTL_SIZES))
def test_estimate_within_15_percent_of_rtl_simulation(name):
    d = held_out.DESIGNS[name](**RTL_SIZES[name], T=int32)
    mod = d.schedule.build(target="rtl")
    args = d.make_inputs(np.random.default_rng(0))
    out = mod(*args)
    for got, want in zip(d.outputs(out, args), d.reference(*args)):
        m = d.mask(0) if d.mask is not None else slice(None)
        np.testing.assert_array_equal(got[m], want[m])
    r = qor.estimate(d.schedule, clock_ns=3.33, part=published.PART, target=d.target)
    assert abs(_err(r.latency_cycles, mod.cycles)) <= TOL, f"{name}: estimate {r.latency_cycles}, RTL {mod.cycles}"
