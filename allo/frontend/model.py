"""An imported model: what each stage produced (captured graph, Program, source), its composed
schedule (cached) and its builds.

Example::

    imported = import_model(model, [torch.rand(8, 16)])
    print(imported.source)           # the generated allo program
    print(imported.summary())        # op -> kernel instance table
    s = imported.schedule()          # customize + composed library schedules
    mod = imported.build("llvm", threads=2)
"""
from __future__ import annotations

from ..errors import FrontendError
from ..schedule import targets
from .compose import compose_schedules, pipeline_helpers as _pipeline_helpers
from .quant.report import quant_report
from .quant.boundary import write_readme
from .runtime import TorchModule

TARGETS = targets.names()


class ImportedModel:
    """A model turned into DSL source; `schedule()` customizes and composes, `build()` builds."""

    def __init__(self, captured, program, source: str, filename: str, types=None, boundary=None):
        self.captured = captured
        self.types = types  # the TypePlan (a QuantPlan for a quantized import)
        # quantized imports: the ports of the integer core (quant/boundary.py), None otherwise
        self.boundary = boundary
        self.program = program
        self.source = source
        self.filename = filename
        self.forward = program.load(source, filename)
        self._schedule = None
        self._helpers_pipelined = False

    @property
    def quantization(self) -> dict | None:
        """The core's quantized interface: {"inputs": [...], "outputs": [...]}, one dict per model
        input / flat output with its type, scale and zero point (None where it stays float32), or
        None for a float import.

        Example::

            mod = from_pytorch(model, [x], precision="int8", calibration_data=cal)
            mod.imported.quantization["inputs"][0]    # {'name': 'x', 'dtype': 'int8', 'scale': 0.03, ...}
        """
        return self.boundary.as_dict() if self.boundary is not None else None

    @property
    def graph(self):
        return self.captured.graph

    @property
    def layers(self):
        return self.program.layers

    def input_sizes(self):
        return [shape for _, _, shape, _ in self.captured.inputs]

    def schedule(self, pipeline_helpers=True, progress=None):
        """`allo.customize(forward)` with every library instance's schedule composed (cached).
        `pipeline_helpers` also pipelines the innermost loops of the generated helper kernels (HLS
        pragmas; the LLVM build ignores them, so LLVM builds skip it)."""
        if self._schedule is None:
            self._schedule = compose_schedules(self.program, self.forward, self.filename, progress)
        if pipeline_helpers and not self._helpers_pipelined:
            _pipeline_helpers(self._schedule, self.program)
            self._helpers_pipelined = True
        return self._schedule

    def build(self, target="llvm", mode=None, project=None, threads=None, fast_math=False, progress=None):
        """Build for "llvm" (a TorchModule), "vhls"/"vitis_hls" (the HLS module; with mode="csim" a
        TorchModule running the C simulation), "rtl" (a TorchModule simulating the Verilog of an
        integer/fixed model; `.cycles`, `.verilog`, `.synth()`), "calyx" (the same through Calyx, also
        `.calyx` and `.futil`), "catapult"/"xls" (the vendor module of allo.backend.catapult /
        allo.backend.xls, on the model's array interface) or
        "mlir" (the composed Schedule). Weights passed as
        `forward` arguments are the LLVM module's arguments and the HLS project's weights/ files."""
        if target not in TARGETS:
            raise FrontendError(f"unknown target {target!r}; use one of {', '.join(TARGETS)}")
        kind = targets.get(target).kind
        s = self.schedule(pipeline_helpers=kind != "cpu", progress=progress)
        if kind == "schedule":
            return s
        if kind == "hls":
            return self._build_hls(s, target, mode, project)
        if kind == "vendor":  # Catapult / XLS[cc]: the generated design (callable where its tool runs it)
            return targets.build(s, target, mode=mode, project=project)
        if mode is not None:
            raise FrontendError(f"mode={mode!r} is for HLS targets (target='vhls'); the {target} build has no modes")
        if kind in ("verilog", "calyx"):  # simulated hardware; forwards `cycles`, `verilog`, `synth` (`futil`)
            return TorchModule(s.build(target=target), self)

        def build_llvm(n):
            return s.build(target=target, threads=n, fast_math=fast_math)

        return TorchModule(build_llvm(threads), self, rebuild=build_llvm)

    def _build_hls(self, s, target, mode, project):
        first = len(self.program.inputs)
        weights = {first + j: arr for j, (_, arr) in enumerate(self.program.arg_weights())}
        hls = targets.build(s, target, mode=mode, project=project, weights=weights)
        if project is not None and self.boundary is not None:
            write_readme(project, self.boundary)
        if mode is None:
            return hls
        return TorchModule(hls, self, pass_weights=False)

    def quant_report(self, as_text=True):
        """Per computing layer (quantized or left in float32): precision, types (input / weight /
        accumulator / output), calibrated ranges, scales, and the error of the layer's output vs
        the float model on the calibration data (measured on an LLVM build of this model that also
        returns every layer's output). A table (str), or the rows as dicts with `as_text=False`.

        Example::

            mod = from_pytorch(model, [x], precision="int8", calibration_data=[[x1], [x2]])
            print(mod.imported.quant_report())
        """
        return quant_report(self, as_text)

    def summary(self) -> str:
        """A per-layer table: torch node, op, kernel instance(s), shapes, schedule applied."""
        rows = [("node", "op", "kernel instance", "input shapes", "output", "schedule")]
        for layer in self.program.layers:
            layer.kernel = ", ".join(c.instance() for c in layer.calls) or "view (no code)"
            ins = " ".join("x".join(map(str, s)) or "()" for s in layer.in_shapes)
            out = "x".join(map(str, layer.out_shape)) if layer.out_shape is not None else "-"
            rows.append((layer.var, layer.op, layer.kernel, ins, out, layer.schedule))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(lines)
