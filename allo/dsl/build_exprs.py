"""Expression visitors of the kernel builder: names, attributes, operators, comparisons,
subscripts (array loads, bit reads), calls. A mixin of `allo.dsl.builder.FunctionBuilder`, which
provides `visit`, `scalar`, `error`, `loc`, `locals`, `env`, `mb`, `arrays`, `calls`.

Example::

    class FunctionBuilder(ExpressionVisitors, LanguageForms): ...
"""
from __future__ import annotations

import ast

import numpy as np

from ..errors import AlloError, AlloNameError, AlloSyntaxError, AlloTypeError
from ..ir import bits, emit
from ..ir.nodes import Alloc, Buffer, Expr, If, Load, Store, describe, user_words
from ..ir.ops import BinOpKind, UnaryOpKind
from ..ir.types import ArrayType, Fixed, Index, Int, UFixed, UInt, index
from ..ir.visit import walk_expr
from .calls import plain_kernel
from .forms import compile_time
from .regions import read_region, region_spec

# Python operators -> op kinds; `@` ("matmul", a whole-array operation) and unary `+` ("pos", the
# operand itself) are no IR operations.
BINOPS = {ast.Add: BinOpKind.ADD, ast.Sub: BinOpKind.SUB, ast.Mult: BinOpKind.MUL, ast.Div: BinOpKind.DIV,
          ast.FloorDiv: BinOpKind.FLOORDIV, ast.Mod: BinOpKind.MOD, ast.Pow: BinOpKind.POW, ast.BitAnd: BinOpKind.AND,
          ast.BitOr: BinOpKind.OR, ast.BitXor: BinOpKind.XOR, ast.LShift: BinOpKind.SHL, ast.RShift: BinOpKind.SHR,
          ast.MatMult: "matmul"}
CMPOPS = {ast.Lt: BinOpKind.LT, ast.LtE: BinOpKind.LE, ast.Gt: BinOpKind.GT, ast.GtE: BinOpKind.GE,
          ast.Eq: BinOpKind.EQ, ast.NotEq: BinOpKind.NE}
UNARY = {ast.USub: UnaryOpKind.NEG, ast.Not: UnaryOpKind.NOT, ast.Invert: UnaryOpKind.INVERT, ast.UAdd: "pos"}


class ExpressionVisitors:
    """visit_<Expr> methods of the kernel builder."""

    def visit_Constant(self, node):
        if isinstance(node.value, (bool, int, float, str)):
            return node.value
        if node.value is None:
            return None
        raise self.error(AlloTypeError, f"constant {node.value!r} is not a number", node)

    def visit_Name(self, node):
        name = node.id
        if name in self.locals:
            return self.locals[name]
        value = self.env.lookup(name, None)
        if value is None and name not in ("None",):
            known = sorted(set(self.locals) | set(self.env.template))
            raise self.error(AlloNameError, f"unknown name {name!r}; names in scope: {', '.join(known) or '(none)'}", node)
        if isinstance(value, np.ndarray):
            return self.mb.global_buffer(value, name)
        if isinstance(value, (np.integer, np.floating)):
            return emit.py_number(value)
        return value

    def visit_Attribute(self, node):
        base = self.visit(node.value)
        if isinstance(base, Buffer):
            if node.attr == "T":
                return self.arrays.transpose(base, None, self.loc(node))
            if node.attr == "shape":
                if base.type.dynamic:
                    raise self.error(AlloTypeError, f"{base.name}.shape: {base.name!r} is {base.type!r}, its length is "
                                     "known only at run time; pass it as a scalar parameter (size: int32)", node)
                return tuple(base.shape)
            if node.attr == "dtype":
                return base.dtype
            raise self.error(AlloTypeError, f"arrays have no attribute {node.attr!r} in kernels (use .T, .shape)", node)
        if isinstance(base, (Expr,)):
            raise self.error(AlloTypeError, f"scalars have no attribute {node.attr!r}", node)
        try:
            value = getattr(base, node.attr)
        except AttributeError:
            raise self.error(AlloNameError, f"{ast.unparse(node.value)!r} has no attribute {node.attr!r}", node) from None
        if isinstance(value, np.ndarray):
            return self.mb.global_buffer(value, node.attr)
        return value

    def visit_Tuple(self, node):
        return tuple(self.visit(e) for e in node.elts)

    visit_List = visit_Tuple

    def visit_Set(self, node):
        """`{0, M + 1}` of compile-time values (as in `allo.meta_if(i in {0, M + 1})`)."""
        values = [self.visit(e) for e in node.elts]
        if not all(compile_time(v) for v in values):
            raise self.error(AlloSyntaxError, "a set in a kernel must hold compile-time values (it is only for "
                             "membership tests such as `i in {0, M + 1}` in allo.meta_if)", node)
        return frozenset(emit.py_number(v) if emit.is_number(v) else v for v in values)

    def visit_BinOp(self, node):
        op = BINOPS.get(type(node.op))
        lhs, rhs = self.visit(node.left), self.visit(node.right)
        loc = self.loc(node)
        if op == "matmul":
            return self.arrays.matmul(lhs, rhs, loc)
        if isinstance(lhs, Buffer) and lhs.shape or isinstance(rhs, Buffer) and rhs.shape:
            return self.arrays.elementwise(lambda a, b: emit.binary(op, a, b, loc),
                                           [self.value(lhs), self.value(rhs)], loc)
        lhs, rhs = self.scalar(lhs), self.scalar(rhs)
        if op in (BinOpKind.FLOORDIV, BinOpKind.MOD, BinOpKind.DIV) and emit.is_number(lhs) and emit.is_number(rhs) \
                and rhs == 0:
            raise self.error(AlloError, "division by zero in a constant expression", node)
        return emit.binary(op, lhs, rhs, loc)

    def visit_UnaryOp(self, node):
        v = self.visit(node.operand)
        loc = self.loc(node)
        op = UNARY[type(node.op)]
        if isinstance(v, Buffer) and v.shape:
            return self.arrays.elementwise(lambda a: emit.unary(op, a, loc), [v], loc)
        return emit.unary(op, self.scalar(v), loc)

    def visit_BoolOp(self, node):
        is_and = isinstance(node.op, ast.And)
        op = BinOpKind.LAND if is_and else BinOpKind.LOR
        result = None
        for sub in node.values:
            v = self.scalar(self.visit(sub))
            if emit.is_number(v):  # compile-time operand: short-circuit like Python
                if bool(v) != is_and:
                    return v
                continue
            result = v if result is None else emit.binary(op, result, v, self.loc(node))
        return result if result is not None else is_and

    def visit_Compare(self, node):
        loc = self.loc(node)
        values = [self.visit(node.left)] + [self.visit(c) for c in node.comparators]
        if all(compile_time(v) for v in values):
            return self.fold_compare(node, values)
        left = self.scalar(values[0])
        result = None
        for op, right in zip(node.ops, values[1:]):
            if type(op) not in CMPOPS:
                raise self.error(AlloSyntaxError, f"comparison {type(op).__name__} is not supported", node)
            right = self.scalar(right)
            c = emit.binary(CMPOPS[type(op)], left, right, loc)
            result = c if result is None else emit.binary(BinOpKind.LAND, result, c, loc)
            left = right
        return result

    def visit_IfExp(self, node):
        loc = self.loc(node)
        cond = self.visit(node.test)
        if emit.is_number(cond):
            return self.visit(node.body if cond else node.orelse)
        cond = self.scalar(cond)  # a rank-0 buffer (scalar parameter/local) is loaded
        saved, self.block = self.block, []
        a = self.scalar(self.visit(node.body))
        pre_a, self.block = self.block, []
        b = self.scalar(self.visit(node.orelse))
        pre_b = self.block
        self.block = saved
        if not (pre_a or pre_b or _has_load(a) or _has_load(b)):
            return emit.select(cond, a, b, loc)
        # Loads may be out of bounds on the untaken side (padding): branch instead of select.
        e = emit.select(cond, a, b, loc)
        tmp = Buffer(self.fresh_buffer_name("sel"), ArrayType(e.type, ()), "local", loc=loc)
        self.emit(Alloc(tmp, None, loc))
        then = pre_a + [Store(tmp, [], emit.cast(emit.to_expr(a, e.type, loc), e.type, loc), loc)]
        orelse = pre_b + [Store(tmp, [], emit.cast(emit.to_expr(b, e.type, loc), e.type, loc), loc)]
        self.emit(If(emit.to_bool(self.scalar(cond), loc), then, orelse, loc))
        return Load(tmp, [], loc=loc)

    def visit_Subscript(self, node):
        base = self.visit(node.value)
        if isinstance(base, Buffer) and not base.shape or isinstance(base, Expr):
            x = self.scalar(base)
            if not isinstance(x.type, (Int, UInt)) or isinstance(x.type, Index):
                raise self.error(AlloTypeError, f"{ast.unparse(node.value)!r} cannot be indexed: it is a "
                                 f"{describe(base)}, not an array, and bit access x[i] needs an integer scalar (intN / uintN)", node)
            return self.bit_read(x, node)
        if isinstance(base, Buffer):
            if self.names_region(node, base):
                return read_region(self, base, region_spec(self, node, base), self.loc(node))
            return Load(base, self.indices(node, base), loc=self.loc(node))
        key = self.visit(node.slice)
        if getattr(base, "__type_params__", None) and hasattr(base, "__code__"):

            base = plain_kernel(base)  # `kernel[T, N](...)` of a PEP 695 function
        try:
            return base[key]
        except AlloError:
            raise
        except Exception as e:
            raise self.error(AlloTypeError, f"cannot index {ast.unparse(node.value)!r} with {ast.unparse(node.slice)!r}: "
                             f"{user_words(str(e))}", node) from None

    def visit_Slice(self, node):
        raise self.error(AlloSyntaxError, "slices are not supported in kernel indexing; write a loop over the range", node)

    def indices(self, node, buf):
        sl = node.slice
        values = []  # (index value, its AST node); a tuple value (X[idx], X[REPLACE[idx, 1, 0]]) spreads
        for e in (sl.elts if isinstance(sl, ast.Tuple) else [sl]):
            v = self.visit(e)
            values += [(x, e) for x in v] if isinstance(v, tuple) else [(v, e)]
        if len(values) != len(buf.shape):
            raise self.error(AlloTypeError, f"{buf.name!r} has {len(buf.shape)} dimension(s) {list(buf.shape)} "
                             f"but is indexed with {len(values)}; index every dimension", node)
        out = []
        for (v, e), size in zip(values, buf.shape):
            v = self.scalar(v)
            if emit.is_number(v):
                if isinstance(v, float):
                    raise self.error(AlloTypeError, f"array index must be an integer, got {v!r}", e)
                k = int(v)
                out.append(emit.Const(k + size if -size <= k < 0 else k, index))  # A[-1]: Python's last element
                continue
            if not isinstance(v.type, (Index, Int, UInt, Fixed, UFixed)):  # fixed-point indices are cast
                raise self.error(AlloTypeError, f"array index must be an integer, got {v.type!r}", e)
            out.append(emit.cast(v, index, self.loc(e)))
        return out

    def visit_Call(self, node):
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("reverse", "bitcast"):
            base = self.visit(node.func.value)
            if isinstance(base, Expr) or isinstance(base, Buffer) and not base.shape:
                if node.args or node.keywords:
                    raise self.error(AlloTypeError, f"x.{node.func.attr}() takes no arguments", node)
                fn = bits.bit_reverse if node.func.attr == "reverse" else bits.bitcast
                return fn(self.scalar(base), self.loc(node))
            raise self.error(AlloTypeError, f".{node.func.attr}() applies to integer/float scalars, "
                             f"not to {ast.unparse(node.func.value)!r}", node)
        return self.calls.call(node)


def _has_load(e):
    return isinstance(e, Expr) and any(isinstance(x, Load) for x in walk_expr(e))
