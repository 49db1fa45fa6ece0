"""bfloat16 at the kernel boundary: numpy arrays of ml_dtypes.bfloat16 (numpy's bfloat16, as
upstream Allo's tests pass them) go in and come out; checked against numpy in float32. Without
ml_dtypes the build names the package to install."""
import numpy as np
import pytest

import allo
from allo.ir.types import bfloat16, float32


def add_one(A: bfloat16[10]) -> bfloat16[10]:
    B: bfloat16[10]
    for i in range(10):
        B[i] = A[i] + 1
    return B


def scale(A: bfloat16[2, 4], s: bfloat16) -> bfloat16:
    acc: bfloat16 = 0.0
    for i, j in allo.grid(2, 4):
        A[i, j] = A[i, j] * s
        acc += A[i, j]
    return acc


def to_float(A: bfloat16[4]) -> float32[4]:
    B: float32[4]
    for i in range(4):
        B[i] = float(A[i])
    return B


def test_without_ml_dtypes_the_error_names_the_package(monkeypatch):
    import builtins
    real = builtins.__import__

    def no_ml_dtypes(name, *a, **k):
        if name == "ml_dtypes":
            raise ImportError(name)
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_ml_dtypes)
    with pytest.raises(allo.AlloTypeError, match="ml_dtypes"):
        allo.customize(add_one).build()(np.zeros(10, np.float32))


def test_bfloat16_arrays_and_scalars_cross_the_boundary():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    bf16 = ml_dtypes.bfloat16
    A = np.linspace(-3, 3, 10).astype(bf16)
    B = allo.customize(add_one).build()(A)
    assert B.dtype == bf16
    np.testing.assert_array_equal(B.astype(np.float32), (A.astype(np.float32) + 1).astype(bf16).astype(np.float32))

    X = np.arange(8, dtype=np.float32).reshape(2, 4).astype(bf16)
    X0 = X.astype(np.float32)
    acc = allo.customize(scale).build()(X, bf16(0.5))
    np.testing.assert_array_equal(X.astype(np.float32), X0 * 0.5)  # written in place
    assert float(acc) == pytest.approx(float((X0 * 0.5).sum()))

    Y = np.array([1.5, -2.25, 1e3, 3.140625], dtype=bf16)
    np.testing.assert_array_equal(allo.customize(to_float).build()(Y), Y.astype(np.float32))


def test_a_bfloat16_scalar_argument_is_rounded_to_bfloat16_not_float16():
    def widen(s: bfloat16) -> float32:
        return float(s)

    f = allo.customize(widen).build()
    # bfloat16 keeps float32's exponent: 1e30 fits (float16 would overflow), 1/3 rounds to 8 bits
    assert f(0.5) == 0.5 and f(-2.0) == -2.0
    assert f(1 / 3) == 0.333984375 and f(1e30) == pytest.approx(1e30, rel=4e-3)
    assert np.isnan(f(float("nan")))


def _round_bf16(x: np.ndarray) -> np.ndarray:
    """float32 -> nearest bfloat16 (ties to even), as float32."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def test_bfloat16_locals_compute_on_the_cpu_without_ml_dtypes():
    # bf16 arithmetic and casts inside a float32 kernel: the JIT has no compiler-rt __truncsfbf2,
    # so the LLVM pipeline expands the casts itself (it used to fail with "JIT entry not found")
    def k(A: float32[16]) -> float32[16]:
        B: float32[16]
        for i in range(16):
            t: bfloat16 = A[i]
            t = t * t + 1
            B[i] = float(t)
        return B

    A = np.random.default_rng(3).normal(0, 40, 16).astype(np.float32)
    t = _round_bf16(A)
    want = _round_bf16(_round_bf16(t * t) + 1)
    np.testing.assert_array_equal(allo.customize(k).build()(A), want)
