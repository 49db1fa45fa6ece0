"""Statements of the MLIR renderer (a mixin of `_FuncRenderer`): loops, conditionals, allocation
with initialisers, stores, calls and returns, dispatched through the `_STMTS` table.

Example::

    class MyRenderer(_FuncRenderer):             # override one statement kind
        def s_for(self, s): ...
        _STMTS = {**FuncRenderer._STMTS, N.For: s_for}
"""
from __future__ import annotations

import numpy as np

from ..ir import nodes as N
from ..ir.attrs import LOOP_NAME, NAME, STATEFUL, TO, UNROLL, rendered
from ..ir.types import ArrayType
from .affine import aff_str, aff_vars, affine_form
from .attrs import attr_dict, buffer_attrs
from .unroll import plan_unroll, unroll_for


class StmtMixin:
    """Statement handlers; the host class (`_FuncRenderer`) provides the SSA plumbing, memory
    access, expressions and the `env`/`mem`/`hoisted`/`owned` state. A subclass that overrides a
    handler must also put it in its own `_STMTS` (the table holds the functions themselves)."""

    def block(self, body):
        for s in body:
            self.stmt(s)

    def stmt(self, s):
        prev = self.loc
        self.loc = s.loc if getattr(s, "loc", None) is not None else prev
        try:
            handler = self._STMTS.get(type(s))
            if handler is None:
                raise self.error(f"unsupported statement {type(s).__name__}")
            handler(self, s)
        finally:
            self.loc = prev

    def s_for(self, s: N.For):
        if self.llvm and UNROLL in s.attrs:
            allowance = self.unroll_allowance
            factor, inner = plan_unroll(s, allowance)
            stmts = unroll_for(s, factor) if factor is not None else None
            if stmts is not None:
                self.unroll_allowance = inner  # what each copy of the body may still expand to
                try:
                    self.block(stmts)
                finally:
                    self.unroll_allowance = allowance
                return
        is_dim = self._is_dim
        lb, ub = affine_form(s.lb, is_dim), affine_form(s.ub, is_dim)
        if not isinstance(s.step, (int, np.integer)) or s.step <= 0:
            raise self.error(f"loop {s.name!r}: step must be a positive integer, got {s.step!r}")
        iv = f"%i{self.n + 1}"
        self.n += 1
        if lb is not None and ub is not None:
            self.emit(f"affine.for {iv} = {self._bound(lb)} to {self._bound(ub)} step {int(s.step)} {{")
            affine = True
        else:
            lo, hi = self.index_value(s.lb), self.index_value(s.ub)
            st = self.iconst(int(s.step), "index")
            self.emit(f"scf.for {iv} = {lo} to {hi} step {st} {{")
            affine = False
        old = self.env.get(s.var)
        self.env[s.var] = (iv, affine)
        self.ind += 1
        self.block(s.body)
        self.ind -= 1
        if old is None:
            del self.env[s.var]
        else:
            self.env[s.var] = old
        attrs = [(LOOP_NAME, s.name)] + [(k, v) for k, v in s.attrs.items() if rendered(k, self.llvm)]
        self.emit(f"}} {attr_dict(attrs)}", self.loc)

    def _is_dim(self, v):
        b = self.env.get(v)
        return b is not None and b[1]

    def _bound(self, a) -> str:
        if a[0] == "c":
            return str(a[1])
        dims = aff_vars(a, [])
        names = {id(v): f"d{k}" for k, v in enumerate(dims)}
        expr = aff_str(a, lambda v: names[id(v)])
        operands = ", ".join(self.env[v][0] for v in dims)
        return f"affine_map<({', '.join(names[id(v)] for v in dims)}) -> ({expr})>({operands})"

    def s_if(self, s: N.If):
        c = self.as_bool(s.cond)
        self.emit(f"scf.if {c} {{")
        self.ind += 1
        self.block(s.then)
        self.ind -= 1
        if s.orelse:
            self.emit("} else {")
            self.ind += 1
            self.block(s.orelse)
            self.ind -= 1
        self.emit("}", self.loc)

    def s_while(self, s: N.While):
        self.emit("scf.while : () -> () {")
        self.ind += 1
        c = self.as_bool(s.cond)
        self.emit(f"scf.condition({c})")
        self.ind -= 1
        self.emit("} do {")
        self.ind += 1
        self.block(s.body)
        self.emit("scf.yield")
        self.ind -= 1
        self.emit("}", self.loc)

    def s_alloc(self, s: N.Alloc):
        b = s.buf
        if id(b) in self.hoisted:
            m = self.mem[id(b)]
        elif STATEFUL in b.attrs:
            m = self.stateful_memref(b)
        else:
            attrs = [(NAME, b.name)] + (buffer_attrs(b) if not self.llvm else [])
            m = self.op(f"memref.alloc() {attr_dict(attrs)} : {self.mref(b)}")
            self.mem[id(b)] = m
        if s.init is None:
            return
        if isinstance(s.init, N.Buffer):
            src = self.memref(s.init)
            if s.init.type.mlir != b.type.mlir:
                raise self.error(f"cannot initialise {b.name!r} ({b.type!r}) from {s.init.name!r} ({s.init.type!r})")
            self.emit(f"memref.copy {src}, {m} : {self.mref(s.init)} to {self.mref(b)}", self.loc)
            return
        v = self.to_storage(self.expr_as(s.init, b.dtype), b.dtype)
        if not self.llvm and b.shape:
            # The view writes a constant fill as upstream Allo does: one linalg.fill, not a store
            # loop (a store carries `to = name`, which tools count as the kernel's own writes).
            self.emit(f"linalg.fill ins({v} : {b.dtype.storage_mlir}) "
                      f"outs({m} : {self.mref(b)})", self.loc)
            return
        ivs = []
        for d in b.shape:
            iv = f"%i{self.n + 1}"
            self.n += 1
            self.emit(f"affine.for {iv} = 0 to {d} {{")
            self.ind += 1
            ivs.append(iv)
        self.emit(f"affine.store {v}, {m}[{', '.join(ivs)}] {attr_dict([(TO, b.name)])} : {self.mref(b)}", self.loc)
        for _ in b.shape:
            self.ind -= 1
            self.emit("}")

    def s_store(self, s: N.Store):
        b = s.buf
        if b.kind == "scalar_arg":
            raise self.error(f"cannot assign to scalar parameter {b.name!r} (parameters are read-only)")
        if len(s.indices) != b.type.rank:
            raise self.error(f"store to {b.name!r} has {len(s.indices)} indices for rank {b.type.rank}")
        v = self.to_storage(self.expr_as(s.value, b.dtype), b.dtype)
        m = self.memref(b)
        idx, affine = self.indices(s.indices)
        kind = "affine.store" if affine else "memref.store"
        self.emit(f"{kind} {v}, {m}[{idx}] {attr_dict([(TO, b.name)])} : {self.mref(b)}", self.loc)

    def s_call(self, s: N.CallStmt):
        callee = self.mr.funcs.get(s.callee)
        if callee is None:
            raise self.error(f"call to unknown function {s.callee!r}")
        if len(s.args) != len(callee.params):
            raise self.error(f"call to {s.callee!r} passes {len(s.args)} arguments, it takes {len(callee.params)}")
        vals, types = [], []
        for p, a in zip(callee.params, s.args):
            if p.kind == "scalar_arg":
                vals.append(self.scalar_of(a, p.dtype))
                types.append(p.dtype.mlir)
            else:
                if not isinstance(a, N.Buffer):
                    raise self.error(f"call to {s.callee!r}: argument {p.name!r} must be an array")
                if a.type.mlir != p.type.mlir:
                    raise self.error(f"call to {s.callee!r}: argument {p.name!r} expects {p.type!r}, got {a.type!r}")
                vals.append(self.space_cast(self.memref(a), self.mref(a), self.mref(p)))
                types.append(self.mref(p))
        rtypes = [rt.mlir for rt in callee.result_types]
        n = len(rtypes)
        r = self.val()
        lhs = "" if n == 0 else (f"{r} = " if n == 1 else f"{r}:{n} = ")
        attrs = attr_dict([(k, v) for k, v in s.attrs.items() if rendered(k, self.llvm)])
        attrs = f" {attrs}" if attrs else ""
        self.emit(f"{lhs}func.call @{callee.name}({', '.join(vals)}){attrs} : ({', '.join(types)}) -> ({', '.join(rtypes)})", self.loc)
        if len(s.results) != n:
            raise self.error(f"call to {s.callee!r} binds {len(s.results)} results, it returns {n}")
        for k, (rb, rt) in enumerate(zip(s.results, callee.result_types)):
            rv = r if n == 1 else f"{r}#{k}"
            if isinstance(rt, ArrayType):
                if id(rb) in self.hoisted:
                    self.emit(f"memref.copy {rv}, {self.mem[id(rb)]} : {rt.mlir} to {rt.mlir}")
                    if self.llvm:
                        self.emit(f"memref.dealloc {rv} : {rt.mlir}")
                else:
                    if self.llvm and id(rb) in self.owned:  # a re-bound result: free the previous value
                        prev, ty = self.owned.pop(id(rb))
                        self.emit(f"memref.dealloc {prev} : {ty}")
                    self.mem[id(rb)] = rv
                    if self.llvm:
                        self.owned[id(rb)] = (rv, rt.mlir)
            else:
                self.store_scalar(rb, rv, rt)

    def store_scalar(self, b: N.Buffer, v, t):
        if b.type.rank != 0:
            raise self.error(f"scalar result bound to array {b.name!r}")
        v = self.to_storage(self.cast(v, t, b.dtype), b.dtype)
        self.emit(f"affine.store {v}, {self.memref(b)}[] {attr_dict([(TO, b.name)])} : {self.mref(b)}", self.loc)

    def s_return(self, s: N.Return):
        f = self.f
        if len(s.values) != len(f.result_types):
            raise self.error(f"return of {len(s.values)} values, the function declares {len(f.result_types)}")
        vals, keep = [], set()
        for v, rt in zip(s.values, f.result_types):
            if isinstance(rt, ArrayType):
                if not isinstance(v, N.Buffer):
                    raise self.error("an array result must be a buffer")
                m = self.space_cast(self.memref(v), self.mref(v), rt.mlir)
                if self.llvm and (id(v) not in self.owned or id(v) in keep):
                    fresh = self.op(f"memref.alloc() {attr_dict([(NAME, v.name)])} : {rt.mlir}")
                    self.emit(f"memref.copy {m}, {fresh} : {rt.mlir} to {rt.mlir}")
                    m = fresh
                else:
                    keep.add(id(v))
                vals.append(m)
            else:
                vals.append(self.scalar_of(v, rt))
        self.free_owned(keep)
        if vals:
            types = ", ".join(rt.mlir for rt in f.result_types)
            self.emit(f"return {', '.join(vals)} : {types}", self.loc)
        else:
            self.emit("return", self.loc)

    _STMTS = {N.For: s_for, N.If: s_if, N.While: s_while, N.Alloc: s_alloc, N.Store: s_store,
              N.CallStmt: s_call, N.Return: s_return}
