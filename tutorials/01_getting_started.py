"""Tutorial 1: getting started with allo.

Run it with `python tutorials/01_getting_started.py`. It walks through:

1. writing a kernel as a typed Python function,
2. building it for the CPU (LLVM JIT) and checking it against numpy,
3. printing the MLIR that allo generates,
4. other types (integers of any width, fixed point) and `@allo.kernel` direct calls,
5. templates: one kernel, many element types and shapes.
"""
import warnings

import numpy as np

import allo
from allo.ir.types import Fixed, Int, float32, int8, int32

# ----------------------------------------------------------------------------- 1. a kernel
# A kernel is a Python function whose parameters and result carry allo types.
# `float32[32, 32]` is a 32x32 array of float32 (an MLIR `memref<32x32xf32>`).
# `C: float32[32, 32] = 0.0` declares a local array and fills it with 0.0.
# `allo.grid(32, 32)` is a band of two nested loops; `allo.reduction(32)` marks a reduction loop.


def gemm(A: float32[32, 32], B: float32[32, 32]) -> float32[32, 32]:
    C: float32[32, 32] = 0.0
    for i, j in allo.grid(32, 32):
        for k in allo.reduction(32):
            C[i, j] += A[i, k] * B[k, j]
    return C


# ----------------------------------------------------------------------------- 2. build and run
# `allo.customize` parses the function into allo's IR and returns a Schedule (tutorial 2 shows
# how to transform it). `build()` compiles it for the CPU and returns a callable module that
# takes and returns numpy arrays.
s = allo.customize(gemm)
mod = s.build()

rng = np.random.default_rng(0)
A = rng.uniform(-1, 1, size=(32, 32)).astype(np.float32)
B = rng.uniform(-1, 1, size=(32, 32)).astype(np.float32)
C = mod(A, B)
np.testing.assert_allclose(C, A @ B, rtol=1e-5, atol=1e-5)
print("gemm matches numpy:", C.shape, C.dtype)

# Arguments are checked before anything runs. An array of another dtype is converted when no value
# changes (float64 -> float32 rounds to the nearest float32, as numpy does), with an allo.AlloWarning
# that points at your call; a wrong shape, or a conversion that would change values, is an AlloError.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    np.testing.assert_allclose(mod(A.astype(np.float64), B), C)
assert caught[0].category is allo.AlloWarning and caught[0].filename == __file__
print(f"converted a float64 input (warning at line {caught[0].lineno} of this file):", caught[0].message)
try:
    mod(A[:16], B)
except allo.AlloError as e:
    print("rejected a 16x32 input:", str(e).splitlines()[0])

# ----------------------------------------------------------------------------- 3. the MLIR
# `s.module` is an MLIR module in the affine dialect; loops carry `loop_name` attributes and
# bands an `op_name` (here `S_i_j_0`), the handles schedules use.
print(s.module)

# ----------------------------------------------------------------------------- 4. more types
# Integers wrap around at their declared width, also odd widths such as Int(5) (held in an int8
# numpy array). Fixed(W, F) is W-bit fixed point with F fractional bits: numpy inputs are
# quantised by truncation toward minus infinity and results come back as float64.


def saxpy_int(a: int8, X: int8[8], Y: int8[8]) -> int8[8]:
    Z: int8[8] = 0
    for i in range(8):
        Z[i] = a * X[i] + Y[i]
    return Z


X = np.arange(8, dtype=np.int8) * 10
Y = np.ones(8, dtype=np.int8)
Z = allo.customize(saxpy_int).build()(3, X, Y)
print("int8 saxpy (wraps past 127):", Z)
np.testing.assert_array_equal(Z, (3 * X.astype(np.int64) + 1).astype(np.int8))


def odd_width(X: Int(5)[4]) -> Int(5)[4]:
    return X + X


print("Int(5) doubling of [3, 7, 8, -16]:", allo.customize(odd_width).build()(np.array([3, 7, 8, -16], np.int8)))


def fixed_scale(X: Fixed(16, 8)[4]) -> Fixed(16, 8)[4]:
    Y: Fixed(16, 8)[4] = 0.0
    for i in range(4):
        Y[i] = X[i] * 1.5
    return Y


F = allo.customize(fixed_scale).build()(np.array([0.1, -0.1, 2.0, 3.3]))
print("Fixed(16, 8) values times 1.5:", F)


# `@allo.kernel` makes a kernel callable directly on numpy arrays: it is built once and cached.
@allo.kernel
def relu(X: float32[4, 4]) -> float32[4, 4]:
    Y: float32[4, 4] = 0.0
    for i, j in allo.grid(4, 4):
        Y[i, j] = max(X[i, j], 0.0)
    return Y


R = relu(A[:4, :4].copy())
np.testing.assert_array_equal(R, np.maximum(A[:4, :4], 0))
print("relu via a direct call:", R[0])


# ----------------------------------------------------------------------------- 5. templates
# Template parameters are listed in the decorator and used in (string) annotations and in the
# body. `add[int32, 2, 3]` instantiates the template; inside another kernel a trailing string
# names the instance: `add[float32, 4, 4, "1"]` becomes `func.func @add_1`.
@allo.kernel(template="T, M, N")
def add(A: "T[M, N]", B: "T[M, N]") -> "T[M, N]":
    C: T[M, N] = 0  # noqa: F821 - template names
    for i, j in allo.grid(M, N):  # noqa: F821
        C[i, j] = A[i, j] + B[i, j]
    return C


I = np.arange(6, dtype=np.int32).reshape(2, 3)
print("add[int32, 2, 3]:", add[int32, 2, 3](I, I).tolist())


def twice(A: float32[4, 4]) -> float32[4, 4]:
    B = add[float32, 4, 4, "1"](A, A)
    return relu(B)


s2 = allo.customize(twice)
assert "func.func @add_1" in str(s2.module)
np.testing.assert_allclose(s2.build()(A[:4, :4].copy()), np.maximum(2 * A[:4, :4], 0), rtol=1e-6)
print("kernels calling kernels: OK")
