"""CIRCT step of the RTL flow, run as a separate process (`python circt_worker.py < request.json`).

It must never share a process with allo's `mlir` wheel: the two MLIR builds crash or deadlock when
both load (see docs/rtl.md). So this file imports only the standard library and `circt`, never
allo (the Calyx route's CIRCT side, calyx_circt/ beside this file, imports only circt too).
Request (JSON on stdin): {"form": "verilog" | "calyx" | "calyx-standins", "top": name, "mlir":
generic text}; "calyx" also takes "mem_sizes" ({ext_mem index: words}, for the .futil) and "skip" (stand-ins /
hw fixes to leave out, for tests; or "calyx_text" instead of "mlir" to start from calyx IR),
"calyx-standins" takes "calyx" (calyx dialect text) and "only" (the stand-ins to apply).
Reply (JSON on stdout): {"ok": true, "verilog": text, "ports": [[name, dir, width]...]} (verilog);
{"ok": true, "calyx", "futil", "fixed" (calyx after the stand-ins), "verilog", "ports", "info"}
(calyx); {"ok": true, "calyx", "info"} (calyx-standins); or {"ok": false, "stage": pipeline
name, "error": diagnostics}. Before each stage the name is written to stderr, so a crash (CIRCT
1.62 segfaults on some inputs) can be attributed.
"""
import io
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # calyx_circt, without importing allo
from calyx_circt.flow import calyx_to_verilog  # noqa: E402
from calyx_circt.futil import emit_futil  # noqa: E402
from calyx_circt.merge import merge_module  # noqa: E402
from calyx_circt.standins import apply_standins  # noqa: E402

# The Verilog route: cf -> handshake (dataflow circuit) -> hw/esi/seq -> sv -> SystemVerilog.
VERILOG_STAGES = [
    ("cf-to-handshake", "builtin.module(func.func(handshake-legalize-memrefs), lower-cf-to-handshake)"),
    ("handshake-extmem", "builtin.module(handshake-lower-extmem-to-hw)"),
    ("handshake-buffers", "builtin.module(handshake.func(canonicalize, handshake-materialize-forks-sinks, "
                          "canonicalize, handshake-insert-buffers{strategy=cycles buffer-size=1}, canonicalize))"),
    ("handshake-to-hw", "builtin.module(lower-handshake-to-hw)"),
    ("esi-to-hw", "builtin.module(lower-esi-ports, lower-esi-to-physical, lower-esi-to-hw)"),
    ("seq-to-sv", "builtin.module(hw.module(lower-seq-hlmem), hw-memory-sim, lower-seq-to-sv, "
                  "hw.module(hw-cleanup), hw.module(hw-legalize-modules), hw.module(prettify-verilog))"),
]
CALYX_STAGE = "builtin.module(lower-scf-to-calyx{top-level-function=%s})"
# Loads func/arith/cf/memref/scf (and calyx, for calyx text) into CIRCT's context: the passes'
# dependent dialects (1.62's register_dialects does not register them).
_LOAD_DIALECTS = ("builtin.module(func.func(convert-affine-to-loopschedule))", "builtin.module(lower-scf-to-calyx)")


def _stage(name):
    sys.stderr.write(f"stage: {name}\n")
    sys.stderr.flush()


def _run(pm_text, module, passmanager):
    pm = passmanager.PassManager.parse(pm_text)
    pm.run(module.operation)


def _name_extern_ports(module, ir):
    """Port names for the external handshake.funcs (allo's float units, allo/backend/rtl/hs_float/):
    1.62's cf-to-handshake gives them empty argNames/resNames, on which handshake-to-hw's
    getPortInfoForOpTypes crashes (segfault); in0.., out0.. are the names it gives a defined one."""
    for op in module.body.operations:
        if op.operation.name != "handshake.func" or op.regions[0].blocks:
            continue
        ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
        names = lambda prefix, n: ir.ArrayAttr.get([ir.StringAttr.get(f"{prefix}{k}") for k in range(n)])  # noqa: E731
        op.attributes["argNames"] = names("in", len(ftype.inputs))
        op.attributes["resNames"] = names("out", len(ftype.results))


def _ports(module, top, hw):
    """[[name, "in"|"out", bit width]] of hw.module `top`."""
    for op in module.body.operations:
        if op.operation.name != "hw.module":
            continue
        if op.attributes["sym_name"].value != top:
            continue
        mt = hw.ModuleType(op.attributes["module_type"].value)
        out = []
        for name, t in zip(mt.input_names, mt.input_types):
            out.append([name, "in", hw.get_bitwidth(t)])
        for name, t in zip(mt.output_names, mt.output_types):
            out.append([name, "out", hw.get_bitwidth(t)])
        return out
    raise RuntimeError(f"hw.module @{top} not found after lowering")


def _calyx(req, module, passmanager, stage_box):
    """scf -> calyx, its native text, then the stand-ins and the FSM flow to SystemVerilog."""

    def stage(name):
        stage_box[0] = name
        _stage(name)

    if "calyx_text" not in req:  # (tests hand in calyx dialect text directly)
        stage("scf-to-calyx")
        _run(CALYX_STAGE % req["top"], module, passmanager)
    merged = {}
    if "merge" not in req.get("skip", ()):
        stage("merge-groups")
        merged = merge_module(module)
        module.operation.verify()
    calyx = module.operation.get_asm(enable_debug_info=False)
    stage("futil")
    futil = emit_futil(module, req.get("mem_sizes", {}))
    verilog, fixed, info = calyx_to_verilog(module, stage, skip=[s for s in req.get("skip", ()) if s != "merge"])
    info["merge"] = merged
    return {"ok": True, "calyx": calyx, "futil": futil, "fixed": fixed, "verilog": verilog, "info": info}


def main():
    req = json.load(sys.stdin)
    import circt
    from circt import ir, passmanager
    from circt.dialects import hw

    ctx = ir.Context()
    circt.register_dialects(ctx)
    stage = "load dialects"
    try:
        with ctx, ir.Location.unknown():
            _stage(stage)
            empty = ir.Module.parse("module {}")
            for loader in _LOAD_DIALECTS:
                try:
                    _run(loader, empty, passmanager)
                except Exception:
                    pass  # only its dependent dialects matter
            stage = "parse"
            _stage(stage)
            if req["form"] == "calyx-standins":
                module = ir.Module.parse(req["calyx"])
                stage = "stand-ins"
                info = apply_standins(module, only=req.get("only"))
                module.operation.verify()
                reply = {"ok": True, "calyx": module.operation.get_asm(enable_debug_info=False), "info": info}
            elif req["form"] == "calyx":
                module = ir.Module.parse(req.get("calyx_text") or req["mlir"])
                box = [stage]
                try:
                    reply = _calyx(req, module, passmanager, box)
                finally:
                    stage = box[0]
                reply["ports"] = _ports(module, req["top"], hw)
            else:
                module = ir.Module.parse(req["mlir"])
                for stage, text in VERILOG_STAGES:
                    _stage(stage)
                    _run(text, module, passmanager)
                    if stage == "cf-to-handshake":
                        _name_extern_ports(module, ir)
                stage = "export-verilog"
                _stage(stage)
                module.operation.attributes["circt.loweringOptions"] = ir.StringAttr.get("disallowLocalVariables")
                ports = _ports(module, req["top"], hw)
                buf = io.StringIO()
                circt.export_verilog(module, buf)
                reply = {"ok": True, "verilog": buf.getvalue(), "ports": ports}
    except Exception as e:  # diagnostics of a failed pass or parse
        reply = {"ok": False, "stage": stage, "error": f"{type(e).__name__}: {e}"}
    sys.stdout.write(json.dumps(reply))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
