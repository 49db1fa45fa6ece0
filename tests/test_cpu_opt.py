"""The CPU-optimised LLVM build (allo.backend.llvm.cpu_opt) computes what the loops say.

Every kernel is built twice: `optimize=False` (loops as written, serial scalar code) and the
default optimised build; integers and (without fast_math) floats must match bit for bit;
`fast_math=True` within 1e-5 relative. Reports are checked so a test fails when the
optimisation silently stops applying.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import allo
from allo.backend.llvm import openmp
from allo.ir.types import float32, float64, int8, int32

rng = np.random.default_rng(7)


def _rand(shape, dtype):
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(-50, 50, size=shape).astype(dtype)


def _both(s, args, **kw):
    ref = s.build(optimize=False)(*[a.copy() for a in args])
    mod = s.build(**kw)
    got = mod(*[a.copy() for a in args])
    return ref, got, mod


def _exact(s, args, expect=None, **kw):
    ref, got, mod = _both(s, args, **kw)
    for r, g in zip(ref if isinstance(ref, tuple) else (ref,), got if isinstance(got, tuple) else (got,)):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(r))
    if expect is not None:
        assert any(expect in line for line in mod.cpu_report), mod.cpu_report
    return mod


# ----------------------------------------------------------------------------- contractions
@allo.kernel(template="T, M, N, K")
def gemm_t(A: "T[M, K]", B: "T[K, N]") -> "T[M, N]":
    C: T[M, N] = 0
    for i, j in allo.grid(M, N):
        for k in allo.reduction(K):
            C[i, j] += A[i, k] * B[k, j]
    return C


def gemm_schedule(M, N, K, T=float32):
    return allo.customize(gemm_t, instantiate=[T, M, N, K])


@pytest.mark.parametrize("M,N,K,T,dt", [
    (32, 48, 16, float32, np.float32),
    (37, 53, 29, float32, np.float32),  # odd sizes: row and lane tails (masked vectors)
    (70, 530, 300, float32, np.float32),  # packed panels, several cache blocks + tails
    (21, 40, 17, float64, np.float64),
    (19, 35, 23, int32, np.int32),
])
def test_gemm_bit_exact(M, N, K, T, dt):
    s = gemm_schedule(M, N, K, T)
    _exact(s, [_rand((M, K), dt), _rand((K, N), dt)], expect="micro-kernel")


def test_gemm_fast_math_close():
    M, N, K = 64, 80, 96
    s = gemm_schedule(M, N, K)
    A, B = _rand((M, K), np.float32), _rand((K, N), np.float32)
    ref, got, mod = _both(s, [A, B], fast_math=True)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max())
    assert "fastmath" in mod.mlir_text


def test_scalar_accumulator_and_transposed_operand():
    M, N, K = 40, 72, 33  # linear layer: Y = X @ W.T + b, W stored [N, K]

    def linear(X: float32[M, K], W: float32[N, K], b: float32[N]) -> float32[M, N]:
        Y: float32[M, N]
        for i, j in allo.grid(M, N):
            acc: float32 = b[j]
            for k in range(K):
                acc += X[i, k] * W[j, k]
            Y[i, j] = acc
        return Y

    s = allo.customize(linear)
    mod = _exact(s, [_rand((M, K), np.float32), _rand((N, K), np.float32), _rand((N,), np.float32)],
                 expect="micro-kernel")
    assert any("accumulator" in line for line in mod.cpu_report)


def test_polybench_2mm_and_gemm_distributed():
    NI, NJ, NK, NL = 24, 20, 18, 22

    def k2mm(alpha: float32, beta: float32, A: float32[NI, NK], B: float32[NK, NJ], C: float32[NJ, NL],
             D: float32[NI, NL]):
        tmp: float32[NI, NJ] = 0.0
        for i, j in allo.grid(NI, NJ):
            for k in allo.reduction(NK):
                tmp[i, j] += alpha * A[i, k] * B[k, j]
        for i, j in allo.grid(NI, NL):
            D[i, j] *= beta
            for k in allo.reduction(NJ):
                D[i, j] += tmp[i, k] * C[k, j]

    A, B, C, D = (_rand(s, np.float32) for s in ((NI, NK), (NK, NJ), (NJ, NL), (NI, NL)))
    s = allo.customize(k2mm)
    mods = [s.build(optimize=flag) for flag in (False, True)]
    outs = []
    for m in mods:
        d = D.copy()
        m(np.float32(1.5), np.float32(0.5), A, B, C, d)
        outs.append(d)
    np.testing.assert_array_equal(outs[1], outs[0])
    assert sum("micro-kernel" in line for line in mods[1].cpu_report) == 2, mods[1].cpu_report

    def gemm(alpha: float32, beta: float32, C: float32[NI, NJ], A: float32[NI, NK], B: float32[NK, NJ]):
        for i in range(NI):
            for j in range(NJ):
                C[i, j] *= beta
            for k in range(NK):
                for j in range(NJ):
                    C[i, j] += alpha * A[i, k] * B[k, j]

    s = allo.customize(gemm)
    A, B, C = _rand((NI, NK), np.float32), _rand((NK, NJ), np.float32), _rand((NI, NJ), np.float32)
    outs, reps = [], []
    for flag in (False, True):
        c = C.copy()
        m = s.build(optimize=flag)
        m(np.float32(1.5), np.float32(1.2), c, A, B)
        outs.append(c)
        reps.append(m.cpu_report)
    np.testing.assert_array_equal(outs[1], outs[0])
    assert any("distributed" in line for line in reps[1]), reps[1]


def test_direct_convolution_with_bias():
    B, Ci, Co, H, W = 2, 3, 13, 9, 21

    def conv(X: float32[B, Ci, H + 2, W + 2], Wt: float32[Co, Ci, 3, 3], b: float32[Co]) -> float32[B, Co, H, W]:
        Y: float32[B, Co, H, W]
        for n, co, oh, ow in allo.grid(B, Co, H, W):
            acc: float32 = b[co]
            for ci, kh, kw in allo.reduction(Ci, 3, 3):
                acc += X[n, ci, oh + kh, ow + kw] * Wt[co, ci, kh, kw]
            Y[n, co, oh, ow] = acc
        return Y

    s = allo.customize(conv)
    _exact(s, [_rand((B, Ci, H + 2, W + 2), np.float32), _rand((Co, Ci, 3, 3), np.float32),
               _rand((Co,), np.float32)], expect="micro-kernel")


def test_max_reduction_and_widening_int8():
    M, N, K = 17, 40, 9

    def maxprod(A: int8[M, K], B: int8[K, N]) -> int32[M, N]:
        C: int32[M, N] = -100000
        for i, j, k in allo.grid(M, N, K):
            C[i, j] = max(C[i, j], A[i, k] * B[k, j])  # int8 * int8 is an exact int16
        return C

    s = allo.customize(maxprod)
    _exact(s, [_rand((M, K), np.int8), _rand((K, N), np.int8)], expect="micro-kernel")


# ----------------------------------------------------------------------------- other nests
def test_stencil_and_column_walk():
    N = 33

    def jacobi(A: float32[N, N]) -> float32[N, N]:
        Bm: float32[N, N] = 0.0
        for j, i in allo.grid(N - 2, N - 2):  # column-major walk: reordered to i, j
            Bm[i + 1, j + 1] = 0.2 * (A[i + 1, j + 1] + A[i, j + 1] + A[i + 2, j + 1] + A[i + 1, j] + A[i + 1, j + 2])
        return Bm

    s = allo.customize(jacobi)
    _exact(s, [_rand((N, N), np.float32)], expect="reordered")


def test_in_place_recurrence_left_alone():
    N = 20

    def scan(A: float32[N, N]):
        for j, i in allo.grid(N, N - 1):  # loop-carried along i: must not be reordered
            A[i + 1, j] = A[i + 1, j] + A[i, j] * 0.5

    s = allo.customize(scan)
    outs = []
    for flag in (False, True):
        a = _rand((N, N), np.float32)
        a[:] = np.arange(N * N, dtype=np.float32).reshape(N, N) / 100
        s.build(optimize=flag)(a)
        outs.append(a)
    np.testing.assert_array_equal(outs[1], outs[0])


def test_softmax_like_rows():
    M, N = 7, 45

    def softmax(X: float32[M, N]) -> float32[M, N]:
        Z: float32[M, N]
        for i in range(M):
            mx: float32 = X[i, 0]
            for j in range(N):
                mx = max(mx, X[i, j])
            total: float32 = 0.0
            for j2 in range(N):
                e: float32 = allo.exp(X[i, j2] - mx)
                Z[i, j2] = e
                total += e
            for j3 in range(N):
                Z[i, j3] = Z[i, j3] / total
        return Z

    s = allo.customize(softmax)
    X = _rand((M, N), np.float32)
    _exact(s, [X])
    ref, got, _ = _both(s, [X], fast_math=True)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-7)


def test_if_and_while_inside_loops():
    M, N, K = 12, 20, 7

    def branchy(A: float32[M, K], B: float32[K, N]) -> float32[M, N]:
        C: float32[M, N] = 0.0
        for i, j in allo.grid(M, N):
            for k in range(K):
                if A[i, k] > 0.0:
                    C[i, j] += A[i, k] * B[k, j]
                else:
                    C[i, j] -= B[k, j]
        return C

    def loopy(A: int32[M, N]) -> int32[M, N]:
        Z: int32[M, N] = 0
        for i, j in allo.grid(M, N):
            x: int32 = A[i, j]
            n: int32 = 0
            while x > 1:
                x = x // 2
                n += 1
            Z[i, j] = n
        return Z

    _exact(allo.customize(branchy), [_rand((M, K), np.float32), _rand((K, N), np.float32)])
    A = rng.integers(0, 5000, size=(M, N)).astype(np.int32)
    _exact(allo.customize(loopy), [A])


# ----------------------------------------------------------------------------- parallel
def test_parallel_gemm_and_rows_match_serial():
    M, N, K = 96, 72, 40
    s = gemm_schedule(M, N, K)
    s.parallel("i")
    A, B = _rand((M, K), np.float32), _rand((K, N), np.float32)
    _exact(s, [A, B], threads=2)

    def rows(A: float32[M, K]) -> float32[M]:
        out: float32[M]
        for i in range(M):
            tmp: float32[K]
            acc: float32 = 0.0
            for k in range(K):
                tmp[k] = A[i, k] * 2.0
            for k2 in range(K):
                acc += tmp[k2]
            out[i] = acc
        return out

    s2 = allo.customize(rows)
    s2.parallel("i")
    mod = _exact(s2, [_rand((M, K), np.float32)], threads=2)
    if openmp.runtime() is not None:
        assert any("parallel" in line for line in mod.cpu_report), mod.cpu_report
        assert "affine.parallel" in mod.mlir_text


def test_parallel_falls_back_without_runtime(monkeypatch):
    M, N, K = 16, 24, 8
    s = gemm_schedule(M, N, K)
    s.parallel("j")
    monkeypatch.setenv(openmp.ENV_LIBRARY, "/nonexistent/libiomp5.so")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        _exact(s, [_rand((M, K), np.float32), _rand((K, N), np.float32)], threads=2)
    assert any("OpenMP runtime" in str(x.message) for x in w)


def test_hls_attributes_do_not_block_optimisation():
    M, N, K = 32, 32, 32
    s = gemm_schedule(M, N, K)
    s.pipeline("k")
    s.unroll("j", 4)
    s.partition(s.A, allo.Partition.Cyclic, dim=2, factor=4)
    _exact(s, [_rand((M, K), np.float32), _rand((K, N), np.float32)], expect="micro-kernel")


def test_hls_buffer_at_folded_back():
    M, N, K = 24, 40, 19

    def linear(X: float32[M, K], W: float32[N, K]) -> float32[M, N]:
        Z: float32[M, N] = 0.0
        for i, j in allo.grid(M, N):
            for k in allo.reduction(K):
                Z[i, j] += X[i, k] * W[j, k]
        return Z

    s = allo.customize(linear)
    s.reorder("k", "j")
    s.buffer_at(s.Z, "i")
    s.pipeline("j")
    mod = _exact(s, [_rand((M, K), np.float32), _rand((N, K), np.float32)], expect="micro-kernel")
    assert any("folded back" in line for line in mod.cpu_report), mod.cpu_report


def test_integer_sum_and_float_max_reductions_vectorised():
    M, N = 5, 77  # 77: a masked tail after full vectors

    def stats(A: int32[M, N], B: float32[M, N]) -> int32[M]:
        out: int32[M]
        for i in range(M):
            acc: int32 = 0
            for j in range(N):
                acc += A[i, j] * 3
            mx: float32 = B[i, 0]
            for j2 in range(N):
                mx = max(mx, B[i, j2])
            out[i] = acc + int32(mx)
        return out

    B = _rand((M, N), np.float32)
    B[2, 40] = np.nan  # NaN propagates through max in any order
    mod = _exact(allo.customize(stats), [_rand((M, N), np.int32), B], expect="reduction")
    assert sum("reduction" in line for line in mod.cpu_report) == 2, mod.cpu_report


def test_fast_math_functions_accuracy():
    N = 2048

    def funcs(X: float32[N]) -> float32[4, N]:
        Z: float32[4, N]
        for i in range(N):
            Z[0, i] = allo.exp(X[i])
            Z[1, i] = allo.erf(X[i])
            Z[2, i] = allo.tanh(X[i])
            Z[3, i] = 1.0 / (1.0 + allo.exp(-X[i]))
        return Z

    x = (rng.standard_normal(N) * 8).astype(np.float32)
    x[:4] = [np.inf, -np.inf, 0.0, -100.0]
    ref, got, _ = _both(allo.customize(funcs), [x], fast_math=True)
    np.testing.assert_allclose(got[0], ref[0], rtol=3e-7, atol=1e-37)
    np.testing.assert_allclose(got[1:], ref[1:], rtol=1e-5, atol=5e-7)


def test_parallel_loop_scratch_buffer_is_private():
    M, K = 64, 300

    def rows(A: float32[M, K]) -> float32[M]:
        out: float32[M]
        tmp: float32[K]  # scratch declared outside, used only inside the parallel loop
        for i in range(M):
            for k in range(K):
                tmp[k] = A[i, k] * A[i, k]
            s: float32 = 0.0
            for k2 in range(K):
                s += tmp[k2]
            out[i] = s
        return out

    s = allo.customize(rows)
    s.parallel("i")
    mod = _exact(s, [_rand((M, K), np.float32)], threads=2)
    if openmp.runtime() is not None:  # tmp is allocated in the function holding the loop body
        body_fn = mod.mlir_text[mod.mlir_text.index("func.func private @rows__par"):]
        assert 'name = "tmp"' in body_fn


def _polybench_cases():
    try:
        from tests.polybench.kernels import KERNELS
    except Exception:  # pragma: no cover - the suite is optional for this file
        return []
    return KERNELS


@pytest.mark.parametrize("case", _polybench_cases(), ids=lambda c: c.name)
def test_polybench_optimised_equals_unoptimised(case):
    args = case.make_inputs(np.random.default_rng(3))
    s = allo.customize(case.kernel)
    ref = case.run(s.build(optimize=False), args)
    got = case.run(s.build(), args)
    for r, g in zip(ref if isinstance(ref, tuple) else (ref,), got if isinstance(got, tuple) else (got,)):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(r))


def test_parallel_contractions_pick_a_loop():
    B, Ci, Co, H, W = 2, 3, 9, 6, 20

    def conv(X: float32[B, Ci, H + 2, W + 2], Wt: float32[Co, Ci, 3, 3]) -> float32[B, Co, H, W]:
        Y: float32[B, Co, H, W] = 0.0
        for n, co, oh, ow in allo.grid(B, Co, H, W):
            for ci, kh, kw in allo.reduction(Ci, 3, 3):
                Y[n, co, oh, ow] += X[n, ci, oh + kh, ow + kw] * Wt[co, ci, kh, kw]
        return Y

    s = allo.customize(conv)
    s.parallel("co")  # any parallel dimension may run in parallel: the batch loop is chosen
    _exact(s, [_rand((B, Ci, H + 2, W + 2), np.float32), _rand((Co, Ci, 3, 3), np.float32)], threads=2)

    M, N = 30, 200

    def colsum(A: float32[M, N], x: float32[M]) -> float32[N]:
        y: float32[N] = 0.0
        for i, j in allo.grid(M, N):
            y[j] += A[i, j] * x[i]
        return y

    s = allo.customize(colsum)
    s.parallel("j")  # no row dimension: lane panels are split between threads
    mod = _exact(s, [_rand((M, N), np.float32), _rand((M,), np.float32)], threads=2)
    if openmp.runtime() is not None:
        assert "affine.parallel" in mod.mlir_text


def test_optimiser_failure_falls_back_to_plain_build(monkeypatch):
    import allo.backend.llvm.cpu_opt as cpu_opt

    M, N, K = 9, 11, 5
    s = gemm_schedule(M, N, K)
    A, B = _rand((M, K), np.float32), _rand((K, N), np.float32)
    want = s.build(optimize=False)(A, B)

    def broken(*a, **k):
        raise RuntimeError("simulated optimiser bug")

    for target, name in ((cpu_opt, "render_cpu"), (cpu_opt, "lowering_pipeline")):
        with monkeypatch.context() as m:
            if name == "lowering_pipeline":
                m.setattr(target, name, lambda *a, **k: "no-such-pass")
            else:
                m.setattr(target, name, broken)
            with pytest.warns(RuntimeWarning, match="CPU optimisation failed"):
                mod = s.build(threads=1, opt_level=1)
            np.testing.assert_array_equal(mod(A, B), want)
            assert mod.cpu_report == []


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=8, deadline=None)
@given(st.integers(1, 40), st.integers(1, 90), st.integers(1, 20), st.sampled_from(["ijk", "ikj", "kij", "jik"]))
def test_random_gemm_shapes_and_orders_bit_exact(M, N, K, order):
    s = gemm_schedule(M, N, K)
    loops = {"i": "i", "j": "j", "k": "k"}
    if order != "ijk":
        s.reorder(*[loops[c] for c in order])
    _exact(s, [_rand((M, K), np.float32), _rand((K, N), np.float32)])


# ----------------------------------------------------------------------------- linear packing / row split
def test_balanced_row_tiles():
    from allo.backend.llvm.cpu.emit import balanced_rows

    assert balanced_rows(128, 6, 2) == 4  # 16 tiles of 4 rows per thread, no serial leftover rows
    assert balanced_rows(96, 6, 2) == 6
    assert balanced_rows(97, 6, 2) == 6  # nothing divides: keep the register tile


@pytest.mark.parametrize("M,N,K,threads", [(128, 64, 48, 2), (40, 48, 40, 1), (37, 40, 20, 2), (64, 19, 24, 2)])
def test_linear_transposed_pack_bit_exact(M, N, K, threads):
    """nn.linear reads W[N, K] along k: its panels are packed by VLxVL vector transposes (when
    the lanes, K and the cache block are multiples of VL) or element by element (the others);
    both give the loops' results bit for bit, serial and with row tiles split between threads."""
    from allo.library import nn

    s = allo.customize(nn.linear, instantiate=[float32, M, N, K])
    nn.linear.schedule_fn(s)
    args = [_rand((M, K), np.float32), _rand((N, K), np.float32), _rand((N,), np.float32)]
    mod = _exact(s, args, threads=threads)
    assert any("vector micro-kernel" in line for line in mod.cpu_report), mod.cpu_report


def test_malloc_tuning_switches(monkeypatch):
    """glibc's heap keeps freed kernel intermediates mapped (no page faults per call); the user's
    ALLO_MALLOC_TUNING=0 or glibc's own MALLOC_*_THRESHOLD_ variables turn allo's tuning off."""
    import platform

    from allo.backend import allocator

    tune = allocator.tune_malloc.__wrapped__
    monkeypatch.setenv(allocator.ENV_SWITCH, "0")
    assert tune() is False
    monkeypatch.delenv(allocator.ENV_SWITCH)
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "1000000")
    assert tune() is False
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_")
    if platform.system() == "Linux" and platform.libc_ver()[0] == "glibc":
        assert tune() is True
