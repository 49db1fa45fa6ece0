"""Perfect loop nests and the facts CPU rewrites check before touching them.

Example::

    nest = perfect_nest(for_stmt)          # loops outermost first + innermost body
    if nest and nest.constant():            # lb 0, constant ub, step 1 everywhere
        ...
"""
from __future__ import annotations

from dataclasses import dataclass

from ....ir import nodes as N
from ....ir import visit as V
from ....ir.types import Float, Int, UInt
from .linear import access_forms, linear


@dataclass
class Nest:
    loops: list  # For nodes, outermost first
    body: list  # statements of the innermost loop

    @property
    def vars(self):
        return [f.var for f in self.loops]

    def extents(self):
        return [const_extent(f) for f in self.loops]

    def constant(self) -> bool:
        return all(e is not None for e in self.extents())


def perfect_nest(s: N.For) -> Nest:
    """Descend from `s` while a loop's body is exactly one loop."""
    loops = [s]
    while len(loops[-1].body) == 1 and isinstance(loops[-1].body[0], N.For):
        loops.append(loops[-1].body[0])
    return Nest(loops, loops[-1].body)


def const_extent(f: N.For):
    """Trip count of `for v in range(0, n)` (step 1, constant n), else None."""
    lb, ub = linear(f.lb), linear(f.ub)
    if lb is None or ub is None or lb.coeffs or ub.coeffs or lb.const != 0 or f.step != 1:
        return None
    return max(ub.const, 0)


# element types the vector code handles: storage type == compute type
def vector_dtype(t) -> bool:
    if isinstance(t, Float):
        return t.bits in (32, 64) and not getattr(t, "brain", False)
    if isinstance(t, (Int, UInt)) and type(t) in (Int, UInt):
        return t.bits in (8, 16, 32, 64)
    return False


def expr_vars(e) -> list:
    """IterVars an expression mentions (identity-unique, in order of appearance)."""
    out, seen = [], set()
    for x in V.walk_expr(e):
        if isinstance(x, N.IterVar) and id(x) not in seen:
            seen.add(id(x))
            out.append(x)
    return out


def depends(e, v) -> bool:
    return any(x is v for x in V.walk_expr(e))


def loads_of(e) -> list:
    return [x for x in V.walk_expr(e) if isinstance(x, N.Load)]


def buffers_written(body) -> list:
    out = {}
    for s in V.walk_stmts(body):
        if isinstance(s, N.Store):
            out.setdefault(id(s.buf), s.buf)
        elif isinstance(s, N.CallStmt):
            for a in list(s.args) + list(s.results):
                if isinstance(a, N.Buffer):
                    out.setdefault(id(a), a)
        elif isinstance(s, N.Alloc):
            out.setdefault(id(s.buf), s.buf)
    return list(out.values())


def buffers_read(body) -> list:
    out = {}
    for s in V.walk_stmts(body):
        for e in V.stmt_exprs(s):
            for x in V.walk_expr(e):
                if isinstance(x, N.Load):
                    out.setdefault(id(x.buf), x.buf)
        if isinstance(s, N.CallStmt):
            for a in s.args:
                if isinstance(a, N.Buffer):
                    out.setdefault(id(a), a)
        if isinstance(s, N.Alloc) and isinstance(s.init, N.Buffer):
            out.setdefault(id(s.init), s.init)
    return list(out.values())


def accesses(body, buf):
    """Every (kind, indices) access to `buf` in `body`: kind 'r' or 'w'; None if `buf` is
    passed to a call or appears in an Alloc/Return (opaque use)."""
    out = []
    for s in V.walk_stmts(body):
        if isinstance(s, N.CallStmt) and any(a is buf for a in list(s.args) + list(s.results)):
            return None
        if isinstance(s, N.Alloc) and (s.buf is buf or s.init is buf):
            return None
        if isinstance(s, N.Return) and any(v is buf for v in s.values):
            return None
        if isinstance(s, N.Store) and s.buf is buf:
            out.append(("w", s.indices))
        for e in V.stmt_exprs(s):
            for x in V.walk_expr(e):
                if isinstance(x, N.Load) and x.buf is buf:
                    out.append(("r", x.indices))
    return out


def same_index(a, b) -> bool:
    """Structurally identical linear index lists."""
    fa, fb = access_forms(a), access_forms(b)
    if fa is None or fb is None or len(fa) != len(fb):
        return False
    return all(x.coeffs == y.coeffs and x.const == y.const for x, y in zip(fa, fb))


def has_control(body) -> bool:
    """True when `body` holds If/While/Call/Return statements (left alone by the rewrites)."""
    return any(isinstance(s, (N.If, N.While, N.CallStmt, N.Return)) for s in V.walk_stmts(body))
