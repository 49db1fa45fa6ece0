"""CPU optimisation for `s.build(target="llvm")`: no CPU schedule needed from the user.

`prepare(mod, ...)` works on a clone of the loop IR and returns the MLIR text to JIT plus the
pass pipeline and runtime libraries it needs:
1. IR rewrites (allo.backend.cpu.rewrite): scalar accumulators split into init + update nests,
   loop distribution, loop permutation for stride-1 inner loops, scalar replacement of
   reductions. Each only on nests it can prove safe; everything else is left as written.
2. Rendering (allo.backend.cpu.render): recognised contractions (GEMM, batched/transposed
   GEMM, direct convolution, ...) become register-tiled, cache-blocked vector code; loops marked
   parallel become OpenMP loops.
3. `fast_math=True` adds `fastmath<contract, reassoc>` flags (FMA, vectorised float reductions)
   and a polynomial exp; without it results are bit-identical to the unoptimised build.
HLS attributes (pipeline_ii, unroll, partition, dataflow) are ignored by this path.

Example::

    prep = prepare(ir_module, fast_math=False, threads=None)
    prep.text, prep.pipeline, prep.shared_libs
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

from ...errors import warn
from ...ir import nodes as N, visit as V
from ...ir.attrs import PARALLEL
from ...render import render_with_globals
from ...render.pipelines import LLVM_PIPELINE
from . import openmp
from .cpu.render import Arch, CpuConfig, render_cpu
from .cpu.rewrite import optimise_loops

FAST_MATH_FLAGS = "contract, reassoc"  # no nnan/ninf: NaN and inf keep IEEE behaviour
_FLOAT_ARITH = ("arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.negf", "arith.remf",
                "arith.maximumf", "arith.minimumf")


@dataclass
class Prepared:
    """What `LLVMModule` compiles: MLIR text (+ big global data), the lowering pipeline, extra
    shared libraries for the ExecutionEngine, and a report of what was optimised."""

    text: str
    big: dict
    pipeline: str
    shared_libs: list = field(default_factory=list)
    fast_math: bool = False
    threads: int = 1
    report: list = field(default_factory=list)

    @property
    def options(self) -> tuple:
        """Everything besides the text that changes the compiled code (for cache keys)."""
        return (self.pipeline, self.fast_math, tuple(self.shared_libs))


# ----------------------------------------------------------------------------- pipelines
def lowering_pipeline(vector: bool, omp_threads: int = 0) -> str:
    """The lowering pass list (comma separated) for scalar/vector code, optionally OpenMP.

    finalize-memref-to-llvm must run before convert-scf-to-cf when OpenMP is used.

    Example::

        run_pipeline(module, "llvm-lowering", lowering_pipeline(vector=True, omp_threads=2))
    """
    p = ["arith-expand{include-bf16=true}", "lower-affine"]
    if omp_threads:
        p += openmp.passes(omp_threads)
    if vector:
        p += ["convert-vector-to-scf{full-unroll=true}", "lower-affine"]
    p += ["convert-math-to-llvm", "convert-math-to-libm", "expand-strided-metadata", "lower-affine",
          "finalize-memref-to-llvm", "convert-scf-to-cf"]
    if vector:
        p += ["convert-vector-to-llvm"]
    p += ["convert-func-to-llvm", "convert-arith-to-llvm", "convert-index-to-llvm", "convert-cf-to-llvm",
          "convert-ub-to-llvm"]
    if omp_threads:
        p += ["convert-openmp-to-llvm"]
    p += ["reconcile-unrealized-casts"]
    return ", ".join(p)


# ----------------------------------------------------------------------------- machine
@functools.lru_cache(maxsize=None)
def host_arch():
    """Tile parameters for this CPU (AVX-512 if /proc/cpuinfo lists avx512f, else AVX2 sizes).

    Example::

        host_arch().vector_bytes      # 64 on an AVX-512 machine
    """
    flags = set()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    break
    except OSError:
        pass
    if "avx512f" in flags:
        return Arch(vector_bytes=64, acc_budget=28, max_row_vectors=4)  # 7x64 f32 tile: 28 + 4 zmm
    if "avx2" in flags or "avx" in flags:
        return Arch(vector_bytes=32, acc_budget=12, max_row_vectors=2)
    return Arch(vector_bytes=16, acc_budget=8, max_row_vectors=2)


def has_parallel(mod: N.Module) -> bool:
    return any(isinstance(s, N.For) and s.attrs.get(PARALLEL) for f in mod.funcs for s in V.walk_stmts(f.body))


# ----------------------------------------------------------------------------- entry points
def prepare(mod: N.Module, optimize: bool = True, fast_math: bool = False, threads: int | None = None) -> Prepared:
    """Optimise a clone of `mod` for this CPU and render it (see the module docstring).

    `optimize=False` renders the loops exactly as written (serial, scalar): the reference that
    optimised builds are tested against.

    Example::

        prep = prepare(s.ir, fast_math=True)
    """
    if optimize:
        try:
            return _prepare_optimised(mod, fast_math, threads)
        except Exception as e:  # an optimiser bug must not break a build that works unoptimised
            plain = prepare(mod, optimize=False, fast_math=fast_math, threads=threads)
            fallback_warning(e)
            return plain
    # exactly the plain backend: its renderer and its pipeline

    text, big = render_with_globals(mod, "llvm")
    return Prepared(text, big, LLVM_PIPELINE, [], bool(fast_math), 1, [])


def fallback_warning(err):
    """Warn that the optimised build failed and the loops are compiled as written."""
    warn(f"allo: CPU optimisation failed ({type(err).__name__}: {str(err)[:300]}); building the loops as written",
         RuntimeWarning)


def _prepare_optimised(mod: N.Module, fast_math: bool, threads) -> Prepared:
    use_omp, n, lib = openmp.parallel_plan(has_parallel(mod), threads)

    work = mod.clone()
    report = optimise_loops(work)
    config = CpuConfig(contractions=True, parallel=use_omp, arch=host_arch(), fast_math=bool(fast_math), threads=n)
    text, big, rep = render_cpu(work, config)
    report += rep
    vector = "vector." in text
    return Prepared(text, big, lowering_pipeline(vector, n if use_omp else 0), [lib] if use_omp else [],
                    bool(fast_math), n if use_omp else 1, report)


def optimize_mlir(module, prep: Prepared):
    """MLIR-level step on the parsed module, in place: fast-math flags on float arithmetic.

    Example::

        optimize_mlir(module, prep)   # arith.addf %a, %b fastmath<reassoc,contract> : f32
    """
    if not prep.fast_math:
        return module
    from mlir import ir

    flags = ir.Attribute.parse(f"#arith.fastmath<{FAST_MATH_FLAGS}>", module.context)

    def visit(op):
        if op.name in _FLOAT_ARITH:
            op.attributes["fastmath"] = flags
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return module


__all__ = ["prepare", "optimize_mlir", "Prepared", "lowering_pipeline", "host_arch", "FAST_MATH_FLAGS"]
