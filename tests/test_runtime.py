"""Call conventions of the LLVM module: argument checks before running, non-contiguous inputs,
memory that stays flat over many calls, and cached direct `@allo.kernel` calls."""
import gc
import os
import sys

import numpy as np
import pytest

import allo
from allo.ir.fixed import from_raw
from allo.ir.types import Fixed, bool as abool, float32, float64, int32, int64

RNG = np.random.default_rng(7)


def inplace(A: float32[4], B: float32[8], s: float32):
    for i in range(4):
        A[i] += s
    for i in range(8):
        B[i] *= 2.0


def add2d(A: float32[6, 8], B: float32[6, 8]) -> float32[6, 8]:
    return A + B


@pytest.fixture(scope="module")
def inplace_mod():
    return allo.customize(inplace).build()


BAD_CALLS = [
    ("wrong shape", lambda A, B: (A, np.zeros(7, np.float32), 1.0), "shape"),
    ("wrong rank", lambda A, B: (A, np.zeros((8, 1), np.float32), 1.0), "shape"),
    ("float64 overflowing float32", lambda A, B: (A, B.astype(np.float64) * 1e300, 1.0), "overflow"),
    ("int not exact in float32", lambda A, B: (A, B.astype(np.int64) + 2 ** 40, 1.0), "not exact"),
    ("complex for float", lambda A, B: (A, B.astype(np.complex64), 1.0), "dtype"),
    ("too few", lambda A, B: (A, B), "3 arguments"),
    ("too many", lambda A, B: (A, B, 1.0, 2.0), "3 arguments"),
    ("scalar for array", lambda A, B: (A, 3.0, 1.0), "B"),
    ("array for scalar", lambda A, B: (A, B, np.ones(3, np.float32)), "s"),
    ("list for array", lambda A, B: (A, [0.0] * 8, 1.0), "B"),
]


@pytest.mark.parametrize("what,make,match", BAD_CALLS, ids=[b[0] for b in BAD_CALLS])
def test_bad_arguments_raise_before_running(inplace_mod, what, make, match):
    A = np.arange(4, dtype=np.float32)
    B = np.arange(8, dtype=np.float32)
    with pytest.raises(allo.AlloTypeError, match=match):
        inplace_mod(*make(A, B))
    # nothing ran: the (valid) in-place argument A is untouched
    np.testing.assert_array_equal(A, np.arange(4, dtype=np.float32))
    assert isinstance(allo.AlloTypeError("x"), allo.AlloError)


def test_valid_call_updates_in_place(inplace_mod):
    A = np.arange(4, dtype=np.float32)
    B = np.arange(8, dtype=np.float32)
    assert inplace_mod(A, B, 1.5) is None
    np.testing.assert_array_equal(A, np.arange(4) + 1.5)
    np.testing.assert_array_equal(B, np.arange(8) * 2)


def test_scalar_argument_kinds(inplace_mod):
    A = np.zeros(4, np.float32)
    B = np.zeros(8, np.float32)
    for s in (1, 1.0, np.float32(1.0), np.float64(1.0), np.int64(1), np.array(1.0)):
        inplace_mod(A, B, s)
    np.testing.assert_array_equal(A, np.full(4, 6.0))


def test_non_contiguous_inputs():
    mod = allo.customize(add2d).build()
    big = RNG.uniform(size=(12, 16)).astype(np.float32)
    A = big[::2, ::2]  # strided view
    B = np.asfortranarray(RNG.uniform(size=(6, 8)).astype(np.float32))
    assert not A.flags.c_contiguous and not B.flags.c_contiguous
    np.testing.assert_allclose(mod(A, B), A + B, rtol=1e-6)
    T = RNG.uniform(size=(8, 6)).astype(np.float32).T  # transposed view
    np.testing.assert_allclose(mod(T, B), T + B, rtol=1e-6)


def test_non_contiguous_in_place_argument_is_written_back(inplace_mod):
    A_base = np.zeros(8, np.float32)
    B_base = np.arange(16, dtype=np.float32)
    A, B = A_base[::2], B_base[::2]
    inplace_mod(A, B, 2.0)
    np.testing.assert_array_equal(A_base, [2, 0, 2, 0, 2, 0, 2, 0])
    np.testing.assert_array_equal(B_base[::2], np.arange(0, 16, 2) * 2)
    np.testing.assert_array_equal(B_base[1::2], np.arange(1, 16, 2))  # the gaps are untouched


def test_results_are_fresh_arrays_owned_by_the_caller():
    mod = allo.customize(add2d).build()
    A = np.ones((6, 8), np.float32)
    r1 = mod(A, A)
    r2 = mod(A, A)
    assert r1 is not r2 and not np.shares_memory(r1, r2)
    r1[0, 0] = 100.0
    assert r2[0, 0] == 2.0
    assert r1.flags.c_contiguous and r1.flags.writeable


def fixed_io(X: Fixed(12, 4)[4]) -> Fixed(12, 4)[4]:
    return X + X


def bool_io(M: abool[5], A: int32[5]) -> int32[5]:
    B: int32[5] = 0
    for i in range(5):
        B[i] = A[i] if M[i] else -A[i]
    return B


def test_fixed_and_bool_io():
    X = np.array([0.3, -0.3, 1.0625, 100.0])
    got = allo.customize(fixed_io).build()(X)
    assert got.dtype == np.float64
    raw = np.floor(X * 16).astype(np.int64)  # quantised by floor on the way in
    np.testing.assert_array_equal(got, from_raw(2 * raw, Fixed(12, 4)))  # 2 * 100.0 wraps to -56.0
    assert got[3] == -56.0
    M = np.array([True, False, True, True, False])
    A = np.arange(5, dtype=np.int32)
    np.testing.assert_array_equal(allo.customize(bool_io).build()(M, A), np.where(M, A, -A))
    with pytest.warns(allo.AlloWarning, match="converted the int32 input to bool"):  # 0/1 ints convert exactly
        np.testing.assert_array_equal(allo.customize(bool_io).build()(M.astype(np.int32), A), np.where(M, A, -A))
    with pytest.raises(allo.AlloTypeError, match="do not fit bool"):
        allo.customize(bool_io).build()(M.astype(np.int32) * 2, A)


# ============================================================================ memory
def _rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


def _growth_mb(fn, calls=1000, warmup=20):
    for _ in range(warmup):
        fn()
    gc.collect()
    before = _rss_mb()
    for _ in range(calls):
        fn()
    gc.collect()
    return _rss_mb() - before


def big_out(A: float32[512, 512]) -> float32[512, 512]:
    B: float32[512, 512] = 0.0
    for i, j in allo.grid(512, 512):
        B[i, j] = A[i, j] + 1.0
    return B


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
def test_memory_flat_over_1000_calls_returning_1mb():
    mod = allo.customize(big_out).build()
    A = np.zeros((512, 512), np.float32)
    assert mod(A).nbytes == 2 ** 20
    grew = _growth_mb(lambda: mod(A))
    assert grew < 50, f"RSS grew by {grew:.0f} MB over 1000 calls (1 MB result each)"


def helper_big(A: float32[256, 256]) -> float32[256, 256]:
    return A * 2.0


def calls_helper(A: float32[256, 256]) -> float32[256, 256]:
    B = helper_big(A)
    C = helper_big(B)
    return C


def select_in_loop(A: float32[64, 64]) -> float32[64, 64]:
    B: float32[64, 64] = 0.0
    for i, j in allo.grid(64, 64):
        B[i, j] = A[i - 1, j] if i > 0 else 0.0
    return B


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
def test_memory_flat_with_sub_kernel_results_and_temporaries():
    mod = allo.customize(calls_helper).build()
    A = np.ones((256, 256), np.float32)
    np.testing.assert_array_equal(mod(A), A * 4)
    grew = _growth_mb(lambda: mod(A), calls=300)
    assert grew < 30, f"RSS grew by {grew:.0f} MB over 300 calls (two 256 KB sub-kernel results each)"
    mod2 = allo.customize(select_in_loop).build()
    X = np.ones((64, 64), np.float32)
    grew = _growth_mb(lambda: mod2(X), calls=300)
    assert grew < 30, f"RSS grew by {grew:.0f} MB over 300 calls (4096 conditional expressions each)"


# ============================================================================ caching
@allo.kernel
def cached_kernel(A: float32[8]) -> float32[8]:
    return A * 2.0 + 1.0


def test_direct_kernel_calls_are_built_once():
    cached_kernel._built.clear()
    A = np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(cached_kernel(A), A * 2 + 1)
    assert len(cached_kernel._built) == 1
    mod = next(iter(cached_kernel._built.values()))
    for _ in range(5):
        np.testing.assert_array_equal(cached_kernel(A), A * 2 + 1)
    assert len(cached_kernel._built) == 1 and next(iter(cached_kernel._built.values())) is mod
    with pytest.warns(allo.AlloWarning, match="float64 input to float32"):
        np.testing.assert_array_equal(cached_kernel(A.astype(np.float64)), A * 2 + 1)
    with pytest.raises(allo.AlloTypeError, match="overflow"):
        cached_kernel(np.full(8, 1e300))


def test_schedule_builds_many_times_and_modules_are_independent():
    s = allo.customize(add2d)
    m1, m2 = s.build(), s.build()
    A = np.ones((6, 8), np.float32)
    np.testing.assert_array_equal(m1(A, A), m2(A, A))


def int64_scalar(a: int64, b: float64) -> float64:
    return float64(a) * b


def test_scalar_result_and_wide_scalars():
    mod = allo.customize(int64_scalar).build()
    out = mod(2 ** 40, 0.5)
    assert float(out) == 2.0 ** 39
    assert np.ndim(out) == 0
