"""The cap on unrolling in "llvm" mode (allo.render.unroll): nested unrolls multiply, so one nest
expands to about MAX_TOTAL_UNROLL statement copies at most; beyond it the outer unrolled loops
unroll partially or stay loops (unroll is a hint on the CPU: results are the same)."""
import time

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import allo
from allo.ir.types import float32, int32
from allo.render import MAX_TOTAL_UNROLL, render_module
from allo.render.unroll import plan_unroll, unroll_cost
from allo.ir.loops import find_loop

M, K, L = 64, 48, 40  # 64 x 48 x 40 lanes = 122,880 statement copies if every loop were unrolled


def lanes(A: float32[M, K], B: float32[K, L]) -> float32[M, L]:
    C: float32[M, L] = 0.0
    for i, j, k in allo.grid(M, L, K):
        C[i, j] += A[i, k] * B[k, j]
    return C


def _all_unrolled():
    s = allo.customize(lanes)
    for name in ("i", "j", "k"):
        s.unroll(name)
    return s


def test_nested_unrolls_beyond_the_cap_build_quickly_and_equal_numpy():
    s = _all_unrolled()
    f = s.ir.func(s.ir.top)
    assert unroll_cost(f.body) > 100 * MAX_TOTAL_UNROLL  # what an uncapped expansion would render
    t0 = time.perf_counter()
    text = render_module(s.ir, "llvm")
    mod = s.build()
    assert time.perf_counter() - t0 < 60  # uncapped: minutes (122,880 copies of the body)
    assert text.count("arith.mulf") <= MAX_TOTAL_UNROLL  # copies of the one multiply
    assert "affine.for" in text  # the outer unrolled loops stayed loops
    rng = np.random.default_rng(0)
    a, b = rng.random((M, K), dtype=np.float32), rng.random((K, L), dtype=np.float32)
    np.testing.assert_allclose(mod(a, b), a @ b, rtol=1e-5)


def test_inner_loop_keeps_its_full_unroll_and_the_outer_one_unrolls_partially():
    s = _all_unrolled()
    f = s.ir.func(s.ir.top)
    k = find_loop(f, "k")
    assert plan_unroll(k)[0] == K  # the innermost loop fits: fully unrolled
    j = find_loop(f, "j")
    factor, inner = plan_unroll(j)
    assert 1 < factor < L and factor * K <= MAX_TOTAL_UNROLL and inner >= K
    i = find_loop(f, "i")
    assert plan_unroll(i)[0] == 1  # its body alone (j fully unrolled) is over the cap: kept as a loop


def test_within_the_cap_unrolls_fully_as_before():
    def small(A: int32[8, 4]) -> int32[8, 4]:
        B: int32[8, 4] = 0
        for i, j in allo.grid(8, 4):
            B[i, j] = A[i, j] * 3 + j
        return B

    s = allo.customize(small)
    s.unroll("i")
    s.unroll("j")
    text = render_module(s.ir, "llvm")
    assert 'loop_name = "i"' not in text and 'loop_name = "j"' not in text  # 32 copies, no loop left
    assert text.count("arith.muli") == 32
    a = np.arange(32, dtype=np.int32).reshape(8, 4)
    np.testing.assert_array_equal(s.build()(a), a * 3 + np.arange(4, dtype=np.int32))


@settings(max_examples=5, deadline=None)
@given(n=st.integers(1, 70), m=st.integers(1, 40), f_outer=st.sampled_from([0, 3, 16]), f_inner=st.sampled_from([0, 5]))
def test_capped_unroll_factors_keep_results(n, m, f_outer, f_inner):
    """Any mix of factors and extents (remainder loops included) computes what numpy does."""
    def k2(A: float32[70, 40]) -> float32[70]:
        y: float32[70] = 0.0
        for i, j in allo.grid(70, 40):
            y[i] += A[i, j] * 2.0
        return y

    s = allo.customize(k2)
    s.split("i", n) if 1 < n < 70 else None
    outer = "i.inner" if 1 < n < 70 else "i"
    s.unroll(outer, f_outer)
    s.unroll("j", f_inner)
    a = np.random.default_rng(n * 41 + m).random((70, 40), dtype=np.float32)
    np.testing.assert_allclose(s.build()(a), (a * 2.0).sum(axis=1), rtol=1e-5)
