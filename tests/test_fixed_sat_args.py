"""Saturating Fixed/UFixed arguments (issue 24 item 4's exception): a float argument outside the range
of a type whose overflow mode saturates (sat, sat_zero, sat_sym) saturates as a store into that type
would (after flooring to the fraction bits), +-inf too, on LLVM, in the C simulation and on the
static RTL (and in the interpreter); NaN and every out-of-range value of a wrapping type stay an AlloTypeError."""
import os
import subprocess

import numpy as np
import pytest

import allo
from allo.interp import run
from allo.ir.types import Fixed, UFixed

from .rtl_util import needs_rtl

HAVE_CXX = subprocess.run(["which", os.environ.get("CXX", "g++")], capture_output=True).returncode == 0


@allo.kernel(template="T")
def echo(A: "T[6]", s: "T") -> "T[7]":
    C: T[7] = 0
    for i in range(6):
        C[i] = A[i]
    C[6] = s
    return C


X = np.array([100.0, -100.0, np.inf, -np.inf, 0.3, -8.0])


def want(t, x):
    """The saturated values, written out per mode (raw = floor(x * 2^f) first)."""
    lo = -(2 ** (t.bits - 1)) if isinstance(t, Fixed) else 0
    hi = 2 ** (t.bits - 1) - 1 if isinstance(t, Fixed) else 2 ** t.bits - 1
    out = []
    for v in x:
        raw = v if np.isinf(v) else np.floor(v * 2 ** t.frac)
        if t.overflow == "sat_zero":
            out.append(raw if lo <= raw <= hi else 0)
            continue
        low = -hi if t.overflow == "sat_sym" and isinstance(t, Fixed) else lo
        out.append(min(max(raw, low), hi))
    return np.array(out, dtype=np.float64) / 2 ** t.frac


SAT_TYPES = [Fixed(8, 4, overflow="sat"), Fixed(8, 4, overflow="sat_sym"), Fixed(8, 4, overflow="sat_zero"),
             UFixed(8, 3, overflow="sat"), Fixed(16, 8, rounding="rnd", overflow="sat"), Fixed(64, 20, overflow="sat")]


@pytest.mark.parametrize("t", SAT_TYPES, ids=repr)
def test_llvm_saturates_out_of_range_arguments(t):
    mod = echo[t]
    for s in (1e9, -np.inf, 0.3):
        got = mod(X, s)
        np.testing.assert_array_equal(got, np.r_[want(t, X), want(t, [s])], err_msg=repr(t))
    x = X.copy()
    np.testing.assert_array_equal(run(echo.customize(instantiate=[t]).ir, x, 1e9),
                                  np.r_[want(t, X), want(t, [1e9])])  # the reference interpreter too
    np.testing.assert_array_equal(x, X)  # a read-only input is not overwritten by its converted values


@pytest.mark.parametrize("t", [SAT_TYPES[0], SAT_TYPES[3]], ids=repr)
def test_nan_is_still_refused_by_a_saturating_type(t):
    mod = echo[t]
    with pytest.raises(allo.AlloTypeError, match="NaN is not a value"):
        mod(np.array([0.0, np.nan, 0, 0, 0, 0]), 0.0)
    with pytest.raises(allo.AlloTypeError, match="nan is not a value"):
        mod(np.zeros(6), float("nan"))


@pytest.mark.parametrize("t", [Fixed(8, 4), Fixed(8, 4, rounding="rnd"), UFixed(8, 3, rounding="rnd_conv")], ids=repr)
def test_wrapping_types_still_refuse_out_of_range_arguments(t):
    mod = echo[t]
    with pytest.raises(allo.AlloTypeError, match="is outside"):
        mod(np.array([100.0, 0, 0, 0, 0, 0]), 0.0)
    with pytest.raises(allo.AlloTypeError, match="is outside"):
        mod(np.zeros(6), 100.0)
    with pytest.raises(allo.AlloTypeError, match="is not a value"):
        mod(np.zeros(6), float("inf"))


@pytest.mark.skipif(not HAVE_CXX, reason="needs g++")
def test_csim_saturates_like_llvm():
    t = SAT_TYPES[1]
    mod = echo.customize(instantiate=[t]).build(target="vhls", mode="csim")
    np.testing.assert_array_equal(mod(X, -1e9), np.r_[want(t, X), want(t, [-1e9])])
    with pytest.raises(allo.AlloTypeError, match="NaN is not a value"):
        mod(np.array([np.nan] * 6), 0.0)
    plain = echo.customize(instantiate=[Fixed(8, 4)]).build(target="vhls", mode="csim")
    with pytest.raises(allo.AlloTypeError, match="is outside"):
        plain(X, 0.0)


@needs_rtl
def test_rtl_saturates_like_llvm():
    t = SAT_TYPES[0]
    mod = echo.customize(instantiate=[t]).build(target="rtl")
    np.testing.assert_array_equal(mod(X, 1e9), np.r_[want(t, X), want(t, [1e9])])
    with pytest.raises(allo.AlloTypeError, match="NaN is not a value"):
        mod(np.array([np.nan] * 6), 0.0)
    plain = echo.customize(instantiate=[Fixed(8, 4)]).build(target="rtl")
    with pytest.raises(allo.AlloTypeError, match="is outside"):
        plain(X, 0.0)
