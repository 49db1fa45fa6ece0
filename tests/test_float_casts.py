"""Float -> integer and float -> fixed-point conversions (docs/language.md section 4): truncate
toward zero (fixed point: floor of x * 2**F), wrap to the target width, NaN and +-inf give 0; at
every width up to 1024 bits, the same on LLVM, C simulation and the reference interpreter.
(The RTL routes have no floating point: a float cast there is a BackendError at the line.)
"""

import math

import numpy as np
import pytest

import allo
from allo.interp import run as interp_run
from allo.ir.types import Fixed, Int, UFixed, UInt, float16, float32, float64, int8, int32, int64, uint8, uint64

from .test_bit_growth import run_with_xilinx_headers

VALUES = [1e19, -1e19, 3e20, 2.0 ** 64 + 2 ** 12, -2.5, 2.75, 1e300, -2.0 ** 63, math.nan, -math.inf, math.inf,
          123456789.9]
WIDE = (Int(1024), UInt(200))  # returned as their 64-bit pieces
FIXED = (Fixed(64, 8), Fixed(16, 4), UFixed(64, 3))


def wrap(v: int, bits: int, signed: bool) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >> (bits - 1) else v


def expected_int(x: float, t) -> int:
    return 0 if not math.isfinite(x) else wrap(int(x), t.bits, isinstance(t, Int))


def expected_fixed(x: float, t) -> float:
    s = x * 2.0 ** t.frac
    raw = 0 if not math.isfinite(s) else wrap(math.floor(s), t.bits, isinstance(t, Fixed))
    return raw / 2.0 ** t.frac


def casts(S):
    n = len(VALUES)

    def k(A: S[n]) -> (int64[n], uint64[n], int32[n], uint8[n], int8[n], Fixed(64, 8)[n], Fixed(16, 4)[n],
                       UFixed(64, 3)[n], int64[n, 16], int64[n, 4]):
        I64: int64[n] = 0
        U64: uint64[n] = 0
        I32: int32[n] = 0
        U8: uint8[n] = 0
        I8: int8[n] = 0
        F1: Fixed(64, 8)[n] = 0
        F2: Fixed(16, 4)[n] = 0
        F3: UFixed(64, 3)[n] = 0
        W1: int64[n, 16] = 0
        W2: int64[n, 4] = 0
        for i in range(n):
            I64[i] = int64(A[i])
            U64[i] = uint64(A[i])
            I32[i] = int32(A[i])
            U8[i] = uint8(A[i])
            I8[i] = A[i]  # a store converts like a cast
            F1[i] = Fixed(64, 8)(A[i])
            F2[i] = Fixed(16, 4)(A[i])
            F3[i] = A[i]
            x: Int(1024) = Int(1024)(A[i])
            y: UInt(200) = UInt(200)(A[i])
            for j in range(16):
                W1[i, j] = int64(x >> (j * 64))
            for j in range(4):
                W2[i, j] = int64(y >> (j * 64))
        return I64, U64, I32, U8, I8, F1, F2, F3, W1, W2
    return k


def expected(a):
    xs = [float(v) for v in a]
    out = [np.array([expected_int(x, t) for x in xs], dtype=object) for t in (int64, uint64, int32, uint8, int8)]
    out += [np.array([expected_fixed(x, t) for x in xs]) for t in FIXED]
    for t, pieces in zip(WIDE, (16, 4)):
        out.append(np.array([[wrap(expected_int(x, t) >> (64 * j), 64, True) for j in range(pieces)] for x in xs],
                            dtype=object))
    return out


def same(got, want):
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert np.array_equal(np.asarray(g).astype(object), w.astype(object)), f"result {k}: {g} != {w}"


@pytest.mark.parametrize("S", [float64, float32, float16], ids=repr)
def test_float_to_int_and_fixed_wrap_identically_on_every_backend(S):
    with np.errstate(over="ignore"):
        a = np.array(VALUES).astype(S.np_dtype)
    s = allo.customize(casts(S))
    want = expected(a)
    same(s.build()(a), want)
    same(interp_run(s.ir, a), want)
    same(s.build(target="vhls", mode="csim")(a), want)


def test_the_csim_rule_is_the_same_with_the_xilinx_headers(xilinx_ap_types, tmp_path):
    a = np.array(VALUES)
    s = allo.customize(casts(float64))
    mod = s.build(target="vhls", mode="csim", project=str(tmp_path / "p"))
    same(run_with_xilinx_headers(mod, [a], xilinx_ap_types), expected(a))


def test_out_of_range_64_bit_targets_wrap_instead_of_saturating():
    # the findings of the fuzzing round: INT64_MIN / UINT64_MAX on LLVM, 0 in csim before
    s = allo.customize(casts(float64))
    i64, u64 = s.build()(np.array(VALUES))[:2]
    assert i64[0] == 10 ** 19 - 2 ** 64 and u64[1] == 2 ** 64 - 10 ** 19 and u64[4] == 2 ** 64 - 2
