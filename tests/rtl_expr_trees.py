"""Random well-typed integer / fixed-point expression trees for the static RTL expression tests.

Trees are built with the frontend's own constructors (allo.ir.emit: promotion, bit growth,
narrowing casts, literal typing; allo.ir.bits: bit-level operations), so they have exactly the
shapes kernels produce. Every choice goes through one `pick(options)` callable: a
`random.Random(seed).choice` for scripts, or hypothesis's `draw(sampled_from(...))` through the
`groups` strategy (shrinkable); input values come from `integer(lo, hi)` likewise.

Example::

    rng = random.Random(3)
    g = random_group(rng.choice, rng.randint, "t0")   # a tests.rtl_comb_sim.Group: leaves, rows, trees
    print([show(e) for e in g.exprs])
"""
from __future__ import annotations

import random

from hypothesis import strategies as st

from allo.errors import AlloTypeError
from allo.ir import bits, emit
from allo.ir import nodes as N
from allo.ir.ops import BinOpKind, UnaryOpKind
from allo.ir.types import Fixed, Float, Index, Int, UFixed, UInt, index, int64
from allo.ir.visit import walk_expr

from .rtl_comb_sim import Group, leaf, mask, sv_width

LEAF_TYPES = [Int(1), Int(3), Int(8), Int(13), Int(16), Int(32), Int(33), Int(64), UInt(1), UInt(4), UInt(8),
              UInt(16), UInt(32), UInt(64), Fixed(8, 4), Fixed(16, 8), Fixed(12, 2), Fixed(24, 20), Fixed(6, 0),
              UFixed(8, 3), UFixed(16, 8), UFixed(5, 5), index]
CAST_TYPES = LEAF_TYPES + [Int(65), Int(128), UInt(100), Fixed(40, 10), Fixed(8, 8)]
BIN_OPS = [BinOpKind.ADD, BinOpKind.SUB, BinOpKind.MUL, BinOpKind.DIV, BinOpKind.FLOORDIV, BinOpKind.MOD,
           BinOpKind.MIN, BinOpKind.MAX, BinOpKind.AND, BinOpKind.OR, BinOpKind.XOR, BinOpKind.LT, BinOpKind.LE,
           BinOpKind.GT, BinOpKind.GE, BinOpKind.EQ, BinOpKind.NE, BinOpKind.LAND, BinOpKind.LOR]
MAX_TREE_BITS = 256  # wider intermediates are cast down (bit growth of deep product chains)


def boundary_values(t) -> list:
    """Raw bit patterns worth testing for type t: 0, 1, 2, -1, min, max, their neighbours."""
    w = sv_width(t)
    m = (1 << w) - 1
    half = 1 << (w - 1)
    vals = [0, 1, 2, m, half, half - 1, half + 1, m - 1, w - 1, w, w + 1, 3 << (w // 2)]
    out = []
    for v in vals:
        v &= m
        if v not in out:
            out.append(v)
    return out


def raw_value(pick, integer, t) -> int:
    """A raw input value of type t, biased towards boundaries and small magnitudes."""
    if pick([True, False, False]):
        return pick(boundary_values(t))
    w = sv_width(t)
    k = pick([w, w, max(1, w // 2), min(w, 4)])
    v = integer(0, (1 << k) - 1)
    return (-v if pick([True, False]) else v) & mask(t)


def _literal(pick, like):
    """A Python literal next to an operand of type `like` (ints; floats near fixed point)."""
    if isinstance(like, (Fixed, UFixed)) and pick([True, False]):
        return pick([0.5, 0.25, -1.5, 3.75, 0.0, 2.0, -0.125])
    return pick([0, 1, 2, 3, 7, -1, -2, 100, 255, -128, 300, 65535, 1 << 40])


def _has_float(e) -> bool:
    return any(isinstance(x.type, Float) for x in walk_expr(e))


def _fix_width(e):
    """Cast over-wide intermediates down so trees stay hardware-sized."""
    if sv_width(e.type) <= MAX_TREE_BITS:
        return e
    t = Fixed(64, min(e.type.frac, 32)) if isinstance(e.type, (Fixed, UFixed)) else Int(64)
    return emit.cast(e, t)


class TreeGen:
    """Builds random trees over `leaves` (Load or index-cast leaf expressions) with `pick`."""

    def __init__(self, pick, leaves):
        self.pick, self.leaves = pick, leaves

    def tree(self, depth: int):
        for _ in range(8):
            try:
                e = self._node(depth)
            except AlloTypeError:
                continue
            if isinstance(e, N.Expr) and not _has_float(e):
                return _fix_width(e)
        return self.pick(self.leaves)

    def _operand(self, depth, like=None):
        if like is not None and self.pick([False, False, False, True]):
            return _literal(self.pick, like)
        return self.tree(depth - 1) if depth > 0 else self.pick(self.leaves)

    def _node(self, depth):
        pick = self.pick
        if depth <= 0:
            return pick(self.leaves)
        kind = pick(["bin", "bin", "bin", "shift", "unary", "cast", "select", "bits", "pow", "abs"])
        if kind == "bin":
            a = self._operand(depth)
            return emit.binary(pick(BIN_OPS), a, self._operand(depth, a.type))
        if kind == "shift":
            a = self._operand(depth)
            n = pick([0, 1, 3, 7, 8, 31, 64, 65]) if pick([True, False]) else self._int_operand(depth)
            return emit.binary(pick([BinOpKind.SHL, BinOpKind.SHR]), a, n)
        if kind == "unary":
            return emit.unary(pick([UnaryOpKind.NEG, UnaryOpKind.INVERT, UnaryOpKind.NOT]), self._operand(depth))
        if kind == "cast":
            return emit.cast(self._operand(depth), pick(CAST_TYPES))
        if kind == "select":
            a, b = self._operand(depth), self._operand(depth)
            cond = emit.binary(pick([BinOpKind.LT, BinOpKind.NE, BinOpKind.GE]), self._operand(depth - 1), 0)
            return emit.select(cond, a, b) if isinstance(a, N.Expr) or isinstance(b, N.Expr) else a
        if kind == "pow":
            a = self._operand(depth)
            if pick([True, False]):
                return emit.binary(BinOpKind.POW, a, pick([0, 1, 2, 3]))
            # not bool ** bool: the LLVM build of it never ends (an i1 `shrui` by 1 in its loop)
            base = self._int_operand(depth)
            base = emit.cast(base, UInt(8)) if base.type == UInt(1) else base
            return emit.binary(BinOpKind.POW, base, self._int_operand(depth))
        if kind == "abs":
            return emit.math_call("abs", [self._operand(depth)])
        return self._bits(depth)

    def _int_operand(self, depth):
        x = self.tree(depth - 1)
        if not isinstance(x.type, (Int, UInt)):
            x = emit.cast(x, self.pick([Int(8), UInt(8), Int(32), UInt(7)]))
        return x

    def _bits(self, depth):
        pick = self.pick
        x = self._int_operand(depth)
        w = x.type.bits
        fn = pick(["get", "get_rt", "slice", "reverse", "set", "setslice"])
        if fn == "get":
            return bits.bit_get(x, pick(range(w)))
        if fn == "get_rt":
            return bits.bit_get(x, emit.cast(self._int_operand(depth - 1), index))
        if fn == "reverse":
            return bits.bit_reverse(x)
        lo = pick(range(w))
        hi = pick(range(lo + 1, w + 1))
        if fn == "slice":
            return bits.bit_slice(x, lo, hi)
        if fn == "set":
            i = pick(range(w)) if pick([True, False]) else emit.cast(self._int_operand(depth - 1), index)
            return bits.bit_set(x, i, emit.to_bool(self._operand(depth - 1)))
        return bits.slice_set(x, lo, hi, None, self._operand(depth - 1))


def _leaf_expr(name, t):
    """A leaf of type t (index values enter as an int64 leaf and a cast, as loop variables do)."""
    if isinstance(t, Index):
        ld = leaf(name, int64)
        return ld.buf, emit.cast(ld, index)
    ld = leaf(name, t)
    return ld.buf, ld


def random_group(pick, integer, name: str, n_leaves=(1, 2, 3), n_trees=(1, 2, 3), depth=(1, 2, 3, 4),
                 n_rows=12) -> Group:
    """One Group: random leaves and rows, trees of random depth over them."""
    types = [pick(LEAF_TYPES) for _ in range(pick(n_leaves))]
    made = [_leaf_expr(f"{name}_x{k}", t) for k, t in enumerate(types)]
    gen = TreeGen(pick, [e for _, e in made])
    exprs = [gen.tree(pick(depth)) for _ in range(pick(n_trees))]
    rows = [tuple(raw_value(pick, integer, b.dtype) for b, _ in made) for _ in range(n_rows)]
    return Group([b for b, _ in made], rows, exprs, name)


@st.composite
def groups(draw, count: int = 30):
    """Hypothesis strategy: `count` random groups (one Verilator build checks them all)."""
    pick = lambda seq: draw(st.sampled_from(list(seq)))  # noqa: E731
    integer = lambda lo, hi: draw(st.integers(lo, hi))  # noqa: E731
    return [random_group(pick, integer, f"t{k}") for k in range(count)]


def seeded_groups(seed: int, count: int) -> list:
    """The same groups for the same seed, without hypothesis (scripts, bug reports)."""
    rng = random.Random(seed)
    return [random_group(rng.choice, rng.randint, f"s{seed}_{k}") for k in range(count)]


__all__ = ["TreeGen", "random_group", "groups", "seeded_groups", "boundary_values", "LEAF_TYPES", "CAST_TYPES"]
