"""Names bound once to constants or load-free expressions, compile-time and/or, len()."""
import numpy as np

import allo
from allo.ir.types import float32, int32


def shifted(A: float32[10]) -> float32[8]:
    B: float32[8] = 0.0
    for i in range(8):
        t = i + 2          # bound by name: the load below stays affine
        scale = 3          # a compile-time constant
        B[i] = A[t] * scale
    return B


def test_once_assigned_names_are_bound_not_stored():
    s = allo.customize(shifted)
    text = str(s.module)
    assert "affine.load %arg0[%arg1 + 2]" in text
    A = np.arange(10, dtype=np.float32)
    np.testing.assert_array_equal(s.build()(A), A[2:] * 3)


def updated(A: int32[4]) -> int32:
    acc = 0
    for i in range(4):
        acc = acc + A[i]   # assigned twice: a real variable
    return acc


def test_reassigned_names_stay_variables():
    A = np.array([1, 2, 3, 4], np.int32)
    assert allo.customize(updated).build()(A) == 10


@allo.kernel(template="FLAG, N")
def masked(A: "float32[N]") -> "float32[N]":
    B: float32[N] = 0.0
    for i in range(N):
        if FLAG and i > 1:
            B[i] = A[i]
        elif not FLAG or i == 0:
            B[i] = -A[i]
    return B


def test_compile_time_and_or_short_circuit():
    A = np.arange(1, 5, dtype=np.float32)
    np.testing.assert_array_equal(masked[1, 4](A), np.array([-1, 0, 3, 4], np.float32))
    np.testing.assert_array_equal(masked[0, 4](A), -A)


def lengths(A: float32[6, 3]) -> int32:
    n: int32 = 0
    for i in range(len(A)):
        n += 1
    return n + len(A.shape)


def test_len_of_arrays_and_shapes():
    assert allo.customize(lengths).build()(np.zeros((6, 3), np.float32)) == 8


@allo.kernel(template="N")
def twice(A: "float32[N]") -> "float32[N]":
    return A * 2.0


WEIGHT = np.arange(4, dtype=np.float32)


def global_named_like_an_instance(A: float32[4]) -> float32[4]:
    twice_1: float32[4] = WEIGHT      # the constant would become @twice_1, the instance's name
    return twice[4, "1"](A) + twice_1


def test_constant_and_instance_names_do_not_clash():
    s = allo.customize(global_named_like_an_instance)
    assert "func.func @twice_1" in str(s.module)
    A = np.ones(4, np.float32)
    np.testing.assert_array_equal(s.build()(A), A * 2 + WEIGHT)
