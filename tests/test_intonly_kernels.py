"""Integer-only kernels (allo.library.nn.intonly): bit-exact against a numpy reference of the same
integer algorithm (tests/intonly_ref.py), and within a stated error of the float function:

- isoftmax: |p - softmax| <= 0.01 (8-bit output steps of 1/128 and the exp polynomial's ~0.3%);
- igelu: |y - gelu| <= 0.025 + 2 S (I-BERT's erf polynomial is within ~0.02, plus input steps);
- ilayer_norm: |y - layer_norm| <= 0.003 for 16-bit inputs (rows with a non-trivial spread);
- iavg_pool2d: the mean rounded half up, |y - mean| <= 1/2 step exactly.
"""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import allo
from allo.errors import AlloError
from allo.ir.types import int8, int16, int32
from allo.library import nn
from allo.library.nn import intparams as ip

from . import intonly_ref as ref

torch = pytest.importorskip("torch")

M, N = 4, 16
_BUILT = {}


def built(kernel, targs):
    key = (kernel.name, tuple(repr(t) for t in targs))
    if key not in _BUILT:
        _BUILT[key] = allo.customize(kernel, instantiate=list(targs)).build()
    return _BUILT[key]


def softmax_ref(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("scale", [0.004, 0.03, 0.1, 0.4])
def test_isoftmax_exact_and_close_to_softmax(scale):
    rng = np.random.default_rng(1)
    p = ip.isoftmax_params(scale, 8)
    f = built(nn.isoftmax, [int8, int8, M, N, *p.targs])
    for _ in range(3):
        x = rng.integers(-127, 128, (M, N)).astype(np.int8)
        got = f(x)
        np.testing.assert_array_equal(got, ref.isoftmax(x, *p.targs))
        assert np.abs(got * p.out_scale - softmax_ref(x * scale)).max() <= 0.01
        assert got.min() >= 0 and got.max() <= 127


def test_isoftmax_of_a_constant_row_and_of_a_dominant_entry():
    p = ip.isoftmax_params(0.05, 8)
    f = built(nn.isoftmax, [int8, int8, M, N, *p.targs])
    x = np.zeros((M, N), np.int8)
    x[1, 3] = 127
    x[2] = -128
    got = f(x)
    assert (got[0] == 8).all()  # 1/16 at scale 2^-7
    assert got[1, 3] >= 125 and got[1].sum() <= 130
    np.testing.assert_array_equal(got, ref.isoftmax(x, *p.targs))


@pytest.mark.parametrize("scale", [0.002, 0.02, 0.08])
def test_igelu_exact_and_close_to_gelu(scale):
    rng = np.random.default_rng(2)
    p = ip.igelu_params(scale, 8)
    f = built(nn.igelu, [int8, int32, M, N, *p.targs])
    x = rng.integers(-128, 128, (M, N)).astype(np.int8)
    got = f(x)
    np.testing.assert_array_equal(got, ref.igelu(x, *p.targs))
    want = torch.nn.functional.gelu(torch.from_numpy(x * scale)).numpy()
    assert np.abs(got * p.out_scale - want).max() <= 0.025 + 2 * scale * 2 ** p.targs[0]


def test_igelu_over_every_int8_value():
    scale = 0.03
    p = ip.igelu_params(scale, 8)
    f = built(nn.igelu, [int8, int32, 16, 16, *p.targs])
    x = np.arange(-128, 128).astype(np.int8).reshape(16, 16)
    got = f(x)
    np.testing.assert_array_equal(got, ref.igelu(x, *p.targs))
    want = torch.nn.functional.gelu(torch.from_numpy(x * scale)).numpy()
    assert np.abs(got * p.out_scale - want).max() <= 0.025


@pytest.mark.parametrize("scale,spread", [(0.001, 30000), (0.02, 3000), (0.5, 200)])
def test_ilayer_norm_exact_and_close_to_layer_norm(scale, spread):
    rng = np.random.default_rng(3)
    gamma, beta = rng.uniform(0.5, 1.5, N), rng.uniform(-0.5, 0.5, N)
    p = ip.ilayer_norm_params(scale, N, gamma, beta, 1e-5, bits=16)
    f = built(nn.ilayer_norm, [int16, int16, int32, M, N, *p.targs])
    x = (rng.integers(-spread, spread, (M, N)) + rng.integers(-spread, spread, (M, 1))).clip(-32767, 32767)
    x = x.astype(np.int16)
    got = f(x, p.arrays["G"], p.arrays["B"])
    np.testing.assert_array_equal(got, ref.ilayer_norm(x, p.arrays["G"], p.arrays["B"], *p.targs))
    want = torch.nn.functional.layer_norm(torch.from_numpy(x * scale), (N,), torch.from_numpy(gamma),
                                          torch.from_numpy(beta), 1e-5).numpy()
    assert np.abs(got * p.out_scale - want).max() <= 3e-3


def test_ilayer_norm_of_a_constant_row_is_beta():
    gamma, beta = np.ones(N), np.linspace(-1, 1, N)
    p = ip.ilayer_norm_params(0.01, N, gamma, beta, 1e-5, bits=8)
    f = built(nn.ilayer_norm, [int8, int16, int32, M, N, *p.targs])
    x = np.full((M, N), 37, np.int8)
    got = f(x, p.arrays["G"], p.arrays["B"])
    np.testing.assert_array_equal(got, np.broadcast_to(p.arrays["B"], (M, N)))


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2 ** 63 - 1))
def test_newton_isqrt_reaches_the_integer_square_root(v):
    assert ref.isqrt_newton(v, ip.NEWTON_ITERS) == math.isqrt(v)


def test_newton_isqrt_on_powers_of_two_and_neighbours():
    for b in range(63):
        for v in (2 ** b - 1, 2 ** b, 2 ** b + 1):
            if v < 2 ** 63:
                assert ref.isqrt_newton(v, ip.NEWTON_ITERS) == math.isqrt(v)


@pytest.mark.parametrize("k,s,p", [((2, 2), (2, 2), (0, 0)), ((3, 3), (1, 1), (1, 1)), ((3, 2), (2, 1), (0, 1))])
def test_iavg_pool2d_rounds_half_up(k, s, p):
    rng = np.random.default_rng(4)
    h = w = 6
    oh, ow = (h + 2 * p[0] - k[0]) // s[0] + 1, (w + 2 * p[1] - k[1]) // s[1] + 1
    f = built(nn.iavg_pool2d, [int8, int32, 2, 3, h, w, k[0], k[1], oh, ow, s[0], s[1], p[0], p[1]])
    x = rng.integers(-128, 128, (2, 3, h, w)).astype(np.int8)
    got = f(x)
    np.testing.assert_array_equal(got, ref.iavg_pool2d(x, k[0], k[1], s[0], s[1], p[0], p[1]))
    mean = torch.nn.functional.avg_pool2d(torch.from_numpy(x).double(), k, s, p).numpy()
    assert np.abs(got - mean).max() <= 0.5


def test_params_refuse_bad_scales_and_overflowing_rows():
    for fn in (ip.isoftmax_params, ip.igelu_params):
        for bad in (0.0, -1.0, float("nan"), float("inf")):
            with pytest.raises(AlloError, match="positive finite"):
                fn(bad)
    with pytest.raises(AlloError, match="too coarse"):
        ip.isoftmax_params(1e6, 8)
    with pytest.raises(AlloError, match="overflow"):
        ip.ilayer_norm_params(0.01, 4096, np.ones(4096), np.zeros(4096), bits=32)
