"""Property tests over random dtypes and shapes: elementwise expressions and reductions on LLVM
match a numpy reference, including integer wrap-around at odd widths and fixed-point
truncation/wrap (emulated exactly with Python integers, per allo/ir/fixed.py's rules).

Kernels are templates instantiated with the drawn dtype and shape, so every example compiles a
fresh instance.
"""
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import allo
from allo.ir.fixed import from_raw, to_raw
from allo.ir.promote import promote
from allo.ir.types import (Fixed, Float, Int, UFixed, UInt, float16, float32, float64, int8, int16, int32, int64,
                           uint8, uint16, uint32, uint64)

SETTINGS = settings(max_examples=20, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ============================================================================ template kernels
@allo.kernel(template="T, M, N")
def ew_add(A: "T[M, N]", B: "T[M, N]") -> "T[M, N]":
    C: T[M, N] = 0  # noqa: F821
    for i, j in allo.grid(M, N):  # noqa: F821
        C[i, j] = A[i, j] + B[i, j]
    return C


@allo.kernel(template="T, M, N")
def ew_sub(A: "T[M, N]", B: "T[M, N]") -> "T[M, N]":
    C: T[M, N] = 0  # noqa: F821
    for i, j in allo.grid(M, N):  # noqa: F821
        C[i, j] = A[i, j] - B[i, j]
    return C


@allo.kernel(template="T, M, N")
def ew_mul(A: "T[M, N]", B: "T[M, N]") -> "T[M, N]":
    C: T[M, N] = 0  # noqa: F821
    for i, j in allo.grid(M, N):  # noqa: F821
        C[i, j] = A[i, j] * B[i, j]
    return C


@allo.kernel(template="T, M, N")
def ew_expr(A: "T[M, N]", B: "T[M, N]") -> "T[M, N]":
    C: T[M, N] = 0  # noqa: F821
    for i, j in allo.grid(M, N):  # noqa: F821
        C[i, j] = A[i, j] * B[i, j] + A[i, j] - B[i, j] * B[i, j]
    return C


@allo.kernel(template="T, N")
def ew_divmod(A: "T[N]", B: "T[N]") -> ("T[N]", "T[N]", "T[N]"):
    Q: T[N] = 0  # noqa: F821
    R: T[N] = 0  # noqa: F821
    X: T[N] = 0  # noqa: F821
    for i in range(N):  # noqa: F821
        Q[i] = A[i] // B[i]
        R[i] = A[i] % B[i]
        X[i] = (A[i] & B[i]) ^ (A[i] | T(5))  # noqa: F821
    return Q, R, X


@allo.kernel(template="T, M, N")
def row_sum(A: "T[M, N]") -> "T[M]":
    S: T[M] = 0  # noqa: F821
    for i in range(M):  # noqa: F821
        acc: T = T(0)  # noqa: F821
        for j in allo.reduction(N):  # noqa: F821
            acc += A[i, j]
        S[i] = acc
    return S


@allo.kernel(template="T, M, N")
def total(A: "T[M, N]") -> "T":
    acc: T = 0  # noqa: F821
    for i, j in allo.grid(M, N):  # noqa: F821
        acc += A[i, j]
    return acc


@allo.kernel(template="T1, T2, T3, N")
def mixed_add(A: "T1[N]", B: "T2[N]") -> "T3[N]":
    C: T3[N] = 0  # noqa: F821
    for i in range(N):  # noqa: F821
        C[i] = A[i] + B[i]
    return C


@allo.kernel(template="T1, T2, T3, N")
def mixed_mul(A: "T1[N]", B: "T2[N]") -> "T3[N]":
    C: T3[N] = 0  # noqa: F821
    for i in range(N):  # noqa: F821
        C[i] = A[i] * B[i]
    return C


@allo.kernel(template="S, T, N")
def cast_to(X: "S[N]") -> "T[N]":
    C: T[N] = 0  # noqa: F821
    for i in range(N):  # noqa: F821
        C[i] = T(X[i])  # noqa: F821
    return C


# ============================================================================ exact emulation (Python ints)
def _is_int(t):
    return isinstance(t, (Int, UInt))


def _signed(t):
    return isinstance(t, (Int, Fixed))


def wrap(v: int, bits: int, signed: bool) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >> (bits - 1) else v


def ints_of(values):
    return [int(x) for x in np.asarray(values).ravel()]


INT_OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
           "expr": lambda a, b: a * b + a - b * b}
KERNELS = {"add": ew_add, "sub": ew_sub, "mul": ew_mul, "expr": ew_expr}


def fixed_binop(op, ra: int, rb: int, t) -> int:
    """One fixed-point op on raw integers of type t (mul: full product, floor shift by F, wrap)."""
    w, f, s = t.bits, t.frac, _signed(t)
    if op == "mul":
        return wrap((ra * rb) >> f, w, s)
    return wrap(INT_OPS[op](ra, rb), w, s)


def fixed_expr(ra, rb, t):
    """a*b + a - b*b computed exactly (bit growth), then floored and wrapped into t on the store."""
    exact = ra * rb + (ra << t.frac) - rb * rb  # 2F fraction bits
    return wrap(exact >> t.frac, t.bits, _signed(t))


# ============================================================================ strategies
STD_INTS = [int8, int16, int32, int64, uint8, uint16, uint32, uint64]
odd_ints = st.one_of(st.integers(2, 63).map(Int), st.integers(2, 63).map(UInt))
int_types = st.one_of(st.sampled_from(STD_INTS), odd_ints, st.sampled_from([Int(5), UInt(12)]))
float_types = st.sampled_from([float16, float32, float64])
fixed_types = st.integers(2, 48).flatmap(
    lambda w: st.integers(0, w).flatmap(lambda f: st.sampled_from([Fixed(w, f), UFixed(w, f)])))
shapes = st.tuples(st.integers(1, 5), st.integers(1, 6))
seeds = st.integers(0, 2 ** 32 - 1)


def int_range(t):
    return (-(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1) if _signed(t) else (0, (1 << t.bits) - 1)


def random_ints(rng, t, shape):
    lo, hi = int_range(t)
    # mix uniform values with extremes so wrap-around is exercised
    vals = [int(x) for x in rng.integers(lo, hi, size=int(np.prod(shape)), endpoint=True, dtype=np.int64
                                         if t.bits < 64 or _signed(t) else np.uint64)]
    for k in range(min(3, len(vals))):
        vals[rng.integers(len(vals))] = [lo, hi, 0][k]
    return vals


def int_array(vals, t, shape):
    return np.array(vals, dtype=object).astype(t.np_dtype).reshape(shape)


def fixed_array(raws, t, shape):
    return np.array([r / 2.0 ** t.frac for r in raws], dtype=np.float64).reshape(shape)


# ============================================================================ properties
@SETTINGS
@given(t=int_types, shape=shapes, op=st.sampled_from(sorted(INT_OPS)), seed=seeds)
def test_integer_elementwise_wraps_at_declared_width(t, shape, op, seed):
    rng = np.random.default_rng(seed)
    a, b = random_ints(rng, t, shape), random_ints(rng, t, shape)
    want = [wrap(INT_OPS[op](x, y), t.bits, _signed(t)) for x, y in zip(a, b)]
    got = KERNELS[op][t, shape[0], shape[1]](int_array(a, t, shape), int_array(b, t, shape))
    assert got.dtype == t.np_dtype and got.shape == shape
    assert ints_of(got) == want, (t, op)


@SETTINGS
@given(t=int_types, n=st.integers(1, 8), seed=seeds)
def test_integer_floordiv_mod_and_bitwise_follow_numpy(t, n, seed):
    rng = np.random.default_rng(seed)
    lo, _ = int_range(t)
    a, b = random_ints(rng, t, (n,)), random_ints(rng, t, (n,))
    # no division by zero, and no (min // -1), which overflows (undefined in C and LLVM)
    b = [y if y != 0 and not (x == lo and y == -1 and _signed(t)) else 1 for x, y in zip(a, b)]
    s = _signed(t)
    Q, R, X = ew_divmod[t, n](int_array(a, t, (n,)), int_array(b, t, (n,)))
    five = wrap(5, t.bits, s)
    assert ints_of(Q) == [wrap(x // y, t.bits, s) for x, y in zip(a, b)], t
    assert ints_of(R) == [wrap(x % y, t.bits, s) for x, y in zip(a, b)], t
    assert ints_of(X) == [wrap((x & y) ^ (x | five), t.bits, s) for x, y in zip(a, b)], t


@SETTINGS
@given(t=int_types, shape=shapes, seed=seeds)
def test_integer_reductions_wrap(t, shape, seed):
    rng = np.random.default_rng(seed)
    a = random_ints(rng, t, shape)
    A = int_array(a, t, shape)
    rows = np.array(a, dtype=object).reshape(shape)
    want_rows = [wrap(sum(int(v) for v in r), t.bits, _signed(t)) for r in rows]
    assert ints_of(row_sum[t, shape[0], shape[1]](A)) == want_rows
    assert int(total[t, shape[0], shape[1]](A)) == wrap(sum(a), t.bits, _signed(t))


@SETTINGS
@given(t=fixed_types, shape=shapes, op=st.sampled_from(sorted(INT_OPS)), seed=seeds)
def test_fixed_point_elementwise_matches_integer_emulation(t, shape, op, seed):
    rng = np.random.default_rng(seed)
    ra, rb = random_ints(rng, t, shape), random_ints(rng, t, shape)
    if op == "expr":
        want = [fixed_expr(x, y, t) for x, y in zip(ra, rb)]
    else:
        want = [fixed_binop(op, x, y, t) for x, y in zip(ra, rb)]
    got = KERNELS[op][t, shape[0], shape[1]](fixed_array(ra, t, shape), fixed_array(rb, t, shape))
    assert got.dtype == np.float64 and got.shape == shape
    np.testing.assert_array_equal(got, fixed_array(want, t, shape), err_msg=f"{t} {op}")


@SETTINGS
@given(t=fixed_types, shape=shapes, seed=seeds)
def test_fixed_point_inputs_are_floored_refused_outside_and_reductions_wrap(t, shape, seed):
    rng = np.random.default_rng(seed)
    lo, hi = int_range(t)
    # arbitrary (non-representable) floats inside the type's range: quantised (floored) on the way in
    x = np.clip(rng.uniform(lo, hi + 1, size=shape), lo, np.nextafter(float(hi + 1), 0)) / 2.0 ** t.frac
    raws = ints_of(to_raw(x, t))
    outside = x.copy()
    outside.flat[rng.integers(0, x.size)] = (hi + 1 if rng.random() < 0.5 else lo - 1) / 2.0 ** t.frac
    with pytest.raises(allo.AlloTypeError, match=f"outside {re.escape(repr(t))}"):
        row_sum[t, shape[0], shape[1]](outside)  # an argument outside its type is refused, never wrapped
    assert all(lo <= r <= hi for r in raws)
    rows = np.array(raws, dtype=object).reshape(shape)
    want_rows = [wrap(sum(int(v) for v in r), t.bits, _signed(t)) for r in rows]
    got = row_sum[t, shape[0], shape[1]](x)
    np.testing.assert_array_equal(got, np.array(want_rows, dtype=np.float64) / 2.0 ** t.frac, err_msg=repr(t))
    got_total = total[t, shape[0], shape[1]](x)
    assert float(got_total) == wrap(sum(raws), t.bits, _signed(t)) / 2.0 ** t.frac


@SETTINGS
@given(t=fixed_types, n=st.integers(1, 8), src=st.sampled_from([float32, float64]), seed=seeds)
def test_float_to_fixed_cast_floors_and_wraps(t, n, src, seed):
    rng = np.random.default_rng(seed)
    lo, hi = int_range(t)
    x = (rng.uniform(4 * lo - 4, 4 * hi + 4, size=n) / 2.0 ** t.frac).astype(src.np_dtype)
    got = cast_to[src, t, n](x)
    np.testing.assert_array_equal(got, from_raw(to_raw(x.astype(np.float64), t), t), err_msg=repr(t))
    back = cast_to[t, float64, n](got)  # fixed -> float is exact
    np.testing.assert_array_equal(back, got)


@SETTINGS
@given(t=float_types, shape=shapes, op=st.sampled_from(sorted(INT_OPS)), seed=seeds)
def test_float_elementwise_and_reductions(t, shape, op, seed):
    rng = np.random.default_rng(seed)
    dt = t.np_dtype
    A = rng.uniform(-2, 2, size=shape).astype(dt)
    B = rng.uniform(-2, 2, size=shape).astype(dt)
    f = {"add": np.add, "sub": np.subtract, "mul": np.multiply,
         "expr": lambda a, b: a * b + a - b * b}[op]
    got = KERNELS[op][t, shape[0], shape[1]](A, B)
    assert got.dtype == dt and got.shape == shape
    tol = {16: 1e-2, 32: 1e-5, 64: 1e-12}[t.bits]
    np.testing.assert_allclose(got, f(A.astype(np.float64), B.astype(np.float64)), rtol=tol, atol=4 * tol)
    if op != "add":
        return
    S = row_sum[t, shape[0], shape[1]](A)
    assert S.dtype == dt
    np.testing.assert_allclose(S, A.astype(np.float64).sum(axis=1), rtol=tol, atol=8 * tol)
    assert np.isclose(float(total[t, shape[0], shape[1]](A)), A.astype(np.float64).sum(), rtol=tol, atol=16 * tol)


@SETTINGS
@given(t1=int_types, t2=int_types, n=st.integers(1, 8), seed=seeds)
def test_mixed_integer_types_promote_then_wrap(t1, t2, n, seed):
    rng = np.random.default_rng(seed)
    t3 = promote(t1, t2)
    assume(t3.bits <= 64)  # wider types live inside kernels only
    a, b = random_ints(rng, t1, (n,)), random_ints(rng, t2, (n,))
    got = mixed_add[t1, t2, t3, n](int_array(a, t1, (n,)), int_array(b, t2, (n,)))
    assert got.dtype == t3.np_dtype
    assert ints_of(got) == [wrap(x + y, t3.bits, _signed(t3)) for x, y in zip(a, b)], (t1, t2, t3)


def fixed_cast_raw(r: int, src, dst) -> int:
    """Raw value of fixed/int type `src` converted to fixed type `dst` (shift by the fraction
    difference, floor on right shifts, then wrap)."""
    fs = getattr(src, "frac", 0)
    d = dst.frac - fs
    v = r << d if d >= 0 else r >> -d
    return wrap(v, dst.bits, _signed(dst))


@SETTINGS
@given(t1=fixed_types, t2=st.one_of(fixed_types, st.sampled_from([int8, uint8, Int(5), int16])),
       op=st.sampled_from(["add", "mul"]), n=st.integers(1, 6), seed=seeds)
def test_mixed_fixed_point_promotes_then_follows_the_rules(t1, t2, op, n, seed):
    t3 = promote(t1, t2)
    assume(t3.bits <= 64)  # wider types live inside kernels only
    rng = np.random.default_rng(seed)
    ra, rb = random_ints(rng, t1, (n,)), random_ints(rng, t2, (n,))
    A = fixed_array(ra, t1, (n,))
    B = fixed_array(rb, t2, (n,)) if hasattr(t2, "frac") else int_array(rb, t2, (n,))
    # exact sum / product (bit growth), floored and wrapped into t3 when stored
    fa, fb = getattr(t1, "frac", 0), getattr(t2, "frac", 0)
    if op == "add":
        f = max(fa, fb)
        exact = [((x << (f - fa)) + (y << (f - fb)), f) for x, y in zip(ra, rb)]
    else:
        exact = [(x * y, fa + fb) for x, y in zip(ra, rb)]
    want = [fixed_cast_raw(r, Fixed(128, f), t3) for r, f in exact]
    kern = mixed_add if op == "add" else mixed_mul
    got = kern[t1, t2, t3, n](A, B)
    np.testing.assert_array_equal(got, fixed_array(want, t3, (n,)), err_msg=f"{t1} {op} {t2} -> {t3}")


def test_promotion_table_examples():
    assert promote(int8, int32) == int32
    assert promote(int8, uint8) == Int(9)  # rule 10: Int(max(m, n + 1))
    assert promote(Fixed(8, 4), int8) == Fixed(12, 4)
    assert promote(float16, int64) == float16
    assert promote(float32, float64) == float64
    assert isinstance(promote(UInt(12), Int(5)), Int)


@pytest.mark.parametrize("t,vals", [
    (Int(5), [-16, 15, 7, -1]), (UInt(12), [0, 4095, 2048, 1]), (Int(1), [0, -1, -1, 0]), (UInt(1), [0, 1, 1, 0])])
def test_odd_width_io_roundtrip_and_wrap(t, vals):
    A = int_array(vals, t, (1, 4))
    got = ew_add[t, 1, 4](A, A)
    if t == UInt(1):  # bool + bool is exact (0..2); storing into a bool tests != 0, as numpy's add
        assert ints_of(got) == [int(v != 0) for v in vals]
        return
    assert ints_of(got) == [wrap(2 * v, t.bits, _signed(t)) for v in vals]


def test_float_type_objects():
    assert isinstance(float16, Float) and float16.np_dtype == np.float16
