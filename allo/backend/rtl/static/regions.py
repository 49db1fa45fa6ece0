"""Which parts of a shared array each process of a dataflow region touches, so processes that use
disjoint parts run concurrently, each through its own banks (and so its own port set).

After inlining, an instance's accesses have indices made of its constant pid numbers and its loop
variables: PE (1, 2) of a systolic array writes `C[0, 1]`, tile (pi, pj) of a tiled GEMM the rows
`pi * Mt .. pi * Mt + Mt - 1`. `footprints` gives per process and array the index range per
dimension (a hull over all its accesses; None where an index is not affine in constant-bound
loops). Two processes whose ranges are apart along some dimension share no element
(`disjoint`), so they need no order between them; `partitions` splits such a dimension
(complete when every process hits single indices, block when the ranges are equal aligned
blocks) so that their accesses also land in different banks.

Example::

    fp = footprints(groups)            # [{id(C): [(0, 0), (1, 1)], ...}, ...] one dict per process
    disjoint(fp[3][id(C)], fp[4][id(C)])  # True: rows 0 and 1 of C
    partitions(fp, bufs)               # {id(C): [(Partition.Complete, 1, 0), (Partition.Complete, 2, 0)]}
"""
from __future__ import annotations

from ....ir import nodes as N
from ....ir import visit as V
from ....ir.attrs import STREAM, Partition
from ....qor.affine import index_aff
from .memories import dim_parts

MAX_COMPLETE = 64  # at most this many banks along a dimension split completely for its processes


def footprints(groups) -> list:
    """Per process (statement group): {id(buffer): per-dimension (lo, hi) or None}."""
    out = []
    for g in groups:
        fp = {}
        _walk(g, {}, fp)
        out.append(fp)
    return out


def footprint(body, ranges) -> dict:
    """{id(buffer): per-dimension (lo, hi) or None} of statements, with the value ranges
    `ranges` ({id(var): (lo, hi)}) of the variables around them."""
    fp = {}
    _walk(body, dict(ranges), fp)
    return fp


def _walk(body, ranges, fp):
    for s in body:
        if isinstance(s, N.For):
            lb, ub = index_aff(s.lb, {}), index_aff(s.ub, {})
            inner = dict(ranges)
            if lb is not None and ub is not None:
                lo, hi = _extreme(lb, ranges, True), _extreme(ub, ranges, False) - 1
                if lo is not None and hi is not None:
                    inner[id(s.var)] = (lo, max(lo, hi))
            _walk(s.body, inner, fp)
            continue
        for role, b in V.buffer_refs(s):
            if b.shape and not b.attrs.get(STREAM) and role not in (V.STORE, V.LOAD, V.DECLARE):
                _add(fp, b, [None] * len(b.shape))  # a whole-array use (copy, call, return)
        if isinstance(s, N.Store) and s.buf.shape and not s.buf.attrs.get(STREAM):
            _add(fp, s.buf, [_range(i, ranges) for i in s.indices])
        for e in V.stmt_exprs(s):
            for x in V.walk_expr(e):
                if isinstance(x, N.Load) and x.buf.shape and not x.buf.attrs.get(STREAM):
                    _add(fp, x.buf, [_range(i, ranges) for i in x.indices])
        for blk in V.blocks(s):
            _walk(blk, ranges, fp)


def _range(e, ranges):
    a = index_aff(e, {})
    if a is None:
        return None
    lo, hi = _extreme(a, ranges, True), _extreme(a, ranges, False)
    return None if lo is None or hi is None else (lo, hi)


def _extreme(a, ranges, low):
    total = a.const
    for k, c in a.coefs.items():
        if k not in ranges:
            return None  # a variable without a known range (a while loop, a run-time bound)
        lo, hi = ranges[k]
        total += min(c * lo, c * hi) if low else max(c * lo, c * hi)
    return total


def _add(fp, buf, dims):
    cur = fp.get(id(buf))
    if cur is None:
        fp[id(buf)] = list(dims)
        return
    fp[id(buf)] = [None if a is None or b is None else (min(a[0], b[0]), max(a[1], b[1])) for a, b in zip(cur, dims)]


def disjoint(a, b) -> bool:
    """Do two footprints of one array miss each other along some dimension?"""
    return a is not None and b is not None and any(
        x is not None and y is not None and (x[1] < y[0] or y[1] < x[0]) for x, y in zip(a, b))


def partitions(fps, bufs) -> dict:
    """{id(buffer): [(Partition, dim (1-based), factor)]} splitting arrays that several processes
    touch along the dimensions where their ranges are apart (see module doc). Dimensions the
    schedule already partitions are left as they are."""
    out = {}
    for bid, buf in bufs.items():
        users = [fp[bid] for fp in fps if bid in fp]
        if len(users) < 2:
            continue
        own = dim_parts(buf)
        for d, n in enumerate(buf.shape):
            spans = {u[d] for u in users}
            if own[d] is not None or None in spans or len(spans) < 2 or not _apart(spans):
                continue
            if all(lo == hi for lo, hi in spans) and n <= MAX_COMPLETE:
                out.setdefault(bid, []).append((Partition.Complete, d + 1, 0))
                continue
            size = {hi - lo + 1 for lo, hi in spans}
            if len(size) == 1:
                (k,) = size
                if n % k == 0 and all(lo % k == 0 for lo, _ in spans) and n // k > 1:
                    out.setdefault(bid, []).append((Partition.Block, d + 1, n // k))
    return out


def _apart(spans) -> bool:
    s = sorted(spans)
    return all(a[1] < b[0] for a, b in zip(s, s[1:]))


__all__ = ["footprints", "footprint", "disjoint", "partitions"]
