"""Assignments and declarations of a kernel body: `x: T = v`, `x = v`, `x[i] = v`, `x += v`, bit
and slice stores on integers, and variables declared in both branches of an if.

A mixin of `FunctionBuilder` (allo/dsl/builder.py); it reads the builder's locals, scopes and
emit/error helpers.

Example::

    class FunctionBuilder(AssignmentVisitors, ExpressionVisitors, LanguageForms): ...
"""
from __future__ import annotations

import ast

import numpy as np

from ..errors import AlloNameError, AlloSyntaxError, AlloTypeError
from ..ir import bits, emit
from ..ir.attrs import NAME, TEMP
from ..ir.nodes import Alloc, Buffer, Expr, Load, Store, describe
from ..ir.types import ArrayType, Index, StatefulType, Struct, int32
from ..ir.visit import walk_expr
from .build_exprs import BINOPS
from .forms import bind_storage
from .meta import ConstType, bind_const
from .regions import region_spec, write_region
from .stateful import declare_stateful
from .structs import StructValue, assign_field, declare_struct


class AssignmentVisitors:
    """visit_Assign / visit_AnnAssign / visit_AugAssign and the declaration bookkeeping."""

    def visit_AnnAssign(self, node):
        if not isinstance(node.target, ast.Name):
            raise self.error(AlloSyntaxError, "annotated assignment needs a plain name on the left", node)
        name = node.target.id
        t = self.eval_type(node.annotation, local=True)
        if isinstance(t, ConstType):
            bind_const(self, node, t)
            return
        if isinstance(t, (StatefulType, Struct)):
            (declare_stateful if isinstance(t, StatefulType) else declare_struct)(self, node, name, t)
            return
        self.current = node
        loc = self.loc(node)
        if name in self.locals and isinstance(self.locals[name], Buffer) and self.locals[name].kind == "arg":
            param = self.locals[name]
            if node.value is None and isinstance(t, ArrayType) and param.type == t:
                return  # `B: T[10, 20]` restating a parameter's own type (upstream Allo code does this)
            raise self.error(AlloSyntaxError, f"{name!r} is a parameter of type {param.type!r}; declare a new name "
                             f"(a declaration may only restate a parameter's own type, without a value)", node)
        value = self.visit(node.value) if node.value is not None else None
        if isinstance(value, (tuple, list)):
            value = self.literal_array(value, node)
        if isinstance(t, ArrayType) and t.dynamic:
            raise self.error(AlloTypeError, f"local {name!r}: a local array needs a static shape, not {t!r} (only "
                             "parameters of the top kernel may have a run-time length)", node)
        shape = t.shape if isinstance(t, ArrayType) else ()
        dtype = t.dtype if isinstance(t, ArrayType) else t
        if isinstance(value, Buffer) and value.kind == "global" and name not in self.mutated and shape:
            if tuple(value.shape) != tuple(shape):
                raise self.error(AlloTypeError, f"{name!r} is declared {t!r} but the constant has shape {list(value.shape)}", node)
            if value.dtype != dtype:
                value = self.mb.global_buffer(value.data.astype(dtype.np_dtype) if not hasattr(dtype, "frac") else value.data,
                                              value.name + "_" + repr(dtype).replace("(", "").replace(")", "").replace(", ", "_"), dtype)
            self.mb.adopt_global_name(value, name)
            self.locals[name] = value
            return
        live = self.live_declaration(name, dtype, shape, node)
        if live is not None:  # the same variable (e.g. declared in both branches of an if)
            if isinstance(value, np.ndarray):
                value = self.mb.global_buffer(value, name + "_init")
            if value is not None:
                self.assign(node.target, value, node)
            return
        if isinstance(value, Buffer) and value.attrs.get(TEMP) and tuple(value.shape) == tuple(shape) and value.dtype == dtype:
            self.bind_temp(name, value)
            self.decl_scope[id(value)] = self.scope
            return
        buf = Buffer(self.fresh_buffer_name(name), ArrayType(dtype, tuple(shape)), "local", loc=loc)
        bind_storage(buf, t)
        self.locals[name] = buf
        self.decl_scope[id(buf)] = self.scope
        if value is None:
            self.emit(Alloc(buf, None, loc))
        elif isinstance(value, Buffer) and value.shape:
            self.emit(Alloc(buf, None, loc))
            self.arrays.copy_into(buf, value, loc)
        elif isinstance(value, np.ndarray):
            g = self.mb.global_buffer(value, name + "_init")
            self.emit(Alloc(buf, None, loc))
            self.arrays.copy_into(buf, g, loc)
        else:
            self.emit(Alloc(buf, self.converted(emit.to_expr(self.scalar(value), dtype, loc), dtype, loc), loc))
        buf.name = name if buf.name == name else buf.name

    def live_declaration(self, name, dtype, shape, node):
        """The local `name` declared in this block or an enclosing one (then a new annotation of
        it is the same variable), or None. A different type inside a nested block is an error:
        after the block the variable's type would depend on the path taken."""
        cur = self.locals.get(name)
        if not isinstance(cur, Buffer) or not self.is_live(cur):
            return None  # not declared, or in a block that has ended (e.g. a sibling loop): a new variable
        where = self.decl_scope[id(cur)]
        if cur.dtype == dtype and tuple(cur.shape) == tuple(shape):
            return cur
        if where == self.scope:
            return None  # redeclared with another type in the same block: a new variable
        declared = f"{cur.dtype!r}{list(cur.shape) if cur.shape else ''}"
        raise self.error(AlloTypeError, f"{name!r} is already declared as {declared} (line "
                         f"{getattr(cur.loc, 'lineno', '?')}); declaring it again with another type inside an "
                         "if/for block would make its type depend on the path taken: use a new name", node)

    def is_live(self, buf) -> bool:
        """Was local `buf` declared in the current block or one that encloses it?"""
        where = self.decl_scope.get(id(buf))
        return buf.kind == "local" and where is not None and self.scope[:len(where)] == where

    def hoist_branch_declarations(self, node):
        """Names declared in both branches of an if/else are one variable, declared before the if."""
        both = _declared_names(node.body) & _declared_names(node.orelse)
        for name in sorted(both):
            cur = self.locals.get(name)
            if isinstance(cur, Buffer) and self.is_live(cur):
                continue  # already a live variable: the branches assign it
            then_t = self.eval_type(_declaration(node.body, name).annotation)
            else_t = self.eval_type(_declaration(node.orelse, name).annotation)
            self.current = node
            if then_t != else_t:
                raise self.error(AlloTypeError, f"{name!r} is declared as {then_t!r} in the if branch and as "
                                 f"{else_t!r} in the else branch; declare it once with one type before the if", node)
            shape = then_t.shape if isinstance(then_t, ArrayType) else ()
            dtype = then_t.dtype if isinstance(then_t, ArrayType) else then_t
            buf = Buffer(self.fresh_buffer_name(name), ArrayType(dtype, tuple(shape)), "local", loc=self.loc(node))
            self.emit(Alloc(buf, None, self.loc(node)))
            self.locals[name] = buf
            self.decl_scope[id(buf)] = self.scope

    def bind_temp(self, name, buf):
        buf.attrs.pop(TEMP, None)
        call = self.result_calls.get(id(buf))
        if call is not None:
            call.attrs.setdefault(NAME, name)
        if name not in self.buffer_names:
            self.buffer_names.discard(buf.name)
            buf.name = name
            self.buffer_names.add(name)
        self.locals[name] = buf

    def visit_Assign(self, node):
        if len(node.targets) != 1:
            raise self.error(AlloSyntaxError, "chained assignment (a = b = c) is not supported; split it", node)
        target = node.targets[0]
        value = self.visit(node.value)
        self.assign(target, value, node)

    def assign(self, target, value, node):
        loc = self.loc(node)
        if isinstance(target, ast.Tuple):
            values = value if isinstance(value, (tuple, list)) else None
            if values is None or len(values) != len(target.elts):
                raise self.error(AlloTypeError, f"cannot unpack into {len(target.elts)} names", node)
            for t, v in zip(target.elts, values):
                self.assign(t, v, node)
            return
        if isinstance(target, ast.Subscript):
            buf = self.visit(target.value)
            if isinstance(buf, StructValue):  # p["x"] = v
                return assign_field(self, buf, target, value, node)
            if isinstance(buf, Load) or isinstance(buf, Buffer) and not buf.shape:
                return self.assign_bits(buf, target, value, node)
            if not isinstance(buf, Buffer):
                raise self.error(AlloTypeError, f"cannot assign into {ast.unparse(target.value)!r}: it is not an array", node)
            if buf.kind in ("global", "scalar_arg"):
                raise self.error(AlloTypeError, f"{buf.name!r} is read-only", node)
            if self.names_region(target, buf):
                write_region(self, buf, region_spec(self, target, buf), value, loc)
                return
            idx = self.indices(target, buf)
            self.emit(Store(buf, idx, self.converted(emit.to_expr(self.scalar(value), buf.dtype, loc), buf.dtype, loc),
                             loc))
            return
        if not isinstance(target, ast.Name):
            raise self.error(AlloSyntaxError, f"cannot assign to {ast.unparse(target)!r}", node)
        name = target.id
        cur = self.locals.get(name)
        if isinstance(cur, StructValue):
            raise self.error(AlloSyntaxError, f"{name!r} is a struct: assign its fields ({name}[\"f\"] = ...)", node)
        if isinstance(cur, Expr) and not isinstance(cur, Load):
            raise self.error(AlloSyntaxError, f"{name!r} is a loop variable or constant and cannot be assigned", node)
        if isinstance(cur, Buffer):
            if cur.kind in ("global", "scalar_arg"):
                raise self.error(AlloTypeError, f"{name!r} is read-only", node)
            if cur.shape:
                if isinstance(value, (tuple, list)):
                    value = self.mb.global_buffer(self.literal_array(value, node), name + "_init")
                if isinstance(value, Buffer) or emit.is_number(value) or isinstance(value, Expr):
                    self.arrays.copy_into(cur, value if isinstance(value, Buffer) else self.scalar(value), loc)
                    return
                raise self.error(AlloTypeError, f"cannot assign {describe(value)} to array {name!r}", node)
            self.emit(Store(cur, [], self.converted(emit.to_expr(self.scalar(value), cur.dtype, loc), cur.dtype, loc),
                             loc))
            return
        if isinstance(value, Buffer):
            if value.attrs.get(TEMP) or value.kind == "result":
                self.bind_temp(name, value)
            else:
                self.locals[name] = value  # alias of an existing array
            return
        if isinstance(value, np.ndarray):
            self.locals[name] = self.mb.global_buffer(value, name)
            return
        if name not in self.mutated and (emit.is_number(value) or _is_pure(value)):
            # assigned once and never updated: a compile-time constant or a load-free
            # expression is bound by name, so loop indices stay affine
            self.locals[name] = value
            return
        if emit.is_number(value) or isinstance(value, Expr):
            e = emit.to_expr(self.scalar(value), None, loc)
            t = e.type if not isinstance(e.type, Index) else self.index_as_int()
            buf = Buffer(self.fresh_buffer_name(name), ArrayType(t, ()), "local", loc=loc)
            self.emit(Alloc(buf, emit.cast(e, t, loc), loc))
            self.locals[name] = buf
            return
        raise self.error(AlloTypeError, f"cannot assign {describe(value)} to {name!r} in a kernel", node)

    def assign_bits(self, base, target, value, node):
        """`x[i] = b` / `x[lo:hi] = v` on an integer scalar variable or array element."""
        loc = self.loc(node)
        buf, idx = (base, []) if isinstance(base, Buffer) else (base.buf, base.indices)
        if buf.kind in ("global", "scalar_arg"):
            raise self.error(AlloTypeError, f"{buf.name!r} is read-only", node)
        old = Load(buf, idx, loc=loc)
        sl = target.slice
        if isinstance(sl, ast.Slice):
            lo, hi, step = (self.scalar(self.visit(x)) if x is not None else None for x in (sl.lower, sl.upper, sl.step))
            new = bits.slice_set(old, lo, hi, step, self.scalar(value), loc)
        else:
            new = bits.bit_set(old, self.scalar(self.visit(sl)), self.scalar(value), loc)
        self.emit(Store(buf, idx, new, loc))

    def bit_read(self, x, node):
        """`x[i]` / `x[lo:hi]` on an integer scalar."""
        loc = self.loc(node)
        sl = node.slice
        if isinstance(sl, ast.Slice):
            lo, hi, step = (self.scalar(self.visit(v)) if v is not None else None for v in (sl.lower, sl.upper, sl.step))
            return bits.bit_slice(x, lo, hi, step, loc)
        return bits.bit_get(x, self.scalar(self.visit(sl)), loc)

    @staticmethod
    def index_as_int():
        return int32

    def visit_AugAssign(self, node):
        op = BINOPS.get(type(node.op))
        if op is None or op == "matmul":
            raise self.error(AlloSyntaxError, f"augmented operator {type(node.op).__name__} is not supported", node)
        loc = self.loc(node)
        rhs = self.visit(node.value)
        target = node.target
        if isinstance(target, ast.Subscript):
            buf = self.visit(target.value)
            if isinstance(buf, StructValue):  # p["x"] += v
                return assign_field(self, buf, target, rhs, node, op)
            if isinstance(buf, Load) or isinstance(buf, Buffer) and not buf.shape:  # x[i] += b, x[lo:hi] += v
                new = emit.binary(op, self.bit_read(self.scalar(buf), target), self.scalar(rhs), loc)
                return self.assign_bits(buf, target, new, node)
            if not isinstance(buf, Buffer):
                raise self.error(AlloTypeError, f"{ast.unparse(target.value)!r} is not an array", node)
            idx = self.indices(target, buf)
            new = emit.binary(op, Load(buf, idx, loc=loc), self.scalar(rhs), loc)
            self.emit(Store(buf, idx, self.converted(emit.to_expr(new, buf.dtype, loc), buf.dtype, loc), loc))
            return
        if isinstance(target, ast.Name):
            cur = self.locals.get(target.id)
            if not isinstance(cur, Buffer) or cur.kind in ("global", "scalar_arg"):
                raise self.error(AlloNameError, f"{target.id!r} must be a local variable or array to update it", node)
            if cur.shape:
                res = self.arrays.elementwise(lambda a, b: emit.binary(op, a, b, loc), [cur, rhs if isinstance(rhs, Buffer) else self.scalar(rhs)], loc)
                self.arrays.copy_into(cur, res, loc)
                return
            new = emit.binary(op, Load(cur, [], loc=loc), self.scalar(rhs), loc)
            self.emit(Store(cur, [], self.converted(emit.to_expr(new, cur.dtype, loc), cur.dtype, loc), loc))
            return
        raise self.error(AlloSyntaxError, f"cannot update {ast.unparse(target)!r}", node)


def _is_pure(e):
    """An expression without loads (its value cannot change once computed)."""
    return isinstance(e, Expr) and not isinstance(e, Load) and not any(isinstance(x, Load) for x in walk_expr(e))


def _declared_names(stmts) -> set:
    """Names declared by annotations directly in `stmts` or in its if/else blocks (not loops)."""
    names = set()
    for st in stmts:
        if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
            names.add(st.target.id)
        elif isinstance(st, ast.If):
            names |= _declared_names(st.body) | _declared_names(st.orelse)
    return names


def _declaration(stmts, name):
    """The first annotation of `name` found by `_declared_names`."""
    for st in stmts:
        if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.target.id == name:
            return st
        if isinstance(st, ast.If):
            found = _declaration(st.body, name) or _declaration(st.orelse, name)
            if found is not None:
                return found
    return None
