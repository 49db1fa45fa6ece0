"""Allo programs run unchanged: upstream Allo's language and schedule forms, written as Allo
users write them (names from the enclosing test function, ConstExpr, meta_if/meta_for, named
bands, customize keywords, input conversion, storage binding, reshape/unfold/inline, io buffers,
library aliases). Every kernel is checked against numpy; csim == LLVM where HLS is involved."""
import re
import warnings

import numpy as np
import pytest

import allo
from allo.dsl.memory import Layout, Memory
from allo.ir.types import ConstExpr, Fixed, Int, UInt, float32, int8, int16, int32, uint1
from allo.library import nn
from allo.library.systolic import systolic

RNG = np.random.default_rng(12)


def ints(*shape, lo=-8, hi=8, dtype=np.int32):
    return RNG.integers(lo, hi, size=shape).astype(dtype)


def floats(*shape):
    return RNG.random(shape, dtype=np.float32)


# ============================================================================ names
def test_names_of_the_enclosing_function_in_annotations_and_body():
    M, N = 4, 6
    T = int16
    offset = 3

    def kernel(A: int32[M, N]) -> int32[M, N]:
        B: T[M, N] = 0  # a body annotation Python never evaluated: T, M, N come from this test
        for i, j in allo.grid(M, N):
            B[i, j] = A[i, j] + offset
        C: int32[M, N] = B
        return C

    A = ints(M, N)
    np.testing.assert_array_equal(allo.customize(kernel).build()(A), A + offset)
    M, N = 2, 3  # re-evaluated from the source with the live values, as upstream Allo does
    A = ints(2, 3)
    np.testing.assert_array_equal(allo.customize(kernel).build()(A), A + offset)


def make_kernel(n):
    def kernel(A: int32[n]) -> int32[n]:  # evaluated when defined; `n` is gone when it is built
        B: int32[n] = 0  # noqa: F821 - resolved through the closure (used in the body)
        for i in range(n):
            B[i] = A[i] * 2
        return B

    return kernel


def test_annotations_python_already_evaluated_are_used_when_the_names_are_gone():
    A = ints(5)
    np.testing.assert_array_equal(allo.customize(make_kernel(5)).build()(A), A * 2)


def test_global_vars_keyword_adds_names():
    def kernel(A: float32[4]) -> float32[4]:
        B: float32[4] = 0.0
        for i in range(4):
            B[i] = A[i] * SCALE  # noqa: F821 - from global_vars
        return B

    A = floats(4)
    np.testing.assert_allclose(allo.customize(kernel, global_vars={"SCALE": 2.5}).build()(A), A * 2.5, rtol=1e-6)


# ============================================================================ compile time
def test_constexpr_constants_fold_into_loop_bounds_and_literals():
    M = 10

    def kernel(A: int32[10]) -> int32[10]:
        half: ConstExpr[int32] = M // 2
        step: ConstExpr[int32] = half + 1
        B: int32[10] = 0
        for i in range(half):
            B[i] = A[i] + step
        for i in range(half, 10):
            B[i] = A[i]
        return B

    s = allo.customize(kernel)
    assert "affine.for %arg1 = 0 to 5" in str(s.module) and "scf.for" not in str(s.module)
    A = ints(10)
    ref = A.copy()
    ref[:5] += 6
    np.testing.assert_array_equal(s.build()(A), ref)


def test_meta_for_unrolls_with_python_helpers_computing_constants():
    import math

    def coef(i):
        return math.cos(math.pi * i / 4)

    def kernel(A: float32[8], B: float32[8]):
        with allo.meta_for(8) as i:
            c: ConstExpr[float32] = coef(i)
            src: ConstExpr[int32] = (i + 3) % 8
            B[i] = A[src] * c

    s = allo.customize(kernel)
    assert "affine.for" not in str(s.module)  # fully unrolled while building
    A, B = floats(8), np.zeros(8, np.float32)
    s.build()(A, B)
    np.testing.assert_allclose(B, [A[(i + 3) % 8] * math.cos(math.pi * i / 4) for i in range(8)], rtol=1e-6)


def test_meta_if_elif_else_chains_and_nesting():
    M = 32

    def kernel(A: int32[M]):
        with allo.meta_if(M == 1):
            for i in range(M):
                A[i] = A[i] // 2
        with allo.meta_elif(M == 32):
            with allo.meta_for(0, 4, 2) as k:
                with allo.meta_if(k == 2):
                    A[k] = 100
                with allo.meta_else():
                    A[k] = -100
        with allo.meta_else():
            A[0] = 7
        with allo.meta_if(M > 0):
            A[1] = 1

    A = ints(M)
    ref = A.copy()
    ref[0], ref[2], ref[1] = -100, 100, 1
    allo.customize(kernel).build()(A)
    np.testing.assert_array_equal(A, ref)


@pytest.mark.parametrize("body,message", [
    ("with allo.meta_else():\n        A[0] = 1", "must directly follow"),
    ("with allo.meta_if(A[0] > 0):\n        A[0] = 1", "must be known at compile time"),
    ("c: ConstExpr[int32]", "needs a value"),
    ("c: ConstExpr[int32] = A[0]", "known at compile time"),
    ("for i in allo.grid(4, bogus=1):\n        A[i] = 0", "does not take keyword 'bogus'"),
    ("B = allo.softmax(A, axis=0)", "has no keyword 'axis'"),
])
def test_compile_time_errors_name_the_kernel_line(tmp_path, body, message):
    src = tmp_path / "bad_meta.py"
    src.write_text("import allo\nfrom allo.ir.types import int32, ConstExpr\n\n\n"
                   f"def kernel(A: int32[4]):\n    {body}\n")
    ns = {}
    exec(compile(src.read_text(), str(src), "exec"), ns)  # a real file, so errors can quote it
    with pytest.raises(allo.AlloError, match=message) as err:
        allo.customize(ns["kernel"])
    assert f"{src}:6" in str(err.value)


# ============================================================================ bands and loops
def test_grid_name_names_the_band_for_get_loops_and_hls_labels():
    def gemm(A: int32[16, 16], B: int32[16, 16]) -> int32[16, 16]:
        C: int32[16, 16] = 0
        for i, j, k in allo.grid(16, 16, 16, name="C"):
            C[i, j] += A[i, k] * B[k, j]
        return C

    s = allo.customize(gemm)
    s.split("i", 4)
    s.reorder("i.outer", "j", "i.inner")
    loops = s.get_loops()
    assert list(loops.C.loops.keys()) == ["i.outer", "j", "i.inner", "k"]
    assert hasattr(loops.C, "k") and not hasattr(loops.C, "q")
    s.pipeline(loops.C.k, rewind=True)
    A, B = ints(16, 16), ints(16, 16)
    np.testing.assert_array_equal(s.build()(A, B), A @ B)
    code = s.build(target="vhls").hls_code
    assert "l_C_i_outer:" in code and "l_j:" in code and "#pragma HLS pipeline II=1 rewind" in code
    from allo.ir.transform import find_loop_in_bands

    assert find_loop_in_bands(s.top_func, "k") == ("C", "k")
    np.testing.assert_array_equal(s.build(target="vhls", mode="csim")(A, B), A @ B)


def test_band_names_must_be_unique():
    def kernel(A: int32[4]):
        for i in allo.grid(4, name="b"):
            A[i] = 0
        for j in allo.grid(4, name="b"):
            A[j] = 1

    with pytest.raises(allo.AlloError, match="band name 'b' is used twice"):
        allo.customize(kernel)


# ============================================================================ customize / build keywords
def test_customize_keywords(capsys):
    def kernel(A: float32[4]) -> float32[4]:
        return A + 1.0

    s = allo.customize(kernel, verbose=True, lower_linalg=True)
    assert "func.func @kernel" in capsys.readouterr().out
    with pytest.warns(allo.AlloWarning, match="memref-based IR only"):
        allo.customize(kernel, enable_tensor=True)
    with pytest.raises(allo.AlloError, match="external context is not supported"):
        allo.customize(kernel, context=object())
    with pytest.raises(allo.AlloError, match="one set of typing rules"):
        allo.customize(kernel, typing_rule_set="legacy")
    assert allo.backend.hls.is_available("vitis_hls") in (True, False)
    assert allo.backend.hls.is_available("csim")  # g++ runs the C simulation here
    with pytest.raises(allo.AlloError, match="unknown HLS backend"):
        allo.backend.hls.is_available("quartus")
    mod = s.build(target="vitis_hls", mode="sw_emu")  # the project is written; running needs Vitis
    assert 'extern "C"' in mod.hls_code
    with pytest.raises(allo.AlloError, match=r"software emulation \(sw_emu\) needs the Vitis toolchain"):
        mod(np.ones(4, np.float32))
    with pytest.raises(allo.AlloError, match="Intel HLS"):
        s.build(target="ihls")


# ============================================================================ inputs and results
def test_inputs_of_other_widths_convert_with_a_warning_and_lossy_ones_fail():
    def gemm(A: Int(7)[4, 4], B: Int(7)[4, 4], C: int32[4, 4]):
        for i, j, k in allo.grid(4, 4, 4):
            C[i, j] += A[i, k] * B[k, j]

    mod = allo.customize(gemm).build()
    A, B = RNG.integers(-7, 8, (4, 4)), RNG.integers(-7, 8, (4, 4))  # int64 values that fit Int(7)
    C = np.zeros((4, 4), np.int64)  # written: converted in and back out
    with pytest.warns(allo.AlloWarning, match="converted the int64 input to int8 for int7"):
        mod(A, B, C)
    np.testing.assert_array_equal(C, A @ B)
    with pytest.raises(allo.AlloTypeError, match=r"values in \[.*\] do not fit int7"):
        mod(A * 10, B, C)
    with pytest.raises(allo.AlloTypeError, match="expected an integer array"):
        mod(A.astype(np.float32), B, C)

    def f(X: float32[3]) -> float32[3]:
        return X * 2.0

    with pytest.warns(allo.AlloWarning, match="float64 input to float32"):
        np.testing.assert_allclose(allo.customize(f).build()(np.array([0.5, 1.5, 2.5])), [1.0, 3.0, 5.0])


def test_a_returned_argument_is_the_callers_array_on_llvm_and_csim():
    def top(A: int32[3]) -> int32[3]:
        A[0] = A[0] + 1
        return A

    s = allo.customize(top)
    for mod in (s.build(), s.build(target="vhls", mode="csim")):
        A = np.array([1, 2, 3], np.int32)
        assert mod(A) is A
        np.testing.assert_array_equal(A, [2, 2, 3])


# ============================================================================ memory
def test_storage_binding_reaches_hls_mlir_and_the_ir():
    def kernel(A: int32[64] @ Memory(resource="URAM"), B: int32[64]) -> int32[64]:
        buf: int32[64] @ Memory(resource="LUTRAM", storage_type="RAM_1P") = 0
        for i in range(64):
            buf[i] = A[i] + B[i]
        C: int32[64] = 0
        for i in range(64):
            C[i] = buf[i] * 2
        return C

    s = allo.customize(kernel)
    bufs = {b.name: b for b in allo.ir.visit.iter_buffers(s.top_func)}
    assert bufs["A"].attrs["bind_storage"] == {"resource": "URAM", "storage_type": None}
    assert bufs["buf"].attrs["bind_storage"] == {"resource": "LUTRAM", "storage_type": "RAM_1P"}
    text = str(s.module)
    assert 'bind_storage = {A = {resource = "URAM"}}' in text
    assert 'bind_storage = {resource = "LUTRAM", storage_type = "RAM_1P"}' in text
    code = s.build(target="vhls").hls_code
    assert "#pragma HLS bind_storage variable=A type=ram_2p impl=uram" in code
    assert "#pragma HLS bind_storage variable=buf type=ram_1p impl=lutram" in code
    A, B = ints(64), ints(64)
    np.testing.assert_array_equal(s.build()(A, B), (A + B) * 2)
    np.testing.assert_array_equal(s.build(target="vhls", mode="csim")(A, B), (A + B) * 2)
    with pytest.raises(allo.AlloError, match="resource='DRAM'"):
        Memory(resource="DRAM")
    with pytest.raises(allo.AlloError, match=r"Layout\.Shard\(0\)"):
        Layout("S0R")  # a list of Layout.Shard / Layout.Replicate entries, not a string


def test_integer_partition_types_and_the_partition_map():
    def kernel(A: int32[10, 10]) -> int32[10, 10]:
        B: int32[10, 10] = 0
        for x, y in allo.grid(10, 10):
            B[x, y] = A[x, y]
        return B

    s = allo.customize(kernel)
    s.partition(s.A, partition_type=1, dim=0, factor=2)  # upstream's Partition.Block == 1
    assert "affine_map<(d0, d1) -> (d0 floordiv 5, d1 floordiv 5, d0 mod 5, d1 mod 5)>" in str(s.module)
    assert "array_partition variable=A block factor=2 dim=0" in s.build(target="vhls").hls_code
    s2 = allo.customize(kernel)
    s2.partition(s2.B, dim=1)
    assert "affine_map<(d0, d1) -> (d0, 0, 0, d1)>" in str(s2.module)


# ============================================================================ structure primitives
def test_reshape_locals_arguments_and_results():
    def conv(A: int32[10, 10]) -> int32[8, 8]:
        B: int32[8, 8] = 0
        for y, x in allo.grid(8, 8):
            v: int32 = 0
            for r, c in allo.reduction(3, 3):
                v += A[y + r, x + c]
            B[y, x] = v
        return B

    A = ints(10, 10)
    ref = sum(A[r:r + 8, c:c + 8] for r in range(3) for c in range(3))
    s = allo.customize(conv)
    s.split("x", 4)
    s.reshape(s.B, (8, 2, 4))
    assert "memref<8x2x4xi32>" in str(s.module)
    np.testing.assert_array_equal(s.build()(A), ref.reshape(8, 2, 4))
    s2 = allo.customize(conv)
    s2.reshape(s2.A, (100,))
    np.testing.assert_array_equal(s2.build()(A.reshape(100)), ref)
    np.testing.assert_array_equal(s2.build(target="vhls", mode="csim")(A.reshape(100)), ref)
    with pytest.raises(allo.ScheduleError, match="does not hold the same number of elements"):
        s2.reshape(s2.B, (7, 9))


def test_unfold_copies_loops_into_processing_elements():
    def kernel(A: int32[4, 8], B: int32[4, 8]):
        for p, i in allo.grid(4, 8, name="PE"):
            B[p, i] = A[p, i] * (p + 1)

    s = allo.customize(kernel)
    s.unfold("PE", [0])
    text = str(s.module)
    assert text.count("affine.for") == 4 and "loop_name = \"p\"" not in text
    A, B = ints(4, 8), np.zeros((4, 8), np.int32)
    s.build()(A, B)
    np.testing.assert_array_equal(B, A * np.arange(1, 5)[:, None])
    B2 = np.zeros((4, 8), np.int32)
    s.build(target="vhls", mode="csim")(A, B2)
    np.testing.assert_array_equal(B2, B)
    with pytest.raises(allo.ScheduleError, match="consecutive"):
        allo.customize(kernel).unfold("PE", [0, 2])


def test_inline_marks_the_function_for_hls():
    def add1(A: int32[8]) -> int32[8]:
        B: int32[8] = 0
        for i in range(8):
            B[i] = A[i] + 1
        return B

    def top(A: int32[8]) -> int32[8]:
        return add1(A)

    s = allo.customize(top)
    s.inline("add1")
    code = s.build(target="vhls").hls_code
    assert re.search(r"add1\([^)]*\) \{\n  #pragma HLS inline\n", code)
    A = ints(8)
    np.testing.assert_array_equal(s.build()(A), A + 1)


def test_generate_input_output_buffers_flattens_the_interface():
    def gemm(A: int32[8, 8], B: int32[8, 8]) -> int32[8, 8]:
        C: int32[8, 8] = 0
        for i, j, k in allo.grid(8, 8, 8, name="C"):
            C[i, j] += A[i, k] * B[k, j]
        return C

    s = allo.customize(gemm)
    allo.passes.generate_input_output_buffers(s.module, "gemm", flatten=True)
    text = str(s.module)
    assert "func.func @gemm(%arg0: memref<64xi32>, %arg1: memref<64xi32>) -> memref<64xi32>" in text
    assert "call @load_buf0(%arg0, %alloc)" in text and "func.func @store_res2" in text
    A, B = ints(8, 8), ints(8, 8)
    np.testing.assert_array_equal(s.build()(A.ravel(), B.ravel()), (A @ B).ravel())
    with pytest.raises(allo.AlloError, match="module of a schedule"):
        allo.passes.generate_input_output_buffers("module", "gemm")


# ============================================================================ library names
def test_upstream_library_names_and_template_lists():
    X, W, b = floats(4, 8), floats(6, 8), floats(6)
    mod = allo.customize(nn.linear2d, instantiate=[float32, float32, float32, 4, 6, 8]).build()
    np.testing.assert_allclose(mod(X, W, b), X @ W.T + b, rtol=1e-5)
    mod = allo.customize(nn.linear2d, instantiate=[float32, 4, 6, 8]).build()  # the 4-argument list
    np.testing.assert_allclose(mod(X, W, b), X @ W.T + b, rtol=1e-5)
    G = floats(4, 8) * 4 - 2
    out = allo.customize(nn.GeLU, instantiate=[float32, 4, 8]).build()(G)
    np.testing.assert_allclose(out, 0.5 * G * (1 + np.tanh(0.7978845608 * (G + 0.044715 * G ** 3))), atol=1e-5)
    S = floats(6, 6) * 10
    sm = allo.customize(nn.softmax, instantiate=[float32, 6]).build()(S)  # softmax[T, D]: a D x D input
    e = np.exp(S - S.max(-1, keepdims=True))
    np.testing.assert_allclose(sm, e / e.sum(-1, keepdims=True), rtol=1e-5)
    R = floats(2, 3, 4)
    np.testing.assert_array_equal(allo.customize(nn.repeat_batch3d, instantiate=[float32, 2, 3, 4, 3]).build()(R),
                                  np.tile(R, (3, 1, 1)))
    P = floats(1, 2, 6, 6) - 0.5
    mp = allo.customize(nn.maxpool2d, instantiate=[float32, 1, 2, 6, 6, 2, 4, 4, 2, 1]).build()(P)
    padded = np.pad(P, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    ref = np.array([[[[padded[0, c, 2 * h:2 * h + 2, 2 * w:2 * w + 2].max() for w in range(4)] for h in range(4)]
                     for c in range(2)]])
    np.testing.assert_array_equal(mp, ref)
    x1, x2 = floats(2, 3, 4), floats(2, 5, 4)
    cat = allo.customize(nn.concat, instantiate=[float32, 2, 3, 5, 4]).build()(x1, x2)
    np.testing.assert_array_equal(cat, np.concatenate([x1, x2], axis=1))


def test_batchnorm_in_upstream_argument_order():
    X, g, bt, mean, var = floats(2, 3, 4, 4), floats(3), floats(3), floats(3), floats(3) + 0.5
    out = allo.customize(nn.batchnorm2d, instantiate=[float32, 2, 3, 4, 4]).build()(X, g, bt, 1e-5, mean, var)
    c = (slice(None), None, None)
    np.testing.assert_allclose(out, (X - mean[c]) / np.sqrt(var[c] + 1e-5) * g[c] + bt[c], rtol=1e-5, atol=1e-6)


def test_systolic_gemm_llvm_and_csim_including_edge_tiles():
    for (m, k, n, m0, m1) in [(8, 8, 16, 2, 2), (6, 5, 7, 4, 4)]:
        s = allo.customize(systolic, instantiate=[int8, int8, int8, m, k, n, m0, m1])
        systolic.schedule_fn(s)
        A, B = ints(m, k, lo=-4, hi=4, dtype=np.int8), ints(k, n, lo=-4, hi=4, dtype=np.int8)
        C = np.zeros((m, n), np.int8)
        s.build()(A, B, C)
        np.testing.assert_array_equal(C, A @ B)  # int8 accumulation wraps exactly as numpy's
        C2 = np.zeros((m, n), np.int8)
        s.build(target="vhls", mode="csim")(A, B, C2)
        np.testing.assert_array_equal(C2, C)


def test_compose_names_second_instances_like_upstream():
    def two(X: float32[4, 8], W0: float32[6, 8], W1: float32[5, 6], b0: float32[6], b1: float32[5]) -> float32[4, 5]:
        Z0 = nn.linear2d[float32, float32, float32, 4, 6, 8](X, W0, b0)
        return nn.linear2d[float32, float32, float32, 4, 5, 6](Z0, W1, b1)

    s = allo.customize(two)
    s.compose(nn.linear2d, instantiate=[float32, float32, float32, 4, 6, 8])
    s.compose(nn.linear2d, id="1", instantiate=[float32, float32, float32, 4, 5, 6])
    assert "func.func @linear2d_1(" in str(s.module)
    X, W0, W1, b0, b1 = floats(4, 8), floats(6, 8), floats(5, 6), floats(6), floats(5)
    np.testing.assert_allclose(s.build()(X, W0, W1, b0, b1), (X @ W0.T + b0) @ W1.T + b1, rtol=1e-5)


# ============================================================================ more language forms
def test_functions_defined_inside_kernels():
    def kernel(A: int32[10]) -> int32[10]:
        B: int32[10] = 0

        def bump(x: int32, k: index) -> int32:  # noqa: F821 - index comes from allo
            C: int32[10] = 0
            C[k] = x + 1
            return C[k]

        for i in range(10):
            B[i] = bump(A[i], i)
        return B

    from allo.ir.types import index  # noqa: F401 - resolved from this function's locals

    A = ints(10)
    np.testing.assert_array_equal(allo.customize(kernel).build()(A), A + 1)


def test_regions_read_store_and_pass_to_calls():
    def fill(R: int32[4]):
        for i in range(4):
            R[i] = R[i] * 10

    def kernel(A: int32[3, 4], B: int32[2, 2]) -> (int32[4], int32[3, 4]):
        A[0:2, 1:3] = B
        A[2, ::2] = 7
        fill(A[2])  # the callee writes its argument: the row comes back
        row = A[1]  # a copy of row 1
        return row, A

    A, B = ints(3, 4), ints(2, 2)
    ref = A.copy()
    ref[0:2, 1:3] = B
    ref[2, ::2] = 7
    ref[2] *= 10
    got_row, got_A = allo.customize(kernel).build()(A.copy(), B)
    np.testing.assert_array_equal(got_row, ref[1])
    np.testing.assert_array_equal(got_A, ref)

    def stale(A: int32[3, 4]) -> int32[4]:
        row = A[1]
        for i in range(4):
            A[1, i] = 0  # a view would see this; a copy would not: refused
        return row

    with pytest.raises(allo.AlloTypeError, match=r"regions are copies, not views") as err:
        allo.customize(stale)
    assert "test_compat_allo.py" in str(err.value) and "return row" in str(err.value)


def test_scalar_parameter_defaults_for_calls_and_modules():
    def scale(A: float32[4], k: float32 = 2.0) -> float32[4]:
        B: float32[4] = 0.0
        for i in range(4):
            B[i] = A[i] * k
        return B

    def top(A: float32[4]) -> float32[4]:
        return scale(A)

    A = floats(4)
    np.testing.assert_allclose(allo.customize(top).build()(A), A * 2, rtol=1e-6)
    mod = allo.customize(scale).build()
    np.testing.assert_allclose(mod(A), A * 2, rtol=1e-6)
    np.testing.assert_allclose(mod(A, 3.0), A * 3, rtol=1e-6)
    X, g, b = floats(3, 5), floats(5), floats(5)
    ln = allo.customize(nn.layer_norm, instantiate=[float32, 3, 5]).build()(X, g, b)  # eps defaults to 1e-5
    ref = (X - X.mean(-1, keepdims=True)) / np.sqrt(X.var(-1, keepdims=True) + 1e-5) * g + b
    np.testing.assert_allclose(ln, ref, rtol=1e-4, atol=1e-5)


def test_rank_generic_loops_with_an_index_tuple():
    SHAPE = (2, 3, 4)

    def kernel(X: int32[2, 3, 4]) -> int32[2, 1, 4]:
        Z: int32[2, 1, 4] = 0
        for i in allo.grid(*SHAPE):  # i = (i0, i1, i2)
            Z[i[0], 0, i[2]] += X[i]
        return Z

    X = ints(*SHAPE)
    s = allo.customize(kernel)
    assert [n for n in s.get_loops()] == ["S_i0_i1_i2_0"]
    np.testing.assert_array_equal(s.build()(X), X.sum(1, keepdims=True))


def test_use_def_chain_follows_assignments_calls_and_returns():
    def inner(A: int32) -> int32:
        B: int32 = A * 2
        return B

    def kernel(A: int32, X: int32[4]) -> int32:
        B: int32 = A + 1
        C: int32 = inner(B)
        Y: int32[4] = 0
        for i in range(4):
            Y[i] = X[i] + C
        return Y[0]

    chain = allo.customize(kernel).use_def_chain
    names = lambda ts: {f"{t.path}:{t.name}" for t in ts}  # noqa: E731
    assert names(chain["kernel.A"].users) == {"kernel:B"}
    assert names(chain["kernel.B"].users) == {"inner:A", "kernel:C"}
    assert names(chain["inner.B"].users) == {"kernel:C"}
    assert names(chain["kernel.C"].users) == {"kernel:Y"}
    assert names(chain.get_equivalent_tensors("kernel.B")) == {"inner:A"}
    with pytest.raises(allo.ScheduleError, match="no tensor 'kernel.Q'"):
        chain["kernel.Q"]


def test_verify_compares_schedules_on_random_inputs():
    def gemm(A: float32[8, 8], B: float32[8, 8]) -> float32[8, 8]:
        C: float32[8, 8] = 0.0
        for i, j, k in allo.grid(8, 8, 8, name="C"):
            C[i, j] += A[i, k] * B[k, j]
        return C

    def other(A: float32[8, 8], B: float32[8, 8]) -> float32[8, 8]:
        C: float32[8, 8] = 0.0
        for i, j, k in allo.grid(8, 8, 8):
            C[i, j] += A[i, k] * B[j, k]
        return C

    s = allo.customize(gemm)
    s.reorder("j", "i")
    assert allo.verify(s, allo.customize(gemm))
    assert not allo.verify(allo.customize(other), allo.customize(gemm))
    assert not allo.verify(allo.customize(make_kernel(4)), allo.customize(gemm))  # other signature
    from allo.ir.utils import get_all_funcs_except_top

    assert get_all_funcs_except_top(allo.customize(gemm)) == []


# ============================================================================ loops and declarations
def test_range_name_names_the_band_and_a_parameter_may_restate_its_type():
    N = 6

    def func2(A: int32[N], B: int32[N]):
        B: int32[N]  # upstream code restates a parameter's type: writes still reach the caller
        for i in range(N, name="dbl"):
            B[i] = A[i] * 2

    def top(A: int32[N]) -> int32[N]:
        B: int32[N]
        func2(A, B)
        for t in range(A[0], name="runtime"):  # a run-time bound
            B[t] += 1
        return B

    s = allo.customize(top)
    assert "dbl" in s.get_loops("func2") and "runtime" in s.get_loops("top")
    A = np.array([3, 1, 4, 1, 5, 9], dtype=np.int32)
    expected = A * 2
    expected[:3] += 1
    np.testing.assert_array_equal(s.build()(A), expected)
    np.testing.assert_array_equal(s.build(target="vhls", mode="csim")(A), expected)

    def redeclares(A: int32[N]) -> int32:
        A: int32[N + 1]
        return A[0]

    with pytest.raises(allo.AlloSyntaxError, match=r"'A' is a parameter of type int32\[6\].*restate") as e:
        allo.customize(redeclares)
    assert "test_compat_allo.py" in str(e.value)
    with pytest.raises(allo.AlloSyntaxError, match=r"range\(\) does not take keyword 'step'"):
        allo.customize(lambda_free_range_keyword())


def lambda_free_range_keyword():
    def k(A: int32[4]):
        for i in range(4, step=1):
            A[i] = 0

    return k


def test_instantiate_on_a_plain_kernel_warns_and_builds():
    def add1(A: int32[4]) -> int32[4]:
        B: int32[4] = 0
        for i in range(4):
            B[i] = A[i] + 1
        return B

    with pytest.warns(allo.AlloWarning, match=r"'add1' is not a template: instantiate=\[8\] has no effect"):
        s = allo.customize(add1, instantiate=[8])
    np.testing.assert_array_equal(s.build()(np.arange(4, dtype=np.int32)), np.arange(1, 5))


@pytest.mark.parametrize("stride", [2, 3])
def test_reuse_at_on_a_strided_window(stride):
    OH = OW = 4
    H, W = (OH - 1) * stride + 3, (OW - 1) * stride + 3

    def conv(A: int32[H, W]) -> int32[OH, OW]:
        B: int32[OH, OW] = 0
        for y, x in allo.grid(OH, OW):
            v: int32 = 0
            for r, c in allo.reduction(3, 3):
                v += A[y * stride + r, x * stride + c] * (r + 2 * c + 1)
            B[y, x] = v
        return B

    A = ints(H, W, lo=-50, hi=50)
    expected = np.array([[sum(int(A[y * stride + r, x * stride + c]) * (r + 2 * c + 1)
                              for r in range(3) for c in range(3)) for x in range(OW)] for y in range(OH)])
    s = allo.customize(conv)
    lb = s.reuse_at(s.A, "y")
    s.reuse_at(lb, "x")
    assert "A_reuse_y_reuse_x" in str(s.module)
    np.testing.assert_array_equal(s.build()(A), expected)
    np.testing.assert_array_equal(s.build(target="vhls", mode="csim")(A), expected)


def test_reuse_at_reads_a_scalar_set_once_as_its_constant():
    def avgpool(A: float32[2, 3, 6, 6]) -> float32[2, 3, 5, 5]:
        B: float32[2, 3, 5, 5] = 0.0
        stride: allo.index = 1
        for n, c, h, w in allo.grid(2, 3, 5, 5):
            v: float32 = 0.0
            for rh, rw in allo.reduction(2, 2):
                v += A[n, c, h * stride + rh, w * stride + rw]
            B[n, c, h, w] = v / 4
        return B

    A = floats(2, 3, 6, 6)
    expected = (A[:, :, :-1, :-1] + A[:, :, 1:, :-1] + A[:, :, :-1, 1:] + A[:, :, 1:, 1:]) / 4
    s = allo.customize(avgpool)
    s.reuse_at(s.reuse_at(s.A, "h"), "w")
    np.testing.assert_allclose(s.build()(A), expected, rtol=1e-6)

    def changed(A: int32[8]) -> int32[6]:
        B: int32[6] = 0
        k: allo.index = 1
        for i in range(6):
            B[i] = A[i * k] + A[i * k + 2]
            k = 1
        return B

    s = allo.customize(changed)
    with pytest.raises(allo.ScheduleError, match="not a stencil access"):
        s.reuse_at(s.A, "i")
