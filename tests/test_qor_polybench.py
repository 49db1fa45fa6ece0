"""allo.qor against published Vitis HLS 2022.1 latencies: the 16 PolyBench designs of the Allo
PLDI'24 artifact (tests/qor), rebuilt with allo kernels and schedules, estimated at 3.33 ns on the
U280. Target: within 25% on at least 14 of the 16 designs, and per kernel the scheduled design
always ranks faster than the baseline. The designs themselves are checked numerically (LLVM vs
numpy at small sizes; csim == LLVM for the designs with FIFOs).
"""
import os
import shutil

import numpy as np
import pytest

from allo import qor
from tests.qor import baselines, designs, published

KERNELS = list(published.CYCLES)
# A published number the C++ that produced it cannot reach under any model of Vitis we know:
# atax (Allo): both stages run >= 3900 pipelined iterations at II=1 (4100 and 3900 in the
# artifact's own per-loop report of this C++), yet 3224 cycles were published. (syr2k's baseline,
# ~21 cycles per inner iteration, is now modelled: a sequential read and write of one m_axi
# array in a variable-bound loop are kept in order; syrk's baseline, held out, confirms it.)
KNOWN_DEVIATIONS = {("atax", "allo")}


@pytest.fixture(scope="module")
def estimates():
    out = {}
    for name in KERNELS:
        sizes = published.SIZES[name]
        d = designs.DESIGNS[name](**sizes)
        out[(name, "allo")] = qor.estimate(d.schedule, clock_ns=published.CLOCK_NS, part=published.PART,
                                           target=d.target)
        s, target, bundle = baselines.build(name, sizes)
        out[(name, "baseline")] = qor.estimate(s, clock_ns=published.CLOCK_NS, part=published.PART,
                                               target=target, bundle=bundle)
    return out


def _error(estimates, name, kind):
    pub = published.CYCLES[name][0 if kind == "allo" else 1]
    return (estimates[(name, kind)].latency_cycles - pub) / pub


def test_at_least_14_of_16_within_25_percent(estimates):
    errors = {(n, k): _error(estimates, n, k) for n in KERNELS for k in ("allo", "baseline")}
    within = [key for key, e in errors.items() if abs(e) <= 0.25]
    table = "\n".join(f"{n:12s} {k:8s} {100 * e:+7.1f}%" for (n, k), e in errors.items())
    assert len(within) >= 14, table
    assert set(errors) - set(within) <= KNOWN_DEVIATIONS, table


@pytest.mark.parametrize("name", KERNELS)
def test_ranking_per_kernel(estimates, name):
    assert estimates[(name, "allo")].latency_cycles < estimates[(name, "baseline")].latency_cycles


@pytest.mark.parametrize("key", [(n, k) for n in KERNELS for k in ("allo", "baseline")
                                 if (n, k) not in KNOWN_DEVIATIONS], ids=lambda k: f"{k[0]}-{k[1]}")
def test_within_25_percent(estimates, key):
    assert abs(_error(estimates, *key)) <= 0.25, str(estimates[key])


def test_known_deviations_are_what_the_cpp_implies(estimates):
    atax = estimates[("atax", "allo")]
    rows = {r.name: r for r in atax.rows()}
    assert rows["l_r_l_m"].trip_count == 4100 and rows["l_r_l_m"].ii == 1
    assert rows["l_k_l_n"].trip_count == 3900 and rows["l_k_l_n"].ii == 1
    assert atax.latency_cycles >= 4100 > published.CYCLES["atax"][0]
    syr2k = [r for r in estimates[("syr2k", "baseline")].rows() if r.name == "l_j"]
    assert all(r.pipelined and "variable-bound" in r.reason for r in syr2k)


def test_limits_the_model_explains(estimates):
    """Per-loop facts the reports show: what limits each II."""
    gemm_b = estimates[("gemm", "baseline")].loop("l_k_l_j")
    assert (gemm_b.trip_count, gemm_b.ii) == (52800, 3) and "m_axi bundle 'gmem'" in gemm_b.reason
    mm2 = estimates[("2mm", "baseline")].rows()
    assert any(r.ii == 7 and "register (promoted)" in r.reason for r in mm2)
    k0 = estimates[("gemm", "allo")].loop("l_k0")
    assert (k0.ii, k0.target_ii) == (4, 4)
    sum_loop = estimates[("syr2k", "allo")].loop("l_i1_l_k1")
    assert sum_loop.ii == 6 and "bram 'buffer'" in sum_loop.reason
    mm1 = estimates[("2mm", "allo")].loop("l_k0")
    assert "auto-partitioned" in mm1.reason and mm1.ii == 4


def test_atax_per_loop_against_the_2p5ns_report():
    """The artifact's per-loop csynth report of the atax design at 2.5 ns: trip counts and II
    exactly, iteration latencies and stage latencies close."""
    d = designs.DESIGNS["atax"](**published.SIZES["atax"])
    r = qor.estimate(d.schedule, clock_ns=2.5, part=published.PART, target=d.target)
    ours = {"l_r_l_m": "l_S_m_0_r_l_m", "l_k_l_n": "l_S_n_0_k_l_n"}
    for mine, theirs in ours.items():
        trip, it, ii, lat = published.ATAX_2P5NS_LOOPS[theirs]
        row = r.loop(mine)
        assert (row.trip_count, row.ii) == (trip, ii)
        assert abs(row.iteration_latency - it) <= 0.3 * it
        assert abs(row.latency - lat) <= 0.01 * lat
    top = published.ATAX_2P5NS_TOP
    assert abs(r.latency_cycles - top["latency"]) <= 0.01 * top["latency"]
    assert abs(r.resources["DSP"] - top["DSP"]) <= 0.25 * top["DSP"]


# ----------------------------------------------------------------------------- the designs compute
@pytest.mark.parametrize("name", KERNELS)
def test_design_matches_numpy_on_llvm(name):
    d = designs.DESIGNS[name](**designs.SMALL[name])
    args = d.make_inputs(np.random.default_rng(0))
    work = [a.copy() for a in args]
    got = d.outputs(d.schedule.build()(*work), work)
    want = d.reference(*[a.copy() for a in args])
    for k, (g, w) in enumerate(zip(got, want)):
        m = d.mask(k) if d.mask else np.ones(np.shape(w), bool)
        np.testing.assert_allclose(np.asarray(g)[m], np.asarray(w)[m], rtol=2e-4, atol=2e-4)


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed for HLS C simulation")
@pytest.mark.parametrize("name", ["2mm", "correlation"])
def test_stream_designs_csim_equals_llvm(name):
    d = designs.DESIGNS[name](**designs.SMALL[name])
    args = d.make_inputs(np.random.default_rng(1))
    a1, a2 = [a.copy() for a in args], [a.copy() for a in args]
    want = d.outputs(d.schedule.build()(*a1), a1)
    got = d.outputs(d.schedule.build(target=d.target, mode="csim")(*a2), a2)
    for k, (g, w) in enumerate(zip(got, want)):
        m = d.mask(k) if d.mask else np.ones(np.shape(w), bool)
        np.testing.assert_allclose(np.asarray(g)[m], np.asarray(w)[m], rtol=1e-5, atol=1e-5)


SMALL_BASE = {"2mm": dict(P=6, R=5, Q=7, S=4), "atax": dict(M=6, N=7), "gemm": dict(P=5, R=6, Q=7),
              "symm": dict(M=5, N=6), "syr2k": dict(M=5, N=6), "trmm": dict(M=5, N=6)}
OUTPUTS = {"gemm": [2], "2mm": [2, 6], "atax": [2, 3], "symm": [2], "syr2k": [2], "trmm": [2]}


FULL = os.environ.get("ALLO_QOR_FULL") == "1"  # every baseline (else three: the others are plain PolyBench)


@pytest.mark.parametrize("name", list(SMALL_BASE) if FULL else ["2mm", "symm", "trmm"])
def test_baseline_matches_numpy_on_llvm(name):
    import allo

    kernel, ref = baselines.FACTORIES[name](**SMALL_BASE[name])
    s = allo.customize(kernel)
    rng = np.random.default_rng(2)
    args = [rng.uniform(0.5, 1.5, size=p.shape).astype(np.float32) if p.shape else np.float32(1.3)
            for p in s.ir.func(s.top_func_name).params]
    want = ref(*[a.copy() for a in args])
    work = [a.copy() for a in args]
    s.build()(*work)
    for k, w in zip(OUTPUTS[name], want):
        np.testing.assert_allclose(work[k], w, rtol=2e-4, atol=2e-4)


# ----------------------------------------------------------------------------- integer forms (static RTL)
@pytest.mark.parametrize("name", KERNELS)
def test_int_design_matches_its_exact_reference_on_llvm(name):
    """The integer form of each design (T=int32, tests/qor/dtypes.py) computes its exact reference."""
    from allo.ir.types import int32

    d = designs.DESIGNS[name](**designs.INT_SMALL[name], T=int32)
    args = d.make_inputs(np.random.default_rng(0))
    work = [a.copy() for a in args]
    got = d.outputs(d.schedule.build()(*work), work)
    want = d.reference(*[a.copy() for a in args])
    for k, (g, w) in enumerate(zip(got, want)):
        m = d.mask(k) if d.mask else np.ones(np.shape(w), bool)
        assert np.asarray(g).dtype == np.int32
        np.testing.assert_array_equal(np.asarray(g)[m], np.asarray(w)[m])


@pytest.mark.parametrize("name", ["correlation", "jacobi-2d", "trmm"] if not FULL else KERNELS)
def test_int_baseline_matches_its_reference_on_llvm(name):
    import allo
    from allo.ir.types import int32

    sizes = baselines.INT_SMALL[name]
    kernel, ref = baselines.FACTORIES[name](**sizes, T=int32)
    s = allo.customize(kernel)
    params = s.ir.func(s.top_func_name).params
    args = baselines.int_args(name, sizes, params, np.random.default_rng(2))
    want = ref(*[a.copy() for a in args])
    work = [a.copy() for a in args]
    s.build()(*work)
    arrays = [w for w in work if isinstance(w, np.ndarray)]
    for w in want:  # each expected array is one of the updated arguments
        assert any(a.shape == np.shape(w) and np.array_equal(a, w) for a in arrays), name
