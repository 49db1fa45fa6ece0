"""Resource accounting (DSP, BRAM_18K, FF, LUT, URAM) from operators, memories and control.

Operators in a pipelined loop are shared across the II cycles of an iteration (ceil(count / II)
instances); non-pipelined code in a function shares one instance per operator kind between its
states. Memories: dual-port BRAM_18K blocks per bank (best aspect ratio), LUTRAM below a size
threshold, registers when completely partitioned, URAM when bound to it; FIFOs become shift
registers when small; dataflow ping-pong buffers count twice.

Example::

    acc = Resources()
    acc.add_ops(counter_of_opcosts, ii=4)
    acc.add_memory(mem, tables)
    acc.as_dict()    # {"BRAM_18K": ..., "DSP": ..., "FF": ..., "LUT": ..., "URAM": ...}
"""
from __future__ import annotations

import math
from collections import Counter

from .tables import bram_18k, uram_288k


class Resources:
    def __init__(self):
        self.dsp = self.ff = self.lut = self.bram = self.uram = 0
        self._shared = Counter()  # OpCost -> instances shared by the non-pipelined states

    def add(self, other: "Resources"):
        self.dsp += other.dsp
        self.ff += other.ff
        self.lut += other.lut
        self.bram += other.bram
        self.uram += other.uram

    def add_ops(self, ops: Counter, ii: int = 1):
        """Operators of a pipelined loop (instances shared over `ii` cycles)."""
        for op, n in ops.items():
            k = math.ceil(n / max(1, ii))
            self.dsp += op.dsp * k
            self.ff += op.ff * k
            self.lut += op.lut * k

    def add_sequential_ops(self, ops: Counter):
        """Operators of non-pipelined code: the function keeps the most any one block needs."""
        for op, n in ops.items():
            if n > self._shared[op]:
                extra = n - self._shared[op]
                self._shared[op] = n
                self.dsp += op.dsp * extra
                self.ff += op.ff * extra
                self.lut += op.lut * extra

    def add_pipeline(self, depth: int, values: int, tables):
        """Pipeline registers: `values` live values carried through `depth` stages."""
        per = int(tables.control["ff_per_pipeline_stage_value"])
        self.ff += depth * per * max(1, min(values, 64))
        self.lut += depth * 2

    def add_fsm(self, states: int, tables):
        self.ff += states * int(tables.control["fsm_ff_per_state"])
        self.lut += states * int(tables.control["fsm_lut_per_state"])

    def add_memory(self, mem, tables, copies: int = 1):
        """A local memory (banks after partitioning)."""
        if not mem.local or not mem.shape:
            if mem.kind == "reg" and not mem.shape:
                self.ff += mem.bits
            return
        bits, size = mem.bits, mem.size
        if mem.kind == "reg":
            self.ff += size * bits * copies
            return
        if mem.kind == "fifo":
            depth = max(2, mem.depth)
            if depth * bits <= int(tables.memory["lutram_below_bits"]) or depth <= 32:
                self.lut += bits * math.ceil(depth / 32)
                self.ff += bits
            else:
                self.bram += bram_18k(depth, bits)
            return
        banks = max(1, mem.banks)
        per_bank = math.ceil(size / banks)
        if mem.kind == "uram":
            self.uram += banks * uram_288k(per_bank, bits) * copies
        elif mem.kind == "lutram" or per_bank * bits <= int(tables.memory["lutram_below_bits"]):
            self.lut += banks * bits * math.ceil(per_bank / 64) * copies
        else:
            self.bram += banks * bram_18k(per_bank, bits) * copies

    def add_interface(self, tables):
        a = tables.memory["m_axi"]["adapter"]
        self.bram += a["bram_18k"]
        self.ff += a["ff"]
        self.lut += a["lut"]

    def as_dict(self) -> dict:
        return {"BRAM_18K": int(self.bram), "DSP": int(self.dsp), "FF": int(self.ff), "LUT": int(self.lut),
                "URAM": int(self.uram)}


__all__ = ["Resources"]
