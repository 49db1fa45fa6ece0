"""`s.build(target="calyx")`: the kernel through CIRCT's Calyx dialect to SystemVerilog, simulated
with Verilator and called from numpy like the LLVM module; plus the same design in Calyx's native
language for the Calyx compiler.

Route: allo.backend.rtl.calyx.prepare (loop IR) -> lower.py's "calyx" form (scf.while, scalars as
loop-carried values) -> the CIRCT child (circt_worker.py + calyx_circt/: lower-scf-to-calyx, the
stand-ins for the Calyx passes the wheel lacks, the FSM flow, lower-calyx-to-hw, export).

Example::

    cx = s.build(target="calyx")
    cx.calyx                         # CIRCT's calyx dialect (calyx.component @gemm ...)
    cx.futil                         # native Calyx: component main { cells / wires / control }
    C = cx(A, B); cx.cycles          # Verilator simulation == s.build()(A, B)
    cx.verilog, cx.synth(part="xc7"), cx.write("out/")
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import numpy as np

from ....errors import BackendError
from ....ir import nodes as N
from ....ir.types import is_signed
from ....qor import estimate
from ...marshal import ArraySpec, CallPlan
from ..lower import lower_for_circt
from ..module import circt_cached
from ..static.module import _from_bytes, _from_raw_words, _raw_words, _result_value, _to_bytes
from ..synth import synthesize
from .futil_sim import run_futil
from .harness import CalyxInterface, build_calyx_simulator, copy_calyx_build_inputs, run_calyx_simulator
from .prepare import prepare_for_calyx

DEFAULT_MAX_CYCLES = 10_000_000

_COMPONENT = re.compile(r"^\s*calyx\.component @(\w+)\(")
_CELL = re.compile(r"=\s*calyx\.(\w+) @(\w+)")
_GROUP = re.compile(r"^\s*calyx\.(group|comb_group|static_group) @(\w+)")
_CONTROL_OP = re.compile(r"^\s*calyx\.(seq|par|while|if|enable|static_seq|static_par|repeat|invoke)\b(?:.*@(\w+))?")
_NON_CELLS = {"assign", "group_done", "group_go", "control", "wires", "component", "seq", "par", "while", "if",
              "enable", "group", "comb_group"}


class CalyxModule:
    """A kernel through the Calyx route. Attributes: `calyx` (CIRCT calyx dialect text), `futil`
    (native Calyx), `calyx_fixed` (the calyx IR after allo's stand-ins, what the FSM passes read),
    `verilog`, `mlir` (the scf-level MLIR handed to CIRCT), `interface` (CalyxInterface), `cycles`
    (of the last call), `standins` (what each stand-in did), `ir`."""

    scheduling = "calyx"

    def __init__(self, mod: N.Module, max_cycles: int = DEFAULT_MAX_CYCLES):
        self.ir = mod
        self.top_func_name = mod.top
        self.max_cycles = int(max_cycles)
        self.hw = prepare_for_calyx(mod)
        generic, self.mlir, _ = lower_for_circt(self.hw, "calyx")
        f = self.hw.func
        arrays = [p for p in f.params if p.type.rank >= 1]
        sizes = {k: int(np.prod(p.shape)) for k, p in enumerate(arrays)}
        reply = circt_cached({"form": "calyx", "top": f.name, "mlir": generic, "mem_sizes": sizes})
        self.calyx, self.futil, self.calyx_fixed = reply["calyx"], reply["futil"], reply["fixed"]
        self.verilog, self.standins = reply["verilog"], reply["info"]
        self._mem_of = {}  # param position -> ext_mem index
        mems = []
        for pos, p in enumerate(f.params):
            if p.type.rank >= 1:
                k = len(self._mem_of)
                self._mem_of[pos] = k
                mems.append((k, sizes[k], p.dtype.bits))
        scalars = [pos for pos, p in enumerate(f.params) if p.type.rank == 0]
        results = [(r, is_signed(t)) for r, t in enumerate(f.result_types)]
        self.interface = CalyxInterface.from_ports(f.name, reply["ports"], mems, scalars, results)
        self._plan = CallPlan(self.hw.original)
        self._exe = None
        self.cycles = None
        self.interpret_cycles = None

    # ------------------------------------------------------------------ simulation
    def _simulator(self) -> Path:
        if self._exe is None or not self._exe.exists():
            self._exe = build_calyx_simulator(self.verilog, self.interface)
        return self._exe

    def __call__(self, *args):
        return self._call(args, lambda images, scalars: run_calyx_simulator(
            self._simulator(), self.interface, images, scalars, self.max_cycles))

    def interpret(self, *args):
        """Run `futil` (the native Calyx text, not the Verilog) on allo's Calyx interpreter
        (futil_sim.py) and return the results like `cx(*args)`: a check of the `.futil` without the
        Calyx compiler. `interpret_cycles` is the interpreter's cycle count (its own unit latencies,
        not the Verilog's).

        Example::

            assert np.array_equal(cx.interpret(A, B), s.build()(A, B))
        """
        return self._call(args, self._interpret_images)

    def _interpret_images(self, images: dict, scalars: dict):
        iface, params = self.interface, self.hw.func.params
        words = {}
        for pos, k in self._mem_of.items():
            bits, n = params[pos].dtype.bits, int(np.prod(params[pos].shape))
            words[f"ext_mem{k}"] = [int(w) for w in _from_bytes(images[k], bits, n)]
        inputs = {f"in{pos}": v for pos, v in scalars.items()}
        cycles, mems, outs = run_futil(self.futil, words, inputs, max_cycles=self.max_cycles)
        self.interpret_cycles = cycles
        images_out = {}
        for pos, k in self._mem_of.items():
            bits = params[pos].dtype.bits
            images_out[k] = _to_bytes(np.array(mems[f"ext_mem{k}"], dtype=np.uint64), bits)
        results = []
        for res in iface.results:
            raw = outs[f"out{res.index}"] & ((1 << res.bits) - 1)
            results.append(raw - (1 << res.bits) if res.signed and raw >> (res.bits - 1) else raw)
        return None, images_out, results

    def _call(self, args, engine):
        """Marshal `args` into memory images and scalars, run `engine(images, scalars)` -> (cycles,
        images after, result ints), unmarshal the results like the LLVM module."""
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
                scalars[pos] = int(spec.convert(a))
        for pos, spec in zip(hw.outputs, [s for s in plan.outs if s.array]):
            arrays[pos] = np.zeros(spec.shape, dtype=spec.dtype)
        for pos, data in hw.hidden:
            arrays[pos] = data
        params = hw.func.params
        images = {k: _to_bytes(_raw_words(arrays[pos], params[pos].dtype.bits).reshape(-1), params[pos].dtype.bits)
                  for pos, k in self._mem_of.items()}
        cycles, mems, results = engine(images, scalars)
        if cycles is not None:
            self.cycles = cycles
        for pos, k in self._mem_of.items():
            p, arr = params[pos], arrays[pos]
            words = _from_bytes(mems[k], p.dtype.bits, arr.size)
            arrays[pos] = _from_raw_words(words, p.dtype.bits, is_signed(p.dtype), arr.dtype).reshape(arr.shape)
        for pos, raw, wb in written:
            raw[...] = arrays[pos].reshape(raw.shape)
            if wb is not None:
                wb()
        outs, arrays_out, scalar_iter = [], iter(hw.outputs), iter(results)
        for spec in plan.outs:
            if spec.array:
                outs.append(np.array(arrays[next(arrays_out)], dtype=spec.dtype).reshape(spec.shape))
            else:
                outs.append(_result_value(next(scalar_iter), spec.dtype))
        return plan.unpack(outs)

    # ------------------------------------------------------------------ views, files, synthesis
    def summary(self) -> dict:
        """{component: {"cells": {kind: count}, "cell_names": {name: kind}, "groups": [names],
        "control": {statement: count}, "enables": [group names in control order]}} of `calyx`."""
        return parse_calyx(self.calyx)

    def qor(self, clock_ns: float = 3.33, part: str = "xcu280"):
        """The QoR estimate (allo.qor) of the same kernel as Vitis HLS would build it, to set beside
        `cycles` and `synth()`."""
        return estimate(self.ir, clock_ns=clock_ns, part=part)

    def synth(self, part: str = "generic", timeout: int = 1800, clock_ns: float | None = None):
        """Yosys synthesis of `verilog` (see allo.backend.rtl.synth): LUT/FF/DSP/BRAM for "xc7" with
        the timing proxy, generic cell counts for "generic"."""
        return synthesize(self.verilog, self.hw.func.name, part=part, timeout=timeout, clock_ns=clock_ns)

    def write(self, path) -> Path:
        """Write `<top>.calyx.mlir`, `<top>.fixed.calyx.mlir` (after the stand-ins), `<top>.futil`,
        the scf-level `<top>.mlir`, `<top>.sv` with its Verilator testbench (glue.cpp, driver,
        build.sh) and README.md (ports and protocol) into directory `path`; returns it."""
        d = Path(path)
        top = self.hw.func.name
        try:
            d.mkdir(parents=True, exist_ok=True)
            copy_calyx_build_inputs(self.verilog, self.interface, d)
            (d / f"{top}.calyx.mlir").write_text(self.calyx)
            (d / f"{top}.fixed.calyx.mlir").write_text(self.calyx_fixed)
            (d / f"{top}.futil").write_text(self.futil)
            (d / f"{top}.mlir").write_text(self.mlir)
        except OSError as e:
            raise BackendError(f"cannot write the Calyx design to {d}: {e}") from None
        return d.resolve()

    def __str__(self):
        return self.calyx

    def __repr__(self):
        return f"<allo CalyxModule {self.top_func_name}>"


def parse_calyx(text: str) -> dict:
    """Structure of calyx dialect text (see CalyxModule.summary).

    Example::

        parse_calyx(cx.calyx)["gemm"]["cells"]      # {"register": 7, "std_add": 3, ...}
    """
    out, comp, in_control = {}, None, False
    for line in text.splitlines():
        m = _COMPONENT.match(line)
        if m:
            comp = out.setdefault(m.group(1), {"cells": Counter(), "cell_names": {}, "groups": [],
                                               "control": Counter(), "enables": []})
            in_control = False
            continue
        if comp is None:
            continue
        if re.match(r"^\s*calyx\.control\s*\{", line):
            in_control = True
            continue
        if in_control:
            m = _CONTROL_OP.match(line)
            if m:
                comp["control"][m.group(1)] += 1
                if m.group(1) == "enable":
                    comp["enables"].append(m.group(2))
            continue
        m = _GROUP.match(line)
        if m:
            comp["groups"].append(m.group(2))
            continue
        m = _CELL.search(line)
        if m and m.group(1) not in _NON_CELLS:
            comp["cells"][m.group(1)] += 1
            comp["cell_names"][m.group(2)] = m.group(1)
    for c in out.values():
        c["cells"], c["control"] = dict(c["cells"]), dict(c["control"])
    return out


__all__ = ["CalyxModule", "parse_calyx", "DEFAULT_MAX_CYCLES"]
