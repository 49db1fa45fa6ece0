"""Upstream Allo's IR structure around `unfold`: a constant initialiser prints as one
`linalg.fill` (so `to = "C"` counts only the kernel's own stores), and a call directly in an
unfolded loop gets its own copy of the callee per iteration (`kernel_0`, `kernel_1`, ...), each
schedulable alone. Every kernel is checked against numpy, on LLVM and (one case) HLS csim."""
import numpy as np
import pytest

import allo
from allo.ir import nodes
from allo.ir.types import float32, index, int8, int16, int32
from allo.ir.visit import walk_stmts

M, N, K = 2, 3, 4


def matmul(A: int32[M, K], B: int32[K, N]) -> int32[M, N]:
    C: int32[M, N] = 0
    for i, j in allo.grid(M, N, name="PE"):
        for k in range(K):
            C[i, j] += A[i, k] * B[k, j]
    return C


def pe(A: int32[M, K], B: int32[K, N], C: int32[M, N], i: index, j: index):
    for k in range(K):
        C[i, j] += A[i, k] * B[k, j]


def matmul_calls(A: int32[M, K], B: int32[K, N]) -> int32[M, N]:
    C: int32[M, N] = 0
    for i, j in allo.grid(M, N, name="PE"):
        pe(A, B, C, i, j)
    return C


def ints(*shape):
    return np.random.default_rng(7).integers(-9, 9, size=shape).astype(np.int32)


def test_constant_initialiser_is_one_fill_and_runs():
    s = allo.customize(matmul)
    text = str(s.module)
    assert text.count("linalg.fill") == 1 and text.count('to = "C"') == 1  # the += store only
    s.unfold("PE", [0])
    assert str(s.module).count('to = "C"') == M
    A, B = ints(M, K), ints(K, N)
    np.testing.assert_array_equal(s.build()(A, B), A @ B)


def test_float_and_scalar_initialisers():
    def k(A: float32[4]) -> float32[4]:
        B: float32[4] = 1.5
        acc: float32 = 0.0
        for i in range(4):
            acc += A[i]
            B[i] += acc
        return B

    s = allo.customize(k)
    assert "linalg.fill ins(%cst" in str(s.module)
    A = np.arange(4, dtype=np.float32)
    np.testing.assert_allclose(s.build()(A), 1.5 + np.cumsum(A))


@pytest.mark.parametrize("axes, names", [([0], ["pe_0", "pe_1"]),  # the call sits in loop j
                                         ([1], ["pe_0", "pe_1", "pe_2"]),
                                         ([0, 1], ["pe_0_0", "pe_2_1"])])
def test_unfolded_calls_get_their_own_callee(axes, names):
    s = allo.customize(matmul_calls)
    s.unfold("PE", axes)
    text = str(s.module)
    funcs = [f.name for f in s.ir.funcs]
    if axes == [0]:
        assert funcs == ["pe", "matmul_calls"]  # not directly in loop i: one shared callee
    else:
        assert "pe" not in funcs and all(f"call @{n}(" in text for n in names)
        assert len(funcs) == 1 + (N if axes == [1] else M * N)
    A, B = ints(M, K), ints(K, N)
    np.testing.assert_array_equal(s.build()(A, B), A @ B)


def test_each_unfolded_callee_is_scheduled_alone():
    s = allo.customize(matmul_calls)
    s.unfold("PE", [1])
    s.pipeline("pe_1:k")
    s.unroll("pe_2:k", 2)
    hls = s.build(target="vhls").hls_code
    body = hls.split("void pe_1(")[1].split("void pe_2(")[0]
    assert "#pragma HLS pipeline" in body and "#pragma HLS pipeline" not in hls.split("void pe_0(")[1].split("void pe_1(")[0]
    A, B = ints(M, K), ints(K, N)
    np.testing.assert_array_equal(s.build()(A, B), A @ B)
    if allo.backend.hls.is_available("csim"):
        np.testing.assert_array_equal(s.build(target="vitis_hls", mode="csim")(A, B), A @ B)


def test_unfold_never_shadows_an_existing_function():
    def pe_0(X: int32[M, N]):  # already named like the first copy
        for i, j in allo.grid(M, N):
            X[i, j] += 1

    def top(A: int32[M, K], B: int32[K, N]) -> int32[M, N]:
        C: int32[M, N] = 0
        for i, j in allo.grid(M, N, name="PE"):
            pe(A, B, C, i, j)
        pe_0(C)
        return C

    s = allo.customize(top)
    s.unfold("PE", [1])
    funcs = [f.name for f in s.ir.funcs]
    assert "pe_0" in funcs and "pe_0_1" in funcs and len(set(funcs)) == len(funcs)
    A, B = ints(M, K), ints(K, N)
    np.testing.assert_array_equal(s.build()(A, B), A @ B + 1)


def gemm8(A: int8[4, 4], B: int8[4, 4], C: int16[4, 4]):
    for i, j in allo.grid(4, 4, name="PE"):
        for k in range(4):
            C[i, j] += A[i, k] * B[k, j]


def test_buffer_at_of_a_read_only_input_copies_in_and_never_writes_back():
    s = allo.customize(gemm8)
    a_buf = s.buffer_at(s.A, "i")  # upstream's systolic input buffers
    b_buf = s.buffer_at(s.B, "j")
    f = s.ir.func("gemm8")
    loops = [st.name for st in walk_stmts(f.body) if isinstance(st, nodes.For)]
    assert "k_init" in loops and not any(n.endswith("_back") for n in loops)
    stores = {st.buf.name for st in walk_stmts(f.body) if isinstance(st, nodes.Store)}
    assert stores == {a_buf.name, b_buf.name, "C"}  # A and B are never written
    shapes = {b.name: b.shape for st in walk_stmts(f.body) if isinstance(st, nodes.Alloc) for b in [st.buf]}
    assert shapes[a_buf.name] == (4,) and shapes[b_buf.name] == (4,)
    rng = np.random.default_rng(3)
    A, B = rng.integers(-9, 9, (4, 4)).astype(np.int8), rng.integers(-9, 9, (4, 4)).astype(np.int8)
    C = np.zeros((4, 4), np.int16)
    s.build()(A, B, C)
    np.testing.assert_array_equal(C, A.astype(np.int16) @ B.astype(np.int16))
    if allo.backend.hls.is_available("csim"):
        C2 = np.zeros((4, 4), np.int16)
        s.build(target="vitis_hls", mode="csim")(A, B, C2)
        np.testing.assert_array_equal(C2, C)


def test_buffer_at_of_a_buffer_the_loop_never_touches_is_an_error():
    def k(A: int32[4], B: int32[4], C: int32[4]):
        for i in range(4):
            B[i] = A[i]
        for j in range(4):
            C[j] = B[j]

    with pytest.raises(allo.ScheduleError, match="'A' is not accessed inside loop 'j'"):
        allo.customize(k).buffer_at("A", "j")


def test_unfold_after_buffer_at_reaches_the_band_loop_beside_the_copy_loops():
    s = allo.customize(gemm8)
    s.buffer_at(s.A, "i")  # i's body: the A_buf copy loop, then loop j
    s.buffer_at(s.B, "j")
    s.unfold("PE", [0, 1])
    s.partition(s.C, dim=0)
    f = s.ir.func("gemm8")
    names = [st.name for st in walk_stmts(f.body) if isinstance(st, nodes.For)]
    assert "i" not in names and "j" not in names and names.count("k") == 16
    rng = np.random.default_rng(5)
    A, B = rng.integers(-9, 9, (4, 4)).astype(np.int8), rng.integers(-9, 9, (4, 4)).astype(np.int8)
    C = np.zeros((4, 4), np.int16)
    s.build()(A, B, C)
    np.testing.assert_array_equal(C, A.astype(np.int16) @ B.astype(np.int16))
    if allo.backend.hls.is_available("csim"):
        C2 = np.zeros((4, 4), np.int16)
        s.build(target="vitis_hls", mode="csim")(A, B, C2)
        np.testing.assert_array_equal(C2, C)
