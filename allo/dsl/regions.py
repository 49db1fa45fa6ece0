"""Array regions: `A[5]` (a row of a 2-D array), `A[0:2, 1:4]`, `A[:, 3]` in kernel bodies.

allo arrays have no views, so reading a region copies it into a fresh local array, and assigning
to one (`A[0:2, 0:3] = B`) stores element by element. A region passed to a kernel call is copied in
and, when the callee writes that argument, copied back after the call: the same results as a view.

Example::

    row = A[5]                 # int32[10] copy of row 5 of A[10, 10]
    A[0:2, 0:3] = B            # B[2, 3] (or a scalar) into the top-left corner of A
"""
from __future__ import annotations

import ast

from ..errors import AlloSyntaxError, AlloTypeError, located
from ..ir import emit
from ..ir.effects import params_maybe_written, refers
from ..ir.nodes import Alloc, Buffer, Const, Expr, For, Load, Store, While
from ..ir.ops import BinOpKind
from ..ir.types import index
from ..ir.visit import COPY, LOAD, PASS, RETURN, STORE, Walker, walk_stmts
from .arrays import broadcast_shapes


def is_region(node: ast.Subscript, buf: Buffer, values) -> bool:
    """Does `buf[...]` name more than one element (a slice, or fewer indices than dims)?"""
    return bool(buf.shape) and (any(isinstance(e, ast.Slice) for e in _elts(node)) or len(values) < len(buf.shape))


def _elts(node):
    return node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]


def region_spec(fb, node: ast.Subscript, buf: Buffer):
    """Per dimension ("at", index expr) or ("range", start, step, count); trailing dims are whole."""
    spec = []
    for e in _elts(node):
        if isinstance(e, ast.Slice):
            spec.append(_slice(fb, e, buf.shape[len(spec)] if len(spec) < len(buf.shape) else 0, node))
            continue
        v = fb.visit(e)
        for x in (v if isinstance(v, tuple) else (v,)):
            idx = _index(fb, x, e)
            extent = buf.shape[len(spec)] if len(spec) < len(buf.shape) else None
            if isinstance(idx, Const) and extent is not None and not 0 <= idx.value < extent:
                raise fb.error(AlloTypeError, f"index {idx.value} is out of range for dimension {len(spec)} of "
                               f"{buf.name!r} (size {extent})", node)
            spec.append(("at", idx))
    if len(spec) > len(buf.shape):
        raise fb.error(AlloTypeError, f"{buf.name!r} has {len(buf.shape)} dimension(s) but is indexed with "
                       f"{len(spec)}", node)
    spec += [("range", 0, 1, d) for d in buf.shape[len(spec):]]
    return spec


def _index(fb, v, e):
    v = fb.scalar(v)
    if emit.is_number(v):
        if isinstance(v, float):
            raise fb.error(AlloTypeError, f"array index must be an integer, got {v!r}", e)
        return Const(int(v), index)
    return emit.cast(v, index, fb.loc(e))


def _slice(fb, e: ast.Slice, extent, node):
    def bound(part, default):
        if part is None:
            return default
        v = fb.visit(part)
        if not emit.is_number(v) or isinstance(v, float):
            raise fb.error(AlloSyntaxError, f"slice bounds must be integer constants, got {ast.unparse(part)!r} "
                           "(write a loop for run-time ranges)", node)
        return int(v)

    step = bound(e.step, 1)
    if step <= 0:
        raise fb.error(AlloSyntaxError, "slice steps must be positive", node)
    start, stop, _ = slice(bound(e.lower, None), bound(e.upper, None), step).indices(extent)
    count = len(range(start, stop, step))
    if count == 0:
        raise fb.error(AlloTypeError, f"slice {ast.unparse(e)!r} of a dimension of size {extent} is empty", node)
    return ("range", start, step, count)


def region_shape(spec) -> tuple:
    return tuple(s[3] for s in spec if s[0] == "range")


def _source_indices(spec, ivs, loc):
    out, k = [], 0
    for s in spec:
        if s[0] == "at":
            out.append(s[1])
        else:
            iv = ivs[k]
            k += 1
            scaled = emit.binary(BinOpKind.MUL, iv, s[2], loc) if s[2] != 1 else iv
            out.append(emit.binary(BinOpKind.ADD, scaled, s[1], loc) if s[1] else scaled)
    return out


def read_region(fb, buf, spec, loc) -> Buffer:
    """A fresh local array holding `buf[spec]` (remembered as a view for call write-back)."""
    shape = region_shape(spec)
    out = fb.arrays.new_temp(buf.dtype, shape, loc, f"{buf.name}_view")
    fb.arrays.loop_nest(shape, lambda ivs: [Store(out, list(ivs), Load(buf, _source_indices(spec, ivs, loc)), loc)], loc)
    fb.views[id(out)] = (buf, spec)
    return out


def write_region(fb, buf, spec, value, loc):
    """`buf[spec] = value` for an array value of the region's shape (broadcast) or a scalar."""
    shape = region_shape(spec)
    if isinstance(value, Buffer) and value.shape:
        broadcast_shapes([shape, value.shape], loc, target=shape)

    def body(ivs):
        v = fb.arrays.read_broadcast(value, ivs, shape) if isinstance(value, Buffer) and value.shape else value
        return [Store(buf, _source_indices(spec, ivs, loc), emit.cast(emit.to_expr(v, buf.dtype, loc), buf.dtype, loc),
                      loc)]

    if not (isinstance(value, Buffer) and value.shape):
        value = fb.scalar(value)
    fb.arrays.loop_nest(shape, body, loc)


def write_back_views(fb, callee, args, loc):
    """After a call: copy each region argument the callee writes back into the array it came from."""
    written = params_maybe_written(callee)
    for p, a in zip(callee.params, args):
        view = fb.views.get(id(a)) if isinstance(a, Buffer) else None
        if view is not None and id(p) in written:
            before = len(fb.block)
            write_region(fb, view[0], view[1], a, loc)
            for s in fb.block[before:]:  # the copy-back is the view's own write, not a change to it
                fb.view_writebacks.update(id(x) for x in walk_stmts([s]))


class _Positions(Walker):
    """[(stmt, pre-order position, ids of enclosing loops)] for every statement walked, in `out`."""

    def __init__(self):
        super().__init__()
        self.out = []

    def visit(self, node):
        if isinstance(node, Expr):
            return
        self.out.append((node, len(self.out), tuple(id(p) for p in self.path if isinstance(p, (For, While)))))
        self.generic(node)


def _touches(s, buf, write):
    """Does statement `s` write (write=True) or read `buf`?"""
    return refers(s, buf, (STORE, PASS) if write else (PASS, RETURN, COPY, LOAD))


def check_stale_regions(fb, body):
    """Regions are copies, so a region read after its array changed would differ from a view (what
    numpy and upstream Allo give). That case is an error naming both lines, never a silent copy."""
    if not fb.views:
        return
    stmts = _Positions().walk(body).out
    for rid, (src, _) in fb.views.items():
        made = next(((s, p, lp) for s, p, lp in stmts if isinstance(s, Alloc) and id(s.buf) == rid), None)
        if made is None:
            continue
        region, made_pos, made_loops = made[0].buf, made[1], set(made[2])
        for w, wp, wloops in stmts:
            if wp <= made_pos or id(w) in fb.view_writebacks or not _touches(w, src, True):
                continue
            inner = set(wloops) - made_loops  # loops around the change that do not also hold the copy
            for r, rp, rloops in stmts:
                if rp > made_pos and (rp > wp or inner & set(rloops)) and _touches(r, region, False):
                    raise located(AlloTypeError, f"a region of {src.name!r} taken at line {_line(made[0])} is used "
                                  f"here after {src.name!r} changed at line {_line(w)}; allo regions are copies, "
                                  f"not views: index {src.name!r} directly, or take the region after the change",
                                  r.loc)


def _line(s):
    return s.loc.lineno if getattr(s, "loc", None) is not None else "?"
