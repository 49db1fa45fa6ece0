"""Lane factors that do not divide the extent (issue 26: atax's 390 x 410 stops at 20 lanes per
nest with divisors; 22 fit in 220 DSP): `split` guards the tail, `reduce_tree` sums the missing
lanes as 0 (their reads stay under the guard), `nest_lanes_space(tails=True)` offers such factors.
Checked on LLVM, by the estimator and on the static RTL circuit."""
import numpy as np
import pytest

import allo
from allo import dse, qor
from allo.ir.types import float32, int32


def mv(A: float32[6, 10], x: float32[10]) -> float32[6]:
    y: float32[6]
    for i0 in range(6):
        y[i0] = 0.0
    for j, i in allo.grid(10, 6):
        y[i] += A[i, j] * x[j]
    return y


def mv_int(A: int32[5, 7], x: int32[7]) -> int32[5]:
    y: int32[5] = 0
    for i, j in allo.grid(5, 7):
        y[i] += A[i, j] * x[j]
    return y


def _tail_tree(b):
    s = allo.customize(mv)
    s.split("j", b)  # 10 = 4 + 4 + 2: the last block has 2 lanes past the extent
    s.reorder("j.outer", "i", "j.inner")
    s.reduce_tree("j.inner")
    s.unroll("j.inner")
    s.pipeline("i")
    s.partition("A", "cyclic", dim=2, factor=b)
    s.partition("x", "cyclic", dim=1, factor=b)
    return s


@pytest.mark.parametrize("b", [3, 4, 7])
def test_tree_over_a_guarded_tail_is_close_and_faster_than_fewer_lanes(b):
    rng = np.random.default_rng(b)
    A, x = rng.uniform(-1, 1, (6, 10)).astype(np.float32), rng.uniform(-1, 1, 10).astype(np.float32)
    s = _tail_tree(b)
    np.testing.assert_allclose(s.build()(A, x), A.astype(np.float64) @ x, rtol=1e-5, atol=1e-6)
    # the lanes past the extent read nothing: their loads stay under the tail's guard
    text = str(s.module)
    assert "arith.cmpi" in text and "scf.if" in text
    est = qor.estimate(s)
    assert est.loops[-1].ii == 1 and est.loops[-1].trip_count == 6 * -(-10 // b)
    assert est.latency_cycles < qor.estimate(_tail_tree(2)).latency_cycles


def test_tree_over_a_guarded_tail_on_the_circuit():
    s = allo.customize(mv_int)
    s.split("j", 3)  # 7 = 3 + 3 + 1
    s.reduce_tree("j.inner")
    s.unroll("j.inner")
    s.pipeline("j.outer")
    s.partition("A", "cyclic", dim=2, factor=3)
    s.partition("x", "cyclic", dim=1, factor=3)
    rng = np.random.default_rng(0)
    A, x = rng.integers(-9, 9, (5, 7)).astype(np.int32), rng.integers(-9, 9, 7).astype(np.int32)
    np.testing.assert_array_equal(s.build()(A, x), A @ x)
    mod = s.build(target="rtl")
    np.testing.assert_array_equal(mod(A, x), A @ x)
    est = qor.estimate(s).latency_cycles
    assert abs(mod.cycles - est) <= 0.15 * est, (mod.cycles, est)


def test_reduce_tree_refuses_a_guarded_body_that_does_not_only_accumulate():
    def k(A: float32[4, 10], B: float32[4, 10]) -> float32[4]:
        y: float32[4] = 0.0
        for i, j in allo.grid(4, 10):
            y[i] += A[i, j]
            B[i, j] = 1.0
        return y
    s = allo.customize(k)
    s.split("j", 4)
    before = str(s.module)
    with pytest.raises(allo.AlloError, match="reduce_tree: argument 'axis'.*every statement must accumulate"):
        s.reduce_tree("j.inner")
    assert str(s.module) == before


def mv41(A: float32[6, 41], x: float32[41]) -> float32[6]:
    y: float32[6]
    for i0 in range(6):
        y[i0] = 0.0
    for j, i in allo.grid(41, 6):
        y[i] += A[i, j] * x[j]
    return y


def test_nest_lanes_space_tails_offers_non_divisors_and_finds_a_faster_design():
    nests = [{"order": ("i0",), "split": {"i0": ("a", 6)}},
             {"order": ("j", "i"), "split": {"i": ("a", 6), "j": ("b", 41)}, "reduce": "j",
              "partitions": [("y", 1, "i"), ("A", 1, "i"), ("A", 2, "j"), ("x", 1, "j")]}]
    plain = dse.nest_lanes_space(nests, max_factor=10)
    tails = dse.nest_lanes_space(nests, max_factor=10, tails=True)
    b_plain = next(p for p in plain.params if p.name == "b").options
    b_tails = next(p for p in tails.params if p.name == "b").options
    assert list(b_plain) == [1]  # 41 is prime
    # 2, 3, 6, 7 leave one slot of 42 idle (<= 5%) with fewer blocks than any smaller factor;
    # 4, 5, 8, 9, 10 waste more
    assert list(b_tails) == [1, 2, 3, 6, 7]
    assert next(p for p in tails.params if p.name == "a").options == (1, 2, 3, 6)  # 6 divides: unchanged
    best = {}
    for name, space in (("plain", plain), ("tails", tails)):
        r = dse.explore(mv41, space=space, budget={"DSP": 20}, strategy="grid", trials=space.size, executor="inline",
                        verify=1)
        best[name] = r.best_trial
        assert r.best_trial.verified is True and r.best_trial.dsp <= 20
    assert best["tails"].latency < best["plain"].latency
    assert best["tails"].config["b"] > 1
