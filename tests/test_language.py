"""Every language feature of SPEC section 3, built for LLVM and checked against numpy.

Each test builds one or a few small kernels with `allo.customize(k).build()` and compares the
result with a numpy computation of the same thing.
"""
import sys

import numpy as np
import pytest

import allo
from allo.ir.types import bool as abool
from allo.ir.types import float16, float32, float64, int8, int32, int64, uint8, uint32

RNG = np.random.default_rng(1234)


def build(fn, instantiate=None):
    return allo.customize(fn, instantiate=instantiate).build()


def f32(*shape, lo=-1.0, hi=1.0):
    return RNG.uniform(lo, hi, size=shape).astype(np.float32)


def i32(*shape, lo=-50, hi=50):
    return RNG.integers(lo, hi, size=shape).astype(np.int32)


# ============================================================================ loops
def k_range_steps(A: int32[16]) -> int32[16]:
    B: int32[16] = 0
    for i in range(16):
        B[i] = A[i]
    for i in range(1, 16, 3):
        B[i] += 100
    for i in range(15, -1, -2):
        B[i] += 1000
    for i in range(10, 2, -3):
        B[i] += 10000
    for i in range(5, 5):
        B[i] += 7
    return B


def test_range_with_positive_and_negative_steps():
    A = i32(16)
    want = A.copy()
    want[1:16:3] += 100
    want[15::-2] += 1000
    want[10:2:-3] += 10000
    np.testing.assert_array_equal(build(k_range_steps)(A), want)


def k_range_order(A: int32[10]) -> int32[10]:
    B: int32[10] = 0
    c: int32 = 0
    for i in range(9, -1, -1):
        B[i] = c * 100 + A[i]
        c += 1
    return B


def test_negative_step_runs_in_descending_order():
    A = i32(10)
    want = (9 - np.arange(10)) * 100 + A
    np.testing.assert_array_equal(build(k_range_order)(A), want)


def k_triangular(A: float32[6, 6]) -> float32[6, 6]:
    B: float32[6, 6] = 0.0
    for i in range(6):
        for j in range(i, 6):
            B[i, j] = A[i, j]
        for j in range(0, i + 1, 2):
            B[i, j] += 1.0
    return B


def test_range_bounds_depending_on_outer_loop():
    A = f32(6, 6)
    want = np.triu(A)
    for i in range(6):
        want[i, 0:i + 1:2] += 1.0
    np.testing.assert_allclose(build(k_triangular)(A), want, rtol=1e-6)


def k_grid(A: int32[2, 3, 4]) -> int32[2, 3, 4]:
    B: int32[2, 3, 4] = 0
    for i, j, k in allo.grid(2, 3, 4):
        B[i, j, k] = A[i, j, k] + i * 100 + j * 10 + k
    return B


def test_allo_grid_band():
    A = i32(2, 3, 4)
    i, j, k = np.meshgrid(np.arange(2), np.arange(3), np.arange(4), indexing="ij")
    np.testing.assert_array_equal(build(k_grid)(A), A + i * 100 + j * 10 + k)


def k_reduction(A: float32[5, 7]) -> float32[5]:
    S: float32[5] = 0.0
    for i in range(5):
        for k in allo.reduction(7):
            S[i] += A[i, k]
    return S


def k_reduction2(A: int32[3, 4, 5]) -> int32[3]:
    S: int32[3] = 0
    for i in allo.grid(3):
        for j, k in allo.reduction(4, 5):
            S[i] += A[i, j, k] * (j + 1)
    return S


def test_allo_reduction():
    A = f32(5, 7)
    np.testing.assert_allclose(build(k_reduction)(A), A.sum(axis=1), rtol=1e-5, atol=1e-6)
    B = i32(3, 4, 5)
    np.testing.assert_array_equal(build(k_reduction2)(B), (B * np.arange(1, 5)[None, :, None]).sum(axis=(1, 2)))


def k_if_elif_else(A: float32[16]) -> int32[16]:
    B: int32[16] = 0
    for i in range(16):
        if A[i] < -0.5:
            B[i] = -2
        elif A[i] < 0.0:
            B[i] = -1
        elif A[i] == 0.0:
            B[i] = 0
        else:
            B[i] = 1
            if A[i] > 0.5:
                B[i] = 2
    return B


def test_if_elif_else():
    A = f32(16)
    A[3] = 0.0
    want = np.select([A < -0.5, A < 0, A == 0, A > 0.5], [-2, -1, 0, 2], 1)
    np.testing.assert_array_equal(build(k_if_elif_else)(A), want)


def k_while(A: int32[8]) -> int32[8]:
    B: int32[8] = 0
    for e in range(8):
        n: int32 = A[e]
        steps: int32 = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        B[e] = steps
    return B


def k_while_counter(A: float32[10]) -> float32[10]:
    B: float32[10] = 0.0
    i: int32 = 0
    while i < 10:
        B[i] = A[i] * 2.0
        i += 2
    return B


def _collatz(n):
    s = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        s += 1
    return s


def test_while_loops():
    A = np.array([1, 2, 3, 6, 7, 9, 27, 97], np.int32)
    np.testing.assert_array_equal(build(k_while)(A), [_collatz(int(a)) for a in A])
    X = f32(10)
    want = np.zeros(10, np.float32)
    want[::2] = X[::2] * 2
    np.testing.assert_allclose(build(k_while_counter)(X), want)


# ============================================================================ locals and initialisers
WEIGHTS = np.arange(8, dtype=np.float32) * 0.5
TABLE_I = np.array([[1, -2, 3], [4, 5, -6]], dtype=np.int32)


def k_locals(A: float32[8]) -> float32[8]:
    x: float32 = 1.5
    n = 3
    ones: float32[8] = 1
    fill: float32[8] = 0.25
    w: float32[8] = WEIGHTS
    tmp: float32[8]
    for i in range(8):
        tmp[i] = A[i] + x
    out: float32[8] = 0.0
    for i in range(8):
        out[i] = tmp[i] * ones[i] + fill[i] + w[i] + n
    return out


def test_scalar_and_array_locals_with_initialisers():
    A = f32(8)
    want = (A + 1.5) * 1 + 0.25 + WEIGHTS + 3
    np.testing.assert_allclose(build(k_locals)(A), want, rtol=1e-6)


def k_local_from_const_mutated(A: int32[2, 3]) -> int32[2, 3]:
    T: int32[2, 3] = TABLE_I
    for i, j in allo.grid(2, 3):
        T[i, j] += A[i, j]
    return T


def test_local_array_initialised_from_numpy_constant_is_a_copy():
    A = i32(2, 3)
    mod = build(k_local_from_const_mutated)
    np.testing.assert_array_equal(mod(A), TABLE_I + A)
    np.testing.assert_array_equal(mod(A), TABLE_I + A)  # the constant itself was not modified
    np.testing.assert_array_equal(TABLE_I, [[1, -2, 3], [4, 5, -6]])


def k_aug_float(A: float32[6], B: float32[6]) -> float32[6, 4]:
    C: float32[6, 4] = 0.0
    for i in range(6):
        C[i, 0] = A[i]
        C[i, 0] += B[i]
        C[i, 1] = A[i]
        C[i, 1] -= B[i]
        C[i, 2] = A[i]
        C[i, 2] *= B[i]
        C[i, 3] = A[i]
        C[i, 3] /= B[i]
    return C


def k_aug_int(A: int32[8], B: int32[8]) -> int32[8, 10]:
    C: int32[8, 10] = 0
    for i in range(8):
        for j in range(10):
            C[i, j] = A[i]
        C[i, 0] += B[i]
        C[i, 1] -= B[i]
        C[i, 2] *= B[i]
        C[i, 3] //= B[i]
        C[i, 4] %= B[i]
        C[i, 5] &= B[i]
        C[i, 6] |= B[i]
        C[i, 7] ^= B[i]
        C[i, 8] <<= 3
        C[i, 9] >>= 2
    return C


def k_aug_scalar_and_array(A: float32[4]) -> float32[4]:
    s: float32 = 1.0
    s += 2.0
    s *= 3.0
    s -= 1.0
    s /= 4.0
    X: float32[4] = 0.0
    for i in range(4):
        X[i] = A[i]
    X += 1.0
    X *= A
    X -= s
    return X


def test_augmented_assignment_all_operators():
    A, B = f32(6), f32(6, lo=0.5, hi=2.0)
    got = build(k_aug_float)(A, B)
    np.testing.assert_allclose(got, np.stack([A + B, A - B, A * B, A / B], axis=1), rtol=1e-6)
    Ai = i32(8, lo=-100, hi=100)
    Bi = np.array([3, -3, 7, -7, 5, 2, -2, 9], np.int32)
    want = np.stack([Ai + Bi, Ai - Bi, Ai * Bi, Ai // Bi, Ai % Bi, Ai & Bi, Ai | Bi, Ai ^ Bi, Ai << 3, Ai >> 2], 1)
    np.testing.assert_array_equal(build(k_aug_int)(Ai, Bi), want)
    s = ((1.0 + 2.0) * 3.0 - 1.0) / 4.0
    A4 = f32(4)
    np.testing.assert_allclose(build(k_aug_scalar_and_array)(A4), (A4 + 1.0) * A4 - s, rtol=1e-6)


# ============================================================================ operators
def k_float_ops(A: float32[12], B: float32[12]) -> float32[8, 12]:
    C: float32[8, 12] = 0.0
    for i in range(12):
        C[0, i] = A[i] + B[i]
        C[1, i] = A[i] - B[i]
        C[2, i] = A[i] * B[i]
        C[3, i] = A[i] / B[i]
        C[4, i] = A[i] // B[i]
        C[5, i] = A[i] % B[i]
        C[6, i] = A[i] ** 2
        C[7, i] = -A[i] + 3 * A[i] - 1
    return C


def test_float_arithmetic_operators():
    A = f32(12, lo=-4, hi=4)
    B = f32(12, lo=0.5, hi=2.0) * np.where(RNG.random(12) < 0.5, -1, 1).astype(np.float32)
    got = build(k_float_ops)(A, B)
    want = np.stack([A + B, A - B, A * B, A / B, A // B, A % B, A ** 2, -A + 3 * A - 1])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def k_pow(A: float32[6], B: float32[6], N: int32[6], E: int32[6]) -> (float32[6], float32[6], int32[6], float32[6]):
    P: float32[6] = 0.0
    Q: float32[6] = 0.0
    R: int32[6] = 0
    S: float32[6] = 0.0
    for i in range(6):
        P[i] = A[i] ** B[i]
        Q[i] = A[i] ** 0.5
        R[i] = N[i] ** E[i]
        S[i] = allo.pow(A[i], 3.0) + A[i] ** 3 + A[i] ** 0
    return P, Q, R, S


def test_power_operator():
    A, B = f32(6, lo=0.5, hi=3.0), f32(6, lo=-2, hi=2)
    N, E = i32(6, lo=-5, hi=6), i32(6, lo=0, hi=5)
    P, Q, R, S = build(k_pow)(A, B, N, E)
    np.testing.assert_allclose(P, A ** B, rtol=1e-5)
    np.testing.assert_allclose(Q, np.sqrt(A), rtol=1e-6)
    np.testing.assert_array_equal(R, N ** E)
    np.testing.assert_allclose(S, 2 * A ** 3 + 1, rtol=1e-5)


def k_int_ops(A: int32[16], B: int32[16]) -> int32[6, 16]:
    C: int32[6, 16] = 0
    for i in range(16):
        C[0, i] = A[i] + B[i]
        C[1, i] = A[i] - B[i]
        C[2, i] = A[i] * B[i]
        C[3, i] = A[i] / B[i]
        C[4, i] = A[i] // B[i]
        C[5, i] = A[i] % B[i]
    return C


def test_integer_arithmetic_operators_floor_semantics():
    A = i32(16, lo=-1000, hi=1000)
    B = np.array([1, -1, 2, -2, 3, -3, 7, -7, 10, -10, 13, -13, 100, -100, 999, -5], np.int32)
    got = build(k_int_ops)(A, B)
    trunc = (np.abs(A) // np.abs(B)) * np.sign(A) * np.sign(B)
    np.testing.assert_array_equal(got, np.stack([A + B, A - B, A * B, trunc, A // B, A % B]))


def k_int_wrap(A: int32[4], B: int8[4]) -> (int32[4], int8[4]):
    C: int32[4] = 0
    D: int8[4] = 0
    for i in range(4):
        C[i] = A[i] * A[i] + 2147483647
        D[i] = B[i] + B[i] + B[i]
    return C, D


def test_integer_wraparound():
    A = np.array([70000, -70000, 3, 46341], np.int32)
    B = np.array([100, -100, 127, -128], np.int8)
    C, D = build(k_int_wrap)(A, B)
    np.testing.assert_array_equal(C, (A.astype(np.int64) ** 2 + 2147483647).astype(np.int64).astype(np.int32))
    np.testing.assert_array_equal(D, (B.astype(np.int64) * 3).astype(np.int8))


def k_compare(A: float32[10], B: float32[10]) -> int32[8, 10]:
    C: int32[8, 10] = 0
    for i in range(10):
        C[0, i] = A[i] < B[i]
        C[1, i] = A[i] <= B[i]
        C[2, i] = A[i] > B[i]
        C[3, i] = A[i] >= B[i]
        C[4, i] = A[i] == B[i]
        C[5, i] = A[i] != B[i]
        C[6, i] = -0.5 < A[i] < 0.5
        C[7, i] = (A[i] > 0.0 and B[i] > 0.0) or not (A[i] < B[i])
    return C


def k_compare_unsigned(A: uint8[6], B: uint8[6]) -> int32[6]:
    C: int32[6] = 0
    for i in range(6):
        if A[i] < B[i]:
            C[i] = 1
    return C


def test_comparisons_and_boolean_operators():
    A, B = f32(10), f32(10)
    B[2] = A[2]
    B[5] = A[5]
    got = build(k_compare)(A, B)
    want = np.stack([A < B, A <= B, A > B, A >= B, A == B, A != B, (-0.5 < A) & (A < 0.5),
                     ((A > 0) & (B > 0)) | ~(A < B)]).astype(np.int32)
    np.testing.assert_array_equal(got, want)
    U = np.array([200, 1, 128, 5, 255, 0], np.uint8)
    V = np.array([100, 2, 127, 5, 0, 255], np.uint8)
    np.testing.assert_array_equal(build(k_compare_unsigned)(U, V), (U < V).astype(np.int32))


def k_bitwise(A: int32[8], B: int32[8], S: int32[8]) -> int32[6, 8]:
    C: int32[6, 8] = 0
    for i in range(8):
        C[0, i] = A[i] & B[i]
        C[1, i] = A[i] | B[i]
        C[2, i] = A[i] ^ B[i]
        C[3, i] = A[i] << S[i]
        C[4, i] = A[i] >> S[i]
        C[5, i] = ~A[i]
    return C


def k_bitwise_u8(A: uint8[6]) -> uint8[3, 6]:
    C: uint8[3, 6] = 0
    for i in range(6):
        C[0, i] = A[i] >> 3
        C[1, i] = ~A[i]
        C[2, i] = A[i] << 2
    return C


def test_bitwise_operators():
    A, B = i32(8, lo=-10000, hi=10000), i32(8, lo=-10000, hi=10000)
    S = np.array([0, 1, 2, 3, 5, 8, 13, 20], np.int32)
    got = build(k_bitwise)(A, B, S)
    np.testing.assert_array_equal(got, np.stack([A & B, A | B, A ^ B, A << S, A >> S, ~A]))
    U = np.array([0, 1, 128, 255, 77, 200], np.uint8)
    got = build(k_bitwise_u8)(U)
    np.testing.assert_array_equal(got, np.stack([U >> 3, ~U, (U << 2).astype(np.uint8)]))


def k_select(A: float32[8]) -> float32[8]:
    B: float32[8] = 0.0
    for i in range(8):
        B[i] = A[i] if A[i] > 0.0 else -2.0 * A[i]
    return B


def k_select_padding(A: float32[8]) -> float32[8]:
    B: float32[8] = 0.0
    for i in range(8):
        B[i] = A[i - 1] if i > 0 else 0.0
    return B


def test_conditional_expression():
    A = f32(8)
    np.testing.assert_allclose(build(k_select)(A), np.where(A > 0, A, -2 * A), rtol=1e-6)
    np.testing.assert_array_equal(build(k_select_padding)(A), np.concatenate([[0.0], A[:-1]]).astype(np.float32))


def k_minmax(A: float32[8], B: float32[8], I: int32[8], J: int32[8]) -> (float32[8], float32[8], int32[8], int32[8]):
    C: float32[8] = 0.0
    D: float32[8] = 0.0
    E: int32[8] = 0
    F: int32[8] = 0
    for i in range(8):
        C[i] = min(A[i], B[i])
        D[i] = max(A[i], B[i], 0.25)
        E[i] = min(I[i], J[i], 5)
        F[i] = allo.max(I[i], J[i])
    return C, D, E, F


def test_min_max():
    A, B, I, J = f32(8), f32(8), i32(8), i32(8)
    C, D, E, F = build(k_minmax)(A, B, I, J)
    np.testing.assert_array_equal(C, np.minimum(A, B))
    np.testing.assert_array_equal(D, np.maximum(np.maximum(A, B), np.float32(0.25)))
    np.testing.assert_array_equal(E, np.minimum(np.minimum(I, J), 5))
    np.testing.assert_array_equal(F, np.maximum(I, J))


def k_casts(A: float32[8], I: int32[8]) -> (int32[8], float32[8], int8[8], float64[8]):
    P: int32[8] = 0
    Q: float32[8] = 0.0
    R: int8[8] = 0
    S: float64[8] = 0.0
    for i in range(8):
        P[i] = int32(A[i])
        Q[i] = float32(I[i]) / 3.0
        R[i] = int8(I[i])
        S[i] = float64(A[i]) * 1.5
    return P, Q, R, S


def test_casts_by_calling_a_type():
    A = np.array([-2.7, -1.5, -0.5, 0.0, 0.4, 1.5, 2.9, 100.99], np.float32)
    I = np.array([-300, -129, -128, -1, 0, 127, 128, 1000], np.int32)
    P, Q, R, S = build(k_casts)(A, I)
    np.testing.assert_array_equal(P, np.trunc(A).astype(np.int32))
    np.testing.assert_allclose(Q, I.astype(np.float32) / np.float32(3.0), rtol=1e-6)
    np.testing.assert_array_equal(R, I.astype(np.int8))
    assert S.dtype == np.float64
    np.testing.assert_allclose(S, A.astype(np.float64) * 1.5)


def k_math(A: float32[8], P: float32[8]) -> float32[10, 8]:
    C: float32[10, 8] = 0.0
    for i in range(8):
        C[0, i] = allo.exp(A[i])
        C[1, i] = allo.log(P[i])
        C[2, i] = allo.sqrt(P[i])
        C[3, i] = allo.tanh(A[i])
        C[4, i] = allo.abs(A[i])
        C[5, i] = allo.pow(P[i], A[i])
        C[6, i] = allo.sin(A[i])
        C[7, i] = allo.cos(A[i])
        C[8, i] = allo.log2(P[i])
        C[9, i] = allo.erf(A[i])
    return C


def k_abs_int(I: int32[6]) -> int32[6]:
    B: int32[6] = 0
    for i in range(6):
        B[i] = allo.abs(I[i])
    return B


def test_math_functions():
    import math

    A, P = f32(8, lo=-2, hi=2), f32(8, lo=0.1, hi=4)
    got = build(k_math)(A, P)
    want = np.stack([np.exp(A), np.log(P), np.sqrt(P), np.tanh(A), np.abs(A), P ** A, np.sin(A), np.cos(A),
                     np.log2(P), [math.erf(a) for a in A]])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    I = np.array([-5, 0, 3, -2147483647, 7, -1], np.int32)
    np.testing.assert_array_equal(build(k_abs_int)(I), np.abs(I))


# ============================================================================ whole arrays
def k_whole(A: float32[4, 6], B: float32[4, 6], r: float32[6]) -> (float32[4, 6], float32[4, 6], float32[4, 6],
                                                                  float32[4, 6]):
    C = A + B
    D = A * 2.0
    E = 1.0 - A / B + r
    F = allo.exp(-A) * allo.max(A, B)
    return C, D, E, F


def k_whole_int(A: int32[3, 5], B: int32[3, 5]) -> int32[3, 5]:
    C: int32[3, 5] = A * B - 3
    C = C + (A // 2)
    return C


def test_whole_array_arithmetic_with_broadcast():
    A, B, r = f32(4, 6), f32(4, 6, lo=0.5, hi=1.5), f32(6)
    C, D, E, F = build(k_whole)(A, B, r)
    np.testing.assert_allclose(C, A + B, rtol=1e-6)
    np.testing.assert_allclose(D, A * 2, rtol=1e-6)
    np.testing.assert_allclose(E, 1 - A / B + r, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(F, np.exp(-A) * np.maximum(A, B), rtol=1e-5)
    Ai, Bi = i32(3, 5), i32(3, 5)
    np.testing.assert_array_equal(build(k_whole_int)(Ai, Bi), Ai * Bi - 3 + Ai // 2)


def k_matmul(A: float32[4, 6], B: float32[6, 5]) -> (float32[4, 5], float32[4, 5]):
    C = allo.matmul(A, B)
    D = A @ B
    return C, D


def k_transpose(A: float32[3, 5], X: float32[2, 3, 4]) -> (float32[5, 3], float32[3, 2, 4], float32[4, 3, 2]):
    T1 = A.T
    T2 = allo.transpose(X, (1, 0, 2))
    T3 = allo.transpose(X)
    return T1, T2, T3


def test_matmul_and_transposes():
    A, B = f32(4, 6), f32(6, 5)
    C, D = build(k_matmul)(A, B)
    np.testing.assert_allclose(C, A @ B, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(D, A @ B, rtol=1e-5, atol=1e-6)
    M, X = f32(3, 5), f32(2, 3, 4)
    T1, T2, T3 = build(k_transpose)(M, X)
    np.testing.assert_array_equal(T1, M.T)
    np.testing.assert_array_equal(T2, X.transpose(1, 0, 2))
    np.testing.assert_array_equal(T3, X.transpose())


# ============================================================================ names
SCALE = np.float32(3.0)
SHADOWED = np.array([1.0, 1.0, 1.0, 1.0], np.float32)


def k_module_global(A: float32[8]) -> float32[8]:
    B: float32[8] = 0.0
    for i in range(8):
        B[i] = A[i] * WEIGHTS[i] + SCALE
    return B


def test_numpy_globals_from_module():
    A = f32(8)
    np.testing.assert_allclose(build(k_module_global)(A), A * WEIGHTS + 3.0, rtol=1e-6)


def test_numpy_globals_from_closure_shadow_module_globals():
    bias = np.linspace(-1, 1, 4).astype(np.float32)
    SHADOWED = np.array([10.0, 20.0, 30.0, 40.0], np.float32)  # noqa: N806 - shadows the module constant

    def k_closure(A: float32[4]) -> float32[4]:
        B: float32[4] = 0.0
        for i in range(4):
            B[i] = A[i] + bias[i] + SHADOWED[i]
        return B

    A = f32(4)
    np.testing.assert_allclose(build(k_closure)(A), A + bias + SHADOWED, rtol=1e-6)


def k_uses_caller_local(A: float32[4]) -> float32[4]:
    B: float32[4] = 0.0
    for i in range(4):
        B[i] = A[i] + ONLY_IN_CALLER[i]  # noqa: F821 - must not resolve to the caller's local
    return B


def test_names_never_resolve_to_the_callers_locals():
    ONLY_IN_CALLER = np.ones(4, np.float32)  # noqa: F841, N806
    with pytest.raises(allo.AlloNameError, match="ONLY_IN_CALLER"):
        allo.customize(k_uses_caller_local)


# ============================================================================ calls
def h_scale(A: float32[4, 4], s: float32) -> float32[4, 4]:
    B: float32[4, 4] = 0.0
    for i, j in allo.grid(4, 4):
        B[i, j] = A[i, j] * s
    return B


def h_inplace(A: float32[4, 4]):
    for i, j in allo.grid(4, 4):
        A[i, j] += 1.0


def h_sum(A: float32[4, 4]) -> float32:
    s: float32 = 0.0
    for i, j in allo.grid(4, 4):
        s += A[i, j]
    return s


@allo.kernel
def h_pair(A: float32[4, 4]) -> (float32[4, 4], float32[4, 4]):
    return A + 1.0, A - 1.0


def k_calls(A: float32[4, 4]) -> (float32[4, 4], float32[4, 4]):
    B = h_scale(A, 2.0)
    h_inplace(B)
    t = h_sum(B)
    P, Q = h_pair(B)
    C: float32[4, 4] = 0.0
    for i, j in allo.grid(4, 4):
        C[i, j] = P[i, j] * Q[i, j] + t
    D = h_scale(C, t)
    return C, D


def test_calls_to_other_kernels():
    A = f32(4, 4)
    s = allo.customize(k_calls)
    text = str(s.module)
    for callee in ("h_scale", "h_inplace", "h_sum", "h_pair"):
        assert f"func.func @{callee}(" in text
        assert f"call @{callee}(" in text
    assert text.count("func.func @h_scale(") == 1  # one function for two calls of the same kernel
    C, D = s.build()(A)
    B = A * 2 + 1
    t = B.sum()
    want_c = (B + 1) * (B - 1) + t
    np.testing.assert_allclose(C, want_c, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(D, want_c * t, rtol=1e-5, atol=1e-4)


# ============================================================================ templates
@allo.kernel(template="T, M, N")
def t_add(A: "T[M, N]", B: "T[M, N]") -> "T[M, N]":
    C: T[M, N] = 0  # noqa: F821 - template names
    for i in range(M):  # noqa: F821
        for j in range(N):  # noqa: F821
            C[i, j] = A[i, j] + B[i, j] + T(1)  # noqa: F821
    return C


def k_uses_templates(A: float32[4, 8], B: float32[4, 8], I: int32[2, 3]) -> (float32[4, 8], int32[2, 3]):
    C = t_add[float32, 4, 8, "1"](A, B)
    D = t_add[float32, 4, 8, "1"](C, B)
    E = t_add[int32, 2, 3, "2"](I, I)
    return D, E


def k_uses_templates_no_ids(A: float32[4, 8], I: int32[2, 3]) -> (float32[4, 8], int32[2, 3]):
    C = t_add[float32, 4, 8](A, A)
    D = t_add[float32, 4, 8](C, A)
    E = t_add[int32, 2, 3](I, I)
    return D, E


def test_template_instances_with_ids():
    s = allo.customize(k_uses_templates)
    text = str(s.module)
    assert "func.func @t_add_1(" in text and "func.func @t_add_2(" in text
    assert text.count("func.func @t_add_1(") == 1
    assert "memref<4x8xf32>" in text and "memref<2x3xi32>" in text
    A, B, I = f32(4, 8), f32(4, 8), i32(2, 3)
    D, E = s.build()(A, B, I)
    np.testing.assert_allclose(D, A + 2 * B + 2, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(E, 2 * I + 1)


def test_template_instances_without_ids_get_distinct_functions():
    s = allo.customize(k_uses_templates_no_ids)
    text = str(s.module)
    assert "func.func @t_add(" in text  # the first instance keeps the bare name
    funcs = [line for line in text.splitlines() if "func.func @t_add" in line]
    assert len(funcs) == 2, funcs
    A, I = f32(4, 8), i32(2, 3)
    D, E = s.build()(A, I)
    np.testing.assert_allclose(D, 3 * A + 2, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(E, 2 * I + 1)


def test_template_instantiated_at_top_level():
    A, B = f32(3, 5), f32(3, 5)
    mod = build(t_add, instantiate=[float32, 3, 5])
    np.testing.assert_allclose(mod(A, B), A + B + 1, rtol=1e-6)
    s = t_add[int8, 2, 2].customize()
    assert "memref<2x2xi8>" in str(s.module)
    X = np.array([[100, 27], [-128, 0]], np.int8)
    np.testing.assert_array_equal(s.build()(X, X), (X.astype(np.int64) * 2 + 1).astype(np.int8))
    np.testing.assert_allclose(t_add[float32, 3, 5](A, B), A + B + 1, rtol=1e-6)


@allo.kernel(template="T, N, K")
def t_scale_sum(A: "T[N]") -> "T":
    acc: T = T(0)  # noqa: F821
    for i in range(N):  # noqa: F821
        acc += A[i] * K  # noqa: F821
    return acc


def test_template_values_in_body():
    A = f32(6)
    got = t_scale_sum[float32, 6, 3](A)
    assert np.isclose(got, A.sum() * 3, rtol=1e-5)
    I = i32(5)
    assert int(t_scale_sum[int32, 5, -2](I)) == int(I.sum() * -2)


# ============================================================================ returns and parameters
def r_array(A: float32[4]) -> float32[4]:
    return A * 3.0


def r_scalar(A: float32[4]) -> float32:
    s: float32 = 0.0
    for i in range(4):
        s += A[i] * A[i]
    return s


def r_int_scalar(A: int32[4]) -> int32:
    s: int32 = 0
    for i in range(4):
        s = max(s, A[i])
    return s


def r_tuple(A: float32[4], B: int32[2, 2]) -> (float32[4], int32[2, 2]):
    return A + 1.0, B * 2


def r_none(A: float32[4], B: int32[2, 2]):
    for i in range(4):
        A[i] = A[i] * 2.0
    B[1, 0] = 42


def test_returns_array_scalar_tuple_and_none():
    A = f32(4)
    out = build(r_array)(A)
    assert isinstance(out, np.ndarray) and out.dtype == np.float32 and out.shape == (4,)
    np.testing.assert_allclose(out, A * 3, rtol=1e-6)

    s = build(r_scalar)(A)
    assert np.ndim(s) == 0 and not isinstance(s, np.ndarray)
    assert np.isclose(float(s), float((A.astype(np.float64) ** 2).sum()), rtol=1e-5)
    I = np.array([-3, 9, 2, 5], np.int32)
    assert int(build(r_int_scalar)(I)) == 9

    B = np.array([[1, 2], [3, 4]], np.int32)
    res = build(r_tuple)(A, B)
    assert isinstance(res, tuple) and len(res) == 2
    np.testing.assert_allclose(res[0], A + 1, rtol=1e-6)
    np.testing.assert_array_equal(res[1], B * 2)

    A2, B2 = A.copy(), B.copy()
    assert build(r_none)(A2, B2) is None
    np.testing.assert_allclose(A2, A * 2, rtol=1e-6)
    np.testing.assert_array_equal(B2, [[1, 2], [42, 4]])


def k_scalar_params(A: float32[8], alpha: float32, n: int32, flag: abool) -> float32[8]:
    B: float32[8] = 0.0
    for i in range(n):
        B[i] = A[i] * alpha if flag else A[i] - alpha
    return B


def test_scalar_parameters_python_and_numpy_scalars():
    A = f32(8)
    mod = build(k_scalar_params)
    want = np.zeros(8, np.float32)
    want[:5] = A[:5] * 2.5
    np.testing.assert_allclose(mod(A, 2.5, 5, True), want, rtol=1e-6)
    want = np.zeros(8, np.float32)
    want[:8] = A - np.float32(0.5)
    np.testing.assert_allclose(mod(A, np.float32(0.5), np.int32(8), np.bool_(False)), want, rtol=1e-6)


def k_param_mutated(A: float32[4], s: float32) -> float32[4]:
    s = s * 2.0
    s += 1.0
    return A + s


def test_scalar_parameter_reassigned_in_body():
    A = f32(4)
    np.testing.assert_allclose(build(k_param_mutated)(A, 3.0), A + 7.0, rtol=1e-6)


# ============================================================================ @allo.kernel direct calls
@allo.kernel
def direct_add(A: float32[16], B: float32[16]) -> float32[16]:
    return A + B


def test_kernel_decorator_direct_call_is_compiled_once(monkeypatch):
    cmod = sys.modules["allo.schedule.customize"]  # the package attribute `allo.customize` is the function
    calls = []
    real = cmod.customize

    def counting(*a, **kw):
        calls.append(a)
        return real(*a, **kw)

    monkeypatch.setattr(cmod, "customize", counting)
    direct_add._built.clear()
    A, B = f32(16), f32(16)
    for _ in range(3):
        np.testing.assert_allclose(direct_add(A, B), A + B, rtol=1e-6)
    assert len(calls) == 1
    assert direct_add.customize().top_func_name == "direct_add"
    assert isinstance(allo.customize(direct_add), allo.Schedule)


# ============================================================================ plain-Python behaviour of allo names
def test_dsl_names_work_as_numpy_outside_kernels():
    x = np.array([0.5, 1.0])
    assert np.allclose(allo.exp(x), np.exp(x))
    assert list(allo.grid(2, 2)) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert np.allclose(allo.matmul(np.eye(2), x), x)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="the SPEC targets 3.11 for templates")
def test_template_decorator_form_on_311():
    assert t_add.template_params == ("T", "M", "N")


# ============================================================================ edge cases of the same features
def k_index_exprs(A: int32[16]) -> int32[4, 8]:
    B: int32[4, 8] = 0
    for i in range(8):
        B[0, i] = A[2 * i + 1]
        B[1, i] = A[i // 2]
        B[2, i] = A[15 - i]
        B[3, i] = A[(i * 3) % 16]
    return B


def test_affine_and_non_affine_index_expressions():
    A = i32(16)
    i = np.arange(8)
    np.testing.assert_array_equal(build(k_index_exprs)(A), np.stack([A[2 * i + 1], A[i // 2], A[15 - i], A[(i * 3) % 16]]))


def k_unsigned_ops(A: uint32[6], B: uint32[6]) -> (uint32[4, 6], int32[6]):
    C: uint32[4, 6] = 0
    D: int32[6] = 0
    for i in range(6):
        C[0, i] = A[i] // B[i]
        C[1, i] = A[i] % B[i]
        C[2, i] = A[i] >> 4
        C[3, i] = max(A[i], B[i])
        D[i] = A[i] > B[i]
    return C, D


def test_unsigned_division_shift_and_compare():
    A = np.array([4294967295, 3000000000, 7, 0, 2147483648, 100], np.uint32)
    B = np.array([3, 7, 4294967295, 5, 2, 2147483649], np.uint32)
    C, D = build(k_unsigned_ops)(A, B)
    np.testing.assert_array_equal(C, np.stack([A // B, A % B, A >> 4, np.maximum(A, B)]))
    np.testing.assert_array_equal(D, (A > B).astype(np.int32))


def k_mixed_types(A: float32[5], I: int32[5], J: int8[5]) -> (float32[5], int32[5]):
    F: float32[5] = 0.0
    K: int32[5] = 0
    for i in range(5):
        F[i] = A[i] + I[i] * 0.5
        K[i] = I[i] + J[i]
    return F, K


def test_mixed_type_arithmetic_promotes():
    A, I = f32(5), i32(5)
    J = np.array([-128, 127, 0, -1, 5], np.int8)
    F, K = build(k_mixed_types)(A, I, J)
    np.testing.assert_allclose(F, A + I * np.float32(0.5), rtol=1e-6)
    np.testing.assert_array_equal(K, I + J.astype(np.int32))


def k_bool_locals(A: float32[6]) -> int32[6]:
    B: int32[6] = 0
    for i in range(6):
        pos: abool = A[i] > 0.0
        big = A[i] > 0.5 or A[i] < -0.5
        if pos and not big:
            B[i] = 1
        elif not pos:
            B[i] = -1
    return B


def test_bool_locals_and_not():
    A = np.array([0.1, 0.9, -0.1, -0.9, 0.0, 0.5], np.float32)
    want = np.where((A > 0) & ~((A > 0.5) | (A < -0.5)), 1, np.where(~(A > 0), -1, 0))
    np.testing.assert_array_equal(build(k_bool_locals)(A), want)


def k_scalar_reassigned(A: float32[6]) -> float32[6]:
    B: float32[6] = 0.0
    for i in range(6):
        x = A[i] * 2.0
        if x > 0.0:
            x = x + 10.0
        else:
            x = -x
        B[i] = x
    return B


def test_unannotated_scalar_local_reassigned_in_branches():
    A = f32(6)
    np.testing.assert_allclose(build(k_scalar_reassigned)(A), np.where(A * 2 > 0, A * 2 + 10, -A * 2), rtol=1e-6)


def k_while_array_cond(A: int32[8]) -> int32:
    i: int32 = 0
    while i < 8 and A[i] > 0:
        i += 1
    return i


def test_while_condition_reading_an_array():
    A = np.array([3, 1, 4, 1, -5, 9, 2, 6], np.int32)
    assert int(build(k_while_array_cond)(A)) == 4
    assert int(build(k_while_array_cond)(np.ones(8, np.int32))) == 8


def ret_arg(A: float32[4]) -> float32[4]:
    return A


def ret_global(A: float32[8]) -> float32[8]:
    return WEIGHTS


def ret_twice(A: float32[4]) -> (float32[4], float32[4]):
    B = A + 1.0
    return B, B


def test_returning_arguments_globals_and_the_same_buffer_twice():
    A = f32(4)
    before = A.copy()
    out = build(ret_arg)(A)
    assert out is A  # `return A` hands back the caller's own array
    np.testing.assert_array_equal(out, before)
    mod = build(ret_global)
    for _ in range(3):  # the constant must survive repeated calls (never freed or overwritten)
        g = mod(f32(8))
        np.testing.assert_array_equal(g, WEIGHTS)
        g[:] = -1
    P, Q = build(ret_twice)(A)
    np.testing.assert_allclose(P, A + 1, rtol=1e-6)
    np.testing.assert_allclose(Q, A + 1, rtol=1e-6)
    assert not np.shares_memory(P, Q)


@allo.kernel(template="T, N, K")
def t_compile_time_if(A: "T[N]") -> "T[N]":
    B: "T[N]" = 0  # quoted local annotation
    for i in range(N):  # noqa: F821
        if K > 0:  # noqa: F821 - decided at compile time
            B[i] = A[i] + K  # noqa: F821
        else:
            B[i] = A[i] * 2
    return B


def test_compile_time_condition_and_quoted_local_annotation():
    A = f32(5)
    np.testing.assert_allclose(t_compile_time_if[float32, 5, 3](A), A + 3, rtol=1e-6)
    np.testing.assert_allclose(t_compile_time_if[float32, 5, 0](A), A * 2, rtol=1e-6)
    text = str(allo.customize(t_compile_time_if, instantiate=[float32, 5, 0]).module)
    assert "scf.if" not in text


def k_float16_whole(A: float16[3, 4], B: float16[3, 4]) -> float16[3, 4]:
    return A * B + A


def test_float16_whole_array():
    A = RNG.uniform(-2, 2, (3, 4)).astype(np.float16)
    B = RNG.uniform(-2, 2, (3, 4)).astype(np.float16)
    got = build(k_float16_whole)(A, B)
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float32), (A * B + A).astype(np.float32), rtol=2e-3, atol=2e-3)


def k_int64_big(A: int64[3]) -> int64[3]:
    B: int64[3] = 0
    for i in range(3):
        B[i] = A[i] * 3 + 9007199254740993
    return B


def test_int64_values_beyond_float_precision():
    A = np.array([2 ** 61, -(2 ** 62), 12345678901234567], np.int64)
    np.testing.assert_array_equal(build(k_int64_big)(A), A * 3 + 9007199254740993)
