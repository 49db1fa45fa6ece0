"""Where each buffer lives in hardware, and how many accesses per cycle it allows.

A `Mem` is one physical memory seen from a function: a local array (dual-port BRAM, LUTRAM or
URAM per `Buffer.attrs["bind_storage"]`, registers when completely partitioned), a top-level
interface array (`ap_memory`, single-port by default, for target="vhls"; `m_axi` bundles for
target="vitis_hls"), a FIFO (streams), a constant ROM, or a scalar register. Sub-function
parameters are bound to the caller's `Mem` (partition pragmas on either side apply to the
array, as in Vitis).

Example::

    mem = Mem.local(buf, tables)
    mem.kind, mem.banks          # ("bram", 4)
    port_ii(accesses, tables)    # the II the port limits allow: 2 for 4 reads of one dual-port bank
"""
from __future__ import annotations

import itertools
import math
from collections import defaultdict
from dataclasses import dataclass, field

from ..ir.attrs import BIND_STORAGE, STREAM, Partition
from .affine import bank_count, bank_key, partitions

_uids = itertools.count(1)


@dataclass(eq=False)
class Mem:
    """A physical memory. `uid` identifies it across functions (a parameter bound to it shares
    it); `parts` are the effective partitions [(kind, dim, factor)]."""

    name: str
    kind: str  # reg | bram | lutram | uram | rom | ap_memory | m_axi | fifo
    shape: tuple
    bits: int
    parts: list = field(default_factory=list)
    bundle: str = ""
    depth: int = 0  # FIFO depth
    local: bool = True  # allocated inside the design (counts toward BRAM/FF)
    uid: int = field(default_factory=lambda: next(_uids))
    auto_parts: list = field(default_factory=list)  # throughput-driven partitions Vitis adds
    ports: int = 0  # accesses per cycle per bank; 0: the default of `kind` (data/operators.json)
    bound: bool = False  # storage chosen by the user (bind_storage): Vitis keeps it as it is
    rate: int = 1  # FIFO: cycles per element its producer delivers (a reader cannot go faster)

    @property
    def size(self) -> int:
        return math.prod(int(d) for d in self.shape) if self.shape else 1

    @property
    def banks(self) -> int:
        return bank_count(self.shape, self.all_parts) if self.shape else 1

    @property
    def all_parts(self) -> list:
        return list(self.parts) + list(self.auto_parts)

    def bank(self, idx) -> tuple:
        return bank_key(idx, self.shape, self.all_parts) if self.all_parts else ()

    def read_latency(self, tables) -> int:
        if self.kind == "m_axi":
            return int(tables.memory["m_axi"]["read_latency"])
        return int(tables.mem(self.kind)["read_latency"])


def _bits(t) -> int:
    b = getattr(t, "bits", 32)
    return int(b) if isinstance(b, int) and b > 0 else 32


def _fully_partitioned(buf_shape, parts) -> bool:
    """Every dimension split into single elements (complete, or cyclic/block by its size)."""
    dims = {d for kind, d, f in parts
            if kind == Partition.Complete or (0 < d <= len(buf_shape) and int(f or 0) >= int(buf_shape[d - 1]))}
    return all(d in dims for d in range(1, len(buf_shape) + 1))


def local_mem(buf, tables) -> Mem:
    """The memory of a local array, global constant or scalar."""
    shape = tuple(int(d) for d in buf.shape)
    bits = _bits(buf.dtype)
    if not shape:
        return Mem(buf.name, "reg", (), bits)
    if buf.attrs.get(STREAM):
        return Mem(buf.name, "fifo", shape, bits, depth=int(buf.attrs[STREAM]))
    parts = partitions(buf)
    bind = (buf.attrs.get(BIND_STORAGE) or {}).get("resource", "") if isinstance(buf.attrs.get(BIND_STORAGE), dict) \
        else str(buf.attrs.get(BIND_STORAGE) or "")
    bind = str(bind).lower()
    if parts and _fully_partitioned(shape, parts):  # Vitis turns it into registers
        return Mem(buf.name, "reg", shape, bits, parts)
    if buf.kind == "global":
        return Mem(buf.name, "rom", shape, bits, parts)
    kind = {"uram": "uram", "lutram": "lutram", "bram": "bram", "register": "reg", "registers": "reg"}.get(bind, "bram")
    mem = Mem(buf.name, kind, shape, bits, parts, bound=bool(buf.attrs.get(BIND_STORAGE)))
    storage = buf.attrs.get(BIND_STORAGE)
    if isinstance(storage, dict) and str(storage.get("storage_type", "")).lower() in ("ram_1p", "rom_1p"):
        mem.ports = 1  # a single-port memory on request
    return mem


def interface_mem(buf, target: str, bundle: str, tables) -> Mem:
    """The memory behind a top-level array argument."""
    shape = tuple(int(d) for d in buf.shape)
    bits = _bits(buf.dtype)
    parts = partitions(buf)
    if target == "vitis_hls":
        return Mem(buf.name, "m_axi", shape, bits, [], bundle=bundle, local=False)
    if parts and _fully_partitioned(shape, parts):
        return Mem(buf.name, "reg", shape, bits, parts, local=False)
    return Mem(buf.name, "ap_memory", shape, bits, parts, local=False)


def bind_param(param, actual: Mem) -> Mem:
    """A callee's view of the caller's memory: the callee's own partition pragmas apply too."""
    parts = partitions(param)
    if not parts or actual.kind in ("m_axi", "fifo", "reg"):
        return actual
    if actual.kind == "ap_memory" and _fully_partitioned(actual.shape, parts):
        view = Mem(actual.name, "reg", actual.shape, actual.bits, parts, local=False)
    else:
        view = Mem(actual.name, actual.kind, actual.shape, actual.bits, parts, actual.bundle, actual.depth,
                   actual.local, ports=actual.ports)
        if actual.kind in ("bram", "lutram", "uram") and _fully_partitioned(actual.shape, parts):
            view.kind = "reg"
    view.uid = actual.uid
    return view


# ----------------------------------------------------------------------------- port limits
def port_ii(accesses, tables) -> tuple:
    """(II, Mem, reason) the port limits allow for one iteration's `accesses`
    [(mem, address, "r"|"w", address key)]; identical addresses read in one iteration are read
    once (Vitis merges them)."""
    by_mem = defaultdict(lambda: {"r": {}, "w": {}})
    mems = {}
    for mem, address, rw, addr in accesses:
        if mem.kind == "reg":
            continue
        mems[mem.uid] = mem
        if addr not in by_mem[mem.uid][rw]:
            by_mem[mem.uid][rw][addr] = mem.bank(address)
    best = (1, None, "")
    bundles = defaultdict(lambda: [0, 0, []])
    for uid, rw in by_mem.items():
        mem = mems[uid]
        if mem.kind == "m_axi":
            b = bundles[mem.bundle or mem.name]
            b[0] += len(rw["r"])
            b[1] += len(rw["w"])
            b[2].append(mem.name)
            continue
        if mem.kind == "fifo":
            ii = max(len(rw["r"]) * max(1, mem.rate), len(rw["w"]), 1)
            if ii > best[0]:
                best = (ii, mem, f"{ii} FIFO accesses of stream {mem.name!r} per iteration" if mem.rate <= 1 or
                        not rw["r"] else f"stream {mem.name!r} delivers one element every {mem.rate} cycles")
            continue
        ports = mem.ports or int(tables.mem(mem.kind)["ports"])
        keys = list(rw["r"].values()) + list(rw["w"].values())
        need = _bank_pressure(keys)
        ii = max(1, math.ceil(need / ports))
        if ii > best[0]:
            best = (ii, mem, f"{need} accesses to one bank of {mem.name!r} ({ports} port{'s' if ports > 1 else ''})")
    ax = tables.memory["m_axi"]
    for name, (r, w, users) in bundles.items():
        ii = max(math.ceil(r / ax["read_ports"]), math.ceil(w / ax["write_ports"]), 1)
        if ii > best[0]:
            best = (ii, None, f"{max(r, w)} {'reads' if r >= w else 'writes'} on m_axi bundle {name!r} "
                              f"({', '.join(sorted(set(users)))})")
    return best


def _bank_pressure(keys) -> int:
    """Most accesses that land on one bank; keys with None entries may hit any bank."""
    concrete = defaultdict(int)
    wild = []
    for k in keys:
        if any(not isinstance(x, int) for x in k):
            wild.append(k)
        else:
            concrete[k] += 1
    if not concrete:  # only run-time banks: accesses conflict where their known dimensions agree
        return max((sum(1 for w in wild if _overlap(w, v)) for v in wild), default=0)
    best = 0
    for k, n in concrete.items():
        hits = sum(1 for w in wild if _overlap(w, k))
        best = max(best, n + hits)
    return max(best, len(wild) and max(sum(1 for w in wild if _overlap(w, v)) for v in wild))


def _same_bank_possible(x, y) -> bool:
    """Can two accesses use a port of the same bank? A bank index known only at run time reads
    every bank of that dimension and multiplexes (Vitis, and the static RTL circuit: a port on
    every candidate bank), so it collides with every access of that dimension, even when the
    two offsets differ (`T[k]` and `T[k + 1]` over cyclic 2 both occupy both banks)."""
    if isinstance(x, int) and isinstance(y, int):
        return x == y
    return True  # None or a run-time ("rel") bank: may collide


def _overlap(a, b) -> bool:
    return all(_same_bank_possible(x, y) for x, y in zip(a, b))


__all__ = ["Mem", "local_mem", "interface_mem", "bind_param", "port_ii"]
