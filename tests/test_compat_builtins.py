"""Whole-array builtins Allo kernels call (`allo.add`, `allo.matmul`, `allo.softmax`, ...): each
builds loops in the calling kernel; results are checked against numpy (the same functions called
outside a kernel), `name=` bands are schedulable by their `L_<d>` loops, csim == LLVM."""
import numpy as np
import pytest

import allo
from allo.ir.types import float32, int32

RNG = np.random.default_rng(7)


def floats(*shape, lo=0.1, hi=1.0):
    return RNG.uniform(lo, hi, size=shape).astype(np.float32)


def test_broadcast_binary_ops_with_scalars_on_either_side():
    def k1(A: int32[10]) -> int32[10]:
        return allo.div(allo.mul(allo.sub(allo.add(A, 3), 1), 2), 2)

    def k2(A: int32[10]) -> int32[10]:
        return allo.sub(50, allo.mul(2, allo.add(3, allo.div(10, A))))

    A = RNG.integers(1, 10, 10).astype(np.int32)
    np.testing.assert_array_equal(allo.customize(k1).build()(A), ((A + 3) - 1) * 2 // 2)
    np.testing.assert_array_equal(allo.customize(k2).build()(A), 50 - 2 * (3 + 10 // A))

    def k3(X: float32[4, 6], b: float32[6]) -> float32[4, 6]:
        return allo.mul(allo.add(X, b), X)

    X, b = floats(4, 6), floats(6)
    np.testing.assert_allclose(allo.customize(k3).build()(X, b), k3(X, b), rtol=1e-6)


def test_math_on_arrays():
    def kernel(A: float32[5, 7]) -> float32[5, 7]:
        B = (allo.add(allo.exp(A), allo.abs(A)) - allo.log(A)) / A
        return allo.power(allo.sqrt(B), 2.0) + allo.log10(A) + allo.tan(A) + allo.tanh(A)

    A = floats(5, 7)
    np.testing.assert_allclose(allo.customize(kernel).build()(A), kernel(A), rtol=1e-4)


def test_matmul_bmm_linear_transpose():
    def kernel(X: float32[6, 8], W: float32[5, 8], b: float32[5], P: float32[3, 4, 6], Q: float32[3, 6, 2]
               ) -> (float32[6, 5], float32[3, 4, 2], float32[6, 5]):
        Y = allo.linear(X, W, b)
        Z = allo.bmm(P, Q)
        V = allo.matmul(X, W.T) + b
        return Y, Z, V

    args = floats(6, 8), floats(5, 8), floats(5), floats(3, 4, 6), floats(3, 6, 2)
    for got, want in zip(allo.customize(kernel).build()(*args), kernel(*args)):
        np.testing.assert_allclose(got, want, rtol=1e-5)
    def batched(A: float32[2, 3, 4], B: float32[2, 4, 3]) -> float32[2, 3, 3]:
        return allo.matmul(A, B)  # numpy's matmul of batches, as upstream Allo

    A, B = floats(2, 3, 4), floats(2, 4, 3)
    np.testing.assert_allclose(allo.customize(batched).build()(A, B), A @ B, rtol=1e-5)
    with pytest.raises(allo.AlloError, match=r"matmul needs \[M, K\] x \[K, N\]"):
        def bad(A: float32[2, 3], B: float32[4, 3]) -> float32[2, 3]:
            return allo.matmul(A, B)

        allo.customize(bad)


def test_named_bands_have_L_loops_that_schedules_address():
    def layer(inp: float32[12, 64], W: float32[64, 64], B: float32[12, 64]) -> float32[12, 64]:
        return allo.add(allo.matmul(inp, W.T, name="gemm"), B, name="bias")

    s = allo.customize(layer, lower_linalg=True)
    loops = s.get_loops()
    assert list(loops.gemm.loops.keys()) == ["L_0", "L_1", "L_2"] and list(loops.bias.loops.keys()) == ["L_0", "L_1"]
    s.pipeline(loops.bias.L_1)
    s.split(loops.gemm.L_1, 16)
    loops = s.get_loops()
    s.reorder(loops.gemm["L_1.outer"], loops.gemm.L_2, loops.gemm.L_0, loops.gemm["L_1.inner"])
    s.pipeline(loops.gemm.L_2)
    args = floats(12, 64), floats(64, 64), floats(12, 64)
    np.testing.assert_allclose(s.build()(*args), layer(*args), rtol=1e-4)
    code = s.build(target="vhls").hls_code
    assert "l_gemm_L_1_outer:" in code and "l_bias_L_0:" in code


def test_softmax_relu_gelu_layernorm_on_any_rank():
    def kernel(X: float32[2, 3, 8], g: float32[8], b: float32[8]) -> (float32[2, 3, 8], float32[2, 3, 8],
                                                                      float32[2, 3, 8], float32[2, 3, 8]):
        return allo.softmax(X), allo.relu(X), allo.gelu(X), allo.layernorm(X, g, b)

    X, g, b = floats(2, 3, 8, lo=-4, hi=4), floats(8), floats(8)
    for got, want in zip(allo.customize(kernel).build()(X, g, b), kernel(X, g, b)):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)

    def vec(x: float32[6]) -> float32[6]:
        return allo.layernorm(allo.softmax(x))  # rank 1, scalar gamma/beta defaults

    x = floats(6, lo=-2, hi=2)
    np.testing.assert_allclose(allo.customize(vec).build()(x), vec(x), rtol=1e-3, atol=1e-4)


def test_conv2d_and_pools():
    def kernel(inp: float32[2, 3, 7, 6], filt: float32[4, 3, 3, 2], win: float32[2, 2]
               ) -> (float32[2, 4, 5, 5], float32[2, 3, 6, 5], float32[2, 3, 6, 5]):
        return allo.conv2d(inp, filt), allo.maxpool(inp, win), allo.sumpool(inp, win)

    args = floats(2, 3, 7, 6, lo=-1), floats(4, 3, 3, 2, lo=-1), floats(2, 2)
    for got, want in zip(allo.customize(kernel).build()(*args), kernel(*args)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_data_movement_and_constants():
    def kernel(A: float32[4, 4], B: float32[2, 4]) -> (float32[4, 4], float32[6, 4], float32[2, 8], float32[4, 4],
                                                        float32[3, 2]):
        T = allo.tril(A)
        C = allo.concat(A, B, axis=0)
        V = allo.view(A, (2, 8))
        D = allo.copy(A) + allo.ones((4, 4), float32)
        Z = allo.zeros((3, 2), float32)
        return T, C, V, D, Z

    A, B = floats(4, 4), floats(2, 4)
    s = allo.customize(kernel)
    llvm = s.build()(A, B)
    for got, want in zip(llvm, kernel(A, B)):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    for got, want in zip(s.build(target="vhls", mode="csim")(A, B), llvm):
        np.testing.assert_array_equal(got, want)


def test_builtins_csim_matches_llvm():
    def kernel(X: float32[4, 8], W: float32[6, 8]) -> float32[4, 6]:
        return allo.softmax(allo.relu(allo.linear(X, W, name="fc")))

    s = allo.customize(kernel)
    s.pipeline(s.get_loops().fc.L_2)
    X, W = floats(4, 8, lo=-1), floats(6, 8, lo=-1)
    llvm = s.build()(X, W)
    np.testing.assert_allclose(llvm, kernel(X, W), rtol=1e-5)
    np.testing.assert_allclose(s.build(target="vhls", mode="csim")(X, W), llvm, rtol=1e-6)
