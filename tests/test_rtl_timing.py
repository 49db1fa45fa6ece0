"""The timing proxy's path search (allo/backend/rtl/timing.py) on small hand-made Yosys JSON
netlists: no tools needed. Expected delays are sums of the model's own constants along the path
the test builds, so they follow the constants if those are retuned."""
from __future__ import annotations

import pytest

from allo.backend.rtl import timing as T

FF_PORTS = {"C": "input", "CE": "input", "R": "input", "D": "input", "Q": "output"}


def _ff(d, q):
    return {"type": "FDRE", "port_directions": FF_PORTS, "connections": {"C": [2], "CE": ["1"], "R": ["0"], "D": [d], "Q": [q]}}


def _lut2(i0, i1, o):
    return {"type": "LUT2", "port_directions": {"I0": "input", "I1": "input", "O": "output"},
            "connections": {"I0": [i0], "I1": [i1], "O": [o]}}


def _carry4(ci, s0, co3):
    co = [co3 - 3, co3 - 2, co3 - 1, co3]
    return {"type": "CARRY4", "port_directions": {"CI": "input", "CYINIT": "input", "S": "input", "DI": "input",
                                                  "O": "output", "CO": "output"},
            "connections": {"CI": [ci], "CYINIT": ["0"], "S": [s0, "0", "0", "0"], "DI": ["0"] * 4,
                            "O": [co3 + 1, co3 + 2, co3 + 3, co3 + 4], "CO": co}}


def _dsp(a, p, **regs):
    params = {k: format(regs.get(k, 0), "032b") for k in ("AREG", "BREG", "CREG", "MREG", "PREG")}
    params["USE_MULT"] = "MULTIPLY"
    return {"type": "DSP48E1", "parameters": params,
            "port_directions": {"CLK": "input", "A": "input", "B": "input", "P": "output"},
            "connections": {"CLK": [2], "A": [a], "B": ["0"], "P": [p]}}


def _net(cells, inputs=(("clk", 2), ("a", 3)), outputs=(), names=None):
    ports = {n: {"direction": "input", "bits": [b]} for n, b in inputs}
    ports.update({n: {"direction": "output", "bits": [b]} for n, b in outputs})
    netnames = {n: {"hide_name": 0, "bits": [b]} for n, b in [*inputs, *outputs, *(names or {}).items()]}
    return {"modules": {"t": {"ports": ports, "cells": cells, "netnames": netnames}}}


def test_register_to_register_through_one_lut():
    """r0 -> LUT2 (pin I0) -> r1: clock-to-Q, two routed nets, the pin's delay, the D setup."""
    cells = {"r0": _ff(3, 4), "l": _lut2(4, 3, 5), "r1": _ff(5, 6)}
    path = T.longest_path(_net(cells, names={"r0_q": 4, "r1_q": 6}), "t", "xc7")
    want = T.FF_CLK_TO_Q + 2 * T.NET_NS + T.LUT6_PIN[0 + 6 - 2] + T.FF_SETUP["D"]
    assert path.delay_ns == pytest.approx(want, abs=1e-3)
    assert (path.levels, path.cells, path.start, path.end) == (1, {"LUT": 1}, "r0_q", "r1_q")


def _and(a, b, y):
    return {"type": "$_AND_", "port_directions": {"A": "input", "B": "input", "Y": "output"},
            "connections": {"A": [a], "B": [b], "Y": [y]}}


def _dff(d, q):
    return {"type": "$_DFF_P_", "port_directions": {"C": "input", "D": "input", "Q": "output"},
            "connections": {"C": [2], "D": [d], "Q": [q]}}


def _chain(part, k, cut=None):
    """k gates in a row (each also reading input a), a register after gate `cut`, one at the end."""
    gate, ff = (_lut2, _ff) if part == "xc7" else (_and, _dff)
    cells, bit = {}, 3
    for i in range(k):
        cells[f"g{i}"] = gate(bit, 3, bit + 1)
        bit += 1
        if i == cut:
            cells["mid"] = ff(bit, bit + 1)
            bit += 1
    cells["out"] = ff(bit, bit + 1)
    return _net(cells)


@pytest.mark.parametrize("part", ["xc7", "generic"])
def test_flip_flops_cut_paths(part):
    """A chain of 6 gates split by a register after the 4th is as deep as its longer half."""
    whole, halves = T.longest_path(_chain(part, 6), "t", part), T.longest_path(_chain(part, 6, cut=3), "t", part)
    assert (whole.levels, halves.levels) == (6, 4)
    if part == "generic":
        assert whole.delay_ns is None and whole.cells == {"AND": 6}
    else:
        assert whole.delay_ns > halves.delay_ns


def test_carry_chain_has_no_routing_between_carry4s():
    """r0 -> LUT -> CARRY4 -> CARRY4 -> r1: CI and S are dedicated wires, only the LUT input and
    the final net are routed."""
    cells = {"r0": _ff(3, 4), "l": _lut2(4, 3, 5), "c0": _carry4("0", 5, 13), "c1": _carry4(13, "0", 23),
             "r1": _ff(23, 30)}
    path = T.longest_path(_net(cells), "t", "xc7")
    want = (T.FF_CLK_TO_Q + T.NET_NS + T.LUT6_PIN[4] + T.CARRY_ENTRY + T.CARRY_CI_CO[3] + T.NET_NS
            + T.FF_SETUP["D"])
    assert path.delay_ns == pytest.approx(want, abs=1e-3)
    assert path.cells == {"LUT": 1, "CARRY4": 2}


def test_dsp_registers_decide_whether_it_is_a_level_or_an_end_point():
    comb = T.longest_path(_net({"r0": _ff(3, 4), "m": _dsp(4, 5), "r1": _ff(5, 6)}), "t", "xc7")
    assert comb.cells == {"DSP48E1": 1}
    assert comb.delay_ns == pytest.approx(T.FF_CLK_TO_Q + 2 * T.NET_NS + T.DSP_COMB["A"][0], abs=1e-3)
    piped = T.longest_path(_net({"r0": _ff(3, 4), "m": _dsp(4, 5, PREG=1), "r1": _ff(5, 6)}), "t", "xc7")
    assert piped.levels == 0  # the DSP's P register ends the path into it and starts the next
    assert piped.delay_ns < comb.delay_ns


def test_dsp_cascade_wires_carry_no_routing():
    """r0 -> A of m1 -> ACOUT -> ACIN of m2 -> PCOUT -> PCIN of m3 -> P -> r1 (a wide multiply as
    Yosys splits it): routed only into m1 and out of m3."""
    def dsp(conns):
        dirs = {p: "output" if p in ("P", "PCOUT", "ACOUT") else "input" for p in conns}
        params = {k: format(0, "032b") for k in ("AREG", "BREG", "CREG", "MREG", "PREG")}
        return {"type": "DSP48E1", "parameters": {**params, "USE_MULT": "MULTIPLY"}, "port_directions": dirs,
                "connections": {p: [b] for p, b in conns.items()}}

    cells = {"r0": _ff(3, 4), "m1": dsp({"A": 4, "ACOUT": 5}), "m2": dsp({"ACIN": 5, "PCOUT": 6}),
             "m3": dsp({"PCIN": 6, "P": 7}), "r1": _ff(7, 8)}
    path = T.longest_path(_net(cells), "t", "xc7")
    want = T.FF_CLK_TO_Q + 2 * T.NET_NS + T.DSP_COMB["A"][1] + T.DSP_COMB["PCIN"][0]
    assert path.delay_ns == pytest.approx(want, abs=1e-3) and path.cells == {"DSP48E1": 3}


def test_a_combinational_loop_has_no_longest_path():
    cells = {"r0": _ff(3, 4), "l0": _lut2(4, 6, 5), "l1": _lut2(5, 3, 6)}
    assert T.longest_path(_net(cells), "t", "xc7") is None


def test_ports_are_register_boundaries():
    """a -> LUT -> y: the input counts as launched by a register outside, the output as captured by one."""
    path = T.longest_path(_net({"l": _lut2(3, 3, 7)}, outputs=(("y", 7),)), "t", "xc7")
    assert (path.start, path.end, path.levels) == ("a", "y", 1)
    assert path.delay_ns == pytest.approx(T.FF_CLK_TO_Q + 2 * T.NET_NS + T.LUT6_PIN[4], abs=1e-3)
