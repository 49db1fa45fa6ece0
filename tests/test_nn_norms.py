"""softmax, log_softmax, layer_norm, rms_norm, batch_norm2d against torch."""
import numpy as np
import torch.nn.functional as F
from hypothesis import given, strategies as st

from allo.ir.types import float32
from allo.library import nn

from .nn_util import FAST, check, rand, tt

dims = st.integers(1, 9)
eps_values = st.sampled_from([1e-5, 1e-6, 1e-3, 0.1])


@FAST
@given(M=dims, N=dims, scale=st.sampled_from([1.0, 10.0, 100.0]), seed=st.integers(0, 2**16))
def test_softmax_and_log_softmax(M, N, scale, seed):
    X = rand(np.random.default_rng(seed), M, N, scale=scale)
    check(nn.softmax, [float32, M, N], (X,), F.softmax(tt(X), -1).numpy())
    check(nn.log_softmax, [float32, M, N], (X,), F.log_softmax(tt(X), -1).numpy(), atol=1e-4, rtol=1e-4)


def test_softmax_large_logits_do_not_overflow():
    X = np.array([[1000.0, 999.0, -1000.0], [88.0, 89.0, 90.0]], np.float32)
    check(nn.softmax, [float32, 2, 3], (X,), F.softmax(tt(X), -1).numpy())
    check(nn.log_softmax, [float32, 2, 3], (X,), F.log_softmax(tt(X), -1).numpy())


def test_log_softmax_keeps_small_log_sums_next_to_large_maxima():
    # x ~ 1000: x - (max + log(sum)) would round log(sum) ~ 3e-4 away at max ~ 2000 (ulp 1.2e-4)
    X = (1000 * np.random.default_rng(5).standard_normal((8, 8))).astype(np.float32)
    x = X.astype(np.float64)
    y = x - x.max(-1, keepdims=True)
    ref = (y - np.log(np.exp(y).sum(-1, keepdims=True))).astype(np.float32)
    check(nn.log_softmax, [float32, 8, 8], (X,), ref, atol=1e-5, rtol=1e-5)


@FAST
@given(M=dims, N=st.integers(1, 12), eps=eps_values, offset=st.sampled_from([0.0, 50.0]),
       seed=st.integers(0, 2**16))
def test_layer_norm(M, N, eps, offset, seed):
    rng = np.random.default_rng(seed)
    X = rand(rng, M, N) + np.float32(offset)
    g, b = rand(rng, N), rand(rng, N)
    ref = F.layer_norm(tt(X), (N,), tt(g), tt(b), eps).numpy()
    check(nn.layer_norm, [float32, M, N], (X, g, b, np.float32(eps)), ref, atol=2e-4, rtol=1e-4)


@FAST
@given(M=dims, N=st.integers(1, 12), eps=eps_values, seed=st.integers(0, 2**16))
def test_rms_norm(M, N, eps, seed):
    rng = np.random.default_rng(seed)
    X, g = rand(rng, M, N), rand(rng, N)
    check(nn.rms_norm, [float32, M, N], (X, g, np.float32(eps)), F.rms_norm(tt(X), (N,), tt(g), eps).numpy())


@FAST
@given(B=st.integers(1, 3), C=st.integers(1, 4), H=st.integers(1, 5), W=st.integers(1, 5), eps=eps_values,
       seed=st.integers(0, 2**16))
def test_batch_norm2d(B, C, H, W, eps, seed):
    rng = np.random.default_rng(seed)
    X = rand(rng, B, C, H, W)
    mean, var = rand(rng, C), (rng.random(C) + 0.1).astype(np.float32)
    g, b = rand(rng, C), rand(rng, C)
    ref = F.batch_norm(tt(X), tt(mean), tt(var), tt(g), tt(b), training=False, eps=eps).numpy()
    check(nn.batch_norm2d, [float32, B, C, H, W], (X, mean, var, g, b, np.float32(eps)), ref)
