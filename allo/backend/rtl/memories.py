"""Arrange the memory arguments of the cf-level function for CIRCT 1.62's extmem lowering.

`handshake-lower-extmem-to-hw` (CIRCT 1.62) computes the position of each memory argument from
its index BEFORE the earlier memories were replaced by their ports, so it corrupts the function
(error or crash) as soon as a memory argument with more or fewer than one port precedes another
memory argument. This step makes the input always safe (one memory per port, at most one
multi-port memory, placed last), without changing what the kernel computes:

- an array that is only read gets one memory argument per load operation: each is a view of the
  same data (no ordering is needed between reads, so read parallelism stays as it was);
- all arrays that are written become ONE memory argument, last: their elements are laid one after
  the other in words of the widest element width (accesses add a base offset, narrower elements
  are truncated/extended). Ordering between stores and loads is then enforced by CIRCT as usual;
- array arguments the kernel never touches are dropped; scalars keep their order, first.

The returned layout tells the harness what each final argument holds.

Example::

    layout = legalize_memory_args(module, "gemm", hw_top.func.params)
    layout[0]   # Slot(kind="scalar", params=[0]) ...
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...errors import BackendError


@dataclass
class Segment:
    """Elements [base, base + size) of a memory argument hold kernel parameter `param`."""

    param: int
    base: int
    size: int
    bits: int  # storage width of the parameter's elements


@dataclass
class Slot:
    """One argument of the hardware top: a scalar parameter or a memory (view or merged)."""

    kind: str  # "scalar" | "memory"
    param: int = -1  # scalar: the kernel parameter
    segments: list = field(default_factory=list)  # memory: the parameters it holds
    bits: int = 0  # memory: word width
    written: bool = False

    @property
    def size(self) -> int:
        return sum(s.size for s in self.segments)


def _memref_info(t):
    from mlir import ir

    mt = ir.MemRefType(t)
    if len(mt.shape) != 1:
        raise BackendError(f"internal error: memory argument of type {t} is not one-dimensional")
    return mt.shape[0], ir.IntegerType(mt.element_type).width


def legalize_memory_args(module, func_name: str) -> list:
    """Rewrite the arguments of `func_name` in `module` (allo's MLIR, cf level) in place; returns
    the list of Slots describing the new arguments in order."""
    from mlir import ir

    func = _find_func(module, func_name)
    block = func.regions[0].blocks[0]
    old = list(block.arguments)
    scalars, views, written = [], [], []
    for k, a in enumerate(old):
        if a.type.typeid != ir.MemRefType.static_typeid:
            scalars.append(k)
            continue
        users = [u.owner for u in a.uses]
        names = {op.name for op in users}
        if not names <= {"memref.load", "memref.store"}:
            raise BackendError(f"internal error: memory argument {k} is used by {sorted(names)} (only loads and "
                               "stores are expected)")
        if "memref.store" in names:
            written.append(k)
        elif users:
            views.append((k, [op for op in users]))
    with module.context, ir.Location.unknown():
        slots, new_args = [], []
        for k in scalars:
            new_args.append((old[k], None))
            slots.append(Slot("scalar", param=k))
        for k, loads in views:
            size, bits = _memref_info(old[k].type)
            for ld in loads:
                new_args.append((old[k], ld))
                slots.append(Slot("memory", segments=[Segment(k, 0, size, bits)], bits=bits))
        if written:
            slots.append(_merge_written(block, old, written, new_args))
        _rebuild_arguments(func, block, old, new_args)
    return slots


def _find_func(module, name):
    for op in module.body.operations:
        if op.operation.name == "func.func" and op.attributes["sym_name"].value == name:
            return op
    raise BackendError(f"internal error: function {name!r} not found in the lowered module")


def _merge_written(block, old, written, new_args) -> Slot:
    """One memory for all written arrays; accesses are rebased (and width-converted) in place."""
    from mlir import ir

    segs, base, width = [], 0, 0
    for k in written:
        size, bits = _memref_info(old[k].type)
        segs.append(Segment(k, base, size, bits))
        base += size
        width = max(width, bits)
    merged_t = ir.MemRefType.get([base], ir.IntegerType.get_signless(width))
    merged = block.add_argument(merged_t, ir.Location.unknown())
    for seg in segs:
        for use in list(old[seg.param].uses):
            _rebase_access(use.owner, merged, seg, width)
    new_args.append((merged, "merged"))
    return Slot("memory", segments=segs, bits=width, written=True)


def _rebase_access(op, merged, seg: Segment, width: int):
    """Point load/store `op` at element `index + seg.base` of `merged` (words of `width` bits)."""
    from mlir import ir

    idx_pos = 1 if op.name == "memref.load" else 2
    index = op.operands[idx_pos]
    with ir.InsertionPoint(op):
        if seg.base:
            index_t = ir.IndexType.get()
            c = _create("arith.constant", [index_t], [], {"value": ir.IntegerAttr.get(index_t, seg.base)})
            index = _create("arith.addi", [index_t], [index, c])
        wide_t = ir.IntegerType.get_signless(width)
        if op.name == "memref.load":
            if seg.bits == width:
                op.operands[0] = merged
                op.operands[1] = index
                return
            word = _create("memref.load", [wide_t], [merged, index])
            value = _create("arith.trunci", [op.results[0].type], [word])
            op.results[0].replace_all_uses_with(value)
        else:
            value = op.operands[0]
            if seg.bits != width:
                value = _create("arith.extui", [wide_t], [value])
            _create("memref.store", [], [value, merged, index])
    op.erase()


def _create(name, results, operands, attributes=None):
    from mlir import ir

    op = ir.Operation.create(name, results=results, operands=operands, attributes=attributes or {})
    return op.results[0] if results else op


def _rebuild_arguments(func, block, old, new_args):
    """Give the function the arguments `new_args` in order: (value, load) pairs make a fresh
    argument per load of a read-only array; the merged memory is already an argument."""
    from mlir import ir

    final = []
    for value, how in new_args:
        if how == "merged":
            final.append(value)
            continue
        arg = block.add_argument(value.type, ir.Location.unknown())
        if how is None:
            value.replace_all_uses_with(arg)
        else:
            how.operands[0] = arg
        final.append(arg)
    # the merged argument was added before the others: move it last by re-adding it
    merged = [a for a, (v, how) in zip(final, new_args) if how == "merged"]
    if merged:
        last = block.add_argument(merged[0].type, ir.Location.unknown())
        merged[0].replace_all_uses_with(last)
        final[-1] = last
    for i in reversed(range(len(block.arguments))):
        a = block.arguments[i]
        if not any(a == f for f in final):
            if list(a.uses):
                raise BackendError(f"internal error: argument {i} still has uses after the memory rewrite")
            block.erase_argument(i)
    types = [a.type for a in block.arguments]
    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(types, ftype.results))
    if "arg_names" in func.attributes:
        del func.attributes["arg_names"]


__all__ = ["Segment", "Slot", "legalize_memory_args"]
