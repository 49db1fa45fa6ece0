"""The `allo` console script.

    allo compile MODULE:FACTORY --input-shape 8x16 [--input-shape 8:int64 ...]
                 [--target llvm|vhls|vitis_hls|rtl|calyx|mlir] [-o DIR] [--weights-as-args] [--csim]
                 [--threads N] [--fast-math] [--precision P [--integer-only]]
    allo ops                      # list the PyTorch operators the frontend imports

`MODULE` is an importable module name or a path to a .py file; `FACTORY` names an nn.Module class,
a function returning a model, or a model instance in it. `compile` imports the model, prints a
per-layer table (op, kernel instance, shapes, schedule applied) and writes the artifacts to DIR:
graph.txt (captured graph), model.py (generated DSL source), weights.npz, module.mlir and
summary.txt. With --target vhls DIR is also a complete Vitis HLS / C simulation project:
kernel.cpp, kernel.h, host.cpp, run.tcl, allo_ap.h, build.sh, data/ (the random example inputs)
and, when the model has weights above 65,536 elements, weights/ (binary files), so `sh build.sh
&& ./csim data weights` (in DIR) or `vitis_hls -f run.tcl` run as written; --csim also runs the C simulation
and reports the largest difference from PyTorch. With --target llvm it runs the model on the
random inputs and reports the largest difference from PyTorch. With --target rtl (integer or
fixed-point models) DIR also holds the SystemVerilog design and its Verilator testbench (see the
README.md written there); the simulation runs on the random inputs and the difference from PyTorch
and the cycle count are reported. With --precision the core's arguments and results are the
quantized values (int8 or Fixed); the types, scales and zero points are printed and, for vhls and
rtl, in DIR/README.md. --integer-only (with an integer --precision) also computes softmax, GELU,
LayerNorm, pooling and residual adds in integers (`from_pytorch(..., integer_only=True)`), so a
transformer block builds for --target rtl without float units. --target calyx does the same through Calyx; DIR also holds the Calyx IR and
the native .futil.

Exit codes: 0 done; 2 a usage error (argparse's) or an `AlloError`, printed alone on stderr as
`allo compile: error: <what to fix>` (a bad model name or input shape, a model allo cannot import,
torch not installed, a build that fails).

Example::

    allo compile examples/mlp.py:MLP --input-shape 8x16 --target vhls --csim -o out/
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import re
import sys
from pathlib import Path

import numpy as np

from .errors import AlloError
from .frontend import import_model
from .frontend.ops import supported_ops
from .frontend.requires import require_torch
from .ir.types import Fixed
from .schedule import targets

DTYPES = ("float32", "float64", "int64", "int32", "bool")


def parse_shape(text: str):
    """`"8x16"` / `"2,8,32"` / `"8:int64"` -> ((8, 16), "float32")."""
    shape_text, _, dtype = text.partition(":")
    dtype = dtype or "float32"
    if dtype not in DTYPES:
        raise AlloError(f"--input-shape {text!r}: unknown dtype {dtype!r}; use one of {', '.join(DTYPES)}")
    parts = [p for p in shape_text.replace(",", "x").split("x") if p.strip()]
    try:
        shape = tuple(int(p) for p in parts)
    except ValueError:
        raise AlloError(f"--input-shape {text!r}: expected sizes like 8x16 (optionally :int64)") from None
    if any(d <= 0 for d in shape):
        raise AlloError(f"--input-shape {text!r}: sizes must be positive")
    return shape, dtype


def load_model(spec: str):
    """Import `MODULE:FACTORY` and return the nn.Module (calling a class/factory without arguments)."""
    torch = require_torch("allo compile")

    module_name, sep, attr = spec.rpartition(":")
    if not sep or not module_name or not attr:
        raise AlloError(f"model {spec!r}: expected MODULE:FACTORY, e.g. mymodels.py:MLP or mypkg.models:make_mlp")
    path = Path(module_name)
    if module_name.endswith(".py") or path.exists():
        if not path.exists():
            raise AlloError(f"model {spec!r}: file {module_name} does not exist")
        sys.path.insert(0, str(path.resolve().parent))
        mod_spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(mod_spec)
        mod_spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(module_name)
        except ImportError as e:
            raise AlloError(f"model {spec!r}: cannot import {module_name!r}: {e}") from None
    if not hasattr(module, attr):
        names = [n for n in dir(module) if not n.startswith("_")]
        raise AlloError(f"model {spec!r}: {module_name} has no {attr!r} (it has: {', '.join(names)})")
    obj = getattr(module, attr)
    model = obj if isinstance(obj, torch.nn.Module) else obj()
    if not isinstance(model, torch.nn.Module):
        raise AlloError(f"model {spec!r}: {attr}() returned {type(model).__name__}, not a torch.nn.Module")
    return model.eval()


def example_inputs(shapes, seed=0):
    import torch

    gen = torch.Generator().manual_seed(seed)
    out = []
    for shape, dtype in shapes:
        if dtype in ("int64", "int32"):
            out.append(torch.randint(0, 4, shape, generator=gen, dtype=getattr(torch, dtype)))
        elif dtype == "bool":
            out.append(torch.rand(shape, generator=gen) > 0.5)
        else:
            out.append(torch.rand(shape, generator=gen, dtype=getattr(torch, dtype)))
    return out


def cmd_compile(args) -> int:
    shapes = [parse_shape(s) for s in args.input_shape]
    kind = targets.get(args.target).kind
    if args.csim and kind != "hls":
        raise AlloError("--csim needs --target vhls (the C simulation runs the HLS C++)")
    model = load_model(args.model)
    inputs = example_inputs(shapes)
    precision = parse_precision(args.precision)
    if args.integer_only and precision is None:
        raise AlloError("--integer-only needs an integer --precision (e.g. --precision int8)")
    calibration = None
    if precision is not None:
        calibration = [example_inputs(shapes, seed=1 + k) for k in range(args.calibration_batches)]
    imported = import_model(model, inputs, weights_as_args=True if args.weights_as_args else None,
                            precision=precision, calibration_data=calibration, integer_only=args.integer_only)
    if precision is not None:
        print(imported.quant_report())
        print(imported.boundary.readme())
    s = imported.schedule(pipeline_helpers=kind != "cpu")
    out_dir = Path(args.output or Path("allo_out") / args.model.rpartition(":")[2])
    out_dir.mkdir(parents=True, exist_ok=True)
    summary = imported.summary()
    print(f"{args.model}: {len(imported.layers)} graph nodes, target {args.target}")
    print(summary)
    (out_dir / "graph.txt").write_text(str(imported.graph))
    (out_dir / "model.py").write_text(imported.source)
    np.savez(out_dir / "weights.npz", **{name: arr for name, (_, arr) in imported.program.weights.items()})
    (out_dir / "module.mlir").write_text(str(s.module))
    (out_dir / "summary.txt").write_text(summary + "\n")
    written = ["graph.txt", "model.py", "weights.npz", "module.mlir", "summary.txt"]
    written += BUILDS[kind](imported, args, out_dir, model, inputs)
    print(f"wrote {', '.join(written)} to {out_dir}")
    return 0


def _build_hls(imported, args, out_dir, model, inputs) -> list:
    """The HLS project (csim mode) with the example inputs; --csim runs it and compares with torch."""
    np_inputs = [x.numpy() for x in inputs]
    mod = imported.build(args.target, mode="csim", project=str(out_dir))
    core_inputs = imported.boundary.to_core(np_inputs) if imported.boundary is not None else np_inputs
    mod.built.write_inputs(*core_inputs, *[mod.state[v.state] for v, _, _ in imported.program.state])
    written = ["kernel.cpp", "kernel.h", "host.cpp", "run.tcl", "allo_ap.h", "build.sh", "data/"]
    written += ["weights/"] if mod.built.weight_files else []
    if args.csim:
        print(f"csim: max |allo - torch| on random inputs = {_max_error(model, inputs, mod(*np_inputs)):.3g}")
    return written


def _build_cpu(imported, args, out_dir, model, inputs) -> list:
    mod = imported.build(args.target, threads=args.threads, fast_math=args.fast_math)
    result = mod(*[x.numpy() for x in inputs])
    print(f"{args.target}: max |allo - torch| on random inputs = {_max_error(model, inputs, result):.3g}")
    return []


def _build_verilog(imported, args, out_dir, model, inputs) -> list:
    """The SystemVerilog design and its testbench; runs the Verilator simulation and compares with torch."""
    mod = imported.build(args.target)
    written = _new_files(out_dir, lambda: mod.write(out_dir))
    result = mod(*[x.numpy() for x in inputs])
    print(f"{args.target}: max |allo - torch| on random inputs = {_max_error(model, inputs, result):.3g} "
          f"({mod.cycles} cycles)")
    return written


def _new_files(out_dir: Path, write) -> list:
    """The names of the files `write()` adds to `out_dir` or rewrites."""
    before = {p: p.stat().st_mtime_ns for p in out_dir.iterdir()}
    write()
    return sorted(p.name for p in out_dir.iterdir() if before.get(p) != p.stat().st_mtime_ns)


def _build_vendor(imported, args, out_dir, model, inputs) -> list:
    """The Catapult / XLS[cc] project (its tool runs it; nothing is simulated here)."""
    return _new_files(out_dir, lambda: imported.build(args.target, project=str(out_dir)))


BUILDS = {"hls": _build_hls, "cpu": _build_cpu, "verilog": _build_verilog, "calyx": _build_verilog,
          "vendor": _build_vendor, "schedule": lambda *_: []}  # per target kind (allo.schedule.targets): what `compile` writes and runs


def parse_precision(text):
    """`--precision`: int8 / int4..int16 / auto / float32 / Fixed(16,8) (None when not given)."""
    if text is None:
        return None
    m = re.fullmatch(r"\s*Fixed\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*", text)
    if m:
        return Fixed(int(m.group(1)), int(m.group(2)))
    return text


def _max_error(model, inputs, result) -> float:
    import torch

    with torch.no_grad():
        golden = model(*inputs)
    flat_ref = [t for t in torch.utils._pytree.tree_leaves(golden) if isinstance(t, torch.Tensor)]
    flat_out = [r for r in torch.utils._pytree.tree_leaves(result) if isinstance(r, np.ndarray)]
    return max((float(np.max(np.abs(o.astype(np.float64) - r.detach().numpy().astype(np.float64))))
                for o, r in zip(flat_out, flat_ref) if r.numel()), default=0.0)


def cmd_ops(args) -> int:
    for op in supported_ops():
        print(op)
    return 0


def build_parser():
    parser = argparse.ArgumentParser(prog="allo", description="allo: accelerator design language tools")
    sub = parser.add_subparsers(dest="command")
    c = sub.add_parser("compile", help="import a PyTorch model and build it",
                       description="Import a PyTorch model (MODULE:FACTORY) and build it for a target.")
    c.add_argument("model", help="MODULE:FACTORY, e.g. models.py:MLP or pkg.models:make_model")
    c.add_argument("--input-shape", action="append", required=True, metavar="SHAPE",
                   help="one per model input, e.g. 8x16 or 2x8:int64")
    c.add_argument("--target", choices=targets.names(), default="llvm")
    c.add_argument("-o", "--output", metavar="DIR", help="artifact directory (default allo_out/FACTORY)")
    c.add_argument("--weights-as-args", action="store_true", help="pass every weight as a kernel argument")
    c.add_argument("--csim", action="store_true", help="(vhls) compile and run the C simulation, compare with torch")
    c.add_argument("--precision", metavar="P", help="quantize: int8, auto, Fixed(16,8) (random calibration batches; "
                   "prints the quant report)")
    c.add_argument("--integer-only", action="store_true",
                   help="with --precision int8: softmax / GELU / LayerNorm / pooling / adds in integers too")
    c.add_argument("--calibration-batches", type=int, default=8, metavar="N", help="random calibration batches")
    c.add_argument("--threads", type=int, default=None, help="(llvm) CPU threads (default: all cores)")
    c.add_argument("--fast-math", action="store_true", help="(llvm) FMA and reassociated float reductions")
    c.set_defaults(func=cmd_compile)
    o = sub.add_parser("ops", help="list the PyTorch operators the frontend supports")
    o.set_defaults(func=cmd_ops)
    return parser


def main(argv=None) -> int:
    """Entry point of the `allo` console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args)
    except AlloError as e:  # what to fix, on one line: no traceback (as argparse does for its own errors)
        print(f"allo {args.command}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
