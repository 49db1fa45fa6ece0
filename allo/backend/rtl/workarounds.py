"""Rewrites of the cf-level MLIR (allo's MLIR wheel) around CIRCT 1.62's handshake-to-hw table.

CIRCT 1.62's `lower-handshake-to-hw` maps (measured here, and visible in its pattern table):
- `arith.divsi` to an UNSIGNED divider and `arith.divui` to a signed one (swapped): we swap the
  two ops before the handover, so the hardware divides as the kernel means;
- `arith.shli` to `comb.or` (a bitwise OR!): a shift by a constant becomes a multiply by 2^c,
  a variable shift a chain of selects between multiplies by 2^(2^k), one per shift-amount bit;
- `math.absi` has no pattern: it becomes a compare and a select.
Every other op must be in `SUPPORTED` (the table's ops); anything else is a BackendError naming it.

Example::

    apply_workarounds(module, "gemm")      # in place, before printing for CIRCT
"""
from __future__ import annotations

from ...errors import BackendError

SUPPORTED = {
    "func.func", "func.return", "cf.br", "cf.cond_br",
    "arith.constant", "arith.addi", "arith.subi", "arith.muli", "arith.divsi", "arith.divui", "arith.remsi",
    "arith.remui", "arith.andi", "arith.ori", "arith.xori", "arith.shrsi", "arith.shrui", "arith.cmpi",
    "arith.select", "arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast",
    "memref.load", "memref.store", "memref.alloc", "memref.alloca",
    "func.call",  # only of allo's float units (hs_float/): every other call is inlined by prepare.py
}
_SWAP = {"arith.divsi": "arith.divui", "arith.divui": "arith.divsi"}


def apply_workarounds(module, func_name: str):
    """Rewrite the ops CIRCT 1.62 lowers wrongly and check that every op is supported."""
    from mlir import ir

    ops = []
    module.operation.walk(lambda op: ops.append(op) or ir.WalkResult.ADVANCE)
    with module.context, ir.Location.unknown():
        for op in ops:
            name = op.name
            if name in _SWAP:
                _replace(op, _SWAP[name], list(op.operands))
            elif name == "arith.shli":
                _expand_shl(op)
            elif name == "math.absi":
                _expand_absi(op)
            elif name not in SUPPORTED and name != "builtin.module":
                raise BackendError(f"the RTL flow cannot lower `{name}` in {func_name!r}: CIRCT 1.62's "
                                   "handshake-to-hw lowering has no hardware for it")


def check_merges(module, func_name: str):
    """Every block must have at most two predecessors: with more, 1.62's cf-to-handshake builds a
    circuit that deadlocks (its `insert-merge-blocks` pre-pass is not in the wheel). allo's
    pipeline keeps scf-to-cf's two-way merges by not canonicalizing the cf-level CFG."""
    for op in module.body.operations:
        if op.operation.name != "func.func":
            continue
        for block in op.regions[0].blocks:
            if len(list(block.predecessors)) > 2:
                raise BackendError(f"internal error: a block of {func_name!r} merges more than two branches, "
                                   "which CIRCT 1.62's handshake lowering cannot schedule")


def localize_constants(module):
    """Give every block its own copy of the constants it uses.

    `lower-cf-to-handshake` passes a value defined in another block through every block in
    between (a merge/mux, a cond_br and a buffer per block edge), and canonicalize hoists all
    constants into the entry block; a copy per block instead becomes one `handshake.constant`
    fired by that block's control token. This roughly halves the design (and its build time)."""
    from mlir import ir

    consts = []
    module.operation.walk(lambda op: (consts.append(op) if op.name == "arith.constant" else None)
                          or ir.WalkResult.ADVANCE)
    for c in consts:
        home = c.block
        copies = {}
        for use in list(c.results[0].uses):
            user = use.owner.operation
            block = user.block
            if block == home:
                continue
            if block not in copies:
                copies[block] = c.clone(ip=ir.InsertionPoint.at_block_begin(block))
            user.operands[use.operand_number] = copies[block].results[0]
        if not list(c.results[0].uses):
            c.erase()


def _create(name, results, operands, attributes=None):
    from mlir import ir

    op = ir.Operation.create(name, results=results, operands=operands, attributes=attributes or {})
    return op.results[0] if results else op


def _const(value: int, t):
    from mlir import ir

    width = ir.IntegerType(t).width
    value &= (1 << width) - 1
    if value >> (width - 1):
        value -= 1 << width
    return _create("arith.constant", [t], [], {"value": ir.Attribute.parse(f"{value} : {t}")})


def _replace(op, name, operands):
    from mlir import ir

    with ir.InsertionPoint(op):
        new = _create(name, [op.results[0].type], operands)
    op.results[0].replace_all_uses_with(new)
    op.erase()


def _constant_value(v):
    owner = v.owner
    if hasattr(owner, "name") and owner.name == "arith.constant":
        from mlir import ir

        return ir.IntegerAttr(owner.attributes["value"]).value
    return None


def _expand_shl(op):
    """a << b without arith.shli: a * 2^b, with b >= width giving 0 (MLIR leaves that poison; allo's
    renderer guards out-of-range shifts itself, so any defined value is fine)."""
    from mlir import ir

    a, b = op.operands[0], op.operands[1]
    t = a.type
    width = ir.IntegerType(t).width
    with ir.InsertionPoint(op):
        c = _constant_value(b)
        if c is not None:
            result = _create("arith.muli", [t], [a, _const(1 << c if 0 <= c < width else 0, t)])
        else:
            result, one = a, _const(1, t)
            for k in range(max(1, (width - 1).bit_length())):
                bit = _create("arith.andi", [t], [_create("arith.shrui", [t], [b, _const(k, t)]), one])
                is_set = _create("arith.cmpi", [ir.IntegerType.get_signless(1)], [bit, one],
                                 {"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)})
                shifted = _create("arith.muli", [t], [result, _const(1 << (1 << k) if (1 << k) < width else 0, t)])
                result = _create("arith.select", [t], [is_set, shifted, result])
            too_far = _create("arith.cmpi", [ir.IntegerType.get_signless(1)], [b, _const(width, t)],
                              {"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 9)})  # uge
            result = _create("arith.select", [t], [too_far, _const(0, t), result])
    op.results[0].replace_all_uses_with(result)
    op.erase()


def _expand_absi(op):
    from mlir import ir

    x = op.operands[0]
    t = x.type
    with ir.InsertionPoint(op):
        zero = _const(0, t)
        neg = _create("arith.cmpi", [ir.IntegerType.get_signless(1)], [x, zero],
                      {"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 2)})  # slt
        result = _create("arith.select", [t], [neg, _create("arith.subi", [t], [zero, x]), x])
    op.results[0].replace_all_uses_with(result)
    op.erase()


__all__ = ["apply_workarounds", "check_merges", "localize_constants", "SUPPORTED"]
