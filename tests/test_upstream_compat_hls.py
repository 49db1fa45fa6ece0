"""Upstream Allo's HLS C++ conventions that its tests look for, checked on our emitter and in g++ C
simulation against numpy: while loops as `while (true) { if (!cond) break; ... }`, bitcasts
through a union, hls::exp & co on half (hls_math.h; float-computed stand-ins for csim)."""
import shutil

import numpy as np
import pytest

import allo
from allo.ir.types import float16, float32, int32, uint32

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed for HLS C simulation")


def test_while_loop_has_the_exit_test_first_and_runs_in_csim(tmp_path):
    def collatz(A: int32[8], S: int32[8]):
        for i in range(8):
            n: int32 = A[i]
            steps: int32 = 0
            while n > 1 and steps < 100:
                if n % 2 == 0:
                    n = n // 2
                else:
                    n = 3 * n + 1
                steps += 1
            S[i] = steps

    mod = allo.customize(collatz).build(target="vhls", mode="csim", project=str(tmp_path / "w.prj"))
    assert "while (true) {\n      if (!(n > 1 && steps < 100)) break;" in mod.hls_code
    A = np.array([1, 2, 3, 6, 7, 27, 97, 0], np.int32)
    S = np.zeros(8, np.int32)
    mod(A, S)

    def steps(n):
        k = 0
        while n > 1 and k < 100:
            n, k = (n // 2 if n % 2 == 0 else 3 * n + 1), k + 1
        return k

    np.testing.assert_array_equal(S, [steps(int(n)) for n in A])


def test_bitcasts_go_through_a_union_and_keep_the_bits(tmp_path):
    def to_float(A: uint32[16]) -> float32[16]:
        B: float32[16]
        for i in range(16):
            B[i] = A[i].bitcast()
        return B

    def to_int(A: float32[16]) -> int32[16]:
        B: int32[16]
        for i in range(16):
            B[i] = A[i].bitcast()
        return B

    def to_half(A: int32[16]) -> float16[16]:
        B: float16[16]
        for i in range(16):
            B[i] = A[i][0:16].bitcast()
        return B

    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2**32, 16, dtype=np.uint64).astype(np.uint32)
    bits[bits >> 23 & 0xFF == 0xFF] = 0  # no NaN patterns (their payload is not compared)
    f = rng.normal(0, 1e3, 16).astype(np.float32)
    h = rng.integers(0, 0x7C00, 16).astype(np.int32)  # finite half patterns, sign bit clear
    cases = [(to_float, bits, bits.view(np.float32)), (to_int, f, f.view(np.int32)),
             (to_half, h, h.astype(np.int16).view(np.float16))]
    for k, (fn, x, want) in enumerate(cases):
        mod = allo.customize(fn).build(target="vhls", mode="csim", project=str(tmp_path / f"b{k}.prj"))
        assert "union allo_bits" in mod.hls_code and "allo_bitcast<" in mod.hls_code
        np.testing.assert_array_equal(mod(x).view(want.dtype.str.replace("f", "u")),
                                      want.view(want.dtype.str.replace("f", "u")))


def test_half_math_uses_hls_math_and_rounds_like_the_cpu(tmp_path):
    def top(A: float16[16]) -> float16[16]:
        B: float16[16]
        for i in range(16):
            B[i] = allo.exp(A[i]) + allo.sqrt(A[i]) + allo.log(A[i])
        return B

    s = allo.customize(top)
    mod = s.build(target="vhls", mode="csim", project=str(tmp_path / "h.prj"))
    code = mod.hls_code
    assert "hls::exp(A[i])" in code and "hls::sqrt(A[i])" in code and "hls::log(A[i])" in code
    assert "namespace hls" in code  # the stand-ins csim compiles when hls_math.h is absent
    A = np.linspace(0.25, 4, 16).astype(np.float16)
    f32 = lambda v: v.astype(np.float32)  # noqa: E731
    h = lambda v: f32(f32(v).astype(np.float16))  # noqa: E731  (one half rounding)
    want = h(h(np.exp(f32(A))) + h(np.sqrt(f32(A))))
    want = h(want + h(np.log(f32(A)))).astype(np.float16)
    np.testing.assert_array_equal(mod(A), want)
    np.testing.assert_array_equal(mod(A), s.build()(A))
