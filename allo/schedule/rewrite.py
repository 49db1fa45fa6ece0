"""Small tools every schedule rewrite shares: index arithmetic with constant folding,
structural expression equality, affine analysis, in-place substitution and access walks.

Example::

    e = add(mul(outer, 4), inner)        # outer*4 + inner, folded when constant
    affine(e)                            # ({outer: 4, inner: 1}, 0)
    subst_stmts(loop.body, {i: e})       # every use of i in the body becomes e
"""
from __future__ import annotations

from ..ir import nodes as N
from ..ir.types import UInt, is_int

index_t = N.index_t
bool_t = UInt(1)


# ----------------------------------------------------------------------------- index arithmetic
def const(v: int) -> N.Const:
    return N.Const(int(v), index_t)


def as_int(e) -> int | None:
    """The integer value of a constant index/int expression, else None."""
    if isinstance(e, N.Const) and isinstance(e.value, int) and not isinstance(e.value, bool):
        return e.value
    if isinstance(e, N.Cast) and is_int(e.type):
        return as_int(e.value)
    return None


def _idx(e):
    return const(e) if isinstance(e, int) else e


def add(a, b):
    a, b = _idx(a), _idx(b)
    ca, cb = as_int(a), as_int(b)
    if ca is not None and cb is not None:
        return const(ca + cb)
    if cb == 0:
        return a
    if ca == 0:
        return b
    if cb is not None and cb < 0:
        return N.BinOp("sub", a, const(-cb), index_t)
    return N.BinOp("add", a, b, index_t)


def sub(a, b):
    a, b = _idx(a), _idx(b)
    ca, cb = as_int(a), as_int(b)
    if ca is not None and cb is not None:
        return const(ca - cb)
    if cb is not None:
        return add(a, -cb)
    return N.BinOp("sub", a, b, index_t)


def mul(a, k: int):
    a = _idx(a)
    ca = as_int(a)
    if ca is not None:
        return const(ca * k)
    if k == 1:
        return a
    if k == 0:
        return const(0)
    return N.BinOp("mul", a, const(k), index_t)


def floordiv(a, k: int):
    ca = as_int(a)
    if ca is not None:
        return const(ca // k)
    return a if k == 1 else N.BinOp("floordiv", a, const(k), index_t)


def mod(a, k: int):
    ca = as_int(a)
    if ca is not None:
        return const(ca % k)
    return const(0) if k == 1 else N.BinOp("mod", a, const(k), index_t)


def cmp(op: str, a, b):
    return N.BinOp(op, _idx(a), _idx(b), bool_t)


def land(conds: list):
    """Conjunction of boolean exprs (None when the list is empty)."""
    out = None
    for c in conds:
        out = c if out is None else N.BinOp("land", out, c, bool_t)
    return out


def trip_count(loop: N.For) -> int | None:
    """Number of iterations of a loop with constant bounds, else None."""
    lb, ub = as_int(loop.lb), as_int(loop.ub)
    if lb is None or ub is None:
        return None
    return len(range(lb, ub, loop.step))


# ----------------------------------------------------------------------------- expression queries
def expr_equal(a, b) -> bool:
    """Structural equality (IterVars and Buffers by identity)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, N.IterVar):
        return a is b
    if isinstance(a, N.Const):
        return a.value == b.value and type(a.value) is type(b.value) and a.type == b.type
    if isinstance(a, N.Load):
        return a.buf is b.buf and _all_equal(a.indices, b.indices)
    if isinstance(a, N.BinOp):
        return a.op == b.op and a.type == b.type and expr_equal(a.lhs, b.lhs) and expr_equal(a.rhs, b.rhs)
    if isinstance(a, N.UnaryOp):
        return a.op == b.op and a.type == b.type and expr_equal(a.operand, b.operand)
    if isinstance(a, N.Cast):
        return a.type == b.type and expr_equal(a.value, b.value)
    if isinstance(a, N.MathCall):
        return a.fn == b.fn and a.type == b.type and _all_equal(a.args, b.args)
    if isinstance(a, N.Select):
        return a.type == b.type and _all_equal([a.cond, a.a, a.b], [b.cond, b.a, b.b])
    return False


def _all_equal(xs, ys) -> bool:
    return len(xs) == len(ys) and all(expr_equal(x, y) for x, y in zip(xs, ys))


def expr_vars(e) -> dict:
    """IterVars used in `e`, as {id: IterVar}."""
    return {id(x): x for x in N.walk_expr(e) if isinstance(x, N.IterVar)}


def has_load(e) -> bool:
    return any(isinstance(x, N.Load) for x in N.walk_expr(e))


def copy_expr(e):
    """A fresh copy of `e` (so no node is shared between two places of the tree)."""
    return N.substitute(e, {})


def affine(e):
    """`e` as ({IterVar id: (var, coeff)}, constant) when it is affine in loop vars, else None.

    Integer casts are looked through (index arithmetic written with int literals)."""
    if isinstance(e, N.IterVar):
        return {id(e): (e, 1)}, 0
    c = as_int(e)
    if c is not None:
        return {}, c
    if isinstance(e, N.Cast) and is_int(e.type) and is_int(e.value.type):
        return affine(e.value)
    if isinstance(e, N.BinOp) and e.op in ("add", "sub", "mul"):
        lhs, rhs = affine(e.lhs), affine(e.rhs)
        if lhs is None or rhs is None:
            return None
        if e.op == "mul":
            if not lhs[0]:
                lhs, rhs = rhs, lhs
            if rhs[0]:
                return None
            k = rhs[1]
            return {key: (v, c * k) for key, (v, c) in lhs[0].items()}, lhs[1] * k
        sign = 1 if e.op == "add" else -1
        terms = dict(lhs[0])
        for key, (v, c) in rhs[0].items():
            terms[key] = (v, terms.get(key, (v, 0))[1] + sign * c)
        return {k: t for k, t in terms.items() if t[1] != 0}, lhs[1] + sign * rhs[1]
    return None


# ----------------------------------------------------------------------------- statement rewrites
class _FreshCopies(dict):
    """A substitution map handing out a fresh copy of the replacement at every use."""

    def get(self, key, default=None):
        return copy_expr(dict.__getitem__(self, key)) if key in self else default


def subst_stmts(body: list, mapping: dict) -> None:
    """Replace IterVars (keys, by identity) by exprs in every statement of `body`, in place
    (each use gets its own copy, so no expression node ends up shared)."""
    if not mapping:
        return
    fresh = _FreshCopies(mapping)
    sub_ = lambda e: N.substitute(e, fresh)  # noqa: E731
    for s in N.walk_stmts(body):
        if isinstance(s, N.For):
            s.lb, s.ub = sub_(s.lb), sub_(s.ub)
        elif isinstance(s, (N.If, N.While)):
            s.cond = sub_(s.cond)
        elif isinstance(s, N.Alloc) and isinstance(s.init, N.Expr):
            s.init = sub_(s.init)
        elif isinstance(s, N.Store):
            s.indices = [sub_(i) for i in s.indices]
            s.value = sub_(s.value)
        elif isinstance(s, N.CallStmt):
            s.args = [sub_(a) if isinstance(a, N.Expr) else a for a in s.args]
        elif isinstance(s, N.Return):
            s.values = [sub_(v) if isinstance(v, N.Expr) else v for v in s.values]


def iter_loads(body: list):
    """Every Load node under `body` (each node object once), including loads inside indices."""
    seen = set()
    for s in N.walk_stmts(body):
        for e in N.stmt_exprs(s):
            for x in N.walk_expr(e):
                if isinstance(x, N.Load) and id(x) not in seen:
                    seen.add(id(x))
                    yield x


def accesses(body: list, buf: N.Buffer):
    """(loads, stores, calls) of `buf` under `body`: Load nodes, Store stmts, CallStmts using it."""
    loads = [ld for ld in iter_loads(body) if ld.buf is buf]
    stores, calls = [], []
    for s in N.walk_stmts(body):
        if isinstance(s, N.Store) and s.buf is buf:
            stores.append(s)
        elif isinstance(s, N.CallStmt) and any(a is buf for a in list(s.args) + list(s.results)):
            calls.append(s)
        elif isinstance(s, N.Alloc) and s.init is buf:
            loads.append(s)  # a copy-initialiser reads buf
        elif isinstance(s, N.Return) and any(v is buf for v in s.values):
            calls.append(s)
    return loads, stores, calls


def written_buffers(body: list) -> dict:
    """Buffers stored to (or passed to a call, which may write them) under `body`: {id: Buffer}."""
    out = {}
    for s in N.walk_stmts(body):
        if isinstance(s, N.Store):
            out[id(s.buf)] = s.buf
        elif isinstance(s, N.CallStmt):
            for a in list(s.args) + list(s.results):
                if isinstance(a, N.Buffer):
                    out[id(a)] = a
    return out


def read_buffers(body: list) -> dict:
    """Buffers read under `body` (loads, call arguments, copy-initialisers): {id: Buffer}."""
    out = {id(ld.buf): ld.buf for ld in iter_loads(body)}
    for s in N.walk_stmts(body):
        if isinstance(s, N.CallStmt):
            out.update({id(a): a for a in s.args if isinstance(a, N.Buffer)})
        elif isinstance(s, N.Alloc) and isinstance(s.init, N.Buffer):
            out[id(s.init)] = s.init
    return out


def bound_vars(body: list) -> dict:
    """IterVars bound by loops under `body`: {id: IterVar}."""
    return {id(s.var): s.var for s in N.walk_stmts(body) if isinstance(s, N.For)}


def stmt_uses_buffer(s, buf) -> bool:
    loads, stores, calls = accesses([s], buf)
    allocs = [a for a in N.walk_stmts([s]) if isinstance(a, N.Alloc) and a.buf is buf]
    return bool(loads or stores or calls or allocs)


def sanitize(name: str) -> str:
    """A loop/buffer name usable inside identifiers ("i.outer" -> "i_outer")."""
    return name.replace(".", "_")


def fresh_name(taken, base: str) -> str:
    """`base`, or `base_1`, `base_2`, ... whichever is not in `taken`."""
    if base not in taken:
        return base
    n = 1
    while f"{base}_{n}" in taken:
        n += 1
    return f"{base}_{n}"
