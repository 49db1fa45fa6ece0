"""Memory primitives: partition (an attribute), buffer_at and reuse_at (real rewrites).

Each mutates a `nodes.Func` in place and raises ScheduleError naming the primitive and the
argument before touching the IR when it cannot apply.
"""
from __future__ import annotations

from ..errors import ScheduleError
from ..ir import effects as E, nodes as N, visit as V
from ..ir.attrs import FILL, OP_NAME, PARTITION, PIPELINE_II, REUSE, UNROLL, Partition
from ..ir.loops import find_buffer, find_loop
from ..ir.ops import BinOpKind
from ..ir.types import ArrayType, is_bool, is_fixed, is_float
from . import rewrite as R
from .kinds import POSITIVE
from .rewrite import fresh_loop_name, fresh_op_name


def _err(prim, arg, msg):
    return ScheduleError(f"{prim}: argument '{arg}': {msg}")


# ----------------------------------------------------------------------------- partition
def partition(func: N.Func, buffer, kind=Partition.Complete, dim=0, factor=0) -> None:
    """Append `(kind, dim, factor)` to `Buffer.attrs["partition"]` (an HLS array partition).

    kind: "complete" | "block" | "cyclic" (the declared kind also takes an enum whose `name` is one
    of them); dim: 1-based dimension, 0 = all; factor: > 0 for block/cyclic (ignored for complete).
    Example: `partition(f, "A", "cyclic", dim=2, factor=4)`.
    """
    buf = find_buffer(func, buffer, "partition", "target")
    if not buf.shape:
        raise _err("partition", "target", f"{buf.name!r} is a scalar; only arrays can be partitioned")
    if dim > len(buf.shape):
        raise _err("partition", "dim", f"buffer {buf.name!r} has rank {len(buf.shape)}; "
                                       f"dim must be in 0..{len(buf.shape)} (0 = all), got {dim}")
    kind = Partition(kind)
    factor = 0 if kind == Partition.Complete else POSITIVE.check("partition", "factor", factor)
    buf.attrs.setdefault(PARTITION, []).append((kind, dim, factor))


# ----------------------------------------------------------------------------- shared helpers
def _copy_nest(func, names, extents, make_stmt, loc, attrs=None):
    """Loops named `names` over range(extent) around `make_stmt(vars)`; op_name on the top."""
    vars_ = [N.IterVar(R.sanitize(n)) for n in names]
    stmt = make_stmt(vars_)
    body = stmt if isinstance(stmt, list) else [stmt]
    for v, n, ext in reversed(list(zip(vars_, names, extents))):
        body = [N.For(v, R.const(0), R.const(ext), 1, body, n, dict(attrs or {}), loc)]
    if names:
        body[0].attrs[OP_NAME] = fresh_op_name(func, names)
    return body


def _insert_alloc(func, stmt, buf, loc, zero=False):
    """Declare `buf` just before the top-level statement containing `stmt` (outside every
    loop, so the memory is allocated once), zero-filled if asked."""
    top = V.top_level_stmt(func, stmt)
    pos = next(k for k, s in enumerate(func.body) if s is top)
    init = N.Const(_zero(buf.dtype), buf.dtype, loc) if zero else None
    func.body.insert(pos, N.Alloc(buf, init, loc))


def _zero(t):
    if is_float(t) or is_fixed(t):
        return 0.0
    return False if is_bool(t) else 0


def _only_loads(prim, loads, buf, lp):
    for ld in loads:
        if not isinstance(ld, N.Load):
            raise _err(prim, "target", f"buffer {buf.name!r} is copied whole inside loop {lp.name!r}")


# ----------------------------------------------------------------------------- buffer_at
def buffer_at(func: N.Func, buffer, loop) -> N.Buffer:
    """Keep the slice of `buffer` that one iteration of `loop` works on in a local buffer.

    Before / after (`buffer_at(C, "i")` on a gemm)::

        for i:                           for i:
            for j:                           for j_init: C_buf[j_init] = C[i, j_init]
                for k:                       for j:
                    C[i, j] += ...               for k: C_buf[j] += ...
                                             for j_back: C[i, j_back] = C_buf[j_back]

    Dimensions indexed identically by every access with loop-invariant expressions are
    fixed; a dimension indexed `base + inner` (base from loops outside `loop`, inner offsets from
    loops inside it with constant bounds, as after `split`) keeps only the tile the inner loops
    address (`buffer_at(C, "j.outer")` after splitting i and j by 4 buffers a 4x4 tile); the
    others are kept (full extent). When `buffer` is a local whose initial value is
    a constant and each iteration of a top-level `loop` owns its own slice, the init loop
    stores that constant instead of reading the buffer (the seed's `j_init`).
    A buffer only read inside `loop` gets the copy-in loops and no write-back.
    Returns the new Buffer (named "<buffer>_buf").
    """
    lp = find_loop(func, loop, "buffer_at", "axis")
    buf = find_buffer(func, buffer, "buffer_at", "target")
    loads, stores, calls = E.accesses(lp.body, buf)
    if calls:
        raise _err("buffer_at", "target", f"buffer {buf.name!r} is passed to a call or returned inside loop {lp.name!r}")
    if not stores and not loads:
        raise _err("buffer_at", "target", f"buffer {buf.name!r} is not accessed inside loop {lp.name!r}")
    _only_loads("buffer_at", loads, buf, lp)
    if any(isinstance(s, N.Alloc) and s.buf is buf for s in V.walk_stmts(lp.body)):
        raise _err("buffer_at", "target", f"buffer {buf.name!r} is declared inside loop {lp.name!r}")
    inner = R.bound_vars(lp.body)
    access_idx = [x.indices for x in loads + stores]
    fixed = []
    for d in range(len(buf.shape)):
        first = access_idx[0][d]
        fixed.append(all(R.expr_equal(first, idx[d]) for idx in access_idx) and not E.has_load(first)
                     and not (R.expr_vars(first).keys() & inner.keys()))
    kept = [d for d in range(len(buf.shape)) if not fixed[d]]
    fixed_exprs = {d: access_idx[0][d] for d in range(len(buf.shape)) if fixed[d]}
    tiles = {d: t for d in kept for t in [_tile(func, lp, buf.shape[d], [idx[d] for idx in access_idx])] if t}
    init_value = _initial_value(func, lp, buf, fixed_exprs) if not tiles and stores else None

    taken = {b.name for b in V.iter_buffers(func)}
    extents = [tiles[d].extent if d in tiles else buf.shape[d] for d in kept]
    local = N.Buffer(R.fresh_name(taken, f"{buf.name}_buf"), ArrayType(buf.dtype, tuple(extents)),
                     "local", loc=buf.loc)
    var_loops = {id(s.var): s.name for s in V.walk_stmts(lp.body) if isinstance(s, N.For)}
    bases = []
    for k, d in enumerate(kept):
        e = tiles[d].name_var if d in tiles else (stores or loads)[0].indices[d]
        bases.append(var_loops.get(id(e), f"{local.name}_d{k}") if isinstance(e, N.IterVar) else f"{local.name}_d{k}")

    def full_index(vars_):
        it = iter(vars_)
        return [tiles[d].source(next(it)) if d in tiles else next(it) if d in kept else V.copy_expr(fixed_exprs[d])
                for d in range(len(buf.shape))]

    def in_bounds(vars_):
        return R.land([c for d, v in zip(kept, vars_) if d in tiles for c in tiles[d].guard(v)])

    def guarded(vars_, stmt):
        cond = in_bounds(vars_)
        return N.If(cond, [stmt], loc=lp.loc) if cond is not None else stmt

    def init_stmt(vars_):
        value = V.copy_expr(init_value) if init_value is not None else N.Load(buf, full_index(vars_), loc=lp.loc)
        return guarded(vars_, N.Store(local, list(vars_), value, loc=lp.loc))

    def back_stmt(vars_):
        return guarded(vars_, N.Store(buf, full_index(vars_), N.Load(local, list(vars_), loc=lp.loc),
                                      loc=stores[-1].loc))

    init_names = [fresh_loop_name(func, f"{b}_init") for b in bases]
    init_names = _distinct(func, init_names)
    init = _copy_nest(func, init_names, extents, init_stmt, lp.loc)
    back = []
    if stores:  # a read-only buffer needs no write-back (upstream Allo's input buffers of a systolic PE)
        back_names = _distinct(func, [fresh_loop_name(func, f"{b}_back", init_names) for b in bases])
        back = _copy_nest(func, back_names, extents, back_stmt, lp.loc)

    target = _guarded_body(lp, buf)
    for x in loads + stores:
        x.buf = local
        x.indices = [tiles[d].local(x.indices[d]) if d in tiles else x.indices[d] for d in kept]
    target[:] = init + target + back
    _insert_alloc(func, lp, local, lp.loc)
    return local


class _Tile:
    """One dimension of `buffer_at`'s slice that the loops inside the buffered loop address as
    `base + inner` (`i.outer * 4 + i.inner` after a split): `base` uses only loops outside it, the
    `inner` offsets span `extent` elements from `lo` (e.g. the 4 rows of a 4x4 tile)."""

    def __init__(self, base, lo, extent, limit, name_var, safe):
        self.base, self.lo, self.extent, self.limit, self.name_var, self.safe = base, lo, extent, limit, name_var, safe

    def source(self, v):
        """The element of the original buffer that tile position `v` holds."""
        e = R.add(v, self.lo)
        for var, coeff in self.base:
            e = R.add(R.mul(var, coeff), e)
        return e

    def local(self, e):
        """An access index `base + inner` as a position inside the tile: `inner - lo`."""
        terms, const = R.affine(e)
        out = R.const(const - self.lo)
        base_ids = {id(v) for v, _ in self.base}
        for key, (var, coeff) in terms.items():
            if key not in base_ids:
                out = R.add(R.mul(var, coeff), out)
        return out

    def guard(self, v):
        """Conditions keeping a copy inside the original buffer (a split that does not divide
        leaves a partial last tile)."""
        if self.safe:
            return []
        return [R.cmp(BinOpKind.GE, self.source(v), 0), R.cmp(BinOpKind.LT, self.source(v), self.limit)]


def _tile(func, lp, extent, indices):
    """The `_Tile` of one buffered dimension, or None when every access must keep the full extent
    (an index that is not affine, bases that differ between accesses, or no smaller tile)."""
    inner = {id(s.var): s for s in V.walk_stmts(lp.body) if isinstance(s, N.For)}
    base, lo, hi = None, None, None
    for e in indices:
        aff = R.affine(e)
        if aff is None or E.has_load(e):
            return None
        terms, const = aff
        outer = {k: c for k, (_, c) in terms.items() if k not in inner}
        if base is not None and outer != base[0]:
            return None
        base = (outer, [(v, c) for k, (v, c) in terms.items() if k not in inner])
        a = b = const
        for k, (_, coeff) in terms.items():
            if k not in inner:
                continue
            loop_ = inner[k]
            n = R.trip_count(loop_)
            if not n:
                return None
            ends = (coeff * R.as_int(loop_.lb), coeff * (R.as_int(loop_.lb) + (n - 1) * loop_.step))
            a, b = a + min(ends), b + max(ends)
        lo, hi = (a, b) if lo is None else (min(lo, a), max(hi, b))
    if not base[1] or hi - lo + 1 >= extent:
        return None
    terms = R.affine(indices[0])[0]
    inner_vars = [v for k, (v, _) in terms.items() if k in inner]
    name_var = inner_vars[0] if len(inner_vars) == 1 else None
    rng = _base_range(func, lp, base[1])
    safe = rng is not None and rng[0] + lo >= 0 and rng[1] + hi < extent
    return _Tile(base[1], lo, hi - lo + 1, extent, name_var, safe)


def _base_range(func, lp, base):
    """(min, max) of sum(coeff * var) over the constant-bounded loops enclosing `lp` (and `lp`), else None."""
    loops = {id(s.var): s for s in V.loop_path(func, lp)}
    lo = hi = 0
    for var, coeff in base:
        s = loops.get(id(var))
        n = R.trip_count(s) if s is not None else None
        if not n:
            return None
        ends = (coeff * R.as_int(s.lb), coeff * (R.as_int(s.lb) + (n - 1) * s.step))
        lo, hi = lo + min(ends), hi + max(ends)
    return lo, hi


def _guarded_body(lp, buf) -> list:
    """The statement list the iteration's accesses to `buf` live in: the loop body, or the body
    of the lone `if` (e.g. the guard a non-dividing split left) holding all of them, even when
    other statements (a reuse_at fill) sit beside it: copies outside the guard could index out
    of bounds, and when the guard fails the iteration touches no element of `buf`."""
    body = lp.body
    while True:
        touching = [s for s in body if any(E.accesses([s], buf))]
        if len(touching) != 1 or not isinstance(touching[0], N.If) or touching[0].orelse:
            return body
        if E.loads_from([touching[0].cond], buf):
            return body
        body = touching[0].then


def _distinct(func, names):
    """Make names unique among themselves too (two kept dims may share a base)."""
    out = []
    for n in names:
        out.append(R.fresh_name(set(out), n))
    return out


def _initial_value(func, lp, buf, fixed_exprs):
    """The constant every element of this iteration's slice holds when the iteration starts,
    if provable (else None): `buf` is a local with a constant initialiser declared at top
    level before the top-level loop `lp`, never written outside `lp`, and the slice is
    selected by `lp`'s own variable, so no earlier iteration touched it."""
    if buf.kind != "local" or not any(s is lp for s in func.body):
        return None
    allocs = [s for s in V.walk_stmts(func.body) if isinstance(s, N.Alloc) and s.buf is buf]
    if len(allocs) != 1 or not any(s is allocs[0] for s in func.body):
        return None
    init = allocs[0].init
    if not isinstance(init, N.Expr) or E.has_load(init) or R.expr_vars(init):
        return None
    ids = [id(s) for s in func.body]
    if ids.index(id(allocs[0])) > ids.index(id(lp)):
        return None
    others = [s for s in func.body if s is not lp]
    if id(buf) in E.writes(others):
        return None
    if not any(e is lp.var for e in fixed_exprs.values()):
        return None
    return init if init.type == buf.dtype else N.Cast(init, buf.dtype, init.loc)


# ----------------------------------------------------------------------------- reuse_at
def reuse_at(func: N.Func, buffer, loop) -> N.Buffer:
    """Read a sliding stencil window of `buffer` along `loop` from a reuse buffer.

    All reads of `buffer` inside `loop` (variable y) must be `buffer[.., y + c, ..]` in one
    dimension, with offsets c in [cmin, cmax] (K = cmax - cmin + 1 rows); an offset is a
    constant or involves loops inside `loop` with constant bounds (`A[y + r, x + s]` of a
    convolution with window loops r, s). The loop is
    extended to start cmin earlier and end cmax later; each iteration shifts the reuse buffer
    by one row and loads the newest row, and the original body runs (guarded) K-1 iterations
    behind. Before / after (3x3 blur, `reuse_at(A, "y")`)::

        for y in range(8):               for y in range(0, 10):
            for x in range(8):               for c in range(10):
                B[y, x] = sum A[y+r, x+s]        for s in range(2): R[s, c] = R[s+1, c]
                                                 R[2, c] = A[y, c]
                                             if y >= 2:
                                                 for x in range(8):
                                                     B[y-2, x] = sum R[r, x+s]

    Dimensions read with one loop-invariant index are dropped from the reuse buffer; others
    keep their full extent. Chaining `reuse_at(R, "x")` gives the 3x3 window buffer.
    A strided window (`A[2*y + r, ...]`, stride s) works the same way over the source rows: the
    loop visits every row, and the body of iteration y runs once row s*y + cmax has arrived.
    Returns the reuse Buffer (named "<buffer>_reuse_<loop>").
    """
    lp = find_loop(func, loop, "reuse_at", "axis")
    src = find_buffer(func, buffer, "reuse_at", "target")
    if lp.step != 1:
        raise _err("reuse_at", "axis", f"loop {lp.name!r} has step {lp.step}; reuse needs step 1")
    loads, stores, calls = E.accesses(lp.body, src)
    if stores or calls:
        raise _err("reuse_at", "target", f"buffer {src.name!r} is written inside loop {lp.name!r}")
    if not loads:
        raise _err("reuse_at", "target", f"buffer {src.name!r} is not read inside loop {lp.name!r}")
    _only_loads("reuse_at", loads, src, lp)
    inner = R.bound_vars(lp.body)
    fold = _FoldScalars(_constant_scalars(func))
    for ld in loads:  # `stride: index = 1` set once and never written again reads as the constant
        ld.indices = [fold.expr(e) for e in ld.indices]
    rdim, per_load, row, stride = _stencil_offsets(lp, src, loads)
    lo, hi = min(p[0] for p in per_load), max(p[1] for p in per_load)
    k_rows = hi - lo + 1
    dropped = {}
    for d in range(len(src.shape)):
        if d == rdim:
            continue
        first = loads[0].indices[d]
        if all(R.expr_equal(first, ld.indices[d]) for ld in loads) and not E.has_load(first) \
                and not (R.expr_vars(first).keys() & inner.keys()):
            dropped[d] = first
    dims = [d for d in range(len(src.shape)) if d not in dropped]
    shape = tuple(k_rows if d == rdim else src.shape[d] for d in dims)
    taken = {b.name for b in V.iter_buffers(func)}
    rbuf = N.Buffer(R.fresh_name(taken, f"{src.name}_reuse_{R.sanitize(lp.name)}"), ArrayType(src.dtype, shape),
                    "local", loc=src.loc)
    rbuf.attrs[REUSE] = True  # its contents carry state across iterations: loop order is fixed
    # the extended loop visits every source row from stride*lb + lo to stride*(ub - 1) + hi
    first_row, last_row = R.add(R.mul(V.copy_expr(lp.lb), stride), lo), R.add(R.mul(R.sub(lp.ub, 1), stride), hi)
    fill = _fill_stmts(func, lp, src, rbuf, rdim, dims, dropped, k_rows, (first_row, last_row), row)

    for ld, (_, _, terms, const) in zip(loads, per_load):
        ld.indices = [_slot(terms, const, lo) if d == rdim else ld.indices[d] for d in dims]
        ld.buf = rbuf
    body = lp.body
    # the body of original iteration y runs once row stride*y + hi has arrived
    V.subst_stmts(body, {lp.var: R.floordiv(R.sub(lp.var, hi), stride)})
    guard_lb = R.add(R.mul(V.copy_expr(lp.lb), stride), hi)
    lp.lb, lp.ub = first_row, R.add(V.copy_expr(last_row), 1)
    conds = [R.cmp(BinOpKind.GE, lp.var, guard_lb)] if k_rows > 1 or stride > 1 else []
    if stride > 1:
        conds.append(R.cmp(BinOpKind.EQ, R.mod(R.sub(lp.var, guard_lb), stride), 0))
    if conds:
        body = [N.If(R.land(conds), body, loc=lp.loc)]
    lp.body = fill + body
    # Zero-filled: rows beyond the source's edges are never loaded (nor read by the body), and
    # C++ compilers cannot prove that.
    _insert_alloc(func, lp, rbuf, lp.loc, zero=True)
    return rbuf


def _stencil_offsets(lp, src, loads):
    """Analyse the reads along `lp`: (the dimension indexed by lp.var, per-load (lowest offset,
    highest offset, offset terms, constant), the row index expression without offsets).

    A read's row index must be `lp.var + base + off` where `base` uses loops outside `lp` (the
    same in every read) and `off` is a constant plus multiples of loops inside `lp` with
    constant bounds (e.g. the `r` of a convolution window `A[y + r, x + s]`)."""
    inner_loops = {id(s.var): s for s in V.walk_stmts(lp.body) if isinstance(s, N.For)}
    rdim, base, per_load, stride = None, None, [], None
    bad = _err("reuse_at", "axis", f"a read of {src.name!r} is not a stencil access '{lp.name} + offset' "
                                   f"along loop {lp.name!r} (offsets must be constants or loops with constant bounds)")
    for ld in loads:
        dims = [d for d, e in enumerate(ld.indices) if id(lp.var) in R.expr_vars(e)]
        if len(dims) != 1 or (rdim is not None and dims[0] != rdim):
            raise _err("reuse_at", "axis", f"reads of {src.name!r} must index exactly one (the same) dimension "
                                           f"with loop variable {lp.name!r}")
        rdim = dims[0]
        aff = R.affine(ld.indices[rdim])
        if aff is None or aff[0][id(lp.var)][1] < 1 or stride not in (None, aff[0][id(lp.var)][1]):
            raise bad
        stride = aff[0][id(lp.var)][1]
        outer = {k: t for k, t in aff[0].items() if k != id(lp.var) and k not in inner_loops}
        if base is not None and {k: c for k, (_, c) in outer.items()} != {k: c for k, (_, c) in base.items()}:
            raise bad
        base = outer
        lo = hi = aff[1]
        terms = [t for k, t in aff[0].items() if k in inner_loops]
        for v, coeff in terms:
            loop_ = inner_loops[id(v)]
            n = R.trip_count(loop_)
            if not n:
                raise bad
            ends = (coeff * R.as_int(loop_.lb), coeff * (R.as_int(loop_.lb) + (n - 1) * loop_.step))
            lo, hi = lo + min(ends), hi + max(ends)
        per_load.append((lo, hi, terms, aff[1]))
    row = lp.var
    for v, coeff in base.values():
        row = R.add(row, R.mul(v, coeff))
    return rdim, per_load, row, stride


def _constant_scalars(func) -> dict:
    """{id(scalar local): its value} for rank-0 locals given an integer constant once, at the top
    level of the function, and never written or passed to a call afterwards."""
    out = {}
    for k, s in enumerate(func.body):
        if not isinstance(s, N.Alloc) or s.buf.shape or s.buf.kind != "local":
            continue
        loads, stores, calls = E.accesses(func.body, s.buf)
        value = R.as_int(s.init) if isinstance(s.init, N.Expr) else None
        if calls or len(stores) > (0 if value is not None else 1):
            continue
        if stores:
            if k + 1 >= len(func.body) or func.body[k + 1] is not stores[0] or stores[0].indices:
                continue  # only `x: T = c` (its store right after the declaration)
            value = R.as_int(stores[0].value)
        if value is not None:
            out[id(s.buf)] = value
    return out


class _FoldScalars(V.Rewriter):
    """Expressions with the loads of the constant scalars ({id(buffer): value}) replaced by their values."""

    def __init__(self, consts):
        self.consts = consts

    def rewrite_Load(self, e):
        return N.Const(self.consts[id(e.buf)], e.type, e.loc) if not e.indices and id(e.buf) in self.consts else e


def _slot(terms, const, lo):
    """The reuse-buffer row a read lands in: its offset minus the lowest offset."""
    e = R.const(const - lo)
    for v, coeff in terms:
        e = R.add(R.mul(v, coeff), e)
    return e


def _fill_stmts(func, lp, src, rbuf, rdim, dims, dropped, k_rows, rows, row):
    """Per iteration of the extended loop: shift the reuse buffer one row and load the new row."""
    col_dims = [d for d in dims if d != rdim]
    names = _distinct(func, [fresh_loop_name(func, f"{rbuf.name}_c{k}") for k in range(len(col_dims))])
    shift_name = fresh_loop_name(func, f"{rbuf.name}_shift", names)
    pos = dims.index(rdim)

    def at(cols, slot):
        idx = list(cols)
        idx.insert(pos, slot)
        return idx

    def make(vars_):
        stmts = []
        if k_rows > 1:
            s = N.IterVar(R.sanitize(shift_name))
            move = N.Store(rbuf, at(vars_, s), N.Load(rbuf, at(vars_, R.add(s, 1)), loc=lp.loc), loc=lp.loc)
            stmts.append(N.For(s, R.const(0), R.const(k_rows - 1), 1, [move], shift_name, {UNROLL: 0}, lp.loc))
        it = iter(vars_)
        src_idx = [V.copy_expr(row) if d == rdim else V.copy_expr(dropped[d]) if d in dropped else next(it)
                   for d in range(len(src.shape))]
        load = N.Store(rbuf, at(vars_, R.const(k_rows - 1)), N.Load(src, src_idx, loc=lp.loc), loc=lp.loc)
        guard = _row_guard(lp, row, src.shape[rdim], rows)
        stmts.append(N.If(guard, [load], loc=lp.loc) if guard is not None else load)
        return stmts

    nest = _copy_nest(func, names, [src.shape[d] for d in col_dims], make, lp.loc)
    if not names and nest and isinstance(nest[0], N.For):
        nest[0].attrs[OP_NAME] = fresh_op_name(func, [shift_name])
    if names:
        _pipeline_fill(func, lp, next(x for x in V.walk_stmts(nest) if isinstance(x, N.For) and x.name == names[-1]))
    return nest


def _pipeline_fill(func, lp, inner):
    """Pipeline the innermost column loop of a fill nest at II 1 (unless a loop around `lp` is already
    pipelined: the fill is then unrolled inside it) and tag it with the loop it serves. Without this the
    row fill runs one element per ~9 cycles and a line buffer is slower than none; `pipeline` later
    gives it the II of the loop it serves (loop_transforms.pipeline)."""
    inner.attrs[FILL] = lp.name
    if not any(PIPELINE_II in s.attrs for s in V.loop_path(func, lp)):
        inner.attrs[PIPELINE_II] = 1


def _row_guard(lp, row, extent, rows):
    """`0 <= row < extent` for the rows the extended loop loads (first, last), unless provably in bounds."""
    first, last = R.as_int(rows[0]), R.as_int(rows[1])
    known = row is lp.var or not R.expr_vars(row).keys() - {id(lp.var)}
    conds = []
    if not known or first is None or first < 0:
        conds.append(R.cmp(BinOpKind.GE, V.copy_expr(row), 0))
    if not known or last is None or last >= extent:
        conds.append(R.cmp(BinOpKind.LT, V.copy_expr(row), extent))
    return R.land(conds)


__all__ = ["partition", "buffer_at", "reuse_at"]
