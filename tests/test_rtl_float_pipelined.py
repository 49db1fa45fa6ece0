"""The pipelined float32 units (allo_f32_{add,mul,div,sqrt}_p #(LAT), allo/backend/rtl/static/float)
alone, through Verilator at II = 1: a new operand pair every enabled cycle, the clock enable low
one cycle in eight (a stall: every register holds), each result checked `LAT` cycles later
against the CPU (numpy float32), and the early value (the D input of the last register) one cycle
before. LATs: 0 (combinational), fewer registers than stages (merged), as many, more (padded at
the output). ALLO_RTL_FULL=1 runs every latency of checks.PIPE_LATS on more vectors.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

import allo
from allo.backend.rtl.static.exprs import ExprEmitter
from allo.backend.rtl.static.float import PIPELINED, FloatUnits, bench, checks, module_source
from allo.errors import AlloError
from allo.ir.types import float32
from tests.rtl_util import FULL, needs_rtl

N = 200_000 if FULL else 6_000
LATS = checks.PIPE_LATS if FULL else {"add": (0, 2, 7), "mul": (1, 4), "div": (16,), "sqrt": (9,)}
CASES = checks.unit_cases()


@pytest.fixture(scope="module")
def clocked():
    outs, text, mods, meta = checks.pipelined_outputs(CASES, ExprEmitter(), LATS)
    exe = bench.build_bench(outs, text, modules=mods, clocked=True, opt="-O1")
    a, b, x = checks.operands(N, seed=11)
    got, issued = bench.run_clocked(exe, list(outs), a, b, x, extra=64)
    return got, issued, meta, (a, b, x)


@needs_rtl
def test_pipelined_units_equal_cpu_at_ii_1_with_stalls(clocked):
    got, issued, meta, (a, b, x) = clocked
    assert (np.diff(issued) == 0).sum() > len(issued) // 20, "the bench should stall (en = 0) now and then"
    bad = checks.check_clocked(got, issued, meta, CASES, a, b, x)
    assert bad and all(v == 0 for v in bad.values()), {k: v for k, v in bad.items() if v}


@needs_rtl
def test_misaligned_results_are_caught(clocked):
    """The check itself: reading a unit's output one cycle off gives mismatches."""
    got, issued, meta, (a, b, x) = clocked
    off = {k: (name, lat + 1, e) for k, (name, lat, e) in meta.items()}
    bad = checks.check_clocked(got, issued, off, CASES, a, b, x)
    assert all(v > 0 for v in bad.values()), bad


def _cum(j, lat, n):
    """Registers at the first j stage ends of a unit of n stages at LAT = lat (the SV rule)."""
    m = min(lat, n)
    if j == n:
        return lat
    return 0 if m == 0 else min((2 * j * m + n) // (2 * n), m - 1)


@pytest.mark.parametrize("unit", sorted(PIPELINED))
def test_registers_are_spread_over_the_stages_and_padded_at_the_output(unit):
    """The #(LAT) rule of allo_f32_*_p: LAT < N merges stages (registers spread by rounding),
    LAT > N adds the rest after the last stage; every LAT >= 1 has a register at the output (the
    early value is the D input of that register); the SV computes the rule as written here."""
    text = module_source(unit).split(f"module {PIPELINED[unit]}")[1]
    n = int(re.search(r"localparam int N = (\d+)", text).group(1))
    for lat in range(0, n + 4):
        regs = [_cum(k + 1, lat, n) - _cum(k, lat, n) for k in range(n)]
        assert sum(regs) == lat and min(regs) >= 0, (lat, regs)
        assert lat == 0 or regs[-1] >= 1
        assert max(regs[:-1], default=0) <= 1
        if 2 <= lat <= n:
            assert regs[0] == 1 or n > 2 * lat, (lat, regs)  # the first stage is not merged when LAT > N / 2
    assert "localparam int C0 = M == 0 ? 0 : ((2 * k * M + N) / (2 * N) < M - 1 ? (2 * k * M + N) / (2 * N) : M - 1);" in text
    assert "allo_f32_dly #(.W(W), .N(C1 - C0))" in text


def test_instance_names_avoid_the_calling_modules_names():
    lib = FloatUnits(taken={"allo_fu0", "allo_fu1_e"})
    y = lib.instance("f32_add", ["a", "b", "1'b0"], lat=3, en="go")
    z = lib.instance("f32_mul", ["a", "b"])
    assert y == "allo_fu2" and z == "allo_fu3"
    assert lib.early == {"allo_fu2": "allo_fu2_e"}
    assert f"{PIPELINED['f32_add']} #(.LAT(3)) allo_fu2_i(clock, go, a, b, 1'b0, allo_fu2, allo_fu2_e);" in lib.instances()
    with pytest.raises(KeyError, match="no pipelined module"):
        lib.instance("f32_exp", ["a"], lat=2)


def allo_fu0(A: float32[4], allo_fu1_e: float32) -> float32[4]:
    allo_fu0_i: float32[4] = 0.0
    for i in range(4):
        allo_fu0_i[i] = A[i] * allo_fu1_e + A[i]
    return allo_fu0_i


@needs_rtl
def test_kernel_names_like_unit_instances_still_build():
    A = np.linspace(-3, 3, 4).astype(np.float32)
    s = allo.customize(allo_fu0)
    mod = s.build(target="rtl")
    got, want = mod(A, np.float32(1.5)), s.build()(A, np.float32(1.5))
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    assert re.search(r"allo_f32_mul_p #\(\.LAT\(\d+\)\) allo_fu\d+_i\(", mod.verilog)


def allo_f32_add_m(A: float32[4]) -> float32[4]:
    B: float32[4] = 0.0
    for i in range(4):
        B[i] = A[i] + 1.0
    return B


def test_kernel_named_like_a_unit_module_is_an_error():
    line = allo_f32_add_m.__code__.co_firstlineno
    with pytest.raises(AlloError, match=rf"test_rtl_float_pipelined.py:{line}: .*'allo_f32_add_m' is the name of one "
                                        r"of allo's float unit modules.*rename"):
        allo.customize(allo_f32_add_m).build(target="rtl")


def fproduce(A: float32[64], T: float32[64]):
    for i in range(64):
        T[i] = A[i] / 3.0 + 1.0


def fconsume(T: float32[64], B: float32[64], C: float32[64]):
    acc: float32 = 0.0
    for i in range(64):
        acc = acc * 0.5 + T[i] * B[i]
        C[i] = acc


def fpipe(A: float32[64], B: float32[64]) -> float32[64]:
    T: float32[64]
    C: float32[64]
    fproduce(A, T)
    fconsume(T, B, C)
    return C


@needs_rtl
def test_pipelined_units_hold_while_their_unit_stalls_on_a_fifo():
    """The producer's divides and adds are in flight when its FIFO (depth 2) is full (the consumer's
    recurrence is slower): the units' registers hold on the stall enable, so nothing is lost."""
    rng = np.random.default_rng(3)
    A, B = rng.standard_normal(64).astype(np.float32), rng.standard_normal(64).astype(np.float32)
    s = allo.customize(fpipe)
    s.to(s.T, "fconsume", depth=2)
    mod = s.build(target="rtl")
    got, want = mod(A.copy(), B.copy()), allo.customize(fpipe).build()(A.copy(), B.copy())
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    assert "allo_f32_div_p #(.LAT(" in mod.verilog and re.search(r"stream T, depth 2", mod.verilog)
    full = re.search(r"assign (u\d+)_en = [^;]*T_full", mod.verilog)
    assert full, "the producer should stall on the full FIFO"
    assert re.search(rf"allo_f32_div_p #\(\.LAT\(\d+\)\) allo_fu\d+_i\(clock, {full.group(1)}_en, ", mod.verilog)
