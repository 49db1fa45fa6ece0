"""`s.reduce_tree(axis)`: sum a reduction loop as partial sums and a balanced adder tree.

A loop whose body only accumulates, `for j: acc[i] += e(j)` (one or more such stores, `acc`'s
index free of `j`), adds its terms in a chain: `((acc + e0) + e1) + ...`. Unrolled by b, the
chain is b adders deep and every one of them is on the loop-carried path of `acc`. HLS engineers
write instead

    part: T[b]                        # completely partitioned: registers
    for j: part[j] = e(j)             # the b terms side by side (the loop keeps its name)
    acc[i] = acc[i] + (((part[0] + part[1]) + (part[2] + part[3])) + ...)

so the recurrence through `acc` is one adder and the tree (ceil(log2 b) adders) only lengthens
the pipeline. For floats this reassociates the sum: the result can differ from the sequential
order in the last bits (compare with a tolerance); integer sums (wrap-around) are exact.

A body guarded by one `if` (the tail a `split` by a factor that does not divide the extent
adds: `if j.outer * b + j.inner < n`) keeps its guard around the partial sums' stores, with
0 for the lanes past the extent (their reads stay guarded).

A loop whose body is one inner loop (a 2-D block of lanes, e.g. bicg's `i.inner`, `j.inner`)
sums each accumulation along the lane loops its index does not use: `q[i] += A[i, j] p[j]` as a
tree over the j lanes (one per i lane), `s[j] += r[i] A[i, j]` as a tree over the i lanes (one per
j lane), so neither accumulator chains adders inside an iteration.

Example::

    s.split("j", 8)
    s.reduce_tree("j.inner")
    s.unroll("j.inner")
    s.pipeline("j.outer")
    # 2-D: s.reorder("i.outer", "j.outer", "i.inner", "j.inner"); s.reduce_tree("i.inner")
"""
from __future__ import annotations

from ..errors import ScheduleError
from ..ir import nodes as N, visit as V
from ..ir.attrs import PARTITION, Partition
from ..ir.loops import find_loop
from ..ir.ops import BinOpKind
from ..ir.types import ArrayType, Float
from . import rewrite as R


def _err(msg):
    return ScheduleError(f"reduce_tree: argument 'axis': {msg}")


def _strip(e):
    return e.value if isinstance(e, N.Cast) else e


def _accumulation(st, lp):
    """(the add node, the term) of `st` = `acc[idx] (+ cast) = acc[idx] + term`, else None."""
    if not isinstance(st, N.Store) or any(id(lp.var) in R.expr_vars(i) for i in st.indices):
        return None
    return _acc_parts(st)


def _acc_parts(st):
    """(the add node, the term) of `st` = `acc[idx] (+ cast) = acc[idx] + term`, whatever idx uses."""
    if not isinstance(st, N.Store):
        return None
    add = _strip(st.value)
    if not isinstance(add, N.BinOp) or add.op != BinOpKind.ADD:
        return None
    for acc, term in ((add.lhs, add.rhs), (add.rhs, add.lhs)):
        acc = _strip(acc)
        if (isinstance(acc, N.Load) and acc.buf is st.buf and len(acc.indices) == len(st.indices)
                and all(R.expr_equal(a, b) for a, b in zip(acc.indices, st.indices))):
            return add, term
    return None


def _guarded(lp):
    """(condition, statements) when `lp`'s body is one `if` without `else` (the tail guard a split
    by a factor that does not divide the extent adds), else (None, the body)."""
    if len(lp.body) == 1 and isinstance(lp.body[0], N.If) and not lp.body[0].orelse:
        return lp.body[0].cond, lp.body[0].then
    return None, lp.body


def _accumulations(lp):
    """The accumulations of `lp`'s body to sum as trees: [(store, add, term)]. Stores indexed by
    the loop's variable (a different element per iteration, e.g. bicg's `s[j] += ...` in a loop
    over j that also sums `q[i]`) stay in the loop as they are. A body guarded by one `if` (a
    split's tail) accumulates only where the guard holds: its terms are 0 elsewhere."""
    out, stay = [], []
    cond, stmts = _guarded(lp)
    if cond is not None and not all(_accumulation(st, lp) is not None for st in stmts):
        raise _err(f"loop {lp.name!r}: under its `if`, every statement must accumulate (`acc[i] += term`, acc's "
                   f"index without {lp.name!r})")
    for st in stmts:
        got = _accumulation(st, lp)
        if got is not None:
            out.append((st, got[0], got[1]))
        elif isinstance(st, N.Store) and any(id(lp.var) in R.expr_vars(i) for i in st.indices):
            stay.append(st)
        else:
            raise _err(f"loop {lp.name!r} must only accumulate (`acc[i] += term`, acc's index without "
                       f"{lp.name!r}); found {type(st).__name__} {getattr(getattr(st, 'buf', None), 'name', '')!r}")
    if not out:
        raise _err(f"loop {lp.name!r} must only accumulate (`acc[i] += term`, acc's index without {lp.name!r}); "
                   "no store of its body does")
    written = {id(st.buf) for st in stmts if isinstance(st, N.Store)}
    for st in [st for st, _, _ in out] + stay:
        reads = [x for x in V.walk_expr(st.value) if isinstance(x, N.Load) and id(x.buf) in written]
        if any(x.buf is not st.buf for x in reads):
            raise _err(f"loop {lp.name!r}: a statement reads an array the loop writes; the sums are not independent")
    if len({id(st.buf) for st, _, _ in out}) != len(out):
        raise _err(f"loop {lp.name!r} accumulates into one array twice; write one accumulation per array")
    return out, stay


def _parent_body(func, lp) -> list:
    bodies = [func.body] + [b for s in V.walk_stmts(func.body) for b in _bodies(s)]
    for body in bodies:
        if any(s is lp for s in body):
            return body
    raise _err(f"loop {lp.name!r} not found in its function")  # find_loop found it: cannot happen


def _bodies(s):
    if isinstance(s, (N.For, N.While)):
        return [s.body]
    if isinstance(s, N.If):
        return [s.then, s.orelse]
    return []


def _tree(leaves, dtype):
    """Pairwise sums, level by level: ((l0 + l1) + (l2 + l3)) + ..."""
    while len(leaves) > 1:
        nxt = [N.BinOp(BinOpKind.ADD, a, b, dtype) for a, b in zip(leaves[::2], leaves[1::2])]
        if len(leaves) % 2:
            nxt.append(leaves[-1])
        leaves = nxt
    return leaves[0]


def _bounds(lp):
    n, lb = R.trip_count(lp), R.as_int(lp.lb)
    if n is None or lb is None or lp.step != 1:
        raise _err(f"loop {lp.name!r} needs constant bounds and step 1 (got trip count {n}, step {lp.step})")
    return n, lb


def _total(st, add, tree, indices):
    """The store `acc[indices] = acc[indices] + tree`, with `st`'s casts."""
    total = N.BinOp(BinOpKind.ADD, N.Load(st.buf, [V.copy_expr(i) for i in indices], st.buf.dtype), tree, add.type)
    if isinstance(add.lhs, N.Cast) or isinstance(add.rhs, N.Cast):
        acc_side = add.lhs if isinstance(_strip(add.lhs), N.Load) and _strip(add.lhs).buf is st.buf else add.rhs
        total.lhs = N.Cast(total.lhs, acc_side.type) if isinstance(acc_side, N.Cast) else total.lhs
    value = N.Cast(total, st.value.type) if isinstance(st.value, N.Cast) else total
    return N.Store(st.buf, [V.copy_expr(i) for i in indices], value, loc=st.loc)


def _block(func, outer) -> list:
    """The 2-D case: `outer`'s body is one loop whose body only accumulates; each accumulation is
    summed as trees along the lane loops its index does not use (module docstring)."""
    inner = outer.body[0]
    (n1, lb1), (n2, lb2) = _bounds(outer), _bounds(inner)
    taken = {b.name for b in V.iter_buffers(func)}
    allocs, body, finals = [], [], []
    for st in inner.body:
        got = _acc_parts(st)
        if got is None:
            raise _err(f"loops {outer.name!r} x {inner.name!r} must only accumulate (`acc[i] += term`); found "
                       f"{type(st).__name__} {getattr(getattr(st, 'buf', None), 'name', '')!r}")
        add, term = got
        if any(isinstance(x, N.Load) and x.buf is not st.buf and any(x.buf is o.buf for o in inner.body)
               for x in V.walk_expr(st.value)):
            raise _err(f"loops {outer.name!r} x {inner.name!r}: a statement reads an array the loops write")
        uses = [any(id(lp.var) in R.expr_vars(i) for i in st.indices) for lp in (outer, inner)]
        if all(uses):
            raise _err(f"{st.buf.name!r} is indexed by both {outer.name!r} and {inner.name!r}: no lane loop to sum over")
        name = R.fresh_name(taken, f"{st.buf.name}_part")
        taken.add(name)
        part = N.Buffer(name, ArrayType(add.type, (n1, n2)), "local", attrs={PARTITION: [(Partition.Complete, 0, 0)]})
        allocs.append(N.Alloc(part, None, loc=st.loc))
        body.append(N.Store(part, [R.sub(outer.var, lb1), R.sub(inner.var, lb2)],
                            term if term.type == add.type else N.Cast(term, add.type), loc=st.loc))
        keep = outer if uses[0] else inner if uses[1] else None
        for k in range({id(outer): n1, id(inner): n2}.get(id(keep), 1)):
            cells = [(a, b) for a in range(n1) for b in range(n2)
                     if keep is None or (a if keep is outer else b) == k]
            leaves = [N.Load(part, [R.const(a), R.const(b)], add.type) for a, b in cells]
            mapping = {} if keep is None else {keep.var: R.const(k + (lb1 if keep is outer else lb2))}
            finals.append(_total(st, add, _tree(leaves, add.type), [V.substitute(i, mapping) for i in st.indices]))
    inner.body = body
    parent = _parent_body(func, outer)
    k = next(k for k, s in enumerate(parent) if s is outer)
    parent[k:k + 1] = allocs + [outer] + finals
    return [a.buf for a in allocs]


def reduce_tree(func: N.Func, loop) -> list:
    """Rewrite reduction loop `loop` into partial sums and an adder tree (see the module docstring);
    returns the partial-sum buffers."""
    lp = find_loop(func, loop, "reduce_tree", "axis")
    if len(lp.body) == 1 and isinstance(lp.body[0], N.For):
        return _block(func, lp)
    n, lb = _bounds(lp)
    if n < 2:
        raise _err(f"loop {lp.name!r} runs {n} time(s): nothing to sum as a tree")
    accs, stay = _accumulations(lp)
    cond, _ = _guarded(lp)
    taken = {b.name for b in V.iter_buffers(func)}
    allocs, finals, body, zeros = [], [], list(stay), []
    for st, add, term in accs:
        name = R.fresh_name(taken, f"{st.buf.name}_part")
        taken.add(name)
        part = N.Buffer(name, ArrayType(add.type, (n,)), "local", attrs={PARTITION: [(Partition.Complete, 0, 0)]})
        if term.type != add.type:
            term = N.Cast(term, add.type)
        allocs.append(N.Alloc(part, None, loc=st.loc))
        body.append(N.Store(part, [R.sub(lp.var, lb)], term, loc=st.loc))
        if cond is not None:  # the tail: lanes past the extent add 0 (their reads stay guarded)
            zeros.append(N.Store(part, [R.sub(lp.var, lb)], N.Const(0.0 if isinstance(add.type, Float) else 0,
                                                                     add.type), loc=st.loc))
        leaves = [N.Load(part, [R.const(k)], add.type) for k in range(n)]
        finals.append(_total(st, add, _tree(leaves, add.type), st.indices))
    lp.body = body if cond is None else [N.If(cond, body, zeros, loc=lp.body[0].loc)]
    parent = _parent_body(func, lp)
    k = next(k for k, s in enumerate(parent) if s is lp)
    parent[k:k + 1] = allocs + [lp] + finals
    return [a.buf for a in allocs]


__all__ = ["reduce_tree"]
