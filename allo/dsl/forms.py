"""Kernel-language forms from upstream Allo, as mixins of the AST visitor (builder.py):
compile-time comparisons, list literals, helper functions defined in kernels, `with allo.meta_*`,
named bands, parameter defaults, array regions and instance naming.

Example (what these methods accept in a kernel)::

    def k[T, N](A: "T[N]", eps: float32 = 1e-5) -> "T[N]":
        lut: int32[4] = [1, 2, 4, 8]                 # literal_array
        def helper(x: int32) -> int32:               # visit_FunctionDef
            return x + 1
        with allo.meta_if(T == int8):                # visit_With, fold_compare
            ...
        for i in allo.grid(N, name="body"):          # user_band
            row = A[0:N]                             # names_region
"""
from __future__ import annotations

import ast
import operator

import numpy as np

from ..errors import AlloError, AlloSyntaxError, AlloTypeError, located
from ..ir import emit
from ..ir.attrs import BIND_STORAGE
from ..ir.nodes import Buffer, Expr
from ..ir.types import AlloType, ArrayType
from .kernel import NestedKernel
from .meta import meta_kind, visit_meta
from .scope import Environment
from .unsupported import UNSUPPORTED_HINTS


class InstanceNames:
    """ModuleBuilder mixin: names allo chooses for further instances of a kernel (k_1, k_2, ...)."""

    def free_auto_name(self, base):
        n = 1
        while f"{base}_{n}" in self.names:
            n += 1
        return f"{base}_{n}"

    def rename_auto(self, name, loc):
        """Move the instance allo named `name` to the next free name, updating its callers."""
        key = self.names[name]
        if key in self.building:
            raise located(AlloError, f"instance name {name!r} is claimed by an explicit id while an instance of "
                          f"that name is being built; give that instance an id too", loc)
        new = self.free_auto_name(name.rsplit("_", 1)[0])
        func = self.instances[key]
        func.name = new
        for call in self.calls_to.pop(name, []):
            call.callee = new
        self.calls_to[new] = []
        del self.names[name]
        self.names[new] = key
        self.instance_info[new] = self.instance_info.pop(name)
        self.auto_names.discard(name)
        self.auto_names.add(new)


class LanguageForms:
    """FunctionBuilder mixin (uses its locals, env, error(), visit_body() and kernel)."""

    def evaluated_annotation(self, name):
        """The annotation Python already evaluated for parameter `name` ("return" for the result)
        when it is an allo type (or a tuple of them); None otherwise."""
        value = getattr(self.kernel.fn, "__annotations__", {}).get(name)
        if isinstance(value, (AlloType, ArrayType)):
            return value
        if isinstance(value, tuple) and value and all(isinstance(v, (AlloType, ArrayType)) for v in value):
            return value
        return None

    def param_defaults(self, args, params) -> dict:
        """{parameter index: value} for scalar parameters with a default (`eps: float32 = 1e-5`);
        calls and built modules may leave them out."""
        if args.kwonlyargs or args.posonlyargs:
            raise self.error(AlloSyntaxError, "keyword-only and positional-only parameters are not supported; "
                             "list every parameter plainly", args.kwonlyargs[0] if args.kwonlyargs else args.posonlyargs[0])
        out = {}
        first = len(params) - len(args.defaults)
        for k, node in enumerate(args.defaults, start=first):
            value = self.visit(node)
            if params[k].kind != "scalar_arg" or not emit.is_number(value):
                raise self.error(AlloTypeError, f"parameter {params[k].name!r}: only scalar parameters take a default, "
                                 f"and it must be a number", node)
            out[k] = emit.py_number(value)
        return out

    def user_band(self, name, node):
        """A band named by `allo.grid(..., name=)`: unique in the function, labelled in HLS."""
        if name in self.user_bands:
            raise self.error(AlloSyntaxError, f"band name {name!r} is used twice in kernel {self.kernel.name!r}; "
                             f"give each allo.grid(..., name=) its own name", node)
        self.user_bands.add(name)
        self.band_count += 1  # keep default band numbers as they would be without the name
        return name

    def literal_array(self, value, node) -> np.ndarray:
        """A list/tuple literal of compile-time numbers (`[[a, 2], [3, 4]]`) as a numpy constant."""
        def check(v):
            if isinstance(v, (tuple, list)):
                for x in v:
                    check(x)
            elif not emit.is_number(v):
                raise self.error(AlloTypeError, "an array literal must hold compile-time numbers (constants, "
                                 f"template parameters); {ast.unparse(node.value)!r} holds a run-time value", node)

        check(value)
        arr = np.array(value)
        if arr.dtype == object:
            raise self.error(AlloTypeError, f"array literal {ast.unparse(node.value)!r} is ragged", node)
        return arr

    def fold_compare(self, node, values):
        """Python's result for a comparison of compile-time values (types, numbers, tuples), e.g.
        `Ty == int8` in `allo.meta_if`."""
        ops = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
               ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Is: operator.is_, ast.IsNot: operator.is_not,
               ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
        try:
            return all(ops[type(op)](a, b) for (a, b), op in zip(zip(values, values[1:]), node.ops))
        except TypeError as e:
            raise self.error(AlloTypeError, f"cannot compare {ast.unparse(node)!r} at compile time: {e}", node) from None

    def visit_FunctionDef(self, node):
        """A helper defined in the kernel body: its own function, callable from here on."""
        if node.decorator_list:
            raise self.error(AlloSyntaxError, "decorators are not supported on functions defined inside kernels", node)
        if node.type_params if hasattr(node, "type_params") else False:
            raise self.error(AlloSyntaxError, "a function defined inside a kernel cannot be a template; define it "
                             "outside the kernel", node)
        names = {k: v for k, v in self.locals.items() if compile_time(v) and not isinstance(v, tuple)}
        env = Environment(dict(self.env.template, **names), dict(self.env.closure), self.env.globals,
                          dict(self.env.enclosing))
        self.locals[node.name] = NestedKernel(node, self.src, env)

    def visit_With(self, node):
        kind = meta_kind(self, node)
        if kind is None:
            self.meta_chain = None
            raise self.error(AlloSyntaxError, UNSUPPORTED_HINTS["With"], node)
        visit_meta(self, node, kind)

    def names_region(self, node, buf) -> bool:
        """`A[5]` of a 2-D A, `A[0:2, 1]`: more than one element (see regions.py)."""
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if not buf.shape:
            return False
        if any(isinstance(e, ast.Slice) for e in elts):
            return True
        return len(elts) < len(buf.shape) and not any(isinstance(e, ast.Name) and isinstance(
            self.locals.get(e.id), tuple) for e in elts)


def bind_storage(buf, t):
    """Record `t`'s `@ Memory(...)` binding on `buf` (read by the HLS emitter and the QoR estimate)."""
    memory = getattr(t, "memory", None)
    if memory is not None:
        buf.attrs[BIND_STORAGE] = memory.binding()
    return buf


def compile_time(v):
    """A value the builder knows now (a number, type, tuple...), not a run-time Expr or array."""
    return not isinstance(v, (Expr, Buffer)) and v is not None


