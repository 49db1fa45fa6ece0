"""Function level of the MLIR renderer: SSA plumbing, the function head, allocation (hoisting
in "llvm" mode, frees before returning) and memory access. Statements, expressions, arithmetic
and casts come from the mixins in `stmts`, `exprs`, `arith` and `casts`.

Example::

    text = _FuncRenderer(module_renderer, func).render()   # "  func.func @gemm(...) ... }"
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import BackendError, located
from ..ir import effects as E, nodes as N, visit as V
from ..ir.attrs import (ARG_NAMES, BIND_STORAGE, memory_space, FROM, ITYPES, NAME, OTYPES, PARTITION, PARTITION_MAP, STATEFUL,
                        VOLATILE,
                        rendered)
from ..ir.types import ArrayType, Fixed, Float, Index, Int, UFixed, UInt, is_bool, is_signed
from .affine import aff_str, affine_form
from .arith import ArithMixin
from .attrs import attr_dict, buffer_attrs, partition_map
from .unroll import MAX_TOTAL_UNROLL
from .casts import CastMixin
from .exprs import ExprMixin
from .scalars import cat, elem_bytes, fixed_raw, float_hex, index_t, int_literal
from .stmts import StmtMixin

if TYPE_CHECKING:
    from .module import ModuleRenderer

STACK_BYTES = 4096  # llvm mode: locals up to this size live on the stack (memref.alloca)


class FuncRenderer(StmtMixin, ExprMixin, ArithMixin, CastMixin):
    """Renders one `N.Func` as `func.func` text (see the module docstring)."""

    stack_bytes = STACK_BYTES  # llvm mode: larger locals are heap allocations (None: every local on the stack)

    def __init__(self, mr: ModuleRenderer, f: N.Func):
        self.mr, self.f, self.llvm = mr, f, mr.llvm
        self.lines = []
        self.ind = 2
        self.n = 0
        self.env = {}  # IterVar -> (ssa, is_affine_dim)
        self.mem = {}  # id(Buffer) -> memref ssa (or scalar ssa for scalar_arg)
        self.hoisted = set()  # ids of buffers allocated in the prologue
        self.owned = {}  # llvm: id(Buffer) -> (ssa, memref type) of heap memory this function must free
        self.loc = None  # location of the statement being rendered
        self.unroll_allowance = MAX_TOTAL_UNROLL  # llvm: statement copies unrolling may still add here

    # ------------------------------------------------------------------ plumbing
    def val(self) -> str:
        self.n += 1
        return f"%v{self.n}"

    def emit(self, text, loc=None):
        loc = loc if loc is not None else None
        suffix = ""
        if loc is not None and hasattr(loc, "mlir"):
            suffix = " " + loc.mlir()
        self.lines.append("  " * self.ind + text + suffix)

    def op(self, text, loc=None) -> str:
        """Emit `%v = text` (with the current statement's loc) and return %v."""
        v = self.val()
        self.emit(f"{v} = {text}", loc if loc is not None else self.loc)
        return v

    def const(self, value, t) -> str:
        if isinstance(t, str):  # raw MLIR integer type like "i128" or "index"
            return self.op(f"arith.constant {int(value)} : {t}")
        if isinstance(t, Index):
            return self.op(f"arith.constant {int(value)} : index")
        if isinstance(t, Float):
            return self.op(f"arith.constant {float_hex(value, t)} : {t.mlir}")
        if is_bool(t):
            return self.op(f"arith.constant {'true' if value else 'false'}")
        if isinstance(t, (Fixed, UFixed)):
            return self.op(f"arith.constant {int_literal(fixed_raw(value, t), t.bits)} : {t.mlir}")
        if isinstance(t, (Int, UInt)):
            return self.op(f"arith.constant {int_literal(int(value), t.bits)} : {t.mlir}")
        raise BackendError(f"cannot make a constant of type {t!r}")

    def iconst(self, value, ty: str) -> str:
        if ty == "i1":
            return self.op(f"arith.constant {'true' if value else 'false'}")
        bits = int(ty[1:]) if ty != "index" else 64
        return self.op(f"arith.constant {int_literal(value, bits)} : {ty}")

    def error(self, msg):
        return located(BackendError, f"in function {self.f.name!r}: {msg}", self.loc)

    # ------------------------------------------------------------------ function
    def render(self) -> str:
        f = self.f
        args, arg_names, itypes = [], [], ""
        for k, p in enumerate(f.params):
            if p.kind == "scalar_arg":
                ty = p.dtype.mlir
            else:
                ty = self.mref(p)
            args.append(f"%arg{k}: {ty}")
            arg_names.append(p.name)
            self.mem[id(p)] = f"%arg{k}"
            itypes += "u" if cat(p.dtype) in ("u", "ufx") else "_"
        rtypes = [rt.mlir for rt in f.result_types]
        otypes = "".join("u" if cat(rt.dtype if isinstance(rt, ArrayType) else rt) in ("u", "ufx") else "_"
                         for rt in f.result_types)
        ret = ""
        if len(rtypes) == 1:
            ret = f" -> {rtypes[0]}"
        elif rtypes:
            ret = f" -> ({', '.join(rtypes)})"
        attrs = [(ARG_NAMES, arg_names)]
        if not self.llvm:
            attrs += [(ITYPES, itypes), (OTYPES, otypes)]
            part = {p.name: p.attrs[PARTITION] for p in f.params if p.attrs.get(PARTITION)}
            if part:
                attrs.append((PARTITION, part))
                attrs.append((PARTITION_MAP, {p.name: partition_map(p.shape, p.attrs[PARTITION])
                                                for p in f.params if p.attrs.get(PARTITION)}))
            bound = {p.name: p.attrs[BIND_STORAGE] for p in f.params if p.attrs.get(BIND_STORAGE)}
            if bound:
                attrs.append((BIND_STORAGE, bound))
            attrs += [(k, v) for k, v in f.attrs.items() if rendered(k, llvm=False)]
        head = f"  func.func @{f.name}({', '.join(args)}){ret} attributes {attr_dict(attrs)} {{"
        self.prologue()
        self.block(f.body)
        if not (f.body and isinstance(f.body[-1], N.Return)):
            if f.result_types:
                raise self.error("function has results but does not end with a return")
            self.loc = None
            self.free_owned(set())
            self.emit("return")
        loc = f" {f.loc.mlir()}" if f.loc is not None and hasattr(f.loc, "mlir") else ""
        return head + "\n" + "\n".join(self.lines) + "\n  }" + loc + "\n"

    def prologue(self):
        f = self.f
        bufs = V.iter_buffers(f)
        for b in bufs:
            if b.kind == "global":
                sym = self.mr.global_symbol(b)
                self.mem[id(b)] = self.op(f"memref.get_global @{sym} : {b.type.mlir}")
        returned = set()
        if f.body and isinstance(f.body[-1], N.Return):
            returned = {id(v) for v in f.body[-1].values if isinstance(v, N.Buffer)}
        self.returned = returned
        hoist = self.hoist_list(bufs)
        for b in hoist:
            self.alloc(b, returned)

    def hoist_list(self, bufs):
        """Buffers to allocate at function entry (in order of first mention)."""
        allocated = {id(s.buf) for s in V.walk_stmts(self.f.body) if isinstance(s, N.Alloc)}
        want = set()
        # locals never declared by an Alloc (e.g. scalars receiving call results)
        for b in bufs:
            if b.kind == "local" and id(b) not in allocated:
                want.add(id(b))
        # results of calls in nested regions are copied into a buffer that outlives the region
        total = E.ref_counts(self.f.body) if not self.llvm else None

        def visit(body, depth):
            if depth > 0 and not self.llvm:
                local = E.ref_counts(body)
            for s in body:
                if isinstance(s, N.CallStmt) and depth > 0:
                    want.update(id(r) for r in s.results)
                if isinstance(s, N.Alloc):
                    if self.llvm or (depth > 0 and local[id(s.buf)] != total[id(s.buf)]):
                        want.add(id(s.buf))
                for child in V.blocks(s):
                    visit(child, depth + 1)

        visit(self.f.body, 0)
        # scalar results of calls are stored into their receiving (rank-0) buffers
        for s in V.walk_stmts(self.f.body):
            if isinstance(s, N.CallStmt):
                callee = self.mr.funcs.get(s.callee)
                if callee is not None:
                    for r, rt in zip(s.results, callee.result_types):
                        if not isinstance(rt, ArrayType):
                            want.add(id(r))
        return [b for b in bufs if id(b) in want]

    def alloc(self, b: N.Buffer, returned):
        if STATEFUL in b.attrs:
            return self.stateful_memref(b)
        attrs = [(NAME, b.name)]
        if not self.llvm:
            attrs += buffer_attrs(b)
        small = self.stack_bytes is None or b.type.rank == 0 or b.type.size * elem_bytes(b.dtype) <= self.stack_bytes
        on_stack = self.llvm and id(b) not in returned and small
        kind = "memref.alloca" if on_stack else "memref.alloc"
        v = self.op(f"{kind}() {attr_dict(attrs)} : {self.mref(b)}", b.loc if b.loc is not None else self.loc)
        self.mem[id(b)] = v
        self.hoisted.add(id(b))
        if self.llvm and not on_stack:
            self.owned[id(b)] = (v, b.type.mlir)
        return v

    def stateful_memref(self, b: N.Buffer) -> str:
        """The storage of a `T @ Stateful` local: a mutable global of the module (never freed)."""
        sym = self.mr.stateful_symbol(b, self.f.name)
        v = self.op(f"memref.get_global @{sym} : {b.type.mlir}", b.loc if b.loc is not None else self.loc)
        self.mem[id(b)] = v
        self.hoisted.add(id(b))
        return v

    def free_owned(self, keep):
        if not self.llvm:
            return
        for bid, (v, ty) in self.owned.items():
            if bid not in keep:
                self.emit(f"memref.dealloc {v} : {ty}")

    # ------------------------------------------------------------------ memory access
    def memref(self, b: N.Buffer) -> str:
        m = self.mem.get(id(b))
        if m is None:
            raise self.error(f"buffer {b.name!r} ({b.kind}) is used before it is allocated")
        if b.kind == "scalar_arg":
            raise self.error(f"scalar parameter {b.name!r} used as an array")
        return m

    def mref(self, b: N.Buffer) -> str:
        """The memref type of array `b`. The view writes a storage binding (`@ Memory(...)` on a
        parameter or local) as upstream Allo's memory space, `memref<32xi32, 32 : i32>`; the LLVM
        rendering keeps the default space (the CPU build computes exactly as without it)."""
        t = b.type.mlir
        if self.llvm or b.kind not in ("arg", "local") or STATEFUL in b.attrs:
            return t
        space = memory_space(b.attrs.get(BIND_STORAGE))
        return f"{t[:-1]}, {space} : i32>" if space else t

    def space_cast(self, m: str, from_t: str, to_t: str) -> str:
        """`m` (of type from_t) as a value of type to_t: the same memref in another memory space."""
        return m if from_t == to_t else self.op(f"memref.memory_space_cast {m} : {from_t} to {to_t}")

    def indices(self, idx) -> tuple[str, bool]:
        forms = [affine_form(i, self._is_dim) for i in idx]
        if all(a is not None for a in forms):
            return ", ".join(aff_str(a, lambda v: self.env[v][0]) for a in forms), True
        return ", ".join(self.index_value(i) for i in idx), False

    def load(self, e: N.Load) -> str:
        b = e.buf
        if b.kind == "scalar_arg":
            return self.cast(self.mem[id(b)], b.dtype, e.type)
        if len(e.indices) != b.type.rank:
            raise self.error(f"load from {b.name!r} has {len(e.indices)} indices for rank {b.type.rank}")
        m = self.memref(b)
        if b.attrs.get(VOLATILE):
            v = self.volatile_load(m, b, e.indices)
        else:
            idx, affine = self.indices(e.indices)
            kind = "affine.load" if affine else "memref.load"
            v = self.op(f"{kind} {m}[{idx}] {attr_dict([(FROM, b.name)])} : {self.mref(b)}", e.loc or self.loc)
        t = b.dtype
        if t.storage_mlir != t.mlir:
            v = self.op(f"arith.trunci {v} : {t.storage_mlir} to {t.mlir}")
        return self.cast(v, t, e.type)

    def volatile_load(self, m, b: N.Buffer, indices) -> str:
        """`llvm.load volatile` of b[indices] (row-major, identity layout): the optimiser may
        neither hoist it out of a loop nor reuse an earlier value (a signal handler writes it)."""
        linear = self.iconst(0, "index")
        for i, (e, n) in enumerate(zip(indices, b.shape)):
            stride = self.iconst(int(np.prod(b.shape[i + 1:], dtype=np.int64)), "index")
            term = self.op(f"arith.muli {self.index_value(e)}, {stride} : index")
            linear = self.op(f"arith.addi {linear}, {term} : index")
        base = self.op(f"memref.extract_aligned_pointer_as_index {m} : {b.type.mlir} -> index")
        ptr = self.op(f"llvm.inttoptr {self.op(f'arith.index_cast {base} : index to i64')} : i64 to !llvm.ptr")
        at = self.op(f"arith.index_cast {linear} : index to i64")
        elem = b.dtype.storage_mlir
        gep = self.op(f"llvm.getelementptr {ptr}[{at}] : (!llvm.ptr, i64) -> !llvm.ptr, {elem}")
        return self.op(f"llvm.load volatile {gep} : !llvm.ptr -> {elem}")

    def to_storage(self, v, t) -> str:
        if t.storage_mlir == t.mlir:
            return v
        ext = "arith.extsi" if is_signed(t) else "arith.extui"
        return self.op(f"{ext} {v} : {t.mlir} to {t.storage_mlir}")

    def scalar_of(self, a, t) -> str:
        """A scalar value of type t from an Expr or a rank-0 / scalar Buffer."""
        if isinstance(a, N.Expr):
            return self.expr_as(a, t)
        if isinstance(a, N.Buffer):
            if a.kind == "scalar_arg":
                return self.cast(self.mem[id(a)], a.dtype, t)
            if a.type.rank == 0:
                return self.load(N.Load(a, [], t))
        raise self.error(f"expected a scalar, got {a!r}")

    def index_value(self, e) -> str:
        """An `index` SSA value for expression e."""
        return self.expr_as(e, index_t)
