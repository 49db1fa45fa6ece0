"""`unify(f1, f2, loop_num)`: one kernel that runs either of two kernels per step, chosen at run
time (upstream Allo's `allo.primitives.unify.unify`).

The unified function takes the parameters of `f1` (which `f2` must share, in type and order) and
an extra `inst: int8[loop_num]`; it runs `loop_num` steps, step `t` executing `f1`'s body when
`inst[t] == 0` and `f2`'s otherwise. Loops the two bodies have in common (same bounds, each body
exactly one loop at that level) are shared, with the choice inside them, so the hardware holds
one loop nest instead of two.

Example::

    s = unify(inc, dec, 4)                       # a Schedule whose top is "inc_dec_unified"
    mod = s.build()
    mod(A, np.array([0, 0, 1, 0], np.int8))      # A += 1 three times, -= 1 once
"""
from __future__ import annotations

from ..errors import AlloError
from ..ir import emit, nodes as N, visit as V
from ..ir.ops import BinOpKind
from ..ir.types import ArrayType, index, int8
from ..schedule.customize import customize
from ..schedule.schedule import Schedule


def unify(func1, func2, loop_num: int):
    """The Schedule of the unified kernel of `func1` and `func2` (see the module docstring)."""
    if isinstance(loop_num, bool) or not isinstance(loop_num, int) or loop_num < 1:
        raise AlloError(f"unify: loop_num must be a positive number of steps, got {loop_num!r}")
    s1, s2 = customize(func1), customize(func2)
    top1, top2 = s1.ir.func(s1.top_func_name), s2.ir.func(s2.top_func_name).clone()
    _check_signatures(top1, top2)
    name = f"{top1.name}_{top2.name}_unified"
    callees = _callees(s1.ir, s2.ir, (top1.name, top2.name, name))
    top1 = top1.clone()
    V.replace_buffers(top2.body, {id(p2): p1 for p1, p2 in zip(top1.params, top2.params)})
    inst = N.Buffer("inst", ArrayType(int8, (loop_num,)), "arg")
    step = N.IterVar("t")
    chosen = emit.binary(BinOpKind.EQ, N.Load(inst, [step]), emit.to_expr(0, int8))
    body = [N.For(step, N.Const(0, index), N.Const(loop_num, index), 1, _merge(top1.body, top2.body, chosen),
                  "t", {}, top1.loc)]
    func = N.Func(name, top1.params + [inst], [], body, {}, top1.loc)
    return Schedule(N.Module(callees + [func], name))


def _check_signatures(f1: N.Func, f2: N.Func):
    if f1.result_types or f2.result_types:
        raise AlloError(f"unify: {f1.name!r} and {f2.name!r} must not return values (they update their array "
                        "arguments); the unified kernel returns nothing")
    if len(f1.params) != len(f2.params) or any(
            p.type != q.type or p.kind != q.kind for p, q in zip(f1.params, f2.params)):
        sig = lambda f: ", ".join(f"{p.name}: {p.type!r}" for p in f.params)  # noqa: E731
        raise AlloError(f"unify: the kernels must take the same parameters; {f1.name}({sig(f1)}) and "
                        f"{f2.name}({sig(f2)}) differ")


def _callees(m1: N.Module, m2: N.Module, tops) -> list:
    out = {}
    for m in (m1, m2):
        for f in m.funcs:
            if f.name in tops:
                continue
            if f.name in out:
                raise AlloError(f"unify: both kernels call a function named {f.name!r}; rename one of them")
            out[f.name] = f.clone()
    return list(out.values())


def _same_range(a: N.For, b: N.For) -> bool:
    consts = (a.lb, a.ub, b.lb, b.ub)
    return all(isinstance(c, N.Const) for c in consts) and (a.lb.value, a.ub.value, a.step) == (
        b.lb.value, b.ub.value, b.step)


def _merge(body1: list, body2: list, chosen) -> list:
    """`if chosen: body1 else: body2`, sharing the loops the two bodies have in common."""
    if len(body1) == 1 and len(body2) == 1 and isinstance(body1[0], N.For) and isinstance(body2[0], N.For) \
            and _same_range(body1[0], body2[0]):
        a, b = body1[0], body2[0]
        V.subst_stmts(b.body, {b.var: a.var})
        a.body = _merge(a.body, b.body, chosen)
        return [a]
    return [N.If(chosen, body1, body2)]
