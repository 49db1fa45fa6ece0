"""target="xls" (allo/backend/xls): XLS[cc] C++ (combinational top, TestBlock with channels or
memories, RAM rewrites), its checks, and the g++ software emulation checked against numpy."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import allo
from allo.backend.xls import is_available
from allo.errors import VendorError
from allo.ir.types import Fixed, Int, UInt, float32, int32
from allo.memory import Memory

pytestmark = pytest.mark.skipif(not is_available(), reason="sw_emu needs g++")


def vvadd(a: int32[16], b: int32[16]) -> int32[16]:
    c: int32[16] = 0
    for i in allo.grid(16):
        c[i] = a[i] + b[i]
    return c


def gemm(A: int32[4, 3], B: int32[3, 5]) -> int32[4, 5]:
    C: int32[4, 5] = 0
    for i, j, k in allo.grid(4, 5, 3, name="C"):
        C[i, j] += A[i, k] * B[k, j]
    return C


def test_register_mode_text():
    s = allo.customize(vvadd)
    s.pipeline("i")
    mod = s.build(target="xls")
    code = mod.final_cpp
    assert '#include "xls_builtin.h"' in code and "class TestBlock {" in code
    for line in ("__xls_channel<int32_t, __xls_channel_dir_In> a_in;", "__xls_channel<int32_t, __xls_channel_dir_In> b_in;",
                 "__xls_channel<int32_t, __xls_channel_dir_Out> out;", "#pragma hls_top\n  void vvadd() {",
                 "::vvadd(_a, _b, _c);", "_a[_i0] = a_in.read();", "out.write(_c[_i0]);"):
        assert line in code, line
    assert "#pragma hls_pipeline_init_interval 1\n  for (int i = 0; i < 16; i++) {" in mod.core_code
    assert "class TestBlock" not in mod.core_code and mod.rewrites_textproto == ""
    s2 = allo.customize(vvadd)
    s2.unroll("i")
    assert "#pragma hls_unroll yes\n  for (int i = 0;" in s2.build(target="xls").final_cpp


def test_scalar_kernel_is_combinational_and_runs():
    def mac(a: int32, b: int32, c: int32) -> int32:
        return a * b + c

    mod = allo.customize(mac).build(target="xls", mode="sw_emu")
    assert "#pragma hls_top\nint32_t mac(int32_t a, int32_t b, int32_t c) {" in mod.final_cpp
    assert "TestBlock" not in mod.final_cpp
    for a, b, c in [(2, 3, 4), (-2, 3, 10), (46341, 46341, 0)]:  # the last wraps as int32 arithmetic does
        assert mod(a, b, c) == np.int32(np.int64(a) * b + c)


@settings(max_examples=5, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_sw_emu_gemm_matches_numpy(seed):
    rng = np.random.default_rng(seed)
    A = rng.integers(-1000, 1000, (4, 3)).astype(np.int32)
    B = rng.integers(-1000, 1000, (3, 5)).astype(np.int32)
    np.testing.assert_array_equal(_gemm_mod()(A, B), A @ B)


_CACHE = {}


def _gemm_mod():
    if "gemm" not in _CACHE:
        s = allo.customize(gemm)
        s.pipeline("j")
        _CACHE["gemm"] = s.build(target="xls", mode="sw_emu")
    return _CACHE["gemm"]


def test_sw_emu_memory_mode_in_place_and_odd_widths(tmp_path):
    def bump(A: int32[8], B: Int(5)[8], C: UInt(3)[8]):
        for i in allo.grid(8):
            A[i] = A[i] + B[i] * C[i]

    mod = allo.customize(bump).build(target="xls", mode="sw_emu", use_memory=True, project=str(tmp_path))
    assert "void bump(__xls_memory<int32_t, 8> &A, __xls_memory<ac_int<5, true>, 8> &B, " \
           "__xls_memory<ac_int<3, false>, 8> &C) {" in mod.final_cpp
    A = np.arange(8, dtype=np.int32)
    B = np.array([-16, -3, 0, 1, 2, 5, 9, 15], np.int8)
    C = np.array([0, 1, 2, 3, 4, 5, 6, 7], np.uint8)
    want = A + B.astype(np.int32) * C
    assert mod(A, B, C) is None
    np.testing.assert_array_equal(A, want)
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == \
        ["harness.cpp", "rewrites.textproto", "sw_emu", "test_block.cpp"]  # sw_emu: compiled by the first call

    reg = allo.customize(bump).build(target="xls", mode="sw_emu")  # register mode: A comes back on A_out
    assert "__xls_channel<int32_t, __xls_channel_dir_Out> A_out;" in reg.final_cpp
    A2 = np.arange(8, dtype=np.int32)
    reg(A2, B, C)
    np.testing.assert_array_equal(A2, want)


def test_sw_emu_fixed_point_matches_llvm():
    F = Fixed(16, 8)

    def fmix(a: F[4], b: F) -> Fixed(20, 8)[4]:
        c: Fixed(20, 8)[4]
        for i in range(4):
            c[i] = a[i] * b + a[i]
        return c

    s = allo.customize(fmix)
    mod = s.build(target="xls", mode="sw_emu")
    assert "Fixed<16, 8> a[4]" in mod.final_cpp and "template <int W, int F> using Fixed" in mod.final_cpp
    a = np.array([1.5, -2.25, 100.0, -0.00390625])
    np.testing.assert_array_equal(mod(a, 3.75), s.build()(a, 3.75))


def test_ram_rewrites_per_storage_type():
    def k(A: int32[4] @ Memory(resource="BRAM", storage_type="RAM_1P"),
          B: int32[4] @ Memory(resource="BRAM", storage_type="RAM_2P"),
          C: int32[4] @ Memory(resource="BRAM", storage_type="ROM_1P")) -> int32[4]:
        D: int32[4] = 0
        for i in allo.grid(4):
            D[i] = A[i] + B[i] + C[i]
        return D

    proto = allo.customize(k).build(target="xls", use_memory=True).rewrites_textproto
    blocks = proto.split("rewrites {")[1:]
    assert len(blocks) == 4
    kinds = [b.split("to_config { kind: ")[1].split(" ")[0] for b in blocks]
    assert kinds == ["RAM_1RW", "RAM_1R1W", "RAM_1RW", "RAM_1R1W"]  # D (the result) is RAM_2P by default
    assert 'value: "A_req"' in blocks[0] and "_read_request" not in blocks[0]
    assert 'key: "write_completion" value: "B_write_response"' in blocks[1] and 'to_name_prefix: "D_"' in blocks[3]
    assert all("from_config { kind: RAM_ABSTRACT depth: 4 }" in b for b in blocks)


def test_errors_name_the_problem():
    def fadd(a: float32, b: float32) -> float32:
        return a + b

    with pytest.raises(VendorError) as info:
        allo.customize(fadd).build(target="xls")
    assert isinstance(info.value, RuntimeError)  # what upstream Allo raises
    assert "test_backend_xls.py:" in str(info.value) and "floating-point types are not supported by XLS" in str(info.value)

    def t2p(A: int32[8] @ Memory(resource="BRAM", storage_type="RAM_T2P")):
        for i in allo.grid(8):
            A[i] = A[i] + 1

    with pytest.raises(VendorError, match=r"storage_type 'RAM_T2P'.*supported storage_type values: RAM_1P, RAM_2P, "
                                          r"ROM_1P"):
        allo.customize(t2p).build(target="xls", use_memory=True)
    allo.customize(t2p).build(target="xls")  # register mode has no memories: nothing to refuse
    with pytest.raises(VendorError, match=r"test_backend_xls.py:\d+: .*__xls_memory, which is flat: argument 'A' "
                                          r"has shape \(4, 3\)"):
        allo.customize(gemm).build(target="xls", use_memory=True)
    with pytest.raises(allo.BackendError, match="build with mode='sw_emu'"):
        allo.customize(vvadd).build(target="xls")(np.zeros(16, np.int32), np.zeros(16, np.int32))
    with pytest.raises(allo.BackendError, match="unknown mode 'hw'"):
        allo.customize(vvadd).build(target="xls", mode="hw")
    with pytest.raises(allo.AlloTypeError, match="takes 2 arguments, got 1"):
        _gemm_mod()(np.zeros((4, 3), np.int32))
    assert allo.customize(vvadd).build(target="xlscc").final_cpp == allo.customize(vvadd).build(target="xls").final_cpp


def test_sw_emu_tuple_results_scalar_args_and_sub_kernels():
    def sub(x: int32[4], s: int32) -> int32[4]:
        y: int32[4] = 0
        for i in range(4):
            y[i] = x[i] * s
        return y

    def top(A: int32[4], s: int32) -> (int32[4], int32):
        B: int32[4] = sub(A, s)
        t: int32 = 0
        for i in range(4):
            t += A[i]
        return B, t

    sch = allo.customize(top)
    mod = sch.build(target="xls", mode="sw_emu")
    assert "__xls_channel<int32_t, __xls_channel_dir_In> s_in;" in mod.final_cpp
    assert "__xls_channel<int32_t, __xls_channel_dir_Out> out1;" in mod.final_cpp
    A = np.array([3, -1, 7, 2], np.int32)
    B, t = mod(A, 5)
    np.testing.assert_array_equal(B, A * 5)
    assert t == A.sum()
    with pytest.raises(VendorError, match=r"test_backend_xls.py:\d+: .*top\(\) passes a memory argument to sub\(\)"):
        sch.build(target="xls", use_memory=True)
