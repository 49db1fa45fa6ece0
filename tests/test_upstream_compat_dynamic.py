"""Upstream Allo's run-time loop steps (`range(A[i], 10, A[i])`, tests/test_builder.py::test_scf_for)
and nested, templated callees named per instance under compose (test_schedule_compose.py::
test_nested_compose). Numbers are checked against Python's own `range` on LLVM, the interpreter,
csim (g++) and the static RTL; targets that cannot take the loop raise an AlloError with the line."""
import shutil

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import allo
from allo.interp import run as interp
from allo.ir.types import float32, int32

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed for HLS C simulation")


def scf_for(A: int32[10], B: int32[10]):
    for i in range(10):
        for j in range(A[i], 10, A[i]):
            for k in range(A[i] - 1, A[i] + 2):
                B[k] += i - j


def stepped(A: int32[10], B: int32[10], s: int32):
    for j in range(A[0], A[1], s):
        B[j] += j + 1


def py_stepped(A, s):
    """Python's range, except a zero step: allo's loop runs no iteration (Python raises ValueError)."""
    B = np.zeros(10, np.int32)
    for j in (range(int(A[0]), int(A[1]), s) if s else []):
        B[j] += j + 1
    return B


def args(lo, hi):
    return np.array([lo, hi] + [0] * 8, np.int32)


def test_scf_for_matches_python_on_llvm():
    rng = np.random.default_rng(1)
    s = allo.customize(scf_for)
    mod = s.build()
    for _ in range(5):
        A = rng.integers(1, 9, 10).astype(np.int32)
        ref, got = np.zeros(10, np.int32), np.zeros(10, np.int32)
        scf_for(A, ref)  # plain Python
        mod(A.copy(), got)
        np.testing.assert_array_equal(got, ref)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 9), st.integers(-1, 10), st.integers(-4, 4))
def test_run_time_steps_follow_python_range(lo, hi, step):
    mod = _llvm()
    A, B = args(lo, hi), np.zeros(10, np.int32)
    mod(A, B, step)
    np.testing.assert_array_equal(B, py_stepped(A, step))


_MOD = {}


def _llvm():
    if "llvm" not in _MOD:
        _MOD["llvm"] = allo.customize(stepped).build()
    return _MOD["llvm"]


CASES = [(9, -1, -2), (0, 10, 3), (2, 9, 1), (9, 0, 2), (5, 5, -1), (1, 8, 0), (8, 1, -3)]


def test_run_time_steps_in_the_interpreter():
    s = allo.customize(stepped)
    for lo, hi, step in CASES:
        A, B = args(lo, hi), np.zeros(10, np.int32)
        interp(s.ir, A, B, np.int32(step))
        np.testing.assert_array_equal(B, py_stepped(A, step))


@needs_gxx
def test_run_time_steps_in_csim_and_the_cpp_loop(tmp_path):
    s = allo.customize(stepped)
    code = s.build(target="vhls")
    assert "j_trips" in str(code) and "for (int j = 0; j < j_trips; j++)" in str(code)
    mod = s.build(target="vhls", mode="csim", project=str(tmp_path / "p"))
    for lo, hi, step in CASES:
        A, B = args(lo, hi), np.zeros(10, np.int32)
        mod(A, B, step)
        np.testing.assert_array_equal(B, py_stepped(A, step))


def test_run_time_steps_on_static_rtl():
    mod = allo.customize(stepped).build(target="rtl")
    for lo, hi, step in CASES[:4]:
        A, B = args(lo, hi), np.zeros(10, np.int32)
        mod(A, B, step)
        np.testing.assert_array_equal(B, py_stepped(A, step))


def test_run_time_trip_count_loop_variable_on_static_rtl():
    # before: the variable of a loop with a run-time trip count read as its lower bound on 'rtl'
    def k(B: int32[10], n: int32):
        for t in range(n):
            B[t] = t * 3 + 1

    mod = allo.customize(k).build(target="rtl")
    B = np.zeros(10, np.int32)
    mod(B, 6)
    np.testing.assert_array_equal(B, [1, 4, 7, 10, 13, 16, 0, 0, 0, 0])


def test_schedules_on_run_time_step_loops_keep_results():
    for prim in ("split", "unroll", "pipeline"):
        s = allo.customize(stepped)
        s.split("j", 2) if prim == "split" else s.unroll("j", 2) if prim == "unroll" else s.pipeline("j")
        mod = s.build()
        for lo, hi, step in CASES:
            A, B = args(lo, hi), np.zeros(10, np.int32)
            mod(A, B, step)
            np.testing.assert_array_equal(B, py_stepped(A, step), err_msg=f"{prim} {lo} {hi} {step}")


def test_report_says_the_trip_count_is_unknown():
    s = allo.customize(stepped)
    text = str(allo.report(s))
    line = next(ln for ln in text.splitlines() if "l_j" in ln)
    assert "trip count unknown" in line


def test_calyx_refuses_with_the_line():
    s = allo.customize(stepped)
    with pytest.raises(allo.AlloError) as info:
        s.build(target="calyx")
    msg = str(info.value)
    assert "run-time step" in msg and f":{stepped.__code__.co_firstlineno + 1}:" in msg


def test_a_float_step_is_refused_with_the_line():
    def k(B: int32[10], x: float32):
        for j in range(0, 10, x):
            B[j] = 1

    with pytest.raises(allo.AlloError) as info:
        allo.customize(k)
    msg = str(info.value)
    assert "loop bound must be an integer" in msg and f":{k.__code__.co_firstlineno + 1}:" in msg
