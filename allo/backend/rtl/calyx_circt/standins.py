"""Stand-ins for the Calyx transform passes that pip circt 1.62 lacks, as rewrites of the calyx
dialect IR, so that its lower-calyx-to-fsm / materialize-calyx-to-fsm / calyx-remove-groups-fsm /
lower-calyx-to-hw can take what lower-scf-to-calyx makes. Each one was shown necessary (leaving it
out fails a pass or simulates wrongly; tests/test_rtl_calyx_standins.py). Upstream pass in brackets:

- `comb-groups` [calyx-remove-comb-groups]: lower-calyx-to-fsm reads a while/if condition port
  directly and ignores `with @comb_group` (then complains the group is unused). A comb group
  whose destinations nothing else drives becomes continuous assignments; otherwise (a shared
  adder, say) it becomes a group that registers the condition, enabled before the while/if and
  at the end of the while body, as upstream does.
- `par` [none: CalyxToFSM has no calyx.par]: a par of enables whose groups each finish on one
  register's done (scf-to-calyx's iter-arg inits) becomes one group with every assignment and
  done = AND of the dones (the registers all write in the same cycle); any other par runs as a seq
  (a legal Calyx schedule of a par).
- `go-guard` [calyx-go-insertion + compile-control's `go = state & !done`]: every assignment of a
  group gets `!done` in its guard. calyx-remove-groups-fsm drives a group in every cycle of its
  FSM state, including the one in which done is seen; without the guard a register written by two
  consecutive groups (CalyxToHW holds done while write_en stays high) loses the second write.
- `clk-reset` [calyx-clk-insertion, calyx-reset-insertion]: every cell's clk/reset port is driven
  by the component's clk/reset (CalyxToHW leaves them undriven: registers never clock).
- `tie-outputs` [none]: output ports nothing drives (the write ports of a memory that is only
  read) are tied to 0; CalyxToHW refuses undriven outputs.

Internal memories need no stand-in: allo hands every array over as a memory argument.

Example::

    info = apply_standins(module)          # in place, in STANDINS order
    info["par"]["merged"], info["comb-groups"]["registered"]
"""
from __future__ import annotations

from circt import ir

from .ir_util import (Cell, Component, assign, assigns_in, body, comb, components, const, group_done, group_ref,
                      new_region_op, new_register, ops_of, symbol, walk)


# ---------------------------------------------------------------------------- comb groups
def remove_comb_groups(comp: Component) -> dict:
    groups = comp.groups()
    wires = body(comp.wires())
    drivers = {}  # destination value -> number of groups (or continuous wires) driving it
    for g in groups.values():
        for a in assigns_in(body(g)):
            drivers.setdefault(a.operands[0], set()).add(symbol(g))
    for a in assigns_in(wires):
        drivers.setdefault(a.operands[0], set()).add("<continuous>")
    users = {}
    for op in walk(comp.control()):
        ref = group_ref(op)
        if op.name in ("calyx.while", "calyx.if") and ref is not None:
            users.setdefault(ref, []).append(op)
    info = {"hoisted": [], "registered": []}
    for name, g in groups.items():
        if g.name != "calyx.comb_group":
            continue
        shared = any(len(drivers[a.operands[0]]) > 1 for a in assigns_in(body(g)))
        if shared:
            _register_condition(comp, name, g, users.get(name, []))
            info["registered"].append(name)
        else:
            for op in ops_of(body(g)):
                op.move_before(g)
            info["hoisted"].append(name)
            g.erase()
        for user in users.get(name, []):
            if "groupName" in user.attributes:
                del user.attributes["groupName"]
    return info


def _register_condition(comp: Component, name: str, g, users: list):
    """What calyx-remove-comb-groups does: the comb group becomes a group that stores the condition
    port in a register, enabled before each while/if and at the end of each while body."""
    conds = []
    for u in users:
        if u.operands[0] not in conds:
            conds.append(u.operands[0])
    regs = {}
    for k, c in enumerate(conds):
        regs[c] = new_register(comp, f"{name}_cond{k}_reg", 1)
    with ir.InsertionPoint(g):
        grp = new_region_op("calyx.group", attributes={"sym_name": ir.StringAttr.get(name)})
    blk = body(grp)
    for op in ops_of(body(g)):
        blk.append(op.detach_from_parent())
    true = const(1, 1, comp.first_cell_point())
    with ir.InsertionPoint(blk):
        for c, r in regs.items():
            assign(r.port("in"), c)
            assign(r.port("write_en"), true)
        dones = [r.port("done") for r in regs.values()]
        done = dones[0]
        for d in dones[1:]:
            done = comb("and", done, d)
        ir.Operation.create("calyx.group_done", operands=[done])
    g.erase()
    for u in users:
        u.operands[0] = regs[u.operands[0]].port("out")
        with ir.InsertionPoint(u):
            ir.Operation.create("calyx.enable", attributes={"groupName": ir.FlatSymbolRefAttr.get(name)})
        if u.name == "calyx.while":
            with ir.InsertionPoint(body(u)):
                ir.Operation.create("calyx.enable", attributes={"groupName": ir.FlatSymbolRefAttr.get(name)})
        _seq_if_needed(body(u) if u.name == "calyx.while" else None)


def _seq_if_needed(block):
    """A while body holds one control op: wrap two or more into a seq."""
    if block is None:
        return
    ops = ops_of(block)
    if len(ops) < 2:
        return
    with ir.InsertionPoint.at_block_begin(block):
        seq = new_region_op("calyx.seq")
    for op in ops:
        body(seq).append(op.detach_from_parent())


# ---------------------------------------------------------------------------- par
def merge_pars(comp: Component) -> dict:
    groups = comp.groups()
    info = {"merged": 0, "serialised": 0}
    pars = [op for op in walk(comp.control()) if op.name == "calyx.par"]
    for k, par in enumerate(reversed(pars)):  # innermost first
        kids = ops_of(body(par))
        if len(kids) == 1:
            kids[0].move_before(par)
            par.erase()
            continue
        names = [group_ref(c) for c in kids if c.name == "calyx.enable"]
        if len(names) == len(kids) and all(_done_is_a_register(comp, groups[n]) for n in names):
            merged = _merge_groups(comp, [groups[n] for n in names], f"par_merged_{k}")
            with ir.InsertionPoint(par):
                ir.Operation.create("calyx.enable", attributes={"groupName": ir.FlatSymbolRefAttr.get(merged)})
            info["merged"] += 1
        else:
            with ir.InsertionPoint(par):
                seq = new_region_op("calyx.seq")
            for c in kids:
                body(seq).append(c.detach_from_parent())
            info["serialised"] += 1
        par.erase()
    _drop_unused_groups(comp)
    return info


def _done_is_a_register(comp: Component, group) -> bool:
    _, src, guard = group_done(group)
    if guard is not None or not ir.OpResult.isinstance(src):
        return False
    owner = ir.OpResult(src).owner
    return owner.name == "calyx.register" and Cell(owner).port("done") == src


def _merge_groups(comp: Component, groups: list, name: str) -> str:
    wires = body(comp.wires())
    with ir.InsertionPoint(wires):
        grp = new_region_op("calyx.group", attributes={"sym_name": ir.StringAttr.get(name)})
    blk = body(grp)
    dones = []
    for g in groups:
        mapping = {}
        for op in ops_of(body(g)):
            if op.name == "calyx.group_done":
                dones.append(op.operands[0])
                continue
            new = op.clone(ir.InsertionPoint(blk))
            for i, v in enumerate(new.operands):
                if v in mapping:
                    new.operands[i] = mapping[v]
            for old_r, new_r in zip(op.results, new.results):
                mapping[old_r] = new_r
    with ir.InsertionPoint(blk):
        done = dones[0]
        for d in dones[1:]:
            done = comb("and", done, d)
        if len(dones) == 1:
            ir.Operation.create("calyx.group_done", operands=[done])
        else:  # group_done's source must be a port or a constant: the AND goes into its guard
            true = const(1, 1, comp.first_cell_point())
            ir.Operation.create("calyx.group_done", operands=[true, done])
    return name


def _drop_unused_groups(comp: Component):
    used = {group_ref(op) for op in walk(comp.control())}
    for name, g in comp.groups().items():
        if name not in used:
            g.erase()


# ---------------------------------------------------------------------------- go guard
def guard_with_not_done(comp: Component) -> dict:
    n = 0
    true = None
    for name, g in comp.groups().items():
        if g.name != "calyx.group":
            continue
        blk = body(g)
        for op in ops_of(blk):  # pure comb ops first, so the !done value can follow them
            if op.name.startswith("comb.") or op.name == "hw.constant":
                op.move_before(ops_of(blk)[0])
        done_op, src, guard = group_done(g)
        if true is None:
            true = const(1, 1, comp.first_cell_point())
        anchor = next((o for o in ops_of(blk) if not (o.name.startswith("comb.") or o.name == "hw.constant")))
        with ir.InsertionPoint(anchor):
            done = src if guard is None else (guard if _is_true(src) else comb("and", guard, src))
            not_done = comb("xor", done, true)
            for a in assigns_in(blk):
                a_guard = not_done if len(a.operands) < 3 else None
                with ir.InsertionPoint(a):
                    if a_guard is None:
                        a_guard = comb("and", a.operands[2], not_done)
                    assign(a.operands[0], a.operands[1], a_guard)
                a.erase()
                n += 1
    return {"guarded_assignments": n}


def _is_true(v) -> bool:
    if not ir.OpResult.isinstance(v) or ir.OpResult(v).owner.name != "hw.constant":
        return False
    value = ir.IntegerAttr(ir.OpResult(v).owner.attributes["value"]).value
    return v.type == ir.IntegerType.get_signless(1) and value != 0


# ---------------------------------------------------------------------------- clk / reset
def wire_clk_reset(comp: Component) -> dict:
    wires = body(comp.wires())
    driven = {a.operands[0] for a in assigns_in(wires)}
    n = 0
    with ir.InsertionPoint.at_block_begin(wires):
        for cell in comp.cells():
            for p in ("clk", "reset"):
                if cell.has(p) and cell.port(p) not in driven:
                    assign(cell.port(p), comp.port(p))
                    n += 1
    return {"assignments": n}


# ---------------------------------------------------------------------------- undriven outputs
def tie_undriven_outputs(comp: Component) -> dict:
    driven = set()
    for op in walk(comp.wires()):
        if op.name == "calyx.assign":
            driven.add(op.operands[0])
    tied = []
    wires = body(comp.wires())
    for name, port in comp.outputs():
        if name == "done" or port in driven:
            continue
        zero = const(ir.IntegerType(port.type).width, 0, comp.first_cell_point())
        with ir.InsertionPoint(wires):
            assign(port, zero)
        tied.append(name)
    return {"tied": tied}


# ---------------------------------------------------------------------------- the table
STANDINS = {  # name -> rewrite of one component, applied in this order
    "comb-groups": remove_comb_groups,
    "par": merge_pars,
    "go-guard": guard_with_not_done,
    "clk-reset": wire_clk_reset,
    "tie-outputs": tie_undriven_outputs,
}


def apply_standins(module, only=None, skip=()) -> dict:
    """Apply the stand-ins (all, or the names in `only`; minus `skip`) to every component of
    `module`, in place; returns {name: what it did}."""
    unknown = (set(only or ()) | set(skip)) - set(STANDINS)
    if unknown:
        raise ValueError(f"unknown Calyx stand-in(s) {sorted(unknown)}; known: {list(STANDINS)}")
    info = {}
    for comp in components(module):
        for name, fn in STANDINS.items():
            if (only is not None and name not in only) or name in skip:
                continue
            info[name] = fn(comp)
    return info


__all__ = ["STANDINS", "apply_standins"]
