"""The kernel as one hardware function for the static scheduler: calls inlined, constants as
memory arguments, array results as output arguments (like the handshake route, allo.backend.rtl.
prepare), but arrays keep their shapes (banks are computed per dimension) and their partition
attributes, and array initialisers become fill loops.

Example::

    hw = prepare_static(ir_module)
    hw.func.body      # statements of the single top function
"""
from __future__ import annotations

from ....errors import BackendError
from ....ir import nodes as N
from ....ir import visit as V
import itertools

from ....ir.attrs import DATAFLOW, PARTITION, PIPELINE_II, Partition
from ....ir.types import ArrayType, Index, UInt
from ....qor.affine import partitions
from ..prepare import (HWTop, _globals_to_args, _Inliner, _loop_nest, _reachable, _to_destination_passing,
                       check_no_floats, check_no_stateful)
from .float_exprs import check_float_types

index_t = Index()
PROCESS_MARK = "allo_process_boundary"  # a declaration that starts each process of a dataflow region


def prepare_static(mod: N.Module, floats: bool = False) -> HWTop:
    """A clone of `mod`'s top function ready for `allo.backend.rtl.static` (see module doc)."""
    mod = mod.clone()
    try:
        top = mod.func(mod.top)
    except KeyError:
        raise BackendError(f"top function {mod.top!r} not found in the module") from None
    original = top.clone()
    check_no_stateful(mod, top, "static RTL")
    if not floats:
        check_no_floats(mod, top, "static RTL")
    else:
        for f in _reachable(mod, top):
            check_float_types(f)
    parts = _returned_partitions(top)
    _lift_partitions(mod, top, set())
    top.body = _FillInits().stmts(top.body)
    dataflow = bool(top.attrs.get(DATAFLOW))
    for f in _reachable(mod, top):
        f.body = _MarkLoopProcesses().stmts(f.body)
    if dataflow:  # each top-level statement is a process of the region: mark where each one starts
        body = []
        for st in top.body:
            if not isinstance(st, (N.Return, N.Alloc)):
                body.append(_mark(st.loc))
            body += _Inliner(mod, 0).stmts([st])
        top.body = body
    else:
        top.body = _Inliner(mod, 0).stmts(top.body)
    hw = _to_destination_passing(top, original)
    hw.dataflow = dataflow
    for pos in hw.outputs:  # the returned local's partitions belong to the output interface now
        p = hw.func.params[pos]
        if p.name in parts and PARTITION not in p.attrs:
            p.attrs[PARTITION] = list(parts[p.name])
    _globals_to_args(hw)
    hw.func.body = _FillInits().stmts(hw.func.body)
    hw.func.body = _ArrayConds().stmts(hw.func.body)
    _results_in_registers(hw.func)
    _single_trip_constants(hw.func.body)
    return hw


def _single_trip_constants(body) -> None:
    """The variable of a loop with one iteration is its lower bound in the body (as Vitis folds
    it): a lane `i.outer * 4 + i.inner` under `i.outer` of one trip addresses a known bank and
    register, instead of a mux whose writes every other lane must wait for."""
    for st in V.walk_stmts(body):
        if isinstance(st, N.For) and isinstance(st.lb, N.Const) and isinstance(st.ub, N.Const) \
                and len(range(int(st.lb.value), int(st.ub.value), st.step)) == 1:
            V.subst_stmts(st.body, {st.var: N.Const(int(st.lb.value), st.var.type)})


def _reads_array(e) -> bool:
    return any(isinstance(x, N.Load) and x.buf.shape for x in V.walk_expr(e))


def _temp(name, e, loc):
    buf = N.Buffer(name, ArrayType(e.type, ()), "local", loc=loc)
    return buf, [N.Alloc(buf, None, loc), N.Store(buf, [], e, loc)]


class _ArrayConds(V.Rewriter):
    """Conditions of branches and while loops around loops that read arrays are computed into a
    scalar first (the FSM tests registers; memories are read by the datapath)."""

    def rewrite_If(self, s):
        if _reads_array(s.cond) and _has_loop(s.then + s.orelse):
            buf, pre = _temp("cond", s.cond, s.loc)
            s.cond = N.Load(buf, [], buf.dtype, s.loc)
            return pre + [s]
        return s

    def rewrite_While(self, s):
        if _reads_array(s.cond):
            buf, pre = _temp("wcond", s.cond, s.loc)
            again = [N.Store(buf, [], V.copy_expr(s.cond), s.loc)]
            s.cond = N.Load(buf, [], buf.dtype, s.loc)
            s.body = s.body + again
            return pre + [s]
        return s


def _has_loop(body) -> bool:
    return any(isinstance(x, (N.For, N.While)) for x in V.walk_stmts(body))


def _results_in_registers(func):
    """Scalar results that read arrays are computed by the datapath into registers."""
    ret = func.body[-1] if func.body and isinstance(func.body[-1], N.Return) else None
    if ret is None:
        return
    pre, vals = [], []
    for r, v in enumerate(ret.values):
        if isinstance(v, N.Expr) and _reads_array(v):
            buf, stmts = _temp(f"result{r}", v, ret.loc)
            pre += stmts
            v = N.Load(buf, [], buf.dtype, ret.loc)
        vals.append(v)
    ret.values = vals
    func.body[-1:] = pre + [ret]


def _returned_partitions(top: N.Func) -> dict:
    ret = top.body[-1] if top.body and isinstance(top.body[-1], N.Return) else None
    out = {}
    for v in (ret.values if ret else []):
        if isinstance(v, N.Buffer) and v.attrs.get(PARTITION):
            out[v.name] = v.attrs[PARTITION]
    return out


def _lift_partitions(mod: N.Module, func: N.Func, seen: set):
    """A callee's partition of an array parameter applies to the caller's array passed to it (the
    estimator binds the callee's view, Vitis propagates the pragma); after inlining only the
    caller's array is left, so it takes the partitions of the dimensions it does not split itself."""
    for s in V.walk_stmts(func.body):
        if not isinstance(s, N.CallStmt):
            continue
        try:
            callee = mod.func(s.callee)
        except KeyError:
            continue  # the inliner reports it
        if callee.name not in seen:
            seen.add(callee.name)
            _lift_partitions(mod, callee, seen)
        for p, a in zip(callee.params, s.args):
            if not (isinstance(a, N.Buffer) and p.shape and tuple(a.shape) == tuple(p.shape)):
                continue
            own = {d for _, d, _ in partitions(a)}
            extra = [pt for pt in partitions(p) if pt[1] not in own]
            if extra:
                a.attrs[PARTITION] = list(a.attrs.get(PARTITION) or []) + extra


def _mark(loc):
    return N.Alloc(N.Buffer(PROCESS_MARK, ArrayType(UInt(1), ()), "local"), None, loc)


class _MarkLoopProcesses(V.Rewriter):
    """The body of a loop marked `dataflow`: a process mark before each statement (before calls
    are inlined, so a call stays one process; design.loop_region reads them)."""

    def rewrite_For(self, s):
        if s.attrs.get(DATAFLOW):
            body = []
            for st in s.body:
                if not isinstance(st, N.Alloc):
                    body.append(_mark(st.loc))
                body.append(st)
            s.body = body
        return s


class _FillInits(V.Rewriter):
    """`x: int32[4, 8] = 0` -> an allocation and a fill loop nest (pipelined when Vitis would); an
    array of registers (complete partitions on every dimension) is filled in one step, all its
    registers at once (the estimator counts one cycle), e.g. reuse_at's line and window buffers."""

    def rewrite_Alloc(self, s):
        if s.buf.shape and isinstance(s.init, N.Expr):
            ivs = [N.IterVar(f"f{k}") for k in range(len(s.buf.shape))]
            value = s.init if s.init.type == s.buf.dtype else N.Cast(s.init, s.buf.dtype, s.loc)
            split = {d for kind, d, _ in partitions(s.buf) if Partition(kind) == Partition.Complete}
            if split >= set(range(1, len(s.buf.shape) + 1)) and isinstance(s.init, N.Const):
                return [N.Alloc(s.buf, None, s.loc)] + [
                    N.Store(s.buf, [N.Const(k, index_t) for k in pos], value, s.loc)
                    for pos in itertools.product(*(range(int(n)) for n in s.buf.shape))]
            nest = _loop_nest(ivs, s.buf.shape, N.Store(s.buf, list(ivs), value, s.loc), f"fill_{s.buf.name}", s.loc)
            if s.buf.type.size >= 64 or s.buf.shape[-1] >= 64:
                inner = nest
                while isinstance(inner.body[0], N.For):
                    inner = inner.body[0]
                inner.attrs[PIPELINE_II] = 1
            return [N.Alloc(s.buf, None, s.loc), nest]
        return s


__all__ = ["prepare_static", "PROCESS_MARK"]
