"""Loop-nest shapes that decide Vitis HLS's loop flattening around a pipelined loop.

Vitis flattens a nest into its pipelined innermost loop after LLVM's scalar promotion (LICM) has
run, so what counts is the nest after promotion:

- an accumulator the pipelined loop reads and writes at one address that does not follow the
  loop but follows an outer loop (`x1[i] += A[i, j] * y1[j]` in `for i: for j`) is promoted to a
  register loaded before the loop and stored after it; the load makes the nest imperfect, so
  Vitis keeps the outer loop (mvt's baseline: a ~40-cycle restart per row);
- `E[i, j] = 0; for k: E[i, j] += ...` (stores of load-free values before the loop, stores of
  promoted accumulators after it, gesummv's `y[i] = alpha * tmp[i] + beta * y[i]`) is flattened
  all the same: the constant start becomes a select that resets the register when the inner loop
  restarts, one more state on the recurrence (3mm's, bicg's and gesummv's baselines run their
  flattened nests at II 8 where the add alone gives 7). An outer statement that reads memory
  (2mm's `D[i, j] *= beta`) keeps the nest as it is.

Example::

    promoted_accumulator(inner_loop, [id(i)])   # True for mvt's `x1[i] += ...`
    imperfect_level(j_loop)                     # the k loop of `for j: E[i, j] = 0; for k: ...`
"""
from __future__ import annotations

from ..ir import nodes as N
from ..ir import visit as V
from .affine import index_aff


def _accesses(body):
    """(buffer, index tuple of Aff or None, "r"|"w") of every array access under `body`."""
    out = []
    for s in V.walk_stmts(body):
        if isinstance(s, N.Store) and s.buf.shape:
            out.append((s.buf, _affs(s.indices), "w"))
        for e in V.stmt_exprs(s):
            for x in V.walk_expr(e):
                if isinstance(x, N.Load) and x.buf.shape:
                    out.append((x.buf, _affs(x.indices), "r"))
    return out


def _loads(e):
    """(buffer, index tuple or None) of every array load in expression `e`."""
    return [(x.buf, _affs(x.indices)) for x in V.walk_expr(e) if isinstance(x, N.Load) and x.buf.shape]


def _affs(indices):
    affs = [index_aff(e, {}) for e in indices]
    return None if any(a is None for a in affs) else tuple(affs)


def _key(affs):
    return tuple(a.key() for a in affs)


def accumulators(loop) -> set:
    """(buffer id, index key, used loop vars) of the elements pipelined `loop` reads and writes at
    one address that does not follow `loop` or a loop inside it (promotable to a register)."""
    inner_defined = {id(s.var) for s in V.walk_stmts(loop.body) if isinstance(s, N.For)} | {id(loop.var)}
    by_buf = {}
    for buf, affs, mode in _accesses(loop.body):
        by_buf.setdefault(id(buf), []).append((affs, mode))
    out = set()
    for uid, acc in by_buf.items():
        if any(a is None for a, _ in acc):
            continue
        keys = {_key(a) for a, _ in acc}
        if len(keys) != 1 or {m for _, m in acc} != {"r", "w"}:
            continue
        used = frozenset().union(*(set(a.coefs) for a in acc[0][0]))
        if not (used & inner_defined):
            out.add((uid, next(iter(keys)), used))
    return out


def promoted_accumulator(loop, outer_vars) -> bool:
    """Does pipelined `loop` accumulate into one element per outer iteration (read and written at
    a single address that follows an enclosing loop in `outer_vars` but not `loop` itself)?"""
    outer = set(outer_vars)
    return any(used & outer for _, _, used in accumulators(loop))


def imperfect_level(loop, pipelined=None):
    """The single inner loop of `loop` when the other statements of its body only initialise
    (load-free values; every accumulator) or finish (from accumulators) accumulators of the
    pipelined loop (`pipelined`, default the inner loop itself), which Vitis folds into a
    flattened pipeline."""
    fors = [k for k, s in enumerate(loop.body) if isinstance(s, N.For)]
    if len(fors) != 1 or len(loop.body) == 1:
        return None
    k = fors[0]
    inner = loop.body[k]
    pre, post = loop.body[:k], loop.body[k + 1:]
    if any(not isinstance(s, N.Store) for s in pre + post):
        return None
    accs = {(uid, key) for uid, key, _ in accumulators(pipelined or inner)}
    inits = {(id(s.buf), _key(a)) for s in pre if (a := _affs(s.indices)) is not None}
    if not accs or accs - inits:
        return None  # an accumulator not initialised here starts from memory: a load before the loop
    for s in pre + post:
        affs = _affs(s.indices)
        if affs is None or (id(s.buf), _key(affs)) not in accs:
            return None  # a store to memory other than an accumulator stays in the outer body
    if any(_loads(s.value) for s in pre):
        return None  # starts from memory (2mm's D[i, j] *= beta): the load stays outside
    for s in post:
        for buf, affs in _loads(s.value):
            if affs is None or (id(buf), _key(affs)) not in accs:
                return None
    return inner


__all__ = ["accumulators", "promoted_accumulator", "imperfect_level"]
