"""Affine index values for the QoR model: addresses of unrolled lanes, banks, dependence distances.

Inside a pipelined loop every inner loop is unrolled, so an index is a known integer (unrolled
lane variables have values) plus multiples of the loop variables that stay symbolic (the
pipelined loop, loops flattened into it, enclosing loops). `Aff` holds that form.

Example::

    a = index_aff(BinOp("add", i, Const(1)), env={})      # Aff({id(i): 1}, 1)
    bank(a, "cyclic", 4, 16)                               # None: depends on i (any bank)
    dependence_distance(store_key, load_key, loop_vars)    # 1, 8, None (no dependence) or MAY
"""
from __future__ import annotations

from ..ir import nodes as N
from ..ir.attrs import PARTITION, Partition
from ..ir.emit import PY_FOLD
from ..ir.ops import CMP_OPS, BinOpKind, UnaryOpKind


class Aff:
    """const + sum(coef * var) over symbolic loop variables (keys are `id(IterVar)`)."""

    __slots__ = ("coefs", "const", "_key")

    def __init__(self, coefs=None, const=0):
        if coefs:
            self.coefs = {k: c for k, c in coefs.items() if c}
            self._key = (tuple(sorted(self.coefs.items())), const) if self.coefs else ((), const)
        else:
            self.coefs = _EMPTY  # never mutated: every operation builds a new dict
            self._key = ((), const)
        self.const = const

    @property
    def known(self) -> bool:
        return not self.coefs

    def key(self):
        return self._key

    def __eq__(self, other):
        return isinstance(other, Aff) and self._key == other._key

    def __hash__(self):
        return hash(self._key)

    def __repr__(self):
        terms = [f"{c}*v{k % 1000}" for k, c in sorted(self.coefs.items())]
        return " + ".join(terms + [str(self.const)]) if terms else str(self.const)

    def add(self, o: "Aff", sign=1) -> "Aff":
        if not o.coefs:
            return Aff(self.coefs, self.const + sign * o.const) if self.coefs else const_aff(self.const + sign * o.const)
        coefs = dict(self.coefs)
        for k, c in o.coefs.items():
            coefs[k] = coefs.get(k, 0) + sign * c
        return Aff(coefs, self.const + sign * o.const)

    def scale(self, k: int) -> "Aff":
        if not self.coefs:
            return const_aff(self.const * k)
        return Aff({v: c * k for v, c in self.coefs.items()}, self.const * k)


MAY = "may"  # dependence distance unknown: assume the next iteration
_EMPTY = {}
_CONSTS = {}


def const_aff(v: int) -> Aff:
    """A (shared) constant Aff."""
    a = _CONSTS.get(v)
    if a is None:
        a = Aff(None, int(v))
        if -4096 <= v <= 4096:
            _CONSTS[v] = a
    return a


def index_aff(e, env: dict):
    """`e` (an index/int expression) as an Aff, with `env` {id(IterVar): int} giving unrolled
    lanes their values; None when not affine (indirect loads, non-constant division...)."""
    if isinstance(e, N.IterVar):
        v = env.get(id(e))
        if v is None:
            return Aff({id(e): 1}, 0)
        return v if isinstance(v, Aff) else const_aff(v)
    if isinstance(e, N.Const):
        if isinstance(e.value, (bool, int)):
            return const_aff(int(e.value))
        return None
    if isinstance(e, N.Cast):
        return index_aff(e.value, env)
    if isinstance(e, N.BinOp):
        if e.op in (BinOpKind.ADD, BinOpKind.SUB):
            a, b = index_aff(e.lhs, env), index_aff(e.rhs, env)
            if a is None or b is None:
                return None
            return a.add(b, 1 if e.op == BinOpKind.ADD else -1)
        if e.op == BinOpKind.MUL:
            a, b = index_aff(e.lhs, env), index_aff(e.rhs, env)
            if a is None or b is None:
                return None
            if a.known:
                return b.scale(a.const)
            if b.known:
                return a.scale(b.const)
            return None
        if e.op in (BinOpKind.FLOORDIV, BinOpKind.MOD, BinOpKind.DIV, BinOpKind.SHR, BinOpKind.SHL, BinOpKind.AND):
            a, b = index_aff(e.lhs, env), index_aff(e.rhs, env)
            if a is None or b is None or not b.known:
                return None
            k = b.const
            if a.known:
                try:
                    return Aff({}, _fold(e.op, a.const, k))
                except ZeroDivisionError:
                    return None
            if e.op == BinOpKind.SHL and k >= 0:
                return a.scale(1 << k)
            if e.op in (BinOpKind.FLOORDIV, BinOpKind.DIV, BinOpKind.SHR) \
                    and all(c % _divisor(e.op, k) == 0 for c in a.coefs.values()):
                d = _divisor(e.op, k)
                if a.const % d == 0:
                    return Aff({v: c // d for v, c in a.coefs.items()}, a.const // d)
            return None
        if e.op in (BinOpKind.MIN, BinOpKind.MAX):
            a, b = index_aff(e.lhs, env), index_aff(e.rhs, env)
            if a is not None and b is not None and a.known and b.known:
                return Aff({}, min(a.const, b.const) if e.op == BinOpKind.MIN else max(a.const, b.const))
            return None
    if isinstance(e, N.UnaryOp) and e.op == UnaryOpKind.NEG:
        a = index_aff(e.operand, env)
        return None if a is None else a.scale(-1)
    return None


def _divisor(op, k):
    return (1 << k) if op == BinOpKind.SHR else k


def _fold(op, a, k):
    if op in (BinOpKind.FLOORDIV, BinOpKind.DIV):
        return a // k
    if op == BinOpKind.MOD:
        return a % k
    if op == BinOpKind.SHR:
        return a >> k
    if op == BinOpKind.SHL:
        return a << k
    return a & k


def cond_value(e, env: dict):
    """The truth of a condition when it only depends on unrolled lanes (else None)."""
    if isinstance(e, N.BinOp) and e.op in CMP_OPS:
        a, b = index_aff(e.lhs, env), index_aff(e.rhs, env)
        if a is None or b is None:
            return None
        d = a.add(b, -1)
        if not d.known:
            return None
        x = d.const
        return PY_FOLD[e.op](x, 0)
    if isinstance(e, N.BinOp) and e.op in (BinOpKind.LAND, BinOpKind.LOR, BinOpKind.AND, BinOpKind.OR):
        a, b = cond_value(e.lhs, env), cond_value(e.rhs, env)
        if e.op in (BinOpKind.LAND, BinOpKind.AND):
            if a is False or b is False:
                return False
            return True if a and b else None
        if a is True or b is True:
            return True
        return False if a is False and b is False else None
    if isinstance(e, N.UnaryOp) and e.op == UnaryOpKind.NOT:
        a = cond_value(e.operand, env)
        return None if a is None else not a
    if isinstance(e, N.Const):
        return bool(e.value)
    return None


# ----------------------------------------------------------------------------- banks
def partitions(buf) -> list:
    """[(kind, dim (1-based), factor)] with dim 0 expanded to every dimension."""
    out = []
    for kind, dim, factor in buf.attrs.get(PARTITION, []) or []:
        dims = range(1, len(buf.shape) + 1) if dim == 0 else [dim]
        out += [(kind, d, factor) for d in dims]
    return out


def bank_count(shape, parts) -> int:
    n = 1
    for kind, d, factor in parts:
        n *= int(shape[d - 1]) if kind == Partition.Complete else max(1, min(int(factor), int(shape[d - 1])))
    return n


def bank_key(idx: list, shape, parts):
    """The bank an access hits: a tuple with one entry per partitioned dimension (an int; None
    when the index varies at run time and the access may hit any bank of that dimension; or
    ("rel", varying part, offset) for a cyclic dimension whose bank varies at run time but two
    accesses with the same varying part hit the same bank exactly when their offsets agree)."""
    key = []
    for kind, d, factor in parts:
        a = idx[d - 1] if d - 1 < len(idx) else None
        n = int(shape[d - 1])
        if a is None:
            key.append(None)
        elif kind == Partition.Complete:
            key.append(a.const if a.known else None)
        elif kind == Partition.Cyclic:
            f = max(1, int(factor))
            varying = tuple(sorted((v, c % f) for v, c in a.coefs.items() if c % f))
            # a run-time bank (memory.port_ii: it may collide with any access of the dimension)
            key.append(a.const % f if not varying else ("rel", varying, a.const % f))
        else:  # block
            size = -(-n // max(1, int(factor)))
            key.append(a.const // size if a.known else None)
    return tuple(key)


def banks_of(shape, parts) -> list:
    """Every concrete bank key of a partitioned buffer (small counts only)."""
    keys = [()]
    for kind, d, factor in parts:
        n = int(shape[d - 1]) if kind == Partition.Complete else max(1, min(int(factor), int(shape[d - 1])))
        keys = [k + (b,) for k in keys for b in range(n)]
    return keys


# ----------------------------------------------------------------------------- dependences
def dependence_distance(store, load, loop_vars):
    """Iterations between a store and a later load of the same element, in a pipelined loop.

    `store`/`load` are index tuples of Aff (None entries: not affine); `loop_vars` lists the
    iteration variables innermost first as (id, trip). Returns an int >= 1, None when the load
    never reads what an earlier iteration stored, or MAY when it cannot be decided."""
    if any(a is None for a in store) or any(a is None for a in load):
        return MAY
    inner = [v for v, _ in loop_vars]
    if all(s == l for s, l in zip(store, load)):
        step = 1
        for v, trip in loop_vars:  # the innermost loop the address does not follow repeats it
            if all(v not in a.coefs for a in store):
                return step
            step *= max(1, trip)
        return None
    for s, l in zip(store, load):
        if {k: c for k, c in s.coefs.items()} != {k: c for k, c in l.coefs.items()}:
            return MAY
    # same coefficients: load(n + delta) hits store(n) when coef . delta = store.const - load.const
    diffs = [(s.const - l.const, s.coefs) for s, l in zip(store, load)]
    delta = {}
    for diff, coefs in diffs:
        loops = [v for v in inner if v in coefs]
        if not loops:
            if diff != 0:
                return None  # a fixed coordinate differs: never the same element
            continue
        if len(loops) > 1:
            return MAY
        v = loops[0]
        c = coefs[v]
        if diff % c:
            return None
        need = diff // c
        if delta.setdefault(v, need) != need:
            return None
    dist, stride = 0, 1
    for v, trip in loop_vars:
        dist += delta.get(v, 0) * stride
        stride *= max(1, trip)
    return dist if dist >= 1 else None


__all__ = ["Aff", "MAY", "index_aff", "cond_value", "partitions", "bank_count", "bank_key", "banks_of",
           "dependence_distance"]
