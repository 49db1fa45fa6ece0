"""compute_at: move a producer loop nest into its consumer's nest (loop fusion with checks)."""
from __future__ import annotations

from ..errors import ScheduleError
from ..ir import effects as E, nodes as N, visit as V
from ..ir.attrs import OP_NAME
from ..ir.loops import find_loop
from . import rewrite as R
from .loop_transforms import perfect_chain


def _err(arg, msg):
    return ScheduleError(f"compute_at: argument '{arg}': {msg}")


def compute_at(func: N.Func, from_loop, target_loop) -> None:
    """Move the producer nest containing `from_loop` into the consumer nest at `target_loop`.

    The producer loops down to `from_loop` merge with the consumer loops down to
    `target_loop` (same depth, equal trip counts; the consumer's loops and names stay) and the
    body of `from_loop` runs at the start of `target_loop`'s body. Before / after
    (`compute_at("j", "jj")`)::

        for i: for j: B[i, j] = A[i, j] + 1          for ii: for jj:
        for ii: for jj: C[ii, jj] = B[ii, jj] * 2        B[ii, jj] = A[ii, jj] + 1
                                                        C[ii, jj] = B[ii, jj] * 2

    Legal only when every buffer the producer writes (and anything else reads) is stored at
    the merged loop variables and read by the consumer only at the current merged iteration,
    inside `target_loop`; nothing between the two nests touches it.
    """
    src = find_loop(func, from_loop, "compute_at", "from_loop")
    dst = find_loop(func, target_loop, "compute_at", "target_loop")
    src = _fuse_siblings(func, src, dst)
    sp, dp = V.loop_path(func, src), V.loop_path(func, dst)
    c = 0
    while c < min(len(sp), len(dp)) and sp[c] is dp[c]:
        c += 1
    if c == len(sp) or c == len(dp):
        raise _err("target_loop", f"loops {src.name!r} and {dst.name!r} are nested in one another")
    prod, cons = sp[c:], dp[c:]
    body, p_pos = V.parent_list(func, prod[0])
    body2, c_pos = V.parent_list(func, cons[0])
    if body is not body2 or p_pos > c_pos:
        raise _err("from_loop", f"the nest of {src.name!r} must come before the nest of {dst.name!r} "
                                "in the same block")
    if len(prod) != len(cons):
        raise _err("target_loop", f"{src.name!r} is at depth {len(prod)} of its nest but {dst.name!r} is at "
                                  f"depth {len(cons)}; compute_at merges loops level by level")
    perfect_chain("compute_at", "from_loop", prod[0], src)
    for a, b in zip(cons, cons[1:]):
        if not any(s is b for s in a.body):
            raise _err("target_loop", f"loop {b.name!r} is not directly inside loop {a.name!r}")
    for p, q in zip(prod, cons):
        n, m = R.trip_count(p), R.trip_count(q)
        if n is None or m is None or n != m:
            raise _err("target_loop", f"loop {p.name!r} ({_extent(p)}) and loop {q.name!r} ({_extent(q)}) "
                                      "must have equal constant extents")
    _check_legal(func, body, p_pos, c_pos, prod, cons, dst)

    mapping = {}
    for p, q in zip(prod, cons):
        pos = R.floordiv(R.sub(q.var, R.as_int(q.lb)), q.step)
        mapping[p.var] = R.add(R.mul(pos, p.step), R.as_int(p.lb))
    moved = src.body
    V.subst_stmts(moved, mapping)
    band = prod[0].attrs.get(OP_NAME)
    loops_moved = [s for s in moved if isinstance(s, N.For)]
    if band is not None and len(loops_moved) == 1 and OP_NAME not in loops_moved[0].attrs:
        loops_moved[0].attrs[OP_NAME] = band  # keep handles like "S_i_j_0/k" valid
    dst.body = moved + dst.body
    del body[p_pos]


def _fuse_siblings(func, src, dst) -> N.For:
    """Make the producer nest down to `src` perfect: where a loop of it holds several loops (an
    earlier compute_at put the first beside the second), fuse each into the next one, as
    `compute_at(a, b)` does one level deep (with its legality checks). Returns the loop that now
    holds `src`'s body (`src`, or the sibling it was fused into). Upstream Allo's
    `compute_at("m", "mmm")` after `compute_at("j", "jj")` on three nests computes both earlier
    stages at `mmm` this way."""
    dpath = V.loop_path(func, dst)
    while True:
        path = V.loop_path(func, src)
        split = next((k for k, lp in enumerate(path[:-1])
                      if len(lp.body) > 1 and not any(lp is q for q in dpath)), None)
        if split is None:
            return src
        loops = path[split].body
        if not all(isinstance(st, N.For) for st in loops):
            return src  # perfect_chain names the statement in the way
        for a, b in zip(list(loops), list(loops)[1:]):
            try:
                compute_at(func, a, b)
            except ScheduleError as e:
                raise _err("from_loop", f"loops {path[0].name!r} .. {src.name!r} are not a perfect nest, and the "
                                        f"loops inside {path[split].name!r} cannot be fused to make one: "
                                        f"{str(e).partition(': ')[2]}") from None
            if a is src:
                src = b  # src itself was fused into its next sibling


def _extent(loop):
    n = R.trip_count(loop)
    return f"{n} iterations" if n is not None else "non-constant bounds"


def _check_legal(func, block, p_pos, c_pos, prod, cons, dst):
    producer, consumer = block[p_pos], block[c_pos]
    between = block[p_pos + 1: c_pos]
    written = E.writes([producer])
    read = E.reads([producer])
    cons_written = E.writes([consumer])
    between_written = E.writes(between)
    for bid, buf in read.items():
        if bid in written:
            continue
        if bid in cons_written or bid in between_written:
            raise _err("from_loop", f"the producer reads {buf.name!r}, which is written after it "
                                    "(by the consumer or in between)")
    outside = [s for s in _all_except(func.body, producer)]
    for buf in written.values():
        loads, stores, calls = E.accesses(outside, buf)
        if not (loads or stores or calls):
            continue  # private to the producer (e.g. a temporary)
        if any(E.uses_buffer(s, buf) for s in between):
            raise _err("from_loop", f"{buf.name!r} is used between the producer and the consumer")
        dims = _store_dims(buf, producer, prod)
        c_loads, c_stores, c_calls = E.accesses([consumer], buf)
        inner = {id(lp.var): lp for lp, _ in V.iter_loops(dst.body)}
        # a consumer updating the merged iteration's elements (an accumulation after the producer's
        # initialisation) touches nothing a later producer iteration writes
        if c_calls or not all(any(x is st for x in V.walk_stmts(dst.body)) and all(
                _within(st.indices[d], q.var, inner, c) or (c == 1 and st.indices[d] is q.var)
                for (d, c), q in zip(dims, cons)) for st in c_stores):
            raise _err("target_loop", f"the consumer also writes {buf.name!r} outside the merged iteration's elements")
        inside = {id(x) for x in E.accesses(dst.body, buf)[0]}
        for ld in c_loads:
            ok = id(ld) in inside and isinstance(ld, N.Load) and all(
                (c == 1 and ld.indices[d] is q.var) or _within(ld.indices[d], q.var, inner, c)
                for (d, c), q in zip(dims, cons))
            if not ok:
                raise _err("target_loop", f"the consumer reads {buf.name!r} at elements other than the one the "
                                          f"merged iteration produces (it must read {buf.name}[...] at the "
                                          f"variables of {', '.join(q.name for q in cons)}, inside {dst.name!r})")


def _store_dims(buf, producer, prod) -> list:
    """For each merged producer loop, the dimension of `buf` its stores index with that loop's
    variable (the same for every store); raises otherwise."""
    loads, stores, calls = E.accesses([producer], buf)
    if calls:
        raise _err("from_loop", f"the producer passes {buf.name!r} to a call")
    dims = []
    inner = {id(lp.var): lp for lp, _ in V.iter_loops(prod[-1].body)}
    guarded = any(isinstance(x, N.If) for x in V.walk_stmts(prod[-1].body))
    for p in prod:
        cand = [d for d, e in enumerate(stores[0].indices) if e is p.var]
        good = [(d, 1) for d in cand if all(st.indices[d] is p.var for st in stores)]
        if not good and not guarded:  # split loops: p.var * f + inner, the inner loop covering [0, f)
            for d in range(len(stores[0].indices)):
                blocks = {_block(st.indices[d], p.var, inner) for st in stores}
                if len(blocks) == 1 and (b := blocks.pop()) is not None and b[1:] == (0, b[0] - 1) and \
                        all(_covers(st.indices[d], p.var, inner) for st in stores):
                    good.append((d, b[0]))
        if not good:
            raise _err("from_loop", f"the producer's stores to {buf.name!r} are not indexed by loop {p.name!r} "
                                    "in one dimension")
        dims.append(good[0])
    return dims


def _block(e, var, inner):
    """(c, lo, hi) when index `e` is `c * var + rest` (c > 0), rest an affine form of the loops `inner`
    ({id(var): For}) taking values in [lo, hi]; None otherwise."""
    aff = R.affine(e)
    if aff is None or id(var) not in aff[0] or aff[0][id(var)][1] <= 0:
        return None
    lo = hi = aff[1]
    for key, (v, k) in aff[0].items():
        if key == id(var):
            continue
        lp = inner.get(key)
        n, lb = (R.trip_count(lp), R.as_int(lp.lb)) if lp is not None else (None, None)
        if n is None or lb is None or n < 1:
            return None
        ends = (k * lb, k * (lb + (n - 1) * lp.step))
        lo, hi = lo + min(ends), hi + max(ends)
    return aff[0][id(var)][1], lo, hi


def _covers(e, var, inner) -> bool:
    """`e` = c * var + w with w one inner loop (step 1) running over exactly [0, c)."""
    terms = R.affine(e)[0]
    rest = [(key, k) for key, (v, k) in terms.items() if key != id(var)]
    return len(rest) == 1 and rest[0][1] == 1 and R.affine(e)[1] == 0 and inner[rest[0][0]].step == 1


def _within(e, var, inner, c) -> bool:
    b = _block(e, var, inner)
    return b is not None and b[0] == c and b[1] >= 0 and b[2] <= c - 1


def _all_except(body, skip):
    """Top-level-like statement list: every statement of `body` tree except the subtree `skip`."""
    out = []
    for s in body:
        if s is skip:
            continue
        if isinstance(s, (N.For, N.While)):
            out.append(_shell(s, _all_except(s.body, skip)))
        elif isinstance(s, N.If):
            out.append(N.If(s.cond, _all_except(s.then, skip), _all_except(s.orelse, skip)))
        else:
            out.append(s)
    return out


def _shell(s, body):
    if isinstance(s, N.For):
        return N.For(s.var, s.lb, s.ub, s.step, body, s.name, s.attrs, s.loc)
    return N.While(s.cond, body, s.loc)
