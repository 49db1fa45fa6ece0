"""Float kernels through the static RTL (float32 units, allo/backend/rtl/static/float): results
equal the LLVM build bit for bit (NaN payloads included where x86 defines them), the float
operators' latencies are allo.qor's, a float accumulation in a pipelined loop runs at the II
the estimator reports, and a float type without units (float64, float16, bfloat16) is a BackendError naming the op and
line, on the static and the handshake route (float32 kernels there: test_rtl_float_handshake.py).
"""
from __future__ import annotations

import numpy as np
import pytest

import allo
from allo.ir.types import Fixed, UFixed, bfloat16, float16, float32, float64, int8, int16, int32, uint8
from tests.rtl_util import full_only, needs_rtl, run_both

pytestmark = needs_rtl
fx16 = Fixed(16, 8)
ufx12 = UFixed(12, 4)


def _bits_equal(got, want, what):
    got_t = got if isinstance(got, tuple) else (got,)
    want_t = want if isinstance(want, tuple) else (want,)
    assert len(got_t) == len(want_t)
    for k, (g, w) in enumerate(zip(got_t, want_t)):
        g, w = np.asarray(g), np.asarray(w)
        assert (g.shape, g.dtype) == (w.shape, w.dtype), f"{what} result {k}"
        if g.dtype.kind == "f":
            g, w = g.view(f"u{g.dtype.itemsize}"), w.view(f"u{w.dtype.itemsize}")
        np.testing.assert_array_equal(g, w, err_msg=f"{what} result {k}")


def _specials(n, rng):
    base = rng.standard_normal(n).astype(np.float32) * np.float32(3)
    sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -3e-39, 1.1754942e-38, 3.4028235e38, -3.4028235e38,
                   1.0, -1.0, 0.5, 16777217.0, 1e20, -1e-20], dtype=np.float32)
    base[:len(sp)] = sp
    return base


def vector_ops(A: float32[32], B: float32[32]) -> (float32[32], float32[32], float32[32], int32[32]):
    C: float32[32] = 0.0
    D: float32[32] = 0.0
    E: float32[32] = 0.0
    F: int32[32] = 0
    for i in range(32):
        C[i] = (A[i] + B[i]) * A[i] - B[i] / A[i]
        D[i] = max(A[i], B[i]) - min(A[i], -B[i])
        E[i] = allo.sqrt(abs(A[i])) if A[i] > B[i] else -B[i]
        F[i] = (1 if A[i] <= B[i] else 0) + (2 if A[i] == B[i] else 0) + (4 if A[i] != B[i] else 0) \
            + (8 if A[i] >= B[i] else 0)
    return C, D, E, F


def test_vector_ops_equal_llvm_bit_for_bit():
    rng = np.random.default_rng(3)
    A, B = _specials(32, rng), _specials(32, rng)[::-1].copy()
    s = allo.customize(vector_ops)
    _, got, want = run_both(s, [A, B])
    _bits_equal(got, want, "vector_ops")


def gemm(A: float32[8, 8], B: float32[8, 8]) -> float32[8, 8]:
    C: float32[8, 8] = 0.0
    for i, j in allo.grid(8, 8):
        for k in range(8):
            C[i, j] += A[i, k] * B[k, j]
    return C


@pytest.mark.parametrize("schedule", ["plain", "pipeline_k", "pipeline_j"])
def test_gemm_equals_llvm_bit_for_bit(schedule):
    rng = np.random.default_rng(5)
    A, B = rng.standard_normal((8, 8)).astype(np.float32), rng.standard_normal((8, 8)).astype(np.float32)
    s = allo.customize(gemm)
    if schedule == "pipeline_k":
        s.pipeline("k")
    elif schedule == "pipeline_j":
        s.pipeline("j")
    mod, got, want = run_both(s, [A, B])
    _bits_equal(got, want, f"gemm {schedule}")
    rtl_rows = {r.name: r for r in mod.report().rows() if r.pipelined}
    est_rows = {r.name: r for r in mod.qor().rows() if r.pipelined}
    for name, r in rtl_rows.items():
        if name in est_rows:
            assert r.ii == est_rows[name].ii, (name, r.ii, est_rows[name].ii)


def dot(A: float32[64], B: float32[64]) -> float32:
    acc: float32 = 0.0
    for i in range(64):
        acc += A[i] * B[i]
    return acc


def test_pipelined_float_reduction_has_the_estimated_ii():
    rng = np.random.default_rng(7)
    A, B = rng.standard_normal(64).astype(np.float32), rng.standard_normal(64).astype(np.float32)
    s = allo.customize(dot)
    s.pipeline("i")
    mod, got, want = run_both(s, [A, B])
    _bits_equal(got, want, "dot")
    (row,) = [r for r in mod.report().rows() if r.pipelined]
    (est,) = [r for r in mod.qor().rows() if r.pipelined]
    fadd = mod.design.tables.float_op("fadd", 32)
    assert row.ii == est.ii == fadd.fast + 1, (row.ii, est.ii, fadd)
    assert row.ii < fadd.latency + 1  # the fast binding, not the default core, is on the recurrence


def mixed(X: int8[16], Q: fx16[16], F: float32[16]) -> (int16[16], float32[16], ufx12[16], uint8[16], int32):
    I: int16[16] = 0
    G: float32[16] = 0.0
    U: ufx12[16] = 0.0
    W: uint8[16] = 0
    n: int32 = 0
    for i in range(16):
        v: float32 = float32(X[i]) * F[i] + float32(Q[i])
        I[i] = int16(v * 1000.0)
        G[i] = v / float32(i + 1)
        U[i] = ufx12(abs(v))
        W[i] = uint8(F[i] * 100.0)
        if v > 0.0:
            n += 1
    return I, G, U, W, n


def test_mixed_int_fixed_float_casts_equal_llvm():
    rng = np.random.default_rng(11)
    X = rng.integers(-128, 128, 16).astype(np.int8)
    Q = rng.uniform(-100, 100, 16)
    F = (rng.standard_normal(16) * 40).astype(np.float32)
    F[:4] = [np.nan, np.inf, -np.inf, 3e9]
    s = allo.customize(mixed)
    _, got, want = run_both(s, [X, Q, F])
    _bits_equal(got, want, "mixed")


def scaled(A: float32[8], k: float32) -> float32:
    t: float32 = 0.0
    for i in range(8):
        t += A[i] * k
    return t


def test_float_scalar_argument_and_result():
    A = np.linspace(-2, 3, 8).astype(np.float32)
    _, got, want = run_both(allo.customize(scaled), [A, np.float32(0.37)])
    _bits_equal(got, want, "scaled")


def operator_latency(A: float32[4], B: float32[4]) -> float32[4]:
    C: float32[4] = 0.0
    for i in range(4):
        C[i] = A[i] * B[i]
    return C


def test_float_operators_take_the_table_latency():
    mod = allo.customize(operator_latency).build(target="rtl")
    fmul = mod.design.tables.float_op("fmul", 32)
    regs = {m for m in __import__("re").findall(r"(u\d+_n\d+)_p(\d+);", mod.verilog)}
    stages = max(int(k) for _, k in regs)
    assert stages == fmul.latency + 1, (stages, fmul)  # L + 1 states (allo.qor OpCost.chain)
    assert "allo_f32_mul_m allo_fu" in mod.verilog and "function automatic logic [31:0] allo_f32_mul" in mod.verilog


def dbl(A: float64[4]) -> float64[4]:
    B: float64[4] = 0.0
    for i in range(4):
        B[i] = A[i] * 2.0
    return B


def sine(A: float32[4]) -> float32[4]:
    B: float32[4] = 0.0
    for i in range(4):
        B[i] = allo.sin(A[i])
    return B


def half(A: float16[4]) -> float16[4]:
    B: float16[4] = 0.0
    for i in range(4):
        B[i] = A[i] + A[i]
    return B


def brain(A: bfloat16[4], B: bfloat16[4]) -> bfloat16[4]:
    C: bfloat16[4] = 0.0
    for i in range(4):
        C[i] = A[i] * B[i]
    return C


UNSUPPORTED = [(dbl, 3, "float64"), (half, 3, "float16"), (brain, 3, "bfloat16")]


@pytest.mark.parametrize("kernel, line, op", UNSUPPORTED)
def test_unsupported_float_op_is_an_error_naming_op_and_line(kernel, line, op):
    with pytest.raises(allo.BackendError) as e:
        allo.customize(kernel).build(target="rtl")
    msg = str(e.value)
    assert f"test_rtl_float_kernels.py:{kernel.__code__.co_firstlineno + line}" in msg, msg
    assert op in msg and "floating-point" in msg, msg


@pytest.mark.parametrize("kernel, op", [(dbl, "float64"), (half, "float16"), (brain, "bfloat16")])
def test_float_on_the_handshake_route_is_an_error_naming_the_float_and_line(kernel, op):
    """scheduling="dynamic" (CIRCT handshake) has float32 units only (tests/test_rtl_float_handshake.py):
    the first other float it meets (here the argument, at the kernel's def line) is named with its
    type and file:line."""
    with pytest.raises(allo.BackendError) as e:
        allo.customize(kernel).build(target="rtl", scheduling="dynamic")
    msg = str(e.value)
    assert f"test_rtl_float_kernels.py:{kernel.__code__.co_firstlineno}:" in msg, msg
    assert f"argument 'A' of '{kernel.__name__}' is {op}" in msg and "floating-point" in msg, msg


@full_only("Yosys synthesis of a float GEMM; set ALLO_RTL_FULL=1")
def test_float_gemm_synthesises_with_dsps():
    s = allo.customize(gemm)
    s.pipeline("k")
    rep = s.build(target="rtl").synth(part="xc7")
    assert rep.dsps >= 1 and rep.luts > 500 and rep.ffs > 100, rep
