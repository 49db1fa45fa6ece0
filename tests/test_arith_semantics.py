"""Hardware arithmetic as an HLS engineer means it: exact int8 GEMM and fixed-point FIR, bit-level
operations, literals that do not fit the other operand, one variable declared in both branches of
an if/else, and the 64-bit limit at the numpy boundary. LLVM, the interpreter and C simulation agree.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import torch

import allo
from allo.ir.fixed import from_raw, to_raw
from allo.interp import run as interp_run
from allo.ir.types import (Fixed, bool as bool_t, float32, float64, int8, int16, int32, int64, int128, uint8, uint64,
                           uint128)  # noqa: F401
from allo.library import nn

from .test_bit_growth import run_with_xilinx_headers

rng = np.random.default_rng(7)


def wrap(v, bits, signed=True):
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >> (bits - 1) else v


# ----------------------------------------------------------------------------- int8 GEMM, fixed FIR
def gemm8(A: int8[32, 32], B: int8[32, 32]) -> int32[32, 32]:
    C: int32[32, 32] = 0
    for i, j in allo.grid(32, 32):
        for k in allo.reduction(32):
            C[i, j] += A[i, k] * B[k, j]
    return C


def test_int8_gemm_accumulates_exactly_into_int32():
    A = rng.integers(-128, 128, (32, 32)).astype(np.int8)
    B = rng.integers(-128, 128, (32, 32)).astype(np.int8)
    ref = A.astype(np.int64) @ B.astype(np.int64)
    s = allo.customize(gemm8)
    np.testing.assert_array_equal(s.build()(A, B), ref)
    np.testing.assert_array_equal(s.build(target="vhls", mode="csim")(A, B), ref)
    A[:], B[:] = -128, -128  # the largest sum: 32 * 2**14
    np.testing.assert_array_equal(s.build()(A, B), np.full((32, 32), 32 * 2 ** 14))


def q_gemm(A: int8[32, 32], B: int8[32, 32]) -> int32[32, 32]:
    return nn.qmatmul[int8, int8, int32, int32, 32, 32, 32, "q"](A, B)


def test_library_int8_gemm_exact_with_and_without_its_schedule():
    A = rng.integers(-128, 128, (32, 32)).astype(np.int8)
    B = rng.integers(-128, 128, (32, 32)).astype(np.int8)
    ref = A.astype(np.int64) @ B.astype(np.int64)
    plain = allo.customize(q_gemm)
    np.testing.assert_array_equal(plain.build()(A, B), ref)
    s = allo.customize(q_gemm)
    s.compose(nn.qmatmul, id="q", instantiate=[int8, int8, int32, int32, 32, 32, 32])
    assert "pipeline_ii" in str(s.module)
    np.testing.assert_array_equal(s.build()(A, B), ref)
    np.testing.assert_array_equal(s.build(target="vhls", mode="csim")(A, B), ref)


FX, ACC = Fixed(16, 8), Fixed(32, 16)


def fir(X: Fixed(16, 8)[40], H: Fixed(16, 8)[8]) -> Fixed(32, 16)[33]:
    Y: Fixed(32, 16)[33] = 0
    for i in range(33):
        acc: Fixed(32, 16) = 0
        for k in range(8):
            acc += X[i + k] * H[k]
        Y[i] = acc
    return Y


def test_fixed_fir_accumulates_exactly_into_a_wider_fixed():
    X = rng.uniform(-128, 128, 40)
    H = rng.uniform(-128, 128, 8)
    x = [Fraction(int(r), 256) for r in to_raw(X, FX)]
    h = [Fraction(int(r), 256) for r in to_raw(H, FX)]
    raw = [wrap(int(sum(x[i + k] * h[k] for k in range(8)) * 2 ** 16), 32) for i in range(33)]
    want = from_raw(np.array(raw), ACC)
    s = allo.customize(fir)
    np.testing.assert_array_equal(s.build()(X, H), want)
    np.testing.assert_array_equal(interp_run(s.ir, X, H), want)
    np.testing.assert_array_equal(s.build(target="vhls", mode="csim")(X, H), want)
    assert "X[i + k] * H[k]" in s.build(target="vhls").hls_code  # ap_fixed grows exactly by itself


def q_layers(X: int8[2, 3, 6, 6], Wt: int8[4, 3, 3, 3], bc: int32[4], L: int8[5, 12], W: int8[7, 12],
             b: int32[7]) -> (int32[2, 4, 4, 4], int32[5, 7]):
    Y = nn.qconv2d[int8, int8, int32, int32, 2, 3, 4, 6, 6, 3, 3, 4, 4, 1, 1, 0, 0, 1, 1, 1, "c"](X, Wt, bc)
    Z = nn.qlinear[int8, int8, int32, int32, 5, 7, 12, "l"](L, W, b)
    return Y, Z


def test_library_quantized_conv_and_linear_with_schedules():
    X, Wt = rng.integers(-128, 128, (2, 3, 6, 6)).astype(np.int8), rng.integers(-128, 128, (4, 3, 3, 3)).astype(np.int8)
    L, W = rng.integers(-128, 128, (5, 12)).astype(np.int8), rng.integers(-128, 128, (7, 12)).astype(np.int8)
    bc, b = rng.integers(-2 ** 20, 2 ** 20, 4).astype(np.int32), rng.integers(-2 ** 20, 2 ** 20, 7).astype(np.int32)
    conv = torch.nn.functional.conv2d(torch.from_numpy(X).double(), torch.from_numpy(Wt).double(),
                                      torch.from_numpy(bc).double()).numpy().astype(np.int64)
    lin = L.astype(np.int64) @ W.astype(np.int64).T + b
    s = allo.customize(q_layers)
    s.compose(nn.qconv2d, id="c", instantiate=[int8, int8, int32, int32, 2, 3, 4, 6, 6, 3, 3, 4, 4, 1, 1, 0, 0, 1, 1, 1])
    s.compose(nn.qlinear, id="l", instantiate=[int8, int8, int32, int32, 5, 7, 12])
    for got, want in zip(s.build()(X, Wt, bc, L, W, b), (conv, lin)):
        np.testing.assert_array_equal(got, want)


def q_fixed(A: Fixed(16, 8)[4, 6], B: Fixed(16, 8)[6, 5]) -> Fixed(32, 16)[4, 5]:
    return nn.qmatmul[Fixed(16, 8), Fixed(16, 8), Fixed(40, 16), Fixed(32, 16), 4, 6, 5](A, B)


def test_library_fixed_matmul_with_a_wider_accumulator():
    A, B = rng.uniform(-128, 128, (4, 6)), rng.uniform(-128, 128, (6, 5))
    a = [[Fraction(int(r), 256) for r in row] for row in to_raw(A, FX)]
    b = [[Fraction(int(r), 256) for r in row] for row in to_raw(B, FX)]
    raw = [[wrap(int(sum(a[i][k] * b[k][j] for k in range(6)) * 2 ** 16), 32) for j in range(5)] for i in range(4)]
    np.testing.assert_array_equal(allo.customize(q_fixed).build()(A, B), from_raw(np.array(raw), ACC))


# ----------------------------------------------------------------------------- bit-level operations
def bitops(X: int16[8], U: uint64[8], I: int32[8], F: float32[8]) -> (
        bool_t[8], bool_t[8], uint8[8], int16[8], int16[8], int16[8], uint64[8], uint64[8], int32[8], float32[8],
        int64[8], int64[8], int64[8]):
    G0: bool_t[8] = 0
    G1: bool_t[8] = 0
    S: uint8[8] = 0
    R: int16[8] = 0
    W1: int16[8] = 0
    W2: int16[8] = 0
    V0: uint64[8] = 0
    V1: uint64[8] = 0
    B0: int32[8] = 0
    B1: float32[8] = 0
    D0: int64[8] = 0
    D1: int64[8] = 0
    D2: int64[8] = 0
    for i in range(8):
        x: int16 = X[i]
        G0[i] = x[5]
        G1[i] = x[I[i]]  # run-time index, sometimes outside the 16 bits: 0
        S[i] = x[3:11]
        R[i] = x.reverse()
        y: int16 = x
        y[I[i]] = 1  # outside the 16 bits: unchanged
        W1[i] = y
        z: int16 = x
        z[4:12] = U[i]  # the low 8 bits of U[i]
        W2[i] = z
        w: uint128 = (uint128(U[i]) << 64) | (U[i] ^ 12345)
        V0[i] = w.reverse()[0:64]
        V1[i] = w[60:124]
        B0[i] = F[i].bitcast()
        B1[i] = I[i].bitcast()
        v: int128 = (int128(X[i]) << 70) - U[i]  # wide division, modulo and shifts (helpers in C++)
        d: int128 = int128(I[i]) - 3
        D0[i] = (v // d)[40:104]
        D1[i] = v % d
        D2[i] = (v >> I[i])[0:64] + (v << I[i])[64:128]
    return G0, G1, S, R, W1, W2, V0, V1, B0, B1, D0, D1, D2


def rev(v, bits):
    return int(format(v & ((1 << bits) - 1), f"0{bits}b")[::-1], 2)


def bit_reference(X, U, I, F):
    out = [[] for _ in range(13)]
    for x, u, i, f in zip(X.tolist(), U.tolist(), I.tolist(), F):
        ux = x & 0xFFFF
        out[0].append(bool(ux >> 5 & 1))
        out[1].append(bool(0 <= i < 16 and ux >> i & 1))
        out[2].append(ux >> 3 & 0xFF)
        out[3].append(wrap(rev(ux, 16), 16))
        out[4].append(wrap(ux | (1 << i), 16) if 0 <= i < 16 else x)
        out[5].append(wrap((ux & ~0x0FF0) | ((u & 0xFF) << 4), 16))
        w = (u << 64) | (u ^ 12345)
        out[6].append(rev(w, 128) & (2 ** 64 - 1))
        out[7].append(w >> 60 & (2 ** 64 - 1))
        out[8].append(int(np.float32(f).view(np.int32)))
        out[9].append(np.int32(i).view(np.float32))
        v, d = (x << 70) - u, i - 3
        m64 = 2 ** 64 - 1
        out[10].append(wrap(((v // d) if d else 0) >> 40 & m64, 64))
        out[11].append(wrap(v % d if d else 0, 64))
        hi = v >> i if 0 <= i < 128 else (-1 if v < 0 else 0)
        lo = (v << i) % 2 ** 128 if 0 <= i < 128 else 0
        out[12].append(wrap((hi & m64) + (lo >> 64 & m64), 64))
    return out


def test_bit_operations_round_trip_like_python_ints(xilinx_ap_types, tmp_path):
    X = rng.integers(-2 ** 15, 2 ** 15, 8).astype(np.int16)
    U = rng.integers(0, 2 ** 64, 8, dtype=np.uint64)
    I = np.array([0, 5, 15, 16, -1, 3, 40, 9], np.int32)
    F = rng.uniform(-1e6, 1e6, 8).astype(np.float32)
    want = bit_reference(X, U, I, F)
    s = allo.customize(bitops)
    llvm = s.build()(X, U, I, F)
    for k, (got, w) in enumerate(zip(llvm, want)):
        np.testing.assert_array_equal(got, np.array(w, dtype=got.dtype), err_msg=f"output {k}")
    mod = s.build(target="vhls", mode="csim", project=str(tmp_path / "bits"))
    code = mod.hls_code
    assert ".range(10, 3)" in code and "[5]" in code and "allo_reverse" in code
    for got, ref in zip(mod(X, U, I, F), llvm):
        np.testing.assert_array_equal(got, ref)
    for got, ref in zip(run_with_xilinx_headers(mod, [X, U, I, F], xilinx_ap_types), llvm):
        np.testing.assert_array_equal(got, ref)


def test_bit_operation_errors_name_the_line():
    def bad_slice(x: int8) -> int8:
        return x[4:12]

    def bad_type(x: float32) -> float32:
        return x[2]

    with pytest.raises(allo.AlloTypeError, match=r"test_arith_semantics.py:\d+: bit slice \[4:12\] is outside int8"):
        allo.customize(bad_slice)
    with pytest.raises(allo.AlloTypeError, match="needs an integer scalar"):
        allo.customize(bad_type)


# ----------------------------------------------------------------------------- literals that do not fit
def literals(A: int8[4], U: uint8[4], S: int16[4]) -> (bool_t[4], bool_t[4], bool_t[4], bool_t[4], int16[4], int16[4],
                                                       int16[4], int16[4]):
    L0: bool_t[4] = 0
    L1: bool_t[4] = 0
    L2: bool_t[4] = 0
    L3: bool_t[4] = 0
    L4: int16[4] = 0
    L5: int16[4] = 0
    L6: int16[4] = 0
    L7: int16[4] = 0
    for i in range(4):
        L0[i] = A[i] < 300
        L1[i] = U[i] > -1
        L2[i] = U[i] < 256
        L3[i] = S[i] > 40000
        L4[i] = U[i] // -2
        L5[i] = max(U[i], -5)
        L6[i] = A[i] + 1000
        L7[i] = A[i] if A[i] > 0 else 1000  # a literal in a select
    return L0, L1, L2, L3, L4, L5, L6, L7


def test_literals_that_do_not_fit_are_exact_on_llvm_and_csim():
    A = np.array([-128, -1, 0, 127], np.int8)
    U = np.array([0, 1, 200, 255], np.uint8)
    S = np.array([-32768, 0, 1, 32767], np.int16)
    a, u, sv = A.tolist(), U.tolist(), S.tolist()
    want = [[x < 300 for x in a], [x > -1 for x in u], [x < 256 for x in u], [x > 40000 for x in sv],
            [x // -2 for x in u], [max(x, -5) for x in u], [x + 1000 for x in a], [x if x > 0 else 1000 for x in a]]
    s = allo.customize(literals)
    for mod in (s.build(), s.build(target="vhls", mode="csim")):
        for k, (got, w) in enumerate(zip(mod(A, U, S), want)):
            assert [int(v) for v in got] == [int(v) for v in w], f"L{k}"


def wide_literals(A: int64[2]) -> (int64[2], int64[2], int64[2], float64[2]):
    H: int64[2] = 0
    Lo: int64[2] = 0
    Q: int64[2] = 0
    G: float64[2] = 0
    for i in range(2):
        x: uint128 = 2 ** 100 + 3
        p: int128 = A[i] * A[i] * 3  # an exact 128-bit product
        H[i] = (x + p) >> 64
        Lo[i] = x[0:64] + p[0:64]
        Q[i] = p // (A[i] - 7)  # 128-bit division: compiler-rt's __divti3 on LLVM
        G[i] = float64(p)
    return H, Lo, Q, G


def test_wide_literals_products_and_divisions_agree_on_llvm_and_csim():
    A = np.array([2 ** 62 - 5, -(2 ** 62)], np.int64)
    a = A.tolist()
    want = [[wrap(((2 ** 100 + 3) + v * v * 3) >> 64, 64) for v in a],
            [wrap(3 + ((v * v * 3) & (2 ** 64 - 1)), 64) for v in a],
            [wrap(v * v * 3 // (v - 7), 64) for v in a], [float(v * v * 3) for v in a]]
    s = allo.customize(wide_literals)
    for mod in (s.build(), s.build(target="vhls", mode="csim")):
        assert [g.tolist() for g in mod(A)] == want


def test_arguments_wider_than_64_bits_are_refused():
    def wide(A: uint128[2]) -> uint128[2]:
        return A

    s = allo.customize(wide)
    with pytest.raises(allo.AlloTypeError, match="wider than 64 bits"):
        s.build()
    with pytest.raises(allo.AlloTypeError, match="wider than 64 bits"):
        s.build(target="vhls", mode="csim")
    assert "ap_uint<128>" in s.build(target="vhls").hls_code  # plain HLS code is fine


# ----------------------------------------------------------------------------- if/else declarations
def pick(c: int32) -> int32:
    if c > 0:
        r: int32 = 1
    elif c < -10:
        r: int32 = 7
    else:
        r: int32 = 4
    return r


def test_a_name_declared_in_both_branches_is_one_variable():
    s = allo.customize(pick)
    for mod in (s.build(), s.build(target="vhls", mode="csim")):
        assert [int(mod(c)) for c in (1, -1, -20)] == [1, 4, 7]


def test_declarations_with_different_types_in_the_branches_are_an_error():
    def mixed(c: int32) -> float32:
        if c > 0:
            r: int32 = 1
        else:
            r: float32 = 4.0
        return r

    def redeclared(c: int32) -> int32:
        r: int32 = 0
        for i in range(3):
            r: int8 = 1
        return r

    with pytest.raises(allo.AlloTypeError, match=r"test_arith_semantics.py:\d+: 'r' is declared as int32 in "
                                                 r"the if branch and as float32"):
        allo.customize(mixed)
    with pytest.raises(allo.AlloTypeError, match="already declared as int32"):
        allo.customize(redeclared)
