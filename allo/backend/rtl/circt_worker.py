"""CIRCT step of the RTL flow, run as a separate process (`python circt_worker.py < request.json`).

It must never share a process with allo's `mlir` wheel: the two MLIR builds crash or deadlock when
both load (see docs/rtl.md). So this file imports only the standard library and `circt`, never
allo. Request (JSON on stdin): {"form": "verilog" | "calyx", "top": name, "mlir": generic text}.
Reply (JSON on stdout): {"ok": true, "verilog" | "calyx": text, "ports": [[name, dir, width]...]}
or {"ok": false, "stage": pipeline name, "error": diagnostics}. Before each stage the name is
written to stderr, so a crash (CIRCT 1.62 segfaults on some inputs) can be attributed.
"""
import io
import json
import sys

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
# Loads func/arith/cf/memref/scf into CIRCT's context: the pass's dependent dialects (1.62's
# register_dialects does not register them).
_LOAD_DIALECTS = "builtin.module(func.func(convert-affine-to-loopschedule))"


def _stage(name):
    sys.stderr.write(f"stage: {name}\n")
    sys.stderr.flush()


def _run(pm_text, module, passmanager):
    pm = passmanager.PassManager.parse(pm_text)
    pm.run(module.operation)


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
            try:
                _run(_LOAD_DIALECTS, empty, passmanager)
            except Exception:
                pass  # only its dependent dialects matter
            stage = "parse"
            _stage(stage)
            module = ir.Module.parse(req["mlir"])
            if req["form"] == "calyx":
                stage = "scf-to-calyx"
                _stage(stage)
                _run(CALYX_STAGE % req["top"], module, passmanager)
                reply = {"ok": True, "calyx": module.operation.get_asm(enable_debug_info=False)}
            else:
                for stage, text in VERILOG_STAGES:
                    _stage(stage)
                    _run(text, module, passmanager)
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
