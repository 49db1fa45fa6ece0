"""Which buffers statements reference: decides where the renderer allocates them (hoisting).

Example::

    _ref_counts(func.body)[id(buf)]   # how many times `buf` is mentioned in the body
"""
from __future__ import annotations

from collections import Counter

from ..ir import nodes as N
from ..ir import visit as V


def _stmt_bufs(s):
    """Buffers directly referenced by statement `s` (with repetition)."""
    out = []
    if isinstance(s, N.Alloc):
        out.append(s.buf)
        if isinstance(s.init, N.Buffer):
            out.append(s.init)
    elif isinstance(s, N.Store):
        out.append(s.buf)
    elif isinstance(s, N.CallStmt):
        out += [a for a in list(s.args) + list(s.results) if isinstance(a, N.Buffer)]
    elif isinstance(s, N.Return):
        out += [a for a in s.values if isinstance(a, N.Buffer)]
    for e in V.stmt_exprs(s):
        out += [x.buf for x in V.walk_expr(e) if isinstance(x, N.Load)]
    return out


def _ref_counts(body) -> Counter:
    return Counter(id(b) for s in V.walk_stmts(body) for b in _stmt_bufs(s))


def _children(s):
    if isinstance(s, (N.For, N.While)):
        return [s.body]
    if isinstance(s, N.If):
        return [s.then, s.orelse]
    return []
