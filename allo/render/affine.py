"""Affine analysis of index expressions: which loads, stores and loop bounds can be `affine.*`.

An affine form is a small tuple tree::

    ("c", n) | ("v", IterVar) | ("+", a, b) | ("*", a, n) | ("floordiv", a, n) | ("mod", a, n)

Example::

    e = N.BinOp("add", N.BinOp("mul", i, N.Const(4, index), index), N.Const(1, index), index)
    form = affine_form(e, is_dim=lambda v: True)   # ("+", ("*", ("v", i), 4), ("c", 1))
    _aff_str(form, lambda v: "%i1")                # "(%i1) * 4 + 1"
"""
from __future__ import annotations

import numpy as np

from ..ir import nodes as N
from ..ir.ops import BinOpKind
from ..ir.types import Index, Int, UInt


def aff_add(a, b):
    if a[0] == "c" and b[0] == "c":
        return ("c", a[1] + b[1])
    if b == ("c", 0):
        return a
    if a == ("c", 0):
        return b
    return ("+", a, b)


def aff_mul(a, n):
    if a[0] == "c":
        return ("c", a[1] * n)
    if n == 1:
        return a
    if n == 0:
        return ("c", 0)
    return ("*", a, n)


def affine_form(e, is_dim):
    """The affine form of index expression `e` over IterVars accepted by `is_dim`, else None."""
    if isinstance(e, N.Const):
        if isinstance(e.type, (Index, Int, UInt)) and not isinstance(e.value, (bool, np.bool_)):
            return ("c", int(e.value))
        return None
    if isinstance(e, N.IterVar):
        return ("v", e) if is_dim(e) else None
    if isinstance(e, N.Cast) and isinstance(e.type, Index):
        if isinstance(e.value.type, Index) or isinstance(e.value, N.Const):
            return affine_form(e.value, is_dim)
        return None
    if isinstance(e, N.BinOp) and isinstance(e.type, Index):
        a = affine_form(e.lhs, is_dim)
        b = affine_form(e.rhs, is_dim)
        if a is None or b is None:
            return None
        if e.op == BinOpKind.ADD:
            return aff_add(a, b)
        if e.op == BinOpKind.SUB:
            return aff_add(a, aff_mul(b, -1))
        if e.op == BinOpKind.MUL:
            if b[0] == "c":
                return aff_mul(a, b[1])
            if a[0] == "c":
                return aff_mul(b, a[1])
            return None
        if e.op in (BinOpKind.FLOORDIV, BinOpKind.MOD) and b[0] == "c" and b[1] > 0:
            if a[0] == "c":
                return ("c", a[1] // b[1] if e.op == BinOpKind.FLOORDIV else a[1] % b[1])
            return (e.op, a, b[1]) if b[1] != 1 else (a if e.op == BinOpKind.FLOORDIV else ("c", 0))
    return None


def aff_const(e):
    a = affine_form(e, lambda v: False)
    return a[1] if a is not None and a[0] == "c" else None


def aff_vars(a, out):
    if a[0] == "v":
        if not any(a[1] is x for x in out):
            out.append(a[1])
    elif a[0] != "c":
        aff_vars(a[1], out)
        if a[0] == "+":
            aff_vars(a[2], out)
    return out


def aff_str(a, name) -> str:
    kind = a[0]
    if kind == "c":
        return str(a[1])
    if kind == "v":
        return name(a[1])
    if kind == "+":
        return f"{aff_str(a[1], name)} + {aff_str(a[2], name)}"
    return f"({aff_str(a[1], name)}) {'*' if kind == '*' else kind} {a[2]}"
