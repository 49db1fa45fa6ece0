"""float32 on the handshake route, on allo's MLIR (before the handover to CIRCT): every float32
value becomes its bits (i32, memories memref<...xi32>) and every float operator a call of an
external function (units.py), which CIRCT 1.62 turns into a `handshake.instance` and then an
instance of an extern hw module with valid/ready ports (the SV allo adds, units.py).

Runs on the rendered module before allo's cf pipeline (so that `arith-expand` never rewrites
minimumf / maximumf into compares that order -0 and +0 differently from the LLVM build). Casts
between float32 and integers / fixed point are calls already (the renderer, render.py); negation
and absolute value are sign-bit logic (xori / andi), select, load, store and constants move bits.
Any float left (float64 / float16 / bfloat16, or an op with no unit) is a BackendError naming
the op and its kernel line (prepare.py's check names the allo operation first).

Example::

    names = floats_to_units(module)   # in place; ['allo_hsf_mul', 'allo_hsf_add', ...]
"""
from __future__ import annotations

import re

import numpy as np

from ....errors import BackendError
from ..hs_float_check import COVERED
from .units import CMPF, PREFIX, unit_signature

# float32 op -> unit kind (units.py)
BINARY = {"arith.addf": "add", "arith.subf": "sub", "arith.mulf": "mul", "arith.divf": "div", "arith.remf": "rem",
          "arith.minimumf": "min", "arith.maximumf": "max", "math.powf": "pow"}
UNARY = {"math.sqrt": "sqrt", "math.floor": "floor", "math.ceil": "ceil", "math.exp": "exp", "math.log": "log",
         "math.log2": "log2", "math.tanh": "tanh", "math.erf": "erf", "math.rsqrt": "rsqrt", "math.sin": "sin",
         "math.cos": "cos"}
SIGN = {"arith.negf": ("arith.xori", 0x80000000), "math.absf": ("arith.andi", 0x7FFFFFFF)}
_LOC = re.compile(r'loc\("([^"]+)":(\d+):\d+\)')


def _ops(module) -> list:
    from mlir import ir

    out = []
    module.operation.walk(lambda op: out.append(op) or ir.WalkResult.ADVANCE)
    return out


def _is_float(t) -> bool:
    from mlir import ir

    return isinstance(t, ir.FloatType)


def _where(op) -> str:
    m = _LOC.search(str(op.location))
    return f"{m.group(1)}:{m.group(2)}: " if m else ""


def _bits(t):
    """t with float32 replaced by i32 (scalars and memref elements); None when unchanged."""
    from mlir import ir

    i32 = ir.IntegerType.get_signless(32)
    if isinstance(t, ir.F32Type):
        return i32
    if isinstance(t, ir.MemRefType):
        m = ir.MemRefType(t)
        if isinstance(m.element_type, ir.F32Type):
            return ir.MemRefType.get(m.shape, i32, m.layout, m.memory_space)
    return None


def floats_to_units(module) -> list:
    """Rewrite `module` in place (see the module docstring); the names of the units it calls."""
    from mlir import ir

    used = {}
    with module.context, ir.Location.unknown():
        for op in _ops(module):
            _to_call(op, used)
        _retype(module)
        for op in _ops(module):
            if op.name == "arith.bitcast" and op.operands[0].type == op.results[0].type:
                op.results[0].replace_all_uses_with(op.operands[0])
                op.erase()
        _declare(module, used)
        _check_no_floats(module)
    return [n for n in _called(module) if n.startswith(PREFIX)]


def _called(module) -> list:
    return list(dict.fromkeys(op.attributes["callee"].value for op in _ops(module) if op.name == "func.call"))


def _bitcast(v, t):
    from mlir import ir

    return ir.Operation.create("arith.bitcast", results=[t], operands=[v]).results[0]


def _to_call(op, used: dict):
    """A float32 operator as a call of its unit on i32 bits (bitcasts around it; `_retype` later
    makes the f32 values i32 and the bitcasts identities)."""
    from mlir import ir

    name = op.name
    if name in BINARY or name in UNARY or name == "arith.cmpf" or name in SIGN:
        if not all(isinstance(v.type, ir.F32Type) for v in op.operands):
            return  # float64 / float16: left for _check_no_floats
    else:
        return
    i32, i1 = ir.IntegerType.get_signless(32), ir.IntegerType.get_signless(1)
    with ir.InsertionPoint(op), op.location:
        args = [_bitcast(v, i32) for v in op.operands]
        if name in SIGN:
            kind, mask = SIGN[name]
            c = ir.Operation.create("arith.constant", results=[i32],
                                    attributes={"value": ir.IntegerAttr.get(i32, _signed32(mask))}).results[0]
            r = ir.Operation.create(kind, results=[i32], operands=[args[0], c]).results[0]
        else:
            if name == "arith.cmpf":
                unit, rt = f"{PREFIX}cmp_{CMPF[ir.IntegerAttr(op.attributes['predicate']).value]}", i1
            else:
                unit, rt = PREFIX + (BINARY.get(name) or UNARY[name]), i32
            used[unit] = None
            r = ir.Operation.create("func.call", results=[rt], operands=args,
                                    attributes={"callee": ir.FlatSymbolRefAttr.get(unit)}).results[0]
        if isinstance(op.results[0].type, ir.F32Type):
            r = _bitcast(r, op.results[0].type)
    op.results[0].replace_all_uses_with(r)
    op.erase()


def _signed32(v: int) -> int:
    return v - (1 << 32) if v >> 31 else v


def _retype(module):
    """Every f32 value (op results, block arguments, memref elements, function types) as i32;
    f32 constants as i32 constants of their bits."""
    from mlir import ir

    i32 = ir.IntegerType.get_signless(32)
    for op in _ops(module):
        if op.name == "arith.constant" and isinstance(op.results[0].type, ir.F32Type):
            with ir.InsertionPoint(op), op.location:
                c = ir.Operation.create("arith.constant", results=[i32],
                                        attributes={"value": ir.IntegerAttr.get(i32, _signed32(_f32_bits(op)))})
            op.results[0].replace_all_uses_with(c.results[0])
            op.erase()
            continue
        for r in op.results:
            t = _bits(r.type)
            if t is not None:
                r.set_type(t)
        for region in op.regions:
            for block in region.blocks:
                for a in block.arguments:
                    t = _bits(a.type)
                    if t is not None:
                        a.set_type(t)
        if op.name == "func.func":
            ft = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            new = ir.FunctionType.get([_bits(t) or t for t in ft.inputs], [_bits(t) or t for t in ft.results])
            op.attributes["function_type"] = ir.TypeAttr.get(new)


def _f32_bits(op) -> int:
    """The bit pattern of an f32 arith.constant (NaN payloads kept: hex literals read as printed)."""
    from mlir import ir

    text = str(op.attributes["value"]).split(":")[0].strip()
    if text.lower().startswith("0x"):
        return int(text, 16)
    return int(np.array(ir.FloatAttr(op.attributes["value"]).value, dtype=np.float32).view(np.uint32))


def _declare(module, used: dict):
    """`func.func private @unit(iN, ...) -> iM` for the units the rewrite called (the renderer
    declared its casts already)."""
    from mlir import ir

    have = {op.attributes["sym_name"].value for op in module.body.operations if op.operation.name == "func.func"}
    for name in used:
        if name in have:
            continue
        ins, out = unit_signature(name)
        ft = ir.FunctionType.get([ir.IntegerType.get_signless(w) for w in ins], [ir.IntegerType.get_signless(out)])
        with ir.InsertionPoint.at_block_begin(module.body):
            ir.Operation.create("func.func", regions=1, attributes={
                "sym_name": ir.StringAttr.get(name), "function_type": ir.TypeAttr.get(ft),
                "sym_visibility": ir.StringAttr.get("private")})


def _check_no_floats(module):
    for op in _ops(module):
        types = [v.type for v in op.operands] + [r.type for r in op.results]
        for region in op.regions:
            for block in region.blocks:
                types += [a.type for a in block.arguments]
        bad = [t for t in types if _is_float(t) or _memref_of_float(t)]
        if bad:
            raise BackendError(f"{_where(op)}the handshake circuit (scheduling='dynamic') has no unit for `{op.name}` "
                               f"on {bad[0]}: its float units are float32 only ({COVERED}); build for 'llvm'")


def _memref_of_float(t) -> bool:
    from mlir import ir

    return isinstance(t, ir.MemRefType) and _is_float(ir.MemRefType(t).element_type)


__all__ = ["floats_to_units"]
