"""The QoR report: latency, II, per-loop rows and resources, from the estimator or from Vitis.

Example::

    r = allo.report(s, clock_ns=3.33, part="xcu280")
    r.latency_cycles, r.latency_ms, r.ii
    r.loops[0].name, r.loops[0].ii, r.loops[0].reason
    r.resources["DSP"], r.utilization["DSP"]
    print(r)                 # a table like Vitis's synthesis summary
    r.to_dict(); r.to_json()
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

RESOURCE_KEYS = ("BRAM_18K", "DSP", "FF", "LUT", "URAM")


@dataclass
class LoopRow:
    """One loop (or sub-function call, or dataflow process) of the design.

    kind: "loop" | "call" | "dataflow" (a dataflow region) | "process". `ii` is the achieved
    initiation interval of a pipelined loop (None when not pipelined), `target_ii` the requested
    one; `reason` says what limits `ii` above the target (ports, a recurrence with its operator
    latency, a call) or notes the model applied (flattening, auto-pipelining, auto-partitioning).
    `iteration_latency` is the depth of one iteration; `latency` the loop's total cycles (worst
    case); `children` the nested rows."""

    name: str
    kind: str = "loop"
    trip_count: int | None = None
    pipelined: bool = False
    ii: int | None = None
    target_ii: int | None = None
    iteration_latency: int | None = None
    latency: int = 0
    reason: str = ""
    children: list = field(default_factory=list)

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()

    def to_dict(self) -> dict:
        d = asdict(self)
        d["children"] = [c.to_dict() for c in self.children]
        return d

    @classmethod
    def from_dict(cls, d) -> "LoopRow":
        d = dict(d)
        d["children"] = [cls.from_dict(c) for c in d.get("children", [])]
        return cls(**d)


@dataclass
class QoRReport:
    """Latency/II/resources of a design (see module docstring). `source` is "estimate" (allo's
    model), "vitis" (parsed from csynth.xml) or "rtl" (a simulated static RTL circuit)."""

    top: str
    latency_cycles: int
    ii: int
    clock_ns: float
    part: str
    loops: list = field(default_factory=list)
    resources: dict = field(default_factory=dict)
    available: dict = field(default_factory=dict)
    source: str = "estimate"
    target: str = "vhls"
    notes: list = field(default_factory=list)
    estimated_clock_ns: float | None = None

    @property
    def latency_ms(self) -> float:
        return self.latency_cycles * self.clock_ns * 1e-6

    @property
    def utilization(self) -> dict:
        """Percent of the part's resources, per kind."""
        out = {}
        for k in RESOURCE_KEYS:
            total = self.available.get(k) or 0
            out[k] = 100.0 * self.resources.get(k, 0) / total if total else 0.0
        return out

    def loop(self, name: str) -> LoopRow:
        """The first row named `name` (a loop label `l_j`, its name `j`, or a function name)."""
        for row in self.rows():
            if row.name in (name, f"l_{name}") or row.name.endswith(f"/{name}"):
                return row
        raise KeyError(f"no loop {name!r} in the report; loops: {', '.join(r.name for r in self.rows())}")

    def rows(self):
        for r in self.loops:
            yield from r.walk()

    def to_dict(self) -> dict:
        return {"top": self.top, "source": self.source, "target": self.target, "part": self.part,
                "clock_ns": self.clock_ns, "latency_cycles": self.latency_cycles, "latency_ms": self.latency_ms,
                "ii": self.ii, "resources": dict(self.resources), "available": dict(self.available),
                "utilization": self.utilization, "loops": [r.to_dict() for r in self.loops], "notes": list(self.notes),
                "estimated_clock_ns": self.estimated_clock_ns}

    def to_json(self, indent: int = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, d) -> "QoRReport":
        return cls(d["top"], int(d["latency_cycles"]), int(d["ii"]), float(d["clock_ns"]), d["part"],
                   [LoopRow.from_dict(r) for r in d.get("loops", [])], dict(d.get("resources", {})),
                   dict(d.get("available", {})), d.get("source", "estimate"), d.get("target", "vhls"),
                   list(d.get("notes", [])), d.get("estimated_clock_ns"))

    def __str__(self) -> str:
        return format_report(self)

    def __repr__(self) -> str:
        return (f"<QoRReport {self.top} ({self.source}): {self.latency_cycles} cycles = {self.latency_ms:.4g} ms "
                f"@ {self.clock_ns} ns, II {self.ii}, DSP {self.resources.get('DSP', 0)}>")


def _num(v):
    return "-" if v is None else str(v)


def format_report(r: QoRReport) -> str:
    """The report as text: a summary line, a Vitis-style loop table and the resources."""
    what = {"estimate": "estimate", "rtl": "from RTL simulation"}.get(r.source, "from Vitis HLS")
    head = (f"== QoR {what} of {r.top!r} "
            f"({r.target}, part {r.part}, clock {r.clock_ns} ns)")
    lines = [head,
             f"Latency: {r.latency_cycles} cycles = {r.latency_ms:.6g} ms;  interval (II): {r.ii}"]
    cols = ("Modules & Loops", "Trip", "Pipelined", "II", "Iter. lat.", "Latency", "Note")
    table = []

    def add(row, depth):
        name = ("  " * depth) + ("+ " if row.kind in ("call", "dataflow", "process") else "o ") + row.name
        pipe = "dataflow" if row.kind == "dataflow" else ("yes" if row.pipelined else "no")
        ii = _num(row.ii) if row.ii is None or row.target_ii in (None, row.ii) else f"{row.ii} ({row.target_ii})"
        table.append((name, _num(row.trip_count), pipe, ii, _num(row.iteration_latency), str(row.latency),
                      row.reason))
        for c in row.children:
            add(c, depth + 1)

    for row in r.loops:
        add(row, 0)
    if table:
        widths = [max(len(cols[k]), *(len(t[k]) for t in table)) for k in range(len(cols) - 1)]
        fmt = "  ".join(f"{{:<{w}}}" for w in widths) + "  {}"
        lines.append(fmt.format(*cols))
        lines.append("  ".join("-" * w for w in widths) + "  " + "-" * 4)
        lines += [fmt.format(*t).rstrip() for t in table]
    util = r.utilization
    res = "  ".join(f"{k} {r.resources.get(k, 0)}" + (f" ({util[k]:.1f}%)" if r.available.get(k) else "")
                    for k in RESOURCE_KEYS)
    lines.append(f"Resources: {res}")
    if r.notes:
        lines += [f"note: {n}" for n in r.notes]
    return "\n".join(lines)


__all__ = ["QoRReport", "LoopRow", "format_report", "RESOURCE_KEYS"]
