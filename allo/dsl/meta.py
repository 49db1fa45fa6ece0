"""Compile-time control flow and constants: `allo.meta_if/meta_elif/meta_else/meta_for`, `ConstExpr`.

The builder evaluates these while it builds, so they leave no trace in the IR: a meta_if keeps
only the statements of the branch taken, a meta_for repeats its body once per value with the
loop variable bound to a Python int, and a `ConstExpr[T]` local is a named compile-time value.

Example::

    def top[T, N](A: "T[N]"):
        with allo.meta_if(N > 8):
            with allo.meta_for(4) as k:        # unrolled: k = 0, 1, 2, 3
                A[k] = A[k] * 2
        with allo.meta_else():
            A[0] = 0
        scale: ConstExpr[int32] = N // 2       # a compile-time constant
"""
from __future__ import annotations

import ast

from ..errors import AlloSyntaxError, AlloTypeError
from ..ir import emit
from ..ir.nodes import Buffer, Expr
from ..ir.types import ConstType
from . import names as dsl

META_FUNCS = ("meta_if", "meta_elif", "meta_else", "meta_for")


def meta_kind(fb, node: ast.With):
    """'meta_if'/'meta_elif'/'meta_else'/'meta_for' for a `with allo.meta_*(...)` statement, else None."""
    if len(node.items) != 1 or not isinstance(node.items[0].context_expr, ast.Call):
        return None
    func = node.items[0].context_expr.func
    try:
        fn = fb.visit(func)
    except Exception:  # noqa: BLE001 - not a meta construct; the caller reports the with-statement
        # upstream Allo reads `allo.meta_if` by its spelling, so kernels use it without importing
        # allo (an unresolved name `allo`); any other failure is not a meta construct
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "allo" \
                and func.attr in META_FUNCS:
            return func.attr
        return None
    for name in META_FUNCS:
        if fn is getattr(dsl, name):
            return name
    return None


def compile_time(fb, node, what: str):
    """The Python value of expression `node`, which must be known while building."""
    v = fb.visit(node)
    if isinstance(v, Buffer) and v.kind == "global":
        return v.data
    if isinstance(v, (Expr, Buffer)):
        raise fb.error(AlloTypeError, f"{what} must be known at compile time (template parameters, constants, "
                       f"meta_for variables); {ast.unparse(node)!r} is a run-time value", node)
    return emit.py_number(v)


def visit_meta(fb, node: ast.With, kind: str):
    """Build one `with allo.meta_*` statement into the current block."""
    call = node.items[0].context_expr
    if call.keywords:
        raise fb.error(AlloSyntaxError, f"allo.{kind} takes no keyword arguments", node)
    if kind == "meta_for":
        return _meta_for(fb, node, call)
    if node.items[0].optional_vars is not None:
        raise fb.error(AlloSyntaxError, f"allo.{kind}() binds no name; remove 'as ...'", node)
    if kind == "meta_if":
        taken = _condition(fb, call, kind)
        fb.meta_chain = taken
    else:
        if fb.meta_chain is None:
            raise fb.error(AlloSyntaxError, f"allo.{kind} must directly follow a `with allo.meta_if(...)` or "
                           f"`with allo.meta_elif(...)` block", node)
        if fb.meta_chain:  # an earlier branch was taken: skip this one
            fb.meta_chain = True if kind == "meta_elif" else None
            return
        if kind == "meta_else":
            if call.args:
                raise fb.error(AlloSyntaxError, "allo.meta_else() takes no arguments", node)
            taken = True
            fb.meta_chain = None
        else:
            taken = _condition(fb, call, kind)
            fb.meta_chain = taken
    if taken:
        chain = fb.meta_chain
        fb.visit_body(node.body)  # inline: a meta branch opens no scope
        fb.meta_chain = chain


def _condition(fb, call, kind) -> bool:
    if len(call.args) != 1:
        raise fb.error(AlloSyntaxError, f"allo.{kind} takes one condition", call)
    return bool(compile_time(fb, call.args[0], f"the condition of allo.{kind}"))


def _meta_for(fb, node, call):
    bounds = [compile_time(fb, a, "the bounds of allo.meta_for") for a in call.args]
    if not 1 <= len(bounds) <= 3 or not all(isinstance(b, int) and not isinstance(b, bool) for b in bounds):
        raise fb.error(AlloSyntaxError, "allo.meta_for takes 1 to 3 integer arguments like range()", node)
    target = node.items[0].optional_vars
    if not isinstance(target, ast.Name):
        raise fb.error(AlloSyntaxError, "write `with allo.meta_for(n) as i:` (one loop variable name)", node)
    name = target.id
    saved = fb.locals.get(name)
    try:
        for value in range(*bounds):
            fb.locals[name] = value
            fb.meta_chain = None
            fb.visit_body(node.body)
    finally:
        if saved is None:
            fb.locals.pop(name, None)
        else:
            fb.locals[name] = saved
    fb.meta_chain = None


# ----------------------------------------------------------------------------- ConstExpr
def bind_const(fb, node: ast.AnnAssign, ctype: ConstType):
    """`name: ConstExpr[T] = value`: evaluate value now and bind the name to the constant."""
    name = node.target.id
    if node.value is None:
        raise fb.error(AlloSyntaxError, f"ConstExpr {name!r} needs a value: {name}: {ctype!r} = ...", node)
    value = _py_eval(fb, node.value)
    if not emit.is_number(value):
        raise fb.error(AlloTypeError, f"ConstExpr {name!r} must be a number, got {type(value).__name__}", node)
    fb.locals[name] = ctype.convert(value)


def _py_eval(fb, expr):
    """Evaluate a ConstExpr value as Python code over the compile-time names in scope, so plain
    Python helpers (`math.cos(i)`, `offset(i, 3)`) can compute it."""
    names = fb.env.namespace()
    for k, v in fb.locals.items():
        if isinstance(v, (Expr, Buffer)):
            names.pop(k, None)  # a run-time value: using it is an error, not a silent global
        else:
            names[k] = v
    try:
        return eval(compile(ast.Expression(expr), "<ConstExpr>", "eval"), names)  # noqa: S307
    except NameError as e:
        raise fb.error(AlloTypeError, f"a ConstExpr value must be known at compile time: {e}", expr) from None
    except Exception as e:  # noqa: BLE001 - any failure of user code is reported at the line
        raise fb.error(AlloTypeError, f"cannot evaluate the ConstExpr value {ast.unparse(expr)!r}: "
                       f"{type(e).__name__}: {e}", expr) from None
