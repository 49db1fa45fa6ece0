"""allo's stand-ins for the Calyx passes pip circt 1.62 lacks (allo/backend/rtl/calyx_circt/):
each rewrite does what it says on the IR, and leaving it out breaks the route (a CIRCT pass fails,
the simulation never finishes or computes the wrong value, or the Verilog is unusable).

The rewrites run in the CIRCT child process (the worker's "calyx-standins" and "calyx" forms),
never in this one.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import allo
from allo.backend.rtl.calyx.harness import CalyxInterface, build_calyx_simulator, run_calyx_simulator
from allo.backend.rtl.tools import run_circt
from tests.polybench.int_kernels import INT_BY_NAME
from allo.ir.types import int32
from tests.rtl_util import FULL, needs_rtl
from tests.test_rtl_calyx import dot

pytestmark = needs_rtl
TWICE = Path(__file__).with_name("calyx") / "twice.calyx.mlir"  # one register, written by 4 groups in a row


@pytest.fixture(scope="module")
def dot_cx():
    return allo.customize(dot).build(target="calyx")


@pytest.fixture(scope="module")
def syrk_cx():  # its inner loop bound i + 1 shares an adder: a registered condition
    return allo.customize(INT_BY_NAME["syrk"].kernel).build(target="calyx")


def standins(calyx: str, only: list) -> tuple:
    reply = run_circt({"form": "calyx-standins", "top": "x", "calyx": calyx, "only": only})
    return reply["calyx"], reply["info"]


def _group_bodies(text: str) -> dict:
    out, name, lines = {}, None, []
    for ln in text.splitlines():
        m = re.match(r"\s*calyx\.(group|comb_group) @(\w+) \{", ln)
        if m:
            name, lines = m.group(2), []
            continue
        if name and ln.strip() == "}":
            out[name] = lines
            name = None
        elif name:
            lines.append(ln.strip())
    return out


def test_comb_groups_become_continuous_or_registered(dot_cx, syrk_cx):
    text, info = standins(dot_cx.calyx, ["comb-groups"])
    assert "calyx.comb_group" not in text and "with @" not in text
    assert info["comb-groups"]["hoisted"] and not info["comb-groups"]["registered"]
    text, info = standins(syrk_cx.calyx, ["comb-groups"])
    reg = info["comb-groups"]["registered"]
    assert reg and "calyx.comb_group" not in text
    for g in reg:  # the condition register is written by a group enabled before the loop and in its body
        assert f"calyx.register @{g}_cond0_reg" in text
        assert text.count(f"calyx.enable @{g}") >= 2


def test_par_of_register_writes_is_one_group(dot_cx):
    assert "calyx.par" in dot_cx.calyx
    text, info = standins(dot_cx.calyx, ["par"])
    assert "calyx.par" not in text and info["par"]["merged"] >= 1
    body = _group_bodies(text)["par_merged_0"]
    assert sum("write_en" in ln for ln in body) == 2  # both inits
    assert re.search(r"group_done %\w+ \? %true", "\n".join(body))  # done = AND of both dones


def test_go_guard_guards_every_group_assignment(dot_cx):
    text, info = standins(dot_cx.calyx, ["go-guard"])
    groups = _group_bodies(text)
    assert info["go-guard"]["guarded_assignments"] > 0
    for name, body in groups.items():
        if name.startswith("bb0_0"):  # the comb group (not a group)
            continue
        for ln in body:
            if ln.startswith("calyx.assign"):
                assert " ? " in ln, f"{name}: {ln}"


def test_clk_reset_drive_every_cell(dot_cx):
    text, info = standins(dot_cx.calyx, ["clk-reset"])
    cells = re.findall(r"%(\w+)\.clk, %\1\.reset", text)
    assert cells and info["clk-reset"]["assignments"] == 2 * len(cells)
    for c in cells:
        assert f"calyx.assign %{c}.clk = %clk" in text and f"calyx.assign %{c}.reset = %reset" in text


def test_undriven_outputs_are_tied_to_zero(dot_cx):
    text, info = standins(dot_cx.calyx, ["tie-outputs"])
    assert set(info["tie-outputs"]["tied"]) == {"ext_mem0_write_data", "ext_mem0_write_en", "ext_mem1_write_data",
                                                "ext_mem1_write_en"}  # dot only reads its memories
    assert "calyx.assign %ext_mem0_write_en = %c0_i1" in text or "ext_mem0_write_en = %false" in text


# ---------------------------------------------------------------------------- each one is needed
def _dot_request(cx, skip):
    return {"form": "calyx", "top": "dot", "mlir": _generic(cx), "skip": skip, "mem_sizes": {0: 8, 1: 8}}


def _generic(cx):
    from allo.backend.rtl.lower import lower_for_circt
    return lower_for_circt(cx.hw, "calyx")[0]


@pytest.mark.parametrize("skip, stage", [("comb-groups", "lower-calyx-to-fsm"), ("par", "lower-calyx-to-fsm"),
                                         ("clock-fix", "lower-calyx-to-hw")])
def test_without_it_a_circt_pass_fails(dot_cx, skip, stage):
    with pytest.raises(allo.BackendError, match=f"stage '{stage}'"):
        run_circt(_dot_request(dot_cx, [skip]))


def test_without_clk_reset_the_design_never_finishes(dot_cx):
    reply = run_circt(_dot_request(dot_cx, ["clk-reset"]))
    exe = build_calyx_simulator(reply["verilog"], dot_cx.interface)
    a = np.arange(8, dtype=np.int32)
    with pytest.raises(allo.BackendError, match="did not finish"):
        run_calyx_simulator(exe, dot_cx.interface, {0: a.tobytes(), 1: a.tobytes()}, {}, 2000)
    cycles, _, res = run_calyx_simulator(dot_cx._simulator(), dot_cx.interface, {0: a.tobytes(), 1: a.tobytes()},
                                         {}, 2000)
    assert res == [int(a @ a)]


def _twice(skip):
    reply = run_circt({"form": "calyx", "top": "twice", "calyx_text": TWICE.read_text(), "skip": skip})
    iface = CalyxInterface.from_ports("twice", reply["ports"], [], [], [(0, False)])
    return run_calyx_simulator(build_calyx_simulator(reply["verilog"], iface), iface, {}, {}, 1000)[2][0]


def test_without_the_go_guard_back_to_back_writes_are_lost():
    """r = 1, then r += 1 three times in consecutive groups: 4 with the guard, not without."""
    assert _twice([]) == 4
    assert _twice(["go-guard"]) != 4


def test_without_inline_typedefs_the_verilog_includes_a_missing_file(dot_cx):
    assert "`include" not in dot_cx.verilog and "8<" not in dot_cx.verilog
    assert re.search(r"typedef\s+enum", dot_cx.verilog)
    reply = run_circt(_dot_request(dot_cx, ["inline-typedefs"]))
    assert '`include "fsm_enum_typedefs.sv"' in reply["verilog"]


def test_fsm_always_comb_starts_with_defaults(dot_cx):
    for block in re.findall(r"always_comb begin(.*?)end // always_comb", dot_cx.verilog, re.S):
        first = [ln.strip() for ln in block.splitlines() if ln.strip() and not ln.strip().startswith("//")][0]
        assert first.startswith("state_next = state_reg;"), first
    reply = run_circt(_dot_request(dot_cx, ["fsm-defaults"]))
    assert "state_next = state_reg;" not in reply["verilog"]


@pytest.mark.skipif(not FULL, reason="two Yosys runs; set ALLO_RTL_FULL=1")
def test_without_fsm_defaults_yosys_refuses_a_latch(dot_cx):
    from allo.backend.rtl.synth import synthesize
    assert dot_cx.synth(part="generic").total_cells > 0
    reply = run_circt(_dot_request(dot_cx, ["fsm-defaults"]))
    with pytest.raises(allo.BackendError, match="(?i)latch"):
        synthesize(reply["verilog"], "dot", part="generic")


# ---------------------------------------------------------------------------- optimisations (not stand-ins)
def test_independent_loads_run_as_one_group_and_save_cycles(dot_cx):
    """dot's two loads (different memories, different registers) become one group: the same
    results in fewer cycles; leaving the merge out gives the one-group-per-load program."""
    a, b = np.arange(8, dtype=np.int32), np.arange(8, dtype=np.int32)[::-1].copy()
    images = {0: a.tobytes(), 1: b.tobytes()}
    merged = run_circt(_dot_request(dot_cx, []))
    plain = run_circt(_dot_request(dot_cx, ["merge"]))
    assert merged["info"]["merge"]["merged"] >= 1 and plain["info"]["merge"] == {}
    assert "group seq_merged_0" in merged["futil"] and "seq_merged" not in plain["futil"]
    runs = [run_calyx_simulator(build_calyx_simulator(r["verilog"], dot_cx.interface), dot_cx.interface, images, {},
                                100_000) for r in (merged, plain)]
    assert runs[0][2] == runs[1][2] == [int(a @ b)]
    assert runs[0][0] < runs[1][0], (runs[0][0], runs[1][0])


def test_dependent_groups_are_not_merged():
    """A load whose address is the register the previous group writes, and a store after a load
    of the same memory, stay one group each (merging them would read stale values)."""
    def chase(A: int32[8]) -> int32[8]:
        B: int32[8] = 0
        for i in range(8):
            k: int32 = A[i]
            B[i] = A[k & 7] + k
        return B

    s = allo.customize(chase)
    cx = s.build(target="calyx")
    a = np.array([3, 1, 7, 0, 2, 6, 5, 4], dtype=np.int32)
    np.testing.assert_array_equal(cx(a.copy()), s.build()(a.copy()))
    np.testing.assert_array_equal(cx.interpret(a.copy()), s.build()(a.copy()))
