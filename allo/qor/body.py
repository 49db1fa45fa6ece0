"""Timing of one loop iteration (or one straight-line block) as Vitis HLS schedules it.

`interpret(...)` walks the statements of a pipelined loop body with every inner loop unrolled
(as Vitis does inside `pipeline`), computing when each value is ready (an ASAP schedule over the
operator latencies of `Tables`), which memory banks are touched, and which values flow from one
iteration to the next:

- a scalar or register read before it is written in the iteration carries the previous
  iteration's value; the path back to its write is a register recurrence (II >= path + 1),
- a store and a later load of the same array are a memory recurrence when an affine dependence
  test cannot rule it out; Vitis keeps an invariant element in a register (scalar promotion) when
  no other access can alias it.

Example::

    res = interpret(est, fctx, loop.body, env={}, loop_vars=[(id(k), 240)], explicit=True)
    res.depth, res.rec_ii, res.accesses
"""
from __future__ import annotations

import dataclasses
import math
from collections import Counter

from ..ir import effects as E
from ..ir import nodes as N
from ..ir import visit as V
from ..ir.attrs import CONFIG_OP
from ..ir.ops import CMP_OPS, BinOpKind, UnaryOpKind
from ..ir.promote import common
from .affine import MAY, cond_value, dependence_distance, index_aff
from .memory import Mem
from .tables import FREE, OpCost

UNROLL_LIMIT = 400_000  # statement visits per iteration before we stop expanding lanes
_FLOAT_KIND = {BinOpKind.ADD: "fadd", BinOpKind.SUB: "fadd", BinOpKind.MUL: "fmul", BinOpKind.DIV: "fdiv",
               BinOpKind.FLOORDIV: "fdiv", BinOpKind.MOD: "fdiv", BinOpKind.POW: "fpow"}  # any other op costs a compare


# ----------------------------------------------------------------------------- operator costs
def _tname(t) -> str:
    return type(t).__name__


def _bits(t) -> int:
    b = getattr(t, "bits", 32)
    return int(b) if isinstance(b, int) and b > 0 else 32


def _source_bits(e) -> int:
    """Width of an operand before the exact widening casts of bit growth (int8 * int8 is an 8x8
    multiplier even though the IR computes it in the int16 result type)."""
    while isinstance(e, N.Cast) and _tname(e.value.type) in ("Int", "UInt", "Fixed", "UFixed") \
            and _tname(e.type) in ("Int", "UInt", "Fixed", "UFixed") and common(e.value.type, e.type) == e.type:
        e = e.value
    return _bits(getattr(e, "type", None))


def op_cost(e, tables, config=None) -> OpCost:
    """The operator an expression node maps to (FREE for wires, address arithmetic, unknown nodes);
    `config`: the design's `config_op` bindings {op: (impl, latency)} (Module.meta)."""
    config = config or {}
    if isinstance(e, N.BinOp):
        operand = getattr(e.lhs, "type", e.type)
        kind = _tname(operand)
        if kind == "Index" or _tname(e.type) == "Index":
            return FREE
        if kind == "Float":
            fk = _FLOAT_KIND.get(e.op, "fcmp")
            return tables.float_op(fk, _bits(operand))
        bits = _bits(e.type)
        if e.op in (BinOpKind.ADD, BinOpKind.SUB):
            return tables.int_op("add", bits, impl=config.get("add" if e.op == BinOpKind.ADD else "sub"))
        if e.op == BinOpKind.MUL:
            return tables.int_op("mul", bits, _source_bits(e.lhs), _source_bits(e.rhs), impl=config.get("mul"))
        if e.op in (BinOpKind.DIV, BinOpKind.FLOORDIV, BinOpKind.MOD):
            return tables.int_op("div", max(bits, _bits(operand)))
        if e.op in (BinOpKind.SHL, BinOpKind.SHR):
            const = isinstance(e.rhs, N.Const)
            return tables.int_op("logic" if const else "shift", bits)
        if e.op == BinOpKind.POW:
            return tables.int_op("mul", bits, bits, bits)
        return tables.int_op("cmp" if e.op in CMP_OPS + (BinOpKind.MIN, BinOpKind.MAX) else "logic",
                             max(bits, _bits(operand)))
    if isinstance(e, N.UnaryOp):
        if _tname(e.type) in ("Float", "Index"):
            return FREE
        return tables.int_op("add" if e.op == UnaryOpKind.NEG else "logic", _bits(e.type))
    if isinstance(e, N.Cast):
        src, dst = getattr(e.value, "type", e.type), e.type
        fs, fd = _tname(src) == "Float", _tname(dst) == "Float"
        if fs and fd:
            return FREE if _bits(src) == _bits(dst) else tables.float_op("fpext", max(_bits(src), _bits(dst)))
        if fd:
            return tables.float_op("itofp", _bits(dst))
        if fs:
            return tables.float_op("fptoi", _bits(src))
        return FREE
    if isinstance(e, N.MathCall):
        if _tname(e.type) != "Float":
            return tables.int_op("logic", _bits(e.type))
        return tables.float_op(tables.math_kind(e.fn), _bits(e.type))
    if isinstance(e, N.Select):
        return tables.int_op("logic", _bits(e.type)) if _tname(e.type) != "Float" else FREE
    return FREE


def children(e) -> list:
    """Sub-expressions of any node, also node kinds this module does not know."""
    kids = V.child_exprs(e)
    if kids or isinstance(e, (N.Const, N.IterVar, N.Load, N.BinOp, N.UnaryOp, N.Cast, N.MathCall, N.Select)):
        return kids
    out = []
    if dataclasses.is_dataclass(e):
        for f in dataclasses.fields(e):
            v = getattr(e, f.name, None)
            if isinstance(v, N.Expr):
                out.append(v)
            elif isinstance(v, (list, tuple)):
                out += [x for x in v if isinstance(x, N.Expr)]
    return out


# ----------------------------------------------------------------------------- results
@dataclasses.dataclass
class BodyResult:
    depth: int = 1
    accesses: list = dataclasses.field(default_factory=list)  # (mem, address, "r"|"w", address key)
    ops: Counter = dataclasses.field(default_factory=Counter)  # OpCost -> count
    rec_ii: int = 1
    rec_reason: str = ""
    call_ii: int = 1
    call_reason: str = ""
    calls: list = dataclasses.field(default_factory=list)  # callee names run inside
    notes: list = dataclasses.field(default_factory=list)
    truncated: bool = False


def _merge(a, b):
    if not a:
        return b
    if not b:
        return a
    out = dict(a)
    for k, v in b.items():
        if out.get(k, -1) < v:
            out[k] = v
    return out


def _shift(srcs, d):
    if not srcs or not d:
        return srcs
    return {k: v + d for k, v in srcs.items()}


class Interpreter:
    """See module docstring. `ctx` supplies `mem(buf)`, `tables`, `callee(name)` and the
    `est` (for calls)."""

    def __init__(self, ctx, loop_vars=(), explicit=False, var_ranges=None, variable=(), reset=False):
        self.ctx = ctx
        self.t = ctx.tables
        self.loop_vars = list(loop_vars)  # [(id, trip)] innermost first: the pipelined iteration
        self.variable = set(variable)  # ids of pipelined loop variables whose bounds depend on outer loops
        self.reset = bool(reset)  # a flattened imperfect nest: promoted accumulators restart through a select
        est = getattr(ctx, "est", None)
        self.config = est.mod.meta.get(CONFIG_OP, {}) if est is not None else {}  # s.config_op
        self.explicit = explicit
        self.var_ranges = dict(var_ranges or {})
        self.res = BodyResult()
        self.regs = {}  # (uid, addr) -> value written this iteration
        self.loads = []  # (mem, addr, srcs token)
        self.load_addr = {}  # srcs token -> address
        self.stores = []  # (mem, addr, value srcs)
        self.reg_writes = []  # (mem, addr, srcs, token)
        self.max_t = 0
        self.visits = 0
        self.written = set()
        self.local_mems = {}

    # ------------------------------------------------------------------ entry points
    def run(self, body, lanes=None):
        """Interpret `body` once per lane environment (all lanes form one iteration)."""
        self._declare(body)
        self.written = {self.mem(b).uid for b in E.writes(body).values()}
        for env in lanes or [{}]:
            self.block(body, dict(env), 0)
            if self.res.truncated:
                self.res.notes.append("body too large to unroll completely: timing of the first lanes only")
                break
        self.res.depth = max(1, self.max_t + 1)
        self._recurrences()
        return self.res

    def _declare(self, body):
        """Arrays declared inside the body live in registers (one copy per iteration)."""
        for s in V.walk_stmts(body):
            if isinstance(s, N.Alloc) and s.buf.shape and id(s.buf) not in self.local_mems:
                self.local_mems[id(s.buf)] = Mem(s.buf.name, "reg", tuple(s.buf.shape), _bits(s.buf.dtype))

    # ------------------------------------------------------------------ statements
    def block(self, body, env, pred):
        for s in body:
            self.visits += 1
            if self.visits > UNROLL_LIMIT:
                self.res.truncated = True
                return
            self.stmt(s, env, pred)

    def stmt(self, s, env, pred):
        if isinstance(s, N.Store):
            self.store(s, env, pred)
        elif isinstance(s, N.For):
            self.loop(s, env, pred)
        elif isinstance(s, N.If):
            c = cond_value(s.cond, env)
            if c is True:
                self.block(s.then, env, pred)
            elif c is False:
                self.block(s.orelse, env, pred)
            else:
                tc = max(pred, self.ev(s.cond, env)[0])
                self.block(s.then, env, tc)
                self.block(s.orelse, env, tc)
        elif isinstance(s, N.Alloc):
            self.alloc(s, env)
        elif isinstance(s, N.CallStmt):
            self.call(s, env, pred)
        elif isinstance(s, N.While):
            self.res.notes.append("while loop: trip count unknown, counted once")
            tc = max(pred, self.ev(s.cond, env)[0])
            self.block(s.body, env, tc)
        # Return and unknown statements take no time

    def loop(self, s, env, pred):
        lo, hi = self._bounds(s, env)
        if hi <= lo:
            return
        for v in range(lo, hi, max(1, s.step)):
            env[id(s.var)] = v
            self.block(s.body, env, pred)
            if self.res.truncated:
                break
        env.pop(id(s.var), None)

    def _bounds(self, s, env):
        lb, ub = index_aff(s.lb, env), index_aff(s.ub, env)
        lo = lb.const if lb is not None and lb.known else self._extreme(lb, low=True)
        hi = ub.const if ub is not None and ub.known else self._extreme(ub, low=False)
        return lo, hi

    def _extreme(self, a, low):
        if a is None:
            return 0 if low else 1
        total = a.const
        for k, c in a.coefs.items():
            lo, hi = self.var_ranges.get(k, (0, 0))
            total += min(c * lo, c * hi) if low else max(c * lo, c * hi)
        return total

    def alloc(self, s, env):
        if isinstance(s.init, N.Expr):
            v = self.ev(s.init, env)
            mem = self.mem(s.buf)
            self.regs[(mem.uid, "*" if s.buf.shape else ())] = v

    def store(self, s, env, pred):
        v = self.ev(s.value, env)
        mem = self.mem(s.buf)
        addr, addr_t = self.addr(s.indices, env)
        t = max(v[0], addr_t, pred)
        key = _akey(addr)
        if mem.kind == "reg":
            token = (mem.uid, key)
            self.reg_writes.append((mem, addr, v[1], token))
            self.regs[token] = (t, v[1])
            self.max_t = max(self.max_t, t)
            return
        self.res.accesses.append((mem, addr, "w", key))
        self.stores.append((mem, addr, v[1]))
        self.regs[(mem.uid, key)] = (v[0], v[1])  # forwarded to later loads of this iteration (a wire)
        self.max_t = max(self.max_t, t)

    def call(self, s, env, pred):
        info = self.ctx.callee_info(s.callee)
        t = pred
        for a in s.args:
            if isinstance(a, N.Expr):
                t = max(t, self.ev(a, env)[0])
        self.max_t = max(self.max_t, t + info.latency)
        self.res.calls.append(s.callee)
        if info.interval > self.res.call_ii:
            self.res.call_ii = info.interval
            self.res.call_reason = f"call to {s.callee!r} starts every {info.interval} cycles"
        for r in s.results:
            if isinstance(r, N.Buffer) and not r.shape:
                self.regs[(self.mem(r).uid, ())] = (t + info.latency, None)

    # ------------------------------------------------------------------ expressions
    def mem(self, buf):
        m = self.local_mems.get(id(buf))
        return m if m is not None else self.ctx.mem(buf)

    def addr(self, indices, env):
        addr, t = [], 0
        for e in indices:
            a = index_aff(e, env)
            if a is None:
                t = max(t, self.ev(e, env)[0])
            addr.append(a)
        return tuple(addr), t

    def ev(self, e, env):
        """(ready time, {carried source: path length}) of expression `e`."""
        if isinstance(e, (N.Const, N.IterVar)):
            return (0, None)
        if isinstance(e, N.Load):
            return self.load(e, env)
        kids = [self.ev(k, env) for k in children(e)]
        t0 = max((k[0] for k in kids), default=0)
        srcs = None
        for k in kids:
            srcs = _merge(srcs, k[1])
        cost = op_cost(e, self.t, self.config)
        if cost is not FREE:
            self.res.ops[cost] += 1
        t = t0 + cost.chain
        self.max_t = max(self.max_t, t0 + cost.latency)
        return (t, _shift(srcs, cost.fast if self.explicit else cost.latency))

    def load(self, e, env):
        mem = self.mem(e.buf)
        addr, addr_t = self.addr(e.indices, env)
        key = _akey(addr)
        token = (mem.uid, key)
        if mem.kind == "reg":
            if token in self.regs:
                return self.regs[token]
            if (mem.uid, "*") in self.regs:
                return self.regs[(mem.uid, "*")]
            return (addr_t, {token: 0} if mem.uid in self.written else None)
        if token in self.regs:  # stored earlier in this iteration: the stored value is forwarded
            return self.regs[token]
        if self._invariant(mem, addr):  # hoisted out of the loop (LICM): a register here
            return (addr_t, None)
        lat = mem.read_latency(self.t)
        self.res.accesses.append((mem, addr, "r", key))
        srcs = None
        if mem.uid in self.written and mem.kind != "fifo":
            srcs = {("mem",) + token: lat}
            self.loads.append((mem, addr, ("mem",) + token))
            self.load_addr[("mem",) + token] = addr
        chain = lat + 1 if lat else 0
        self.max_t = max(self.max_t, addr_t + lat)
        return (addr_t + chain, srcs)

    def _invariant(self, mem, addr) -> bool:
        """A read of an address that no iteration changes, from memory the loop never writes."""
        if not self.loop_vars or mem.kind == "fifo" or mem.uid in self.written:
            return False
        loop_ids = {v for v, _ in self.loop_vars}
        return all(a is not None and not (a.coefs.keys() & loop_ids) for a in addr)

    # ------------------------------------------------------------------ recurrences
    def _recurrences(self):
        best, why = 1, ""
        for mem, addr, srcs, token in self.reg_writes:
            if not srcs or token not in srcs:
                continue
            dist = dependence_distance(addr, addr, self.loop_vars) if addr else 1
            if dist is None:
                continue
            dist = 1 if dist == MAY else dist
            ii = math.ceil((srcs[token] + 1) / dist)
            if ii > best:
                best, why = ii, f"loop-carried dependence on {mem.name!r}: {srcs[token] + 1} cycles" + \
                               (f" over {dist} iterations" if dist > 1 else "")
        mem_ii, mem_why = self._memory_recurrences()
        if mem_ii > best:
            best, why = mem_ii, mem_why
        self.res.rec_ii, self.res.rec_reason = best, why

    def _memory_recurrences(self):
        """II bound of values that go through a memory from one iteration to a later one: every
        load feeding a store of the same memory, with the iterations between them."""
        best, why = 1, ""
        only = {}
        for smem, saddr, srcs in self.stores:
            for token, path in (srcs or {}).items():
                if token[0] != "mem" or token[1] != smem.uid:
                    continue
                laddr = self.load_addr[token]
                dist = dependence_distance(saddr, laddr, self.loop_vars)
                assumed = dist is None and self._unbounded_burst(smem, saddr, laddr)
                if assumed:
                    dist = MAY
                if dist is None:
                    continue
                dist = 1 if dist == MAY else dist
                lat = smem.read_latency(self.t)
                if smem.uid not in only:
                    only[smem.uid] = self._addresses(smem.uid)
                promoted = dist == 1 and saddr == laddr and only[smem.uid] == {_akey(saddr)} and not assumed
                if promoted:
                    length = path - lat + 1 + int(self.reset)
                elif assumed:  # request order only: the read is issued after the previous write request
                    length = path + 2
                elif smem.kind == "m_axi":
                    length = path + int(self.t.memory["m_axi"]["write_turnaround"]) + 1
                else:
                    length = path + 2
                ii = math.ceil(length / dist)
                if ii > best:
                    kind = "register (promoted)" if promoted else smem.kind
                    kind = ("(assumed: sequential access in a variable-bound loop) " + kind) if assumed else kind
                    best, why = ii, (f"loop-carried dependence through {kind} {smem.name!r}: {length} cycles"
                                     + (f" over {dist} iterations" if dist > 1 else ""))
        return best, why

    def _unbounded_burst(self, mem, saddr, laddr) -> bool:
        """Vitis assumes a carried dependence between a read and a write of the same m_axi
        element that walk the array sequentially (stride 1 in the last dimension) in a loop whose
        trip count depends on an enclosing loop: the access range of such a variable-length
        sequential access is not bounded, so each read request is issued after the previous
        iteration's write request (in order on the bus, not after its response: read to write
        + 2 states, as through a BRAM). The syrk and syr2k baselines run 21 cycles per iteration
        though their bodies differ (the C read is scheduled late, so read-to-write is the same
        path). With a constant trip count (gemm's baseline) or a row stride (symm's) the loop
        runs at its port / recurrence II."""
        if mem.kind != "m_axi" or not self.loop_vars or saddr != laddr or not saddr:
            return False
        v = self.loop_vars[0][0]
        last = saddr[-1]
        return v in self.variable and last is not None and last.coefs.get(v) == 1 and \
            all(a is not None and v not in a.coefs for a in saddr[:-1])

    def _addresses(self, uid) -> set:
        """Every address of memory `uid` accessed in the iteration."""
        out = {_akey(a) for m, a, _ in self.loads if m.uid == uid}
        return out | {_akey(a) for m, a, _ in self.stores if m.uid == uid}


def _akey(addr):
    return tuple(a.key() if a is not None else ("?", n) for n, a in enumerate(addr))


def interpret(ctx, body, lanes=None, loop_vars=(), explicit=False, var_ranges=None, variable=(),
              reset=False) -> BodyResult:
    """Timing of one iteration of `body` (inner loops unrolled, one pass per lane environment);
    see module docstring. `variable`: loop variables whose trip count depends on outer loops;
    `reset`: the loop is a flattened imperfect nest (promoted accumulators restart by a select)."""
    return Interpreter(ctx, loop_vars, explicit, var_ranges, variable, reset).run(body, lanes)


__all__ = ["interpret", "BodyResult", "op_cost", "children", "Interpreter"]
