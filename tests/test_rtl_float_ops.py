"""Float `//`, `%`, floor, ceil, `**` / pow and log2 through the static RTL against the LLVM
default build: bit for bit where LLVM uses exact operations (// is floor of the quotient, % is
fmod with numpy's sign fix-up, floor, ceil), within the bounds of docs/rtl.md where the LLVM build
calls libm (log2f, powf); every special (zeros, infinities, NaNs, negative bases) bit for bit."""
from __future__ import annotations

import numpy as np
import pytest

import allo
from allo.backend.rtl.static.float import checks, math_checks
from allo.ir.types import float32
from tests.rtl_util import full_only, needs_rtl, run_both

pytestmark = needs_rtl
N = 64


def exact_ops(A: float32[64], B: float32[64]) -> (float32[64], float32[64], float32[64], float32[64]):
    Q: float32[64] = 0.0
    R: float32[64] = 0.0
    F: float32[64] = 0.0
    C: float32[64] = 0.0
    for i in range(64):
        Q[i] = A[i] // B[i]
        R[i] = A[i] % B[i]
        F[i] = allo.floor(A[i] * 0.75)
        C[i] = allo.ceil(B[i]) - allo.floor(-A[i])
    return Q, R, F, C


def _operands(rng):
    sp = np.array(checks.SPECIAL_BITS, dtype=np.uint32).view(np.float32)
    a = (rng.standard_normal(N) * 20).astype(np.float32)
    b = (rng.standard_normal(N) * 3).astype(np.float32)
    a[:len(sp)], b[:len(sp)] = sp, np.roll(sp, 7)
    a[-6:], b[-6:] = [7.0, -7.0, 7.0, -7.0, 1e30, 5e-39], [2.0, 2.0, -2.0, -2.0, 3e-3, 1e-40]
    return a, b


def test_floordiv_mod_floor_ceil_equal_llvm_bit_for_bit():
    a, b = _operands(np.random.default_rng(1))
    _, got, want = run_both(allo.customize(exact_ops), [a, b])
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_array_equal(g.view(np.uint32), w.view(np.uint32), err_msg=f"result {k}")
    np.testing.assert_array_equal(got[1][-6:-2], np.float32([1.0, 1.0, -1.0, -1.0]))  # numpy's floor modulo


def powers(A: float32[64], B: float32[64]) -> (float32[64], float32[64]):
    P: float32[64] = 0.0
    L: float32[64] = 0.0
    for i in range(64):
        P[i] = A[i] ** B[i] - A[i] ** 2  # a literal 2 multiplies out, B[i] is pow
        L[i] = allo.log2(A[i])
    return P, L


def _pow_bound(a, b):
    """3 + |b| ulp (docs/rtl.md): b log2(m) is rounded to float32 (m the significand of a)."""
    with np.errstate(invalid="ignore"):  # signalling NaNs
        return 3 + np.abs(np.nan_to_num(b.astype(np.float64), posinf=0, neginf=0))


def _special_inputs(a, b):
    """Operands whose pow is defined case by case (C99 / glibc): zeros, infinities, NaNs, +-1."""
    return ~np.isfinite(a) | ~np.isfinite(b) | (a == 0) | (b == 0) | (np.abs(a) == 1)


def _assert_pow(got, want, a, b):
    sp = _special_inputs(a, b) | np.isnan(want)
    np.testing.assert_array_equal(got[sp].view(np.uint32), want[sp].view(np.uint32), err_msg="pow specials")
    d, lim = math_checks.ulp_distance(got, want), _pow_bound(a, b)
    assert (d <= lim).all(), (a[d > lim], b[d > lim], got[d > lim], want[d > lim])


def test_pow_and_log2_within_bound_of_llvm_specials_exact():
    rng = np.random.default_rng(2)
    a, b = _operands(rng)
    a[16:40] = np.abs(a[16:40])  # mostly defined powers
    b[40:48] = [3.0, -3.0, 2.0, 1.0, -1.0, 0.5, 1e10, -1e10]  # odd / even integers, huge exponents
    _, (P, L), (wp, wl) = run_both(allo.customize(powers), [a, b])
    sp = _special_inputs(a, b) | ~np.isfinite(wp)
    np.testing.assert_array_equal(P[sp].view(np.uint32), wp[sp].view(np.uint32), err_msg="pow specials")
    with np.errstate(all="ignore"):  # a ** b - a * a: the bound on a ** b, absolute
        ok = np.abs(P - wp) <= np.spacing(np.abs(wp) + a * a) * (_pow_bound(a, b) + 1)
    assert (ok | sp).all(), (a[~ok], b[~ok], P[~ok], wp[~ok])
    sp = ~np.isfinite(a) | (a <= 0)
    np.testing.assert_array_equal(L[sp].view(np.uint32), wl[sp].view(np.uint32), err_msg="log2 specials")
    assert math_checks.ulp_distance(L, wl).max() <= math_checks.BOUNDS["log2"][1]


def trig(A: float32[64]) -> (float32[64], float32[64]):
    S: float32[64] = 0.0
    C: float32[64] = 0.0
    for i in range(64):
        S[i] = allo.sin(A[i])
        C[i] = allo.cos(A[i])
    return S, C


def test_sin_cos_within_bound_of_llvm_specials_exact():
    """Payne-Hanek reduction, so huge arguments stay within the bound too."""
    rng = np.random.default_rng(4)
    a = np.concatenate([rng.uniform(-10, 10, 40), np.exp(rng.uniform(0, 80, 10)) * rng.choice([-1, 1], 10),
                        [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, 0.7853982, np.pi / 2, np.pi, 3e38,
                         -3e38, 1e-20, 355.0, 102.0]]).astype(np.float32)
    _, (S, C), (ws, wc) = run_both(allo.customize(trig), [a])
    for name, g, w in [("sin", S, ws), ("cos", C, wc)]:
        sp = ~np.isfinite(a) | (a == 0)
        np.testing.assert_array_equal(g[sp].view(np.uint32), w[sp].view(np.uint32), err_msg=f"{name} specials")
        assert math_checks.ulp_distance(g, w).max() <= math_checks.BOUNDS[name][1], name


def pow_grid(A: float32[2025], B: float32[2025]) -> float32[2025]:
    P: float32[2025] = 0.0
    for i in range(2025):
        P[i] = A[i] ** B[i]
    return P


def test_pow_special_grid_equals_llvm_bit_for_bit():
    """Every pair of the special bit patterns (signalling and quiet NaNs of both signs, zeros,
    subnormals, +-1, infinities, odd / even integers): the LLVM build's powf is the reference."""
    sp = np.array(checks.SPECIAL_BITS, dtype=np.uint32)
    ga, gb = np.meshgrid(sp, sp)
    a, b = ga.ravel().view(np.float32), gb.ravel().view(np.float32)
    _, got, want = run_both(allo.customize(pow_grid), [a, b])
    _assert_pow(got, want, a, b)
    assert _special_inputs(a, b).sum() > 500 and np.isnan(want).sum() > 300


def pow_vec(A: float32[20000], B: float32[20000]) -> float32[20000]:
    P: float32[20000] = 0.0
    for i in range(20000):
        P[i] = allo.pow(A[i], B[i])
    return P


def test_pow_unit_sweep_within_bound_of_llvm():
    """f32_pow alone in the Verilator bench on 20,000 pairs (bases across the whole range and near 1,
    exponents up to +-100) against the LLVM build's powf."""
    from allo.backend.rtl.static.exprs import ExprEmitter
    from allo.backend.rtl.static.float import bench
    from allo.ir import nodes as IR
    from allo.ir.ops import MathFn
    rng = np.random.default_rng(3)
    k = 5000
    f32 = np.float32
    a = np.concatenate([np.exp(rng.uniform(-80, 80, k)).astype(f32), rng.uniform(0.3, 3, k).astype(f32),
                        -np.exp(rng.uniform(-5, 5, k)).astype(f32),
                        rng.integers(0, 2 ** 32, k, dtype=np.uint64).astype(np.uint32).view(f32)])  # bits kept
    b = np.concatenate([rng.standard_normal(k) * 3, rng.uniform(-100, 100, k), np.round(rng.uniform(-9, 9, k)),
                        rng.standard_normal(k) * 2]).astype(f32)
    em = ExprEmitter()
    node = IR.MathCall(MathFn.POW, [checks._leaf(checks.F32), checks._leaf(checks.F32)], checks.F32)
    exe = bench.build_bench({"pow": (em.emit(node, ["a", "b"]), 32)}, em.functions() + em.instances(), opt="-O0",
                            modules=em.modules())
    got = bench.run_bench(exe, ["pow"], a.view(np.uint32), b.view(np.uint32), np.zeros(len(a), dtype=np.uint64))
    got = (got["pow"] & np.uint64(0xffffffff)).astype(np.uint32).view(np.float32)
    want = allo.customize(pow_vec).build()(a, b)
    _assert_pow(got, want, a, b)
    assert np.isfinite(want).sum() > 15000 and (np.isnan(want) & (a < 0)).sum() > 1000


def floor_only(A: float32[4]) -> float32[4]:
    B: float32[4] = 0.0
    for i in range(4):
        B[i] = allo.floor(A[i]) + allo.ceil(A[i])
    return B


@full_only("Yosys synthesis of the floor / ceil unit; set ALLO_RTL_FULL=1")
def test_rounding_unit_synthesises():
    rep = allo.customize(floor_only).build(target="rtl").synth(part="xc7")
    assert rep.luts > 100 and rep.ffs > 32, rep
