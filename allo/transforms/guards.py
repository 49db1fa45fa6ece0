"""Build-time safety rewrites of the loop IR (applied to the clone a backend compiles).

1. `zero_init`: a local declared without initialiser (`B: int32[4]`) starts at zero, in every
   backend, unless every element is provably written before it is read (then nothing is added;
   streams, which are FIFOs, are never filled).
2. Run-time bounds checks (`s.build(..., bounds_check=True)`, or always in functions whose
   `attrs["_bounds_check"]` is set, see `require_bounds_check`): every access whose index is not
   proven in range by the loop bounds is checked. A bad index is recorded in a hidden status
   array (the first one wins), the access is made harmless (a store is skipped, a load reads
   element 0 of that dimension), and after the call the module raises `BoundsError` naming the
   array, the index value and the kernel line.
3. Abort checks (LLVM calls that may run long): `while` loops and loops with run-time bounds
   stop when the caller sets the status array's abort flag (Ctrl-C, see allo.backend.llvm); the
   flag is read with volatile loads, at every back edge whatever the body does.
4. Entry checks (`entry_checks=True`, the LLVM backend's default builds): affine accesses that
   run in every iteration of a loop with run-time bounds are checked once when the loop starts
   (allo.transforms.runloops); a loop that would leave its array does not run and the call
   raises BoundsError.

Checks and aborts need the status array: every function gets a hidden last parameter
`_allo_status: int64[4]` (= [site + 1, dimension, index value, abort flag]) and every call
passes it on. Backends call `instrument` and append a fresh status array to the user's
arguments; `GuardInfo.raise_if_failed(status)` turns a recorded violation into the error.

Example::

    info = instrument(module, bounds_check=True)       # module: a clone, rewritten in place
    status = info.new_status()
    run(module, *args, status)                          # any backend
    info.raise_if_failed(status)                        # BoundsError("k.py:12: index 1000 ...")
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import AlloValueError, BoundsError, located
from ..ir import effects as E
from ..ir import nodes as N
from ..ir import visit as V
from ..ir.attrs import BOUNDS_CHECK, PARALLEL, RANGE_STEP, RUN_TIME_STEP, STATEFUL, STREAM, VOLATILE
from ..ir.ops import LOGIC_OPS, BinOpKind, UnaryOpKind
from ..ir.types import ArrayType, Fixed, Float, UFixed, UInt, index, int64
from . import runloops as RL
from .bounds import affine, guard_ranges, in_bounds, loop_range, var_range

STATUS_NAME = "_allo_status"
SITE, DIM, VALUE, ABORT = 0, 1, 2, 3
bool_t = UInt(1)


def require_bounds_check(func: N.Func) -> None:
    """Always check the indices of `func` at run time, whatever the build's `bounds_check`
    (e.g. an embedding lookup whose ids come from the user)."""
    func.attrs[BOUNDS_CHECK] = True


@dataclass
class Site:
    """One checked access: where it is and what it indexes."""

    func: str
    buf: str
    shape: tuple
    kind: str  # "read" or "write"
    loc: object = None
    loop: str | None = None  # checked once at the entry of this loop (with run-time bounds)
    stepped: str | None = None  # checked in every iteration of this loop with a run-time step


@dataclass
class GuardInfo:
    """What `instrument` did: whether the functions take the hidden status array, and the table
    of checked accesses (status[SITE] - 1 indexes it)."""

    status: bool = False
    sites: list = field(default_factory=list)
    aborts: bool = False

    @staticmethod
    def new_status() -> np.ndarray:
        return np.zeros(4, np.int64)

    def raise_if_failed(self, status: np.ndarray) -> None:
        """Raise BoundsError for a violation recorded in `status` (no-op otherwise)."""
        k = int(status[SITE])
        if not k:
            return
        site = self.sites[k - 1]
        if site.kind == "step":
            raise located(AlloValueError, f"range() step of the loop {site.loop!r} in {site.func!r} is 0 at run time "
                          "(Python raises ValueError: range() arg 3 must not be zero); the loop did not run and the "
                          "results were discarded", site.loc)
        dim, value = int(status[DIM]), int(status[VALUE])
        which = f"dimension {dim} of " if len(site.shape) > 1 else ""
        how = (f"checked in every iteration of the loop {site.stepped!r}, whose range step is read at run time: "
               "out-of-range accesses were skipped, the results discarded" if site.stepped is not None else
               "found at run time by bounds_check: out-of-range accesses were skipped, the results discarded"
               if site.loop is None else
               f"the loop {site.loop!r} with run-time bounds reaches it: checked when the loop starts, the loop did "
               "not run and the results were discarded; pass a bound within the array")
        raise located(BoundsError, f"index {value} is out of bounds for {which}{site.buf!r} (shape "
                      f"{list(site.shape)}, valid indices 0..{site.shape[dim] - 1}) on a {site.kind} in "
                      f"{site.func!r} ({how})", site.loc)


# ----------------------------------------------------------------------------- 1. zero initialisation
def zero_init(module: N.Module) -> None:
    """Give every local declared without initialiser an explicit zero, unless it is written
    before it is read (see the module docstring)."""
    for f in module.funcs:
        shared = _parallel_scratch(f)
        _zero_block(f.body, shared)


def _zero_block(body, shared):
    for k, s in enumerate(body):
        if (isinstance(s, N.Alloc) and s.init is None and id(s.buf) not in shared and not s.buf.attrs.get(STREAM)
                and STATEFUL not in s.buf.attrs):  # a Stateful local starts at its initial value, once
            if not _first_use_writes_all(body[k + 1:], s.buf, [], top=True):
                s.init = N.Const(0.0 if isinstance(s.buf.dtype, (Float, Fixed, UFixed)) else 0, s.buf.dtype, s.loc)
        for child in V.blocks(s):
            _zero_block(child, shared)


def _parallel_scratch(f) -> set:
    """Locals declared outside a parallel loop and used inside it: the CPU backend gives each
    thread a private copy (left as they are: a shared zero fill would race)."""
    out = set()
    for s in V.walk_stmts(f.body):
        if isinstance(s, N.For) and s.attrs.get(PARALLEL):
            declared = {id(a.buf) for a in V.walk_stmts(s.body) if isinstance(a, N.Alloc)}
            out |= set(E.used(s.body)) - declared
    return out


def written_before_read(stmts, buf) -> bool:
    """Does the first statement of `stmts` that mentions `buf` write all of it before reading
    it (so the value never flows in from before `stmts`)?"""
    return _first_use_writes_all(stmts, buf, [])


def _first_use_writes_all(stmts, buf, loops, top=False) -> bool:
    """Is the first statement of `stmts` that mentions `buf` one that writes all of it before
    any read? (At the top, a buffer never used again needs no zero either.)"""
    for s in stmts:
        if E.mentions(s, buf):
            return _writes_all(s, buf, loops)
    return top


def _writes_all(s, buf, loops) -> bool:
    if isinstance(s, N.Store):
        # the loops the index runs over: inside them every access must use this very index
        used = {id(v) for i in s.indices for v in V.walk_expr(i) if isinstance(v, N.IterVar)}
        region = next((f for f in loops if id(f.var) in used), s)
        return (s.buf is buf and _full_index(s.indices, buf, loops) and not E.loads_from([s.value, *s.indices], buf)
                and _only_index(region, buf, s.indices))
    if isinstance(s, N.For):
        r = loop_range(s)
        if r is None or r == "empty" or E.loads_from([s.lb, s.ub], buf):
            return False
        return _first_use_writes_all(s.body, buf, loops + [s])
    if isinstance(s, N.If):
        if E.loads_from([s.cond], buf) or not s.orelse:
            return False
        return _first_use_writes_all(s.then, buf, loops) and _first_use_writes_all(s.orelse, buf, loops)
    if isinstance(s, N.CallStmt):
        return any(r is buf for r in s.results) and not any(a is buf for a in s.args)
    return False


def _full_index(indices, buf, loops) -> bool:
    """Do these indices, over the enclosing loops, visit every element exactly once? Each index
    must be `sum(c_k * v_k)` over loops starting at 0 with step 1 whose coefficients are the
    mixed radix of the dimension (`i`, or `4*i.outer + i.inner` after a split by 4)."""
    if not indices:
        return True
    trips = {id(f.var): (r[1] + 1 if isinstance(r, tuple) and r[0] == 0 and f.step == 1 else None)
             for f in loops for r in [loop_range(f)]}
    used = set()
    for idx, size in zip(indices, buf.shape):
        form = affine(idx)
        if form is None or form[1] != 0:
            return False
        radix = 1
        for key, (v, c) in sorted(form[0].items(), key=lambda kv: kv[1][1]):
            if trips.get(key) is None or key in used or c != radix:
                return False
            used.add(key)
            radix *= trips[key]
        if radix != size:
            return False
    return True


def _same_index(a, b) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        fx, fy = affine(x), affine(y)
        if fx is None or fy is None or fx[1] != fy[1] or {k: c for k, (_, c) in fx[0].items()} != \
                {k: c for k, (_, c) in fy[0].items()}:
            return False
    return True


def _only_index(region, buf, indices) -> bool:
    """Every access of `buf` inside `region` uses exactly these indices (same loop variables)."""
    for s in V.walk_stmts([region]):
        if isinstance(s, N.Store) and s.buf is buf and not _same_index(s.indices, indices):
            return False
        if isinstance(s, N.CallStmt) and any(a is buf for a in s.args):
            return False
        for e in V.stmt_exprs(s):
            if any(isinstance(x, N.Load) and x.buf is buf and not _same_index(x.indices, indices)
                   for x in V.walk_expr(e)):
                return False
    return True


# ----------------------------------------------------------------------------- 2./3. checks
def may_run_long(module: N.Module) -> bool:
    """Can a call run without a bound known at build time (a `while`, or a loop whose bounds are
    known only at run time)? Such calls are made interruptible by the LLVM backend."""
    return any(_runs_long(f.body, {}) for f in module.funcs)


def _runs_long(body, ranges) -> bool:
    for s in body:
        if isinstance(s, N.While):
            return True
        if isinstance(s, N.For):
            r = var_range(s, ranges)
            if r is None or (r != "empty" and _runs_long(s.body, {**ranges, id(s.var): r})):
                return True
        elif any(_runs_long(b, ranges) for b in V.blocks(s)):
            return True
    return False


def instrument(module: N.Module, bounds_check: bool = False, aborts: bool = False,
               entry_checks: bool = False) -> GuardInfo:
    """Zero-initialise locals, then add run-time bounds checks (functions with `bounds_check`
    or `_bounds_check`), abort checks (`aborts`) and entry checks of loops with run-time bounds
    (`entry_checks`, in the functions without bounds checks), in place. See the module docstring."""
    zero_init(module)
    info = GuardInfo(aborts=aborts)
    checked = [f for f in module.funcs if bounds_check or f.attrs.get(BOUNDS_CHECK)]
    entry_checks = entry_checks and may_run_long(module)
    if not checked and not aborts and not entry_checks:
        return info
    info.status = True
    statuses = {}
    for f in module.funcs:
        status = N.Buffer(STATUS_NAME, ArrayType(int64, (4,)), "arg")
        if aborts:  # a signal handler writes the abort flag while the call runs
            status.attrs[VOLATILE] = True
        statuses[f.name] = status
        f.params = list(f.params) + [status]
    for f in module.funcs:
        check = any(f is c for c in checked)
        rw = _Instrumenter(f, statuses[f.name], info, check, aborts, entry_checks and not check)
        f.body = rw.block(f.body, {})
    for f in module.funcs:
        for s in V.walk_stmts(f.body):
            if isinstance(s, N.CallStmt) and s.callee in statuses:
                s.args = list(s.args) + [statuses[f.name]]
    return info


def _idx(v: int) -> N.Const:
    return N.Const(int(v), index)


def _and(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return N.BinOp(BinOpKind.LAND, a, b, bool_t)


class _Instrumenter:
    """Rewrites one function's statements (see `instrument`)."""

    def __init__(self, f: N.Func, status: N.Buffer, info: GuardInfo, check: bool, aborts: bool, entry: bool):
        self.f, self.status, self.info, self.check, self.aborts, self.entry = f, status, info, check, aborts, entry
        self.n_loops = 0
        self.checking_loop = None  # the run-time-step loop whose accesses are being checked (entry builds)

    # --- status helpers
    def status_is(self, slot, value=0):
        return N.BinOp(BinOpKind.EQ, N.Load(self.status, [_idx(slot)]), N.Const(value, int64), bool_t)

    def record(self, site, dim, idx, path, loc):
        """`if path and not 0 <= idx < size: (if no error yet) status = [site, dim, idx, _]`."""
        size = self.info.sites[site].shape[dim]
        bad = N.BinOp(BinOpKind.LOR, N.BinOp(BinOpKind.LT, V.copy_expr(idx), _idx(0), bool_t),
                      N.BinOp(BinOpKind.GE, V.copy_expr(idx), _idx(size), bool_t), bool_t)
        cond = _and(V.copy_expr(path) if path is not None else None, bad)
        return N.If(cond, [self.first_error(site, dim, idx, loc)], [], loc)

    def first_error(self, site, dim, value, loc):
        """`status = [site + 1, dim, value, _]` unless an earlier violation is recorded (the status
        is read only on this cold path: it may be a volatile array)."""
        body = [N.Store(self.status, [_idx(DIM)], N.Const(dim, int64), loc),
                N.Store(self.status, [_idx(VALUE)], N.Cast(V.copy_expr(value), int64, loc), loc),
                N.Store(self.status, [_idx(SITE)], N.Const(site + 1, int64), loc)]
        return N.If(self.status_is(SITE), body, [], loc)

    def site(self, buf, kind, loc, loop=None) -> int:
        self.info.sites.append(Site(self.f.name, buf.name, tuple(buf.shape), kind, loc, loop,
                                    self.checking_loop if loop is None else None))
        return len(self.info.sites) - 1

    def skip(self, buf) -> bool:
        return buf is self.status or buf.kind == "scalar_arg"

    def runtime_loop(self, s: N.For, accesses) -> list:
        """A loop with run-time bounds: its bounds read once into locals, the entry checks of
        `accesses`, and the loop polling the abort flag (allo.transforms.runloops)."""
        lo, hi, decls = RL.bound_locals(s, self.n_loops)
        self.n_loops += 1
        s.lb, s.ub = N.Load(lo, [], index), N.Load(hi, [], index)
        loop = RL.chunked(s, lo, hi, self.status_is(ABORT)) if self.aborts else [s]
        if not accesses:
            return decls + loop
        first = N.Load(lo, [], index)
        last = RL.last_value(N.Load(lo, [], index), N.Load(hi, [], index), int(s.step))
        records, bad_any = [], None
        for acc in accesses:
            site = self.site(acc.buf, acc.kind, acc.loc, loop=s.name)
            bad, value = RL.violation(acc, s, first, last)
            records.append(N.If(V.copy_expr(bad), [self.first_error(site, acc.dim, value, acc.loc)], [], s.loc))
            bad_any = bad if bad_any is None else N.BinOp(BinOpKind.LOR, bad_any, bad, bool_t)
        return decls + [N.If(_and(RL.runs(lo, hi), bad_any), records, loop, s.loc)]

    def unproven(self, buf, indices, ranges):
        if not self.check or buf is self.status or buf.kind == "scalar_arg" or not buf.shape or buf.attrs.get(STREAM):
            return []  # (a stream is a FIFO: its indices only order the elements)
        return [d for d, (i, n) in enumerate(zip(indices, buf.shape)) if not in_bounds(i, n, ranges)]

    # --- expressions: returns the rewritten expression, appends checks to `pre`
    def expr(self, e, pre, ranges, path=None):
        if isinstance(e, N.Load):
            idx = [self.expr(i, pre, ranges, path) for i in e.indices]
            dims = self.unproven(e.buf, idx, ranges)
            if dims:
                site = self.site(e.buf, "read", e.loc)
                for d in dims:
                    pre.append(self.record(site, d, idx[d], path, e.loc))
                    clamp = N.BinOp(BinOpKind.MAX, V.copy_expr(idx[d]), _idx(0), index)
                    idx[d] = N.BinOp(BinOpKind.MIN, clamp, _idx(e.buf.shape[d] - 1), index)
            return N.Load(e.buf, idx, e.type, e.loc)
        if isinstance(e, N.Select):
            cond = self.expr(e.cond, pre, ranges, path)
            a = self.expr(e.a, pre, ranges, _and(path, V.copy_expr(cond)))
            b = self.expr(e.b, pre, ranges, _and(path, N.UnaryOp(UnaryOpKind.NOT, V.copy_expr(cond), bool_t)))
            return N.Select(cond, a, b, e.type, e.loc)
        if isinstance(e, N.BinOp) and e.op in LOGIC_OPS:
            lhs = self.expr(e.lhs, pre, ranges, path)
            taken = V.copy_expr(lhs) if e.op == BinOpKind.LAND else N.UnaryOp(UnaryOpKind.NOT, V.copy_expr(lhs), bool_t)
            rhs = self.expr(e.rhs, pre, ranges, _and(path, taken))
            return N.BinOp(e.op, lhs, rhs, e.type, e.loc)
        if isinstance(e, N.BinOp):
            lhs, rhs = self.expr(e.lhs, pre, ranges, path), self.expr(e.rhs, pre, ranges, path)
            return N.BinOp(e.op, lhs, rhs, e.type, e.loc)
        if isinstance(e, N.UnaryOp):
            return N.UnaryOp(e.op, self.expr(e.operand, pre, ranges, path), e.type, e.loc)
        if isinstance(e, N.Cast):
            return N.Cast(self.expr(e.value, pre, ranges, path), e.type, e.loc)
        if isinstance(e, N.MathCall):
            return N.MathCall(e.fn, [self.expr(a, pre, ranges, path) for a in e.args], e.type, e.loc)
        return e

    # --- statements
    def block(self, body, ranges):
        out = []
        for s in body:
            out += self.stmt(s, ranges)
        return out

    def stmt(self, s, ranges):
        pre = []
        if isinstance(s, N.For):
            s.lb, s.ub = self.expr(s.lb, pre, ranges), self.expr(s.ub, pre, ranges)
            r = var_range(s, ranges)
            inner = dict(ranges)
            if isinstance(r, tuple):
                inner[id(s.var)] = r
            accesses = RL.entry_accesses(s, ranges, self.skip) if r is None and self.entry else []
            if self.entry and not self.check and s.attrs.get(RUN_TIME_STEP):
                # its variable a + step * t has no affine form for an entry check: check every access
                self.check, self.checking_loop = True, s.name
                try:
                    s.body = self.block(s.body, inner)
                finally:
                    self.check, self.checking_loop = False, None
            else:
                s.body = self.block(s.body, inner)
            if r is None and (self.aborts or accesses):
                return pre + self.runtime_loop(s, accesses)
        elif isinstance(s, N.If):
            s.cond = self.expr(s.cond, pre, ranges)
            for attr, negate in (("then", False), ("orelse", True)):
                narrowed = guard_ranges(s.cond, ranges, negate)
                narrowed = ranges if narrowed in (None, "dead") else narrowed
                setattr(s, attr, self.block(getattr(s, attr), narrowed))
        elif isinstance(s, N.While):
            again, original = [], V.copy_expr(s.cond)
            s.cond = self.expr(s.cond, pre, ranges)
            self.expr(original, again, ranges)  # the condition's checks, again before every test
            s.body = self.block(s.body, ranges) + again
            if self.aborts:
                s.cond = _and(s.cond, self.status_is(ABORT))
        elif isinstance(s, N.Store):
            s.value = self.expr(s.value, pre, ranges)
            s.indices = [self.expr(i, pre, ranges) for i in s.indices]
            dims = self.unproven(s.buf, s.indices, ranges)
            if dims:
                site = self.site(s.buf, "write", s.loc)
                ok = None
                for d in dims:
                    pre.append(self.record(site, d, s.indices[d], None, s.loc))
                    i = s.indices[d]
                    inside = N.BinOp(BinOpKind.LAND, N.BinOp(BinOpKind.GE, V.copy_expr(i), _idx(0), bool_t),
                                     N.BinOp(BinOpKind.LT, V.copy_expr(i), _idx(s.buf.shape[d]), bool_t), bool_t)
                    ok = _and(ok, inside)
                return pre + [N.If(ok, [s], [], s.loc)]
        elif isinstance(s, N.Alloc):
            if isinstance(s.init, N.Expr):
                s.init = self.expr(s.init, pre, ranges)
            if RANGE_STEP in s.buf.attrs:  # range(a, b, step) with step == 0: Python's ValueError
                site = self.site(s.buf, "step", s.loc, loop=s.buf.attrs[RANGE_STEP])
                zero = N.BinOp(BinOpKind.EQ, N.Load(s.buf, [], index), _idx(0), bool_t)
                return pre + [s, N.If(zero, [self.first_error(site, 0, _idx(0), s.loc)], [], s.loc)]
        elif isinstance(s, N.CallStmt):
            s.args = [self.expr(a, pre, ranges) if isinstance(a, N.Expr) else a for a in s.args]
        elif isinstance(s, N.Return):
            s.values = [self.expr(v, pre, ranges) if isinstance(v, N.Expr) else v for v in s.values]
        return pre + [s]


__all__ = ["instrument", "zero_init", "written_before_read", "may_run_long", "require_bounds_check", "GuardInfo",
           "Site", "STATUS_NAME"]
