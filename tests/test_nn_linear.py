"""nn.linear / linear3d / matmul / bmm against torch (float32) and integer/fixed emulation, plus
composing library schedules into a user kernel."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, strategies as st

import allo
from allo.ir.fixed import wrap_int
from allo.ir.types import Fixed, float32, int8, int16, int32
from allo.library import nn

from .nn_util import FAST, TOL, check, fixed_mul_raw, fixed_raw, fixed_val, pipelined_loops, rand, run_both, tt

dims = st.integers(1, 7)


@FAST
@given(M=dims, N=dims, K=dims, seed=st.integers(0, 2**16))
def test_linear_matches_torch(M, N, K, seed):
    rng = np.random.default_rng(seed)
    X, W, b = rand(rng, M, K), rand(rng, N, K), rand(rng, N)
    check(nn.linear, [float32, M, N, K], (X, W, b), F.linear(tt(X), tt(W), tt(b)).numpy())


@FAST
@given(B=st.integers(1, 3), M=dims, N=dims, K=dims, seed=st.integers(0, 2**16))
def test_linear3d_matches_torch(B, M, N, K, seed):
    rng = np.random.default_rng(seed)
    X, W, b = rand(rng, B, M, K), rand(rng, N, K), rand(rng, N)
    check(nn.linear3d, [float32, B, M, N, K], (X, W, b), F.linear(tt(X), tt(W), tt(b)).numpy())


@FAST
@given(M=dims, K=dims, N=dims, seed=st.integers(0, 2**16))
def test_matmul_matches_torch(M, K, N, seed):
    rng = np.random.default_rng(seed)
    A, B = rand(rng, M, K), rand(rng, K, N)
    check(nn.matmul, [float32, M, K, N], (A, B), (tt(A) @ tt(B)).numpy())


@FAST
@given(Bt=st.integers(1, 3), M=dims, K=dims, N=dims, seed=st.integers(0, 2**16))
def test_bmm_matches_torch(Bt, M, K, N, seed):
    rng = np.random.default_rng(seed)
    A, B = rand(rng, Bt, M, K), rand(rng, Bt, K, N)
    check(nn.bmm, [float32, Bt, M, K, N], (A, B), torch.bmm(tt(A), tt(B)).numpy())


def test_linear_schedule_has_seed_structure():
    """i -> [j_init, k -> j, j_back] with II=1 on j, as in the seed's MLIR."""
    s = allo.customize(nn.linear, instantiate=[float32, 8, 32, 16])
    nn.linear.schedule_fn(s)
    text = str(s.module)
    assert 'loop_name = "j_init"' in text and 'loop_name = "j_back"' in text
    j = text.index('loop_name = "j",')
    assert "pipeline_ii = 1" in text[j:j + 80]
    order = [text.index(f'loop_name = "{n}"') for n in ("j_init", "j", "k", "j_back", "i")]
    assert order == sorted(order)  # printed innermost-first: j_init, then j inside k, j_back, i
    hls = s.build(target="vhls").hls_code
    assert "#pragma HLS pipeline II=1" in hls


INT_TYPES = [int8, int16, int32]


@pytest.mark.parametrize("T", INT_TYPES, ids=repr)
def test_linear_and_matmul_integers_wrap(T):
    rng = np.random.default_rng(1)
    M, N, K = 3, 5, 7
    lo, hi = (-100, 100) if T.bits == 8 else (-3000, 3000)
    dt = T.np_dtype
    X = rng.integers(lo, hi, (M, K)).astype(dt)
    W = rng.integers(lo, hi, (N, K)).astype(dt)
    b = rng.integers(lo, hi, (N,)).astype(dt)
    ref = wrap_int(X.astype(np.int64) @ W.astype(np.int64).T + b, T.bits, True).astype(dt)
    plain, sched = run_both(nn.linear, [T, M, N, K], (X, W, b))
    np.testing.assert_array_equal(plain, ref)
    np.testing.assert_array_equal(sched, ref)
    B = W.T.copy()
    ref = wrap_int(X.astype(np.int64) @ B.astype(np.int64), T.bits, True).astype(dt)
    plain, sched = run_both(nn.matmul, [T, M, K, N], (X, B))
    np.testing.assert_array_equal(plain, ref)
    np.testing.assert_array_equal(sched, ref)


@pytest.mark.parametrize("T", [Fixed(16, 8), Fixed(32, 12)], ids=repr)
def test_linear_and_matmul_fixed_point(T):
    rng = np.random.default_rng(2)
    M, N, K = 3, 4, 6
    X, W, b = rand(rng, M, K, scale=2), rand(rng, N, K, scale=2), rand(rng, N, scale=2)
    xr, wr, br = fixed_raw(X, T), fixed_raw(W, T), fixed_raw(b, T)
    raw = br[None, :] + fixed_mul_raw(xr[:, None, :], wr[None, :, :], T).sum(axis=2)
    plain, sched = run_both(nn.linear, [T, M, N, K], (X, W, b))
    np.testing.assert_array_equal(plain, fixed_val(raw, T))
    np.testing.assert_array_equal(sched, plain)
    Bm = W.T.copy()
    raw = fixed_mul_raw(xr[:, :, None], fixed_raw(Bm, T)[None, :, :], T).sum(axis=1)
    plain, sched = run_both(nn.matmul, [T, M, K, N], (X, Bm))
    np.testing.assert_array_equal(plain, fixed_val(raw, T))
    np.testing.assert_array_equal(sched, plain)


def mlp(data: float32[8, 16], w1: float32[32, 16], b1: float32[32], w2: float32[10, 32],
        b2: float32[10]) -> float32[8, 10]:
    h = nn.linear[float32, 8, 32, 16, "1"](data, w1, b1)
    o = nn.linear[float32, 8, 10, 32, "2"](h, w2, b2)
    return nn.relu[float32, 8, 10](o)


def test_compose_library_schedules_into_user_kernel():
    rng = np.random.default_rng(3)
    args = (rand(rng, 8, 16), rand(rng, 32, 16), rand(rng, 32), rand(rng, 10, 32), rand(rng, 10))
    s = allo.customize(mlp)
    s.compose(nn.linear, id="1", instantiate=[float32, 8, 32, 16])
    s.compose(nn.linear, id="2", instantiate=[float32, 8, 10, 32])
    s.compose(nn.relu, instantiate=[float32, 8, 10])
    for fname in ("linear_1", "linear_2", "relu"):
        assert fname in {st.func for st in s.steps}
    text = str(s.module)
    for fname in ("@linear_1", "@linear_2", "@relu"):
        body = text[text.index(f"func.func {fname}("):]
        body = body[:body.index("return")]
        assert "pipeline_ii = 1" in body, fname
    assert len(pipelined_loops(s)) >= 5
    torch_out = F.relu(F.linear(F.linear(tt(args[0]), tt(args[1]), tt(args[2])), tt(args[3]), tt(args[4])))
    np.testing.assert_allclose(s.build()(*args), torch_out.numpy(), **TOL)
    hls = s.build(target="vhls").hls_code
    assert hls.count("#pragma HLS pipeline II=1") >= 5
