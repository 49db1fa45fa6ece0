"""The Verilator testbench of a Calyx-route design: its ports as a `CalyxInterface` (read from the
hw.module CIRCT made of the component), a port table for allo's fixed driver
(driver/allo_calyx_driver.cpp, compiled once per cache), the cached build and one run.

Example::

    iface = CalyxInterface.from_ports("vadd", ports, memories=[(0, 8, 32), (1, 8, 32), (2, 8, 32)],
                                      scalars=[], results=[])
    exe = build_calyx_simulator(verilog, iface)
    cycles, mems, results = run_calyx_simulator(exe, iface, {0: a_bytes, 1: b_bytes, 2: bytes(32)}, {}, 10**6)
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ....errors import BackendError
from ...toolchain import run_child
from ..harness import DRIVER_DIR
from ..sim import build_simulator, copy_build_inputs

CALYX_DRIVER_SOURCE = DRIVER_DIR / "allo_calyx_driver.cpp"
CALYX_DRIVER_HEADER = DRIVER_DIR / "allo_calyx.h"

PROTOCOL = """\
Protocol of a Calyx-route top module (Calyx's go/done interface, std_mem memories), as allo's
Verilator driver (allo_calyx_driver.cpp) runs it:

- Control: `clk`; `reset` (active high, held high for 4 cycles before a run); `go` (input, held
  high until done); `done` (output).
- Scalar parameter k: input `in<k>` (k = the kernel argument's position), held constant.
- Scalar result r: output `out<r>`, read in the cycle in which `done` is high.
- Memory k (`ext_mem<k>`, the k-th array argument of the hardware top): outputs `ext_mem<k>_addr0`,
  `_write_data`, `_write_en`; inputs `_read_data`, `_done`. Reads are combinational (read_data =
  mem[addr0] in the same cycle, 0 out of range); a write happens at the rising edge when write_en
  is high; done is write_en delayed by one cycle.
- cycles = clock cycles from the first cycle with go = 1 up to and including the one with done = 1.
- Data files in DATA_DIR (`./sim DATA_DIR MAX_CYCLES`): m<k>.bin (memory k: little-endian words of
  ceil(bits/8) bytes), s<k>.bin (scalar k, 8 bytes per started 64 bits); outputs m<k>.out, o<r>.bin,
  cycles.txt. No done within MAX_CYCLES: exit code 3.
"""


def _result_bytes(bits: int) -> int:
    return max(8, (bits + 63) // 64 * 8)


@dataclass(frozen=True)
class CalyxMemory:
    """External memory `ext_mem<index>`: `words` words of `bits` bits; `present` = the ports exist."""
    index: int
    words: int
    bits: int
    addr_bits: int

    @property
    def prefix(self) -> str:
        return f"ext_mem{self.index}"

    @property
    def word_bytes(self) -> int:
        return (self.bits + 7) // 8


@dataclass(frozen=True)
class CalyxScalar:
    """Scalar parameter at hardware-top position `index`: port `in<index>`."""
    index: int
    bits: int


@dataclass(frozen=True)
class CalyxResult:
    """Scalar result `index`: port `out<index>`."""
    index: int
    bits: int
    signed: bool


@dataclass
class CalyxInterface:
    """The ports of top `top` (see PROTOCOL).

    Example::

        iface = CalyxInterface.from_ports("dot", ports, [(0, 8, 32), (1, 8, 32)], [], [(0, True)])
        print(iface.readme())
    """
    top: str
    memories: list = field(default_factory=list)
    scalars: list = field(default_factory=list)
    results: list = field(default_factory=list)
    ports: dict = field(default_factory=dict)  # port name -> (direction, bits)

    @classmethod
    def from_ports(cls, top: str, ports: list, memories: list, scalars: list, results: list) -> "CalyxInterface":
        """`ports`: [[name, "in"|"out", bits]] of the hw top; `memories`: [(index, words, bits)];
        `scalars`: [param position]; `results`: [(index, signed)]. A port the design lacks (an
        unused argument) is simply not driven; a missing control port is a BackendError."""
        table = {n: (d, b) for n, d, b in ports}
        for p in ("clk", "reset", "go", "done"):
            if p not in table:
                raise BackendError(f"the Calyx design {top!r} has no {p!r} port (ports: {sorted(table)})")
        mems = []
        for k, words, bits in memories:
            addr = table.get(f"ext_mem{k}_addr0", ("out", max(1, (words - 1).bit_length())))[1]
            mems.append(CalyxMemory(k, words, bits, addr))
        sc = [CalyxScalar(pos, table[f"in{pos}"][1]) for pos in scalars if f"in{pos}" in table]
        res = []
        for r, signed in results:
            if f"out{r}" not in table:
                raise BackendError(f"the Calyx design {top!r} has no port out{r} for result {r}")
            res.append(CalyxResult(r, table[f"out{r}"][1], signed))
        return cls(top, mems, sc, res, table)

    def present(self, name: str) -> bool:
        return name in self.ports

    def readme(self) -> str:
        rows = [("clk", "in", 1, "clock"), ("reset", "in", 1, "reset, active high"),
                ("go", "in", 1, "start: held high until done"), ("done", "out", 1, "high when the run ends")]
        for s in self.scalars:
            rows.append((f"in{s.index}", "in", s.bits, f"scalar parameter (s{s.index}.bin)"))
        for r in self.results:
            rows.append((f"out{r.index}", "out", r.bits, f"result {r.index} ({'signed' if r.signed else 'unsigned'})"))
        for m in self.memories:
            what = f"memory m{m.index}.bin ({m.words} x {m.bits}-bit words)"
            for suffix, d, b, meaning in (("addr0", "out", m.addr_bits, "word address"),
                                          ("write_data", "out", m.bits, "write data"),
                                          ("write_en", "out", 1, "write at the rising edge"),
                                          ("read_data", "in", m.bits, "mem[addr0], combinational"),
                                          ("done", "in", 1, "write_en one cycle later")):
                if self.present(f"{m.prefix}_{suffix}"):
                    rows.append((f"{m.prefix}_{suffix}", d, b, f"{what}: {meaning}"))
        table = "\n".join(f"| `{n}` | {d} | {b} | {w} |" for n, d, b, w in rows)
        return (f"# Ports of `{self.top}` (Calyx route: go/done + std_mem)\n\n"
                f"| port | direction | bits | meaning |\n|---|---|---|---|\n{table}\n\n## Protocol\n\n{PROTOCOL}")


_GLUE_HEAD = """// Generated by allo: the ports of `{top}` for allo's Calyx Verilator driver (allo_calyx_driver.cpp).
#include "V{top}.h"
#include "allo_calyx.h"

template <typename T>
static AlloCxSig sig(T& member, int width) {{
  return AlloCxSig{{reinterpret_cast<unsigned char*>(&member), (int)sizeof(T), width}};
}}
static const AlloCxSig NONE = {{nullptr, 0, 0}};
static void eval_top(void* top) {{ static_cast<V{top}*>(top)->eval(); }}
static void final_top(void* top) {{ static_cast<V{top}*>(top)->final(); }}

AlloCxDesign* allo_make_calyx_design(VerilatedContext* ctx) {{
  V{top}* top = new V{top}{{ctx}};
  AlloCxDesign* d = new AlloCxDesign;
  d->top = top;
  d->eval = eval_top;
  d->final = final_top;
  d->clk = sig(top->clk, 1);
  d->reset = sig(top->reset, 1);
  d->go = sig(top->go, 1);
  d->done = sig(top->done, 1);
"""


def calyx_glue_cpp(iface: CalyxInterface) -> str:
    """C++ source of `allo_make_calyx_design()` for `iface`.

    Example::

        cpp = calyx_glue_cpp(iface)
    """
    def p(name):
        return f"sig(top->{name}, {iface.ports[name][1]})" if iface.present(name) else "NONE"

    lines = [_GLUE_HEAD.format(top=iface.top)]
    for m in iface.memories:
        q = m.prefix
        lines.append(f"  d->memories.push_back(AlloCxMemory{{{m.index}, {m.words}, {m.bits}, {p(q + '_addr0')}, "
                     f"{p(q + '_write_data')}, {p(q + '_write_en')}, {p(q + '_read_data')}, {p(q + '_done')}}});\n")
    for s in iface.scalars:
        lines.append(f"  d->scalars.push_back(AlloCxScalar{{{s.index}, {s.bits}, {p(f'in{s.index}')}}});\n")
    for r in iface.results:
        lines.append(f"  d->results.push_back(AlloCxResult{{{r.index}, {r.bits}, {p(f'out{r.index}')}}});\n")
    lines.append("  return d;\n}\n")
    return "".join(lines)


def build_calyx_simulator(verilog: str, iface: CalyxInterface) -> Path:
    """The Verilator simulation of `verilog` with allo's Calyx driver (cached by content)."""
    return build_simulator(verilog, calyx_glue_cpp(iface), iface.top, CALYX_DRIVER_SOURCE, CALYX_DRIVER_HEADER)


def copy_calyx_build_inputs(verilog: str, iface: CalyxInterface, dest: Path):
    """`<top>.sv`, glue.cpp, the Calyx driver, build.sh and README.md into `dest` (which exists)."""
    copy_build_inputs(verilog, calyx_glue_cpp(iface), iface.top, dest, CALYX_DRIVER_SOURCE, CALYX_DRIVER_HEADER)
    (dest / "README.md").write_text(iface.readme())


def run_calyx_simulator(exe: Path, iface: CalyxInterface, images: dict, scalars: dict, max_cycles: int):
    """Run once. `images`: {memory index: bytes}; `scalars`: {param position: int}. Returns (cycles,
    {memory index: bytes after the run}, [result ints, sign-extended when signed])."""
    with tempfile.TemporaryDirectory(prefix="allo_rtl_calyx_run_") as work:
        tmp = Path(work)
        for m in iface.memories:
            data = bytes(images[m.index])
            if len(data) != m.words * m.word_bytes:
                raise BackendError(f"internal error: memory {m.index} of {iface.top!r} has {len(data)} bytes, the "
                                   f"design expects {m.words * m.word_bytes}")
            (tmp / f"m{m.index}.bin").write_bytes(data)
        for s in iface.scalars:
            nbytes = _result_bytes(s.bits)
            (tmp / f"s{s.index}.bin").write_bytes((int(scalars[s.index]) & ((1 << (8 * nbytes)) - 1))
                                                  .to_bytes(nbytes, "little"))
        r = run_child([exe, tmp, int(max_cycles)], timeout=3600, what=f"Verilator simulation of {iface.top!r}")
        if r.returncode == 3:
            raise BackendError(f"the Verilator simulation of {iface.top!r} (Calyx route) did not finish within "
                               f"{max_cycles} cycles (done never rose); raise max_cycles if the design needs longer")
        if r.returncode != 0:
            how = f"signal {-r.returncode}" if r.returncode < 0 else f"exit code {r.returncode}"
            raise BackendError(f"the Verilator simulation of {iface.top!r} failed ({how}): "
                               f"{(r.stderr or r.stdout).strip()[-2000:]}")
        cycles = int((tmp / "cycles.txt").read_text())
        mems = {m.index: (tmp / f"m{m.index}.out").read_bytes() for m in iface.memories}
        results = []
        for res in iface.results:
            raw = int.from_bytes((tmp / f"o{res.index}.bin").read_bytes(), "little") & ((1 << res.bits) - 1)
            if res.signed and raw >> (res.bits - 1):
                raw -= 1 << res.bits
            results.append(raw)
    return cycles, mems, results


__all__ = ["PROTOCOL", "CalyxMemory", "CalyxScalar", "CalyxResult", "CalyxInterface", "calyx_glue_cpp",
           "build_calyx_simulator", "run_calyx_simulator", "copy_calyx_build_inputs"]
