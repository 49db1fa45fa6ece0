"""`<<`, `>>` and `~` on fixed point (issue 28 item 9: docs/language.md's type table allowed them,
the builder refused them). As ap_fixed's operators they act on the raw bits and keep the type
(`x << 1` doubles x, wrapping at its width); the amount follows allo's integer shift rule (outside
[0, width): 0, or the sign fill for a signed `>>`). LLVM, the interpreter and C simulation (allo's
headers and Xilinx's) agree bit for bit."""
import numpy as np
import pytest

import allo
from allo.interp import run as interp_run
from allo.ir.fixed import from_raw, to_raw
from allo.ir.types import Fixed, UFixed, int8

from .test_bit_growth import run_with_xilinx_headers


def shifts(T):
    def k(A: T[8], N: int8[8]) -> (T[8], T[8], T[8], T[8]):
        L: T[8] = 0
        R: T[8] = 0
        inv: T[8] = 0
        C: T[8] = 0
        for i in range(8):
            L[i] = A[i] << N[i]
            R[i] = A[i] >> N[i]
            inv[i] = ~A[i]
            x: T = A[i]
            x <<= 1
            C[i] = x
        return L, R, inv, C
    return k


def expected(A, N, T):
    signed, w = isinstance(T, Fixed), T.bits
    raw = [int(r) for r in to_raw(A, T)]

    def wrap(v):
        v &= (1 << w) - 1
        return v - (1 << w) if signed and v >> (w - 1) else v

    def shl(v, n):
        return 0 if n < 0 or n >= w else wrap(v << n)

    def shr(v, n):
        return (v >> (w - 1) if signed else 0) if n < 0 or n >= w else v >> n

    cols = ([shl(v, int(n)) for v, n in zip(raw, N)], [shr(v, int(n)) for v, n in zip(raw, N)],
            [wrap(~v) for v in raw], [shl(v, 1) for v in raw])
    return [from_raw(np.array(c, dtype=object).astype(np.int64 if signed else np.uint64), T) for c in cols]


CASES = [Fixed(16, 8), UFixed(12, 4), Fixed(64, 20), UFixed(64, 3)]


@pytest.mark.parametrize("T", CASES, ids=repr)
def test_fixed_point_shifts_and_invert_act_on_the_raw_bits(T):
    rng = np.random.default_rng(T.bits)
    A = rng.uniform(-100, 100, 8) if isinstance(T, Fixed) else rng.uniform(0, 200, 8)
    N = np.array([0, 1, 3, -1, T.bits - 1, T.bits, 100, -128], np.int8)
    s = allo.customize(shifts(T))
    want = expected(A, N, T)
    for got in (s.build()(A, N), interp_run(s.ir, A, N), s.build(target="vhls", mode="csim")(A, N)):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


def test_fixed_point_shifts_with_the_xilinx_headers(xilinx_ap_types, tmp_path):
    T = Fixed(16, 8)
    A, N = np.linspace(-90, 90, 8), np.array([0, 1, 3, -1, 15, 16, 100, -128], np.int8)
    mod = allo.customize(shifts(T)).build(target="vhls", mode="csim", project=str(tmp_path / "p"))
    for g, w in zip(run_with_xilinx_headers(mod, [A, N], xilinx_ap_types), expected(A, N, T)):
        np.testing.assert_array_equal(g, w)


def test_shift_by_a_constant_doubles_and_halves():
    def k(A: Fixed(16, 8)[2]) -> Fixed(16, 8)[2]:
        B: Fixed(16, 8)[2] = 0
        B[0] = A[0] << 2
        B[1] = A[1] >> 1
        return B
    s = allo.customize(k)
    np.testing.assert_array_equal(s.build()(np.array([1.25, -3.5])), [5.0, -1.75])
    assert "<<" in s.build(target="vhls").hls_code and allo.report(s).latency_cycles > 0
