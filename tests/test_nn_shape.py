"""Data movement and reductions with shape-tuple templates (ranks 1-4) against torch."""
import numpy as np
import torch
from hypothesis import given, strategies as st

from allo.ir.types import float32, int16
from allo.library import nn

from .nn_util import FAST as QUICK, check, rand, run_both, tt

shapes = st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple)


def test_transpose():
    X = rand(np.random.default_rng(0), 3, 5)
    check(nn.transpose, [float32, 3, 5], (X,), X.T)


@QUICK
@given(shape=st.lists(st.integers(1, 4), min_size=2, max_size=4).map(tuple), data=st.data())
def test_permute(shape, data):
    perm = tuple(data.draw(st.permutations(range(len(shape)))))
    X = rand(np.random.default_rng(len(shape)), *shape)
    check(nn.permute, [float32, shape, perm], (X,), tt(X).permute(perm).numpy())


@QUICK
@given(src=shapes, data=st.data())
def test_reshape(src, data):
    size = int(np.prod(src))
    rank = data.draw(st.integers(1, 4))
    dst = [1] * rank
    rest = size
    for d in range(rank - 1):  # split `size` into `rank` factors
        f = data.draw(st.sampled_from([k for k in range(1, rest + 1) if rest % k == 0]))
        dst[d], rest = f, rest // f
    dst[-1] = rest
    X = rand(np.random.default_rng(size), *src)
    check(nn.reshape, [float32, src, tuple(dst)], (X,), X.reshape(dst))


@QUICK
@given(shape=shapes, data=st.data())
def test_concat(shape, data):
    axis = data.draw(st.integers(0, len(shape) - 1))
    extra = data.draw(st.integers(1, 3))
    sb = tuple(extra if k == axis else d for k, d in enumerate(shape))
    rng = np.random.default_rng(axis)
    A, B = rand(rng, *shape), rand(rng, *sb)
    check(nn.concat, [float32, shape, sb, axis], (A, B), torch.cat([tt(A), tt(B)], axis).numpy())


@QUICK
@given(shape=st.lists(st.integers(1, 6), min_size=1, max_size=4).map(tuple), data=st.data())
def test_slice(shape, data):
    axis = data.draw(st.integers(0, len(shape) - 1))
    n = shape[axis]
    start = data.draw(st.integers(0, n - 1))
    stop = data.draw(st.sampled_from([n, n + 5, 2 ** 62]) | st.integers(start + 1, n))
    step = data.draw(st.integers(1, 3))
    X = rand(np.random.default_rng(n), *shape)
    index = tuple(slice(start, stop, step) if k == axis else slice(None) for k in range(len(shape)))
    check(nn.slice, [float32, shape, axis, start, stop, step], (X,), X[index])


@QUICK
@given(shape=st.lists(st.integers(1, 4), min_size=2, max_size=4).map(tuple), data=st.data())
def test_select(shape, data):
    axis = data.draw(st.integers(0, len(shape) - 1))
    index = data.draw(st.integers(0, shape[axis] - 1))
    X = rand(np.random.default_rng(index), *shape)
    check(nn.select, [float32, shape, axis, index], (X,), tt(X).select(axis, index).numpy())


@QUICK
@given(out=shapes, data=st.data())
def test_expand(out, data):
    src = tuple(data.draw(st.sampled_from([1, d])) for d in out)
    X = rand(np.random.default_rng(len(out)), *src)
    check(nn.expand, [float32, src, out], (X,), np.broadcast_to(X, out))


@QUICK
@given(shape=shapes, data=st.data())
def test_reductions_keepdim(shape, data):
    axis = data.draw(st.integers(0, len(shape) - 1))
    X = rand(np.random.default_rng(axis), *shape)
    t = tt(X)
    check(nn.sum, [float32, shape, axis], (X,), t.sum(axis, keepdim=True).numpy())
    check(nn.mean, [float32, shape, axis], (X,), t.mean(axis, keepdim=True).numpy())
    check(nn.amax, [float32, shape, axis], (X,), t.amax(axis, keepdim=True).numpy())


def test_reductions_on_integers():
    X = np.random.default_rng(3).integers(-1000, 1000, (3, 4, 5)).astype(np.int16)
    plain, sched = run_both(nn.sum, [int16, (3, 4, 5), 1], (X,))
    np.testing.assert_array_equal(plain, X.sum(1, keepdims=True, dtype=np.int64).astype(np.int16))
    np.testing.assert_array_equal(sched, plain)
    plain, _ = run_both(nn.amax, [int16, (3, 4, 5), 2], (X,))
    np.testing.assert_array_equal(plain, X.max(2, keepdims=True))
