"""Struct locals (`allo.ir.types.Struct`, upstream Allo's record type), scalarised by the builder.

`p: S = {"x": a, "y": b}` declares one scalar local per field (`p_x`, `p_y`); `p["x"]` reads or
writes that local. The IR, the schedules and every backend see only scalars, so a struct costs
nothing and needs no support downstream.

Example::

    S = Struct({"x": int32, "y": float32})

    def kernel(x: int32[16], y: float32[16]) -> int32:
        total: int32 = 0
        for i in range(16):
            p: S = {"x": x[i], "y": y[i]}
            total += p["x"] + int(p["y"])
        return total
"""
from __future__ import annotations

import ast

from ..errors import AlloSyntaxError, AlloTypeError
from ..ir import emit
from ..ir.nodes import Alloc, Buffer, Load, Store
from ..ir.types import ArrayType, Struct


class StructValue:
    """A struct local of the kernel: its type and one scalar Buffer per field."""

    def __init__(self, name: str, t: Struct, fields: dict):
        self.name, self.type, self.fields = name, t, fields

    def field(self, key, fb, node) -> Buffer:
        if not isinstance(key, str) or key not in self.fields:
            raise fb.error(AlloTypeError, f"struct {self.name!r} ({self.type!r}) has no field {key!r}; its fields: "
                           f"{', '.join(self.fields)}", node)
        return self.fields[key]

    def __getitem__(self, key):  # the builder's generic subscript (reads): the field's scalar local
        if key not in self.fields:
            raise AlloTypeError(f"struct {self.name!r} has no field {key!r}; its fields: {', '.join(self.fields)}")
        return self.fields[key]


def declare_struct(fb, node, name: str, t: Struct) -> None:
    """Visit `name: S [= {...} | other_struct]` for the function builder `fb`."""
    loc = fb.loc(node)
    inits = {}
    if isinstance(node.value, ast.Dict):
        for k, v in zip(node.value.keys, node.value.values):
            if not (isinstance(k, ast.Constant) and isinstance(k.value, str)):
                raise fb.error(AlloSyntaxError, f"struct {name!r}: initialise it with a dict of field names, e.g. "
                               f"{{{', '.join(repr(f) + ': ...' for f in t.fields)}}}", node)
            if k.value not in t.fields:
                raise fb.error(AlloTypeError, f"struct {name!r} ({t!r}) has no field {k.value!r}", node)
            inits[k.value] = fb.visit(v)
        missing = [f for f in t.fields if f not in inits]
        if missing:
            raise fb.error(AlloTypeError, f"struct {name!r}: no value for field(s) {', '.join(missing)}", node)
    elif node.value is not None:
        other = fb.visit(node.value)
        if not isinstance(other, StructValue) or other.type != t:
            raise fb.error(AlloTypeError, f"struct {name!r} ({t!r}) must be initialised with a dict of its fields or "
                           f"another {t!r}, got {ast.unparse(node.value)!r}", node)
        inits = dict(other.fields)
    fields = {}
    for f, ft in t.fields.items():
        buf = Buffer(fb.fresh_buffer_name(f"{name}_{f}"), ArrayType(ft, ()), "local", loc=loc)
        init = None
        if f in inits:
            init = fb.converted(emit.to_expr(fb.scalar(inits[f]), ft, loc), ft, loc)
        fb.emit(Alloc(buf, init, loc))
        fb.decl_scope[id(buf)] = fb.scope
        fields[f] = buf
    fb.locals[name] = StructValue(name, t, fields)


def assign_field(fb, sv: StructValue, target, value, node, op=None) -> None:
    """`p["x"] = value` (or `p["x"] op= value`): a store to the field's scalar local."""
    loc = fb.loc(node)
    buf = sv.field(fb.visit(target.slice), fb, node)
    new = fb.scalar(value) if op is None else emit.binary(op, Load(buf, [], loc=loc), fb.scalar(value), loc)
    fb.emit(Store(buf, [], fb.converted(emit.to_expr(new, buf.dtype, loc), buf.dtype, loc), loc))


__all__ = ["StructValue", "declare_struct", "assign_field"]
