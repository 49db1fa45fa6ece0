"""The kernel as one hardware function for the static scheduler: calls inlined, constants as
memory arguments, array results as output arguments (like the handshake route, allo.backend.rtl.
prepare), but arrays keep their shapes (banks are computed per dimension) and their partition
attributes, and array initialisers become fill loops.

Example::

    hw = prepare_static(ir_module)
    hw.func.body      # statements of the single top function
"""
from __future__ import annotations

from ....errors import BackendError
from ....ir import nodes as N
from ....ir import visit as V
from ....ir.attrs import PARTITION, PIPELINE_II
from ....ir.types import Index
from ..prepare import (HWTop, _globals_to_args, _Inliner, _loop_nest, _reachable, _to_destination_passing,
                       check_no_floats)
from .float_exprs import check_float_types

index_t = Index()


def prepare_static(mod: N.Module, floats: bool = False) -> HWTop:
    """A clone of `mod`'s top function ready for `allo.backend.rtl.static` (see module doc)."""
    mod = mod.clone()
    try:
        top = mod.func(mod.top)
    except KeyError:
        raise BackendError(f"top function {mod.top!r} not found in the module") from None
    original = top.clone()
    if not floats:
        check_no_floats(mod, top, "static RTL")
    else:
        for f in _reachable(mod, top):
            check_float_types(f)
    parts = _returned_partitions(top)
    top.body = _FillInits().stmts(top.body)
    top.body = _Inliner(mod, 0).stmts(top.body)
    hw = _to_destination_passing(top, original)
    for pos in hw.outputs:  # the returned local's partitions belong to the output interface now
        p = hw.func.params[pos]
        if p.name in parts and PARTITION not in p.attrs:
            p.attrs[PARTITION] = list(parts[p.name])
    _globals_to_args(hw)
    hw.func.body = _FillInits().stmts(hw.func.body)
    return hw


def _returned_partitions(top: N.Func) -> dict:
    ret = top.body[-1] if top.body and isinstance(top.body[-1], N.Return) else None
    out = {}
    for v in (ret.values if ret else []):
        if isinstance(v, N.Buffer) and v.attrs.get(PARTITION):
            out[v.name] = v.attrs[PARTITION]
    return out


class _FillInits(V.Rewriter):
    """`x: int32[4, 8] = 0` -> an allocation and a fill loop nest (pipelined when Vitis would)."""

    def rewrite_Alloc(self, s):
        if s.buf.shape and isinstance(s.init, N.Expr):
            ivs = [N.IterVar(f"f{k}") for k in range(len(s.buf.shape))]
            value = s.init if s.init.type == s.buf.dtype else N.Cast(s.init, s.buf.dtype, s.loc)
            nest = _loop_nest(ivs, s.buf.shape, N.Store(s.buf, list(ivs), value, s.loc), f"fill_{s.buf.name}", s.loc)
            if s.buf.type.size >= 64 or s.buf.shape[-1] >= 64:
                inner = nest
                while isinstance(inner.body[0], N.For):
                    inner = inner.body[0]
                inner.attrs[PIPELINE_II] = 1
            return [N.Alloc(s.buf, None, s.loc), nest]
        return s


__all__ = ["prepare_static"]
