"""Kernels that index out of bounds, read uninitialised locals or loop forever (used by
test_reliability.py and test_reliability_csim.py; the tests find their lines by text)."""
import allo
from allo.ir.types import float32, int32, int64


def last_element(A: float32[8]) -> float32:
    return A[-1]


def store_last(A: float32[8], B: float32[8]):
    B[-1] = 99.0
    B[-2] = A[-8]


def shifted_store(A: float32[8], B: float32[8]):
    for i in range(8):
        B[i - 4] = A[i]


def reads_past_end(X: float32[16]) -> float32[16]:
    Y: float32[16] = 0.0
    for i in range(16):
        Y[i] = X[i + 1]
    return Y


def guarded_shift(X: float32[16]) -> float32[16]:
    Y: float32[16] = 0.0
    for i in range(16):
        if i < 15:
            Y[i] = X[i + 1]
        else:
            Y[i] = X[0]
    return Y


def far_constant_store(A: float32[8]):
    A[1000000] = 1.0


def strided_read(A: float32[8]) -> float32[4]:
    B: float32[4] = 0.0
    for i in range(4):
        B[i] = A[2 * i + 1]
    return B


def strided_past_end(A: float32[8]) -> float32[4]:
    B: float32[4] = 0.0
    for i in range(4):
        B[i] = A[3 * i]
    return B


def histogram(X: int32[8]) -> int32[16]:
    H: int32[16] = 0
    for i in range(8):
        H[X[i]] += 1
    return H


def embedding(table: float32[10, 4], ids: int64[3]) -> float32[3, 4]:
    out: float32[3, 4] = 0.0
    for l in range(3):
        for d in range(4):
            out[l, d] = table[ids[l], d]
    return out


def dynamic_bound(A: float32[8], n: int32) -> float32:
    total: float32 = 0.0
    for i in range(n):
        total += A[i]
    return total


def dynamic_store(A: float32[8], n: int32):
    for i in range(n):
        A[i] = 1.0


def guarded_gather(A: float32[8], idx: int32[4]) -> float32[4]:
    B: float32[4] = 0.0
    for i in range(4):
        B[i] = A[idx[i]] if idx[i] < 8 and idx[i] >= 0 else -1.0
    return B


def uninitialised(A: float32[8]) -> float32[8]:
    B: float32[8]
    for i in range(8):
        B[i] += A[i]
    return B


def uninitialised_scalar(A: int32[4]) -> int32:
    acc: int32
    for i in range(4):
        acc += A[i]
    return acc


def int_pow(A: int32[8], e: int32) -> int32[8]:
    B: int32[8] = 0
    for i in range(8):
        B[i] = A[i] ** e
    return B


def spin(n: int32, A: int32[4]) -> int32:
    x: int32 = 0
    while x < n:
        A[x % 4] += 1
        x = x * 1
    return x


def inplace(A: float32[4]):
    for i in range(4):
        A[i] = A[i] + 1.0


def scale(A: float32[4]) -> float32[4]:
    B: float32[4] = 0.0
    for i in range(4):
        B[i] = A[i] * 2.0
    return B


def huge_local(A: float32[4]) -> float32[4]:
    B: float32[1000000, 1000000] = 0.0
    for i in range(4):
        B[i, i] = A[i]
        A[i] = B[i, i]
    return A


def written_first(A: float32[4]) -> float32[4]:
    B: float32[4]
    t: float32
    for i in range(4):
        t = A[i] * 2.0
        B[i] = t
    return B


# ----------------------------------------------------------------------------- long loops (Ctrl-C)
def spin_registers(n: int64) -> int64:
    x: int64 = 1
    while x != n:  # only a scalar changes: nothing in the body touches memory
        x = x * 3 + 1
    return x


def spin_for(n: int64) -> int64:
    x: int64 = 0
    for i in range(n):  # a run-time bound: 2**62 iterations never end
        x = x * 3 + i
    return x


def spin_for_nested(n: int64, A: int32[64]) -> int32:
    x: int32 = 0
    for i in range(n):
        for j in range(64):
            x = x * 3 + A[j]
    return x


def spin_triangular(n: int64) -> int64:
    x: int64 = 0
    for i in range(n):
        for j in range(i):  # bounded by an enclosing run-time loop: polled too
            x = x * 3 + j
    return x


# ----------------------------------------------------------------------------- run-time bounds (entry checks)
def fill_n(A: int32[16], n: int32):
    for i in range(n):
        A[i] = i


def strided(A: int32[16], lo: int32, n: int32) -> int32:
    s: int32 = 0
    for i in range(lo, n, 4):
        s += A[i]
    return s


def rows(A: int32[8, 16], m: int32, n: int32):
    for i in range(m):
        for j in range(n):
            A[i, j] = i + j


def reversed_read(A: int32[16], B: int32[16], n: int32):
    for i in range(n):
        for k in range(2):
            B[15 - i] = A[2 * i + k - 1 + 1]


def guarded(A: int32[16], n: int32):
    for i in range(n):
        if i < 16:
            A[i] = 1
