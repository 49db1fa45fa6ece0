"""Loops with run-time bounds (`for i in range(n)`, n known only when the kernel runs), rewritten
by allo.transforms.guards in the clone the LLVM backend compiles:

1. Entry checks (default builds): the affine accesses that run in every iteration of such a loop
   (`A[i] = ...`, `B[2 * i + 1]`, `C[j, i]` with j from an enclosing loop) are checked once when
   the loop starts, by comparing the index at the first and the last iteration with the array's
   extent: a few integer operations per loop entry instead of a check per access. A loop that would
   leave its array records the violation in the status array and does not run; the module then
   raises BoundsError. Accesses under an `if`, in a select's arms, in inner loops that may not run,
   and data-dependent indices are left to `bounds_check=True`, as documented.
2. Abort polling (Ctrl-C): the loop becomes a `while` over chunks of iterations whose condition
   reads the status array's abort flag (a volatile load, so it is read again at every back edge
   whatever the body does). A straight-line body runs CHUNK iterations per poll; a body with loops
   or calls polls every iteration. The inner loop keeps the loop variable, its name and attributes,
   so the CPU optimiser still sees an ordinary loop.

Example (the shape produced for `for i in range(n): A[i] = x`)::

    _allo_lo0: index = 0
    _allo_hi0: index = n
    if _allo_hi0 > _allo_lo0 and (_allo_lo0 < 0 or _allo_last >= 16): record site   # entry check
    else:
        while _allo_lo0 < _allo_hi0 and status[ABORT] == 0:                          # abort poll
            for i in range(_allo_lo0, min(_allo_lo0 + CHUNK, _allo_hi0)): A[i] = x
            _allo_lo0 += CHUNK
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir import nodes as N
from ..ir import visit as V
from ..ir.attrs import STREAM
from ..ir.ops import BinOpKind, UnaryOpKind
from ..ir.types import ArrayType, UInt, index
from .bounds import affine, always_loads, loop_range

CHUNK = 1024  # iterations of a straight-line body between two polls of the abort flag
bool_t = UInt(1)


@dataclass
class Access:
    """One dimension of an access to check at loop entry: `form` is the index's affine form."""

    buf: N.Buffer
    dim: int
    form: tuple
    kind: str  # "read" or "write"
    static: dict  # id(var) -> (lo, hi) of the constant loops between the loop and the access
    loc: object = None


def _idx(v: int) -> N.Const:
    return N.Const(int(v), index)


def _bin(op, a, b, t=index):
    return N.BinOp(op, a, b, t)


# ----------------------------------------------------------------------------- 1. entry checks
def entry_accesses(loop: N.For, ranges: dict, skip) -> list:
    """The affine access dimensions of `loop`'s body that run in every iteration and whose index
    moves with a variable of unknown range (`loop`'s own, or one of an enclosing run-time loop;
    `ranges` holds the known ones). `skip(buf)` excludes buffers (the status array, ...)."""
    out = []
    _walk(loop.body, {}, out, skip)
    return [a for a in out if any(key not in a.static and key not in ranges for key in a.form[0])]


def _walk(body, static, out, skip):
    for s in body:
        for e in V.stmt_exprs(s):
            for ld in always_loads(e):
                _add(ld.buf, ld.indices, "read", ld.loc or s.loc, static, out, skip)
        if isinstance(s, N.Store):
            _add(s.buf, s.indices, "write", s.loc, static, out, skip)
        elif isinstance(s, N.For):
            r = loop_range(s)
            if isinstance(r, tuple):  # runs, fully, in every iteration of the outer loop
                _walk(s.body, {**static, id(s.var): r}, out, skip)
        # if/while bodies may not run; calls read their arguments inside the callee


def _add(buf, indices, kind, loc, static, out, skip):
    if skip(buf) or not buf.shape or len(indices) != len(buf.shape) or buf.attrs.get(STREAM):
        return
    for d, i in enumerate(indices):
        form = affine(i)
        if form is not None and form[0]:
            out.append(Access(buf, d, form, kind, static, loc))


def extremes_at_entry(form, loop: N.For, first, last, static):
    """(min, max) index expressions of an affine form over one run of `loop`: its variable from
    `first` to `last`, constant inner loops over their ranges, enclosing variables at their value."""
    lo = hi = _idx(form[1])
    for key, (v, c) in form[0].items():
        if v is loop.var:
            small, big = (first, last) if c > 0 else (last, first)
            a, b = _bin(BinOpKind.MUL, V.copy_expr(small), _idx(c)), _bin(BinOpKind.MUL, V.copy_expr(big), _idx(c))
        elif key in static:
            r = static[key]
            a, b = _idx(c * (r[0] if c > 0 else r[1])), _idx(c * (r[1] if c > 0 else r[0]))
        else:
            a = b = _bin(BinOpKind.MUL, v, _idx(c))
        lo, hi = _bin(BinOpKind.ADD, lo, a), _bin(BinOpKind.ADD, hi, b)
    return lo, hi


def last_value(lo, hi, step: int):
    """The loop variable's value at the last iteration (lo + (hi - 1 - lo) // step * step), for a
    loop that runs (hi > lo)."""
    if step == 1:
        return _bin(BinOpKind.SUB, hi, _idx(1))
    span = _bin(BinOpKind.SUB, _bin(BinOpKind.SUB, hi, _idx(1)), lo)
    return _bin(BinOpKind.ADD, V.copy_expr(lo), _bin(BinOpKind.MUL, _bin(BinOpKind.FLOORDIV, span, _idx(step)),
                                                       _idx(step)))


def violation(acc: Access, loop: N.For, first, last):
    """(condition that the access leaves its array, offending index value) at loop entry."""
    lo, hi = extremes_at_entry(acc.form, loop, first, last, acc.static)
    size = acc.buf.shape[acc.dim]
    below = _bin(BinOpKind.LT, lo, _idx(0), bool_t)
    above = _bin(BinOpKind.GE, hi, _idx(size), bool_t)
    value = N.Select(V.copy_expr(below), V.copy_expr(lo), V.copy_expr(hi), index)
    return _bin(BinOpKind.LOR, below, above, bool_t), value


# ----------------------------------------------------------------------------- 2. abort polling
def chunked(loop: N.For, lo_buf: N.Buffer, hi_buf: N.Buffer, not_aborted) -> list:
    """`loop` (bounds already read into the rank-0 locals lo_buf / hi_buf) as a while loop over
    chunks that tests `not_aborted` (an expression) before every chunk."""
    straight = not any(isinstance(s, (N.For, N.While, N.CallStmt)) for s in V.walk_stmts(loop.body))
    stride = int(loop.step) * (CHUNK if straight else 1)
    cur = lambda: N.Load(lo_buf, [], index)  # noqa: E731
    end = N.Load(hi_buf, [], index)
    inner = N.For(loop.var, cur(), _bin(BinOpKind.MIN, _bin(BinOpKind.ADD, cur(), _idx(stride)), end), loop.step,
                  loop.body, loop.name, loop.attrs, loop.loc)
    cond = _bin(BinOpKind.LAND, _bin(BinOpKind.LT, cur(), N.Load(hi_buf, [], index), bool_t), not_aborted, bool_t)
    advance = N.Store(lo_buf, [], _bin(BinOpKind.ADD, cur(), _idx(stride)), loop.loc)
    return [N.While(cond, [inner, advance], loop.loc)]


def bound_locals(loop: N.For, n: int):
    """Rank-0 index locals holding the loop's bounds, read once at entry (as `range` does), and
    their declarations."""
    lo = N.Buffer(f"_allo_lo{n}", ArrayType(index, ()), "local", loc=loop.loc)
    hi = N.Buffer(f"_allo_hi{n}", ArrayType(index, ()), "local", loc=loop.loc)
    return lo, hi, [N.Alloc(lo, loop.lb, loop.loc), N.Alloc(hi, loop.ub, loop.loc)]


def runs(lo_buf, hi_buf):
    return _bin(BinOpKind.GT, N.Load(hi_buf, [], index), N.Load(lo_buf, [], index), bool_t)


def negate(e):
    return N.UnaryOp(UnaryOpKind.NOT, e, bool_t)


__all__ = ["CHUNK", "Access", "entry_accesses", "violation", "last_value", "chunked", "bound_locals", "runs",
           "negate"]
