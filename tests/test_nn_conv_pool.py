"""conv2d (stride, padding, dilation, groups), max/avg pooling and global average pooling against
torch; conv2d on integers and fixed point against a numpy emulation."""
import numpy as np
import pytest
import torch.nn.functional as F
from hypothesis import assume, given, strategies as st

import allo
from allo.ir.fixed import wrap_int
from allo.ir.types import Fixed, float32, int8, int16, int32
from allo.library import nn

from .nn_util import FAST, check, fixed_raw, fixed_val, rand, run_both, scheduled, tt


def out_size(n, k, s, p, d=1):
    return (n + 2 * p - d * (k - 1) - 1) // s + 1


def conv_targs(T, B, Cin, Cout, H, W, Kh, Kw, Sh, Sw, Ph, Pw, Dh, Dw, G):
    Oh, Ow = out_size(H, Kh, Sh, Ph, Dh), out_size(W, Kw, Sw, Pw, Dw)
    return [T, B, Cin, Cout, H, W, Kh, Kw, Oh, Ow, Sh, Sw, Ph, Pw, Dh, Dw, G]


@st.composite
def conv_params(draw):
    G = draw(st.integers(1, 3))
    Cin, Cout = G * draw(st.integers(1, 2)), G * draw(st.integers(1, 2))
    Kh, Kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    p = dict(B=draw(st.integers(1, 2)), Cin=Cin, Cout=Cout, H=draw(st.integers(3, 7)), W=draw(st.integers(3, 7)),
             Kh=Kh, Kw=Kw, Sh=draw(st.integers(1, 2)), Sw=draw(st.integers(1, 2)), Ph=draw(st.integers(0, 2)),
             Pw=draw(st.integers(0, 2)), Dh=draw(st.integers(1, 2)), Dw=draw(st.integers(1, 2)), G=G)
    return p


def torch_conv(X, Wt, b, p):
    return F.conv2d(tt(X), tt(Wt), tt(b), stride=(p["Sh"], p["Sw"]), padding=(p["Ph"], p["Pw"]),
                    dilation=(p["Dh"], p["Dw"]), groups=p["G"]).numpy()


@FAST
@given(p=conv_params(), seed=st.integers(0, 2**16))
def test_conv2d_matches_torch(p, seed):
    targs = conv_targs(float32, **p)
    assume(targs[8] >= 1 and targs[9] >= 1)
    rng = np.random.default_rng(seed)
    X = rand(rng, p["B"], p["Cin"], p["H"], p["W"])
    Wt = rand(rng, p["Cout"], p["Cin"] // p["G"], p["Kh"], p["Kw"])
    b = rand(rng, p["Cout"])
    check(nn.conv2d, targs, (X, Wt, b), torch_conv(X, Wt, b, p))


@pytest.mark.parametrize("pad,groups", [(0, 1), (1, 1), (1, 2), (2, 4)])
def test_conv2d_3x3_line_buffer_schedule(pad, groups):
    p = dict(B=2, Cin=4, Cout=4, H=6, W=7, Kh=3, Kw=3, Sh=1, Sw=1, Ph=pad, Pw=pad, Dh=1, Dw=1, G=groups)
    targs = conv_targs(float32, **p)
    s = scheduled(nn.conv2d, targs)
    assert [st.primitive for st in s.steps].count("reuse_at") == 2
    hls = s.build(target="vhls").hls_code
    assert "_reuse_oh_reuse_ow" in hls and "array_partition" in hls
    rng = np.random.default_rng(pad + groups)
    X, Wt, b = rand(rng, 2, 4, 6, 7), rand(rng, 4, 4 // groups, 3, 3), rand(rng, 4)
    check(nn.conv2d, targs, (X, Wt, b), torch_conv(X, Wt, b, p))


def conv_int_reference(X, Wt, b, p, T):
    """Integer conv2d in int64, wrapped to T at the end (wrap-around addition is associative)."""
    Xt, Wtt = tt(X.astype(np.float64)), tt(Wt.astype(np.float64))
    exact = F.conv2d(Xt, Wtt, tt(b.astype(np.float64)), stride=(p["Sh"], p["Sw"]), padding=(p["Ph"], p["Pw"]),
                     dilation=(p["Dh"], p["Dw"]), groups=p["G"]).numpy()
    return wrap_int(np.rint(exact).astype(np.int64), T.bits, True).astype(T.np_dtype)


@pytest.mark.parametrize("T", [int8, int16, int32], ids=repr)
@pytest.mark.parametrize("k,stride,pad", [(3, 1, 1), (2, 2, 0)])
def test_conv2d_integers(T, k, stride, pad):
    p = dict(B=1, Cin=2, Cout=3, H=5, W=5, Kh=k, Kw=k, Sh=stride, Sw=stride, Ph=pad, Pw=pad, Dh=1, Dw=1, G=1)
    rng = np.random.default_rng(T.bits + k)
    X = rng.integers(-60, 60, (1, 2, 5, 5)).astype(T.np_dtype)
    Wt = rng.integers(-60, 60, (3, 2, k, k)).astype(T.np_dtype)
    b = rng.integers(-60, 60, (3,)).astype(T.np_dtype)
    plain, sched = run_both(nn.conv2d, conv_targs(T, **p), (X, Wt, b))
    ref = conv_int_reference(X, Wt, b, p, T)
    np.testing.assert_array_equal(plain, ref)
    np.testing.assert_array_equal(sched, ref)


def test_conv2d_fixed_point():
    T = Fixed(16, 6)
    p = dict(B=1, Cin=2, Cout=2, H=5, W=5, Kh=3, Kw=3, Sh=1, Sw=1, Ph=1, Pw=1, Dh=1, Dw=1, G=1)
    rng = np.random.default_rng(9)
    X, Wt, b = rand(rng, 1, 2, 5, 5), rand(rng, 2, 2, 3, 3), rand(rng, 2)
    # every product is floor((x*w) >> F); the sum is exact integer arithmetic on raw values
    xr = np.pad(fixed_raw(X, T), ((0, 0), (0, 0), (1, 1), (1, 1)))
    wr, br = fixed_raw(Wt, T), fixed_raw(b, T)
    raw = np.zeros((1, 2, 5, 5), np.int64) + br[None, :, None, None]
    for co in range(2):
        for ci in range(2):
            for kh in range(3):
                for kw in range(3):
                    raw[0, co] += (xr[0, ci, kh:kh + 5, kw:kw + 5] * wr[co, ci, kh, kw]) >> T.frac
    plain, sched = run_both(nn.conv2d, conv_targs(T, **p), (X, Wt, b))
    np.testing.assert_array_equal(plain, fixed_val(raw, T))
    np.testing.assert_array_equal(sched, plain)


@st.composite
def pool_params(draw):
    Kh, Kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    return dict(B=draw(st.integers(1, 2)), C=draw(st.integers(1, 3)), H=draw(st.integers(3, 8)),
                W=draw(st.integers(3, 8)), Kh=Kh, Kw=Kw, Sh=draw(st.integers(1, 3)), Sw=draw(st.integers(1, 3)),
                Ph=draw(st.integers(0, Kh // 2)), Pw=draw(st.integers(0, Kw // 2)))


def pool_targs(T, B, C, H, W, Kh, Kw, Sh, Sw, Ph, Pw):
    return [T, B, C, H, W, Kh, Kw, out_size(H, Kh, Sh, Ph), out_size(W, Kw, Sw, Pw), Sh, Sw, Ph, Pw]


@FAST
@given(p=pool_params(), seed=st.integers(0, 2**16))
def test_pools_match_torch(p, seed):
    X = rand(np.random.default_rng(seed), p["B"], p["C"], p["H"], p["W"])
    targs = pool_targs(float32, **p)
    kw = dict(kernel_size=(p["Kh"], p["Kw"]), stride=(p["Sh"], p["Sw"]), padding=(p["Ph"], p["Pw"]))
    check(nn.max_pool2d, targs, (X,), F.max_pool2d(tt(X), **kw).numpy())
    check(nn.avg_pool2d, targs, (X,), F.avg_pool2d(tt(X), **kw).numpy())


def test_max_pool_all_negative_with_padding():
    X = -np.abs(rand(np.random.default_rng(0), 1, 2, 4, 4)) - 5
    p = dict(B=1, C=2, H=4, W=4, Kh=3, Kw=3, Sh=2, Sw=2, Ph=1, Pw=1)
    ref = F.max_pool2d(tt(X), 3, 2, 1).numpy()
    check(nn.max_pool2d, pool_targs(float32, **p), (X,), ref)


def test_max_pool_int8():
    X = np.random.default_rng(1).integers(-128, 127, (1, 2, 6, 6)).astype(np.int8)
    p = dict(B=1, C=2, H=6, W=6, Kh=2, Kw=2, Sh=2, Sw=2, Ph=1, Pw=1)
    ref = F.max_pool2d(tt(X.astype(np.float32)), 2, 2, 1).numpy().astype(np.int8)
    plain, sched = run_both(nn.max_pool2d, pool_targs(int8, **p), (X,))
    np.testing.assert_array_equal(plain, ref)
    np.testing.assert_array_equal(sched, ref)


@FAST
@given(B=st.integers(1, 2), C=st.integers(1, 4), H=st.integers(1, 6), W=st.integers(1, 6), seed=st.integers(0, 2**16))
def test_global_avg_pool2d(B, C, H, W, seed):
    X = rand(np.random.default_rng(seed), B, C, H, W)
    check(nn.global_avg_pool2d, [float32, B, C, H, W], (X,), F.adaptive_avg_pool2d(tt(X), 1).numpy())


def test_conv2d_rejects_wrong_weight_shape():
    def bad(X: float32[1, 4, 5, 5], Wt: float32[2, 4, 3, 3], b: float32[2]) -> float32[1, 2, 3, 3]:
        return nn.conv2d[float32, 1, 4, 2, 5, 5, 3, 3, 3, 3, 1, 1, 0, 0, 1, 1, 2](X, Wt, b)

    with pytest.raises(allo.AlloTypeError, match="expects shape"):
        allo.customize(bad)


def test_wrong_output_size_is_reported():
    with pytest.raises(allo.AlloTypeError, match=r"output size 5 does not match.*= 4"):
        allo.customize(nn.conv2d, instantiate=[float32, 1, 1, 1, 6, 6, 3, 3, 5, 4, 1, 1, 0, 0, 1, 1, 1])
    with pytest.raises(allo.AlloTypeError, match="output size 3 does not match"):
        allo.customize(nn.max_pool2d, instantiate=[float32, 1, 1, 8, 8, 2, 2, 3, 4, 2, 2, 0, 0])
