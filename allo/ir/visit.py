"""Traversal of allo's loop IR: the one module that knows which fields of each node hold
statements, expressions and buffers. Analyses walk with the functions below (or a `Walker`),
rewrites rebuild with a `Rewriter`, so adding a node type means editing this module (and the
renderers), not every analysis.

- layout: `blocks`, `stmt_exprs`, `child_exprs`, `buffer_refs` (with the role of each reference)
- walks: `walk_stmts`, `walk_expr`, `body_exprs`, `iter_buffers`, `iter_loops`
- positions: `loop_path`, `parent_list`, `top_level_stmt`
- `Walker`: program-order visits with `visit_<Node>` hooks and the enclosing statements in `path`
- `Rewriter`: bottom-up copies with `rewrite_<Node>` hooks; `substitute`, `copy_expr`, `map_expr`,
  `subst_stmts`, `reindex` and `replace_buffers` are small uses of it

Buffers and IterVars are referenced by identity: walks and rewrites never copy them (a hook may
replace them); every other node a rewrite builds is new.

Example::

    loads = [x for x in body_exprs(func.body) if isinstance(x, Load)]
    body2 = Substitute({i: Const(0, index_t)}).stmts(loop.body)     # a copy with i = 0

May import: `allo.errors`, `allo.ir.nodes`.
"""
from __future__ import annotations

import copy

from ..errors import ScheduleError
from .nodes import (Alloc, BinOp, Buffer, CallStmt, Cast, Const, Expr, For, Func, If, IterVar, Load, MathCall, Return,
                    Select, Store, UnaryOp, While)

# ----------------------------------------------------------------------------- layout
# The roles of a statement's buffer references (see `buffer_refs`).
DECLARE, COPY, STORE, PASS, RESULT, RETURN, LOAD = "declare", "copy", "store", "pass", "result", "return", "load"

_BLOCK_FIELDS = {For: ("body",), While: ("body",), If: ("then", "orelse")}


def blocks(s) -> list:
    """The statement lists nested in statement `s` (a loop's body; an if's then and else)."""
    return [getattr(s, name) for name in _BLOCK_FIELDS.get(type(s), ())]


def stmt_exprs(s) -> list:
    """The expressions statement `s` holds itself (not those of nested statements)."""
    if isinstance(s, For):
        return [s.lb, s.ub]
    if isinstance(s, (If, While)):
        return [s.cond]
    if isinstance(s, Alloc):
        return [s.init] if isinstance(s.init, Expr) else []
    if isinstance(s, Store):
        return list(s.indices) + [s.value]
    if isinstance(s, CallStmt):
        return [a for a in s.args if isinstance(a, Expr)]
    if isinstance(s, Return):
        return [v for v in s.values if isinstance(v, Expr)]
    return []


def child_exprs(e) -> list:
    """The direct sub-expressions of `e` (none for leaves and unknown node kinds)."""
    if isinstance(e, Load):
        return list(e.indices)
    if isinstance(e, BinOp):
        return [e.lhs, e.rhs]
    if isinstance(e, UnaryOp):
        return [e.operand]
    if isinstance(e, Cast):
        return [e.value]
    if isinstance(e, MathCall):
        return list(e.args)
    if isinstance(e, Select):
        return [e.cond, e.a, e.b]
    return []


def buffer_refs(s) -> list:
    """(role, Buffer) for every buffer reference statement `s` holds itself (its own fields, then
    the loads of its own expressions; nested statements excluded), with repetition.

    Roles: DECLARE (an Alloc's buffer), COPY (the buffer an Alloc copies in), STORE, PASS (a call
    argument), RESULT (a call result), RETURN (a returned buffer), LOAD (read by an expression).
    """
    out = []
    if isinstance(s, Alloc):
        out.append((DECLARE, s.buf))
        if isinstance(s.init, Buffer):
            out.append((COPY, s.init))
    elif isinstance(s, Store):
        out.append((STORE, s.buf))
    elif isinstance(s, CallStmt):
        out += [(PASS, a) for a in s.args if isinstance(a, Buffer)]
        out += [(RESULT, r) for r in s.results if isinstance(r, Buffer)]
    elif isinstance(s, Return):
        out += [(RETURN, v) for v in s.values if isinstance(v, Buffer)]
    for e in stmt_exprs(s):
        out += [(LOAD, x.buf) for x in walk_expr(e) if isinstance(x, Load)]
    return out


# ----------------------------------------------------------------------------- walks
def walk_stmts(body):
    """Yield every statement in `body` recursively (pre-order)."""
    for s in body:
        yield s
        for name in _BLOCK_FIELDS.get(type(s), ()):
            yield from walk_stmts(getattr(s, name))


def walk_expr(e):
    """Yield `e` and its sub-expressions (pre-order)."""
    yield e
    for c in child_exprs(e):
        yield from walk_expr(c)


def body_exprs(body):
    """Yield every expression node under the statements of `body` (statement by statement,
    pre-order; a node shared by two places comes twice)."""
    for s in walk_stmts(body):
        for e in stmt_exprs(s):
            yield from walk_expr(e)


def iter_buffers(func: Func) -> list:
    """Every distinct Buffer a function mentions: its parameters, then in order of first mention."""
    seen = {id(p): p for p in func.params}
    for s in walk_stmts(func.body):
        for _, b in buffer_refs(s):
            seen.setdefault(id(b), b)
    return list(seen.values())


def iter_loops(body: list, path: tuple = ()):
    """Yield (loop, enclosing loops outermost first) for every For under `body`, pre-order."""
    for s in body:
        if isinstance(s, For):
            yield s, path
            yield from iter_loops(s.body, path + (s,))
        else:
            for inner in blocks(s):
                yield from iter_loops(inner, path)


# ----------------------------------------------------------------------------- positions
def loop_path(func: Func, loop: For) -> list:
    """The loops enclosing `loop`, outermost first, ending with `loop` itself."""
    for lp, path in iter_loops(func.body):
        if lp is loop:
            return list(path) + [lp]
    raise ScheduleError(f"loop {loop.name!r} is not in function {func.name!r}")


def parent_list(func: Func, stmt) -> tuple:
    """(statement list holding `stmt`, its position) by identity."""
    def search(body):
        for k, s in enumerate(body):
            if s is stmt:
                return body, k
            for inner in blocks(s):
                hit = search(inner)
                if hit:
                    return hit
        return None

    hit = search(func.body)
    if hit is None:
        raise ScheduleError(f"statement not found in function {func.name!r}")
    return hit


def top_level_stmt(func: Func, stmt):
    """The statement of `func.body` that contains `stmt` (possibly `stmt` itself)."""
    for s in func.body:
        if any(x is stmt for x in walk_stmts([s])):
            return s
    raise ScheduleError(f"statement not found in function {func.name!r}")


# ----------------------------------------------------------------------------- Walker
_EXPR_TYPES = (Const, IterVar, Load, BinOp, UnaryOp, Cast, MathCall, Select)
_STMT_TYPES = (For, If, While, Alloc, Store, CallStmt, Return)


def _hooks(cls, prefix: str) -> dict:
    return {t: getattr(cls, prefix + t.__name__) for t in _EXPR_TYPES + _STMT_TYPES if hasattr(cls, prefix + t.__name__)}


class Walker:
    """Visits statements and expressions in program order; subclasses add `visit_<Node>` hooks.

    The default visit of a statement visits its expressions, then its nested blocks with the
    statement pushed on `self.path` (the enclosing statements, outermost first); the default
    visit of an expression visits its sub-expressions. A hook replaces the default for its node
    type; it calls `self.generic(node)` to go on inside the node.

    Example::

        class CountLoads(Walker):
            n = 0
            def visit_Load(self, e):
                self.n += 1
                self.generic(e)             # loads inside the indices count too

        CountLoads().walk(func.body).n
    """

    _visit_hooks: dict = {}

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        cls._visit_hooks = _hooks(cls, "visit_")

    def __init__(self):
        self.path = []

    def walk(self, body):
        """Visit every statement of `body`; returns the walker."""
        for s in body:
            self.visit(s)
        return self

    def visit(self, node):
        hook = self._visit_hooks.get(type(node))
        if hook is not None:
            hook(self, node)
        else:
            self.generic(node)

    def generic(self, node):
        """The default visit: sub-expressions of an expression; expressions then blocks of a statement."""
        if isinstance(node, Expr):
            for c in child_exprs(node):
                self.visit(c)
            return
        for e in stmt_exprs(node):
            self.visit(e)
        inner = blocks(node)
        if inner:
            self.path.append(node)
            for b in inner:
                self.walk(b)
            self.path.pop()


# ----------------------------------------------------------------------------- Rewriter
def _value(rw, v):
    if isinstance(v, Expr):
        return rw.expr(v)
    return rw.buffer(v) if isinstance(v, Buffer) else v


_REBUILD_EXPR = {
    Load: lambda rw, e: Load(rw.buffer(e.buf), [rw.expr(i) for i in e.indices], e.type, e.loc),
    BinOp: lambda rw, e: BinOp(e.op, rw.expr(e.lhs), rw.expr(e.rhs), e.type, e.loc),
    UnaryOp: lambda rw, e: UnaryOp(e.op, rw.expr(e.operand), e.type, e.loc),
    Cast: lambda rw, e: Cast(rw.expr(e.value), e.type, e.loc),
    MathCall: lambda rw, e: MathCall(e.fn, [rw.expr(a) for a in e.args], e.type, e.loc),
    Select: lambda rw, e: Select(rw.expr(e.cond), rw.expr(e.a), rw.expr(e.b), e.type, e.loc),
}


def _update_for(rw, s):
    s.lb, s.ub = rw.expr(s.lb), rw.expr(s.ub)


def _update_cond(rw, s):
    s.cond = rw.expr(s.cond)


def _update_alloc(rw, s):
    s.buf, s.init = rw.buffer(s.buf), _value(rw, s.init)


def _update_store(rw, s):
    s.buf, s.indices, s.value = rw.buffer(s.buf), [rw.expr(i) for i in s.indices], rw.expr(s.value)


def _update_call(rw, s):
    s.args, s.results = [_value(rw, a) for a in s.args], [rw.buffer(r) for r in s.results]


def _update_return(rw, s):
    s.values = [_value(rw, v) for v in s.values]


# What a rewrite replaces in a statement's own fields (its nested blocks are handled apart).
_UPDATE_STMT = {For: _update_for, If: _update_cond, While: _update_cond, Alloc: _update_alloc, Store: _update_store,
                CallStmt: _update_call, Return: _update_return}


class Rewriter:
    """Rebuilds IR bottom-up; subclasses change what is built with hooks.

    - `expr(e)`: a copy of expression `e`: its children are rewritten first, then the rebuilt node
      goes through `rewrite_<Node>(node)` when the subclass defines it (its result is used).
      Const and IterVar leaves are not copied (their hooks may replace them).
    - `stmts(body)`: a copy of statement list `body`: each statement is copied (shallowly: `attrs`
      are shared, as with `dataclasses.replace`), its expressions and nested blocks rewritten, then
      it goes through `rewrite_<Node>`, which returns a statement or a list of statements.
    - `in_place(body)`: rewrites the expressions and buffer references of every statement under
      `body`, keeping the statement objects (statement hooks are not called).
    - `buffer(b)`: the Buffer replacing every reference to `b` (default: `b` itself).

    Example::

        class Shift(Rewriter):
            def rewrite_IterVar(self, v):
                return BinOp("add", v, Const(1, index_t), index_t) if v is i else v

        Shift().expr(Load(A, [i]))          # A[i + 1]
    """

    _rewrite_hooks: dict = {}

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        cls._rewrite_hooks = _hooks(cls, "rewrite_")

    def buffer(self, b: Buffer) -> Buffer:
        return b

    def expr(self, e):
        build = _REBUILD_EXPR.get(type(e))
        if build is not None:
            e = build(self, e)
        elif not isinstance(e, (Const, IterVar)):
            raise TypeError(f"unknown expression {type(e).__name__}")
        hook = self._rewrite_hooks.get(type(e))
        return e if hook is None else hook(self, e)

    def stmt(self, s):
        """A rewritten copy of statement `s` (or the statements replacing it, as a list)."""
        s = copy.copy(s)
        update = _UPDATE_STMT.get(type(s))
        if update is not None:
            update(self, s)
        for name in _BLOCK_FIELDS.get(type(s), ()):
            setattr(s, name, self.stmts(getattr(s, name)))
        hook = self._rewrite_hooks.get(type(s))
        return s if hook is None else hook(self, s)

    def stmts(self, body: list) -> list:
        out = []
        for s in body:
            new = self.stmt(s)
            if isinstance(new, list):
                out += new
            else:
                out.append(new)
        return out

    def in_place(self, body: list) -> list:
        """Rewrite the expressions and buffer references under `body` in place; returns `body`."""
        for s in walk_stmts(body):
            update = _UPDATE_STMT.get(type(s))
            if update is not None:
                update(self, s)
        return body


class Substitute(Rewriter):
    """Replaces IterVars (keys of `mapping`, by identity) by expressions. With `fresh`, every use
    gets its own copy of the replacement (so no expression node ends up shared)."""

    def __init__(self, mapping: dict, fresh: bool = False):
        self.mapping, self.fresh = mapping, fresh

    def rewrite_IterVar(self, v):
        if v not in self.mapping:
            return v
        new = self.mapping[v]
        return copy_expr(new) if self.fresh else new


class _ReplaceBuffers(Rewriter):
    def __init__(self, mapping: dict):
        self.mapping = mapping

    def buffer(self, b):
        return self.mapping.get(id(b), b)


class _MapExpr(Rewriter):
    def __init__(self, fn):
        self.fn = fn

    def expr(self, e):
        return self.fn(super().expr(e))


def substitute(e: Expr, mapping: dict) -> Expr:
    """A copy of `e` where IterVars are replaced by `mapping[var]` exprs (keys are IterVar objects).

    Example: `substitute(Load(A, [i]), {i: Const(2, index_t)})` reads A[2]."""
    return Substitute(mapping).expr(e)


def copy_expr(e: Expr) -> Expr:
    """A fresh copy of `e` (so no node is shared between two places of the tree)."""
    return Rewriter().expr(e)


def map_expr(e: Expr, fn) -> Expr:
    """A copy of `e` rebuilt bottom-up with `fn` applied to every node (children first).

    Example: `map_expr(e, lambda x: Const(0, x.type) if x is v else x)`."""
    return _MapExpr(fn).expr(e)


def subst_stmts(body: list, mapping: dict) -> None:
    """Replace IterVars (keys, by identity) by exprs in every statement of `body`, in place
    (each use gets its own copy, so no expression node ends up shared)."""
    if mapping:
        Substitute(mapping, fresh=True).in_place(body)


class _Reindex(Rewriter):
    def __init__(self, fn):
        self.fn = fn

    def rewrite_Load(self, e):
        new = self.fn(e.buf, e.indices)
        if new is not None:
            e.indices = new
        return e


def reindex(body: list, fn) -> None:
    """Every Load and Store under `body` whose `fn(buffer, indices)` is not None indexes with that
    list instead, in place (a statement standing at two places is rewritten once).

    Example: `reindex(func.body, lambda b, idx: [linear(idx)] if b is A else None)`."""
    _Reindex(fn).in_place(body)
    done = set()
    for s in walk_stmts(body):
        if isinstance(s, Store) and id(s) not in done:
            done.add(id(s))
            new = fn(s.buf, s.indices)
            if new is not None:
                s.indices = new


def replace_buffers(body: list, mapping: dict) -> list:
    """Replace buffer references per `mapping` ({id(old): new}) in the statements and expressions
    under `body`, in place; returns `body`.

    Example: `replace_buffers(func.body, {id(param): local})`."""
    return _ReplaceBuffers(mapping).in_place(body)


__all__ = ["blocks", "stmt_exprs", "child_exprs", "buffer_refs", "walk_stmts", "walk_expr", "body_exprs", "iter_buffers",
           "iter_loops", "loop_path", "parent_list", "top_level_stmt", "Walker", "Rewriter", "Substitute", "substitute",
           "copy_expr", "map_expr", "subst_stmts", "reindex", "replace_buffers", "DECLARE", "COPY", "STORE", "PASS", "RESULT",
           "RETURN", "LOAD"]
