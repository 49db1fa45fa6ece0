"""Operator, memory and part tables of the QoR model (data in allo/qor/data/*.json).

`Tables(clock_ns)` answers "what does this IR operation cost at this clock": latency (cycles of
the core Vitis binds by default), the faster latency it binds on recurrences of explicitly
pipelined loops, and resources per instance. Unknown expression kinds cost nothing (a new IR
node from another part of allo must not break the estimator).

Example::

    t = Tables(3.33)
    t.float_op("fadd", 32).latency      # 6
    t.int_op("mul", 32, 32, 32).dsp     # 4
"""
from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path

from ..errors import AlloError

DATA = Path(__file__).parent / "data"


@functools.lru_cache(maxsize=None)
def load(name: str) -> dict:
    with open(DATA / f"{name}.json") as f:
        return json.load(f)


@dataclass(frozen=True)
class OpCost:
    """One operator instance: `latency` (default binding), `fast` (recurrence binding), resources."""

    kind: str
    latency: int
    fast: int
    dsp: int = 0
    ff: int = 0
    lut: int = 0

    @property
    def chain(self) -> int:
        """States from this operator's start to a dependent operator's start."""
        return self.latency + 1 if self.latency else 0


FREE = OpCost("free", 0, 0)


def _pick(rows, clock_ns: float) -> int:
    for at_least, value in rows:
        if clock_ns >= at_least:
            return int(value)
    return int(rows[-1][1])


def _width_key(bits: int) -> str:
    return "16" if bits <= 16 else "32" if bits <= 32 else "64"


class Tables:
    """Costs at one target clock. Cached per clock (see `tables_for`)."""

    def __init__(self, clock_ns: float):
        if not isinstance(clock_ns, (int, float)) or not clock_ns > 0:
            raise AlloError(f"QoR: clock_ns must be a positive number of nanoseconds, got {clock_ns!r}")
        self.clock_ns = float(clock_ns)
        ops = load("operators")
        self.ops = ops
        self.memory = ops["memory"]
        self.control = ops["control"]
        self._float = {}
        self._int = {}

    # ------------------------------------------------------------------ operators
    def float_op(self, kind: str, bits: int) -> OpCost:
        key = (kind, _width_key(bits))
        if key not in self._float:
            row = self.ops["float"].get(kind)
            if row is None:
                self._float[key] = FREE
            else:
                w = key[1]
                lat = _pick(row["latency"][w], self.clock_ns)
                fast = _pick(row["fast"][w], self.clock_ns) if "fast" in row else lat
                dsp, lut = row["dsp"][w], row["lut"][w]
                if self.clock_ns < row.get("no_dsp_below_ns", 0.0):  # too fast for the DSP-based core
                    dsp, lut = 0, row["lut_no_dsp"][w]
                self._float[key] = OpCost(kind, lat, min(lat, fast), dsp, row["ff"][w], lut)
        return self._float[key]

    def math_kind(self, fn: str) -> str:
        return self.ops["math_functions"].get(fn, "fmath")

    def int_op(self, kind: str, bits: int, a_bits: int = 0, b_bits: int = 0, impl=None) -> OpCost:
        """Integer/fixed operator producing `bits` bits from operands of `a_bits`, `b_bits`;
        `impl` ("dsp" / "fabric" / (impl, latency); None or "auto": Vitis's default binding) is a
        `config_op` choice (`s.config_op`)."""
        impl, latency = impl if isinstance(impl, tuple) else (impl, None)
        impl = None if impl == "auto" else impl
        key = (kind, bits, a_bits, b_bits, impl, latency)
        if key not in self._int:
            cost = self._int_cost(kind, max(1, bits), a_bits or bits, b_bits or bits, impl)
            if latency is not None:  # `-latency n`: the operator is scheduled with n stages
                cost = OpCost(cost.kind, int(latency), int(latency), cost.dsp, cost.ff, cost.lut)
            self._int[key] = cost
        return self._int[key]

    def _int_cost(self, kind, bits, a_bits, b_bits, impl=None) -> OpCost:
        t = self.ops["int"]
        comb = int(t["comb_bits"])
        stages = max(0, math.ceil(bits / comb) - 1)  # very wide adders get pipelined
        if kind == "mul":
            m = t["mul"]
            lo, hi = sorted((a_bits, b_bits))
            ta, tb = m["dsp_tile"]
            tiles = math.ceil(hi / ta) * math.ceil(lo / tb)
            lat = _pick([[-n, v] for n, v in m["latency_by_tiles"]], -tiles)
            if impl is None and lo <= m["fabric_below_bits"]:
                return OpCost("mul", stages, stages, 0, 0, int(m["lut_per_bit_fabric"] * lo * 2))
            if impl == "fabric":  # a LUT array: the narrow operand's rows, once per 10-bit slice of the wide one
                slices = math.ceil(hi / m["fabric_below_bits"]) if hi > m["fabric_below_bits"] else 1
                depth = stages if lo <= m["fabric_below_bits"] else lat
                return OpCost("mul", depth, depth, 0, int(bits * depth), int(m["lut_per_bit_fabric"] * lo * 2 * slices))
            tiles = max(1, tiles)  # impl "dsp": one slice at least, also for narrow operands
            return OpCost("mul", lat, lat, tiles, tiles * m["ff_per_dsp"], tiles * m["lut_per_dsp"])
        if kind == "add" and impl == "dsp":  # DSP48E2's 48-bit ALU, one per 48 bits (combinational unless -latency)
            slices = math.ceil(bits / 48)
            return OpCost("add", stages, stages, slices, 0, 0)
        if kind == "div":
            d = t["div"]
            lat = bits + d["extra_latency"]
            return OpCost("div", lat, lat, 0, int(bits * d["ff_per_bit"]), int(bits * d["lut_per_bit"]))
        row = t.get(kind, t["logic"])
        return OpCost(kind, stages, stages, 0, int(bits * row["ff_per_bit"]), max(1, int(bits * row["lut_per_bit"])))

    # ------------------------------------------------------------------ memory
    def mem(self, kind: str) -> dict:
        return self.memory.get(kind, self.memory["bram"])


@functools.lru_cache(maxsize=64)
def tables_for(clock_ns: float) -> Tables:
    return Tables(clock_ns)


def part_info(part: str) -> tuple:
    """(canonical part name, {"DSP": n, "BRAM_18K": n, "FF": n, "LUT": n, "URAM": n}) for a part
    name or prefix; AlloError listing the known parts otherwise."""
    parts = load("parts")
    if not isinstance(part, str) or not part:
        raise AlloError(f"QoR: part must be a part name such as 'xcu280', got {part!r}")
    key = part.lower()
    for name, row in parts.items():
        if name == "about":
            continue
        if key.startswith(name) or row["full"].lower().startswith(key):
            return row["full"], {k: row[k] for k in ("DSP", "BRAM_18K", "FF", "LUT", "URAM")}
    known = ", ".join(k for k in parts if k != "about")
    raise AlloError(f"QoR: unknown part {part!r}; known parts: {known} (add one to allo/qor/data/parts.json)")


def bram_18k(depth: int, width: int) -> int:
    """BRAM_18K blocks for one memory bank of `depth` words of `width` bits (best aspect ratio)."""
    if depth <= 0 or width <= 0:
        return 0
    best = None
    for d, w in load("operators")["memory"]["bram_18k_configs"]:
        n = math.ceil(depth / d) * math.ceil(width / w)
        best = n if best is None else min(best, n)
    return best


def uram_288k(depth: int, width: int) -> int:
    d, w = load("operators")["memory"]["uram_288k_configs"][0]
    return math.ceil(depth / d) * math.ceil(width / w) if depth > 0 else 0


__all__ = ["Tables", "OpCost", "FREE", "tables_for", "part_info", "bram_18k", "uram_288k", "load"]
