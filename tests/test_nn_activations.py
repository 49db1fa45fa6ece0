"""Pointwise activations and unary math of allo.library.nn against torch, plus relu on integers
and fixed point."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, strategies as st

from allo.ir.fixed import quantize, wrap_int
from allo.ir.types import Fixed, float32, int8, int16, int32
from allo.library import nn

from .nn_util import FAST, check, rand, run_both, tt

dims = st.integers(1, 9)

ACTIVATIONS = {
    "relu": F.relu,
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": F.silu,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
    "exp": torch.exp,
    "neg": torch.neg,
    "abs": torch.abs,
}


@pytest.mark.parametrize("name", list(ACTIVATIONS))
@FAST
@given(M=dims, N=dims, seed=st.integers(0, 2**16))
def test_activation_matches_torch(name, M, N, seed):
    rng = np.random.default_rng(seed)
    X = rand(rng, M, N, scale=3)
    check(getattr(nn, name), [float32, M, N], (X,), ACTIVATIONS[name](tt(X)).numpy())


def test_activations_extreme_inputs():
    X = np.array([[-100.0, -20.0, -1e-3, 0.0, 1e-3, 20.0, 100.0]], np.float32)
    for name in ("gelu", "gelu_tanh", "silu", "sigmoid", "tanh"):
        check(getattr(nn, name), [float32, 1, 7], (X,), ACTIVATIONS[name](tt(X)).numpy())


POSITIVE = {"log": torch.log, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt}


@pytest.mark.parametrize("name", list(POSITIVE))
def test_positive_domain_math(name):
    rng = np.random.default_rng(0)
    X = (rng.random((5, 7)) * 10 + 0.05).astype(np.float32)
    check(getattr(nn, name), [float32, 5, 7], (X,), POSITIVE[name](tt(X)).numpy())


@FAST
@given(M=dims, N=dims, lo=st.floats(-2, 0), width=st.floats(0, 3), seed=st.integers(0, 2**16))
def test_clamp(M, N, lo, width, seed):
    X = rand(np.random.default_rng(seed), M, N, scale=3)
    lo, hi = np.float32(lo), np.float32(lo + width)
    check(nn.clamp, [float32, M, N], (X, lo, hi), torch.clamp(tt(X), float(lo), float(hi)).numpy())


def test_pow_scalar_and_pow_int():
    rng = np.random.default_rng(4)
    X = (rng.random((4, 6)) * 3 + 0.1).astype(np.float32)
    check(nn.pow_scalar, [float32, 4, 6], (X, np.float32(2.5)), torch.pow(tt(X), 2.5).numpy())
    Xn = rand(rng, 4, 6, scale=2)
    check(nn.pow_int, [float32, 4, 6, 3], (Xn,), torch.pow(tt(Xn), 3).numpy())
    check(nn.pow_int, [float32, 4, 6, 0], (Xn,), np.ones_like(Xn))


@FAST
@given(M=dims, N=dims, slope=st.sampled_from([0.01, 0.2, 1.5]), seed=st.integers(0, 2**16))
def test_leaky_relu(M, N, slope, seed):
    X = rand(np.random.default_rng(seed), M, N, scale=3)
    check(nn.leaky_relu, [float32, M, N], (X, np.float32(slope)), F.leaky_relu(tt(X), slope).numpy())


def test_cast_follows_allo_rules():
    X = np.array([[-2.7, -0.5, 0.5, 1.99, 127.9, 300.0]], np.float32)
    plain, sched = run_both(nn.cast, [float32, int8, 1, 6], (X,))
    ref = wrap_int(np.trunc(X).astype(np.int64), 8, True).astype(np.int8)  # fptosi then wrap at 8 bits
    np.testing.assert_array_equal(plain[:, :5], ref[:, :5])
    np.testing.assert_array_equal(sched, plain)
    T = Fixed(12, 4)
    plain, _ = run_both(nn.cast, [float32, T, 1, 6], (X,))
    np.testing.assert_array_equal(plain, quantize(X, T))
    I = np.array([[-129, -128, 127, 128, 1000, 255]], np.int32)
    plain, _ = run_both(nn.cast, [int32, int8, 1, 6], (I,))
    np.testing.assert_array_equal(plain, I.astype(np.int8))


def test_maximum_minimum():
    rng = np.random.default_rng(5)
    A, B = rand(rng, 3, 5), rand(rng, 3, 5)
    check(nn.maximum, [float32, 3, 5], (A, B), np.maximum(A, B))
    check(nn.minimum, [float32, 3, 5], (A, B), np.minimum(A, B))


@pytest.mark.parametrize("T", [int8, int16, int32], ids=repr)
def test_relu_integers(T):
    X = np.random.default_rng(6).integers(-100, 100, (4, 9)).astype(T.np_dtype)
    plain, sched = run_both(nn.relu, [T, 4, 9], (X,))
    np.testing.assert_array_equal(plain, np.maximum(X, 0))
    np.testing.assert_array_equal(sched, plain)


def test_relu_fixed_point():
    T = Fixed(12, 5)
    X = rand(np.random.default_rng(7), 3, 8, scale=4)
    plain, sched = run_both(nn.relu, [T, 3, 8], (X,))
    np.testing.assert_array_equal(plain, np.maximum(quantize(X, T), 0))
    np.testing.assert_array_equal(sched, plain)
