"""Golden tests of the printed MLIR (`str(allo.customize(k).module)`), compared as exact text.

Refresh the golden files after an intended change of the printed IR with::

    ALLO_UPDATE_GOLDEN=1 python -m pytest tests/test_mlir_golden.py

then review the diff of tests/golden/ like any other change.
"""
import difflib
import os
from pathlib import Path

import pytest

import allo
from allo.ir.types import Int, float32, int32

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("ALLO_UPDATE_GOLDEN", "") not in ("", "0")


def gemm(A: float32[32, 32], B: float32[32, 32]) -> float32[32, 32]:
    C: float32[32, 32] = 0.0
    for i, j in allo.grid(32, 32):
        for k in allo.reduction(32):
            C[i, j] += A[i, k] * B[k, j]
    return C


@allo.kernel(template="T, N")
def scale(A: "T[N]", s: "T") -> "T[N]":
    B: T[N] = 0  # noqa: F821
    for i in range(N):  # noqa: F821
        B[i] = A[i] * s if A[i] > T(0) else A[i]  # noqa: F821
    return B


def calls_and_odd_widths(A: int32[4], X: Int(5)[4]) -> (int32[4], Int(5)[4]):
    B = scale[int32, 4, "1"](A, 3)
    Y = scale[Int(5), 4, "2"](X, 2)
    return B, Y


def check_golden(name: str, text: str):
    path = GOLDEN / name
    if UPDATE or not path.exists():
        if not UPDATE:
            pytest.fail(f"golden file {path} is missing; create it with ALLO_UPDATE_GOLDEN=1")
        path.write_text(text)
        return
    want = path.read_text()
    if text != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), text.splitlines(True),
                                            f"golden/{name}", "printed module"))
        pytest.fail(f"printed MLIR differs from tests/golden/{name} (refresh with ALLO_UPDATE_GOLDEN=1 if the change "
                    f"is intended):\n{diff}")


def test_gemm_mlir_golden():
    check_golden("gemm.mlir", str(allo.customize(gemm).module))


def test_template_instances_and_odd_widths_mlir_golden():
    check_golden("calls_and_odd_widths.mlir", str(allo.customize(calls_and_odd_widths).module))


def test_printing_is_deterministic():
    assert str(allo.customize(gemm).module) == str(allo.customize(gemm).module)
