"""float32 kernels on the handshake route (`scheduling="dynamic"`, allo/backend/rtl/hs_float/):
every float operator is an instance of an extern module (an elastic wrapper around allo's float32
units) in CIRCT's dataflow circuit; results equal the LLVM build bit for bit (the math functions:
the static circuit's units bit for bit, whose ulp bounds docs/rtl.md gives), and a float type
without units is a BackendError naming the operation and its line.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import allo
from allo.backend.rtl.hs_float import unit_modules, unit_signature
from allo.backend.rtl.hs_float.units import CMPF, F32_OPS, PREFIX
from allo.backend.rtl.tools import verilator_env, verilator_root
from allo.library import nn
from allo.ir.types import Fixed, UFixed, float32, float64, int32, int64, uint8, uint32
from tests import test_rtl_float_kernels as K
from tests import test_rtl_float_ops as O
from tests.rtl_util import FULL, full_only, needs_rtl, run_both

pytestmark = needs_rtl
uf12 = UFixed(12, 4)
fx20 = Fixed(20, 6)


def casts(A: float32[16], U: uint32[16], L: int64[16]) -> (uint8[16], int64[16], uf12[16], fx20[16], float32[16],
                                                           int32[16]):
    R8: uint8[16] = 0
    R64: int64[16] = 0
    RU: uf12[16] = 0.0
    RF: fx20[16] = 0.0
    G: float32[16] = 0.0
    Z: int32[16] = 0
    for i in range(16):
        R8[i] = uint8(A[i])
        R64[i] = int64(A[i] * 1e6)
        RU[i] = uf12(A[i])
        RF[i] = fx20(-A[i])
        G[i] = float32(U[i]) + float32(L[i]) - float32(i) + float32(RF[i]) * float32(A[i] > 1.5)
        Z[i] = int32(G[i]) if A[i] != A[i] else (1 if A[i] else 0)
    return R8, R64, RU, RF, G, Z


def _casts_args(rng):
    a = (rng.standard_normal(16) * 100).astype(np.float32)
    a[:6] = [np.nan, -np.inf, 0.0, -0.0, 1e10, -3e9]
    u = rng.integers(0, 2 ** 32, 16, dtype=np.uint64).astype(np.uint32)
    return [a, u, rng.integers(-2 ** 62, 2 ** 62, 16, dtype=np.int64)]


def _args(name, rng):
    if name == "vector_ops":
        return [K._specials(32, rng), K._specials(32, rng)[::-1].copy()]
    if name == "gemm":
        return [rng.standard_normal((8, 8)).astype(np.float32) for _ in range(2)]
    if name == "dot":
        return [rng.standard_normal(64).astype(np.float32) for _ in range(2)]
    if name == "scaled":
        return [np.linspace(-2, 3, 8).astype(np.float32), np.float32(0.37)]
    if name == "mixed":
        f = (rng.standard_normal(16) * 40).astype(np.float32)
        f[:4] = [np.nan, np.inf, -np.inf, 3e9]
        return [rng.integers(-128, 128, 16).astype(np.int8), rng.uniform(-100, 100, 16), f]
    if name == "exact_ops":
        return list(O._operands(rng))
    return _casts_args(rng)


KERNELS = {"vector_ops": K.vector_ops, "gemm": K.gemm, "dot": K.dot, "mixed": K.mixed, "casts": casts,
           "scaled": K.scaled, "exact_ops": O.exact_ops}
FAST = ("vector_ops", "gemm", "dot", "mixed", "casts")


@pytest.mark.parametrize("name", [n if n in FAST else pytest.param(n, marks=full_only()) for n in KERNELS])
def test_float_kernel_equals_llvm_bit_for_bit(name):
    """Vector ops with every special class, a GEMM, a reduction, int / fixed / float casts, a
    float scalar argument and result, // % floor ceil: the RTL's bits are the LLVM build's."""
    s = allo.customize(KERNELS[name])
    mod, got, want = run_both(s, _args(name, np.random.default_rng(3)), scheduling="dynamic")
    K._bits_equal(got, want, name)
    assert mod.cycles > 0
    units = set(re.findall(r"^module (allo_hsf_\w+)\(", mod.verilog, re.M))
    assert units and units == set(mod.hw.float_units), (units, mod.hw.float_units)
    for u in units:  # each extern CIRCT declared is defined and instantiated
        assert f"// external module {u}" in mod.verilog and re.search(rf"^\s+{u} {u}\d* \(", mod.verilog, re.M), u


def test_gemm_multiplier_and_adder_are_unit_instances():
    mod = allo.customize(K.gemm).build(target="rtl", scheduling="dynamic")
    assert set(mod.hw.float_units) == {f"{PREFIX}mul", f"{PREFIX}add"}
    assert "function automatic logic [31:0] allo_f32_mul" in mod.verilog
    assert "f32" not in mod.mlir  # float32 values travel as i32 bits


def maths(A: float32[16], B: float32[16]) -> (float32[16], float32[16], float32[16], float32[16]):
    C: float32[16] = 0.0
    D: float32[16] = 0.0
    E: float32[16] = 0.0
    F: float32[16] = 0.0
    for i in range(16):
        C[i] = allo.exp(A[i]) + allo.log(abs(B[i]))
        D[i] = allo.tanh(A[i]) * B[i] - allo.erf(A[i])
        E[i] = allo.sin(A[i]) + allo.cos(B[i]) + allo.rsqrt(abs(A[i]))
        F[i] = A[i] ** B[i] + allo.log2(abs(A[i]))
    return C, D, E, F


@full_only("the math units take ~1 min of Verilator build; set ALLO_RTL_FULL=1")
def test_math_functions_equal_the_static_circuit_bit_for_bit():
    rng = np.random.default_rng(2)
    a, b = (rng.standard_normal(16) * 3).astype(np.float32), (rng.standard_normal(16) * 3).astype(np.float32)
    a[:3] = [np.nan, 0.0, -np.inf]
    s = allo.customize(maths)
    K._bits_equal(s.build(target="rtl", scheduling="dynamic")(a, b), s.build(target="rtl")(a, b), "maths")


def test_layer_norm_equals_llvm_and_softmax_the_static_circuit():
    """nn.layer_norm (+ - * / and sqrt: the LLVM build's bits); nn.softmax calls exp, so its
    bits are the static circuit's (full runs only: a second build)."""
    rng = np.random.default_rng(0)
    s = allo.customize(nn.layer_norm, instantiate=[float32, 4, 16])
    args = [rng.standard_normal(sh).astype(np.float32) for sh in [(4, 16), (16,), (16,)]] + [1e-5]
    _, got, want = run_both(s, args, scheduling="dynamic")
    K._bits_equal(got, want, "layer_norm")
    if FULL:
        s = allo.customize(nn.softmax, instantiate=[float32, 4, 16])
        x = rng.standard_normal((4, 16)).astype(np.float32)
        K._bits_equal(s.build(target="rtl", scheduling="dynamic")(x), s.build(target="rtl")(x), "softmax")


def _all_units() -> list:
    """Every kind (the math functions: exp, whose module units the others share) and predicate, a
    sample of conversion widths."""
    names = [PREFIX + k for k, (_, _, form) in F32_OPS.items() if form is not None or k in ("rem", "exp")]
    names += [f"{PREFIX}cmp_{p}" for p in CMPF]
    names += [f"{PREFIX}from_s8", f"{PREFIX}from_u1", f"{PREFIX}from_s64", f"{PREFIX}from_fxs16_8",
              f"{PREFIX}from_fxu64_3", f"{PREFIX}to_i8", f"{PREFIX}to_i64", f"{PREFIX}to_fx12_4"]
    return names


def test_every_unit_module_passes_verilator_lint(tmp_path):
    """The SV of every unit (each arithmetic kind, predicate and a sample of conversion widths)
    is accepted by Verilator, with the ports CIRCT's extern instances connect."""
    if shutil.which("perl") is None:
        pytest.skip("Verilator needs perl")
    names = _all_units()
    text = unit_modules(names)
    for n in names:
        ins, out = unit_signature(n)
        header = re.search(rf"^module {n}\((.*?)\);", text, re.M | re.S).group(1)
        ports = re.findall(r"(input|output)\s+logic\s*(\[\d+:0\])?\s*(\w+)", header)
        got = {p: (d, w) for d, w, p in ports}
        for k, w in enumerate(ins):
            assert got[f"in{k}"] == ("input", f"[{w - 1}:0]") and got[f"in{k}_ready"][0] == "output", (n, got)
        assert got[f"in{len(ins)}_valid"][0] == "input" and f"in{len(ins)}" not in got  # the control token
        assert got["out0"] == ("output", f"[{out - 1}:0]")
        assert {"out1_valid", "out0_ready", "out1_ready", "clock", "reset"} <= set(got)
    (tmp_path / "units.sv").write_text(text)
    # (-Wno-VARHIDDEN: the function units' locals share names with the wrapper's; WIDTH*: f32_fmod's
    # carry-save step, static/float/f32_fmod.sv, is not this wrapper's; UNOPTFLAT: a Verilator speed
    # warning on the pipelined float modules' stage vectors)
    flags = ("-Wall -Wno-DECLFILENAME -Wno-UNUSED -Wno-MULTITOP -Wno-VARHIDDEN -Wno-WIDTHEXPAND -Wno-WIDTHTRUNC "
             "-Wno-UNOPTFLAT")
    r = subprocess.run(f"{verilator_root()}/bin/verilator --lint-only {flags} units.sv", shell=True, cwd=tmp_path,
                       capture_output=True, text=True, env=verilator_env(), timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]


def local64(A: float32[4]) -> float32[4]:
    B: float32[4] = 0.0
    for i in range(4):
        t: float64 = A[i]
        B[i] = t
    return B


def widen(A: float32[4]) -> float32[4]:
    B: float32[4] = 0.0
    for i in range(4):
        B[i] = float32(float64(A[i]) * 3.0)
    return B


@pytest.mark.parametrize("kernel, line, what", [(local64, 3, "local 't' is float64"),
                                                 (widen, 3, "float64")])
def test_float64_inside_a_float32_kernel_is_an_error_naming_op_and_line(kernel, line, what):
    with pytest.raises(allo.BackendError) as e:
        allo.customize(kernel).build(target="rtl", scheduling="dynamic")
    msg = str(e.value)
    assert f"test_rtl_float_handshake.py:{kernel.__code__.co_firstlineno + line}:" in msg, msg
    assert what in msg and "floating-point unit" in msg and "float32" in msg, msg


def test_unit_wrapper_under_random_stalls_keeps_every_result_in_order(tmp_path):
    """allo_hsf_add alone in a Verilator testbench (tests/data/hs_float_stall_tb.cpp): operands
    and the control token arrive at random and are held until taken, both outputs are stalled at
    random; every one of 4000 results arrives once, in order, with the bits numpy gives, and every
    done token too."""
    tb = (Path(__file__).parent / "data" / "hs_float_stall_tb.cpp").read_text()
    (tmp_path / "tb.cpp").write_text(tb.replace("VTOP", f"V{PREFIX}add"))
    (tmp_path / "u.sv").write_text(unit_modules([f"{PREFIX}add"]))
    r = subprocess.run([str(verilator_root() / "bin" / "verilator"), "--cc", "--exe", "--build", "-j", "2",
                        "-Wno-fatal", "--top-module", f"{PREFIX}add", "u.sv", "tb.cpp", "-o", "tb", "-MAKEFLAGS",
                        "OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0"], cwd=tmp_path, capture_output=True, text=True,
                       env=verilator_env(), timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    rng = np.random.default_rng(1)
    a = rng.integers(0, 2 ** 32, 4000, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 2 ** 32, 4000, dtype=np.uint64).astype(np.uint32)
    a[:2000] = rng.standard_normal(2000).astype(np.float32).view(np.uint32)
    b[:2000] = rng.standard_normal(2000).astype(np.float32).view(np.uint32)
    np.stack([a, b], 1).astype("<u4").tofile(tmp_path / "in.bin")
    r = subprocess.run([str(tmp_path / "obj_dir" / "tb"), str(tmp_path / "in.bin")], capture_output=True, text=True,
                       timeout=120)
    got = np.array([int(x, 16) for x in r.stdout.split()], dtype=np.uint32)
    with np.errstate(all="ignore"):
        want = (a.view(np.float32) + b.view(np.float32)).view(np.uint32)
    assert f"tokens {len(a)}" in r.stderr and len(got) == len(a), r.stderr
    nan = np.isnan(want.view(np.float32))
    np.testing.assert_array_equal(got[~nan], want[~nan])
    assert np.isnan(got[nan].view(np.float32)).all()
    cycles = int(r.stderr.split("cycles ")[1])
    assert cycles < 4 * len(a)  # stalls cost cycles, but the unit is never the bottleneck of a live handshake
