"""Memories of a static design: each array is split into banks by its partitions (block,
cyclic, complete; any dimension), every bank an on-chip memory with two ports and a 1-cycle read
latency (BRAM-like), or, when every dimension is completely partitioned, registers. Top-level
array arguments stay memory ports of the module (one port set per bank).

Example::

    m = Memory.of(buf, is_arg=True)
    m.banks, m.bank_words       # 4, 16 for int32[8, 8] partitioned cyclic 4 along dim 2
    banks = m.split(array)      # numpy images per bank; m.join(banks) inverts it
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ....ir.attrs import STREAM, Partition
from ....ir.types import Index
from ....qor.affine import partitions

PORTS = 2  # dual-port BRAM / ap_memory with a second port (operators.json "memory")


def dim_parts(buf) -> list:
    """Per dimension (kind, factor) or None; a dimension partitioned twice keeps the last."""
    out = [None] * len(buf.shape)
    for kind, d, factor in partitions(buf):
        if 1 <= d <= len(buf.shape):
            out[d - 1] = (Partition(kind), int(factor or 0))
    return out


@dataclass
class DimSplit:
    size: int  # elements along the dimension
    kind: object  # None | Partition
    banks: int  # bank coordinates along this dimension
    words: int  # offset range inside a bank along this dimension

    def bank(self, i):
        if self.kind is None:
            return 0
        if self.kind == Partition.Cyclic:
            return i % self.banks
        if self.kind == Partition.Block:
            return i // self.words
        return i

    def offset(self, i):
        if self.kind is None:
            return i
        if self.kind == Partition.Cyclic:
            return i // self.banks
        if self.kind == Partition.Block:
            return i % self.words
        return 0 * i


def _split(n: int, part) -> DimSplit:
    if part is None:
        return DimSplit(n, None, 1, n)
    kind, f = part
    if kind == Partition.Complete or f >= n:
        return DimSplit(n, Partition.Complete, n, 1)
    f = max(1, f)
    if kind == Partition.Cyclic:
        return DimSplit(n, kind, f, -(-n // f))
    b = -(-n // f)
    return DimSplit(n, kind, -(-n // b), b)


@dataclass(eq=False)
class Memory:
    """One array of the design (see module doc). `kind`: "mem" (banks of RAM), "reg"
    (registers, every element its own), "fifo" (a stream)."""

    name: str
    shape: tuple
    bits: int
    signed: bool
    kind: str
    dims: list
    is_arg: bool = False
    depth: int = 0  # FIFO depth
    written: bool = False
    read: bool = False
    ports: int = PORTS
    port_use: dict = field(default_factory=dict)  # bank -> set of (port, "r"|"w")
    pingpong: dict = None  # a ping-pong local of a dataflow loop: unit uid -> its process's parity bit

    @staticmethod
    def of(buf, is_arg: bool, extra=()) -> "Memory":
        shape = tuple(int(d) for d in buf.shape)
        t = buf.dtype
        bits = 64 if isinstance(t, Index) else int(t.bits)
        signed = bool(getattr(t, "signed", isinstance(t, Index)))
        if buf.attrs.get(STREAM) and not is_arg:
            return Memory(buf.name, shape, bits, signed, "fifo", [_split(n, None) for n in shape],
                          depth=int(buf.attrs[STREAM]))
        parts = dim_parts(buf)
        for kind, d, factor in extra:  # partitions the estimator adds (Vitis's throughput-driven ones)
            if 1 <= d <= len(parts) and parts[d - 1] is None:
                parts[d - 1] = (Partition(kind), int(factor or 0))
        dims = [_split(n, p) for n, p in zip(shape, parts)]
        full = all(d.kind == Partition.Complete for d in dims)
        kind = "reg" if (full and not is_arg) else "mem"
        return Memory(buf.name, shape, bits, signed, kind, dims, is_arg)

    @property
    def size(self) -> int:
        return math.prod(self.shape) if self.shape else 1

    @property
    def banks(self) -> int:
        return math.prod(d.banks for d in self.dims) if self.dims else 1

    @property
    def bank_shape(self) -> tuple:
        return tuple(d.words for d in self.dims)

    @property
    def bank_words(self) -> int:
        return math.prod(self.bank_shape) if self.dims else 1

    @property
    def addr_bits(self) -> int:
        return max(1, (self.bank_words - 1).bit_length())

    def bank_of(self, coords) -> int:
        """Bank number of bank coordinates (row-major)."""
        b = 0
        for d, c in zip(self.dims, coords):
            b = b * d.banks + c
        return b

    def element_banks(self):
        """(bank id array, bank-local offset array) of every element (row-major)."""
        if not self.shape:
            return np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
        idx = np.indices(self.shape).reshape(len(self.shape), -1)
        bank = np.zeros(idx.shape[1], dtype=np.int64)
        off = np.zeros(idx.shape[1], dtype=np.int64)
        for d, i in zip(self.dims, idx):
            bank = bank * d.banks + d.bank(i)
            off = off * d.words + d.offset(i)
        return bank, off

    def split(self, data: np.ndarray) -> list:
        """Per-bank flat arrays of `data` (this memory's shape), in bank order."""
        flat = np.ascontiguousarray(data).reshape(-1)
        bank, off = self.element_banks()
        out = [np.zeros(self.bank_words, dtype=flat.dtype) for _ in range(self.banks)]
        for b in range(self.banks):
            sel = bank == b
            out[b][off[sel]] = flat[sel]
        return out

    def join(self, banks: list, dtype) -> np.ndarray:
        bank, off = self.element_banks()
        flat = np.zeros(self.size, dtype=dtype)
        for b in range(self.banks):
            sel = bank == b
            flat[sel] = banks[b][off[sel]]
        return flat.reshape(self.shape)


__all__ = ["Memory", "DimSplit", "dim_parts", "PORTS"]
