"""Fixed/UFixed arguments at the edges of their range (issue 21 items 2 and 5): every value of the
type passes exactly (a UFixed(64, f) raw of 2**63 or more went through int64 and came back as
garbage), and a value outside the type, NaN or inf is an AlloTypeError naming the argument, the
value and the range, for scalars and arrays, on LLVM and in the C simulation, as for integers."""
import math
import os
import subprocess

import numpy as np
import pytest

import allo
from allo.interp import run
from allo.ir.types import Fixed, Int, UFixed, int8, uint32

HAVE_CXX = subprocess.run(["which", os.environ.get("CXX", "g++")], capture_output=True).returncode == 0


@allo.kernel(template="T")
def echo(A: "T[6]", s: "T") -> "T[7]":
    C: T[7] = 0
    for i in range(6):
        C[i] = A[i]
    C[6] = s
    return C


TYPES = [Fixed(w, f) for w, f in ((8, 0), (8, 3), (8, 8), (16, 5), (32, 31), (53, 10), (54, 0), (63, 7), (64, 0),
                                  (64, 20), (64, 64))]
TYPES += [UFixed(w, f) for w, f in ((8, 0), (8, 8), (16, 9), (32, 0), (53, 3), (54, 1), (63, 63), (64, 0), (64, 4),
                                    (64, 32), (64, 64))]


def raw_range(t):
    return (-(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1) if isinstance(t, Fixed) else (0, (1 << t.bits) - 1)


def edge_values(t) -> np.ndarray:
    """Exact values of t (float64 k / 2**f) at and next to both ends, zero, and 2**63 raws."""
    lo, hi = raw_range(t)
    top = math.ldexp(1.0, t.bits - (1 if isinstance(t, Fixed) else 0))   # (hi + 1) as a float: exact
    below_top = top - 1 if top <= 2**53 else float(np.nextafter(top, 0))  # the largest integer float <= hi
    raws = [lo, lo + 1, 0, 1, below_top, float(hi - 1) if hi < 2**53 else below_top]
    if t.bits == 64 and not isinstance(t, Fixed):
        raws[2:4] = [2.0**63, 2.0**63 + 2.0**11]  # beyond int64: what went through int64 before
    return np.array([math.ldexp(float(r), -t.frac) for r in raws])


@pytest.mark.parametrize("t", TYPES, ids=repr)
def test_every_value_of_a_fixed_type_passes_exactly(t):
    x = edge_values(t)
    mod = echo[t]
    for s in (x[0], x[4], x[2]):
        got = mod(x, s)
        np.testing.assert_array_equal(got, np.r_[x, s], err_msg=repr(t))
    assert run(echo.customize(instantiate=[t]).ir, x, x[4]).tolist() == np.r_[x, x[4]].tolist()


@pytest.mark.parametrize("t", TYPES, ids=repr)
def test_a_value_outside_a_fixed_type_is_refused(t):
    lo, hi = raw_range(t)
    step = math.ldexp(1.0, -t.frac)
    below, above = math.ldexp(float(lo), -t.frac) - step, math.ldexp(float(hi) + 1.0, -t.frac)
    if t.bits > 53:  # one step is below float64's resolution there: go a few ulps out
        below, above = np.nextafter(math.ldexp(float(lo), -t.frac), -np.inf), above * (1 + 2**-52)
    mod = echo[t]
    x = edge_values(t)
    for bad in (below, above, math.nan, math.inf, -math.inf):
        with pytest.raises(allo.AlloTypeError, match=r"argument 1 \('s'\).*(outside|not a value of) .*range \["):
            mod(x, bad)
        arr = x.copy()
        arr[3] = bad
        with pytest.raises(allo.AlloTypeError, match=r"argument 0 \('A'\).*outside .*range \["):
            mod(arr, x[0])


@pytest.mark.skipif(not HAVE_CXX, reason="needs g++")
@pytest.mark.parametrize("t", [UFixed(64, 4), Fixed(64, 20)], ids=repr)
def test_the_c_simulation_takes_the_same_values_and_refuses_the_same(t):
    x = edge_values(t)
    mod = echo.customize(instantiate=[t]).build(target="vhls", mode="csim")
    np.testing.assert_array_equal(mod(x, x[4]), np.r_[x, x[4]])
    with pytest.raises(allo.AlloTypeError, match="outside"):
        mod(x, x[4] * 2)
    with pytest.raises(allo.AlloTypeError, match="outside"):
        mod(x * 2, x[0])


def ints(A: Int(5)[3], s: Int(5), u: uint32) -> int8[3]:
    B: int8[3] = 0
    for i in range(3):
        B[i] = A[i] + s + u
    return B


def test_integer_arguments_follow_the_same_rule():
    """An int scalar out of range wrapped (int8 200 -> -56) while an int64 array out of range was
    refused; an int8 array holding 100 for an Int(5) parameter wrapped too. All are refused now."""
    mod = allo.customize(ints).build()
    A = np.array([-16, 15, 0], np.int8)
    np.testing.assert_array_equal(mod(A, -16, 0), A - 16)
    for args, where, value in (((A, 16, 0), "argument 1 \\('s'\\)", "16"), ((A, -17, 0), "argument 1", "-17"),
                               ((A, 0, -1), "argument 2 \\('u'\\)", "-1"), ((A, 0, 2**32), "argument 2", str(2**32)),
                               ((np.array([100, 0, 0], np.int8), 0, 0), "argument 0 \\('A'\\)", "100")):
        with pytest.raises(allo.AlloTypeError, match=f"{where}.*{value}.*range"):
            mod(*args)
