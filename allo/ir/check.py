"""Well-formedness checks of a rewritten `Func` (run after primitives in tests or debug mode).

Example::

    verify_func(func)               # raises ScheduleError describing the first problem
    verify_func(func, strict=True)  # also: no expression node object appears twice

May import: `allo.errors`, `allo.ir` (nodes, visit).
"""
from __future__ import annotations

from ..errors import ScheduleError
from . import nodes as N
from .visit import Walker


def verify_func(func: N.Func, strict: bool = False) -> None:
    """Check that every loop variable is used inside its loop, every buffer is declared before
    use with matching rank, loops have names and positive steps, and Return comes last."""
    _Verifier(func, strict).walk(func.body)


class _Verifier(Walker):
    """Walks a function, raising ScheduleError at the first problem (see `verify_func`)."""

    def __init__(self, func: N.Func, strict: bool):
        super().__init__()
        self.func, self.strict = func, strict
        self.declared = {id(p) for p in func.params}
        self.seen_nodes = set()

    def fail(self, msg):
        raise ScheduleError(f"verify {self.func.name}: {msg}")

    def check_buf(self, b, rank, what):
        if b.kind != "global" and id(b) not in self.declared:
            self.fail(f"buffer {b.name!r} {what} before its declaration")
        if rank != len(b.shape):
            self.fail(f"buffer {b.name!r} of rank {len(b.shape)} {what} with {rank} indices")

    def visit(self, node):
        if self.strict and isinstance(node, N.Expr) and not isinstance(node, (N.IterVar, N.Const)):
            if id(node) in self.seen_nodes:
                self.fail(f"expression node {type(node).__name__} appears twice in the tree")
            self.seen_nodes.add(id(node))
        super().visit(node)

    def visit_IterVar(self, v):
        if not any(isinstance(p, N.For) and p.var is v for p in self.path):
            self.fail(f"loop variable {v.name!r} used outside its loop")

    def visit_Load(self, e):
        self.check_buf(e.buf, len(e.indices), "read")
        self.generic(e)

    def visit_For(self, s):
        if not s.name or s.step < 1:
            self.fail(f"loop {s.name!r} needs a name and a positive step")
        self.generic(s)

    def visit_Alloc(self, s):
        self.generic(s)
        self.declared.add(id(s.buf))

    def visit_Store(self, s):
        self.generic(s)
        self.check_buf(s.buf, len(s.indices), "written")

    def visit_CallStmt(self, s):
        self.generic(s)
        for a in s.args:
            if isinstance(a, N.Buffer):
                self.check_buf(a, len(a.shape), "passed")
        for r in s.results:
            if r.kind == "result":
                self.declared.add(id(r))

    def visit_Return(self, s):
        self.generic(s)
        if self.path or s is not self.func.body[-1]:
            self.fail("Return must be the last statement of the function")
