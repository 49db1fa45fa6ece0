"""`s.compose(...)`: replaying sub-schedules on template instances (SPEC section 4).

A template kernel instantiated twice with ids (`k[float32, 8, 8, "1"]`, `k[float32, 8, 8, "2"]`)
gives `@k_1` and `@k_2`; each composed schedule must land on its own instance only, results must
still match numpy, and a compose that cannot apply must change nothing.
"""
from __future__ import annotations

import numpy as np
import pytest

import allo
from allo.ir.types import float32, int32
from allo.library import nn
from tests.test_schedule_api import (expect_error, find, func_text, ints, floats, named_tree, run, unchanged,
                                     _label_pragmas)


# ----------------------------------------------------------------------------- kernels
@allo.kernel(template="T, M, N")
def k(A: "T[M, N]") -> "T[M, N]":
    B: T[M, N] = 0
    for i, j in allo.grid(M, N):
        B[i, j] = A[i, j] * 2 + 1
    return B


def two_f(A: float32[8, 8]) -> float32[8, 8]:
    C = k[float32, 8, 8, "1"](A)
    D = k[float32, 8, 8, "2"](C)
    return D


def two_i(A: int32[8, 8]) -> int32[8, 8]:
    C = k[int32, 8, 8, "1"](A)
    D = k[int32, 8, 8, "2"](C)
    return D


def bare(A: int32[8, 8]) -> int32[8, 8]:
    C = k[int32, 8, 8](A)
    return C


def ref_two(A):
    return (A * 2 + 1) * 2 + 1


@allo.kernel(template="T, M, N")
def rowsum(A: "T[M, N]") -> "T[M, N]":
    """B[i, j] = sum over r of A[i, r] * A[r, j] (M == N): a reduction to reorder and buffer."""
    B: T[M, N] = 0
    for i, j in allo.grid(M, N):
        for r in allo.reduction(N):
            B[i, j] += A[i, r] * A[r, j]
    return B


def schedule_rowsum(s):
    s.buffer_at(s.B, "i")
    s.reorder("r", "j")
    s.pipeline("j")


rowsum.schedule_fn = schedule_rowsum  # what `s.compose(rowsum, ...)` applies


def uses_rowsum(A: int32[8, 8]) -> int32[8, 8]:
    C = rowsum[int32, 8, 8, "x"](A)
    D = rowsum[int32, 8, 8, "y"](C)
    return D


def mid(A: int32[8, 8]) -> int32[8, 8]:
    C = k[int32, 8, 8, "1"](A)
    D: int32[8, 8] = 0
    for p, q in allo.grid(8, 8):
        D[p, q] = C[p, q] - A[q, p]
    return D


def top(A: int32[8, 8]) -> int32[8, 8]:
    E = mid(A)
    F: int32[8, 8] = 0
    for i, j in allo.grid(8, 8):
        F[i, j] = E[i, j] + 3
    return F


@allo.kernel(template="T")
def tmid(A: "T[8, 8]") -> "T[8, 8]":
    C = k[T, 8, 8, "1"](A)
    D: T[8, 8] = 0
    for p, q in allo.grid(8, 8):
        D[p, q] = C[p, q] + C[q, p]
    return D


def ttop(A: int32[8, 8]) -> int32[8, 8]:
    E = tmid[int32, "a"](A)
    return E


def lin2(X: float32[8, 16], W1: float32[32, 16], b1: float32[32], W2: float32[10, 32],
         b2: float32[10]) -> float32[8, 10]:
    Y = nn.linear[float32, 8, 32, 16, "1"](X, W1, b1)
    Z = nn.linear[float32, 8, 10, 32, "2"](Y, W2, b2)
    return Z


# ----------------------------------------------------------------------------- two instances
def _subs(T):
    sub1 = allo.customize(k, instantiate=[T, 8, 8])
    sub1.split("i", 3)
    sub1.pipeline("i.inner")
    sub2 = allo.customize(k, instantiate=[T, 8, 8])
    sub2.reorder("j", "i")
    sub2.unroll("i", 2)
    return sub1, sub2


@pytest.mark.parametrize("kernel,T,data", [(two_f, float32, floats), (two_i, int32, ints)])
def test_two_instances_keep_their_own_schedules(kernel, T, data):
    A = data(8, 8)
    s = allo.customize(kernel)
    sub1, sub2 = _subs(T)
    s.compose(sub1, id="1")
    s.compose(sub2, id="2")
    text = str(s.module)
    assert named_tree(text, "k_1") == [("i.outer", [("i.inner", [("j", [])])])]
    assert "pipeline_ii = 1 : ui32" in find(text, "k_1", "i.inner").attrs
    assert "unroll" not in func_text(text, "k_1")
    assert named_tree(text, "k_2") == [("j", [("i", [])])]
    assert "unroll = 2 : ui32" in find(text, "k_2", "i").attrs
    assert "pipeline_ii" not in func_text(text, "k_2")
    assert [(st.primitive, st.func) for st in s.steps] == [
        ("split", "k_1"), ("pipeline", "k_1"), ("reorder", "k_2"), ("unroll", "k_2")]
    np.testing.assert_array_equal(run(s, A), run(allo.customize(kernel), A))
    np.testing.assert_allclose(run(s, A), ref_two(A), rtol=1e-6)
    # the sub-schedules themselves are untouched by being composed
    assert [st.func for st in sub1.steps] == ["k", "k"] and len(sub2.steps) == 2


def test_compose_hls_pragmas_per_instance():
    s = allo.customize(two_i)
    sub1, sub2 = _subs(int32)
    s.compose(sub1, id="1")
    s.compose(sub2, id="2")
    code = s.build(target="vhls").hls_code
    k1 = code.split("void k_1(")[1].split("void k_2(")[0]
    k2 = code.split("void k_2(")[1].split("void two_i(")[0]
    assert _label_pragmas(k1, "l_i_inner") == ["#pragma HLS pipeline II=1"]
    assert "unroll" not in k1 and "pipeline" not in k2
    assert _label_pragmas(k2, "l_i") == ["#pragma HLS unroll factor=2"]


def test_compose_id_none_targets_the_bare_name():
    A = ints(8, 8)
    s = allo.customize(bare)
    assert "k" in [f.name for f in s.ir.funcs]
    sub, _ = _subs(int32)
    s.compose(sub)
    assert named_tree(str(s.module), "k") == [("i.outer", [("i.inner", [("j", [])])])]
    np.testing.assert_array_equal(run(s, A), A * 2 + 1)


def test_compose_then_schedule_more_and_address_instances():
    A = ints(8, 8)
    s = allo.customize(two_i)
    s.compose(_subs(int32)[0], id="1")
    s.split("k_1:j", 4)  # the instance is addressed by its function name afterwards
    s.partition("k_2:B", allo.Partition.Cyclic, dim=1, factor=2)
    text = str(s.module)
    assert named_tree(text, "k_1") == [("i.outer", [("i.inner", [("j.outer", [("j.inner", [])])])])]
    assert 'partition = ["cyclic:1:2"]' in func_text(text, "k_2")
    np.testing.assert_array_equal(run(s, A), ref_two(A))


# ----------------------------------------------------------------------------- predefined schedules
def test_compose_kernel_applies_its_registered_schedule():
    A = ints(8, 8, lo=-5, hi=5)
    s = allo.customize(uses_rowsum)
    s.compose(rowsum, id="x", instantiate=[int32, 8, 8])
    text = str(s.module)
    assert named_tree(text, "rowsum_x") == [("i", [("j_init", []), ("r", [("j", [])]), ("j_back", [])])]
    assert "pipeline_ii = 1 : ui32" in find(text, "rowsum_x", "j").attrs
    assert named_tree(text, "rowsum_y") == [("i", [("j", [("r", [])])])]
    s.compose(rowsum[int32, 8, 8], id="y")  # a kernel instance carries its own template args
    assert named_tree(str(s.module), "rowsum_y") == named_tree(text, "rowsum_x")
    C = A @ A
    np.testing.assert_array_equal(run(s, A), C @ C)
    np.testing.assert_array_equal(run(s, A), run(allo.customize(uses_rowsum), A))


def test_compose_library_linear_pipelines_its_instance():
    X, W1, b1 = floats(8, 16), floats(32, 16), floats(32)
    W2, b2 = floats(10, 32), floats(10)
    s = allo.customize(lin2)
    s.compose(nn.linear, id="1", instantiate=[float32, 8, 32, 16])
    text = str(s.module)
    assert "pipeline_ii" in func_text(text, "linear_1")
    assert "pipeline_ii" not in func_text(text, "linear_2")
    s.compose(nn.linear, id="2", instantiate=[float32, 8, 10, 32])
    assert "pipeline_ii" in func_text(str(s.module), "linear_2")
    want = (X @ W1.T + b1) @ W2.T + b2
    np.testing.assert_allclose(run(s, X, W1, b1, W2, b2), want, rtol=1e-4, atol=1e-4)


# ----------------------------------------------------------------------------- nested compose
def test_nested_compose():
    A = ints(8, 8)
    sm = allo.customize(mid)
    sm.compose(_subs(int32)[0], id="1")
    sm.reorder("q", "p")
    st = allo.customize(top)
    st.compose(sm)  # replays mid's own steps and those it composed into k_1
    st.pipeline("j")
    text = str(st.module)
    assert named_tree(text, "k_1") == [("i.outer", [("i.inner", [("j", [])])])]
    assert named_tree(text, "mid") == [("q", [("p", [])])]
    assert "pipeline_ii = 1 : ui32" in find(text, "top", "j").attrs
    assert [(x.primitive, x.func) for x in st.steps] == [
        ("split", "k_1"), ("pipeline", "k_1"), ("reorder", "mid"), ("pipeline", "top")]
    np.testing.assert_array_equal(run(st, A), (A * 2 + 1 - A.T) + 3)


def test_nested_compose_with_ids():
    A = ints(8, 8)
    sm = allo.customize(tmid, instantiate=[int32])
    sm.compose(_subs(int32)[1], id="1")
    sm.split("p", 3)
    st = allo.customize(ttop)
    st.compose(sm, id="a")
    text = str(st.module)
    assert named_tree(text, "k_1") == [("j", [("i", [])])]
    assert named_tree(text, "tmid_a") == [("p.outer", [("p.inner", [("q", [])])])]
    C = A * 2 + 1
    np.testing.assert_array_equal(run(st, A), C + C.T)


# ----------------------------------------------------------------------------- errors
def test_compose_wrong_id_lists_functions():
    A = ints(8, 8)
    s = allo.customize(two_i)
    sub, _ = _subs(int32)
    msg = expect_error(s, lambda s: s.compose(sub, id="3"), "compose", "'k_3'", args=(A,))
    assert "functions: k_1, k_2, two_i" in msg
    expect_error(s, lambda s: s.compose(sub), "compose", "'k'", "functions: k_1, k_2, two_i", args=(A,))


def test_compose_mismatched_template_args():
    A = ints(8, 8)
    s = allo.customize(two_i)
    other = allo.customize(k, instantiate=[int32, 4, 8])
    other.split("i", 2)
    expect_error(s, lambda s: s.compose(other, id="1"), "compose", "template arguments", args=(A,))
    wrong_type = allo.customize(k, instantiate=[float32, 8, 8])
    wrong_type.pipeline("j")
    expect_error(s, lambda s: s.compose(wrong_type, id="1"), "compose", "float32", args=(A,))
    t = allo.customize(uses_rowsum)
    expect_error(t, lambda s: s.compose(rowsum, id="x", instantiate=[int32, 4, 4]), "compose", args=(A,))


def test_compose_is_atomic_when_a_replayed_step_fails():
    A = ints(8, 8)
    s = allo.customize(two_i)
    s.split("k_1:i", 2)  # k_1 has no loop "i" any more
    sub = allo.customize(k, instantiate=[int32, 8, 8])
    sub.pipeline("j")  # applies ...
    sub.split("i", 4)  # ... but this one does not
    msg = expect_error(s, lambda s: s.compose(sub, id="1"), "compose", "split", "'k_1'", "no loop named 'i'",
                       args=(A,))
    assert "step 1" in msg
    assert "pipeline_ii" not in func_text(str(s.module), "k_1")
    np.testing.assert_array_equal(run(s, A), ref_two(A))


def test_compose_rejects_non_schedules():
    s = allo.customize(two_i)
    with unchanged(s):
        with pytest.raises(allo.AlloError, match="compose"):
            s.compose(42, id="1")


def test_compose_plain_callee_schedule_and_handles():
    """A plain (non-template) callee's schedule, recorded with handles, replays by name."""
    from tests.test_schedule_api import caller, ref_caller, scale

    A = ints(8, 8)
    sub = allo.customize(scale)
    sub.split(sub.get_loops()["S_i_j_0"]["j"], 3)
    sub.pipeline(sub.get_loops()["S_i_j_0"]["j.inner"])
    sub.partition(sub.A, allo.Partition.Block, dim=2, factor=2)
    s = allo.customize(caller)
    s.compose(sub)
    text = str(s.module)
    assert named_tree(text, "scale") == [("i", [("j.outer", [("j.inner", [])])])]
    assert "pipeline_ii = 1 : ui32" in find(text, "scale", "j.inner").attrs
    assert named_tree(text, "caller") == [("i", [("j", [])])]
    assert "#pragma HLS array_partition variable=A block factor=2 dim=2" in \
        s.build(target="vhls").hls_code.split("void caller(")[0]
    np.testing.assert_array_equal(run(s, A), ref_caller(A))
