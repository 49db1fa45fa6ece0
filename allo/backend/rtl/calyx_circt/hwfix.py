"""Fixes of CIRCT 1.62 bugs on the hw / sv IR of the Calyx route (see flow.py).

- `clock-fix`: lower-calyx-to-hw builds `seq.compreg` with the i1 clk wire as its clock (the
  verifier refuses it; fixed upstream later): a `seq.to_clock` goes in between.
- `fsm-defaults`: convert-fsm-to-sv assigns the next state and the FSM outputs only inside the
  `case` of an `always_comb`; Yosys infers a latch there and refuses it. A default assignment at
  the top of each always_comb (next state = current state) removes the latch.
- `inline-typedefs`: the FSM's state enum goes to a separate `fsm_enum_typedefs.sv` in
  export_verilog's stream; dropping the output-file attribute keeps it in the one text.

Example::

    hwfix.clock_fix(module); hwfix.FIXES["fsm-defaults"](module)
"""
from __future__ import annotations

from circt import ir
from circt.dialects import hw

from .ir_util import walk


def clock_fix(module) -> dict:
    clock_t = ir.Type.parse("!seq.clock")
    i1 = ir.IntegerType.get_signless(1)
    n = 0
    for op in list(walk(module.operation)):
        if op.name in ("seq.compreg", "seq.compreg.ce") and len(op.operands) > 1 and op.operands[1].type == i1:
            with ir.InsertionPoint(op):
                clk = ir.Operation.create("seq.to_clock", results=[clock_t], operands=[op.operands[1]]).result
            op.operands[1] = clk
            n += 1
    return {"to_clock": n}


def fsm_defaults(module) -> dict:
    n = 0
    for op in list(walk(module.operation)):
        if op.name != "sv.alwayscomb":
            continue
        block = op.regions[0].blocks[0]
        inner = list(walk(op))
        case = next((o for o in inner if o.name == "sv.case"), None)
        targets = []
        for o in inner:
            if o.name == "sv.bpassign" and o.operands[0] not in targets:
                targets.append(o.operands[0])
        defaults = []
        for t in targets:
            elem = hw.InOutType(t.type).element_type if hw.InOutType.isinstance(t.type) else None
            if case is not None and elem is not None and elem == case.operands[0].type:
                defaults.append((t, case.operands[0]))  # the next state defaults to the current one
            elif elem is not None and ir.IntegerType.isinstance(elem):
                with ir.InsertionPoint(op):
                    zero = ir.Operation.create("hw.constant", results=[elem],
                                               attributes={"value": ir.IntegerAttr.get(elem, 0)}).result
                defaults.append((t, zero))
        first = next(iter(block.operations), None)
        for t, v in defaults:
            ip = ir.InsertionPoint(first) if first is not None else ir.InsertionPoint(block)
            with ip:
                ir.Operation.create("sv.bpassign", operands=[t, v])
            n += 1
    return {"default_assignments": n}


def inline_typedefs(module) -> dict:
    dropped = 0
    for op in list(module.body.operations):
        op = op.operation
        if op.name == "sv.verbatim" and "fsm_enum_typedefs" in ir.StringAttr(op.attributes["format_string"]).value:
            op.erase()
            dropped += 1
        elif op.name == "hw.type_scope" and "output_file" in op.attributes:
            del op.attributes["output_file"]
            dropped += 1
    return {"changed": dropped}


FIXES = {"clock-fix": clock_fix, "fsm-defaults": fsm_defaults, "inline-typedefs": inline_typedefs}

__all__ = ["FIXES", "clock_fix", "fsm_defaults", "inline_typedefs"]
