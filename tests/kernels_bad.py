"""Kernels with deliberate mistakes, used by test_errors.py (line numbers matter)."""
import allo
from allo.ir.types import float32, int32


def unknown_name(A: float32[4]) -> float32[4]:
    B: float32[4] = 0.0
    for i in range(4):
        B[i] = A[i] + Q
    return B


def uses_lambda(A: float32[4]) -> float32[4]:
    f = lambda x: x + 1  # noqa: E731
    return A


def uses_try(A: float32[4]):
    try:
        A[0] = 1.0
    except Exception:
        pass


def uses_break(A: float32[4]):
    for i in range(4):
        if A[i] > 0.0:
            break


def uses_comprehension(A: float32[4]) -> float32[4]:
    B = [A[i] for i in range(4)]
    return A


def wrong_rank(A: float32[4, 4]) -> float32[4, 4]:
    B: float32[4, 4] = 0.0
    for i in range(4):
        B[i, i, i] = A[i, i]  # one index too many (B[i] alone is row i)
    return B


def shape_mismatch(A: float32[4, 4], B: float32[3, 4]) -> float32[4, 4]:
    C = A + B
    return C


def return_shape(A: float32[4, 4]) -> float32[8, 8]:
    return A


def no_annotation(A) -> float32[4]:
    return A


@allo.kernel(template="T, N")
def tmpl(A: "T[N]") -> "T[N]":
    return A + 1


def wrong_arity(A: float32[4]) -> float32[4]:
    return tmpl[float32](A)


def callee(A: float32[4]) -> float32[4]:
    return A * 2.0


def wrong_call_shape(A: float32[8]) -> float32[4]:
    return callee(A)


def float_index(A: float32[4]) -> float32:
    return A[1.5]


def assign_loop_var(A: float32[4]):
    for i in range(4):
        i = 2
