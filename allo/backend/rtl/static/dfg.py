"""One iteration of a hardware unit (a pipelined loop, a sequential innermost loop or a block of
straight-line code) as a dataflow graph of operations, with inner loops fully unrolled and
branches turned into predicates, as Vitis does inside a pipeline.

Values live in three places: wires of the graph (SSA within the iteration), registers (scalar
locals and completely partitioned arrays; a read before the first write in the iteration sees
the previous iteration's value) and memory banks (loads and stores with their bank, address and
predicate). A store followed by a load of the same element in one iteration forwards the value;
identical loads with no store between are read once.

Example::

    g = build_unit_graph(design, unit)
    [n.kind for n in g.nodes]      # ['var', 'load', 'load', 'op', 'store']
"""
from __future__ import annotations

import math

from dataclasses import dataclass, field

from ....errors import BackendError, located
from ....ir import nodes as N
from ....ir.types import Index, UInt
from ....qor.affine import cond_value, index_aff
from ....qor.body import children, op_cost
from ....qor.tables import FREE
from .memories import Memory

bool_t = UInt(1)
index_t = Index()


@dataclass(eq=False)
class Node:
    """One operation. kind: const | var | input | op | logic | load | store | rread | rwrite |
    fread | fwrite | mux. `args` are Nodes; `ready` is the cycle (relative to the iteration's
    issue) from which the value exists, `t` the cycle the operation happens."""

    kind: str
    args: list
    type: object = None
    expr: object = None  # the IR expression (op), or the constant value (const), or logic op name
    cost: object = FREE
    mem: Memory = None
    bank: object = None  # int, or None for a bank chosen at run time
    coords: list = None  # index nodes per dimension (memory accesses)
    aff: tuple = None  # affine index per dimension (dependence tests)
    pred: "Node" = None
    reg: str = None  # register name (rread/rwrite), input name, var signal
    loc: object = None
    uid: int = 0
    t: int = 0
    ready: int = 0
    port: int = 0
    early: bool = False  # rwrite capturing its operator's last stage (one cycle before `ready`)
    bypass: bool = False  # a load promoted to a register (see promote_accumulators)
    invariant: bool = False  # a load no iteration changes: read once before the first (see mark_invariant)
    store: "Node" = None  # bypass: the store whose value it forwards
    bank_coords: tuple = None  # per dimension: the bank coordinate, or None when chosen at run time
    users: list = field(default_factory=list)

    def candidates(self) -> list:
        """The banks this access may hit."""
        if self.bank is not None:
            return [self.bank]
        m = self.mem
        out = []
        for b in range(m.banks):
            rest, coords = b, []
            for d in reversed(m.dims):
                coords.append(rest % d.banks)
                rest //= d.banks
            coords.reverse()
            if self.bank_coords is None or all(c is None or c == x for c, x in zip(self.bank_coords, coords)):
                out.append(b)
        return out


@dataclass
class UnitGraph:
    nodes: list
    loop_vars: list  # [(id, trip)] innermost first, for dependence distances
    lanes: int = 1


class GraphBuilder:
    """Builds the graph of one iteration (see module doc). `design` supplies memories,
    registers, scalar inputs and the signals of outer loop variables."""

    def __init__(self, design, var_ranges: dict):
        self.d = design
        self.tables = design.tables
        self.nodes = []
        self.var_ranges = dict(var_ranges)
        self.iter_ranges = None  # set by the design: the ranges of the aff terms of accesses
        self.regs = {}  # register name -> current value node (this iteration)
        self.rreads = {}  # register name -> rread node
        self.stores = []  # (mem, aff key, pred, value node) stored so far in the iteration
        self.loads = {}  # (mem name, aff key, epoch) -> load node
        self.epoch = {}  # mem name -> number of stores so far (loads are merged within an epoch)
        self.consts = {}
        self.last_store = {}  # mem name -> (store node, key, pred) not read back since

    def drop(self, n):
        self.nodes.remove(n)
        for a in n.args + (n.coords or []) + ([n.pred] if n.pred is not None else []):
            if n in a.users:
                a.users.remove(n)

    # ------------------------------------------------------------------ nodes
    def add(self, kind, args, **kw) -> Node:
        self.count = getattr(self, "count", 0) + 1
        n = Node(kind, list(args), uid=self.count, **kw)
        for a in n.args:
            a.users.append(n)
        if n.pred is not None:
            n.pred.users.append(n)
        for c in n.coords or []:
            c.users.append(n)
        self.nodes.append(n)
        return n

    def const(self, value, t) -> Node:
        key = (repr(value), repr(t))
        if key not in self.consts:
            self.consts[key] = self.add("const", [], type=t, expr=value)
        return self.consts[key]

    def logic(self, op, args) -> Node:
        """Internal bool logic: and / or / not / lt / ge / eq over index or bool nodes."""
        args = [a for a in args if a is not None] if op == "and" else args
        if op == "and":
            args = [a for a in args if not (a.kind == "const" and a.expr)]
            if not args:
                return None
            if len(args) == 1:
                return args[0]
        return self.add("logic", args, type=bool_t, expr=op)

    # ------------------------------------------------------------------ statements
    def block(self, body, env, aenv, pred):
        for s in body:
            self.stmt(s, env, aenv, pred)

    def stmt(self, s, env, aenv, pred):
        if isinstance(s, N.Store):
            self.store(s, env, aenv, pred)
        elif isinstance(s, N.If):
            c = cond_value(s.cond, aenv)
            if c is True:
                self.block(s.then, env, aenv, pred)
            elif c is False:
                self.block(s.orelse, env, aenv, pred)
            else:
                cn = self.ev(s.cond, env, aenv, pred)
                self.block(s.then, env, aenv, self.logic("and", [pred, cn]))
                if s.orelse:
                    self.block(s.orelse, env, aenv, self.logic("and", [pred, self.logic("not", [cn])]))
        elif isinstance(s, N.For):
            self.unrolled_loop(s, env, aenv, pred)
        elif isinstance(s, N.Alloc):
            self.alloc(s, env, aenv, pred)
        elif isinstance(s, N.Return):
            return
        elif isinstance(s, N.While):
            raise located(BackendError, "static RTL: a while loop inside a pipelined or unrolled loop cannot be "
                                        "scheduled; keep while loops outside pipelines", s.loc)
        else:
            raise located(BackendError, f"static RTL: unsupported statement {type(s).__name__} here", s.loc)

    def unrolled_loop(self, s, env, aenv, pred):
        lb, ub = index_aff(s.lb, aenv), index_aff(s.ub, aenv)
        exact = lb is not None and ub is not None and lb.known and ub.known
        lo = lb.const if lb is not None and lb.known else self._extreme(lb, True, s)
        hi = ub.const if ub is not None and ub.known else self._extreme(ub, False, s)
        if (hi - lo) > 65536:
            raise located(BackendError, f"static RTL: loop {s.name!r} inside a pipeline unrolls into {hi - lo} "
                                        f"copies; pipeline an inner loop instead", s.loc)
        lbn = None if exact else self.ev(s.lb, env, aenv, pred)
        ubn = None if exact else self.ev(s.ub, env, aenv, pred)
        for v in range(lo, hi, max(1, s.step)):
            vn = self.const(v, index_t)
            p = pred
            if not exact:
                p = self.logic("and", [pred, self.logic("ge", [vn, lbn]), self.logic("lt", [vn, ubn])])
            env2, aenv2 = dict(env), dict(aenv)
            env2[id(s.var)], aenv2[id(s.var)] = vn, v
            self.block(s.body, env2, aenv2, p)

    def _extreme(self, a, low, s):
        if a is None:
            raise located(BackendError, f"static RTL: the bounds of loop {s.name!r} inside a pipeline are not "
                                        "affine in the loop variables; cannot unroll it", s.loc)
        total = a.const
        for k, c in a.coefs.items():
            lo, hi = self.var_ranges.get(k, (0, 0))
            total += min(c * lo, c * hi) if low else max(c * lo, c * hi)
        return total

    def alloc(self, s, env, aenv, pred):
        b = s.buf
        if b.shape:
            self.d.memory(b)
            return
        name = self.d.register(b)
        if isinstance(s.init, N.Expr):
            self.write_reg(name, self.ev(s.init, env, aenv, pred), pred, s.loc)

    def write_reg(self, name, value, pred, loc):
        if pred is not None:
            value = self.add("mux", [pred, value, self.read_reg(name)], type=value.type)
        self.regs[name] = value
        self.add("rwrite", [value], reg=name, loc=loc)

    def read_reg(self, name):
        if name in self.regs:
            return self.regs[name]
        if name not in self.rreads:
            self.rreads[name] = self.add("rread", [], reg=name, type=self.d.reg_type(name))
        return self.rreads[name]

    def store(self, s, env, aenv, pred):
        b = s.buf
        v = self.ev(s.value, env, aenv, pred)
        if not b.shape:
            if b.kind == "scalar_arg":
                raise located(BackendError, f"static RTL: scalar argument {b.name!r} is read-only", s.loc)
            self.write_reg(self.d.register(b), v, pred, s.loc)
            return
        mem = self.d.memory(b)
        if mem.kind == "reg":
            self._reg_array_store(mem, b, s.indices, v, env, aenv, pred, s.loc)
            return
        coords = [self.ev(i, env, aenv, pred) for i in s.indices]
        aff = tuple(index_aff(i, aenv) for i in s.indices)
        if mem.kind == "fifo":
            self.add("fwrite", [v], mem=mem, pred=pred, loc=s.loc)
            return
        mem.written = True
        key = _akey(aff)
        prev = self.last_store.get(mem.name)
        if prev is not None and None not in aff and prev[1] == key and prev[2] is pred:
            self.drop(prev[0])  # overwritten in the same iteration before anything read it back
        n = self.add("store", [v], mem=mem, bank=self._bank(mem, aff), coords=coords, aff=aff, pred=pred, loc=s.loc,
                     type=b.dtype, bank_coords=self.coords_seen)
        self.last_store[mem.name] = (n, key, pred)
        self.stores.append((mem.name, key, pred, v))
        self.epoch[mem.name] = self.epoch.get(mem.name, 0) + 1

    def _reg_array_store(self, mem, b, indices, v, env, aenv, pred, loc):
        consts = [index_aff(i, aenv) for i in indices]
        if all(c is not None and c.known for c in consts):
            self.write_reg(self.d.element(b, [c.const for c in consts], loc), v, pred, loc)
            return
        idx = [self.ev(i, env, aenv, pred) for i in indices]
        for flat, pos in self.d.elements(b):
            hit = self.logic("and", [pred] + [self.logic("eq", [n, self.const(p, index_t)]) for n, p in zip(idx, pos)])
            self.write_reg(self.d.element(b, pos, loc), v, hit, loc)

    # ------------------------------------------------------------------ expressions
    def ev(self, e, env, aenv, pred) -> Node:
        if isinstance(e, N.Const):
            return self.const(e.value, e.type)
        if isinstance(e, N.IterVar):
            n = env.get(id(e))
            if n is None:
                raise located(BackendError, f"internal error: loop variable {e.name!r} has no signal", e.loc)
            return n
        if isinstance(e, N.Load):
            return self.load(e, env, aenv, pred)
        kids = [self.ev(k, env, aenv, pred) for k in children(e)]
        return self.add("op", kids, type=e.type, expr=e, cost=op_cost(e, self.tables), loc=getattr(e, "loc", None))

    def load(self, e, env, aenv, pred):
        b = e.buf
        if not b.shape:
            if b.kind == "scalar_arg":
                return self.d.input_node(self, b)
            return self.read_reg(self.d.register(b))
        mem = self.d.memory(b)
        if mem.kind == "reg":
            consts = [index_aff(i, aenv) for i in e.indices]
            if all(c is not None and c.known for c in consts):
                return self.read_reg(self.d.element(b, [c.const for c in consts], e.loc))
            idx = [self.ev(i, env, aenv, pred) for i in e.indices]
            out = None
            for flat, pos in self.d.elements(b):
                val = self.read_reg(self.d.element(b, pos, e.loc))
                if out is None:
                    out = val
                    continue
                hit = self.logic("and", [self.logic("eq", [n, self.const(p, index_t)]) for n, p in zip(idx, pos)])
                out = self.add("mux", [hit, val, out], type=b.dtype)
            return out
        if mem.kind == "fifo":
            return self.add("fread", [], mem=mem, pred=pred, type=b.dtype, loc=e.loc)
        aff = tuple(index_aff(i, aenv) for i in e.indices)
        key = _akey(aff)
        if None not in aff:
            for name, skey, spred, value in reversed(self.stores):
                if name == mem.name and skey == key and spred is pred:
                    return value  # stored earlier in this iteration under the same condition
                if name == mem.name:
                    break
        lkey = (mem.name, key, self.epoch.get(mem.name, 0))
        if None not in aff and lkey in self.loads:
            return self.loads[lkey]
        coords = [self.ev(i, env, aenv, pred) for i in e.indices]
        mem.read = True
        self.last_store.pop(mem.name, None)
        n = self.add("load", [], mem=mem, bank=self._bank(mem, aff), coords=coords, aff=aff, type=b.dtype, loc=e.loc,
                     bank_coords=self.coords_seen)
        self.loads[lkey] = n
        return n

    def _block_bank(self, d, a):
        """The block an index that moves with loop variables stays in, when its whole range
        (`iter_ranges`: per variable the values its aff term takes) falls in one block."""
        if d.kind is None or d.kind.value != "block" or self.iter_ranges is None:
            return None
        lo = hi = a.const
        for k, c in a.coefs.items():
            if k not in self.iter_ranges:
                return None
            r0, r1 = self.iter_ranges[k]
            lo, hi = lo + min(c * r0, c * r1), hi + max(c * r0, c * r1)
        return d.bank(lo) if 0 <= lo and hi < d.size and d.bank(lo) == d.bank(hi) else None

    def _bank(self, mem, aff):
        """The bank an access hits when the indices decide it at build time, else None (the
        coordinates that are known are kept in `self.coords_seen` for the node)."""
        coords = []
        for d, a in zip(mem.dims, aff):
            if d.banks == 1:
                coords.append(0)
            elif a is None:
                coords.append(None)
            elif d.kind is not None and d.kind.value == "cyclic":
                coords.append(a.const % d.banks if all(c % d.banks == 0 for c in a.coefs.values()) else None)
            elif a.known:
                coords.append(d.bank(a.const))
            else:
                coords.append(self._block_bank(d, a))
        self.coords_seen = tuple(coords)
        return None if None in coords else mem.bank_of(coords)


def _akey(aff):
    return tuple(a.key() if a is not None else ("?", n) for n, a in enumerate(aff))


__all__ = ["Node", "UnitGraph", "GraphBuilder", "promote_accumulators", "bool_t", "index_t"]


def promote_accumulators(nodes: list, loop_vars: list):
    """Vitis's scalar promotion of `C[i, j] += ...` in a pipelined loop over k: when the only
    accesses of a memory in the iteration are one load and one unconditional store of the same
    element, and that element does not change with the pipelined loop, the value stored by the
    previous iteration is forwarded from a register (a `bypass` node) instead of read back. Also
    when several lanes each update their own element (`C[0, 0] += ...; C[0, 1] += ...`) and no
    address changes while the unit runs: the elements are distinct, one register each.
    `loop_vars`: [(id(IterVar), iterations)] of the unit's loops, innermost first."""
    by_mem = {}
    for n in nodes:
        if n.kind in ("load", "store"):
            by_mem.setdefault(n.mem.name, []).append(n)
    inner_var, inner_trip = loop_vars[0] if loop_vars else (None, 1)
    unit_vars = {v for v, _ in loop_vars}
    whole = math.prod(t for _, t in loop_vars) if loop_vars else 1
    out = list(nodes)
    for name, acc in by_mem.items():
        pairs = _pairs(acc, unit_vars)
        if pairs is not None and whole >= 2:
            distance = None  # the same element on every iteration of the unit: it never comes back
        else:
            loads = [n for n in acc if n.kind == "load"]
            stores = [n for n in acc if n.kind == "store"]
            if len(loads) != 1 or len(stores) != 1 or inner_trip < 2:
                continue
            ld, st = loads[0], stores[0]
            if st.pred is not None or None in ld.aff or _akey(ld.aff) != _akey(st.aff):
                continue
            if any(inner_var in a.coefs for a in ld.aff) or ld.uid > st.uid:
                continue
            used = [k for k, (v, _) in enumerate(loop_vars) if any(v in a.coefs for a in ld.aff)]
            # addressed by the outermost unit loop alone: each element's run of iterations is its
            # only one (`y[i] += ...` over i, j.outer), so no later iteration comes back to it
            distance = None if used == [len(loop_vars) - 1] else inner_trip
            pairs = [(ld, st)]
        for ld, st in pairs:
            _bypass(out, ld, st, distance)
    for k, n in enumerate(out):
        n.uid = k
    return out


def _pairs(acc: list, unit_vars: set):
    """[(load, store)] when every access of one memory addresses an element fixed while the unit
    runs (no coefficient of a unit loop; the same coefficients of outer loops, so different
    constants are different elements) and each element has one load, then one unconditional store."""
    if any(None in n.aff or any(a.coefs.keys() & unit_vars for a in n.aff) for n in acc):
        return None
    if len({tuple(tuple(sorted(a.coefs.items())) for a in n.aff) for n in acc}) != 1:
        return None
    groups = {}
    for n in acc:
        groups.setdefault(_akey(n.aff), []).append(n)
    pairs = []
    for group in groups.values():
        if [n.kind for n in group] != ["load", "store"] or group[1].pred is not None or group[0].uid > group[1].uid:
            return None
        pairs.append((group[0], group[1]))
    return pairs


def _bypass(out: list, ld, st, distance: int) -> None:
    bp = Node("bypass", [ld], type=ld.type, uid=len(out), store=st, coords=list(ld.coords), mem=ld.mem,
              expr=distance)
    users = [u for u in ld.users]
    for u in users:
        u.args = [bp if a is ld else a for a in u.args]
        if u.pred is ld:
            u.pred = bp
    bp.users = users
    ld.users = [bp]
    ld.bypass = True
    for c in bp.coords:
        c.users.append(bp)
    out.insert(out.index(ld) + 1, bp)


_STATIC = ("const", "input", "var")


def mark_invariant(nodes: list, loop_ids: set):
    """Loads of a pipelined unit whose element no iteration changes, from a memory the unit never
    writes, with an address built from constants and outer loop variables only: read once before
    the first iteration (the estimator counts them as registers, as Vitis hoists them)."""
    written = {n.mem.name for n in nodes if n.kind == "store"}

    def static(n):
        if n.kind == "var":
            return not n.reg.startswith("u")  # an FSM loop variable, constant while the unit runs
        if n.kind in ("const", "input"):
            return True
        return n.kind in ("op", "logic") and n.cost.chain == 0 and all(static(a) for a in n.args)

    for n in nodes:
        if n.kind != "load" or n.mem.kind != "mem" or n.mem.name in written or None in n.aff:
            continue
        if any(a.coefs.keys() & loop_ids for a in n.aff) or not all(static(c) for c in n.coords):
            continue
        n.invariant = True
