"""HLS C++ backend: emitted text (labels, pragmas, names) and g++ C simulation against numpy.

IR is built by hand with allo.ir.nodes so these tests depend only on the backend. Integer and
fixed-point results are checked bit for bit against a Python-integer emulation of allo's rules
(allo/ir/fixed.py); floats against numpy.
"""
import math
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from allo.backend.hls import build_hls
from allo.backend.hls.csim import CXX_FLAGS
from allo.backend.toolchain import cache_dir
from allo.errors import AlloTypeError, BackendError
from allo.ir import nodes as N
from allo.ir.fixed import from_raw, to_raw, wrap_int
from allo.ir.types import (ArrayType, Fixed, Int, UFixed, UInt, bool as bool_t, float16, float32, float64, index,
                           int8, int16, int32, int64, uint8, uint16, uint32)

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed for HLS C simulation")
rng = np.random.default_rng(7)
WERROR = ["-std=c++14", "-Wall", "-Werror", "-Wno-unknown-pragmas", "-Wno-unused-label"]


# ----------------------------------------------------------------------------- IR helpers
def C(v, t=index):
    return N.Const(v, t)


def arg(name, t):
    return N.Buffer(name, t, "arg")


def scalar(name, t):
    return N.Buffer(name, ArrayType(t, ()), "scalar_arg")


def local(name, t):
    return N.Buffer(name, t, "local")


def L(buf, *idx):
    return N.Load(buf, list(idx))


def B(op, a, b, t):
    return N.BinOp(op, a, b, t)


def loop(var, n, body, name=None, **attrs):
    return N.For(var, C(0), C(n), 1, body, name or var.name, dict(attrs))


def multi_out(fname, in_types, n, outs):
    """for i in range(n): out_k[i] = fn_k(in_0[i], in_1[i], ...); returns (out_0, out_1, ...)."""
    ins = [arg(f"in{k}", t[n]) for k, t in enumerate(in_types)]
    res = [local(name, t[n]) for name, t, _ in outs]
    i = N.IterVar("i")
    loads = [L(b, i) for b in ins]
    stores = [N.Store(r, [i], fn(*loads)) for r, (_, _, fn) in zip(res, outs)]
    body = [N.Alloc(r) for r in res] + [loop(i, n, stores), N.Return(res)]
    return N.Module([N.Func(fname, ins, [t[n] for _, t, _ in outs], body)], fname)


def func_text(code: str, name: str) -> str:
    """The definition of C++ function `name` in `code`."""
    start = code.index(f" {name}(")
    start = code.rindex("\n", 0, start) + 1
    end = code.index("\n}\n", start) + 2
    return code[start:end]


def gemm_module(n=32):
    A, Bm = arg("A", float32[n, n]), arg("B", float32[n, n])
    Cb = local("C", float32[n, n])
    i, j, k = N.IterVar("i"), N.IterVar("j"), N.IterVar("k")
    mac = B("add", L(Cb, i, j), B("mul", L(A, i, k), L(Bm, k, j), float32), float32)
    nest = loop(i, n, [loop(j, n, [loop(k, n, [N.Store(Cb, [i, j], mac)])], pipeline_ii=1)], op_name="S_i_j_0")
    Cb.attrs["partition"] = [("cyclic", 1, 4)]
    A.attrs["partition"] = [("complete", 0, 0)]
    f = N.Func("gemm", [A, Bm], [float32[n, n]], [N.Alloc(Cb, C(0.0, float32)), nest, N.Return([Cb])])
    return N.Module([f], "gemm")


# ----------------------------------------------------------------------------- integer emulation
def _trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def int_ref(op, a, b, bits, signed):
    """One element of allo's integer semantics (Python ints in, wrapped int out)."""
    w = lambda v: int(wrap_int(np.array([v], dtype=object).astype(np.int64) if abs(v) < 2**63 else  # noqa: E731
                                np.array([v % 2**64], dtype=np.uint64), bits, signed)[0])
    n_u = b % (1 << bits)  # shift amounts are read as unsigned at the type's width
    table = {
        "add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b,
        "div": lambda: 0 if b == 0 else _trunc_div(a, b),
        "floordiv": lambda: 0 if b == 0 else a // b, "mod": lambda: 0 if b == 0 else a % b,
        "and": lambda: a & b, "or": lambda: a | b, "xor": lambda: a ^ b,
        "shl": lambda: 0 if n_u >= bits else a << n_u,
        "shr": lambda: (a >> min(n_u, bits - 1)) if signed else (0 if n_u >= bits else a >> n_u),
        "min": lambda: min(a, b), "max": lambda: max(a, b),
    }
    return w(table[op]())


def int_ref_array(op, a, b, t):
    signed = isinstance(t, Int)
    out = [int_ref(op, int(x), int(y), t.bits, signed) for x, y in zip(a.tolist(), b.tolist())]
    return np.array(out, dtype=np.int64).astype(t.np_dtype)


def rand_int(t, n, edge=True):
    lo, hi = (-(1 << (t.bits - 1)), 1 << (t.bits - 1)) if isinstance(t, Int) else (0, 1 << t.bits)
    v = rng.integers(lo, hi, size=n, dtype=np.int64)
    if edge:
        v[:6] = [lo, hi - 1, 0, 1, (-1 if lo < 0 else hi - 1), lo]
    return v.astype(t.np_dtype)


# ----------------------------------------------------------------------------- gemm: text + csim
def test_gemm_csim_matches_numpy_and_pragmas_are_in_place(tmp_path):
    mod = build_hls(gemm_module(), mode="csim", project=str(tmp_path / "gemm.prj"))
    code = mod.hls_code
    assert str(mod) == code
    assert "void gemm(float A[32][32], float B[32][32], float C[32][32]) {" in code
    lines = [ln.strip() for ln in code.splitlines()]
    j_line = lines.index("l_j: for (int j = 0; j < 32; j++) {")
    assert lines[j_line + 1] == "#pragma HLS pipeline II=1"
    assert "l_i: for (int i = 0; i < 32; i++) {" in lines and "l_k: for (int k = 0; k < 32; k++) {" in lines
    assert "#pragma HLS array_partition variable=C cyclic factor=4 dim=1" in lines
    assert "#pragma HLS array_partition variable=A complete dim=0" in lines
    body = func_text(code, "gemm").splitlines()
    assert body[1].strip().startswith("#pragma HLS array_partition variable=A")  # arguments: top of function
    a = rng.random((32, 32), dtype=np.float32)
    b = rng.random((32, 32), dtype=np.float32)
    c = mod(a, b)
    assert c.dtype == np.float32 and c.shape == (32, 32)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)
    for name in ("kernel.cpp", "kernel.h", "host.cpp", "run.tcl", "allo_ap.h"):
        assert (tmp_path / "gemm.prj" / name).exists()
    tcl = (tmp_path / "gemm.prj" / "run.tcl").read_text()
    for cmd in ("open_project", "set_top gemm", "add_files kernel.cpp", "add_files -tb host.cpp", "open_solution",
                "set_part", "create_clock", "csim_design"):
        assert cmd in tcl
    assert "csynth_design" not in tcl  # run.tcl runs what the mode asks (csyn/cosim/impl: test_qor_vitis.py)
    assert (tmp_path / "gemm.prj" / "kernel.cpp").read_text() == code
    # a second build of the same code reuses the compiled testbench
    again = build_hls(gemm_module(), mode="csim")
    before = sorted(cache_dir("hls").glob("csim_gemm_*"))
    np.testing.assert_allclose(again(a, b), c)
    assert sorted(cache_dir("hls").glob("csim_gemm_*")) == before
    temp_project = again.project
    del again
    assert not temp_project.exists()  # temp projects go away with their module


def test_project_build_script_runs_the_simulation_as_written(tmp_path):
    """The project folder alone (no allo): `sh build.sh && ./csim data weights` gives the results of
    the call that saved data/."""
    prj = tmp_path / "gemm.prj"
    mod = build_hls(gemm_module(), mode="csim", project=str(prj))
    a, b = rng.random((32, 32), dtype=np.float32), rng.random((32, 32), dtype=np.float32)
    c = mod(a, b)  # the first call keeps its inputs in data/
    assert os.access(prj / "build.sh", os.X_OK)
    env = {k: v for k, v in os.environ.items() if k != "CXX"}
    run = subprocess.run("sh build.sh && ./csim data weights", shell=True, cwd=prj, env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "built ./csim" in run.stdout
    np.testing.assert_array_equal(np.fromfile(prj / "data" / "out0.bin", np.float32).reshape(32, 32), c)


def test_golden_labels_and_pragmas():
    A = arg("A", float32[16, 8])
    A.attrs["partition"] = [("block", 1, 4)]
    T = local("T", float32[16, 8])
    T.attrs["partition"] = [("complete", 2, 0), ("cyclic", 1, 2)]
    io, ii, j = N.IterVar("i.outer"), N.IterVar("i.inner"), N.IterVar("j")
    i = B("add", B("mul", io, C(4), index), ii, index)
    inner = loop(j, 8, [N.Store(T, [i, j], B("mul", L(A, i, j), C(2.0, float32), float32))], unroll=0)
    nest = N.For(io, C(0), C(4), 1, [loop(ii, 4, [inner], "i.inner", unroll=2)], "i.outer",
                 {"op_name": "S_i_j_0", "dataflow": True})
    f = N.Func("scale", [A], [float32[16, 8]], [N.Alloc(T), nest, N.Return([T])], attrs={"dataflow": True})
    got = func_text(build_hls(N.Module([f], "scale")).hls_code, "scale")
    assert got == """\
void scale(float A[16][8], float T[16][8]) {
  #pragma HLS dataflow
  #pragma HLS array_partition variable=A block factor=4 dim=1
  #pragma HLS array_partition variable=T complete dim=2
  #pragma HLS array_partition variable=T cyclic factor=2 dim=1
  l_i_outer: for (int i_outer = 0; i_outer < 4; i_outer++) {
    #pragma HLS dataflow
    l_i_inner: for (int i_inner = 0; i_inner < 4; i_inner++) {
      #pragma HLS unroll factor=2
      l_j: for (int j = 0; j < 8; j++) {
        #pragma HLS unroll
        T[i_outer * 4 + i_inner][j] = A[i_outer * 4 + i_inner][j] * 2.0f;
      }
    }
  }
}"""


def test_local_partition_follows_its_declaration_and_scalars_are_variables():
    A = arg("A", int32[8])
    T = local("buf", int32[8])
    T.attrs["partition"] = [("cyclic", 1, 2)]
    acc = local("acc", ArrayType(int32, ()))
    i = N.IterVar("i")
    body = [N.Alloc(acc, C(0, int32)), N.Alloc(T, C(1, int32)),
            loop(i, 8, [N.Store(acc, [], B("add", L(acc), B("mul", L(A, i), L(T, i), int32), int32))]),
            N.Return([L(acc)])]
    mod = build_hls(N.Module([N.Func("dot", [A], [int32], body)], "dot"), mode="csim")
    lines = [ln.strip() for ln in mod.hls_code.splitlines()]
    k = lines.index("int32_t buf[8];")
    assert lines[k + 1] == "#pragma HLS array_partition variable=buf cyclic factor=2 dim=1"
    assert "int32_t dot(int32_t A[8]) {" in lines and "int32_t acc = 0;" in lines and "return acc;" in lines
    a = rand_int(int32, 8, edge=False)
    got = mod(a)
    assert isinstance(got, np.int32) and got == np.int32(wrap_int(int(a.astype(np.int64).sum()), 32, True))


# ----------------------------------------------------------------------------- integers
INT_OPS = ["add", "sub", "mul", "div", "floordiv", "mod", "and", "or", "xor", "min", "max"]


@pytest.mark.parametrize("t", [int8, Int(5), uint16, UInt(12), int64], ids=str)
def test_integer_ops_wrap_at_their_width(t):
    n = 64
    mod = build_hls(multi_out("iops", [t, t], n, [(op, t, (lambda o: lambda x, y: B(o, x, y, t))(op))
                                                   for op in INT_OPS]), mode="csim")
    a, b = rand_int(t, n), rand_int(t, n)
    b[6:10] = [0, 0, -1 if isinstance(t, Int) else 1, 3]
    got = mod(a, b)
    for op, g in zip(INT_OPS, got):
        assert g.dtype == t.np_dtype
        np.testing.assert_array_equal(g, int_ref_array(op, a, b, t), err_msg=f"{t} {op}")


def test_shifts_unary_and_comparisons_on_narrow_ints():
    n, t = 32, int8
    outs = [(op, t, (lambda o: lambda x, y: B(o, x, y, t))(op)) for op in ("shl", "shr")]
    outs += [("shru", uint8, lambda x, y: B("shr", N.Cast(x, uint8), N.Cast(y, uint8), uint8)),
             ("neg", t, lambda x, y: N.UnaryOp("neg", x, t)), ("inv", t, lambda x, y: N.UnaryOp("invert", x, t)),
             ("lt", bool_t, lambda x, y: B("lt", x, y, bool_t)),
             ("ult", bool_t, lambda x, y: B("lt", N.Cast(x, uint8), N.Cast(y, uint8), bool_t)),
             ("abs", t, lambda x, y: N.MathCall("abs", [x], t)),
             ("pow", t, lambda x, y: B("pow", x, B("and", y, C(7, t), t), t)),
             ("wide", int32, lambda x, y: B("mul", N.Cast(x, int32), N.Cast(y, int32), int32))]
    mod = build_hls(multi_out("shifts", [t, t], n, outs), mode="csim")
    a = rand_int(t, n)
    b = np.array(([0, 1, 3, 7, 8, 9, 100, -1] * 4)[:n], np.int8)
    shl, shr, shru, neg, inv, lt, ult, ab, pw, wide = mod(a, b)
    np.testing.assert_array_equal(shl, int_ref_array("shl", a, b, t))
    np.testing.assert_array_equal(shr, int_ref_array("shr", a, b, t))
    np.testing.assert_array_equal(shru, int_ref_array("shr", a.view(np.uint8), b.view(np.uint8), uint8))
    np.testing.assert_array_equal(neg, -a)  # numpy int8 negation wraps like allo
    np.testing.assert_array_equal(inv, ~a)
    assert lt.dtype == np.bool_ and (lt == (a < b)).all() and (ult == (a.view(np.uint8) < b.view(np.uint8))).all()
    np.testing.assert_array_equal(ab, np.abs(a))  # abs(-128) wraps to -128 in both
    want_pow = [int_ref("mul", 1, 1, 8, True) * 0 + int(wrap_int(int(x) ** (int(y) & 7), 8, True))
                for x, y in zip(a.tolist(), b.tolist())]
    np.testing.assert_array_equal(pw, np.array(want_pow, np.int8))
    np.testing.assert_array_equal(wide, a.astype(np.int32) * b.astype(np.int32))


def test_bool_logic_and_int_casts():
    n = 16
    outs = [("and", bool_t, lambda p, q, x: B("and", p, q, bool_t)), ("or", bool_t, lambda p, q, x: B("or", p, q, bool_t)),
            ("xor", bool_t, lambda p, q, x: B("xor", p, q, bool_t)),
            ("add", bool_t, lambda p, q, x: B("add", p, q, bool_t)),
            ("land", bool_t, lambda p, q, x: B("land", p, N.UnaryOp("not", q, bool_t), bool_t)),
            ("inv", bool_t, lambda p, q, x: N.UnaryOp("invert", p, bool_t)),
            ("nz", bool_t, lambda p, q, x: N.Cast(x, bool_t)), ("toint", int32, lambda p, q, x: N.Cast(p, int32)),
            ("i1", Int(1), lambda p, q, x: N.Cast(p, Int(1))),
            ("f2i", int8, lambda p, q, x: N.Cast(N.Cast(x, float32), int8))]
    mod = build_hls(multi_out("bools", [bool_t, bool_t, int32], n, outs), mode="csim")
    p, q = rng.random(n) < 0.5, rng.random(n) < 0.5
    x = rng.integers(-300, 300, n).astype(np.int32)
    x[:3] = [0, 2, 256]
    r = mod(p, q, x)
    assert all(v.dtype == np.bool_ for v in r[:7])
    np.testing.assert_array_equal(r[0], p & q)
    np.testing.assert_array_equal(r[1], p | q)
    np.testing.assert_array_equal(r[2], p ^ q)
    np.testing.assert_array_equal(r[3], p ^ q)  # one-bit add wraps
    np.testing.assert_array_equal(r[4], p & ~q)
    np.testing.assert_array_equal(r[5], ~p)
    np.testing.assert_array_equal(r[6], x != 0)  # cast to bool tests != 0, not the low bit
    np.testing.assert_array_equal(r[7], p.astype(np.int32))
    np.testing.assert_array_equal(r[8], -p.astype(np.int8))  # int1: true is -1
    np.testing.assert_array_equal(r[9], wrap_int(x, 8, True).astype(np.int8))  # fptosi to 64 bits, then wrap


# ----------------------------------------------------------------------------- fixed point
FX, UFX, FX8 = Fixed(16, 8), UFixed(12, 4), Fixed(8, 3)


def fx_raw(x, t):
    return [int(v) for v in wrap_int(to_raw(x, t), t.bits, isinstance(t, Fixed)).tolist()]


def test_fixed_point_arithmetic_and_casts_are_bit_exact():
    n = 64
    outs = [("add", FX, lambda a, b, f: B("add", a, b, FX)), ("sub", FX, lambda a, b, f: B("sub", a, b, FX)),
            ("mul", FX, lambda a, b, f: B("mul", a, b, FX)), ("div", FX, lambda a, b, f: B("div", a, b, FX)),
            ("neg", FX, lambda a, b, f: N.UnaryOp("neg", a, FX)),
            ("max", FX, lambda a, b, f: B("max", a, b, FX)), ("lt", bool_t, lambda a, b, f: B("lt", a, b, bool_t)),
            ("tof", float32, lambda a, b, f: N.Cast(a, float32)), ("fromf", FX, lambda a, b, f: N.Cast(f, FX)),
            ("toi", int32, lambda a, b, f: N.Cast(a, int32)), ("fromi", FX, lambda a, b, f: N.Cast(N.Cast(f, int8), FX)),
            ("narrow", FX8, lambda a, b, f: N.Cast(a, FX8)), ("widen", FX, lambda a, b, f: N.Cast(N.Cast(a, FX8), FX)),
            ("umul", UFX, lambda a, b, f: B("mul", N.Cast(a, UFX), N.Cast(b, UFX), UFX)),
            ("cmul", FX, lambda a, b, f: B("mul", a, C(1.375, FX), FX)),
            ("nz", bool_t, lambda a, b, f: N.Cast(a, bool_t))]
    mod = build_hls(multi_out("fx", [FX, FX, float32], n, outs), mode="csim")
    a = rng.uniform(-100, 100, n)
    b = rng.uniform(-20, 20, n)
    b[:4] = [0.0, 0.00390625, -0.5, 127.99]
    a[:4] = [0.0, -0.75, 0.25, -128.0]
    f = rng.uniform(-40, 40, n).astype(np.float32)
    got = dict(zip([o[0] for o in outs], mod(a, b, f)))
    ra, rb = fx_raw(a, FX), fx_raw(b, FX)
    w16 = lambda v: int(wrap_int(v, 16, True))  # noqa: E731
    as_fx = lambda raws, t=FX: from_raw(np.array(raws, np.int64), t)  # noqa: E731
    np.testing.assert_array_equal(got["add"], as_fx([w16(x + y) for x, y in zip(ra, rb)]))
    np.testing.assert_array_equal(got["sub"], as_fx([w16(x - y) for x, y in zip(ra, rb)]))
    np.testing.assert_array_equal(got["mul"], as_fx([w16((x * y) >> 8) for x, y in zip(ra, rb)]))
    np.testing.assert_array_equal(got["div"], as_fx([0 if y == 0 else w16(_trunc_div(x << 8, y)) for x, y in zip(ra, rb)]))
    np.testing.assert_array_equal(got["neg"], as_fx([w16(-x) for x in ra]))
    np.testing.assert_array_equal(got["max"], as_fx([max(x, y) for x, y in zip(ra, rb)]))
    np.testing.assert_array_equal(got["lt"], np.array(ra) < np.array(rb))
    np.testing.assert_array_equal(got["tof"], (np.array(ra) / 256.0).astype(np.float32))
    np.testing.assert_array_equal(got["fromf"], as_fx(fx_raw(f, FX)))
    np.testing.assert_array_equal(got["toi"], np.array([x >> 8 for x in ra], np.int32))  # floor, not trunc
    np.testing.assert_array_equal(got["fromi"], as_fx([w16(int(np.trunc(v)) << 8) for v in f]))
    np.testing.assert_array_equal(got["narrow"], as_fx([int(wrap_int(x >> 5, 8, True)) for x in ra], FX8))
    np.testing.assert_array_equal(got["widen"], as_fx([w16(int(wrap_int(x >> 5, 8, True)) << 5) for x in ra]))
    ua, ub = [int(wrap_int(x >> 4, 12, False)) for x in ra], [int(wrap_int(y >> 4, 12, False)) for y in rb]
    np.testing.assert_array_equal(got["umul"], as_fx([int(wrap_int((x * y) >> 4, 12, False)) for x, y in zip(ua, ub)], UFX))
    np.testing.assert_array_equal(got["cmul"], as_fx([w16((x * 352) >> 8) for x in ra]))
    np.testing.assert_array_equal(got["nz"], np.array(ra) != 0)
    assert "ap_fixed<16, 8>" in mod.hls_code and "ap_ufixed<12, 8>" in mod.hls_code


def test_fixed_arguments_quantise_by_floor_and_write_back():
    X = arg("X", Fixed(12, 4)[8])
    i = N.IterVar("i")
    body = [loop(i, 8, [N.Store(X, [i], B("add", L(X, i), C(0.5, Fixed(12, 4)), Fixed(12, 4)))])]
    mod = build_hls(N.Module([N.Func("bump", [X], [], body)], "bump"), mode="csim")
    x = np.array([1.3, -1.3, 0.0, 127.9, -128.0, 2.06, -0.01, 5.5])
    assert mod(x) is None
    want = from_raw(np.array([int(wrap_int(r + 8, 12, True)) for r in fx_raw(
        np.array([1.3, -1.3, 0.0, 127.9, -128.0, 2.06, -0.01, 5.5]), Fixed(12, 4))]), Fixed(12, 4))
    np.testing.assert_array_equal(x, want)


# ----------------------------------------------------------------------------- floats
def test_float16_computes_in_float_and_rounds_each_result():
    n, h = 64, float16
    outs = [("add", h, lambda a, b: B("add", a, b, h)), ("mul", h, lambda a, b: B("mul", a, b, h)),
            ("div", h, lambda a, b: B("div", a, b, h)), ("exp", h, lambda a, b: N.MathCall("exp", [a], h)),
            ("f32", float32, lambda a, b: N.Cast(a, float32)), ("lt", bool_t, lambda a, b: B("lt", a, b, bool_t)),
            ("toi", int16, lambda a, b: N.Cast(B("mul", a, C(100.0, h), h), int16))]
    mod = build_hls(multi_out("half", [h, h], n, outs), mode="csim")
    a = rng.uniform(-4, 4, n).astype(np.float16)
    b = rng.uniform(0.5, 4, n).astype(np.float16)
    add, mul, div, ex, f32, lt, toi = mod(a, b)
    assert add.dtype == np.float16
    np.testing.assert_array_equal(add, a + b)
    np.testing.assert_array_equal(mul, a * b)
    np.testing.assert_array_equal(div, a / b)
    np.testing.assert_allclose(ex, np.exp(a.astype(np.float32)).astype(np.float16), rtol=1e-3)
    np.testing.assert_array_equal(f32, a.astype(np.float32))
    np.testing.assert_array_equal(lt, a < b)
    np.testing.assert_array_equal(toi, np.trunc((a * np.float16(100)).astype(np.float32)).astype(np.int16))


MATH1 = ["exp", "log", "log2", "sqrt", "rsqrt", "tanh", "sin", "cos", "erf", "abs", "floor", "ceil", "sigmoid"]


def _math_ref(fn, x):
    x = x.astype(np.float64)
    table = {"rsqrt": lambda v: 1 / np.sqrt(v), "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
             "erf": np.vectorize(math.erf), "abs": np.abs}
    return table.get(fn, getattr(np, fn, None))(x)


@pytest.mark.parametrize("t", [float32, float64], ids=str)
def test_math_functions_and_float_division_rules(t):
    n = 32
    outs = [(fn, t, (lambda f: lambda a, b: N.MathCall(f, [a], t))(fn)) for fn in MATH1]
    outs += [("pow", t, lambda a, b: N.MathCall("pow", [a, b], t)), ("fdiv", t, lambda a, b: B("floordiv", a, b, t)),
             ("fmod", t, lambda a, b: B("mod", a, B("sub", b, C(1.5, t), t), t)),
             ("min", t, lambda a, b: B("min", a, b, t)), ("sel", t, lambda a, b: N.Select(B("gt", a, b, bool_t), a, C(-1.0, t), t)),
             # negations of negative operands must not print as `--x` (a decrement)
             ("negneg", t, lambda a, b: N.UnaryOp("neg", N.UnaryOp("neg", a, t), t)),
             ("negc", t, lambda a, b: B("add", N.UnaryOp("neg", C(-1.5, t), t), a, t)),
             ("signeg", t, lambda a, b: N.MathCall("sigmoid", [N.UnaryOp("neg", a, t)], t))]
    mod = build_hls(multi_out("maths", [t, t], n, outs), mode="csim")
    a = rng.uniform(0.1, 3.0, n).astype(t.np_dtype)
    b = rng.uniform(0.1, 3.0, n).astype(t.np_dtype)
    got = dict(zip([o[0] for o in outs], mod(a, b)))
    for fn in MATH1:
        np.testing.assert_allclose(got[fn], _math_ref(fn, a), rtol=1e-5, atol=1e-7, err_msg=fn)
    np.testing.assert_allclose(got["pow"], np.power(a.astype(np.float64), b), rtol=1e-5)
    np.testing.assert_array_equal(got["fdiv"], np.floor(a / b))
    np.testing.assert_allclose(got["fmod"], np.mod(a, b - t.np_dtype.type(1.5)), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got["min"], np.minimum(a, b))
    np.testing.assert_array_equal(got["sel"], np.where(a > b, a, t.np_dtype.type(-1.0)))
    np.testing.assert_array_equal(got["negneg"], a)
    np.testing.assert_array_equal(got["negc"], a + t.np_dtype.type(1.5))
    np.testing.assert_allclose(got["signeg"], 1 / (1 + np.exp(a.astype(np.float64))), rtol=1e-5)
    assert got["exp"].dtype == t.np_dtype


# ----------------------------------------------------------------------------- params, results, control flow
def test_scalar_params_tuple_results_and_in_place_updates():
    X, Y = arg("X", float32[8]), arg("Y", int32[8])
    alpha, k = scalar("alpha", float32), scalar("k", int32)
    Z = local("Z", float32[8])
    s = local("s", ArrayType(float32, ()))
    i = N.IterVar("i")
    body = [N.Alloc(Z), N.Alloc(s, C(0.0, float32)),
            loop(i, 8, [N.Store(Z, [i], B("mul", L(alpha), L(X, i), float32)),
                        N.Store(Y, [i], B("add", L(Y, i), L(k), int32)),
                        N.Store(s, [], B("add", L(s), L(Z, i), float32))]),
            N.Return([Z, X, L(s)])]
    f = N.Func("axpy", [X, Y, alpha, k], [float32[8], float32[8], float32], body)
    mod = build_hls(N.Module([f], "axpy"), mode="csim")
    assert "void axpy(float X[8], int32_t Y[8], float alpha, int32_t k, float Z[8], float out1[8], float &out2)" \
        in mod.hls_code
    x = rng.random(8, dtype=np.float32)
    y = np.arange(8, dtype=np.int32)
    z, xcopy, total = mod(x, y, np.float32(0.5), 3)
    np.testing.assert_allclose(z, 0.5 * x, rtol=1e-6)
    np.testing.assert_array_equal(xcopy, x)
    assert isinstance(total, np.float32) and total == pytest.approx(float((0.5 * x).sum()), rel=1e-5)
    np.testing.assert_array_equal(y, np.arange(8) + 3)  # written argument updated in place
    z2, _, _ = mod(x, y, 2, np.int64(-3))  # Python/numpy scalars of other kinds convert
    np.testing.assert_allclose(z2, 2 * x, rtol=1e-6)
    np.testing.assert_array_equal(y, np.arange(8))


def test_if_elif_else_while_and_select():
    A, O = arg("A", int32[16]), arg("O", int32[16])
    n = local("n", ArrayType(int32, ()))
    steps = local("steps", ArrayType(int32, ()))
    i = N.IterVar("i")
    nv = L(n)
    collatz = N.While(B("gt", nv, C(1, int32), bool_t), [
        N.If(B("eq", B("mod", nv, C(2, int32), int32), C(0, int32), bool_t),
             [N.Store(n, [], B("floordiv", nv, C(2, int32), int32))],
             [N.Store(n, [], B("add", B("mul", nv, C(3, int32), int32), C(1, int32), int32))]),
        N.Store(steps, [], B("add", L(steps), C(1, int32), int32))])
    classify = N.If(B("lt", L(A, i), C(0, int32), bool_t), [N.Store(O, [i], C(-1, int32))],
                    [N.If(B("eq", L(A, i), C(0, int32), bool_t), [N.Store(O, [i], C(0, int32))],
                          [N.Store(O, [i], N.Select(B("gt", L(steps), C(10, int32), bool_t), L(steps), C(10, int32), int32))])])
    body = [loop(i, 16, [N.Alloc(n, L(A, i)), N.Alloc(steps, C(0, int32)), collatz, classify])]
    mod = build_hls(N.Module([N.Func("ctl", [A, O], [], body)], "ctl"), mode="csim")
    assert "} else if (" in mod.hls_code and "while (true) {\n      if (!(n > 1)) break;" in mod.hls_code
    a = np.array([-5, 0, 1, 2, 3, 6, 7, 9, 27, 97, 12, 15, -1, 0, 31, 41], np.int32)
    o = np.zeros(16, np.int32)
    assert mod(a, o) is None

    def ref(v):
        if v < 0:
            return -1
        if v == 0:
            return 0
        s = 0
        while v > 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            s += 1
        return max(s, 10) if s > 10 else 10

    np.testing.assert_array_equal(o, [ref(int(v)) for v in a])


def test_globals_calls_and_hoisted_call_results():
    W = N.Buffer("W", float32[4, 4], "global", data=np.arange(16, dtype=np.float32).reshape(4, 4), global_name="W")
    bias = N.Buffer("bias", int8[4], "global", data=np.array([1, -2, 3, -4], np.int8), global_name="bias")
    # sub-kernel: matvec with the constant W, returns an array
    x = arg("x", float32[4])
    y = local("y", float32[4])
    i, j = N.IterVar("i"), N.IterVar("j")
    mv = N.Func("matvec", [x], [float32[4]], [
        N.Alloc(y, C(0.0, float32)),
        loop(i, 4, [loop(j, 4, [N.Store(y, [i], B("add", L(y, i), B("mul", L(W, i, j), L(x, j), float32), float32))])]),
        N.Return([y])])
    # sub-kernel returning a scalar
    v = arg("v", float32[4])
    acc = local("acc", ArrayType(float32, ()))
    k = N.IterVar("k")
    total = N.Func("total", [v], [float32], [N.Alloc(acc, C(0.0, float32)),
                                             loop(k, 4, [N.Store(acc, [], B("add", L(acc), L(v, k), float32))]),
                                             N.Return([L(acc)])])
    # top: calls in a loop; the array result of the last call is returned (declared at the top)
    X = arg("X", float32[4])
    b = local("b", int8[4])
    r = N.Buffer("r", float32[4], "result")
    got = local("got", ArrayType(float32, ()))
    sums = local("sums", float32[3])
    t = N.IterVar("t")
    body = [N.Alloc(b, bias), N.Alloc(sums),
            loop(t, 3, [N.CallStmt("matvec", [X], [r]), N.CallStmt("total", [r], [got]),
                        N.Store(sums, [t], B("add", L(got), N.Cast(L(b, t), float32), float32))]),
            N.Return([sums, r])]
    top = N.Func("top", [X], [float32[3], float32[4]], body)
    mod = build_hls(N.Module([top, mv, total], "top"), mode="csim")
    code = mod.hls_code
    assert "static const float W[4][4] = {{0.0f, 1.0f, 2.0f, 3.0f}," in code
    assert "static const int8_t bias[4] = {1, -2, 3, -4};" in code
    assert code.index("void matvec(") < code.index("float total(") < code.index("void top(")
    assert "got = total(r);" in code and "matvec(X, r);" in code
    xv = rng.random(4, dtype=np.float32)
    s, last = mod(xv)
    want = np.arange(16, dtype=np.float32).reshape(4, 4) @ xv
    np.testing.assert_allclose(last, want, rtol=1e-6)
    np.testing.assert_allclose(s, want.sum() + np.array([1, -2, 3]), rtol=1e-5)


def test_names_are_sanitised_and_unique():
    A = arg("int", int32[4])  # a C++ keyword
    T = local("exp", int32[4])  # a C library name
    i1, i2, i3 = N.IterVar("i"), N.IterVar("i"), N.IterVar("i")
    body = [N.Alloc(T, C(0, int32)),
            loop(i1, 4, [loop(i2, 4, [N.Store(T, [i2], B("add", L(T, i2), L(A, i1), int32))])]),
            loop(i3, 4, [N.Store(T, [i3], B("mul", L(T, i3), C(2, int32), int32))]),
            N.Return([T])]
    mod = build_hls(N.Module([N.Func("main", [A], [int32[4]], body)], "main"), mode="csim")
    code = mod.hls_code
    assert "l_i: for (int i = 0;" in code and "l_i_1: for (int i_1 = 0;" in code and "l_i_2: for (int i = 0;" in code
    assert "void main_1(int32_t int_1[4], int32_t exp[4])" in code
    a = np.array([1, 2, 3, 4], np.int32)
    np.testing.assert_array_equal(mod(a), np.full(4, 2 * a.sum(), np.int32))


# ----------------------------------------------------------------------------- -Werror, targets, errors
def _all_features_module():
    """One module touching every emitter path (for the warning-flag check)."""
    mods = [multi_out("f1", [FX, FX, float32], 4, [("m", FX, lambda a, b, f: B("mul", a, b, FX)),
                                                   ("i", int8, lambda a, b, f: N.Cast(a, int8)),
                                                   ("h", float16, lambda a, b, f: N.Cast(f, float16))]),
            multi_out("f2", [Int(5), UInt(3)], 4, [("d", Int(5), lambda a, b: B("floordiv", a, a, Int(5))),
                                                   ("s", UInt(3), lambda a, b: B("shl", b, b, UInt(3))),
                                                   ("p", Int(5), lambda a, b: B("pow", a, a, Int(5)))])]
    # locals only written (never read), and a scalar written in a loop
    A = arg("A", int32[4])
    T, s = local("T", int32[4]), local("s", ArrayType(int32, ()))
    i = N.IterVar("i")
    body = [N.Alloc(T), N.Alloc(s), loop(i, 4, [N.Store(T, [i], L(A, i)), N.Store(s, [], L(A, i))])]
    mods.append(N.Module([N.Func("sinks", [A], [], body)], "sinks"))
    return mods


def test_generated_code_compiles_with_werror_flag_set(tmp_path):
    # -O2 because some warnings (maybe-uninitialized) only appear with optimisation
    for k, m in enumerate(_all_features_module() + [gemm_module(8)]):
        hls = build_hls(m, project=str(tmp_path / m.top))
        for src in ("kernel.cpp",) + (("host.cpp",) if k == 0 else ()):
            r = subprocess.run(["g++", *WERROR, "-O2", "-c", src, "-o", os.devnull], cwd=hls.project,
                               capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
    assert all(flag in CXX_FLAGS for flag in WERROR)


def test_vitis_hls_target_has_interface_pragmas_on_the_top_only():
    X, s = arg("X", float32[8]), scalar("s", float32)
    i = N.IterVar("i")
    sub = N.Func("twice", [X], [], [loop(i, 8, [N.Store(X, [i], B("mul", L(X, i), C(2.0, float32), float32))])])
    Y = arg("Y", float32[8])
    j = N.IterVar("j")
    top = N.Func("kern", [Y, s], [], [N.CallStmt("twice", [Y], []),
                                      loop(j, 8, [N.Store(Y, [j], B("add", L(Y, j), L(s), float32))])])
    mod = build_hls(N.Module([sub, top], "kern"), target="vitis_hls", mode="csim")
    code = mod.hls_code
    # the Vitis kernel interface (backend/hls/interface.py): ports v<k>, arrays copied into locals
    assert 'extern "C" void kern(float *v0, float v1) {' in code
    assert "#pragma HLS interface m_axi port=v0 offset=slave bundle=gmem" in code
    assert "#pragma HLS interface s_axilite port=v1 bundle=control" in code
    assert "load_buf0(v0, Y);" in code and "store_res0(Y, v0);" in code and "float s = v1;" in code
    assert "interface" not in func_text(code, "twice")
    y = np.arange(8, dtype=np.float32)
    mod(y, 1.0)
    np.testing.assert_array_equal(y, np.arange(8) * 2 + 1)
    assert "interface" not in build_hls(N.Module([sub, top], "kern")).hls_code


def test_argument_errors_are_raised_before_running(tmp_path, monkeypatch):
    monkeypatch.setenv("ALLO_CACHE_DIR", str(tmp_path))
    mod = build_hls(gemm_module(4), mode="csim")
    good = np.zeros((4, 4), np.float32)
    with pytest.raises(AlloTypeError, match="'A'.*float64 values overflow float32"):
        mod(np.full((4, 4), 1e300), good)
    with pytest.raises(AlloTypeError, match="shape"):
        mod(np.zeros((4, 5), np.float32), good)
    with pytest.raises(AlloTypeError, match="'B'"):
        mod(good, [[0.0] * 4] * 4)
    with pytest.raises(AlloTypeError, match="expected 2 arguments"):
        mod(good)
    assert not list(cache_dir("hls").iterdir())  # nothing was compiled or run
    ints = build_hls(multi_out("one", [int8], 4, [("o", int8, lambda a: a)]), mode="csim")
    with pytest.raises(AlloTypeError, match="do not fit int8"):
        ints(np.full(4, 300, np.int16))
    sc = build_hls(N.Module([N.Func("sc", [scalar("n", int32)], [int32], [N.Return([L(scalar("m", int32))])])], "sc"))
    with pytest.raises(BackendError, match="mode='csim'"):
        sc(3)


def test_compiler_failure_is_a_backend_error_naming_the_project(tmp_path):
    mod = build_hls(gemm_module(4), mode="csim", project=str(tmp_path / "broken"))
    mod.hls_code = "this is not C++;\n"  # csim compiles the module's own code, not the folder's
    with pytest.raises(BackendError) as info:
        mod(np.zeros((4, 4), np.float32), np.zeros((4, 4), np.float32))
    msg = str(info.value)
    assert "g++" in msg and str(tmp_path / "broken") in msg and "error" in msg


def test_unsupported_constructs_raise_backend_error():
    X = arg("X", FX[4])
    i = N.IterVar("i")
    bad = N.Func("bad", [X], [], [loop(i, 4, [N.Store(X, [i], B("floordiv", L(X, i), L(X, i), FX))])])
    with pytest.raises(BackendError, match="floordiv"):
        build_hls(N.Module([bad], "bad"))
    with pytest.raises(BackendError, match="unknown HLS target"):
        build_hls(gemm_module(4), target="verilog")


# ----------------------------------------------------------------------------- real Xilinx ap_types (optional)
# the `xilinx_ap_types` fixture (hls4ml's copy of the Xilinx headers) is in conftest.py


def test_real_xilinx_headers_give_bit_identical_results(xilinx_ap_types, tmp_path):
    t = Fixed(14, 6)
    outs = [("mul", t, lambda a, b: B("mul", a, b, t)), ("div", t, lambda a, b: B("div", a, b, t)),
            ("add", t, lambda a, b: B("add", a, b, t)), ("toi", Int(7), lambda a, b: N.Cast(a, Int(7))),
            ("tof", float32, lambda a, b: N.Cast(B("sub", a, b, t), float32)),
            ("cast", UFixed(10, 7), lambda a, b: N.Cast(a, UFixed(10, 7))),
            ("i5mul", Int(5), lambda a, b: B("mul", N.Cast(a, Int(5)), N.Cast(b, Int(5)), Int(5))),
            ("i5fdiv", Int(5), lambda a, b: B("floordiv", N.Cast(a, Int(5)), N.Cast(b, Int(5)), Int(5))),
            ("u3shl", UInt(3), lambda a, b: B("shl", N.Cast(a, UInt(3)), N.Cast(b, UInt(3)), UInt(3)))]
    mod = build_hls(multi_out("xil", [t, t], 64, outs), mode="csim", project=str(tmp_path / "own"))
    a, b = rng.uniform(-120, 120, 64), rng.uniform(-9, 9, 64)
    b[np.abs(b) < 0.1] = 0.5  # x / 0 traps in the Xilinx headers (allo defines it as 0)
    ours = mod(a, b)
    # same project compiled against the Xilinx headers (their own code is not -Werror clean)
    exe = tmp_path / "own" / "csim_xilinx"
    r = subprocess.run(["g++", "-std=c++14", "-O2", "-w", "-fwrapv", "-isystem", str(xilinx_ap_types), "-I", ".",
                        "kernel.cpp", "host.cpp", "-o", str(exe)], cwd=mod.project, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "ALLO_XILINX_AP" in (Path(mod.project) / "allo_ap.h").read_text()
    with tempfile.TemporaryDirectory() as data:
        to_raw(a, t).tofile(os.path.join(data, "in0.bin"))
        to_raw(b, t).tofile(os.path.join(data, "in1.bin"))
        run = subprocess.run([str(exe), data], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        for k, ((_, rt, _), got) in enumerate(zip(outs, ours)):
            dt = {Int: np.int8, UInt: np.uint8, Fixed: np.int16, UFixed: np.uint16}.get(type(rt), np.float32)
            raw = np.fromfile(os.path.join(data, f"out{k}.bin"), dtype=dt)
            theirs = from_raw(raw, rt) if isinstance(rt, (Fixed, UFixed)) else raw
            np.testing.assert_array_equal(theirs, got, err_msg=outs[k][0])


def test_fixed_half_and_bool_globals_and_scalar_results():
    G = N.Buffer("G", FX[4], "global", data=np.array([1.3, -0.7, 100.25, -128.0]), global_name="G")
    H = N.Buffer("H", float16[4], "global", data=np.array([0.1, 2.5, -3.0, 65504.0], np.float16), global_name="H")
    M = N.Buffer("M", bool_t[4], "global", data=np.array([True, False, True, True]), global_name="M")
    X = arg("X", FX[4])
    Y = local("Y", FX[4])
    acc = local("acc", ArrayType(float16, ()))
    i = N.IterVar("i")
    body = [N.Alloc(Y), N.Alloc(acc, C(0.0, float16)),
            loop(i, 4, [N.Store(Y, [i], N.Select(L(M, i), B("mul", L(X, i), L(G, i), FX), L(X, i), FX)),
                        N.Store(acc, [], B("add", L(acc), L(H, i), float16))]),
            N.Return([Y, L(acc)])]
    mod = build_hls(N.Module([N.Func("glob", [X], [FX[4], float16], body)], "glob"), mode="csim")
    assert "static const ap_fixed<16, 8> G[4] = {1.3, -0.7, 100.25, -128.0};" in mod.hls_code
    x = np.array([2.0, 3.5, -1.25, 0.5])
    y, s = mod(x)
    rg, rx = fx_raw(G.data, FX), fx_raw(x, FX)
    want = [int(wrap_int((a * g) >> 8, 16, True)) if m else a for a, g, m in zip(rx, rg, M.data)]
    np.testing.assert_array_equal(y, from_raw(np.array(want), FX))
    h = np.float16(0)
    for v in H.data:
        h = np.float16(h + v)
    assert isinstance(s, np.float16) and s == h


def test_self_comparisons_compile_and_keep_nan_semantics():
    outs = [(op, bool_t, (lambda o: lambda x, k: B(o, x, x, bool_t))(op)) for op in ("eq", "ne", "lt", "le", "gt", "ge")]
    outs += [("ieq", bool_t, lambda x, k: B("eq", k, k, bool_t)), ("ilt", bool_t, lambda x, k: B("lt", k, k, bool_t))]
    mod = build_hls(multi_out("selfcmp", [float32, int8], 4, outs), mode="csim")
    x = np.array([1.0, np.nan, -0.0, np.inf], np.float32)
    got = mod(x, np.arange(4, dtype=np.int8))
    with np.errstate(invalid="ignore"):
        for (op, _, _), g in zip(outs[:6], got):
            np.testing.assert_array_equal(g, getattr(np, {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
                                                          "gt": "greater", "ge": "greater_equal"}[op])(x, x), err_msg=op)
    assert got[6].all() and not got[7].any()
