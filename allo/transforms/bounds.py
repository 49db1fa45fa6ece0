"""Index ranges of array accesses, known from loop bounds and `if` guards.

Used twice:
- `check_static_bounds(module)` (at customize time): an access whose index, over the loop
  ranges, leaves the array is an error at the kernel line. Only accesses whose index is affine
  in loops of constant bounds, under guards this analysis can read, are judged; everything else
  (data-dependent indices, dynamic loop bounds) is left to `s.build(bounds_check=True)`.
- `in_bounds(index, size, ranges)` (at build time, by allo.ir.guards): accesses proven in range
  need no run-time check.

Example::

    for i in range(16):
        Y[i] = X[i + 1]        # BoundsError: ... index i + 1 reaches 16 at i = 15 ...
    for i in range(16):
        if i < 15:
            Y[i] = X[i + 1]    # fine: the guard bounds i to 0..14
"""
from __future__ import annotations

from ..errors import BoundsError, located
from ..ir import nodes as N, visit as V
from ..ir.emit import PY_FOLD
from ..ir.ops import LOGIC_OPS, BinOpKind, UnaryOpKind
from ..ir.types import Index, Int, UInt


# ----------------------------------------------------------------------------- affine forms
def affine(e):
    """`e` as ({id(IterVar): (var, coeff)}, constant) when it is affine in loop variables, else None."""
    if isinstance(e, N.IterVar):
        return {id(e): (e, 1)}, 0
    if isinstance(e, N.Const):
        v = e.value
        if isinstance(e.type, (Index, Int, UInt)) and isinstance(v, int) and not isinstance(v, bool):
            return {}, int(v)
        return None
    ints = (Index, Int, UInt)
    if isinstance(e, N.Cast) and isinstance(e.type, ints) and isinstance(e.value.type, ints):
        return affine(e.value)
    if isinstance(e, N.UnaryOp) and e.op == UnaryOpKind.NEG:
        a = affine(e.operand)
        return None if a is None else ({k: (v, -c) for k, (v, c) in a[0].items()}, -a[1])
    if isinstance(e, N.BinOp) and e.op in (BinOpKind.ADD, BinOpKind.SUB, BinOpKind.MUL):
        lhs, rhs = affine(e.lhs), affine(e.rhs)
        if lhs is None or rhs is None:
            return None
        if e.op == BinOpKind.MUL:
            if lhs[0] and rhs[0]:
                return None
            if not lhs[0]:
                lhs, rhs = rhs, lhs
            k = rhs[1]
            return {key: (v, c * k) for key, (v, c) in lhs[0].items() if c * k}, lhs[1] * k
        sign = 1 if e.op == BinOpKind.ADD else -1
        terms = dict(lhs[0])
        for key, (v, c) in rhs[0].items():
            terms[key] = (v, terms.get(key, (v, 0))[1] + sign * c)
        return {k: t for k, t in terms.items() if t[1]}, lhs[1] + sign * rhs[1]
    return None


def affine_text(form) -> str:
    """`2*i - j + 1` for an affine form."""
    parts = []
    for v, c in form[0].values():
        term = v.name if abs(c) == 1 else f"{abs(c)}*{v.name}"
        parts.append(("- " if c < 0 else "+ ") + term)
    if form[1] or not parts:
        parts.append(("- " if form[1] < 0 else "+ ") + str(abs(form[1])))
    text = " ".join(parts)
    return text[2:] if text.startswith("+ ") else "-" + text[2:]


_SYMBOLS = {BinOpKind.ADD: "+", BinOpKind.SUB: "-", BinOpKind.MUL: "*", BinOpKind.DIV: "/", BinOpKind.FLOORDIV: "//",
            BinOpKind.MOD: "%", BinOpKind.AND: "&", BinOpKind.OR: "|", BinOpKind.XOR: "^", BinOpKind.SHL: "<<",
            BinOpKind.SHR: ">>"}


def expr_text(e) -> str:
    """A short Python-like rendering of an index expression, e.g. `P[j] + 1`."""
    form = affine(e)
    if form is not None:
        return affine_text(form)
    if isinstance(e, N.Cast):
        return expr_text(e.value)
    if isinstance(e, N.Load):
        return f"{e.buf.name}[{', '.join(expr_text(i) for i in e.indices)}]" if e.indices else e.buf.name
    if isinstance(e, N.BinOp) and e.op in _SYMBOLS:
        return f"{expr_text(e.lhs)} {_SYMBOLS[e.op]} {expr_text(e.rhs)}"
    if isinstance(e, N.BinOp):
        return f"{e.op}({expr_text(e.lhs)}, {expr_text(e.rhs)})"
    if isinstance(e, N.Const):
        return repr(e.value)
    return type(e).__name__


def extremes(form, ranges):
    """((min, witness), (max, witness)) of an affine form over the box `ranges`
    ({id(var): (lo, hi)}, inclusive), or None when a variable has no known range."""
    lo_val = hi_val = form[1]
    lo_at, hi_at = {}, {}
    for key, (v, c) in form[0].items():
        if key not in ranges:
            return None
        a, b = ranges[key]
        small, big = (a, b) if c > 0 else (b, a)
        lo_val += c * small
        hi_val += c * big
        lo_at[v.name], hi_at[v.name] = small, big
    return (lo_val, lo_at), (hi_val, hi_at)


def in_bounds(index, size: int, ranges) -> bool:
    """Is `index` provably within [0, size) for every point of `ranges`?"""
    form = affine(index)
    if form is None:
        return False
    ext = extremes(form, ranges)
    return ext is not None and ext[0][0] >= 0 and size is not None and ext[1][0] < size


# ----------------------------------------------------------------------------- loop ranges and guards
def loop_range(loop: N.For):
    """(lo, hi) inclusive of a loop variable with constant bounds, "empty" for a loop that never
    runs, None when a bound is not constant (a bound affine in an outer loop is not judged: that
    loop could be empty for some outer values)."""
    lb, ub = affine(loop.lb), affine(loop.ub)
    if lb is None or ub is None or lb[0] or ub[0]:
        return None
    lb, ub = lb[1], ub[1]
    if ub <= lb:
        return "empty"
    return lb, lb + (ub - 1 - lb) // loop.step * loop.step


def var_range(loop: N.For, ranges):
    """(lo, hi) inclusive containing every value of the loop variable, given the ranges of the
    enclosing loop variables (`{id(var): (lo, hi)}`): exact for constant bounds, the extremes over
    the enclosing box for bounds affine in them (a triangular loop); "empty" for a loop that never
    runs; None when a bound is known only at run time (then the loop may run arbitrarily long)."""
    r = loop_range(loop)
    if r is not None:
        return r
    lb, ub = affine(loop.lb), affine(loop.ub)
    el = extremes(lb, ranges) if lb is not None else None
    eu = extremes(ub, ranges) if ub is not None else None
    if el is None or eu is None:
        return None
    lo, hi = el[0][0], eu[1][0] - 1
    return "empty" if hi < lo else (lo, hi)


_FLIP = {BinOpKind.LT: BinOpKind.GE, BinOpKind.LE: BinOpKind.GT, BinOpKind.GT: BinOpKind.LE, BinOpKind.GE: BinOpKind.LT,
         BinOpKind.EQ: BinOpKind.NE, BinOpKind.NE: BinOpKind.EQ}


def guard_ranges(cond, ranges, negate=False):
    """Narrow `ranges` by condition `cond` (or its negation). Returns the narrowed dict, "dead"
    when the condition can never hold, or None when the condition cannot be read."""
    if isinstance(cond, N.BinOp) and cond.op == BinOpKind.LAND and not negate:
        first = guard_ranges(cond.lhs, ranges)
        if first is None or first == "dead":
            return first
        return guard_ranges(cond.rhs, first)
    if isinstance(cond, N.UnaryOp) and cond.op == UnaryOpKind.NOT:
        return guard_ranges(cond.operand, ranges, not negate)
    if not (isinstance(cond, N.BinOp) and cond.op in _FLIP):
        return None
    op = _FLIP[cond.op] if negate else cond.op
    lhs, rhs = affine(cond.lhs), affine(cond.rhs)
    if lhs is None or rhs is None or op == BinOpKind.NE:
        return None
    terms = dict(lhs[0])
    for key, (v, c) in rhs[0].items():
        terms[key] = (v, terms.get(key, (v, 0))[1] - c)
    terms = {k: t for k, t in terms.items() if t[1]}
    k = lhs[1] - rhs[1]  # cond: sum(c*v) + k  <op>  0
    if not terms:
        return ranges if PY_FOLD[op](k, 0) else "dead"
    if len(terms) != 1:
        return None
    key, (v, c) = next(iter(terms.items()))
    if key not in ranges:
        return None
    lo, hi = ranges[key]
    for rel, m in _as_bounds(op, k):  # c*v <rel> m
        if (rel == BinOpKind.LE) == (c > 0):  # an upper bound on v: floor(m / c)
            hi = min(hi, m // c)
        else:  # a lower bound on v: ceil(m / c)
            lo = max(lo, -((-m) // c))
    if lo > hi:
        return "dead"
    out = dict(ranges)
    out[key] = (lo, hi)
    return out


def _as_bounds(op, k):
    """`c*v + k <op> 0` as a list of (relation, m) meaning `c*v <= m` / `c*v >= m`."""
    if op == BinOpKind.LT:
        return [(BinOpKind.LE, -k - 1)]
    if op == BinOpKind.LE:
        return [(BinOpKind.LE, -k)]
    if op == BinOpKind.GT:
        return [(BinOpKind.GE, -k + 1)]
    if op == BinOpKind.GE:
        return [(BinOpKind.GE, -k)]
    return [(BinOpKind.LE, -k), (BinOpKind.GE, -k)]


# ----------------------------------------------------------------------------- the static check
def check_static_bounds(module: N.Module) -> None:
    """Raise BoundsError at the kernel line of the first access that provably leaves its array."""
    for f in module.funcs:
        _check_block(f.body, {}, f)


def _check_block(body, ranges, f):
    for s in body:
        if isinstance(s, N.For):
            for e in (s.lb, s.ub):
                _check_expr(e, ranges, f, s)
            r = loop_range(s)
            if r == "empty":
                continue
            inner = dict(ranges)
            if r is None:
                inner.pop(id(s.var), None)
            else:
                inner[id(s.var)] = r
            _check_block(s.body, inner, f)
        elif isinstance(s, N.If):
            _check_expr(s.cond, ranges, f, s)
            for branch, negate in ((s.then, False), (s.orelse, True)):
                narrowed = guard_ranges(s.cond, ranges, negate)
                if narrowed is not None and narrowed != "dead":
                    _check_block(branch, narrowed, f)
        elif isinstance(s, N.While):
            continue  # may run zero times: its accesses are left to bounds_check
        else:
            if isinstance(s, N.Store):
                _check_access(s.buf, s.indices, ranges, f, s.loc, "write")
            for e in V.stmt_exprs(s):
                _check_expr(e, ranges, f, s)


def _check_expr(e, ranges, f, stmt):
    for ld in always_loads(e):
        _check_access(ld.buf, ld.indices, ranges, f, ld.loc or stmt.loc, "read")


def always_loads(e):
    """The loads of `e` that always execute when it is evaluated (not under a select or the right
    side of and/or, which may be skipped), outermost first."""
    if isinstance(e, N.Load):
        yield e
        for i in e.indices:
            yield from always_loads(i)
        return
    if isinstance(e, N.Select):
        yield from always_loads(e.cond)
        return
    if isinstance(e, N.BinOp) and e.op in LOGIC_OPS:
        yield from always_loads(e.lhs)
        return
    for c in V.child_exprs(e):
        yield from always_loads(c)


def _check_access(buf, indices, ranges, f, loc, kind):
    if buf.kind == "scalar_arg" or len(indices) != len(buf.shape):
        return
    for d, (idx, size) in enumerate(zip(indices, buf.shape)):
        form = affine(idx)
        if form is None:
            continue
        ext = extremes(form, ranges)
        if ext is None:
            continue
        (lo, lo_at), (hi, hi_at) = ext
        # an extent known only at run time (float32[...]) is checked when the size is given
        bad, at = (hi, hi_at) if size is not None and hi >= size else (lo, lo_at) if lo < 0 else (None, None)
        if bad is None:
            continue
        where = ", ".join(f"{k} = {v}" for k, v in at.items())
        rank = f" of dimension {d}" if len(buf.shape) > 1 else ""
        raise located(BoundsError, f"out-of-bounds {kind} of {buf.name!r} in {f.name!r}: index "
                      f"{affine_text(form)!r}{rank} is {bad}{' at ' + where if where else ''}, but the size is "
                      f"{size} (valid indices 0..{size - 1})", loc)


__all__ = ["affine", "affine_text", "expr_text", "extremes", "in_bounds", "loop_range", "var_range", "guard_ranges",
           "check_static_bounds", "always_loads"]
