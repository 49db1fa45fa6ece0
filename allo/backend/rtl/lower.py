"""allo's side of the handover to CIRCT: render the prepared top function, lower it with allo's
own MLIR wheel to the form CIRCT 1.62 parses, and print it in generic form.

Two forms are produced (CIRCT's wheel has neither `lower-affine` nor `convert-scf-to-cf`):
- "handshake": the cf dialect (for `lower-cf-to-handshake`, the Verilog route);
- "calyx": scf.while loops (for `lower-scf-to-calyx`).

The rendering uses the "llvm" mode of allo.render (loops marked `unroll` are unrolled, HLS-only
attributes dropped, scalar locals on the stack so that `mem2reg` turns them into SSA values).

Example::

    text = lower_for_circt(prepare_for_hw(ir_module), "handshake")
"""
from __future__ import annotations

import re

from ...errors import BackendError
from ...ir import nodes as N
from ...render.func import FuncRenderer
from ...render.module import ModuleRenderer
from ...render.pipelines import run_pipeline
from ...render.process import check_mlir_process
from .hs_float import FloatCastMixin, floats_to_units, unit_declarations
from .memories import legalize_memory_args
from .prepare import HWTop
from .workarounds import apply_workarounds, check_merges, localize_constants

# allo's MLIR (LLVM 22) -> the dialects CIRCT 1.62 reads. `arith-expand` rewrites floordivsi,
# ceildivsi, maxsi/minsi, ... into basic arith that the handshake-to-hw lowering knows. No
# canonicalize after convert-scf-to-cf: it merges if/elif continuation blocks into blocks with
# three or more predecessors, which 1.62's cf-to-handshake turns into a deadlocking circuit. The
# last step only folds (no patterns, no region simplification: the CFG stays as it is): what CSE and
# mem2reg expose (`A[i] - A[i]` is `x - x` once the two loads are one) must not be left for CIRCT's
# canonicalize after cf-to-handshake, whose folded `arith.constant`s handshake-to-hw cannot lower.
FOLD_ONLY = "canonicalize{region-simplify=disabled enable-patterns=allo-fold-only}"
HANDSHAKE_PIPELINE = f"arith-expand, lower-affine, canonicalize, convert-scf-to-cf, mem2reg, cse, {FOLD_ONLY}"
# Calyx: scalars must be loop-carried SSA values (registers), not 1-element memories, and mem2reg
# does not promote across scf regions: lower to the CFG, promote, then lift the CFG back to
# scf.while (what lower-scf-to-calyx reads).
CALYX_PIPELINE = ("arith-expand, lower-affine, convert-scf-to-cf, canonicalize, mem2reg, canonicalize, cse, "
                  "lift-cf-to-scf, canonicalize, cse")

# Attributes that LLVM 22 prints and CIRCT 1.62 cannot parse (or does not need).
_OVERFLOW = re.compile(r"<\{overflowFlags = #arith\.overflow<[a-z, ]*>\}>\s*")


class HWFuncRenderer(FloatCastMixin, FuncRenderer):
    """allo's "llvm" rendering with every local a `memref.alloca`: in hardware a local array is an
    on-chip memory of the design whatever its size (never a heap allocation with a dealloc, which
    neither CIRCT lowering has hardware for); float32 casts as calls of conversion units
    (hs_float/render.py)."""

    stack_bytes = None


def render_top(hw: HWTop, form: str = "handshake") -> str:
    """MLIR text (allo's "llvm" rendering) of the single prepared function."""
    mod = N.Module([hw.func], hw.func.name)
    r = ModuleRenderer(mod, "llvm", None)
    fr = HWFuncRenderer(r, hw.func)
    body = fr.render()
    if r.global_lines:  # prepare_for_hw turned every global into an argument
        raise BackendError("internal error: a global constant is left in the hardware function")
    return "module {\n" + unit_declarations(fr) + body + "}\n"


def poison_to_zero(module):
    """lift-cf-to-scf passes `ub.poison` into loops for values not yet defined on entry (1.62 has no
    ub dialect): zero is one of the values poison may take."""
    from mlir import ir

    ops = []
    module.operation.walk(lambda op: ops.append(op) or ir.WalkResult.ADVANCE)
    with module.context, ir.Location.unknown():
        for op in ops:
            if op.name != "ub.poison":
                continue
            t = op.results[0].type
            with ir.InsertionPoint(op):
                zero = ir.Operation.create("arith.constant", results=[t],
                                           attributes={"value": ir.IntegerAttr.get(t, 0)})
            op.results[0].replace_all_uses_with(zero.results[0])
            op.erase()


def lower_for_circt(hw: HWTop, form: str = "handshake"):
    """(generic-form MLIR text for CIRCT, readable text, argument layout) of the prepared top in
    `form` ("handshake" = cf level, memory arguments legalised; "calyx" = scf.while loops)."""
    check_mlir_process()
    from mlir import ir

    pipeline = {"handshake": HANDSHAKE_PIPELINE, "calyx": CALYX_PIPELINE}[form]
    text = render_top(hw, form)
    ctx = ir.Context()
    with ctx, ir.Location.unknown():
        try:
            module = ir.Module.parse(text)
        except Exception as e:
            raise BackendError(f"internal error: the hardware rendering does not parse: {e}") from None
        layout = None
        if form == "handshake":  # float32 as bits, float operators as calls of allo's units
            hw.float_units = floats_to_units(module)
        run_pipeline(module, f"{form} preparation", pipeline)
        if form == "handshake":
            apply_workarounds(module, hw.func.name)
            check_merges(module, hw.func.name)
            localize_constants(module)
            layout = legalize_memory_args(module, hw.func.name)
            try:
                module.operation.verify()
            except Exception as e:
                raise BackendError(f"internal error: the memory rewrite broke the module: {e}") from None
        else:
            poison_to_zero(module)
        generic = module.operation.get_asm(print_generic_op_form=True, enable_debug_info=False)
        readable = module.operation.get_asm(enable_debug_info=False)
    return _OVERFLOW.sub("", generic), readable, layout


__all__ = ["render_top", "lower_for_circt", "HANDSHAKE_PIPELINE", "CALYX_PIPELINE"]
