"""Upstream Allo's helper APIs that its top-level tests call: allo.primitives.unify with
allo.LLVMModule/HLSModule, allo.passes.analyze_arg_load_store(_in_func), s.get_equivalent_variables,
s.compose([...]), N-D allo.matmul and allo.ones(dtype=float). Kernels are checked against numpy."""
import numpy as np
import pytest

import allo
from allo.passes import analyze_arg_load_store, analyze_arg_load_store_in_func
from allo.primitives.unify import unify
from allo.ir.types import float32, int8, int32

L = 6


def inc(A: int8[L], B: int8[L]):
    for i in range(L):
        A[i] = A[i] + B[i]
        for j in range(2):
            A[i] += 1


def dec(A: int8[L], B: int8[L]):
    for i in range(L):
        A[i] = A[i] - B[i]
        for j in range(2):
            A[i] -= 1


def test_unify_runs_the_chosen_kernel_each_step_and_shares_loops():
    s = unify(inc, dec, 5)
    assert s.top_func_name == "inc_dec_unified"
    mod = allo.LLVMModule(s, "inc_dec_unified")
    rng = np.random.default_rng(0)
    A, B = rng.integers(-5, 5, L).astype(np.int8), rng.integers(-3, 3, L).astype(np.int8)
    inst = np.array([0, 1, 1, 0, 1], np.int8)
    ref = A.astype(np.int64)
    for k in inst:
        ref = ref + B + 2 if k == 0 else ref - B - 2
    mod(A, B, inst)
    np.testing.assert_array_equal(A, ref.astype(np.int8))
    code = allo.HLSModule(s, "inc_dec_unified", "vivado_hls").hls_code
    assert "void inc_dec_unified(int8_t A[6], int8_t B[6], int8_t inst[5])" in code
    assert code.count("for (int i = 0; i < 6; i++)") == 1  # the common loop is shared
    with pytest.raises(allo.AlloError, match="top function is 'inc_dec_unified'"):
        allo.LLVMModule(s, "other")


def test_unify_refuses_different_signatures_and_results():
    def other(A: int8[L]):
        for i in range(L):
            A[i] = 0

    def ret(A: int8[L], B: int8[L]) -> int8[L]:
        return A

    with pytest.raises(allo.AlloError, match="same parameters"):
        unify(inc, other, 2)
    with pytest.raises(allo.AlloError, match="must not return"):
        unify(inc, ret, 2)
    with pytest.raises(allo.AlloError, match="positive"):
        unify(inc, dec, 0)


def test_arg_load_store_analysis_follows_calls():
    def kernel(A: int32[8], B: int32[8], C: int32[8]):
        for i in range(8):
            C[i] = A[i] + B[i]

    def rw(D: int32[8], n: int32):
        for i in range(8):
            D[i] = D[i] + n

    def top(X: int32[8], Y: int32[8], Z: int32[8], P: int32[8], Q: int32[8]):
        kernel(X, Y, Z)
        rw(P, 3)

    s = allo.customize(top)
    res = analyze_arg_load_store(s.module)
    assert res["kernel"] == ["in", "in", "out"] and res["rw"] == ["both", "scalar"]
    assert res["top"] == ["in", "in", "out", "both", "func"]
    assert analyze_arg_load_store_in_func(s.ir.func("kernel")) == ["in", "in", "out"]
    assert analyze_arg_load_store_in_func(s.top_func) == ["func"] * 5  # without the callees' mapping
    with pytest.raises(allo.AlloError, match="allo IR function"):
        analyze_arg_load_store_in_func(s.module)


def test_equivalent_variables_link_arguments_both_ways():
    def leaf(x: int32) -> int32:
        return x + 1

    def mid(a: int32) -> int32:
        b: int32 = leaf(a)
        return b

    def top(p: int32) -> int32:
        d: int32 = p * 2
        e: int32 = mid(d)
        return e

    s = allo.customize(top)
    assert s.get_equivalent_variables("top:d") == {"top:d", "mid:0", "leaf:0"}
    assert s.get_equivalent_variables("mid:0") == {"top:d", "mid:0", "leaf:0"}
    assert s.get_equivalent_variables("top:0") == {"top:0"}
    with pytest.raises(allo.ScheduleError, match="no variable 'top:zz'"):
        s.get_equivalent_variables("top:zz")


def test_compose_a_list_is_all_or_nothing():
    def f(A: int32[8]) -> int32[8]:
        B: int32[8] = 0
        for i in range(8):
            B[i] = A[i] * 2
        return B

    def g(A: int32[8]) -> int32[8]:
        B: int32[8] = 0
        for j in range(8):
            B[j] = A[j] + 1
        return B

    def top(A: int32[8]) -> int32[8]:
        return g(f(A))

    sf, sg = allo.customize(f), allo.customize(g)
    sf.pipeline("i")
    sg.unroll("j", 2)
    s = allo.customize(top)
    s.compose([sf, sg])
    code = s.build(target="vhls").hls_code
    assert "#pragma HLS pipeline II=1" in code and "#pragma HLS unroll factor=2" in code
    A = np.arange(8, dtype=np.int32)
    np.testing.assert_array_equal(s.build()(A), A * 2 + 1)
    s2 = allo.customize(top)
    s2.compose([sf])
    before, steps = str(s2.module), len(s2.steps)
    with pytest.raises(allo.ScheduleError):
        s2.compose([sg, "not a schedule"])
    assert str(s2.module) == before and len(s2.steps) == steps  # sg's steps were undone


def test_batched_matmul_and_python_dtypes():
    def kernel(A: int32[2, 3, 4, 5], B: int32[2, 3, 5, 6]) -> int32[2, 3, 4, 6]:
        return allo.matmul(A, B)

    rng = np.random.default_rng(1)
    A, B = rng.integers(-9, 9, (2, 3, 4, 5)).astype(np.int32), rng.integers(-9, 9, (2, 3, 5, 6)).astype(np.int32)
    np.testing.assert_array_equal(allo.customize(kernel).build()(A, B), A @ B)

    def bad(A: int32[2, 4, 5], B: int32[3, 5, 6]) -> int32[2, 4, 6]:
        return allo.matmul(A, B)

    with pytest.raises(allo.AlloTypeError, match="same batch"):
        allo.customize(bad)

    def ones(A: float32[3, 4]) -> float32[3, 4]:
        C = allo.ones((3, 4), dtype=float)
        return A + C

    X = rng.random((3, 4), dtype=np.float32)
    np.testing.assert_allclose(allo.customize(ones).build()(X), X + 1, rtol=1e-6)


def test_systolic_tile_of_processing_elements_matches_numpy():
    from allo.library.systolic import systolic_tile

    s = allo.customize(systolic_tile, instantiate=[int8, int8, int32, 5, 3, 4])
    rng = np.random.default_rng(2)
    A, B = rng.integers(-8, 8, (3, 5)).astype(np.int8), rng.integers(-8, 8, (5, 4)).astype(np.int8)
    C = np.zeros((3, 4), np.int32)
    s.build()(A, B, C)
    np.testing.assert_array_equal(C, A.astype(np.int32) @ B.astype(np.int32))
    assert s.get_loops()["PE"]["j"] is not None


def test_upstream_rope_and_modulate_fused_match_numpy():
    from allo.library import nn

    H, L, D = 2, 3, 8
    rng = np.random.default_rng(4)
    X = rng.standard_normal((L, D)).astype(np.float32)
    cos, sin = rng.standard_normal((L, 2)).astype(np.float32), rng.standard_normal((L, 2)).astype(np.float32)
    s = allo.customize(nn.RoPE, instantiate=[float32, H, L, D])
    nn.RoPE.schedule_fn(s)
    heads = X.reshape(L, H, 2, 2)  # [L, head, half, D/H/2]
    x1, x2 = heads[:, :, 0], heads[:, :, 1]
    want = np.stack([x1 * cos[:, None] - x2 * sin[:, None], x1 * sin[:, None] + x2 * cos[:, None]], axis=2)
    np.testing.assert_allclose(s.build()(X, cos, sin), want.reshape(L, D), rtol=1e-5, atol=1e-6)

    s = allo.customize(nn.modulate_fused, instantiate=[float32, L, D])
    nn.schedule_modulate_fused(s)
    scale, shift = rng.standard_normal(D).astype(np.float32), rng.standard_normal(D).astype(np.float32)
    np.testing.assert_allclose(s.build()(X, scale, shift), X * (1 + scale) + shift, rtol=1e-5, atol=1e-6)
    assert "#pragma HLS pipeline" in s.build(target="vhls").hls_code


def test_hbm_connectivity_config():
    from allo.backend.vitis import generate_hbm_config

    text = generate_hbm_config("gemm", {"A": 0, "B": "HBM[1]", "C": "DDR[0]", "D": "HBM[0:3]"}, {"C": "out0"})
    assert text.splitlines() == ["[connectivity]", "", "sp=gemm_1.A:HBM[0]", "sp=gemm_1.B:HBM[1]",
                                 "sp=gemm_1.out0:DDR[0]", "sp=gemm_1.D:HBM[0:3]"]
    with pytest.raises(allo.BackendError, match="not a v\\+\\+ memory bank"):
        generate_hbm_config("gemm", {"A": "SRAM[0]"})
    with pytest.raises(allo.BackendError, match=">= 0"):
        generate_hbm_config("gemm", {"A": -1})


def test_packed_systolic_on_int16_words_of_two_int8_matches_numpy():
    from allo.library.systolic import packed_systolic
    from allo.ir.types import int16

    L, D, N = 8, 4, 8
    rng = np.random.default_rng(5)
    X, W = rng.integers(-4, 4, (L, D)).astype(np.int8), rng.integers(-4, 4, (D, N)).astype(np.int8)
    pack_rows = lambda a: np.ascontiguousarray(np.ascontiguousarray(a.T).view(np.int16).T)  # noqa: E731

    def top(Xp: int16[L // 2, D], Wp: int16[D, N // 2]) -> int16[L // 2, N]:
        Z: int16[L // 2, N]
        packed_systolic[int8, int8, int8, L, D, N, 4, 4, 2](Xp, Wp, Z)
        return Z

    got = allo.customize(top).build()(pack_rows(X), W.view(np.int16))
    want = (X.astype(np.int32) @ W.astype(np.int32)).astype(np.int8)  # accumulated in int8: wraps
    np.testing.assert_array_equal(got, pack_rows(want))
