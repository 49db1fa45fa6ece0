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
from .linear import linear


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


def depends(e, v) -> bool:
    return any(x is v for x in V.walk_expr(e))


def loads_of(e) -> list:
    return [x for x in V.walk_expr(e) if isinstance(x, N.Load)]


def accesses(body, buf):
    """Every (kind, indices) access to `buf` in `body`: kind 'r' or 'w'; None if `buf` is
    declared, copied in, passed to or returned by a call, or returned (opaque use)."""
    out = []
    for s in V.walk_stmts(body):
        if any(b is buf and role not in (V.STORE, V.LOAD) for role, b in V.buffer_refs(s)):
            return None
        if isinstance(s, N.Store) and s.buf is buf:
            out.append(("w", s.indices))
        out += [("r", x.indices) for e in V.stmt_exprs(s) for x in V.walk_expr(e) if isinstance(x, N.Load) and x.buf is buf]
    return out


def has_control(body) -> bool:
    """True when `body` holds If/While/Call/Return statements (left alone by the rewrites)."""
    return any(isinstance(s, (N.If, N.While, N.CallStmt, N.Return)) for s in V.walk_stmts(body))
