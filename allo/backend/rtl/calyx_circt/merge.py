"""An optimisation of the Calyx program lower-scf-to-calyx makes (CIRCT-only, runs in the CIRCT
child before the `.futil` is printed, so both the native text and the Verilog get it): adjacent
groups of a `seq` that are independent one-cycle register writes become one group.

lower-scf-to-calyx gives every load its own group (`bb0_1: load A[i]`, `bb0_2: load B[i]`), run
one after the other; each group costs at least two cycles in the FSM flow. Two such groups can
run in the same cycle when neither touches what the other drives or reads: the merged group has
every assignment of both and done = AND of their registers' dones (all written in the first cycle,
all done in the second), as the `par` stand-in does for iter-arg inits.

A group qualifies when its done is a register's done (unguarded) and every `write_en` it drives
is the constant 1 without a guard (no pipelined unit, no memory write). Groups A then B merge
when writes(A) is disjoint from writes(B) and reads(B), and writes(B) from reads(A), where a
group writes the cells (and external memories) whose ports it drives and reads the ones whose
ports its sources and guards use. Nested seqs are flattened first (same schedule).

Example::

    info = merge_independent_groups(comp)      # {"merged": groups removed, "runs": merged groups}
"""
from __future__ import annotations

from circt import ir

from .ir_util import Cell, Component, body, components, group_ref, ops_of, walk
from .standins import _done_is_a_register, _drop_unused_groups, _merge_groups


def _resource(comp: Component, v):
    """What a port belongs to: a cell's symbol, an external memory ("ext_mem<k>"), or a port name."""
    if ir.OpResult.isinstance(v):
        owner = ir.OpResult(v).owner
        if "sym_name" in owner.attributes:
            return ir.StringAttr(owner.attributes["sym_name"]).value
        return None  # a constant or a group-local comb op: its operands count instead
    name = comp.port_names[ir.BlockArgument(v).arg_number]
    return name.rsplit("_", 1)[0] if name.startswith("ext_mem") else name


def _reads_of(comp: Component, v, out: set):
    r = _resource(comp, v)
    if r is not None:
        out.add(r)
    elif ir.OpResult.isinstance(v):
        for x in ir.OpResult(v).owner.operands:
            _reads_of(comp, x, out)


def _footprint(comp: Component, group):
    """(writes, reads) of a qualifying group, or None when it does not qualify."""
    if group.name != "calyx.group" or not _done_is_a_register(comp, group):
        return None
    writes, reads = set(), set()
    for op in ops_of(body(group)):
        if op.name != "calyx.assign":
            continue
        dest, src, *guard = list(op.operands)
        port = _port_name(comp, dest)
        if port in ("go", "write_en") and not (port == "write_en" and not guard and _is_one(src)):
            return None
        writes.add(_resource(comp, dest))
        for x in [src, *guard]:
            _reads_of(comp, x, reads)
    return writes, reads


def _port_name(comp: Component, v) -> str:
    if ir.OpResult.isinstance(v):
        r = ir.OpResult(v)
        return Cell(r.owner).port_names[r.result_number]
    name = comp.port_names[ir.BlockArgument(v).arg_number]
    return "write_en" if name.endswith("write_en") else name


def _is_one(v) -> bool:
    if not ir.OpResult.isinstance(v):
        return False
    owner = ir.OpResult(v).owner
    return owner.name == "hw.constant" and ir.IntegerAttr(owner.attributes["value"]).value in (1, -1)


def _flatten_seqs(control):
    while True:  # one nested seq at a time: erasing ops invalidates a walk in progress
        nested = next(((op, kid) for op in walk(control) if op.name == "calyx.seq"
                       for kid in ops_of(body(op)) if kid.name == "calyx.seq"), None)
        if nested is None:
            return
        _, kid = nested
        for inner in ops_of(body(kid)):
            inner.move_before(kid)
        kid.erase()


def merge_independent_groups(comp: Component) -> dict:
    _flatten_seqs(comp.control())
    groups, info, k = comp.groups(), {"merged": 0, "runs": 0}, 0
    for seq in [op for op in walk(comp.control()) if op.name == "calyx.seq"]:
        run, fp_w, fp_r = [], set(), set()
        for kid in ops_of(body(seq)) + [None]:
            fp = _footprint(comp, groups[group_ref(kid)]) if kid is not None and kid.name == "calyx.enable" else None
            if fp is not None and run and not (fp[0] & (fp_w | fp_r) or fp_w & fp[1]):
                run.append(kid)
                fp_w |= fp[0]
                fp_r |= fp[1]
                continue
            if len(run) >= 2:
                name = _merge_groups(comp, [groups[group_ref(e)] for e in run], f"seq_merged_{k}")
                k += 1
                with ir.InsertionPoint(run[0]):
                    ir.Operation.create("calyx.enable", attributes={"groupName": ir.FlatSymbolRefAttr.get(name)})
                for e in run:
                    e.erase()
                info["merged"] += len(run) - 1
                info["runs"] += 1
            run, fp_w, fp_r = ([kid], set(fp[0]), set(fp[1])) if fp is not None else ([], set(), set())
    _drop_unused_groups(comp)
    return info


def merge_module(module) -> dict:
    """merge_independent_groups on every component of `module`, in place."""
    out = {"merged": 0, "runs": 0}
    for comp in components(module):
        for key, n in merge_independent_groups(comp).items():
            out[key] += n
    return out


__all__ = ["merge_independent_groups", "merge_module"]
