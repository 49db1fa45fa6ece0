"""Regressions for what the differential fuzzer (tests/test_fuzz_differential.py) found: each kernel is
the fuzzer's program cut down to the construct that failed, checked LLVM == csim == interpreter."""
import os
import subprocess

import numpy as np
import pytest

import allo
from allo.interp import run
from allo.ir.types import Fixed, Int, UFixed, UInt, float32, int8, int32

from .fuzz_kernels import same_bits

HAVE_CXX = subprocess.run(["which", os.environ.get("CXX", "g++")], capture_output=True).returncode == 0
needs_cxx = pytest.mark.skipif(not HAVE_CXX, reason="needs g++")


def agree(fn, *args, csim=True):
    """Results of LLVM, the interpreter and (if `csim`) the C simulation, after checking they agree."""
    s = allo.customize(fn)
    copy = lambda: [a.copy() if isinstance(a, np.ndarray) else a for a in args]  # noqa: E731
    want = run(s.ir, *copy())
    llvm = s.build()(*copy())
    assert same_bits(llvm, want), f"LLVM {llvm} != interpreter {want}"
    if csim:
        hls = s.build(target="vhls", mode="csim")(*copy())
        assert same_bits(hls, want), f"csim {hls} != interpreter {want}"
    return want


UF4_2, I1 = UFixed(4, 2), Int(1)


def bool_into_ufixed(A: UF4_2[6], s: I1) -> UF4_2[6]:
    C: UF4_2[6] = 0
    for i in range(6):
        C[i] = max(A[i], (s ** 0))
    return C


@needs_cxx
def test_a_one_bit_value_converts_to_unsigned_fixed_in_csim():
    """allo_ap.h compared a bool with 0 when building a fixed value from it (-Werror=bool-compare)."""
    A = np.array([0, 0.25, 0.5, 1.0, 3.75, 2.0])
    np.testing.assert_array_equal(agree(bool_into_ufixed, A, -1), [1, 1, 1, 1, 3.75, 2])


def unused_local_reads_a_local(A: int32[4]) -> int32[4]:
    B: int32[4] = 0
    for i in range(4):
        sel: int32 = A[i] * 2
        unused: int32 = sel + 1
        B[i] = A[i] + 1
    return B


@needs_cxx
def test_a_local_read_only_by_an_unused_local_compiles_in_csim():
    """The C++ of a local used only to initialise an unused local failed with -Werror (set but not used)."""
    A = np.arange(4, dtype=np.int32)
    np.testing.assert_array_equal(agree(unused_local_reads_a_local, A), A + 1)


U1 = UInt(1)


def one_bit_ops(A: int8[16], N: int8[16]) -> (U1[16], U1[16], U1[16], U1[16], U1[16], U1[16], U1[16]):
    R0: U1[16] = 0
    R1: U1[16] = 0
    R2: U1[16] = 0
    R3: U1[16] = 0
    R4: U1[16] = 0
    R5: U1[16] = 0
    R6: U1[16] = 0
    for i in range(16):
        x: U1 = A[i][0]
        y: U1 = A[i][1]
        R0[i] = x << N[i]
        R1[i] = x >> N[i]
        R2[i] = x ** N[i]
        R3[i] = -x
        R4[i] = ~x
        R5[i] = x << y
        R6[i] = x ** 0
    return R0, R1, R2, R3, R4, R5, R6


@needs_cxx
def test_shifts_powers_and_negation_of_one_bit_values():
    """The interpreter had no shift or power for 1-bit values (KeyError 'shr') and negated np.bool_."""
    A = np.repeat(np.arange(4, dtype=np.int8), 4)
    N = np.tile(np.array([0, 1, -1, 3], np.int8), 4)
    x, y, n = A & 1, (A >> 1) & 1, N.astype(int)
    want = [x * (n == 0), x * (n == 0), x | (n == 0), x, 1 - x, x * (y == 0), np.ones(16)]
    for k, (got, w) in enumerate(zip(agree(one_bit_ops, A, N), want)):
        np.testing.assert_array_equal(got.astype(int), w, err_msg=f"R{k}")


I63, FX32_31 = Int(63), Fixed(32, 31)


def wide_fixed_to_float(A: I63[3], s: FX32_31) -> float32[3]:
    C: float32[3] = 0
    for i in range(3):
        C[i] = min(s ** 3, A[i])  # a Fixed(156, 93) value converted to float32
    return C


@needs_cxx
def test_a_wide_fixed_value_converts_to_float_through_f64():
    """The interpreter converted the raw integer straight to float32 (-inf beyond 3.4e38) before
    scaling; the LLVM build goes raw -> f64 -> times 2**-frac -> f32."""
    A = np.array([-3035378300000000000, 5, 2**62 - 1], np.int64)
    got = agree(wide_fixed_to_float, A, 0.25)
    np.testing.assert_array_equal(got, np.float32([float(A[0]), 0.015625, 0.015625]))


def one_bit_slice_stores(A: int32[8], V: int32[8]) -> int32[8]:
    C: int32[8] = 0
    for i in range(8):
        x: int32 = A[i]
        x[3:4] = V[i]
        x[0:1] = 2
        x[5:6] = i
        x[7:9] = V[i]
        x[31:32] = V[i] > 2
        C[i] = x
    return C


def _set_bits(x, lo, hi, v):
    mask = ((1 << (hi - lo)) - 1) << lo
    return (x & ~mask) | ((v << lo) & mask)


@needs_cxx
def test_a_one_bit_slice_store_keeps_the_low_bit_of_the_value():
    """`x[lo:lo+1] = v` stored `v != 0` (a cast to UInt(1) is a truth test) instead of v's low bit."""
    A = np.arange(8, dtype=np.int32) * 37
    V = np.array([0, 1, 2, 3, 4, 5, -1, -2], dtype=np.int32)
    want = []
    for i, (a, v) in enumerate(zip(A.tolist(), V.tolist())):
        for lo, hi, b in ((3, 4, v), (0, 1, 2), (5, 6, i), (7, 9, v), (31, 32, int(v > 2))):
            a = _set_bits(a, lo, hi, b)
        want.append(a)
    want = np.array(want, dtype=np.int64).astype(np.uint32).view(np.int32)
    np.testing.assert_array_equal(agree(one_bit_slice_stores, A, V), want)
