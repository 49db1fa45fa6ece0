"""Calyx (CIRCT's calyx dialect) -> SystemVerilog with the passes pip circt 1.62 has: the FSM flow
of upstream `hlstool --calyx-hw` minus the transforms the wheel lacks, which `standins` replaces.

    canonicalize -> stand-ins -> lower-calyx-to-fsm -> materialize-calyx-to-fsm ->
    calyx-remove-groups-fsm -> lower-calyx-to-hw (+ hwfix.clock_fix) -> convert-fsm-to-sv ->
    hwfix.fsm_defaults, hwfix.inline_typedefs -> seq/sv lowering -> export_verilog

Example::

    verilog, info = calyx_to_verilog(module, run)      # run(pipeline text, module) runs a pass pipeline
"""
from __future__ import annotations

import io

import circt
from circt import ir, passmanager

from . import hwfix
from .standins import apply_standins

FSM_STAGES = [
    ("lower-calyx-to-fsm", "builtin.module(canonicalize, calyx.component(lower-calyx-to-fsm), canonicalize)"),
    ("materialize-calyx-to-fsm", "builtin.module(calyx.component(materialize-calyx-to-fsm), canonicalize)"),
    ("calyx-remove-groups-fsm", "builtin.module(calyx.component(calyx-remove-groups-fsm), canonicalize)"),
]
SV_STAGES = [
    ("convert-fsm-to-sv", "builtin.module(canonicalize, convert-fsm-to-sv)"),
    ("seq-to-sv", "builtin.module(canonicalize, hw.module(lower-seq-hlmem), hw-memory-sim, lower-seq-to-sv, "
                  "hw.module(hw-cleanup), hw.module(hw-legalize-modules), canonicalize, hw.module(prettify-verilog))"),
]


def run_pipeline(module, text: str, verify: bool = True):
    pm = passmanager.PassManager.parse(text)
    pm.enable_verifier(verify)
    pm.run(module.operation)


def calyx_to_verilog(module, stage, skip=()) -> tuple:
    """Lower `module` (calyx dialect, as lower-scf-to-calyx leaves it) to SystemVerilog in place.
    `stage(name)` is called before each step (for crash attribution); `skip`: stand-ins or hw fixes
    to leave out (for tests that show each is needed). Returns (verilog text, the calyx text after
    the stand-ins, {step: what it did})."""
    stage("canonicalize")
    run_pipeline(module, "builtin.module(canonicalize)")
    stage("stand-ins")
    info = apply_standins(module, skip=[s for s in skip if s not in hwfix.FIXES])
    module.operation.verify()
    fixed = module.operation.get_asm(enable_debug_info=False)
    for name, text in FSM_STAGES:
        stage(name)
        run_pipeline(module, text)
    stage("lower-calyx-to-hw")
    run_pipeline(module, "builtin.module(lower-calyx-to-hw)", verify=False)  # 1.62 builds invalid seq.compreg
    info["clock-fix"] = hwfix.clock_fix(module) if "clock-fix" not in skip else {}
    module.operation.verify()
    name, text = SV_STAGES[0]
    stage(name)
    run_pipeline(module, text)
    for fix in ("fsm-defaults", "inline-typedefs"):
        if fix not in skip:
            info[fix] = hwfix.FIXES[fix](module)
    name, text = SV_STAGES[1]
    stage(name)
    run_pipeline(module, text)
    stage("export-verilog")
    module.operation.attributes["circt.loweringOptions"] = ir.StringAttr.get("disallowLocalVariables")
    buf = io.StringIO()
    circt.export_verilog(module, buf)
    return buf.getvalue(), fixed, info


__all__ = ["calyx_to_verilog", "run_pipeline", "FSM_STAGES", "SV_STAGES"]
