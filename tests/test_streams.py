"""Streams between kernels: `s.to(buffer, "consumer", depth=...)` (upstream Allo's form).

The array passed from a producer kernel to a consumer kernel becomes an `hls::stream` FIFO in the
HLS C++ (a dataflow region in the caller), a FIFO (write/read counters) on LLVM; both must give
the numbers of the unscheduled kernel, and csim must equal LLVM. Errors name the problem.
"""
import os
import re
import shutil

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import allo
from allo.ir.types import float32, int32

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed for HLS C simulation")


def chain(P, Q, R, dtype=float32):
    """mm1 (row-buffered, writes each element once) -> mm2 (reads each element once per k)."""

    @allo.kernel(template="T, P, Q, R")
    def mm1(A: "T[P, Q]", B: "T[Q, R]", out: "T[P, R]"):
        for i in range(P):
            row: T[R]
            for j0 in range(R):
                row[j0] = 0
            for k in range(Q):
                for j in range(R):
                    row[j] += A[i, k] * B[k, j]
            for j1 in range(R):
                out[i, j1] = row[j1]

    @allo.kernel(template="T, P, Q, R")
    def mm2(X: "T[P, R]", D: "T[R, R]", E: "T[P, R]"):
        for i, j in allo.grid(P, R):
            for k in allo.reduction(R):
                E[i, j] += X[i, k] * D[k, j]

    @allo.kernel(template="T, P, Q, R")
    def top(A: "T[P, Q]", B: "T[Q, R]", D: "T[R, R]") -> "T[P, R]":
        tmp: T[P, R]
        out: T[P, R] = 0
        mm1[T, P, Q, R](A, B, tmp)
        mm2[T, P, Q, R](tmp, D, out)
        return out

    return mm1, mm2, top


def streamed(P, Q, R, dtype=float32, depth=-1):
    mm1, mm2, top = chain(P, Q, R, dtype)
    targs = [dtype, P, Q, R]
    s1 = allo.customize(mm1, instantiate=targs)
    s1.pipeline("k")
    s1.dataflow("i")
    s2 = allo.customize(mm2, instantiate=targs)
    s2.reorder("k", "j")
    s2.pipeline("k")
    s = allo.customize(top, instantiate=targs)
    s.compose(s1)
    s.compose(s2)
    s.to(s.tmp, "mm2", depth=depth)
    return s


def inputs(rng, P, Q, R, dtype=np.float32):
    if dtype == np.int32:
        return [rng.integers(-9, 9, size=sh).astype(np.int32) for sh in ((P, Q), (Q, R), (R, R))]
    return [rng.uniform(-1, 1, size=sh).astype(np.float32) for sh in ((P, Q), (Q, R), (R, R))]


def test_to_marks_fifos_and_dataflow():
    s = streamed(6, 5, 4, depth=8)
    top, mm1, mm2 = (s.ir.func(n) for n in ("top", "mm1", "mm2"))
    assert [b for b in allo.ir.visit.iter_buffers(top) if b.name == "tmp"][0].attrs["stream"] == 8
    assert mm1.params[2].attrs["stream"] == 8 and mm2.params[0].attrs["stream"] == 8
    assert top.attrs["dataflow"]
    assert "to('tmp', 'mm2', depth=8)" in str(s)


def test_hls_code_uses_hls_stream():
    code = streamed(6, 5, 4).build(target="vhls").hls_code
    assert "void mm1(float A[6][5], float B[5][4], hls::stream< float > &out)" in code
    assert "void mm2(hls::stream< float > &X, float D[4][4], float E[6][4])" in code
    assert "hls::stream< float > tmp;" in code and "#pragma HLS stream variable=tmp depth=24" in code
    assert "out.write(row[j1]);" in code
    # the consumer reads each element once, hoisted out of the j loop that does not index it
    body = code[code.index("void mm2"):code.index("void top")]
    assert body.count(".read()") == 1
    assert re.search(r"X_rd = X\.read\(\);\s*l_j: for", body)
    assert "#pragma HLS dataflow" in code[code.index("void top"):]


def test_llvm_results_match_numpy():
    rng = np.random.default_rng(0)
    A, B, D = inputs(rng, 6, 5, 4)
    out = streamed(6, 5, 4).build()(A, B, D)
    np.testing.assert_allclose(out, (A @ B) @ D, rtol=1e-5, atol=1e-5)


@needs_gxx
def test_csim_equals_llvm_on_composed_dataflow():
    rng = np.random.default_rng(1)
    args = inputs(rng, 5, 3, 4, np.int32)
    s = streamed(5, 3, 4, int32)
    want = s.build()(*args)
    got = s.build(target="vhls", mode="csim")(*args)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(want, (args[0].astype(np.int64) @ args[1] @ args[2]).astype(np.int32))


@settings(max_examples=int(os.environ.get("ALLO_FUZZ_EXAMPLES", "2")), deadline=None)
@given(P=st.integers(1, 5), Q=st.integers(1, 4), R=st.integers(1, 5), depth=st.sampled_from([-1, 1, 2, 7]))
def test_fifo_semantics_keep_results_property(P, Q, R, depth):
    """Any shapes and FIFO depths: the streamed design computes what the unstreamed one does."""
    rng = np.random.default_rng(P * 100 + Q * 10 + R)
    args = inputs(rng, P, Q, R, np.int32)
    _, _, top = chain(P, Q, R, int32)
    plain = allo.customize(top, instantiate=[int32, P, Q, R]).build()(*args)
    np.testing.assert_array_equal(streamed(P, Q, R, int32, depth).build()(*args), plain)


def test_fifo_lowering_reads_in_write_order():
    """The LLVM FIFO takes the k-th write at the k-th read, whatever indices the kernel used:
    a consumer that reads in another order would see other numbers (here: a transpose)."""
    from allo.transforms.streams import lower_streams

    s = streamed(3, 2, 3)
    mod = lower_streams(s.ir.clone())
    mm2 = mod.func("mm2")
    loads = [x for st_ in allo.ir.visit.walk_stmts(mm2.body) for e in allo.ir.visit.stmt_exprs(st_)
             for x in allo.ir.visit.walk_expr(e) if isinstance(x, allo.ir.nodes.Load) and x.buf is mm2.params[0]]
    assert len(loads) == 1 and all(not isinstance(i, allo.ir.nodes.IterVar) for i in loads[0].indices)


# ----------------------------------------------------------------------------- errors
def _expect(fn, *words):
    with pytest.raises(allo.AlloError) as e:
        fn()
    for w in words:
        assert w in str(e.value), str(e.value)
    return e.value


def test_producer_that_reads_is_refused_and_schedule_unchanged():
    P, R = 4, 3

    def prod(X: float32[P, R], out: float32[P, R]):
        for i, j in allo.grid(P, R):
            out[i, j] += X[i, j]

    def cons(X: float32[P, R], Y: float32[P, R]):
        for i, j in allo.grid(P, R):
            Y[i, j] = X[i, j]

    def top(A: float32[P, R]) -> float32[P, R]:
        t: float32[P, R]
        y: float32[P, R]
        prod(A, t)
        cons(t, y)
        return y

    s = allo.customize(top)
    before = str(s.module)
    _expect(lambda: s.to(s.t, "cons"), "producer 'prod'", "also read")
    assert str(s.module) == before and not s.steps


def test_consumer_out_of_order_is_refused():
    P, R = 4, 3

    def prod(X: float32[P, R], out: float32[P, R]):
        for i, j in allo.grid(P, R):
            out[i, j] = X[i, j]

    def cons(X: float32[P, R], Y: float32[R, P]):
        for j, i in allo.grid(R, P):
            Y[j, i] = X[i, j]

    def top(A: float32[P, R]) -> float32[R, P]:
        t: float32[P, R]
        y: float32[R, P]
        prod(A, t)
        cons(t, y)
        return y

    s = allo.customize(top)
    _expect(lambda: s.to(s.t, "cons"), "consumer 'cons'", "row-major")


def test_bad_arguments():
    s = streamed(3, 2, 3)
    _expect(lambda: s.to("A", "mm2"), "local array")
    _expect(lambda: s.to("out", "nope"), "no kernel named 'nope'")
    _expect(lambda: s.to("tmp", "mm2", axis=0), "axis")
    _, _, top = chain(3, 2, 3)
    s2 = allo.customize(top, instantiate=[float32, 3, 2, 3])
    _expect(lambda: s2.to("tmp", "mm2", depth=0), "depth")
    _expect(lambda: s2.to("out", "mm2"), "initial value")
    s2.partition(s2.tmp)
    _expect(lambda: s2.to("tmp", "mm2"), "partitioned")


def two_bands():
    T = allo.Fixed(12, 4)  # a local of the defining function, as upstream tests write it

    def kernel(A: T[4, 5, 6]) -> T[4, 5, 6]:
        B: T[4, 5, 6]
        for i, j, m in allo.grid(4, 5, 6):
            B[i, j, m] = A[i, j, m] * 2
        C: T[4, 5, 6]
        for ii, jj, mm in allo.grid(4, 5, 6, name="C"):
            C[ii, jj, mm] = B[ii, jj, mm] + 1
        return C

    return kernel


@needs_gxx
def test_stream_between_named_bands_of_one_kernel():
    s = allo.customize(two_bands())
    s.to(s.B, "C")
    code = s.build(target="vhls").hls_code
    assert "hls::stream" in code and "B.write(" in code and "B.read()" in code and "#pragma HLS dataflow" in code
    A = (np.arange(120, dtype=np.float64).reshape(4, 5, 6) - 60) / 16  # exact in Fixed(12, 4)
    expected = A * 2 + 1
    np.testing.assert_array_equal(s.build()(A), expected)
    np.testing.assert_array_equal(s.build(target="vhls", mode="csim")(A), expected)


def test_stream_between_bands_refuses_a_second_reader_and_unknown_bands():
    def kernel(A: int32[4, 4]) -> int32[4, 4]:
        B: int32[4, 4]
        for i, j in allo.grid(4, 4):
            B[i, j] = A[i, j] + 1
        C: int32[4, 4]
        for i, j in allo.grid(4, 4, name="C"):
            C[i, j] = B[i, j] * B[j, i]
        return C

    s = allo.customize(kernel)
    before = str(s.module)
    with pytest.raises(allo.ScheduleError, match="band 'C' cannot read 'B' as a FIFO: it is read at 2 places"):
        s.to(s.B, "C")
    with pytest.raises(allo.ScheduleError, match="no kernel named .D. and no loop band.*bands of 'kernel': .*C"):
        s.to(s.B, "D")
    assert str(s.module) == before
