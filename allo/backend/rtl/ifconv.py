"""If-conversion for the Calyx route: `if` statements become predicated stores.

CIRCT 1.62's `lower-scf-to-calyx` crashes on `scf.if` (support arrived upstream in 2025), so
before rendering, every `if` whose branches hold only assignments becomes straight-line code:

    if c: A[i] = x            ->   t = c
    else: A[i] = y                 A[i] = x if t else A[i]
                                   A[i] = A[i] if t else y

The condition is evaluated once, before either branch (a branch may change what it reads);
nested ifs combine their guards with `and`; a `for` loop under a guard runs with its stores
guarded; a `while` under a guard runs while `guard and cond` (the guard flag is not written
inside the loop). Reading the old value in the untaken
branch is harmless in hardware (loads have no side effects and allo's division never traps).

Example::

    if_convert(hw_top.func)     # in place
"""
from __future__ import annotations

from ...ir import nodes as N
from ...ir.ops import BinOpKind, UnaryOpKind
from ...ir.types import ArrayType, UInt

bool_t = UInt(1)


def if_convert(func: N.Func):
    """Replace every `if` in `func` by guarded stores, in place."""
    func.body = _convert(func.body, None)


def _convert(body: list, guard) -> list:
    out = []
    for s in body:
        if isinstance(s, N.If):
            out += _convert_if(s, guard)
        elif isinstance(s, N.For):  # a guarded loop runs its iterations with every store guarded
            s.body = _convert(s.body, guard)
            out.append(s)
        elif isinstance(s, N.While):  # under a guard it runs while `guard and cond` (its body needs no guard)
            if guard is not None:
                s.cond = N.BinOp(BinOpKind.LAND, guard, _as_bool(s.cond), bool_t, s.loc)
            s.body = _convert(s.body, None)
            out.append(s)
        elif isinstance(s, N.Store) and guard is not None:
            out.append(_guarded(s, guard))
        else:
            out.append(s)
    return out


def _convert_if(s: N.If, guard) -> list:
    flag = N.Buffer("cond", ArrayType(bool_t, ()), "local", loc=s.loc)
    taken = N.Load(flag, [], bool_t, s.loc)
    not_taken = N.UnaryOp(UnaryOpKind.NOT, N.Load(flag, [], bool_t, s.loc), bool_t, s.loc)
    then_guard = taken if guard is None else N.BinOp(BinOpKind.LAND, guard, taken, bool_t, s.loc)
    else_guard = not_taken if guard is None else N.BinOp(BinOpKind.LAND, guard, not_taken, bool_t, s.loc)
    cond = _as_bool(s.cond)
    return ([N.Alloc(flag, None, s.loc), N.Store(flag, [], cond, s.loc)]
            + _convert(s.then, then_guard) + _convert(s.orelse, else_guard))


def _as_bool(e):
    return e if e.type == bool_t else N.Cast(e, bool_t, getattr(e, "loc", None))


def _guarded(s: N.Store, guard) -> N.Store:
    t = s.buf.dtype
    value = s.value if s.value.type == t else N.Cast(s.value, t, s.loc)
    old = N.Load(s.buf, list(s.indices), t, s.loc)
    return N.Store(s.buf, s.indices, N.Select(guard, value, old, t, s.loc), s.loc)


__all__ = ["if_convert"]
