"""Small helpers over CIRCT's calyx dialect IR for the rewrites of this package (CIRCT-only: this
package runs in the CIRCT child process and imports nothing from allo).

The wheel has no Python classes for calyx ops, so ops are made generically
(`ir.Operation.create`) and recognised by name; a cell's port names come from `PORTS` (the
primitives scf-to-calyx makes), else from the SSA names its asm interface gives its results.

Example::

    comp = Component(module.body.operations[0])
    comp.port("clk"), comp.cells()[0].port_names, comp.groups()["bb0_1"]
"""
from __future__ import annotations

from circt import ir

CELL_SKIP = {"calyx.wires", "calyx.control", "hw.constant"}


def ops_of(block) -> list:
    return [o.operation for o in block.operations]


def walk(op):
    """`op` and every op nested in it, pre-order."""
    yield op
    for r in op.regions:
        for b in r.blocks:
            for o in b.operations:
                yield from walk(o.operation)


def body(op):
    """The single block of a single-region op."""
    return op.regions[0].blocks[0]


def symbol(op) -> str:
    return ir.StringAttr(op.attributes["sym_name"]).value


def group_ref(op) -> str | None:
    """The group an enable / while / if names (`groupName`), or None."""
    if "groupName" not in op.attributes:
        return None
    return ir.FlatSymbolRefAttr(op.attributes["groupName"]).value


def i1():
    return ir.IntegerType.get_signless(1)


def const(width: int, value: int, ip):
    """An `hw.constant` at insertion point `ip`."""
    t = ir.IntegerType.get_signless(width)
    with ip:
        return ir.Operation.create("hw.constant", results=[t],
                                   attributes={"value": ir.IntegerAttr.get(t, value)}).result


def assign(dest, src, guard=None):
    """`calyx.assign dest = [guard ?] src` at the current insertion point."""
    return ir.Operation.create("calyx.assign", operands=[dest, src] + ([guard] if guard is not None else []))


def comb(name: str, *operands):
    """A two-operand `comb.and` / `comb.xor` (i1) at the current insertion point."""
    return ir.Operation.create(f"comb.{name}", results=[operands[0].type], operands=list(operands)).result


_PIPE = ("clk", "reset", "go", "left", "right", "out", "done")
_UNARY = ("in", "out")
# The result ports of the calyx dialect's cells (CalyxPrimitives.td, CIRCT 1.62), by op name.
PORTS = {"register": ("in", "write_en", "clk", "reset", "out", "done"), "std_mux": ("cond", "tru", "fal", "out"),
         **{k: _PIPE for k in ("std_mult_pipe", "std_divu_pipe", "std_divs_pipe", "std_remu_pipe", "std_rems_pipe")},
         **{k: _UNARY for k in ("std_slice", "std_pad", "std_signext", "std_not", "std_wire")},
         **{k: ("left", "right", "out") for k in (
             "std_add", "std_sub", "std_and", "std_or", "std_xor", "std_lsh", "std_rsh", "std_srsh", "std_eq",
             "std_neq", "std_lt", "std_gt", "std_le", "std_ge", "std_slt", "std_sgt", "std_sle", "std_sge",
             "std_seq", "std_sneq")}}


class Cell:
    """A cell op (`calyx.register`, `calyx.std_add`, ...) with its ports by name."""

    def __init__(self, op):
        self.op = op
        self.kind = op.name.split(".", 1)[1]
        self.name = symbol(op)
        known = PORTS.get(self.kind)
        if known is not None and len(known) == len(op.results):
            self.port_names = list(known)
        else:  # other cells (memories): the names the op's asm interface gives its results
            self.port_names = [r.get_name().rsplit(".", 1)[-1] for r in op.results]

    def port(self, name: str):
        return self.op.results[self.port_names.index(name)]

    def has(self, name: str) -> bool:
        return name in self.port_names


class Component:
    """A `calyx.component`: its ports (block arguments by `portNames`), cells, wires and control."""

    def __init__(self, op):
        self.op = op
        self.name = symbol(op)
        self.block = body(op)
        self.port_names = [ir.StringAttr(a).value for a in ir.ArrayAttr(op.attributes["portNames"])]
        ft = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
        self.n_inputs = self._count_inputs(len(ft.inputs))

    def _count_inputs(self, n_ports: int) -> int:
        # portDirections: bit k set = port k is an output; ports list inputs first
        dirs = ir.IntegerAttr(self.op.attributes["portDirections"]).value & ((1 << n_ports) - 1)
        return next((k for k in range(n_ports) if dirs >> k & 1), n_ports)

    def port(self, name: str):
        return self.block.arguments[self.port_names.index(name)]

    def outputs(self) -> list:
        return [(self.port_names[k], self.block.arguments[k]) for k in range(self.n_inputs, len(self.port_names))]

    def inputs(self) -> list:
        return [(self.port_names[k], self.block.arguments[k]) for k in range(self.n_inputs)]

    def cells(self) -> list:
        return [Cell(o) for o in ops_of(self.block) if o.name not in CELL_SKIP and o.name.startswith("calyx.")]

    def wires(self):
        return next(o for o in ops_of(self.block) if o.name == "calyx.wires")

    def control(self):
        return next(o for o in ops_of(self.block) if o.name == "calyx.control")

    def groups(self) -> dict:
        """{name: op} of calyx.group / calyx.comb_group, in order."""
        return {symbol(o): o for o in ops_of(body(self.wires())) if o.name in ("calyx.group", "calyx.comb_group")}

    def first_cell_point(self):
        """An insertion point for new cells and constants: before calyx.wires."""
        return ir.InsertionPoint(self.wires())


def components(module) -> list:
    return [Component(o.operation) for o in module.body.operations if o.operation.name == "calyx.component"]


def assigns_in(block) -> list:
    return [o for o in ops_of(block) if o.name == "calyx.assign"]


def group_done(group):
    """(src, guard or None) of the group's calyx.group_done."""
    op = next(o for o in ops_of(body(group)) if o.name == "calyx.group_done")
    return op, op.operands[0], (op.operands[1] if len(op.operands) > 1 else None)


def new_register(comp: Component, name: str, width: int):
    """A `calyx.register @name` (ports in, write_en, clk, reset, out, done) before the wires."""
    t, b = ir.IntegerType.get_signless(width), i1()
    with comp.first_cell_point():
        op = ir.Operation.create("calyx.register", results=[t, b, b, b, t, b],
                                 attributes={"sym_name": ir.StringAttr.get(name)})
    return Cell(op)


def new_region_op(name: str, operands=(), attributes=None):
    """An op with one region holding one empty block, at the current insertion point."""
    op = ir.Operation.create(name, operands=list(operands), attributes=attributes or {}, regions=1)
    op.regions[0].blocks.append()
    return op


__all__ = ["Cell", "Component", "components", "walk", "body", "symbol", "group_ref", "const", "assign", "comb",
           "assigns_in", "group_done", "new_register", "new_region_op", "ops_of", "i1"]
