"""`s.build(target="rtl")`: the statically scheduled circuit of a schedule (allo.backend.rtl.
static), simulated cycle-accurately with Verilator and called from numpy like the LLVM module.

Example::

    mod = s.build(target="rtl")
    C = mod(A, B); mod.cycles          # results equal the LLVM build; clock cycles of the call
    mod.report()                       # per-unit trip count, II, depth, measured cycles
    mod.qor()                          # the estimate of the same schedule, side by side
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ....errors import BackendError
from ....ir import nodes as N
from ....ir.types import Float, is_signed
from ....qor import estimate
from ....qor.report import LoopRow, QoRReport
from ...marshal import ArraySpec, CallPlan
from ..synth import synthesize
from .design import DataflowC, Design, IfC, Loop, Unit, WhileC
from .loopflow import LoopDataflowC
from .emit import emit_design
from .exprs import sv_width
from .harness import (MemPort, StaticInterface, StaticMemory, StaticResult, StaticScalar, build_static_simulator,
                      copy_static_build_inputs, run_static_simulator)
from .prepare import prepare_static

DEFAULT_MAX_CYCLES = 10_000_000


class StaticRTLModule:
    """A kernel as a statically scheduled circuit (see module doc). Attributes: `verilog`,
    `interface` (StaticInterface), `memories` (name -> Memory: banks, words, bits), `cycles`
    (of the last call), `ir`, `design` (units with their II and depth)."""

    scheduling = "static"

    def __init__(self, mod: N.Module, max_cycles: int = DEFAULT_MAX_CYCLES, clock_ns: float = 3.33):
        self.ir = mod
        self.top_func_name = mod.top
        self.max_cycles = int(max_cycles)
        self.clock_ns = float(clock_ns)
        self.hw = prepare_static(mod, floats=True)
        self.design = Design(self.hw, clock_ns=self.clock_ns)
        self.emitter = emit_design(self.design)
        self.verilog = self.emitter.text
        self.memories = {m.name: m for m in self.design.mems.values()}
        self.interface = self._interface()
        self._plan = CallPlan(self.hw.original)
        self._exe = None
        self.cycles = None
        self.counts = {}
        self._last_synth = None

    def _interface(self) -> StaticInterface:
        e, d = self.emitter, self.design
        mems, self._images = [], []
        k = 0
        for pos, p in enumerate(d.func.params):
            if not p.shape:
                continue
            m = d.mems[id(p)]
            for b in range(m.banks):
                use = e.port_use.get((m.name, b))
                if not use:
                    continue
                ports = [MemPort(j, r, w) for j, (r, w) in sorted(use.items())]
                mems.append(StaticMemory(e.prefix(m, b), k, m.bank_words, m.bits, ports))
                self._images.append((k, pos, m, b))
                k += 1
        scalars = []
        for pos, p in enumerate(d.func.params):
            if not p.shape and p.kind == "scalar_arg":
                scalars.append(StaticScalar(d.inputs[id(p)], pos, sv_width(p.dtype)))
        results = [StaticResult(f"result{r}", r, w, is_signed(t)) for r, w, t in e.results]
        return StaticInterface(d.func.name, mems, scalars, results, list(e.counters))

    # ------------------------------------------------------------------ simulation
    def _simulator(self) -> Path:
        if self._exe is None or not self._exe.exists():
            self._exe = build_static_simulator(self.verilog, self.interface)
        return self._exe

    def __call__(self, *args):
        plan, hw = self._plan, self.hw
        plan.check(args)
        arrays, scalars, written = {}, {}, []
        for k, (spec, a) in enumerate(zip(plan.ins, args)):
            pos = hw.inputs[k]
            if isinstance(spec, ArraySpec):
                raw, wb = spec.prepare(a)
                arrays[pos] = raw
                if spec.written:
                    written.append((pos, raw, wb))
            else:
                scalars[pos] = _scalar_word(spec.convert(a), spec.t)
        for pos, spec in zip(hw.outputs, [s for s in plan.outs if s.array]):
            arrays[pos] = np.zeros(spec.shape, dtype=spec.dtype)
        for pos, data in hw.hidden:
            arrays[pos] = data
        images, split = {}, {}
        for k, pos, m, b in self._images:
            if pos not in split:
                split[pos] = m.split(_raw_words(arrays[pos], m.bits))
            images[k] = _to_bytes(split[pos][b], m.bits)
        cycles, mems, results, counts = run_static_simulator(self._simulator(), self.interface, images, scalars,
                                                             self.max_cycles)
        self.cycles, self.counts = cycles, counts
        for k, pos, m, b in self._images:
            if k in mems:
                split[pos][b] = _from_bytes(mems[k], m.bits, len(split[pos][b]))
        for pos in {pos for _, pos, m, _ in self._images if m.written}:
            m = self.design.mems[id(self.design.func.params[pos])]
            arr = arrays[pos]
            joined = m.join(split[pos], np.int64 if m.bits <= 63 else object)
            arrays[pos] = _from_raw_words(joined, m.bits, m.signed, arr.dtype)
        for pos, raw, wb in written:
            raw[...] = arrays[pos]
            if wb is not None:
                wb()
        outs, arrays_out, scalar_iter = [], iter(hw.outputs), iter(results)
        for spec in plan.outs:
            if spec.array:
                outs.append(np.array(arrays[next(arrays_out)], dtype=spec.dtype))
            else:
                outs.append(_result_value(next(scalar_iter), spec.dtype))
        return plan.unpack(outs)

    # ------------------------------------------------------------------ reports
    def report(self) -> QoRReport:
        """The circuit as it ran: `latency_cycles` of the last call; one row per FSM loop (nesting its
        rows) and per unit: the trip count (iterations per entry, counted in the circuit), the II and
        depth the circuit implements, and the cycles per entry measured in simulation."""
        if self.cycles is None:
            raise BackendError("mod.report() needs a simulated call first: call the module on inputs")
        rows = self._rows(self.design.root)
        res = {}
        if self._last_synth is not None:
            s = self._last_synth
            res = {"LUT": s.luts, "FF": s.ffs, "DSP": s.dsps, "BRAM_18K": s.brams}
        return QoRReport(self.top_func_name, int(self.cycles), int(self.cycles) + 1, self.clock_ns, "xc7", rows,
                         res, {}, "rtl", "rtl", [])

    def _rows(self, items) -> list:
        """Report rows of control items: FSM loops with their nested rows, units as leaves."""
        rows = []
        for it in items:
            if isinstance(it, Unit):
                rows.append(self._unit_row(it))
            elif isinstance(it, Loop):
                busy, entries = self.counts.get(f"allo_cnt_{it.signal}", (0, 0))
                iters, _ = self.counts.get(f"allo_iss_{it.signal}", (0, 0))
                trip = iters // max(1, entries) if entries else 0
                rows.append(LoopRow("l_" + it.name, "loop", trip, False, None, None,
                                    busy // max(1, iters) if iters else None, busy // max(1, entries), "FSM loop",
                                    self._rows(it.body)))
            elif isinstance(it, IfC):
                rows += self._rows(it.then) + self._rows(it.orelse)
            elif isinstance(it, WhileC):
                rows += self._rows(it.body)
            elif isinstance(it, DataflowC):
                rows += [r for p in it.processes for r in self._rows(p)]
            elif isinstance(it, LoopDataflowC):
                busy, entries = self.counts.get(f"allo_cnt_{it.signal}", (0, 0))
                iters, _ = self.counts.get(f"allo_iss_{it.signal}", (0, 0))
                trip = iters // max(1, entries) if entries else 0
                rows.append(LoopRow("l_" + it.name, "dataflow", trip, False, None, None, None,
                                    busy // max(1, entries), f"{len(it.processes)} processes overlap the iterations",
                                    self._rows(it.processes)))
        return rows

    def _unit_row(self, u) -> LoopRow:
        busy, entries = self.counts.get(f"allo_cnt_{u.name}", (0, 0))
        iss, _ = self.counts.get(f"allo_iss_{u.name}", (0, 0))
        trip = iss // max(1, entries) if entries else 0
        note = u.sched.reason
        if u.unroll > 1:
            note = (note + "; " if note else "") + f"unrolled x{u.unroll}"
        return LoopRow("l_" + u.name if u.loops else u.name, "loop" if u.loops else "block", trip, u.pipelined,
                       u.sched.ii if u.pipelined else None, u.ii if u.pipelined else None, u.sched.depth,
                       busy // max(1, entries), note, [])

    def qor(self, clock_ns: float = None, part: str = "xcu280"):
        """The QoR estimate (allo.qor) of the same schedule, to compare with `cycles` and `report()`."""
        return estimate(self.ir, clock_ns=self.clock_ns if clock_ns is None else clock_ns, part=part)

    def synth(self, part: str = "generic", timeout: int = 1800, clock_ns: float | None = None):
        """Yosys synthesis (see allo.backend.rtl.synth): LUT/FF/DSP/BRAM for "xc7" with the timing
        proxy (`logic_levels`, `suggested_clock_ns`; `meets_target` against `clock_ns`, default the
        clock this circuit was scheduled for)."""
        rep = synthesize(self.verilog, self.hw.func.name, part=part, timeout=timeout,
                         clock_ns=self.clock_ns if clock_ns is None else clock_ns)
        if part == "xc7":
            self._last_synth = rep
        return rep

    def write(self, path) -> Path:
        """Write `<top>.sv`, the testbench, `build.sh` and `README.md` (ports and protocol) into `path`."""
        d = Path(path)
        try:
            d.mkdir(parents=True, exist_ok=True)
            copy_static_build_inputs(self.verilog, self.interface, d)
            for pos, data in self.hw.hidden:  # constant memories (weights): their contents as hex words
                m = self.design.mems[id(self.hw.func.params[pos])]
                words = _raw_words(data, m.bits).reshape(-1)
                (d / f"{m.name}.hex").write_text("".join(f"{int(v):0{(m.bits + 3) // 4}x}\n" for v in words))
        except OSError as e:
            raise BackendError(f"cannot write the RTL design to {d}: {e}") from None
        return d.resolve()

    def __str__(self):
        return self.verilog

    def __repr__(self):
        return f"<allo static RTLModule {self.top_func_name} ({len(self.design.units)} units)>"


def _raw_words(a: np.ndarray, bits: int) -> np.ndarray:
    """Two's-complement words of `bits` bits (as Python-int-safe uint64) of integer storage `a`;
    floats as their IEEE bit patterns."""
    a = np.asarray(a)
    if a.dtype.kind == "f":
        return a.view(f"u{a.dtype.itemsize}").astype(np.uint64)
    if a.dtype == np.bool_:
        a = a.astype(np.uint8)
    mask = (1 << bits) - 1
    return (a.astype(np.int64).view(np.uint64) if a.dtype.kind == "i" else a.astype(np.uint64)) & np.uint64(mask)


def _to_bytes(words: np.ndarray, bits: int) -> bytes:
    nb = (bits + 7) // 8
    w = np.asarray(words, dtype=np.uint64)
    return w.view(np.uint8).reshape(-1, 8)[:, :nb].tobytes()


def _from_bytes(data: bytes, bits: int, n: int) -> np.ndarray:
    nb = (bits + 7) // 8
    raw = np.frombuffer(data, dtype=np.uint8).reshape(n, nb)
    full = np.zeros((n, 8), dtype=np.uint8)
    full[:, :nb] = raw
    return full.view(np.uint64).reshape(-1)


def _from_raw_words(words, bits, signed, dtype) -> np.ndarray:
    w = np.asarray(words).astype(np.uint64) & np.uint64((1 << bits) - 1)
    if np.dtype(dtype).kind == "f":
        return w.astype(f"u{np.dtype(dtype).itemsize}").view(dtype)
    if signed and bits < 64:  # sign-extend by shifting the word to the top and back
        k = np.uint64(64 - bits)
        return ((w << k).view(np.int64) >> np.int64(64 - bits)).astype(dtype)
    if signed:
        return w.view(np.int64).astype(dtype)
    return w.astype(dtype)


def _scalar_word(v, t) -> int:
    """The port word of a converted scalar argument (floats: their IEEE bits)."""
    if isinstance(t, Float):
        return int(v) if t.bits == 16 else int(np.array(v, dtype=f"f{t.bits // 8}").view(f"u{t.bits // 8}"))
    return int(v)


def _result_value(raw: int, dtype):
    """A scalar result of the simulator (an int, sign-extended) as numpy `dtype` (floats from their bits)."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return np.array(int(raw) & ((1 << (8 * dt.itemsize)) - 1), dtype=f"u{dt.itemsize}").view(dt)
    return np.array(raw).astype(dt)


__all__ = ["StaticRTLModule", "DEFAULT_MAX_CYCLES"]
