"""Is a permutation of a perfect loop nest legal? (used by `reorder`)

Two accesses of one buffer, at least one a write, depend on each other when they can touch the
same element. A permutation is illegal when it reverses the order of two dependent iterations
(the lexicographic sign of their distance changes). Distances are found by solving the index
equations over the loop ranges:
- indices affine in the loops (any coefficients: `2*j + 2`, `i.outer*4 + i.inner` after a split),
  with loop variables of the nest, of loops inside its body (free in each access) and of loops
  around it (equal in both accesses, so they must appear identically);
- the solutions are enumerated (only the loops that appear in some index count, bounded by
  `ENUMERATION_LIMIT`); an equation with a single loop is solved directly.
Accesses with identical indices (the same element in the same iteration order) are allowed when
the permutation keeps the order of the loops absent from the index, when the statement is a
reduction (`C[i, j] = C[i, j] + e` with + * min max & | ^; floats may then be reassociated), or
when the buffer is written before it is read in every iteration (a private temporary).
Anything else (data-dependent indices such as `P[j]`, calls that receive the buffer, equation
systems too large to enumerate) makes the permutation refuse with the reason.

Example::

    for i in range(1, 8): B[i] = B[i] + B[i - 1]     # split i by 2, reorder inner/outer: refused
    for i, j: B[i + 1, 2*j] = B[i, 2*j + 2]          # distance (1, -1): reorder(j, i) refused
"""
from __future__ import annotations

import itertools

import numpy as np

from ..errors import ScheduleError
from ..ir import effects as E, nodes as N, visit as V
from ..ir.attrs import REUSE
from ..ir.ops import BinOpKind
from ..transforms.bounds import affine, expr_text
from ..transforms.guards import written_before_read
from . import rewrite as R

ENUMERATION_LIMIT = 1 << 20  # candidate points per pair of accesses
_REDUCTION_OPS = (BinOpKind.ADD, BinOpKind.MUL, BinOpKind.MIN, BinOpKind.MAX, BinOpKind.AND, BinOpKind.OR,
                  BinOpKind.XOR)


def _err(prim, msg):
    return ScheduleError(f"{prim}: argument 'axes': {msg}")


def check_dependences(prim: str, chain: list, new: list) -> None:
    """Raise ScheduleError when reordering the loops `chain` (outermost first) into `new` may
    change the kernel's results (see the module docstring)."""
    perm = [next(k for k, c in enumerate(chain) if c is f) for f in new]
    if perm == sorted(perm):
        return
    body = chain[-1].body
    for s in V.walk_stmts(body):
        if isinstance(s, N.Store) and s.buf.attrs.get(REUSE):
            raise _err(prim, f"the nest shifts reuse buffer {s.buf.name!r} from one iteration to the next; its loop "
                             "order cannot change (apply reuse_at after reordering)")
        if isinstance(s, N.CallStmt):
            arrays = [a.name for a in s.args if isinstance(a, N.Buffer) and a.shape]
            if arrays:
                raise _err(prim, f"the nest calls {s.callee!r} with array(s) {', '.join(arrays)}, whose accesses "
                                 "cannot be analysed")
    space = _Space(chain, body)
    names = ", ".join(f.name for f in new)
    for buf, writes, accs in _groups(body):
        for wa in writes:
            for kind, ib, stmt in accs:
                if _identical(wa[1], ib):
                    reason = _same_element_order(space, buf, wa[1], perm, body)
                else:
                    reason = _pair(space, buf, wa[1], ib, perm)
                if reason:
                    raise _err(prim, f"order ({names}) {reason}")


def _groups(body):
    """(buffer, [writes], [all accesses]) for each buffer written in `body`; an access is
    (kind, indices, owner) where owner identifies the node (a Store or a Load)."""
    groups = {}
    for s in V.walk_stmts(body):
        if isinstance(s, N.Store):
            groups.setdefault(id(s.buf), (s.buf, [], []))
            groups[id(s.buf)][1].append(("w", s.indices, s))
            groups[id(s.buf)][2].append(("w", s.indices, s))
    for ld in E.loads(body):
        if id(ld.buf) in groups:
            groups[id(ld.buf)][2].append(("r", ld.indices, ld))
    return list(groups.values())


def _identical(ia, ib) -> bool:
    return len(ia) == len(ib) and all(R.expr_equal(x, y) for x, y in zip(ia, ib))


# ----------------------------------------------------------------------------- identical indices
def _same_element_order(space, buf, idx, perm, body) -> str | None:
    """Accesses with identical indices touch one element from iterations that differ only in the
    loops absent from the index: their relative order must stay, unless the updates commute."""
    used = {id(v) for i in idx for v in V.walk_expr(i) if isinstance(v, N.IterVar)}
    absent = [k for k, f in enumerate(space.chain) if id(f.var) not in used]
    kept = [k for k in perm if k in absent]
    if kept == sorted(kept):
        return None
    if _is_reduction(buf, body) or written_before_read(body, buf):
        return None
    return (f"changes the order of the updates of each element of {buf.name!r} (loops "
            f"{', '.join(space.chain[k].name for k in absent)} are not in its index and it is not a reduction)")


def _is_reduction(buf, body) -> bool:
    """Every store of `buf` is `buf[x] = buf[x] op e` with one commutative op, and `buf` is read
    nowhere else."""
    ops, own_loads = set(), set()
    for s in V.walk_stmts(body):
        if isinstance(s, N.Store) and s.buf is buf:
            v = _strip(s.value)
            if not (isinstance(v, N.BinOp) and v.op in _REDUCTION_OPS):
                return False
            sides = [_strip(v.lhs), _strip(v.rhs)]
            own = [x for x in sides if isinstance(x, N.Load) and x.buf is buf and _identical(x.indices, s.indices)]
            acc = own[0] if own else None
            other = sides[1] if acc is sides[0] else sides[0]
            if acc is None or E.loads_from([other], buf):
                return False
            ops.add(v.op)
            own_loads.add(id(acc))
    loads = [ld for ld in E.loads(body) if ld.buf is buf]
    return len(ops) == 1 and all(id(ld) in own_loads for ld in loads)


def _strip(e):
    while isinstance(e, N.Cast):
        e = e.value
    return e


# ----------------------------------------------------------------------------- distinct indices
class _Space:
    """The nest's loops (positions, trip counts) and the loops inside its body."""

    def __init__(self, chain, body):
        self.chain = chain
        self.pos = {id(f.var): k for k, f in enumerate(chain)}
        self.trips = {id(f.var): R.trip_count(f) for f in chain}
        self.inner = {}
        for s in V.walk_stmts(body):
            if isinstance(s, N.For):
                self.inner[id(s.var)] = s
                self.trips[id(s.var)] = R.trip_count(s)

    def starts(self, key):
        loop = self.chain[self.pos[key]] if key in self.pos else self.inner[key]
        return R.as_int(loop.lb), loop.step


def _pair(space, buf, ia, ib, perm) -> str | None:
    """Reason why reordering may reverse a dependence between a write `ia` and access `ib`."""
    rows = []
    for x, y in zip(ia, ib):
        fa, fb = affine(x), affine(y)
        if fa is None or fb is None:
            bad = x if fa is None else y
            return f"cannot be checked: an index of {buf.name!r} is not affine in the loops ({expr_text(bad)})"
        rows.append((fa, fb))
    outer_a = [{k: c for k, (_, c) in fa[0].items() if k not in space.pos and k not in space.inner} for fa, _ in rows]
    outer_b = [{k: c for k, (_, c) in fb[0].items() if k not in space.pos and k not in space.inner} for _, fb in rows]
    if outer_a != outer_b:
        return (f"cannot be checked: the indices of {buf.name!r} use loops around the nest differently "
                f"({', '.join(expr_text(i) for i in ia)} vs {', '.join(expr_text(i) for i in ib)})")
    solved = _solve(space, rows)
    if isinstance(solved, str):
        return f"cannot be checked for {buf.name!r}: {solved}"
    for dist in solved:
        if _reverses(dist, perm):
            return f"reverses a dependence on {buf.name!r} (distance {_fmt(dist, space.chain)})"
    return None


def _solve(space, rows):
    """The distinct sign vectors of the nest distance (None = any sign) over all solutions of
    the index equations, or a reason why they cannot be found."""
    same = all({k: c for k, (_, c) in fa[0].items() if k in space.pos or k in space.inner}
               == {k: c for k, (_, c) in fb[0].items() if k in space.pos or k in space.inner} for fa, fb in rows)
    unknowns, eqs = [], []  # unknown: (kind, key) with kind "d" (b - a), "a", "b"
    for fa, fb in rows:
        if same:  # a·x + ca = a·y + cb  <=>  a·(y - x) = ca - cb
            coeff = {("d", key): c for key, (_, c) in fb[0].items() if key in space.pos or key in space.inner}
            rhs = fa[1] - fb[1]
        else:  # a·x - b·y = cb - ca
            coeff = {("a", k): c for k, (_, c) in fa[0].items() if k in space.pos or k in space.inner}
            for k, (_, c) in fb[0].items():
                if k in space.pos or k in space.inner:
                    coeff[("b", k)] = -c
            rhs = fb[1] - fa[1]
        coeff = {k: c for k, c in coeff.items() if c}
        if not coeff:
            if rhs:
                return []  # never the same element
            continue
        eqs.append((coeff, rhs))
        unknowns += [u for u in coeff if u not in unknowns]
    ranges = []
    for kind, key in unknowns:
        n = space.trips.get(key)
        if n is None:
            return "a loop in the index has run-time bounds"
        if n == 0:
            return []
        if kind == "d":
            ranges.append(np.arange(-(n - 1), n) * space.starts(key)[1])
        else:
            lb, step = space.starts(key)
            ranges.append(lb + np.arange(n) * step)
    total = 1
    for r in ranges:
        total *= len(r)
    if total > ENUMERATION_LIMIT:
        return f"too many iterations to enumerate ({total} candidates)"
    grids = np.meshgrid(*ranges, indexing="ij", copy=False) if ranges else []
    ok = np.ones(grids[0].shape if grids else (), dtype=bool)
    for coeff, rhs in eqs:
        lhs = sum(c * grids[unknowns.index(u)] for u, c in coeff.items())
        ok &= lhs == rhs
    if not ok.any():
        return []
    signs = []
    for k, f in enumerate(space.chain):
        key = id(f.var)
        if same and ("d", key) in unknowns:
            signs.append(np.sign(grids[unknowns.index(("d", key))][ok]))
        elif not same and ("a", key) in unknowns and ("b", key) in unknowns:
            g = grids[unknowns.index(("b", key))] - grids[unknowns.index(("a", key))]
            signs.append(np.sign(g[ok]))
        else:
            signs.append(None)  # the loop is free for one access at least: any distance
    cols = [s for s in signs if s is not None]
    distinct = {tuple(int(c[j]) for c in cols) for j in range(len(cols[0]))} if cols else {()}
    out = []
    for vec in distinct:
        it = iter(vec)
        out.append([next(it) if s is not None else None for s in signs])
    return out


def _reverses(dist, perm) -> bool:
    """Does some concrete distance vector change its lexicographic sign under `perm`?"""
    free = [k for k, d in enumerate(dist) if d is None]
    for signs in itertools.product((-1, 0, 1), repeat=len(free)):
        vec = list(dist)
        for k, sgn in zip(free, signs):
            vec[k] = sgn
        before = next((v for v in vec if v), 0)
        after = next((vec[k] for k in perm if vec[k]), 0)
        if (before > 0) != (after > 0) and before and after:
            return True
    return False


def _fmt(dist, chain):
    return "(" + ", ".join(f"{f.name}: {'*' if d is None else d}" for f, d in zip(chain, dist)) + ")"


__all__ = ["check_dependences", "ENUMERATION_LIMIT"]
