"""Affine index expressions of allo's loop IR as linear maps over loop variables.

A linear form is `(coeffs, const)` with `coeffs` a dict keyed by `id(IterVar)`; the IterVar
objects themselves are kept in a side dict so callers can map back.

Example::

    form = linear(BinOp("add", i, Const(1, index), index))     # ({id(i): 1}, 1)
"""
from __future__ import annotations

import numpy as np

from ....ir import nodes as N
from ....ir.ops import BinOpKind
from ....ir.types import Index, Int, UInt


class Linear:
    """`sum(coef * var) + const` over IterVars (identity-keyed)."""

    __slots__ = ("coeffs", "const", "vars")

    def __init__(self, coeffs=None, const=0, vars=None):
        self.coeffs = dict(coeffs or {})
        self.const = const
        self.vars = dict(vars or {})

    def coef(self, v) -> int:
        return self.coeffs.get(id(v), 0)

    def depends(self, v) -> bool:
        return self.coeffs.get(id(v), 0) != 0

    def var_list(self):
        return [self.vars[k] for k, c in self.coeffs.items() if c]

    def __add__(self, o):
        c = dict(self.coeffs)
        for k, x in o.coeffs.items():
            c[k] = c.get(k, 0) + x
        return Linear({k: x for k, x in c.items() if x}, self.const + o.const, {**self.vars, **o.vars})

    def scale(self, n):
        return Linear({k: x * n for k, x in self.coeffs.items() if x * n}, self.const * n, self.vars)

    def __repr__(self):
        terms = [f"{c}*{self.vars[k].name}" for k, c in self.coeffs.items()]
        return " + ".join(terms + [str(self.const)])


def linear(e):
    """The linear form of index expression `e`, or None when it is not affine with integer
    coefficients (floordiv/mod and products of variables are not linear)."""
    if isinstance(e, N.Const):
        if isinstance(e.type, (Index, Int, UInt)) and not isinstance(e.value, (bool, np.bool_)):
            return Linear({}, int(e.value))
        return None
    if isinstance(e, N.IterVar):
        return Linear({id(e): 1}, 0, {id(e): e})
    if isinstance(e, N.Cast) and isinstance(e.type, Index):
        if isinstance(e.value.type, Index) or isinstance(e.value, N.Const):
            return linear(e.value)
        return None
    if isinstance(e, N.BinOp) and isinstance(e.type, Index):
        a, b = linear(e.lhs), linear(e.rhs)
        if a is None or b is None:
            return None
        if e.op == BinOpKind.ADD:
            return a + b
        if e.op == BinOpKind.SUB:
            return a + b.scale(-1)
        if e.op == BinOpKind.MUL:
            if not b.coeffs:
                return a.scale(b.const)
            if not a.coeffs:
                return b.scale(a.const)
    return None


def access_forms(indices):
    """Linear forms of every index, or None if one is not linear."""
    out = []
    for i in indices:
        f = linear(i)
        if f is None:
            return None
        out.append(f)
    return out


def flat_coef(forms, shape, v) -> int:
    """Coefficient of `v` in the row-major flattened address of an access."""
    total, stride = 0, 1
    for f, d in zip(reversed(forms), reversed(shape)):
        total += f.coef(v) * stride
        stride *= d
    return total


def injective(forms, shape, loop_vars, extents) -> bool:
    """True when distinct points of the iteration box over `loop_vars` (extents given) map to
    distinct flattened addresses (mixed-radix test on the address coefficients)."""
    coefs = []
    for v, n in zip(loop_vars, extents):
        c = abs(flat_coef(forms, shape, v))
        if n > 1:
            if c == 0:
                return False
            coefs.append((c, n))
    coefs.sort()
    reach = 0
    for c, n in coefs:
        if c <= reach:
            return False
        reach += c * (n - 1)
    return True
