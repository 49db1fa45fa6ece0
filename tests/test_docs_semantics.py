"""docs/language.md says what the code does (issue 28 item 9): each decided rule is checked in
the docs text and in the code."""
import os
import re

import numpy as np
import pytest

import allo
from allo.ir.types import float32, int32

DOCS = open(os.path.join(os.path.dirname(__file__), "..", "docs", "language.md")).read()


def row(code: str) -> str:
    """The docs table row whose first cell is `code`."""
    return next(line for line in DOCS.splitlines() if line.startswith(f"| `{code}`"))


def const_bit(a: int32) -> int32:
    return int32(a[40])


def const_bit_set(a: int32) -> int32:
    x: int32 = a
    x[40] = 1
    return x


def run_time_bit(a: int32, i: int32) -> int32:
    x: int32 = a
    x[i] = 1
    return int32(a[i]) + x


def test_constant_bit_index_outside_the_width_is_an_error_a_computed_one_reads_zero():
    assert "a constant i outside it is an error" in row("x[i]")
    assert "a constant one is an error" in row("x[i] = b")
    for k in (const_bit, const_bit_set):
        with pytest.raises(allo.AlloTypeError, match=r"test_docs_semantics.py:\d+: bit index 40 is outside int32"):
            allo.customize(k)
    mod = allo.customize(run_time_bit).build()
    assert mod(5, 40) == 5 and mod(5, 1) == 7 + 0  # bit 40 reads 0, setting it changes nothing


def test_shifts_and_invert_are_defined_on_fixed_point_as_the_table_says():
    line = next(ln for ln in DOCS.splitlines() if ln.startswith("| `a << n`"))
    assert "on fixed point" in line and "raw bits" in line

    def k(x: allo.Fixed(16, 8)) -> allo.Fixed(16, 8):
        return (x << 1) + (~x >> 2)
    raw = int(1.5 * 256)
    want = (2 * raw + ((~raw) >> 2)) / 256
    assert allo.customize(k).build()(1.5) == want


def scale(A: float32[4]) -> float32[4]:
    B: float32[4] = 0.0
    for i in range(4):
        B[i] = A[i] * 2.0
    return B


def test_call_time_dtypes_convert_with_a_warning_when_no_value_changes():
    text = re.sub(r"\s+", " ", DOCS[DOCS.index("## 9. Results in numpy"):])
    assert "converted with an `AlloWarning` when no value changes" in text
    assert "before running (`AlloError` otherwise)" not in text
    mod = allo.customize(scale).build()
    with pytest.warns(allo.AlloWarning, match="float64 input to float32"):
        np.testing.assert_array_equal(mod(np.arange(4.0)), [0, 2, 4, 6])
    with pytest.raises(allo.AlloError, match="shape"):
        mod(np.zeros(5, np.float32))
