"""Small tools every schedule rewrite shares: index arithmetic with constant folding,
structural expression equality, affine analysis, and fresh loop, band and buffer names.
(Walks, substitution and buffer effects are `allo.ir.visit` and `allo.ir.effects`.)

Example::

    e = add(mul(outer, 4), inner)        # outer*4 + inner, folded when constant
    affine(e)                            # ({outer: 4, inner: 1}, 0)
    fresh_loop_name(func, "i_init")      # "i_init", or "i_init_1" when taken

May import: `allo.errors`, `allo.ir`.
"""
from __future__ import annotations

from ..ir import nodes as N
from ..ir.loops import get_bands, loop_names
from ..ir.ops import BinOpKind
from ..ir.types import UInt, is_int
from ..ir.visit import walk_expr, walk_stmts

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


def idx(e):
    return const(e) if isinstance(e, int) else e


def add(a, b):
    a, b = idx(a), idx(b)
    ca, cb = as_int(a), as_int(b)
    if ca is not None and cb is not None:
        return const(ca + cb)
    if cb == 0:
        return a
    if ca == 0:
        return b
    if cb is not None and cb < 0:
        return N.BinOp(BinOpKind.SUB, a, const(-cb), index_t)
    return N.BinOp(BinOpKind.ADD, a, b, index_t)


def sub(a, b):
    a, b = idx(a), idx(b)
    ca, cb = as_int(a), as_int(b)
    if ca is not None and cb is not None:
        return const(ca - cb)
    if cb is not None:
        return add(a, -cb)
    return N.BinOp(BinOpKind.SUB, a, b, index_t)


def mul(a, k: int):
    a = idx(a)
    ca = as_int(a)
    if ca is not None:
        return const(ca * k)
    if k == 1:
        return a
    if k == 0:
        return const(0)
    return N.BinOp(BinOpKind.MUL, a, const(k), index_t)


def floordiv(a, k: int):
    ca = as_int(a)
    if ca is not None:
        return const(ca // k)
    return a if k == 1 else N.BinOp(BinOpKind.FLOORDIV, a, const(k), index_t)


def mod(a, k: int):
    ca = as_int(a)
    if ca is not None:
        return const(ca % k)
    return const(0) if k == 1 else N.BinOp(BinOpKind.MOD, a, const(k), index_t)


def cmp(op: str, a, b):
    return N.BinOp(op, idx(a), idx(b), bool_t)


def land(conds: list):
    """Conjunction of boolean exprs (None when the list is empty)."""
    out = None
    for c in conds:
        out = c if out is None else N.BinOp(BinOpKind.LAND, out, c, bool_t)
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
    return {id(x): x for x in walk_expr(e) if isinstance(x, N.IterVar)}


def has_load(e) -> bool:
    return any(isinstance(x, N.Load) for x in walk_expr(e))


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
    if isinstance(e, N.BinOp) and e.op in (BinOpKind.ADD, BinOpKind.SUB, BinOpKind.MUL):
        lhs, rhs = affine(e.lhs), affine(e.rhs)
        if lhs is None or rhs is None:
            return None
        if e.op == BinOpKind.MUL:
            if not lhs[0]:
                lhs, rhs = rhs, lhs
            if rhs[0]:
                return None
            k = rhs[1]
            return {key: (v, c * k) for key, (v, c) in lhs[0].items()}, lhs[1] * k
        sign = 1 if e.op == BinOpKind.ADD else -1
        terms = dict(lhs[0])
        for key, (v, c) in rhs[0].items():
            terms[key] = (v, terms.get(key, (v, 0))[1] + sign * c)
        return {k: t for k, t in terms.items() if t[1] != 0}, lhs[1] + sign * rhs[1]
    return None


# ----------------------------------------------------------------------------- statements and names
def bound_vars(body: list) -> dict:
    """IterVars bound by loops under `body`: {id: IterVar}."""
    return {id(s.var): s.var for s in walk_stmts(body) if isinstance(s, N.For)}


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


def fresh_op_name(func: N.Func, loop_names_: list) -> str:
    """A new band name in the seed's style, "S_<ivs>_<n>", unique in `func`."""
    taken = set(get_bands(func))
    stem = "S_" + "_".join(sanitize(n) for n in loop_names_)
    n = len(taken)
    while f"{stem}_{n}" in taken:
        n += 1
    return f"{stem}_{n}"


def fresh_loop_name(func: N.Func, base: str, also_taken=()) -> str:
    """A loop name based on `base` that no loop of `func` (nor `also_taken`) has."""
    return fresh_name(set(loop_names(func)) | set(also_taken), base)
