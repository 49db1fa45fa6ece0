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
import allo.dataflow as df
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
    """Python's range, except a zero step: Python raises ValueError; the LLVM module (and builds with
    bounds_check=True) raise AlloValueError, the others run no iteration."""
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
    llvm_call(mod, A, B, step)
    np.testing.assert_array_equal(B, py_stepped(A, step))


def llvm_call(mod, A, B, step):
    """`mod(A, B, step)`; a zero step is Python's ValueError (an AlloValueError naming the loop's line)."""
    if step != 0:
        return mod(A, B, step)
    with pytest.raises(ValueError) as info:
        mod(A, B, step)
    assert isinstance(info.value, allo.AlloError) and "range() step of the loop 'j'" in str(info.value)
    assert f":{stepped.__code__.co_firstlineno + 1}:" in str(info.value)


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
    s.split("j", 2)  # a split of a run-time trip count keeps its remainder
    split = s.build(target="vhls", mode="csim", project=str(tmp_path / "q"))
    checked = allo.customize(stepped).build(target="vhls", mode="csim", bounds_check=True, project=str(tmp_path / "r"))
    with pytest.raises(ValueError, match="range\\(\\) step of the loop 'j'"):
        checked(args(1, 8), np.zeros(10, np.int32), 0)
    for lo, hi, step in CASES:
        for m in (mod, split):
            A, B = args(lo, hi), np.zeros(10, np.int32)
            m(A, B, step)
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
            llvm_call(mod, A, B, step)
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


# ----------------------------------------------------------------------------- float32[...] parameters
def copy_plus(A: float32[...], B: float32[...], size: int32):
    for i in range(size):
        B[i] = A[i] + 1.0


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 300), st.data())
def test_dynamic_length_arrays_on_llvm(n, data):
    size = data.draw(st.integers(0, n))
    mod = _dyn_llvm()
    A = np.random.default_rng(n).random(n).astype(np.float32)
    B = np.zeros(n, np.float32)
    mod(A, B, size)
    ref = np.zeros(n, np.float32)
    ref[:size] = A[:size] + 1
    np.testing.assert_array_equal(B, ref)


def _dyn_llvm():
    if "dyn" not in _MOD:
        _MOD["dyn"] = allo.customize(copy_plus).build()
    return _MOD["dyn"]


def test_dynamic_length_view_and_cpp():
    s = allo.customize(copy_plus)
    assert "memref<?xf32>" in str(s.module)
    code = str(s.build(target="vhls"))
    assert "void copy_plus(float A[], float B[], int32_t size)" in code


def test_dynamic_length_bounds_use_the_real_length():
    mod = allo.customize(copy_plus).build()
    A, B = np.ones(5, np.float32), np.zeros(5, np.float32)
    with pytest.raises(allo.AlloError) as info:
        mod(A, B, 6)  # the loop would read A[5]
    msg = str(info.value)
    assert "index 5 is out of bounds" in msg and "shape [5]" in msg
    assert f":{copy_plus.__code__.co_firstlineno + 2}:" in msg
    np.testing.assert_array_equal(B, 0)


@needs_gxx
def test_dynamic_length_csim(tmp_path):
    mod = allo.customize(copy_plus).build(target="vhls", mode="csim", project=str(tmp_path / "p"))
    for n, size in ((7, 5), (3, 3)):
        A, B = np.arange(n, dtype=np.float32), np.zeros(n, np.float32)
        mod(A, B, size)
        ref = np.zeros(n, np.float32)
        ref[:size] = A[:size] + 1
        np.testing.assert_array_equal(B, ref)


@pytest.mark.parametrize("target", ["rtl", "calyx", "xls"])
def test_static_size_targets_refuse_dynamic_lengths(target):
    s = allo.customize(copy_plus)
    with pytest.raises(allo.AlloError) as info:
        s.build(target=target)
    msg = str(info.value)
    assert "run-time length" in msg and "'A'" in msg and f":{copy_plus.__code__.co_firstlineno}:" in msg


def test_report_refuses_dynamic_lengths():
    with pytest.raises(allo.AlloError, match="run-time length"):
        allo.report(allo.customize(copy_plus))


def test_dynamic_lengths_only_on_top_parameters():
    def top(A: float32[...]):
        copy_plus(A, A, 3)

    def local(A: float32[...]):
        B: float32[...]
        B[0] = A[0]

    with pytest.raises(allo.AlloError, match="only the top kernel"):
        allo.customize(top)
    with pytest.raises(allo.AlloError) as info:
        allo.customize(local)
    assert "needs a static shape" in str(info.value) and f":{local.__code__.co_firstlineno + 1}:" in str(info.value)


def test_dynamic_length_wrong_rank_is_an_error():
    mod = allo.customize(copy_plus).build()
    with pytest.raises(allo.AlloError, match="1-D array"):
        mod(np.zeros((2, 2), np.float32), np.zeros(4, np.float32), 1)


# ----------------------------------------------------------------------------- nested compose
def add(A: int32[4, 4], B: int32[4, 4], C: int32[4, 4]):
    for i, j in allo.grid(4, 4, name="add"):
        C[i, j] = A[i, j] + B[i, j]


@allo.kernel(template="N")
def add_const(A: int32[4, 4], B: int32[4, 4], C: int32[4, 4]):
    add(A, B, C)
    for i, j in allo.grid(4, 4):
        C[i, j] = C[i, j] + N


def nested_top(A: int32[4, 4], B: int32[4, 4], C: int32[4, 4]):
    add_const[5, "c5"](A, B, C)
    add_const[7, "c7"](A, B, C)


def test_nested_callees_are_named_per_instance_and_compose_reaches_them():
    inner = allo.customize(add)
    inner.pipeline("j")
    mid = allo.customize(add_const, instantiate=[5])  # N differs from the c7 instance's: values only
    mid.compose(inner)
    s = allo.customize(nested_top)
    names = [f.name for f in s.ir.funcs]
    assert {"add_c5", "add_const_c5", "add_c7", "add_const_c7"} <= set(names)
    s.compose(mid, id="c7")
    code = str(s.build(target="vhls"))
    body = code[code.index("void add_c7("):code.index("void add_const_c7(")]
    assert "#pragma HLS pipeline II=1" in body and code.count("#pragma HLS pipeline") == 1
    A, B = np.arange(16, dtype=np.int32).reshape(4, 4), np.ones((4, 4), np.int32)
    C = np.zeros((4, 4), np.int32)
    s.build()(A, B, C)
    np.testing.assert_array_equal(C, A + B + 7)


def test_dynamic_length_in_the_interpreter():
    s = allo.customize(copy_plus)
    A, B = np.arange(6, dtype=np.float32), np.zeros(6, np.float32)
    interp(s.ir, A, B, np.int32(4))
    np.testing.assert_array_equal(B, [1, 2, 3, 4, 0, 0])


def test_dataflow_kernels_refuse_dynamic_lengths():
    def build():
        @df.region()
        def top(A: float32[...], B: float32[...]):
            @df.kernel(mapping=[1], args=[A, B])
            def core(A: float32[...], B: float32[...]):
                B[0] = A[0]

        return df.build(top, target="simulator")

    with pytest.raises(allo.AlloError, match="only the top kernel may take an array of run-time length"):
        build()


def test_run_time_step_accesses_are_checked_in_default_builds():
    mod = _llvm()
    A, B = args(0, 14), np.zeros(10, np.int32)  # j = 0, 3, ..., 12: B[12] is outside B
    with pytest.raises(allo.BoundsError) as info:
        mod(A, B, 3)
    msg = str(info.value)
    assert "index 12 is out of bounds for 'B'" in msg and "loop 'j', whose range step is read at run time" in msg
    assert f":{stepped.__code__.co_firstlineno + 2}:" in msg


def test_dynamic_length_misuse_names_the_line():
    def uses_len(A: float32[...], B: float32[...]):
        for i in range(len(A)):
            B[i] = A[i]

    def whole(A: float32[...], B: float32[...]):
        B[:] = A

    def returns(A: float32[...]) -> float32[...]:
        return A

    for k, words in ((uses_len, "known only at run time; pass it as a scalar"), (whole, "of run-time length, T[...]"),
                     (returns, "a result needs a static shape")):
        with pytest.raises(allo.AlloError) as info:
            allo.customize(k)
        line = k.__code__.co_firstlineno + (0 if k is returns else 1)
        assert words in str(info.value) and f":{line}:" in str(info.value), str(info.value)
