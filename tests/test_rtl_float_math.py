"""The float32 math units (f32_exp, f32_log, f32_log2, f32_trig (sin, cos), f32_tanh, f32_sigmoid,
f32_rsqrt, f32_erf: fixed sequences of the basic float32 units) through Verilator, against the correctly rounded value and this machine's
libm (what the LLVM build calls), within the ulp bounds docs/rtl.md states, specials exact; and
softmax / sigmoid / tanh / gelu / layer_norm kernels through the static RTL against the LLVM build.
Reduced sweep by default; ALLO_RTL_FULL=1 (or benchmarks/bench_float_math.py) runs a
million inputs.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

import allo
from allo.backend.rtl.static.exprs import ExprEmitter
from allo.backend.rtl.static.float import bench, math_checks
from allo.ir.types import float32
from allo.library import nn
from tests.rtl_util import FULL, assert_bit_exact, full_only, needs_rtl, run_both

pytestmark = needs_rtl
N = 1_000_000 if FULL else 30_000
CASES = math_checks.math_cases()


@pytest.fixture(scope="module")
def sweep():
    outs, text, mods = math_checks.bench_outputs(CASES, ExprEmitter())
    exe = bench.build_bench(outs, text, opt="-O2" if FULL else "-O0", modules=mods)  # -O0: 5 s to build, not 50
    a = math_checks.math_operands(N, seed=2025)
    got = bench.run_bench(exe, list(outs), a, a, np.zeros(len(a), dtype=np.uint64))
    return got, a, math_checks.worst(got, CASES, a, libm_n=N)


@pytest.mark.parametrize("name", list(CASES))
def test_math_unit_within_its_ulp_bound(sweep, name):
    _, _, worst = sweep
    cr, libm, special = worst[name]
    bound_cr, bound_libm = math_checks.BOUNDS[name]
    assert cr <= bound_cr, f"{name}: {cr} ulp from the correctly rounded value (bound {bound_cr})"
    assert libm <= bound_libm, f"{name}: {libm} ulp from libm (bound {bound_libm})"
    assert special == 0, f"{name}: {special} zero / inf / NaN results differ from libm"


def test_sweep_reaches_overflow_underflow_and_subnormal_exp(sweep):
    got, a, _ = sweep
    e = (got["exp"] & np.uint64(0xffffffff)).astype(np.uint32).view(np.float32)
    fin = np.isfinite(a.view(np.float32))
    assert (e[fin] == np.inf).sum() >= 10 and (e[fin] == 0).sum() >= 10
    sub = (e > 0) & (e < np.float32(1.1754944e-38))
    assert sub.sum() >= 20, int(sub.sum())


def test_ulp_distance_counts_adjacent_floats_and_nan():
    x = np.array([1.0, -0.0, np.nan, 2.0], dtype=np.float32)
    y = np.array([np.nextafter(np.float32(1), np.float32(2)), 0.0, np.nan, np.nan], dtype=np.float32)
    assert math_checks.ulp_distance(x, y).tolist() == [1, 0, 0, 2 ** 32]


def _ulps(got, want):
    return int(math_checks.ulp_distance(np.asarray(got).ravel(), np.asarray(want).ravel()).max())


def test_softmax_kernel_within_bound_of_llvm():
    rng = np.random.default_rng(5)
    X = (rng.standard_normal((4, 16)) * 4).astype(np.float32)
    X[0, :3] = [-100.0, 80.0, 0.0]  # an exp that underflows next to a large one
    s = allo.customize(nn.softmax[float32, 4, 16])
    _, got, want = run_both(s, [X])
    assert _ulps(got, want) <= math_checks.KERNEL_BOUNDS["softmax"]


@pytest.mark.parametrize("act", ["sigmoid", "tanh"])
def test_activation_kernel_within_bound_of_llvm(act):
    rng = np.random.default_rng(6)
    X = (rng.standard_normal((4, 16)) * 5).astype(np.float32)
    X[0, :6] = [0.0, -0.0, np.inf, -np.inf, 100.0, -100.0]
    s = allo.customize(getattr(nn, act)[float32, 4, 16])
    _, got, want = run_both(s, [X])
    assert _ulps(got, want) <= math_checks.BOUNDS[act][1]


def test_layer_norm_kernel_equals_llvm_bit_for_bit():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((4, 16)).astype(np.float32)
    g, b = rng.standard_normal(16).astype(np.float32), rng.standard_normal(16).astype(np.float32)
    s = allo.customize(nn.layer_norm[float32, 4, 16])
    _, got, want = run_both(s, [X, g, b, 1e-5])
    assert_bit_exact(got, want, "layer_norm")


def test_gelu_kernel_within_absolute_bound_of_llvm():
    """1 + erf(x / sqrt 2) cancels for negative x, so erf's 1 ulp (2^-24 near -1) is carried in
    absolute terms: |RTL - LLVM| <= 2^-23 |x| plus one ulp of the result."""
    rng = np.random.default_rng(8)
    X = (rng.standard_normal((4, 16)) * 3).astype(np.float32)
    X[0, :4] = [0.0, -0.0, 6.0, -6.0]
    s = allo.customize(nn.gelu[float32, 4, 16])
    _, got, want = run_both(s, [X])
    d = np.abs(got.astype(np.float64) - want.astype(np.float64))
    lim = 2.0 ** -23 * np.abs(X) + np.spacing(np.abs(want))
    assert (d <= lim).all(), float((d / lim).max())
    assert _ulps(got[X > 0], want[X > 0]) <= 4  # no cancellation: a relative bound


def exp_kernel(A: float32[4]) -> float32[4]:
    C: float32[4] = 0.0
    for i in range(4):
        C[i] = allo.exp(A[i])
    return C


def test_math_unit_takes_the_table_latency():
    """The scheduler registers exp for allo.qor's fexp latency (Tables.float_op(math_kind("exp")))."""
    mod = allo.customize(exp_kernel).build(target="rtl")
    t = mod.design.tables
    fexp = t.float_op(t.math_kind("exp"), 32)
    regs = {m for m in re.findall(r"(u\d+_n\d+)_p(\d+);", mod.verilog)}
    assert max(int(k) for _, k in regs) == fexp.latency + 1 and fexp.latency >= 10, fexp
    assert re.search(r"allo_f32_exp_m allo_fu\d+_i\(", mod.verilog)  # one instance of the exp module


@full_only("Yosys synthesis of an exp kernel (about 2 minutes); set ALLO_RTL_FULL=1")
def test_exp_kernel_synthesises_hierarchically():
    """exp is ~20 float adds and multiplies: synthesised as a hierarchy of unit modules it finishes
    (inlined into one cone it did not, in 25 minutes), and counts the whole design: exp's 10
    multiplies take DSPs, its 17 adds hundreds of LUTs each, the table's latency registers (FFs or
    SRL shift registers)."""
    mod = allo.customize(exp_kernel).build(target="rtl")
    rep = mod.synth(part="xc7")
    assert rep.dsps >= 10 and rep.luts > 17 * 300 and rep.ffs + rep.lutrams > 32, rep
    assert rep.logic_levels is not None and rep.logic_levels > 100, rep  # the unit is combinational
