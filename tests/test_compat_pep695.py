"""PEP 695 templates (Python 3.12+), Allo's spelling: type parameters as template parameters,
shape parameters in annotations, bounds/constraints, `kernel[T, N](...)` calls of plain template
functions and `allo.customize(k, instantiate=[...])`. Run by scripts/check_py312.sh (core only,
no torch); skipped by tests/conftest.py before 3.12. Every result is checked against numpy."""
import numpy as np
import pytest

import allo
from allo.ir.types import Fixed, Float, Int, float32, int8, int32


def gemm[T: (float32, int32), M: int32, K: int32, N: int32](A: "T[M, K]", B: "T[K, N]") -> "T[M, N]":
    C: T[M, N] = 0
    for i, j in allo.grid(M, N):
        for k in allo.reduction(K):
            C[i, j] += A[i, k] * B[k, j]
    return C


def scale[N](C: int32[N]) -> int32[N]:  # a shape parameter in a non-string annotation
    D: int32[N] = 0
    for i in range(N):
        D[i] = C[i] * 3
    return D


def mixed[T0, T1: Int, T2: (Float, Int), M, N](A: "T0[M, N]", B: "T1[M, N]") -> "T2[M, N]":
    C: T2[M, N] = 0
    for i, j in allo.grid(M, N):
        C[i, j] = A[i, j] + B[i, j]
    return C


def test_module_level_template_with_constraints():
    rng = np.random.default_rng(0)
    A, B = rng.random((4, 8), dtype=np.float32), rng.random((8, 3), dtype=np.float32)
    mod = allo.customize(gemm, instantiate=[float32, 4, 8, 3]).build()
    np.testing.assert_allclose(mod(A, B), A @ B, rtol=1e-5)
    Ai, Bi = rng.integers(-9, 9, (4, 8), dtype=np.int32), rng.integers(-9, 9, (8, 3), dtype=np.int32)
    np.testing.assert_array_equal(allo.customize(gemm, instantiate=[int32, 4, 8, 3]).build()(Ai, Bi), Ai @ Bi)
    with pytest.raises(allo.AlloError, match=r"T of 'gemm' must be one of \(float32, int32\), got int8"):
        allo.customize(gemm, instantiate=[int8, 4, 8, 3])


def test_shape_parameter_in_an_evaluated_annotation():
    C = np.arange(6, dtype=np.int32)
    np.testing.assert_array_equal(allo.customize(scale, instantiate=[6]).build()(C), C * 3)


def test_bound_classes_and_several_type_parameters():
    A = np.random.default_rng(1).random((3, 5), dtype=np.float32)
    B = np.arange(15, dtype=np.int32).reshape(3, 5)
    out = allo.customize(mixed, instantiate=[float32, int32, float32, 3, 5]).build()(A, B)
    np.testing.assert_allclose(out, A + B, rtol=1e-6)
    with pytest.raises(allo.AlloError, match="T1 of 'mixed' must be one of"):
        allo.customize(mixed, instantiate=[float32, float32, float32, 3, 5])


def test_plain_template_called_inside_a_kernel_with_expressions():
    def inner[Ty, M, N](A: "Ty[M + 1, N * 2]") -> "Ty[M, N]":
        B: Ty[M, N] = 0
        for i, j in allo.grid(M, N):
            B[i, j] = A[i + 1, j * 2] + 1
        return B

    def top[Ty, M, N](X: "Ty[M + 3, N]") -> "Ty[M + 2, N // 2]":
        return inner[Ty, M + 2, N // 2](X)

    X = np.arange(19 * 8, dtype=np.float32).reshape(19, 8)
    out = allo.customize(top, instantiate=[float32, 16, 8]).build()(X)
    np.testing.assert_array_equal(out, X[1:19, 0:8:2] + 1)


def test_type_parameter_as_scalar_type_and_in_the_body():
    def pick[Ty](flag: allo.bool) -> "Ty":
        X: Ty
        if not flag:
            X = 1
        else:
            X = 0
        return X

    mod = allo.customize(pick, instantiate=[int8]).build()
    assert mod(True) == 0 and mod(False) == 1

    def bits[Ty]() -> int32:
        A: int32 = Ty.bits
        B: allo.UInt(Ty.bits + 2) = Ty.fracs
        return A + B

    assert allo.customize(bits, instantiate=[Fixed(7, 3)]).build()() == 10


def test_meta_if_on_type_parameters_chooses_the_instance():
    def zeros8[M, N]() -> "int8[M, N]":
        B: int8[M, N] = 0
        return B

    def top[Ty, M, N]() -> "Ty[M, N]":
        with allo.meta_if(Ty == int8):
            return zeros8[M, N]()
        with allo.meta_else():
            B: Ty[M, N] = 1
            return B

    assert "4x4xi8" in str(allo.customize(top, instantiate=[int8, 4, 4]).module)
    np.testing.assert_array_equal(allo.customize(top, instantiate=[float32, 2, 3]).build()(), np.ones((2, 3)))
