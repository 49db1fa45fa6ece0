"""Elementwise binaries with broadcasting (same shape, scalar, *_mid, *_outer) against torch, and
`add` on integers (wrap-around) and fixed point."""
import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

from allo.ir.fixed import quantize, wrap_int
from allo.ir.types import Fixed, float32, int8, int16, int32
from allo.library import nn

from .nn_util import QUICK, check, fixed_raw, fixed_val, rand, run_both, tt

OPS = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div}
dims = st.integers(1, 6)


def divisor_safe(x):
    """Keep divisors away from zero so float32 division stays well conditioned."""
    return np.where(np.abs(x) < 0.25, np.float32(0.5), x).astype(np.float32)


@pytest.mark.parametrize("op", list(OPS))
@QUICK
@given(M=dims, N=dims, seed=st.integers(0, 2**16))
def test_same_shape_and_scalar(op, M, N, seed):
    rng = np.random.default_rng(seed)
    A, B = rand(rng, M, N), divisor_safe(rand(rng, M, N))
    s = np.float32(divisor_safe(rand(rng, 1))[0])
    fn = OPS[op]
    check(getattr(nn, op), [float32, M, N], (A, B), fn(tt(A), tt(B)).numpy())
    check(getattr(nn, f"{op}_scalar"), [float32, M, N], (A, s), fn(tt(A), float(s)).numpy())
    if op in ("sub", "div"):
        A2 = divisor_safe(A)
        check(getattr(nn, f"r{op}_scalar"), [float32, M, N], (A2, s), fn(float(s), tt(A2)).numpy())


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "rsub", "rdiv"])
@QUICK
@given(P=dims, Q=dims, R=dims, seed=st.integers(0, 2**16))
def test_mid_and_outer_broadcast(op, P, Q, R, seed):
    rng = np.random.default_rng(seed)
    A = divisor_safe(rand(rng, P, Q, R))
    Bq, Bpr = divisor_safe(rand(rng, Q)), divisor_safe(rand(rng, P, R))
    fn = OPS[op.lstrip("r")] if op not in ("add", "sub", "mul", "div") else OPS[op]
    rev = op.startswith("r")
    for kind, B, Bb in (("mid", Bq, Bq[None, :, None]), ("outer", Bpr, Bpr[:, None, :])):
        ref = fn(tt(np.ascontiguousarray(np.broadcast_to(Bb, A.shape))), tt(A)) if rev else fn(tt(A), tt(Bb))
        check(getattr(nn, f"{op}_{kind}"), [float32, P, Q, R], (A, B), ref.numpy())


def test_broadcast_recipes_from_the_docstring():
    """[M, N] + [N] -> add_mid[T, M, N, 1]; [M, N] + [M, 1] -> add_mid[T, 1, M, N];
    [B, H, L, S] + [B, 1, 1, S] -> add_outer[T, B, H*L, S]."""
    rng = np.random.default_rng(0)
    X, bias, col = rand(rng, 4, 5), rand(rng, 5), rand(rng, 4, 1)
    check(nn.add_mid, [float32, 4, 5, 1], (X.reshape(4, 5, 1), bias), (X + bias).reshape(4, 5, 1))
    check(nn.add_mid, [float32, 1, 4, 5], (X.reshape(1, 4, 5), col.reshape(4)), (X + col).reshape(1, 4, 5))
    S, mask = rand(rng, 2, 3, 4, 5), rand(rng, 2, 1, 1, 5)
    check(nn.add_outer, [float32, 2, 12, 5], (S.reshape(2, 12, 5), mask.reshape(2, 5)), (S + mask).reshape(2, 12, 5))


@pytest.mark.parametrize("T", [int8, int16, int32], ids=repr)
def test_add_integers_wrap(T):
    rng = np.random.default_rng(T.bits)
    info = np.iinfo(T.np_dtype)
    A = rng.integers(info.min, info.max, (3, 7), dtype=np.int64).astype(T.np_dtype)
    B = rng.integers(info.min, info.max, (3, 7), dtype=np.int64).astype(T.np_dtype)
    ref = wrap_int(A.astype(np.int64) + B.astype(np.int64), T.bits, True).astype(T.np_dtype)
    plain, sched = run_both(nn.add, [T, 3, 7], (A, B))
    np.testing.assert_array_equal(plain, ref)
    np.testing.assert_array_equal(sched, ref)
    ref_mid = wrap_int(A.astype(np.int64) + B[0].astype(np.int64), T.bits, True).astype(T.np_dtype)
    plain, sched = run_both(nn.add_mid, [T, 3, 7, 1], (A.reshape(3, 7, 1), B[0].copy()))
    np.testing.assert_array_equal(plain.reshape(3, 7), ref_mid)
    np.testing.assert_array_equal(sched, plain)


@pytest.mark.parametrize("T", [Fixed(8, 4), Fixed(16, 8)], ids=repr)
def test_add_and_mul_fixed_point(T):
    rng = np.random.default_rng(T.bits)
    A, B = rand(rng, 4, 5, scale=3), rand(rng, 4, 5, scale=3)
    raw = fixed_raw(A, T) + fixed_raw(B, T)  # wraps at W below
    plain, sched = run_both(nn.add, [T, 4, 5], (A, B))
    np.testing.assert_array_equal(plain, fixed_val(raw, T))
    np.testing.assert_array_equal(sched, plain)
    assert np.all(plain == quantize(plain, T))  # results are representable values
    raw = (fixed_raw(A, T) * fixed_raw(B, T)) >> T.frac
    plain, sched = run_both(nn.mul, [T, 4, 5], (A, B))
    np.testing.assert_array_equal(plain, fixed_val(raw, T))
    np.testing.assert_array_equal(sched, plain)
