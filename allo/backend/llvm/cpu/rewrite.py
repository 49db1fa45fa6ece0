"""Loop-IR rewrites for the CPU, applied to a clone of the module before rendering.

Each rewrite checks a sufficient legality condition and otherwise leaves the code alone:
1. `split_accumulators`: `for p..: acc = init; for r..: acc = acc op rhs; Z[p] = acc` becomes
   `for p..: Z[p] = init` + `for p.., r..: Z[p] = Z[p] op rhs` (same values stored in the same
   order; needs Z[p] injective over p, acc private to the nest, Z and acc not read by rhs/init).
1b. `unbuffer`: undoes an HLS `buffer_at` (copy a slice of Z into a local buffer, compute on
   it, copy it back) when the buffer is private to the loop: the computation then updates Z
   directly, as the unscheduled kernel did, and can become a contraction again.
2. `distribute`: `for i: {S1; S2}` becomes `for i: S1` + `for i: S2` when every buffer the parts
   share (one writing) is only touched at slice `i` (an index that is exactly `i`), and a part
   then forms a contraction.
3. `permute_nests`: a perfect nest with one store, no loop-carried dependence except a
   reduction into the stored element, is reordered so the innermost loop walks memory with
   stride 1 (reduction loops keep their relative order), then a reduction innermost loop
   accumulates in a scalar (scalar replacement).

Example::

    report = optimise_loops(module_clone)    # ["gemm: split accumulator acc", ...]
"""
from __future__ import annotations

import dataclasses

from ....ir import effects as E
from ....ir import nodes as N
from ....ir import visit as V
from ....ir.attrs import OP_NAME, PARALLEL, UNROLL
from ....ir.ops import BinOpKind
from ....ir.types import ArrayType, Index
from .contraction import ACC_OPS, recognise
from .linear import access_forms, injective, linear
from .nests import accesses, const_extent, has_control, perfect_nest

index_t = Index()


def optimise_loops(mod: N.Module) -> list:
    """Apply the rewrites to every function of `mod` in place; return report lines."""
    report = []
    for f in mod.funcs:
        counts = E.stmt_counts(f.body)
        f.body = _rewrite_body(f, f.body, counts, report)
    return report


# ----------------------------------------------------------------------------- helpers
def _fresh_loops(loops, body):
    """A copy of the perfect nest `loops` (fresh IterVars) around `body` (rewritten to them)."""
    mapping = {f.var: N.IterVar(f.var.name, f.var.type, f.var.loc) for f in loops}
    inner = V.Substitute(mapping).stmts(body)
    for f in reversed(loops):
        inner = [dataclasses.replace(f, var=mapping[f.var], lb=V.substitute(f.lb, mapping),
                                     ub=V.substitute(f.ub, mapping), body=inner, attrs=dict(f.attrs))]
    return inner[0]


def _is_load_of(e, buf) -> bool:
    while isinstance(e, N.Cast) and e.type == buf.dtype:
        e = e.value
    return isinstance(e, N.Load) and e.buf is buf and not e.indices


# ----------------------------------------------------------------------------- driver
def _rewrite_body(f, body, counts, report):
    out = []
    for s in body:
        if isinstance(s, N.For):
            if recognise(perfect_nest(s)) is not None:  # already a contraction: keep its context
                out.append(s)
                continue
            flat = unbuffer(s, counts)
            if flat is not None:
                report.append(f"{f.name}: local buffer {flat[1]!r} of loop {s.name!r} folded back into {flat[2]!r}")
                out += _rewrite_body(f, [flat[0]], counts, report)
                continue
            split = split_accumulator(s, counts)  # outermost first: the largest nest
            if split is not None:
                report.append(f"{f.name}: accumulator {split[2]!r} of loop {s.name!r} kept in place")
                out += _rewrite_body(f, list(split[:2]), counts, report)
                continue
            s = dataclasses.replace(s, body=_rewrite_body(f, s.body, counts, report))
            parts = distribute(s)
            if parts is not None:
                report.append(f"{f.name}: loop {s.name!r} distributed over {len(parts)} statements")
                out += parts
                continue
            out.append(permute_nest(s, report, f.name))
        elif isinstance(s, N.If):
            out.append(dataclasses.replace(s, then=_rewrite_body(f, s.then, counts, report),
                                           orelse=_rewrite_body(f, s.orelse, counts, report)))
        elif isinstance(s, N.While):
            out.append(dataclasses.replace(s, body=_rewrite_body(f, s.body, counts, report)))
        else:
            out.append(s)
    return out


# ----------------------------------------------------------------------------- 1. accumulators
def split_accumulator(s: N.For, counts):
    """(init nest, update nest, acc name) or None; see the module docstring."""
    nest = perfect_nest(s)
    body = nest.body
    if len(body) not in (3, 4) or not nest.constant():
        return None
    if len(body) == 4:  # Alloc(acc) without init, then Store(acc, [], init)
        a, st0 = body[0], body[1]
        if not (isinstance(a, N.Alloc) and a.init is None and isinstance(st0, N.Store) and st0.buf is a.buf
                and not st0.indices):
            return None
        acc, init, red, fin = a.buf, st0.value, body[2], body[3]
        own = 3
    else:
        a = body[0]
        if not (isinstance(a, N.Alloc) and isinstance(a.init, N.Expr)):
            return None
        acc, init, red, fin = a.buf, a.init, body[1], body[2]
        own = 2
    if acc.type.rank != 0 or acc.kind != "local" or not isinstance(red, N.For) or not isinstance(fin, N.Store):
        return None
    rnest = perfect_nest(red)
    if not rnest.body or not all(isinstance(x, N.Store) for x in rnest.body) or not rnest.constant():
        return None
    Z = fin.buf
    if not _is_load_of(fin.value, acc) or Z is acc or Z.dtype != acc.dtype:
        return None
    terms = []  # (op, acc_left, rhs, stmt)
    for upd in rnest.body:
        e = upd.value
        if upd.buf is not acc or not isinstance(e, N.BinOp) or e.op not in ACC_OPS or e.type != acc.dtype:
            return None
        if _is_load_of(e.lhs, acc) and not E.loads_from([e.rhs], acc):
            terms.append((e, True, e.rhs, upd))
        elif e.op != BinOpKind.SUB and _is_load_of(e.rhs, acc) and not E.loads_from([e.lhs], acc):
            terms.append((e, False, e.lhs, upd))
        else:
            return None
    # acc used only by these statements (Alloc + init store + update + final load)
    if counts.get(id(acc), 0) != own + len(terms):
        return None
    if E.loads_from([init], Z) or E.loads_from([init], acc) or any(E.loads_from([t[2]], Z) for t in terms):
        return None
    if Z.kind == "scalar_arg" or Z.type.rank == 0:
        return None
    zf = access_forms(fin.indices)
    pvars = nest.vars
    if zf is None or any(x.depends(r) for x in zf for r in rnest.vars):
        return None
    if not injective(zf, Z.shape, pvars, nest.extents()):
        return None
    if has_control(body):
        return None
    init_nest = _fresh_loops(nest.loops, [N.Store(Z, list(fin.indices), init, loc=fin.loc)])
    stores = []
    for e, left, rhs, upd in terms:
        zload = N.Load(Z, list(fin.indices), Z.dtype, loc=fin.loc)
        value = N.BinOp(e.op, zload, rhs, e.type, e.loc) if left else N.BinOp(e.op, rhs, zload, e.type, e.loc)
        stores.append(N.Store(Z, list(fin.indices), value, loc=upd.loc))
    red_copy = _fresh_loops(rnest.loops, stores)
    upd_nest = _fresh_loops(nest.loops, [red_copy])
    return init_nest, upd_nest, acc.name


# ----------------------------------------------------------------------------- 1b. buffer_at
def _copy_nest(s, buf):
    """(loops, store) when `s` is a perfect nest storing every element of `buf` once, indexed by
    its loop variables in order (`buf[j0, j1] = value`), else None."""
    if not isinstance(s, N.For):
        return None
    nest = perfect_nest(s)
    if len(nest.body) != 1 or not isinstance(nest.body[0], N.Store) or not nest.constant():
        return None
    st = nest.body[0]
    if tuple(nest.extents()) != tuple(buf.shape) or len(st.indices) != len(nest.loops):
        return None
    if not all(isinstance(i, N.IterVar) and i is f.var for i, f in zip(st.indices, nest.loops)):
        return None
    return nest.loops, st


def unbuffer(s: N.For, counts):
    """(new loop, buffer name, target name) or None; see the module docstring (1b)."""
    body = s.body
    if len(body) < 3 or has_control(body):
        return None
    first, last = body[0], body[-1]
    out_nest = perfect_nest(last) if isinstance(last, N.For) else None
    if out_nest is None or len(out_nest.body) != 1 or not isinstance(out_nest.body[0], N.Store):
        return None
    back = out_nest.body[0]
    if not isinstance(back.value, N.Load) or back.value.buf is back.buf:
        return None
    buf, Z = back.value.buf, back.buf
    if buf.kind != "local" or buf.type.rank == 0 or Z.kind == "scalar_arg" or Z.dtype != buf.dtype:
        return None
    # copy-out: Z[g(jb)] = buf[jb] over all of buf
    lo = out_nest.loops
    if tuple(out_nest.extents()) != tuple(buf.shape) or len(back.value.indices) != len(lo):
        return None
    if not all(isinstance(i, N.IterVar) and i is f.var for i, f in zip(back.value.indices, lo)):
        return None
    zf = access_forms(back.indices)
    if zf is None or not injective(zf, Z.shape, [f.var for f in lo], list(buf.shape)):
        return None
    cin = _copy_nest(first, buf)
    if cin is None or cin[1].buf is not buf or E.loads_from([cin[1].value], buf):
        return None
    middle = body[1:-1]
    # buf private to this loop: its Alloc (outside, no init) + the statements in this loop
    if counts.get(id(buf), 0) != E.stmt_counts(body)[id(buf)] + 1:
        return None
    if any(E.uses_buffer(x, Z) for x in middle):
        return None
    if any(isinstance(x, N.Alloc) and (x.buf is buf or x.init is buf) for x in V.walk_stmts(body)):
        return None

    def g(idx):
        m = {f.var: i for f, i in zip(lo, idx)}
        return [V.substitute(z, m) for z in back.indices]

    new_body = []
    in_loops, in_store = cin
    zi = g(in_store.indices)
    v = in_store.value
    identity = isinstance(v, N.Load) and v.buf is Z and all(
        a.coeffs == b.coeffs and a.const == b.const
        for a, b in zip(access_forms(v.indices) or [], access_forms(zi) or [None] * len(zi)))
    if not identity:
        if E.loads_from([v], Z):
            return None
        new_body.append(first)
    new_body = _Retarget(buf, Z, g).stmts(new_body + middle)
    return dataclasses.replace(s, body=new_body), buf.name, Z.name


# ----------------------------------------------------------------------------- 2. distribution
class _Retarget(V.Rewriter):
    """A copy where every access `buf[idx]` becomes `Z[g(idx)]`."""

    def __init__(self, buf, Z, g):
        self.buf, self.Z, self.g = buf, Z, g

    def rewrite_Load(self, e):
        return N.Load(self.Z, self.g(e.indices), e.type, e.loc) if e.buf is self.buf else e

    def rewrite_Store(self, st):
        if st.buf is self.buf:
            st.buf, st.indices = self.Z, self.g(st.indices)
        return st


def _slice_only(parts, var, buf) -> bool:
    """Every access to `buf` in `parts` has an index that is exactly `var`, at the same position."""
    pos = None
    for p in parts:
        acc = accesses([p], buf)
        if acc is None:
            return False
        for _, idx in acc:
            forms = access_forms(idx)
            if forms is None:
                return False
            here = [k for k, fm in enumerate(forms)
                    if fm.coef(var) == 1 and len(fm.coeffs) == 1 and fm.const == 0]
            if not here or (pos is not None and pos not in here):
                return False
            pos = here[0] if pos is None else pos
    return True


def distribute(s: N.For):
    """Loops replacing `s` (one per statement of its body), or None (see module docstring)."""
    parts = s.body
    if len(parts) < 2 or has_control(parts) or s.attrs.get(UNROLL) is not None:
        return None
    if any(isinstance(p, N.Alloc) for p in V.walk_stmts(parts)):
        return None
    if linear(s.lb) is None or linear(s.ub) is None:
        return None
    for a in range(len(parts)):
        wa = E.writes([parts[a]])
        for b in range(len(parts)):
            if a == b:
                continue
            tb = E.used([parts[b]])
            for bid, buf in wa.items():
                if bid in tb and not _slice_only([parts[a], parts[b]], s.var, buf):
                    return None
    loops = [_fresh_loops([s], [p]) for p in parts]
    if not any(recognise(perfect_nest(x)) is not None for x in loops):
        return None
    return loops


# ----------------------------------------------------------------------------- 3. permutation
def permute_nest(s: N.For, report, fname):
    """`s` with its perfect nest reordered for stride-1 inner loops (or unchanged)."""
    nest = perfect_nest(s)
    if len(nest.loops) < 2 or len(nest.body) != 1 or not isinstance(nest.body[0], N.Store):
        return s
    if recognise(nest) is not None:
        return s
    if any(f.attrs.get(UNROLL) is not None or f.attrs.get(PARALLEL) for f in nest.loops):
        return s
    st = nest.body[0]
    X = st.buf
    xf = access_forms(st.indices)
    if xf is None or X.kind == "scalar_arg" or X.type.rank == 0:
        return s
    vars_ = nest.vars
    ids = {id(v) for v in vars_}
    # rectangular: bounds independent of the nest's own variables
    for f in nest.loops:
        for b in (f.lb, f.ub):
            if any(isinstance(x, N.IterVar) and id(x) in ids for x in V.walk_expr(b)):
                return s
    # X is read only at the stored element; other buffers are only read
    for x in V.walk_expr(st.value):
        if isinstance(x, N.Load) and x.buf is X:
            fx = access_forms(x.indices)
            if fx is None or any(a.coeffs != b.coeffs or a.const != b.const for a, b in zip(fx, xf)):
                return s
    par = [f for f in nest.loops if any(fm.depends(f.var) for fm in xf)]
    red = [f for f in nest.loops if f not in par]
    ext = [const_extent(f) for f in par]
    if any(e is None for e in ext) or not injective(xf, X.shape, [f.var for f in par], ext):
        return s
    if red and not _reduction_update(st):
        return s
    order = _best_order(nest, par, red)
    if [f.var for f in order] == vars_:
        return _scalar_replace(s, nest, red, report, fname)
    inner = list(nest.body)
    for f in reversed(order):
        inner = [dataclasses.replace(f, body=inner)]
    out = inner[0]
    # keep the outermost loop's band name on the new outermost loop
    if OP_NAME in s.attrs and OP_NAME not in out.attrs:
        out.attrs = {**out.attrs, OP_NAME: s.attrs[OP_NAME]}
    report.append(f"{fname}: loop nest {'/'.join(f.name for f in nest.loops)} reordered to "
                  f"{'/'.join(f.name for f in order)}")
    return _scalar_replace(out, perfect_nest(out), red, report, fname)


def _reduction_update(st) -> bool:
    e = st.value
    if not isinstance(e, N.BinOp) or e.op not in ACC_OPS:
        return False
    lhs_self = isinstance(e.lhs, N.Load) and e.lhs.buf is st.buf
    rhs_self = isinstance(e.rhs, N.Load) and e.rhs.buf is st.buf
    other = e.rhs if lhs_self else e.lhs
    if not (lhs_self or (rhs_self and e.op != BinOpKind.SUB)):
        return False
    return not E.loads_from([other], st.buf)


def _inner_cost(nest, v):
    """Memory cost of making `v` the innermost loop: per access 0 if invariant in v, 1 if
    contiguous (vectorisable), 8 if strided. The self-load of a reduction is not counted."""
    st = nest.body[0]
    accs = [st.indices] + [x.indices for x in V.walk_expr(st.value) if isinstance(x, N.Load) and x.buf is not st.buf]
    cost = 0
    for idx in accs:
        forms = access_forms(idx)
        if forms is None:
            cost += 8
        elif not any(fm.depends(v) for fm in forms):
            continue
        elif forms[-1].coef(v) == 1 and not any(fm.depends(v) for fm in forms[:-1]):
            cost += 1
        else:
            cost += 8
    return cost


def _best_order(nest, par, red):
    """Loops reordered: the cheapest innermost loop last; reductions keep their relative order."""
    loops = nest.loops
    best = min(loops, key=lambda f: (_inner_cost(nest, f.var), -loops.index(f)))
    if _inner_cost(nest, best.var) >= _inner_cost(nest, loops[-1].var):
        return loops
    if best in red and red[-1] is not best:
        return loops  # moving a reduction past later reductions would reorder the sum
    return [f for f in loops if f is not best] + [best]


def _scalar_replace(s, nest, red, report, fname):
    """If the innermost loop is a reduction, accumulate in a rank-0 local around it."""
    inner = nest.loops[-1]
    if not red or inner is not red[-1] or len(nest.loops) < 2:
        return s
    st = inner.body[0]
    if not isinstance(st, N.Store) or not _reduction_update(st):
        return s
    if any(isinstance(x, N.IterVar) and x is inner.var for i in st.indices for x in V.walk_expr(i)):
        return s
    acc = N.Buffer(f"{st.buf.name}_acc", _rank0(st.buf.dtype), kind="local")
    e = st.value
    self_load = N.Load(acc, [], acc.dtype)
    if isinstance(e.lhs, N.Load) and e.lhs.buf is st.buf:
        new_val = N.BinOp(e.op, self_load, e.rhs, e.type, e.loc)
    else:
        new_val = N.BinOp(e.op, e.lhs, self_load, e.type, e.loc)
    new_inner = dataclasses.replace(inner, body=[N.Store(acc, [], new_val, loc=st.loc)])
    parent = nest.loops[-2]
    parent.body = [
        N.Alloc(acc, N.Load(st.buf, list(st.indices), st.buf.dtype), loc=st.loc),
        new_inner,
        N.Store(st.buf, list(st.indices), N.Load(acc, [], acc.dtype), loc=st.loc),
    ]
    report.append(f"{fname}: reduction into {st.buf.name!r} kept in a scalar over loop {inner.name!r}")
    return s


def _rank0(t):
    return ArrayType(t, ())
