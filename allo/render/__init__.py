"""Render allo's loop IR (`allo.ir.nodes`) as MLIR text (affine/scf/memref/arith/math/func).

Two modes share one renderer:
- "view": what users see as `s.module` (seed style: `{name = "C"}` on allocs, `{from = "A"}` on
  loads, `{to = "C"}` on stores, `loop_name`/`op_name`/`pipeline_ii` on loops, `arg_names`).
- "llvm": what the CPU JIT compiles: allocations hoisted to the function entry (small ones on the
  stack), every owned allocation freed before returning, returned memrefs always fresh, `unroll`
  performed, HLS-only attributes dropped, and an entry wrapper `@__allo_entry_<top>` in
  destination-passing style (outputs are extra memref arguments, scalars come back in rank-0 memrefs).

Example::

    text = render_module(mod)                 # MLIR text of the whole module
    m = to_mlir_module(mod, mode="llvm")      # a parsed mlir.ir.Module

Layout, one job per module:
- `module`: module level (global constants, functions, the JIT entry wrapper).
- `func`: `_FuncRenderer` (SSA plumbing, function head, allocation, memory access), built from the
  mixins `stmts` (statements and loops), `exprs` (expressions), `arith` (operators) and `casts`.
- `scalars` (type categories, storage/ABI types, literals), `attrs` (attribute dictionaries),
  `affine` (affine index analysis), `unroll` (loop unrolling in "llvm" mode, capped per nest); walks and buffer
  references come from `allo.ir.visit` and `allo.ir.effects`.
- `pipelines`: the named MLIR pass pipelines, all run through `run_pipeline`.
- `process`: `check_mlir_process`, called before any use of allo's MLIR (refuses a process that
  imported `circt`).

May import: `allo.errors`, `allo.ir`, the `mlir` wheel.
"""
from __future__ import annotations

import re

import numpy as np

from ..errors import BackendError
from ..ir import nodes as N
# Re-exported: allo.backend.cpu subclasses the renderers and uses these helpers.
from .affine import aff_add, aff_const, aff_mul, aff_str, aff_vars, affine_form  # noqa: F401
from .arith import CMP, FIXED_OK, FLOAT_OPS, INT_OPS, SINT_OPS, UINT_OPS  # noqa: F401
from .attrs import IDENT, UI32_ATTRS, attr_dict, attr_value, quote  # noqa: F401
from .exprs import MATH  # noqa: F401
from .func import STACK_BYTES, FuncRenderer  # noqa: F401
from .module import ENTRY_PREFIX, ModuleRenderer, abi_to_compute, compute_to_storage, storage_array
from .process import check_mlir_process
from .scalars import (abi_scalar, cat, elem_bytes, fixed_raw, float_hex, i64_t, index_t, int_literal, scalar_storage,
                      type_bits)
from .unroll import FALLBACK_UNROLL, MAX_FULL_UNROLL, MAX_TOTAL_UNROLL, plan_unroll, unroll_for  # noqa: F401

BIG_GLOBAL = 256  # globals with more elements are attached after parsing by to_mlir_module


# ============================================================================ public API
def render_module(mod: N.Module, mode: str = "view") -> str:
    """MLIR text of `mod`; global data is written inline (hex blobs).

    Example::

        print(render_module(mod))             # func.func @gemm(%arg0: memref<32x32xf32>, ...
    """
    return render_text(mod, mode, big_limit=None)[0]


def to_mlir_module(mod: N.Module, mode: str = "view", context=None):
    """Parse the rendering of `mod` into an `mlir.ir.Module` (in `context` or a new Context).
    Large global constants are attached after parsing as DenseElementsAttr (fast for weights).

    Example::

        m = to_mlir_module(mod)
        print(m.operation.get_asm(large_elements_limit=16))
    """
    text, big = render_text(mod, mode, big_limit=BIG_GLOBAL)
    return parse_with_globals(text, big, context)


def parse_with_globals(text: str, big: dict, context=None):
    """Parse `text` and set the initial values of the globals named in `big` ({symbol: ndarray})."""
    check_mlir_process()
    from mlir import ir

    ctx = context if context is not None else ir.Context()
    with ctx, ir.Location.unknown():
        try:
            m = ir.Module.parse(text)
        except Exception as e:  # MLIRError: a renderer bug, show where
            raise BackendError(f"internal error: rendered MLIR does not parse:\n{e}\n--- text ---\n"
                               f"{_numbered(text, _error_lines(str(e)))}") from None
        if big:
            for op in m.body.operations:
                if op.operation.name != "memref.global":
                    continue
                sym = ir.StringAttr(op.attributes["sym_name"]).value
                if sym in big:
                    arr = big[sym]
                    op.attributes["initial_value"] = ir.DenseElementsAttr.get(np.ascontiguousarray(arr))
    return m


def render_with_globals(mod: N.Module, mode: str = "llvm") -> tuple[str, dict]:
    """(text with placeholder initialisers for big globals, {symbol: storage ndarray}); the pair
    identifies the module exactly (the LLVM backend hashes both for its cache)."""
    return render_text(mod, mode, big_limit=BIG_GLOBAL)


def _error_lines(message: str) -> list:
    """Line numbers an MLIR diagnostic points at (`"-":12:5: error ...`)."""
    return sorted({int(m) for m in re.findall(r'"-":(\d+):\d+', message)})


def _numbered(text, around=(), limit=400, context=3):
    """The numbered text: only `context` lines around the lines in `around`, when given."""
    lines = text.splitlines()
    keep = range(min(len(lines), limit))
    if around:
        keep = sorted({k for n in around[:3] for k in range(n - 1 - context, n + context) if 0 <= k < len(lines)})
    out, last = [], -1
    for k in keep:
        if k != last + 1:
            out.append("   ...")
        out.append(f"{k + 1:4d} {lines[k]}")
        last = k
    return "\n".join(out + (["   ..."] if last < len(lines) - 1 else []))


def render_text(mod: N.Module, mode: str, big_limit):
    if mode not in ("view", "llvm"):
        raise BackendError(f"unknown MLIR rendering mode {mode!r} (expected 'view' or 'llvm')")
    r = ModuleRenderer(mod, mode, big_limit)
    return r.render(), r.big


__all__ = ["render_module", "to_mlir_module", "render_with_globals", "parse_with_globals", "affine_form",
           "unroll_for", "storage_array", "ENTRY_PREFIX", "check_mlir_process"]
