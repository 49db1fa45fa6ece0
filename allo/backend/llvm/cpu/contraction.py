"""Recognise loop nests that map onto a vector micro-kernel ("contractions").

A contraction is a perfect nest with constant bounds whose body is a sequence of updates of one
element `X[idx] = X[idx] <op> rhs` (op in add, sub, max, min; no `rhs` reads X; an unrolled
reduction gives several updates) where
- `idx` is linear and injective over the loops it mentions (the "parallel" loops; the others
  are reductions, kept in their order so every X element sees its updates in the same order),
- one parallel loop `v` walks X contiguously (last index, coefficient 1): it becomes the vector
  lanes; every load in `rhs` that depends on `v` is either contiguous in `v` or can be packed,
- optionally a second parallel loop `u` that no `v`-dependent load mentions: it becomes the
  rows of the register tile (its loads are broadcast).
GEMM `C[i,j] += A[i,k]*B[k,j]` gives v=j, u=i, reductions [k]; a direct convolution
`Y[n,co,oh,ow] += X[n,ci,oh+kh,ow+kw]*W[co,ci,kh,kw]` gives v=ow, u=co, reductions [ci,kh,kw].

Example::

    c = recognise(nest)        # Contraction or None
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ....ir import nodes as N
from ....ir.ops import BinOpKind, UnaryOpKind
from ....ir.types import Float
from .linear import access_forms, injective
from .nests import Nest, const_extent, depends, loads_of, vector_dtype

ACC_OPS = (BinOpKind.ADD, BinOpKind.SUB, BinOpKind.MAX, BinOpKind.MIN)
_COMMUTATIVE = (BinOpKind.ADD, BinOpKind.MAX, BinOpKind.MIN)
VEC_BINOPS = {"f": (BinOpKind.ADD, BinOpKind.SUB, BinOpKind.MUL, BinOpKind.DIV, BinOpKind.MIN, BinOpKind.MAX),
              "i": (BinOpKind.ADD, BinOpKind.SUB, BinOpKind.MUL, BinOpKind.MIN, BinOpKind.MAX)}
MIN_PACK_ROWS = 16  # pack a v-operand only when its packed copy is reused by this many u values


@dataclass(repr=False)
class Contraction:
    nest: Nest
    store: N.Store  # the first update (X and idx)
    updates: list  # [(op, acc_left, rhs)] applied in order each iteration; acc_left: X is the lhs
    v: N.IterVar
    V: int
    u: N.IterVar | None
    U: int
    others: list  # [(For, extent)] parallel loops other than u, v (outermost first)
    reds: list  # [(For, extent)] reduction loops, original order
    packs: list = field(default_factory=list)  # v-dependent Loads copied into packed panels
    contiguous: list = field(default_factory=list)  # v-dependent Loads read in place

    @property
    def dtype(self):
        return self.store.buf.dtype

    def __repr__(self):
        return (f"<Contraction {self.store.buf.name} x{len(self.updates)} v={self.v.name}[{self.V}] "
                f"u={self.u.name if self.u is not None else None}[{self.U}] "
                f"reds={[f.name for f, _ in self.reds]} others={[f.name for f, _ in self.others]} "
                f"packs={[ld.buf.name for ld in self.packs]}>")


def _vectorizable(e, v) -> bool:
    """Can the v-dependent parts of e be computed lane-wise with the vector ops we emit?"""
    if not depends(e, v):
        return True
    if isinstance(e, N.Load):
        return vector_dtype(e.buf.dtype) and access_forms(e.indices) is not None
    if isinstance(e, N.BinOp):
        kind = "f" if isinstance(e.type, Float) else "i"
        return (vector_dtype(e.type) and e.op in VEC_BINOPS[kind] and e.lhs.type == e.type
                and e.rhs.type == e.type and _vectorizable(e.lhs, v) and _vectorizable(e.rhs, v))
    if isinstance(e, N.Cast):
        if isinstance(e.value.type, Float) and not isinstance(e.type, Float):
            return False  # float -> int casts go through i64 in the scalar renderer
        return vector_dtype(e.type) and vector_dtype(e.value.type) and _vectorizable(e.value, v)
    if isinstance(e, N.UnaryOp):
        return e.op == UnaryOpKind.NEG and vector_dtype(e.type) and _vectorizable(e.operand, v)
    return False


def unit_stride(load, v) -> bool:
    forms = access_forms(load.indices)
    return forms[-1].coef(v) == 1 and not any(f.depends(v) for f in forms[:-1])


def _update(store):
    """(op, acc_left, rhs) when `store` is `X[idx] = X[idx] op rhs`, else None."""
    e = store.value
    if not isinstance(e, N.BinOp) or e.op not in ACC_OPS or e.type != store.buf.dtype:
        return None

    def is_self(x):
        return isinstance(x, N.Load) and x.buf is store.buf and _same(x.indices, store.indices)

    if is_self(e.lhs):
        return e.op, True, e.rhs
    if e.op in _COMMUTATIVE and is_self(e.rhs):
        return e.op, False, e.lhs
    return None


def _same(a, b) -> bool:
    fa, fb = access_forms(a), access_forms(b)
    return (fa is not None and fb is not None and len(fa) == len(fb)
            and all(x.coeffs == y.coeffs and x.const == y.const for x, y in zip(fa, fb)))


def recognise(nest: Nest):
    """The Contraction described by `nest`, or None when it does not fit (see module doc)."""
    if not nest.body or not all(isinstance(x, N.Store) for x in nest.body) or not nest.constant():
        return None
    st = nest.body[0]  # `unroll` attributes are ignored: the micro-kernel subsumes unrolling
    X = st.buf
    if X.kind == "scalar_arg" or X.type.rank == 0 or not vector_dtype(X.dtype):
        return None
    updates = []
    for x in nest.body:
        upd = _update(x) if x.buf is X and _same(x.indices, st.indices) else None
        if upd is None or any(ld.buf is X for ld in loads_of(upd[2])):
            return None
        updates.append(upd)
    rhs_all = [u[2] for u in updates]
    all_loads = [ld for e in rhs_all for ld in loads_of(e)]
    xf = access_forms(st.indices)
    if xf is None:
        return None
    loops, ext = nest.loops, nest.extents()
    if any(n == 0 for n in ext):
        return None
    par = [(f, n) for f, n in zip(loops, ext) if any(x.depends(f.var) for x in xf)]
    reds = [(f, n) for f, n in zip(loops, ext) if not any(x.depends(f.var) for x in xf)]
    if not injective(xf, X.shape, [f.var for f, _ in par], [n for _, n in par]):
        return None
    nest_ids = {id(v) for v in nest.vars}
    cands = []
    for f, n in par:
        v = f.var
        if xf[-1].coef(v) != 1 or any(x.depends(v) for x in xf[:-1]):
            continue
        if not all(_vectorizable(e, v) for e in rhs_all):
            continue
        vloads = [ld for ld in all_loads if depends(ld, v)]
        if not vloads:
            continue
        cands.append((f, n, vloads))
    if not cands:
        return None
    # prefer a v whose loads are all contiguous, then the longest
    cands.sort(key=lambda c: (not all(unit_stride(ld, c[0].var) for ld in c[2]), -c[1]))
    fv, V, vloads = cands[0]
    v = fv.var
    # u: a parallel loop no v-load mentions; prefer loops some load does depend on, then extent
    ucands = []
    for f, n in par:
        if f is fv or n < 2 or any(depends(ld, f.var) for ld in vloads):
            continue
        used = any(depends(ld, f.var) for ld in all_loads)
        ucands.append((not used, -n, loops.index(f), f, n))
    ucands.sort(key=lambda c: c[:3])
    fu, U = (ucands[0][3], ucands[0][4]) if ucands else (None, 1)
    packs, contiguous = [], []
    red_ids = {id(f.var) for f, _ in reds}
    for ld in vloads:
        forms = access_forms(ld.indices)
        own = {id(x) for f in forms for x in f.var_list()} & nest_ids
        packable = (len(reds) == 1 and own <= red_ids | {id(v)} and U >= MIN_PACK_ROWS)
        if packable and (not unit_stride(ld, v) or V * U >= 64 * 64):
            packs.append(ld)
        elif unit_stride(ld, v):
            contiguous.append(ld)
        else:
            return None
    others = [(f, n) for f, n in par if f is not fv and f is not fu]
    return Contraction(nest, st, updates, v, V, fu.var if fu else None, U, others, reds,
                       packs, contiguous)


# ----------------------------------------------------------------------------- scalar reductions
# ops whose result does not depend on the order of the operands (exact for any grouping)
_EXACT_REDUCE = {"f": (BinOpKind.MAX, BinOpKind.MIN), "i": (BinOpKind.ADD, BinOpKind.MAX, BinOpKind.MIN)}


@dataclass(repr=False)
class Reduction:
    """`for v in range(n): acc = acc op rhs(v)` with acc a rank-0 local (see recognise_reduction)."""

    loop: N.For
    acc: N.Buffer
    op: str
    acc_left: bool
    rhs: N.Expr
    n: int
    v: N.IterVar
    u = None
    U = 1
    packs = ()

    @property
    def dtype(self):
        return self.acc.dtype

    @property
    def V(self):
        return self.n

    def __repr__(self):
        return f"<Reduction {self.acc.name} {self.op}= ... over {self.loop.name}[{self.n}]>"


def recognise_reduction(f: N.For, fast_math: bool, min_trip: int):
    """A Reduction when loop `f` only folds a vectorisable, contiguous rhs into a rank-0 local
    with an op that is exact in any order (max/min; integer add), or float add under fast_math."""
    n = const_extent(f)
    if n is None or n < min_trip or len(f.body) != 1 or not isinstance(f.body[0], N.Store):
        return None
    st = f.body[0]
    acc = st.buf
    if acc.type.rank != 0 or acc.kind not in ("local",) or not vector_dtype(acc.dtype):
        return None
    upd = _update(st)
    if upd is None:
        return None
    op, acc_left, rhs = upd
    kind = "f" if isinstance(acc.dtype, Float) else "i"
    if op not in _EXACT_REDUCE[kind] and not (fast_math and kind == "f" and op == BinOpKind.ADD):
        return None
    v = f.var
    if any(ld.buf is acc for ld in loads_of(rhs)) or not _vectorizable(rhs, v) or not depends(rhs, v):
        return None
    if not all(unit_stride(ld, v) for ld in loads_of(rhs) if depends(ld, v)):
        return None
    return Reduction(f, acc, op, acc_left, rhs, n, v)
