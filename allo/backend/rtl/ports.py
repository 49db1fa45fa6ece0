"""The port interface of a handshake design: CIRCT's port list read against the argument layout.

`lower-cf-to-handshake` + `handshake-lower-extmem-to-hw` give the top module, per function
argument k (the Slots of allo.backend.rtl.memories, in order):
- a memory: per load op j `in{k}_ld{j}_addr` (+`_valid`, `_ready`) out and `in{k}_ld{j}_data`
  (+`_valid`, `_ready`) in; per store op j `in{k}_st{j}` = packed {address, data} (+`_valid`,
  `_ready`) out and a `in{k}_st{j}_done` token (+`_valid`, `_ready`) in;
- a scalar: `in{k}` (+`_valid`, `_ready`);
then the start token `in{n}` (+`_valid`, `_ready`); results `out{r}` and the done token `out{m}`
(each +`_valid`, `_ready`). Zero-width signals (tokens) do not appear in the Verilog.

Example::

    iface = Interface.from_ports("gemm", ports, slots, func, signed_results=[], hidden={3})
    iface.memories[0].loads        # [0]: one load port on argument 0
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ...errors import BackendError

_LD = re.compile(r"in(\d+)_ld(\d+)_addr$")
_ST = re.compile(r"in(\d+)_st(\d+)$")


@dataclass
class Memory:
    """One memory argument of the top: the kernel arrays it holds and the ports the design uses."""

    arg: int
    name: str
    segments: list  # allo.backend.rtl.memories.Segment
    elem_bits: int  # word width
    addr_bits: int
    loads: list = field(default_factory=list)  # port numbers j of in{arg}_ld{j}
    stores: list = field(default_factory=list)  # port numbers j of in{arg}_st{j}
    hidden: bool = False  # holds a global constant of the kernel

    @property
    def size(self) -> int:
        return sum(s.size for s in self.segments)

    @property
    def elem_bytes(self) -> int:
        return (self.elem_bits + 7) // 8

    def image(self, arrays: dict) -> bytes:
        """The memory contents (words of elem_bits) from {param: storage ndarray}."""
        words = np.zeros(self.size, dtype=f"<u{self.elem_bytes}")
        for s in self.segments:
            raw = np.ascontiguousarray(arrays[s.param]).reshape(-1)
            words[s.base:s.base + s.size] = raw.view(f"<u{raw.dtype.itemsize}").astype(words.dtype)
        return words.tobytes()

    def unpack(self, data: bytes, arrays: dict) -> dict:
        """{param: storage ndarray} read back from the memory contents (words truncated to each
        array's element width); `arrays` gives the dtype and shape of each parameter."""
        words = np.frombuffer(data, dtype=f"<u{self.elem_bytes}")
        out = {}
        for s in self.segments:
            like = arrays[s.param]
            part = words[s.base:s.base + s.size].astype(f"<u{like.dtype.itemsize}")
            out[s.param] = part.view(like.dtype).reshape(like.shape)
        return out


@dataclass
class Scalar:
    arg: int
    param: int
    name: str
    bits: int


@dataclass
class Result:
    index: int
    bits: int
    signed: bool


@dataclass
class Interface:
    top: str
    memories: list
    scalars: list
    results: list
    start: int  # k of the start token in{k}
    done: int  # r of the done token out{r}
    widths: dict  # port name -> bit width (0 for tokens absent from the Verilog)

    @classmethod
    def from_ports(cls, top: str, ports: list, slots: list, func, signed_results: list, hidden: set) -> "Interface":
        widths = {name.replace(".", "_"): int(w) for name, _, w in ports}  # Verilog spells "a.b" as a_b
        memories, scalars = [], []
        for k, slot in enumerate(slots):
            if slot.kind == "scalar":
                scalars.append(Scalar(k, slot.param, func.params[slot.param].name, widths.get(f"in{k}", 0)))
                continue
            names = "+".join(func.params[s.param].name for s in slot.segments)
            mem = Memory(k, names, slot.segments, slot.bits, _addr_bits(slot.size),
                         hidden=all(s.param in hidden for s in slot.segments))
            for name in widths:
                m = _LD.match(name)
                if m and int(m.group(1)) == k:
                    mem.loads.append(int(m.group(2)))
                m = _ST.match(name)
                if m and int(m.group(1)) == k:
                    mem.stores.append(int(m.group(2)))
            mem.loads.sort()
            mem.stores.sort()
            memories.append(mem)
        results = [Result(r, widths.get(f"out{r}", 0), s) for r, s in enumerate(signed_results)]
        iface = cls(top, memories, scalars, results, len(slots), len(results), widths)
        iface.check()
        return iface

    def check(self):
        need = [f"in{self.start}_valid", f"out{self.done}_valid", "clock", "reset"]
        missing = [p for p in need if p not in self.widths]
        if missing:
            raise BackendError(f"internal error: the CIRCT design lacks the ports {missing} "
                               f"(ports: {sorted(self.widths)})")
        for mem in self.memories:
            for j in mem.stores:
                st = f"in{mem.arg}_st{j}"
                if self.widths[st] != mem.addr_bits + mem.elem_bits:
                    raise BackendError(f"internal error: store port {st} is {self.widths[st]} bits wide, expected "
                                       f"{mem.addr_bits} address + {mem.elem_bits} data bits")

    def present(self, name: str) -> bool:
        """True when the port exists in the Verilog (zero-width token ports do not)."""
        return self.widths.get(name, 0) > 0

    def readme(self) -> str:
        """A plain-text description of the ports, for `mod.write(dir)`."""
        lines = [f"Ports of module `{self.top}` (handshake protocol: a transfer happens on a rising `clock` edge",
                 "where `*_valid` and `*_ready` are both high; `reset` is active high).", ""]
        for mem in self.memories:
            what = "constant data of the kernel" if mem.hidden else "kernel array(s)"
            layout = ", ".join(f"elements {s.base}..{s.base + s.size - 1}: argument {s.param}" for s in mem.segments)
            lines.append(f"- memory `in{mem.arg}` = {what} `{mem.name}`: {mem.size} x {mem.elem_bits}-bit words, "
                         f"{mem.addr_bits}-bit addresses ({layout})")
            for j in mem.loads:
                p = f"in{mem.arg}_ld{j}"
                lines.append(f"  - load port {j}: `{p}_addr` (+_valid/_ready, output) -> answer with `{p}_data` "
                             f"(+_valid/_ready, input)")
            for j in mem.stores:
                p = f"in{mem.arg}_st{j}"
                lines.append(f"  - store port {j}: `{p}` = {{address[{mem.addr_bits}], data[{mem.elem_bits}]}} "
                             f"(+_valid/_ready, output) -> acknowledge with a `{p}_done_valid` token")
        for s in self.scalars:
            lines.append(f"- scalar `{s.name}` (argument {s.param}): `in{s.arg}` ({s.bits} bits, +_valid/_ready)")
        lines.append(f"- start token: `in{self.start}_valid` / `in{self.start}_ready`")
        for r in self.results:
            lines.append(f"- result {r.index}: `out{r.index}` ({r.bits} bits, {'signed' if r.signed else 'unsigned'}, "
                         f"+_valid/_ready)")
        lines.append(f"- done token: `out{self.done}_valid` / `out{self.done}_ready`")
        return "\n".join(lines) + "\n"


def _addr_bits(size: int) -> int:
    return max(0, (size - 1).bit_length())


__all__ = ["Interface", "Memory", "Scalar", "Result"]
