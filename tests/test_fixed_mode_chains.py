"""Chained rounding / saturating casts stay linear in size: the expansion of a mode cast
(allo/ir/fixed_modes.py) reads its operand several times, so `B(A(B(A(x))))` used to grow
exponentially as a tree (6 casts: minutes and ~50 MB of MLIR). The builder stores a large operand of
a mode cast in a scalar local, and the MLIR renderer emits a node shared within an expression once.
Results match an exact Fraction reference on LLVM, the interpreter and the C simulation."""
import os
import subprocess
from fractions import Fraction

import numpy as np
import pytest

import allo
from allo.interp import run
from allo.ir.fixed_modes import quantize_exact
from allo.ir.types import Fixed, float32

A = Fixed(16, 8, rounding="rnd_conv", overflow="sat")
B = Fixed(12, 4, rounding="rnd_conv", overflow="sat_sym")
HAVE_CXX = subprocess.run(["which", os.environ.get("CXX", "g++")], capture_output=True).returncode == 0


def chain2(X: float32[4]) -> Fixed(12, 4, rounding="rnd_conv", overflow="sat_sym")[4]:
    Y: Fixed(12, 4, rounding="rnd_conv", overflow="sat_sym")[4]
    for i in range(4):
        Y[i] = B(A(X[i]))
    return Y


def chain6(X: float32[4]) -> Fixed(12, 4, rounding="rnd_conv", overflow="sat_sym")[4]:
    Y: Fixed(12, 4, rounding="rnd_conv", overflow="sat_sym")[4]
    for i in range(4):
        Y[i] = B(A(B(A(B(A(X[i]))))))
    return Y


def stored_chain(X: float32[4]) -> Fixed(16, 8, rounding="rnd_conv", overflow="sat")[4]:
    Y: Fixed(16, 8, rounding="rnd_conv", overflow="sat")[4]
    for i in range(4):
        t: Fixed(16, 8, rounding="rnd_conv", overflow="sat") = B(A(B(X[i]))) * 3
        t += B(A(X[i])) * 2
        Y[i] = t
    return Y


def reference(x, types):
    out = []
    for v in x:
        r = Fraction(float(v))
        for t in types:
            r = quantize_exact(r, t)
        out.append(float(r))
    return np.array(out)


X = np.array([0.3, -100.0, 7.78125, 1e9], np.float32)


def test_six_chained_mode_casts_stay_small_and_exact():
    small = str(allo.customize(chain2).module).count(" = ")
    s = allo.customize(chain6)
    assert str(s.module).count(" = ") <= 4 * small  # linear in the chain length (was ~54x per 2 casts)
    want = reference(X, [A, B] * 3)
    np.testing.assert_array_equal(s.build()(X), want)
    np.testing.assert_array_equal(run(s.ir, X), want)
    assert len(s.build(target="vhls").hls_code) < 60_000


@pytest.mark.skipif(not HAVE_CXX, reason="needs g++")
def test_chained_mode_casts_in_csim():
    s = allo.customize(chain6)
    np.testing.assert_array_equal(s.build(target="vhls", mode="csim")(X), reference(X, [A, B] * 3))


def test_mode_casts_inside_stored_expressions():
    s = allo.customize(stored_chain)
    want = []
    for v in X:
        f = Fraction(float(v))
        t = quantize_exact(quantize_exact(quantize_exact(quantize_exact(f, B), A), B) * 3, A)
        t = quantize_exact(t + quantize_exact(quantize_exact(f, A), B) * 2, A)
        want.append(float(t))
    np.testing.assert_array_equal(s.build()(X), want)
    np.testing.assert_array_equal(run(s.ir, X), want)
