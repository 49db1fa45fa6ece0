"""`allo.frontend.from_pytorch` and `import_model`: the import pipeline, one direction of flow.

    capture (capture.py, fxnorm.py) -> normalize (normalize.py) -> lower through the op table
    (lower.py, context.py, ops/) -> emit source (codegen.py) -> compose schedules (compose.py)
    -> build (model.py, runtime.py)

Each stage reads only what the previous ones produced. Element types are decided by a TypePlan
(precision.py). Stages print a progress line on stderr when the import is slow (progress.py).
"""
from __future__ import annotations

import itertools

from ..errors import FrontendError
from ..schedule import targets
from .capture import capture
from .codegen import NnCall
from .model import TARGETS, ImportedModel
from .normalize import normalize
from .progress import Progress
from .quant.boundary import integer_boundary
from .quant.plan import plan_for
from .quant.torch_ao import reject_torch_quantized
from .requires import require_torch

_counter = itertools.count()


def from_pytorch(model, example_inputs, *, target="llvm", mode=None, project=None, threads=None, fast_math=False,
                 precision=None, calibration_data=None, weights_as_args=None, verbose=None, integer_only=False):
    """Import a PyTorch model traced on `example_inputs` and build it for `target`.

    Args:
        model: a `torch.nn.Module`. A model left in training mode is imported with eval semantics
            (dropout off, batch norm with running statistics) and a UserWarning says so; its mode
            is restored afterwards.
        example_inputs: a list (or tuple) of tensors, one per `forward` argument, or a single tensor
            for a one-input model. Shapes and dtypes are fixed from them.
        target: "llvm" (CPU JIT), "vhls" / "vitis_hls" (Vitis HLS C++), "rtl" (the statically
            scheduled Verilog circuit, simulated with Verilator), "calyx" or "mlir" (the schedule).
        mode: for HLS targets, "csim" returns a callable running the g++ C simulation; None returns
            the HLS module (`.hls_code`, `.write_project(dir)`, `.report()` when available).
        project: the HLS project folder (kernel.cpp/h, host.cpp, run.tcl, allo_ap.h, weights/).
        threads: CPU threads for the parallel loops of the LLVM build (default: all cores); the
            returned module's `threads` attribute can be set later (it rebuilds).
        fast_math: LLVM build with FMA contraction and reassociated float reductions (results
            differ from the default bit-exact build in the last bits).
        precision: quantization, hls4ml-style (docs/quantization.md): None / "float32" (default),
            "int8" (int8 weights per output channel and activations per tensor, int32 accumulation,
            integer requantization between layers), `allo.Fixed(16, 8)` (fixed point throughout),
            "auto" (int8 or 16-bit fixed point per layer from the calibrated ranges), a dict of
            roles `{"weight": ..., "activation": ..., "accum": ...}`, or a dict per op kind / layer
            name with "default" for the rest (`{"default": "int8", "relu": Fixed(16, 6), "fc2":
            "float32"}`). BatchNorm is folded into the conv/linear before it. The per-layer report is
            `mod.imported.quant_report()`. torch.ao quantized models are refused (FrontendError):
            import the float model with precision="int8" instead. A quantized import is an integer
            core (quantized inputs and outputs, `mod.core`, scales in `mod.imported.boundary`); the
            returned module quantizes / dequantizes on the host, so it still takes and returns floats.
        integer_only: with an integer precision ("int8", ...), also compute softmax, GELU, LayerNorm,
            average pooling, residual additions and scalings in integers (I-BERT-style kernels of
            allo.library.nn.intonly), so the core holds no float operation; an op without an
            integer form is a FrontendError. "auto" never implies it (it keeps float32 activations
            where they are more accurate). See docs/quantization.md.
        calibration_data: batches for post-training calibration: a list of input lists shaped like
            `example_inputs` (or any iterable of them); default: the example inputs.
        weights_as_args: True makes every weight a kernel argument, False none; by default weights
            above 65,536 elements are arguments (passed by the returned module, stored as binary
            files in the HLS project's weights/ folder) and smaller ones are memref.global constants.
        verbose: True prints the captured graph, the generated source and the MLIR module to stdout
            and a progress line per stage to stderr; None (default) prints the progress lines only
            when the import takes longer than about 2 s; False prints nothing.

    Returns, by target: "llvm" -> a callable taking the model inputs (numpy arrays or tensors) and
    returning numpy arrays in the model's output structure (`.cpu_report`, `.imported`, `.state`);
    "vhls" -> the HLS module (with mode="csim", a callable like the LLVM one); "rtl" -> a callable
    like the LLVM one running the Verilator simulation (`.cycles`, `.verilog`, `.synth()`);
    "calyx" -> a module simulating the Calyx route the same way (`.cycles`, `.calyx`, `.futil`); "mlir" -> the composed `allo.Schedule`. Unsupported operators raise `allo.FrontendError` naming the op, the graph node,
    the model's source line and the closest supported operators.

    Example::

        mod = from_pytorch(MLP().eval(), [torch.rand(8, 16)], verbose=True)
        res = mod(np.random.rand(8, 16).astype(np.float32))
        hls = from_pytorch(MLP().eval(), [torch.rand(8, 16)], target="vhls", mode="csim", project="mlp.prj")
        q = from_pytorch(MLP().eval(), [x], precision="int8", calibration_data=[[x1], [x2]])
    """
    require_torch("from_pytorch")
    if target not in TARGETS:
        raise FrontendError(f"unknown target {target!r}; use one of {', '.join(TARGETS)}")
    if mode is not None and targets.get(target).kind != "hls":
        raise FrontendError(f"mode={mode!r} needs an HLS target (target='vhls'); target {target!r} has no modes")
    if threads is not None and (not isinstance(threads, int) or isinstance(threads, bool) or threads < 1):
        raise FrontendError(f"threads must be a positive integer (or None for all cores), got {threads!r}")
    progress = Progress(verbose)
    imported = import_model(model, example_inputs, weights_as_args=weights_as_args, precision=precision,
                            calibration_data=calibration_data, integer_only=integer_only, verbose=verbose, _progress=progress)
    if verbose:
        print(imported.graph)
        print()
        print(imported.source)
    progress.start("compose", f"composing the schedules of {_instances(imported.program)} library instances")
    s = imported.schedule(pipeline_helpers=targets.get(target).kind != "cpu")
    progress.done("compose")
    if verbose:
        print(_module_text(s))
    progress.start("build", f"building for {target}" + (f" ({mode})" if mode else ""))
    built = imported.build(target, mode=mode, project=project, threads=threads, fast_math=fast_math)
    progress.done("build")
    progress.finish()
    return built


def import_model(model, example_inputs, weights_as_args=None, precision=None, calibration_data=None,
                 integer_only=False, verbose=None, _progress=None) -> ImportedModel:
    """Capture `model` and generate its DSL program without building it (see `from_pytorch`).

    Example::

        imported = import_model(model, [torch.rand(8, 16)])
        print(imported.source)          # the generated allo program
        print(imported.summary())       # op -> kernel instance table
        mod = imported.build("llvm")
    """
    require_torch("import_model")
    from .lower import has_handler, lower

    reject_torch_quantized(model)
    progress = _progress or Progress(verbose)
    progress.start("capture", "capturing the model with torch.export")
    cap = capture(model, example_inputs)
    progress.done("capture", f"{len(cap.nodes)} graph nodes ({cap.method})")
    graph = normalize(cap, has_handler)
    types = plan_for(precision, calibration_data, graph, example_inputs, integer_only)
    if getattr(types, "quantized", False):
        progress.done("calibrate", types.summary_line())
    progress.done("normalize", f"{len(graph.nodes)} nodes to lower" + (f", {len(graph.state)} mutated buffers"
                                                                        if graph.state else ""))
    prog = lower(graph, types, weights_as_args=weights_as_args)
    boundary = None
    if getattr(types, "quantized", False):
        prog, boundary = integer_boundary(graph, types, prog, lambda: lower(graph, types, weights_as_args=weights_as_args))
    source = prog.render()
    progress.done("lower", f"{len(prog.stmts)} kernel calls, {len(prog.weights)} weights")
    filename = f"<allo.frontend {type(model).__name__} #{next(_counter)}>"
    imported = ImportedModel(graph, prog, source, filename, types=types, boundary=boundary)
    if _progress is None:
        progress.finish()
    return imported


def _instances(prog) -> int:
    return len({(s.kernel, s.inst_id) for s in prog.stmts if isinstance(s, NnCall)})


def _module_text(s) -> str:
    """print(s.module), with weight constants elided (`dense_resource<__elided__>`) for readability."""
    try:
        return s.module.operation.get_asm(large_elements_limit=16)
    except (AttributeError, TypeError):
        return str(s.module)
