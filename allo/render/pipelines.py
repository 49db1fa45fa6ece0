"""Named MLIR pass pipelines, all run through `run_pipeline` (one place that reports failures).

Example::

    run_pipeline(module, "lower to LLVM", LLVM_PIPELINE)
    # on failure: BackendError("... mlir-opt -pass-pipeline='builtin.module(...)' in.mlir")
"""
from __future__ import annotations

from ..errors import BackendError

# Scalar CPU lowering: the pass order that takes affine/scf/memref/arith to LLVM. `arith-expand` turns
# floordivsi/ceildivsi and friends into basic arith; math ops without an LLVM intrinsic (erf, tanh, ...)
# become libm calls.
LLVM_PIPELINE = ", ".join([
    "arith-expand{include-bf16=true}",
    "lower-affine",
    "convert-scf-to-cf",
    "convert-math-to-llvm",
    "convert-math-to-libm",
    "expand-strided-metadata",
    "lower-affine",
    "finalize-memref-to-llvm",
    "convert-func-to-llvm",
    "convert-arith-to-llvm",
    "convert-index-to-llvm",
    "convert-cf-to-llvm",
    "reconcile-unrealized-casts",
])

CLEANUP_PIPELINE = "canonicalize, cse"


def run_pipeline(module, name: str, pipeline: str):
    """Run `pipeline` (comma-separated passes, anchored on builtin.module) on `module` in place.

    Raises BackendError naming the pipeline, with MLIR's diagnostics and an `mlir-opt` reproducer.

    Example::

        run_pipeline(m, "cleanup", CLEANUP_PIPELINE)
    """
    from mlir.passmanager import PassManager

    full = pipeline if pipeline.startswith("builtin.module(") else f"builtin.module({pipeline})"
    repro = f"mlir-opt -pass-pipeline='{full}' input.mlir"
    with module.context:
        try:
            pm = PassManager.parse(full)
        except Exception as e:
            raise BackendError(f"pass pipeline {name!r} does not parse: {e}\nreproducer: {repro}") from None
        try:
            pm.run(module.operation)
        except Exception as e:
            raise BackendError(f"pass pipeline {name!r} failed: {e}\nreproducer: {repro}") from None
    return module


__all__ = ["run_pipeline", "LLVM_PIPELINE", "CLEANUP_PIPELINE"]
