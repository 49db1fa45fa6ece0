"""The DSE's lane designs on the static RTL circuit agree with the estimate (issue 26: "the best
designs at reduced sizes simulated to confirm the estimate"; benchmarks/bench_dse_rtl.py has the
seven kernels). Two shapes the circuit used to get wrong:
- all rows and columns as lanes (ui = P, uj = R): the outer loops of the split have one trip, so
  each lane's accumulator element is fixed; the circuit muxed every register for every lane (each
  lane waiting for all others: II 96 for a 4 x 6 local) or read C back from memory (II 6);
- `y[i] += ...` over (i, j.outer): an element is never revisited, so its register path is enough
  (the circuit asked for II 2 in case it came back)."""
import numpy as np

import allo
from allo import dse, qor
from allo.ir.types import float32, int32

P, R, Q = 4, 6, 8


def gemm(A: float32[P, Q], B: float32[Q, R], C: float32[P, R]):
    for k, i, j in allo.grid(Q, P, R):
        C[i, j] += A[i, k] * B[k, j]


def mm_local(A: float32[P, Q], B: float32[Q, R]) -> float32[P, R]:
    T: float32[P, R]  # a local (registers once partitioned), read again by the last nest
    out: float32[P, R]
    for i0, j0 in allo.grid(P, R):
        T[i0, j0] = 0.0
    for k, i, j in allo.grid(Q, P, R):
        T[i, j] += A[i, k] * B[k, j]
    for i2, j2 in allo.grid(P, R):
        out[i2, j2] = T[i2, j2] + 1.0
    return out


def mv_int(A: int32[8, 12], x: int32[12]) -> int32[8]:
    y: int32[8] = 0
    for i, j in allo.grid(8, 12):
        y[i] += A[i, j] * x[j]
    return y


def _all_lanes(kernel, out):
    space = dse.lanes_space(P, R, out=out, rows_in="A", cols_in="B")
    s = allo.customize(kernel)
    s.replay(space.expand(s.ir, space.indices({"ui": P, "uj": R})))
    return s


def _close(mod_cycles, est):
    assert abs(mod_cycles - est) <= 0.15 * est, (mod_cycles, est)


def test_all_lanes_gemm_accumulates_in_registers_like_the_estimate():
    rng = np.random.default_rng(0)
    A, B = rng.uniform(-1, 1, (P, Q)).astype(np.float32), rng.uniform(-1, 1, (Q, R)).astype(np.float32)
    C = rng.uniform(-1, 1, (P, R)).astype(np.float32)
    s = _all_lanes(gemm, "C")
    mod = s.build(target="rtl")
    got = C.copy()
    mod(A, B, got)
    np.testing.assert_allclose(got, C + A.astype(np.float64) @ B, rtol=1e-5, atol=1e-5)
    est = qor.estimate(s)
    _close(mod.cycles, est.latency_cycles)
    assert mod.report().loops[0].ii == est.loops[0].ii == 4  # one float adder's recurrence


def test_all_lanes_local_accumulator_is_one_register_per_lane():
    """streamhls_mm's product nest: i.outer outermost (one trip), then k, j.outer (one trip)."""
    rng = np.random.default_rng(1)
    A, B = rng.uniform(-1, 1, (P, Q)).astype(np.float32), rng.uniform(-1, 1, (Q, R)).astype(np.float32)
    s = allo.customize(mm_local)
    s.split("i", P)
    s.split("j", R)
    s.reorder("i.outer", "k", "j.outer", "i.inner", "j.inner")
    s.unroll("i.inner")
    s.unroll("j.inner")
    s.pipeline("j.outer")
    s.partition("T", "cyclic", dim=1, factor=P)  # as nest_lanes_space partitions: one element per bank
    s.partition("T", "cyclic", dim=2, factor=R)
    s.partition("A", "cyclic", dim=1, factor=P)
    s.partition("B", "cyclic", dim=2, factor=R)
    mod = s.build(target="rtl")
    np.testing.assert_allclose(mod(A, B), A.astype(np.float64) @ B + 1.0, rtol=1e-5, atol=1e-5)
    _close(mod.cycles, qor.estimate(s).latency_cycles)


def _iis(rows):
    """The IIs of the pipelined loops among `rows` and their children."""
    return [r.ii for r in rows if r.ii] + [ii for r in rows for ii in _iis(r.children)]


def test_row_accumulator_never_revisited_keeps_ii_1():
    s = allo.customize(mv_int)
    s.split("j", 4)
    s.reduce_tree("j.inner")
    s.unroll("j.inner")
    s.pipeline("j.outer")
    s.partition("A", allo.Partition.Cyclic, dim=2, factor=4)
    s.partition("x", allo.Partition.Cyclic, dim=1, factor=4)
    rng = np.random.default_rng(2)
    A, x = rng.integers(-9, 9, (8, 12)).astype(np.int32), rng.integers(-9, 9, 12).astype(np.int32)
    mod = s.build(target="rtl")
    np.testing.assert_array_equal(mod(A, x), A @ x)
    est = qor.estimate(s)
    _close(mod.cycles, est.latency_cycles)
    assert _iis(mod.report().loops) == [1]
