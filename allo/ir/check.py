"""Well-formedness checks of a rewritten `Func` (run after primitives in tests or debug mode).

Example::

    verify_func(func)               # raises ScheduleError describing the first problem
    verify_func(func, strict=True)  # also: no expression node object appears twice
"""
from __future__ import annotations

from ..errors import ScheduleError
from . import nodes as N


def verify_func(func: N.Func, strict: bool = False) -> None:
    """Check that every loop variable is used inside its loop, every buffer is declared before
    use with matching rank, loops have names and positive steps, and Return comes last."""
    declared = {id(p) for p in func.params}
    seen_nodes = set()

    def fail(msg):
        raise ScheduleError(f"verify {func.name}: {msg}")

    def check_expr(e, bound):
        for x in N.walk_expr(e):
            if isinstance(x, N.IterVar) and id(x) not in bound:
                fail(f"loop variable {x.name!r} used outside its loop")
            if isinstance(x, N.Load):
                check_buf(x.buf, len(x.indices), "read")
            if strict and not isinstance(x, (N.IterVar, N.Const)):
                if id(x) in seen_nodes:
                    fail(f"expression node {type(x).__name__} appears twice in the tree")
                seen_nodes.add(id(x))

    def check_buf(b, rank, what):
        if b.kind != "global" and id(b) not in declared:
            fail(f"buffer {b.name!r} {what} before its declaration")
        if rank != len(b.shape):
            fail(f"buffer {b.name!r} of rank {len(b.shape)} {what} with {rank} indices")

    def block(body, bound, top=False):
        for k, s in enumerate(body):
            for e in N.stmt_exprs(s):
                check_expr(e, bound)
            if isinstance(s, N.For):
                if not s.name or s.step < 1:
                    fail(f"loop {s.name!r} needs a name and a positive step")
                block(s.body, bound | {id(s.var)})
            elif isinstance(s, N.While):
                block(s.body, bound)
            elif isinstance(s, N.If):
                block(s.then, bound)
                block(s.orelse, bound)
            elif isinstance(s, N.Alloc):
                declared.add(id(s.buf))
            elif isinstance(s, N.Store):
                check_buf(s.buf, len(s.indices), "written")
            elif isinstance(s, N.CallStmt):
                for a in s.args:
                    if isinstance(a, N.Buffer):
                        check_buf(a, len(a.shape), "passed")
                for r in s.results:
                    if r.kind == "result":
                        declared.add(id(r))
            elif isinstance(s, N.Return) and not (top and k == len(body) - 1):
                fail("Return must be the last statement of the function")

    block(func.body, frozenset(), top=True)
