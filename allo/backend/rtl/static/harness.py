"""The Verilator testbench of statically scheduled designs: the ports of a top module as a
`StaticInterface`, its port table for allo's fixed driver (driver/allo_static_driver.cpp, compiled
once per cache), the cached build and one run. The protocol the driver speaks is `PROTOCOL`.

The Python side of the backend splits an array argument into banks (one `StaticMemory` each) and
joins them again; here a memory is just words of `bits` bits.

Example::

    iface = StaticInterface("vadd", memories=[StaticMemory("A", 0, 8, 32, [MemPort(0, reads=True, writes=False)]),
                                              StaticMemory("C", 1, 8, 32, [MemPort(0, reads=False, writes=True)])],
                            scalars=[StaticScalar("n", 0, 32)], results=[], counters=["allo_cnt_l_i"])
    exe = build_static_simulator(verilog, iface)
    cycles, mems, results, counters = run_static_simulator(exe, iface, {0: a.tobytes(), 1: bytes(32)}, {0: 5},
                                                           max_cycles=10**6)
"""
from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ....errors import BackendError
from ...toolchain import run_child
from ..harness import DRIVER_DIR
from ..sim import build_simulator, copy_build_inputs

STATIC_DRIVER_SOURCE = DRIVER_DIR / "allo_static_driver.cpp"
STATIC_DRIVER_HEADER = DRIVER_DIR / "allo_static.h"

PROTOCOL = """\
Protocol of a statically scheduled top module (Vitis-style ap_ctrl_hs control, ap_memory memories),
as allo's Verilator driver (allo_static_driver.cpp) runs it:

- Control: `clock`; `reset` (active high, synchronous; held high for 4 cycles before a run);
  `ap_start` (input); `ap_done` (output); `ap_idle` (output, optional, not used by the driver).
- Scalar parameter: an input port named like the parameter, `bits` wide, held constant during a run.
- Scalar result r (r = 0, 1, ...): output `ap_return_<r>`, read in the cycle in which `ap_done` is high.
- Memory (one bank of an array argument) with prefix P and ports j = 0..n-1: outputs `P_address<j>`
  and `P_ce<j>`; for a port that writes also `P_we<j>` and `P_d<j>` (word bits); for a port that
  reads, input `P_q<j>` (word bits). At every rising edge, per port with ce=1: if we=1 the word d is
  written at address, else q_j <= mem[address] (a 1-cycle read latency; q holds its value until the
  next read on that port, 0 before the first). All reads of an edge happen before all its writes
  (read-first); two writes of one edge to one address: the higher port j wins. Out-of-range reads
  give 0, out-of-range writes are ignored. The memories do nothing during reset.
- Counters: 1-bit outputs; per counter the driver reports the cycles it is high and its rising
  transitions (0->1; a 1 in the first cycle counts as one) between start and done.
- Run: after reset, `ap_start` = 1 from the first cycle until `ap_done` = 1 is seen (then 0). Each
  cycle the driver drives the inputs, evaluates at clock low, samples the outputs, then gives the
  rising edge. cycles = clock cycles from the first cycle with ap_start = 1 up to and including the
  cycle in which ap_done is high. A design that does not raise ap_done within MAX_CYCLES fails
  with "did not finish within MAX_CYCLES cycles" (exit code 3 of the driver).
- Data files in DATA_DIR (`./sim DATA_DIR MAX_CYCLES`): inputs m<k>.bin (memory k: raw little-endian
  words of ceil(bits/8) bytes) and s<k>.bin (scalar k: 8 bytes per started 64 bits); outputs m<k>.out
  (memories with a writing port), o<r>.bin (result r, 8 bytes per started 64 bits), cycles.txt and
  counters.txt (a line `name high_cycles entries` per counter).
"""

# Verilator keeps these names as C++ members unchanged (it escapes "__" and leading "_").
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*\Z")
CONTROL_PORTS = ("clock", "reset", "ap_start", "ap_done")


def _check_name(name, what: str):
    if not isinstance(name, str) or not _NAME.match(name):
        raise BackendError(f"{what} {name!r} is not a usable port name (letters, digits and single underscores, "
                           "starting with a letter)")


def _check_count(value, what: str, least: int):
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise BackendError(f"{what} must be an integer >= {least}, got {value!r}")


def _result_bytes(bits: int) -> int:
    return max(8, (bits + 63) // 64 * 8)


@dataclass(frozen=True)
class MemPort:
    """Port `j` of a memory; `reads`/`writes` say which of q / (we, d) it has.

    Example::

        MemPort(0, reads=True, writes=True)   # ports A_address0, A_ce0, A_we0, A_d0, A_q0
    """
    j: int
    reads: bool
    writes: bool

    def __post_init__(self):
        _check_count(self.j, "memory port number", 0)
        if not (self.reads or self.writes):
            raise BackendError(f"memory port {self.j} neither reads nor writes")


@dataclass(frozen=True)
class StaticMemory:
    """One bank: `words` words of `bits` bits behind ap_memory ports `<name>_address<j>` ...;
    data file m<index>.bin.

    Example::

        StaticMemory("A_b0", 0, words=16, bits=32, ports=[MemPort(0, True, False), MemPort(1, False, True)])
    """
    name: str
    index: int
    words: int
    bits: int
    ports: list = field(default_factory=list)

    def __post_init__(self):
        _check_name(self.name, "memory prefix")
        _check_count(self.index, f"memory {self.name!r}: index", 0)
        _check_count(self.words, f"memory {self.name!r}: words", 1)
        _check_count(self.bits, f"memory {self.name!r}: bits", 1)
        if not self.ports:
            raise BackendError(f"memory {self.name!r} has no ports")
        if sorted(p.j for p in self.ports) != list(range(len(self.ports))):
            raise BackendError(f"memory {self.name!r}: ports must be numbered 0..{len(self.ports) - 1}, got "
                               f"{[p.j for p in self.ports]}")

    @property
    def addr_bits(self) -> int:
        return max(1, (self.words - 1).bit_length())

    @property
    def word_bytes(self) -> int:
        return (self.bits + 7) // 8

    @property
    def writes(self) -> bool:
        return any(p.writes for p in self.ports)

    def port_names(self, port: MemPort) -> list:
        p, j = self.name, port.j
        names = [f"{p}_address{j}", f"{p}_ce{j}"]
        if port.writes:
            names += [f"{p}_we{j}", f"{p}_d{j}"]
        if port.reads:
            names.append(f"{p}_q{j}")
        return names


@dataclass(frozen=True)
class StaticScalar:
    """A scalar parameter: input port `name`, `bits` wide, data file s<index>.bin.

    Example::

        StaticScalar("n", 0, 32)
    """
    name: str
    index: int
    bits: int

    def __post_init__(self):
        _check_name(self.name, "scalar port")
        _check_count(self.index, f"scalar {self.name!r}: index", 0)
        _check_count(self.bits, f"scalar {self.name!r}: bits", 1)


@dataclass(frozen=True)
class StaticResult:
    """A scalar result: output port `ap_return_<index>`; `name` only names it in the README.

    Example::

        StaticResult("total", 0, 48, signed=True)
    """
    name: str
    index: int
    bits: int
    signed: bool

    def __post_init__(self):
        _check_count(self.index, f"result {self.name!r}: index", 0)
        _check_count(self.bits, f"result {self.name!r}: bits", 1)

    @property
    def port(self) -> str:
        return f"ap_return_{self.index}"


@dataclass
class StaticInterface:
    """The ports of the top module `top` (see PROTOCOL); checked when made.

    Example::

        iface = StaticInterface("dot", [StaticMemory("A", 0, 8, 32, [MemPort(0, True, False)])],
                                [StaticScalar("n", 0, 32)], [StaticResult("s", 0, 32, True)], ["allo_cnt_l_i"])
        print(iface.readme())
    """
    top: str
    memories: list = field(default_factory=list)
    scalars: list = field(default_factory=list)
    results: list = field(default_factory=list)
    counters: list = field(default_factory=list)

    def __post_init__(self):
        _check_name(self.top, "top module")
        for what, items in (("memory", self.memories), ("scalar", self.scalars), ("result", self.results)):
            idx = [x.index for x in items]
            if len(set(idx)) != len(idx):
                raise BackendError(f"{self.top}: two {what} entries share an index ({sorted(idx)})")
        for c in self.counters:
            _check_name(c, "counter")
        seen = set()
        for name in self.port_names():
            if name in seen:
                raise BackendError(f"{self.top}: the port name {name!r} is used twice")
            seen.add(name)

    def port_names(self, with_control: bool = True) -> list:
        """Every port the driver uses (ap_idle is optional and not listed)."""
        names = list(CONTROL_PORTS) if with_control else []
        for m in self.memories:
            for p in m.ports:
                names += m.port_names(p)
        names += [s.name for s in self.scalars] + [r.port for r in self.results] + list(self.counters)
        return names

    def check_verilog(self, verilog: str):
        """BackendError naming the ports of this interface that `verilog` does not mention."""
        missing = [n for n in self.port_names() if not re.search(rf"\b{n}\b", verilog)]
        if missing:
            raise BackendError(f"the design {self.top!r} lacks the ports {missing} that its interface expects")

    def readme(self) -> str:
        """A markdown description of the ports and the protocol (README.md of `mod.write(dir)`)."""
        rows = [("clock", "in", 1, "clock (rising edge)"), ("reset", "in", 1, "synchronous reset, active high"),
                ("ap_start", "in", 1, "start: held high until ap_done"),
                ("ap_done", "out", 1, "high in the last cycle of a run"),
                ("ap_idle", "out", 1, "idle (optional)")]
        for s in self.scalars:
            rows.append((s.name, "in", s.bits, f"scalar parameter (s{s.index}.bin), constant during a run"))
        for r in self.results:
            rows.append((r.port, "out", r.bits, f"result `{r.name}` ({'signed' if r.signed else 'unsigned'}), "
                                               f"valid while ap_done is high"))
        for m in self.memories:
            for p in m.ports:
                pre, j = m.name, p.j
                what = f"memory `{pre}` (m{m.index}.bin, {m.words} x {m.bits}-bit words) port {j}"
                rows.append((f"{pre}_address{j}", "out", m.addr_bits, f"{what}: word address"))
                rows.append((f"{pre}_ce{j}", "out", 1, f"{what}: enable"))
                if p.writes:
                    rows.append((f"{pre}_we{j}", "out", 1, f"{what}: write (with ce)"))
                    rows.append((f"{pre}_d{j}", "out", m.bits, f"{what}: write data"))
                if p.reads:
                    rows.append((f"{pre}_q{j}", "in", m.bits, f"{what}: read data, 1 cycle after ce"))
        for c in self.counters:
            rows.append((c, "out", 1, "counter: cycles high and entries reported in counters.txt"))
        table = "\n".join(f"| `{n}` | {d} | {b} | {w} |" for n, d, b, w in rows)
        return (f"# Ports of `{self.top}` (statically scheduled: ap_ctrl_hs + ap_memory)\n\n"
                f"| port | direction | bits | meaning |\n|---|---|---|---|\n{table}\n\n## Protocol\n\n{PROTOCOL}")


_GLUE_HEAD = """// Generated by allo: the ports of `{top}` for allo's static Verilator driver (allo_static_driver.cpp).
#include "V{top}.h"
#include "allo_static.h"

template <typename T>
static AlloSig sig(T& member, int width) {{
  return AlloSig{{reinterpret_cast<unsigned char*>(&member), (int)sizeof(T), width}};
}}
template <typename T>
static AlloSig whole(T& member) {{ return sig(member, 8 * (int)sizeof(T)); }}
static const AlloSig NONE = {{nullptr, 0, 0}};
static void eval_top(void* top) {{ static_cast<V{top}*>(top)->eval(); }}
static void final_top(void* top) {{ static_cast<V{top}*>(top)->final(); }}

AlloStaticDesign* allo_make_static_design(VerilatedContext* ctx) {{
  V{top}* top = new V{top}{{ctx}};
  AlloStaticDesign* d = new AlloStaticDesign;
  d->top = top;
  d->eval = eval_top;
  d->final = final_top;
  d->clock = sig(top->clock, 1);
  d->reset = sig(top->reset, 1);
  d->ap_start = sig(top->ap_start, 1);
  d->ap_done = sig(top->ap_done, 1);
"""


def static_glue_cpp(iface: StaticInterface) -> str:
    """C++ source of `allo_make_static_design()` for `iface`: pointers to every port of the top.

    Example::

        cpp = static_glue_cpp(iface)   # compiled with the Verilated model of iface.top
    """
    lines = [_GLUE_HEAD.format(top=iface.top)]
    for m in iface.memories:
        lines.append(f"  {{\n    AlloStaticMemory m;\n    m.index = {m.index};\n    m.words = {m.words};\n"
                     f"    m.bits = {m.bits};\n")
        for p in sorted(m.ports, key=lambda p: p.j):
            pre, j = m.name, p.j
            we = f"sig(top->{pre}_we{j}, 1)" if p.writes else "NONE"
            dd = f"sig(top->{pre}_d{j}, {m.bits})" if p.writes else "NONE"
            q = f"sig(top->{pre}_q{j}, {m.bits})" if p.reads else "NONE"
            lines.append(f"    m.ports.push_back(AlloMemPort{{{j}, whole(top->{pre}_address{j}), "
                         f"sig(top->{pre}_ce{j}, 1), {we}, {dd}, {q}}});\n")
        lines.append("    d->memories.push_back(m);\n  }\n")
    for s in iface.scalars:
        lines.append(f"  d->scalars.push_back(AlloStaticScalar{{{s.index}, {s.bits}, sig(top->{s.name}, {s.bits})}});\n")
    for r in iface.results:
        lines.append(f"  d->results.push_back(AlloStaticResult{{{r.index}, {r.bits}, sig(top->{r.port}, {r.bits})}});\n")
    for c in iface.counters:
        lines.append(f'  d->counters.push_back(AlloCounter{{"{c}", sig(top->{c}, 1)}});\n')
    lines.append("  return d;\n}\n")
    return "".join(lines)


def build_static_simulator(verilog: str, iface: StaticInterface) -> Path:
    """The Verilator simulation executable of `verilog` (top `iface.top`) with allo's static driver,
    built once per content hash under the cache's build lock (see allo.backend.rtl.sim).

    Example::

        exe = build_static_simulator(verilog, iface)
    """
    iface.check_verilog(verilog)
    return build_simulator(verilog, static_glue_cpp(iface), iface.top, STATIC_DRIVER_SOURCE, STATIC_DRIVER_HEADER)


def copy_static_build_inputs(verilog: str, iface: StaticInterface, dest: Path):
    """Write `<top>.sv`, glue.cpp, the static driver, build.sh and README.md (`iface.readme()`) into
    `dest` (a folder that exists); `sh dest/build.sh` then builds `dest/sim`.

    Example::

        copy_static_build_inputs(verilog, iface, Path("prj"))
    """
    copy_build_inputs(verilog, static_glue_cpp(iface), iface.top, dest, STATIC_DRIVER_SOURCE, STATIC_DRIVER_HEADER)
    (dest / "README.md").write_text(iface.readme())


def _write_inputs(tmp: Path, iface: StaticInterface, images: dict, scalars: dict):
    for m in iface.memories:
        if m.index not in images:
            raise BackendError(f"no memory image for memory {m.index} ({m.name!r}) of {iface.top!r}")
        data = bytes(images[m.index])
        if len(data) != m.words * m.word_bytes:
            raise BackendError(f"memory {m.name!r} of {iface.top!r}: the image has {len(data)} bytes, the design "
                               f"expects {m.words} words x {m.word_bytes} bytes = {m.words * m.word_bytes}")
        (tmp / f"m{m.index}.bin").write_bytes(data)
    for s in iface.scalars:
        if s.index not in scalars:
            raise BackendError(f"no value for scalar {s.index} ({s.name!r}) of {iface.top!r}")
        nbytes = _result_bytes(s.bits)
        v = int(scalars[s.index]) & ((1 << (8 * nbytes)) - 1)
        (tmp / f"s{s.index}.bin").write_bytes(v.to_bytes(nbytes, "little"))


def _read_counters(path: Path) -> dict:
    counters = {}
    for line in path.read_text().splitlines():
        name, high, entries = line.split()
        counters[name] = (int(high), int(entries))
    return counters


def run_static_simulator(exe: Path, iface: StaticInterface, images: dict, scalars: dict, max_cycles: int):
    """Run once. `images`: {memory index: bytes}, `scalars`: {scalar index: int}. Returns (cycles,
    {memory index: bytes after the run, for memories with a writing port}, [result ints,
    sign-extended when signed], {counter: (high_cycles, entries)}). A run without ap_done within
    `max_cycles` cycles raises a BackendError that says so.

    Example::

        cycles, mems, results, counters = run_static_simulator(exe, iface, {0: bytes(32)}, {0: 3}, 10**6)
    """
    _check_count(max_cycles, "max_cycles", 1)
    with tempfile.TemporaryDirectory(prefix="allo_rtl_static_run_") as work:
        tmp = Path(work)
        _write_inputs(tmp, iface, images, scalars)
        r = run_child([exe, tmp, int(max_cycles)], timeout=3600, what=f"Verilator simulation of {iface.top!r}")
        if r.returncode == 3:
            raise BackendError(f"the Verilator simulation of {iface.top!r} did not finish within {max_cycles} "
                               "cycles (ap_done never rose); raise max_cycles if the design needs longer")
        if r.returncode != 0:
            how = f"signal {-r.returncode}" if r.returncode < 0 else f"exit code {r.returncode}"
            raise BackendError(f"the Verilator simulation of {iface.top!r} failed ({how}): "
                               f"{(r.stderr or r.stdout).strip()[-2000:]}")
        cycles = int((tmp / "cycles.txt").read_text())
        mems = {m.index: (tmp / f"m{m.index}.out").read_bytes() for m in iface.memories if m.writes}
        results = []
        for res in iface.results:
            raw = int.from_bytes((tmp / f"o{res.index}.bin").read_bytes(), "little") & ((1 << res.bits) - 1)
            if res.signed and raw >> (res.bits - 1):
                raw -= 1 << res.bits
            results.append(raw)
        counters = _read_counters(tmp / "counters.txt")
    return cycles, mems, results, counters


__all__ = ["PROTOCOL", "MemPort", "StaticMemory", "StaticScalar", "StaticResult", "StaticInterface",
           "static_glue_cpp", "build_static_simulator", "run_static_simulator", "copy_static_build_inputs",
           "STATIC_DRIVER_SOURCE", "STATIC_DRIVER_HEADER"]
