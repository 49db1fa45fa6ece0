"""MLIR for the bit-level operations of `allo.ir.bits` (MathCalls bit_get, bit_slice, bit_reverse,
bitcast, bit_set, bit_setslice) on the raw bits of integers.

A run-time bit index is compared with the width first: reading outside the value gives 0 and
writing outside it changes nothing (LLVM shifts by >= the width would be poison).

Example::

    v = render_bit_op(renderer, MathCall("bit_slice", [x, lo, hi], UInt(4)))   # shrui + trunci
"""
from __future__ import annotations

from ..ir.ops import MathFn
from .scalars import int_literal


def render_bit_op(r, e) -> str:
    return _OPS[e.fn](r, e)


def _const(r, value, bits) -> str:
    if bits == 1:
        return r.op(f"arith.constant {'true' if value & 1 else 'false'}")
    return r.op(f"arith.constant {int_literal(value, bits)} : i{bits}")


def _checked_amount(r, index_ssa, width, bits):
    """(amount as i{bits} clamped to 0 when out of range, i1 out-of-range flag) for a bit index."""
    i64 = r.op(f"arith.index_cast {index_ssa} : index to i64")
    amt = r.resize(i64, 64, bits, False)
    oob = r.op(f"arith.cmpi uge, {amt}, {_const(r, width, bits)} : i{bits}")
    safe = r.op(f"arith.select {oob}, {_const(r, 0, bits)}, {amt} : i{bits}")
    return safe, oob


def _bit_get(r, e):
    x, i = e.args
    w = x.type.bits
    c = max(w, 64)
    xv = r.resize(r.expr(x), w, c, False)
    amt, oob = _checked_amount(r, r.expr(i), w, c)
    bit = r.op(f"arith.trunci {r.op(f'arith.shrui {xv}, {amt} : i{c}')} : i{c} to i1")
    return r.op(f"arith.select {oob}, {_const(r, 0, 1)}, {bit} : i1")


def _bit_slice(r, e):
    x, lo, hi = e.args
    w, lo, hi = x.type.bits, int(lo.value), int(hi.value)
    v = r.expr(x)
    if lo:
        v = r.op(f"arith.shrui {v}, {_const(r, lo, w)} : i{w}")
    return r.resize(v, w, hi - lo, False)


def _bit_reverse(r, e):
    w = e.type.bits
    return r.op(f"llvm.intr.bitreverse({r.expr(e.args[0])}) : (i{w}) -> i{w}")


def _bitcast(r, e):
    return r.op(f"arith.bitcast {r.expr(e.args[0])} : {e.args[0].type.mlir} to {e.type.mlir}")


def _bit_set(r, e):
    x, i, b = e.args
    w = x.type.bits
    c = max(w, 64)
    xv = r.resize(r.expr(x), w, c, False)
    amt, oob = _checked_amount(r, r.expr(i), w, c)
    zero = _const(r, 0, c)
    mask = r.op(f"arith.shli {_const(r, 1, c)}, {amt} : i{c}")
    mask = r.op(f"arith.select {oob}, {zero}, {mask} : i{c}")
    bit = r.op(f"arith.shli {r.op(f'arith.extui {r.expr(b)} : i1 to i{c}')}, {amt} : i{c}")
    bit = r.op(f"arith.select {oob}, {zero}, {bit} : i{c}")
    kept = r.op(f"arith.andi {xv}, {r.op(f'arith.xori {mask}, {_const(r, -1, c)} : i{c}')} : i{c}")
    return r.resize(r.op(f"arith.ori {kept}, {bit} : i{c}"), c, w, False)


def _bit_setslice(r, e):
    x, lo, hi, v = e.args
    w, lo, hi = x.type.bits, int(lo.value), int(hi.value)
    mask = ((1 << (hi - lo)) - 1) << lo
    vv = r.resize(r.expr(v), hi - lo, w, False)
    if lo:
        vv = r.op(f"arith.shli {vv}, {_const(r, lo, w)} : i{w}")
    kept = r.op(f"arith.andi {r.expr(x)}, {_const(r, ~mask, w)} : i{w}")
    return r.op(f"arith.ori {kept}, {vv} : i{w}")


_OPS = {MathFn.BIT_GET: _bit_get, MathFn.BIT_SLICE: _bit_slice, MathFn.BIT_REVERSE: _bit_reverse,
        MathFn.BITCAST: _bitcast, MathFn.BIT_SET: _bit_set, MathFn.BIT_SETSLICE: _bit_setslice}
