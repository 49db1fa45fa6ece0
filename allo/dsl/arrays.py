"""Whole-array operations, desugared into loop nests over fresh local buffers.

Example::

    C = A + B      ->   C_tmp: float32[M, N];  for i0, i1: C_tmp[i0, i1] = A[i0, i1] + B[i0, i1]
"""
from __future__ import annotations

from ..errors import AlloTypeError
from ..ir import emit
from ..ir.attrs import OP_NAME, REDUCTION, TEMP
from ..ir.nodes import Alloc, Buffer, Const, For, IterVar, Load, Store
from ..ir.ops import BinOpKind
from ..ir.types import MAX_BITS, ArrayType, Fixed, Float, Int, UFixed, UInt, index


class ArrayOps:
    """Loop-nest builders bound to a FunctionBuilder (which provides names and statement lists)."""

    def __init__(self, fb):
        self.fb = fb

    def new_temp(self, dtype, shape, loc, hint="tmp") -> Buffer:
        buf = Buffer(self.fb.fresh_buffer_name(hint), ArrayType(dtype, tuple(shape)), "local", loc=loc)
        buf.attrs[TEMP] = True
        self.fb.emit(Alloc(buf, None, loc))
        return buf

    def loop_names(self, rank, prefix="i", band=None):
        """Loop names of a whole-array operation: fresh `i0, i1, ...`, or `L_0, L_1, ...` inside a
        band named by the user (`allo.matmul(A, B, name="gemm")` -> loops gemm/L_0, gemm/L_1)."""
        if band:
            names = [f"L_{d}" for d in range(rank)]
            self.fb.loop_names.update(names)
            return names
        return [self.fb.fresh_loop_name(f"{prefix}{d}") for d in range(rank)]

    def band_attr(self, names, band=None) -> dict:
        return {OP_NAME: self.fb.user_band(band, None) if band else self.fb.band_name(names)}

    def loop_nest(self, shape, body_fn, loc, prefix="i", band=None):
        """Emit `for` loops over `shape`; body_fn(ivs) returns the list of inner statements."""
        names = self.loop_names(len(shape), prefix, band)
        ivs = [IterVar(n, loc=loc) for n in names]
        body = body_fn(ivs)
        for d in reversed(range(len(shape))):
            body = [For(ivs[d], Const(0, index), Const(shape[d], index), 1, body, names[d], {}, loc)]
        if shape:
            body[0].attrs.update(self.band_attr(names, band))
        for s in body:
            self.fb.emit(s)

    def elementwise(self, op_fn, operands, loc, hint="tmp", band=None):
        """Apply scalar op_fn over broadcast operands (Buffers or scalars) -> new Buffer."""
        shapes = [o.shape for o in operands if isinstance(o, Buffer)]
        shape = broadcast_shapes(shapes, loc)
        # result dtype: run op_fn once on typed placeholders
        probe_args = [Load(o, [Const(0, index)] * len(o.shape)) if isinstance(o, Buffer) else o for o in operands]
        dtype = emit.to_expr(op_fn(*probe_args)).type
        out = self.new_temp(dtype, shape, loc, hint)

        def body(ivs):
            args = [self.read_broadcast(o, ivs, shape) if isinstance(o, Buffer) else o for o in operands]
            return [Store(out, list(ivs), emit.cast(emit.to_expr(op_fn(*args), dtype, loc), dtype, loc), loc)]

        self.loop_nest(shape, body, loc, band=band)
        return out

    @staticmethod
    def read_broadcast(buf, ivs, shape):
        off = len(shape) - len(buf.shape)
        idx = [Const(0, index) if buf.shape[d] == 1 and shape[d + off] != 1 else ivs[d + off] for d in range(len(buf.shape))]
        return Load(buf, idx)

    def copy_into(self, dst: Buffer, src, loc):
        """dst[...] = src (Buffer broadcast to dst's shape, or a scalar)."""
        if isinstance(src, Buffer):
            broadcast_shapes([dst.shape, src.shape], loc, target=dst.shape)

        def body(ivs):
            val = self.read_broadcast(src, ivs, dst.shape) if isinstance(src, Buffer) else src
            return [Store(dst, list(ivs), emit.cast(emit.to_expr(val, dst.dtype, loc), dst.dtype, loc), loc)]

        self.loop_nest(dst.shape, body, loc)

    def matmul(self, a: Buffer, b: Buffer, loc, band=None):
        if not isinstance(a, Buffer) or not isinstance(b, Buffer) or len(a.shape) != 2 or len(b.shape) != 2 \
                or a.shape[1] != b.shape[0]:
            shapes = [list(x.shape) if isinstance(x, Buffer) else type(x).__name__ for x in (a, b)]
            raise AlloTypeError(f"matmul needs [M, K] x [K, N] arrays, got {shapes[0]} and {shapes[1]} "
                                f"(use allo.bmm for batches)")
        m, k = a.shape
        n = b.shape[1]
        dtype = emit.binary(BinOpKind.MUL, Load(a, [Const(0, index)] * 2), Load(b, [Const(0, index)] * 2)).type
        dtype = sum_type(dtype, k)
        out = self.new_temp(dtype, (m, n), loc, "matmul")
        out_init = Const(0.0 if isinstance(dtype, (Fixed, UFixed, Float)) else 0, dtype)
        names = self.loop_names(3, band=band) if band else [self.fb.fresh_loop_name(x) for x in ("i", "j", "k")]
        i, j, kk = (IterVar(x, loc=loc) for x in names)
        product = emit.binary(BinOpKind.MUL, Load(a, [i, kk]), Load(b, [kk, j]), loc)
        acc = Store(out, [i, j], emit.binary(BinOpKind.ADD, Load(out, [i, j]), product, loc), loc)
        kattrs = {REDUCTION: True} if band else {OP_NAME: self.fb.band_name([names[2]])}
        kloop = For(kk, Const(0, index), Const(k, index), 1, [acc], names[2], kattrs, loc)
        init = Store(out, [i, j], out_init, loc)
        jloop = For(j, Const(0, index), Const(n, index), 1, [init, kloop], names[1], {}, loc)
        iloop = For(i, Const(0, index), Const(m, index), 1, [jloop], names[0], self.band_attr(names[:2], band), loc)
        self.fb.emit(iloop)
        return out

    def transpose(self, a: Buffer, axes, loc, band=None):
        rank = len(a.shape)
        axes = tuple(reversed(range(rank))) if axes is None else tuple(int(x) for x in axes)
        if sorted(axes) != list(range(rank)):
            raise AlloTypeError(f"transpose axes {axes} are not a permutation of 0..{rank - 1}")
        shape = tuple(a.shape[ax] for ax in axes)
        out = self.new_temp(a.dtype, shape, loc, "transpose")

        def body(ivs):
            src = [None] * rank
            for d, ax in enumerate(axes):
                src[ax] = ivs[d]
            return [Store(out, list(ivs), Load(a, src), loc)]

        self.loop_nest(shape, body, loc, band=band)
        return out


def sum_type(t, n: int):
    """A type holding the sum of n values of integer/fixed type t exactly (log2(n) more integer
    bits, as an HLS accumulator); floats and index stay."""
    if not isinstance(t, (Int, UInt, Fixed, UFixed)) or n <= 1:
        return t
    extra = (n - 1).bit_length()
    if isinstance(t, (Fixed, UFixed)):
        return type(t)(min(MAX_BITS, t.bits + extra), t.frac)
    return type(t)(min(MAX_BITS, t.bits + extra))


def broadcast_shapes(shapes, loc=None, target=None):
    """numpy broadcasting of static shapes; raises AlloTypeError on mismatch."""
    rank = max(len(s) for s in shapes)
    out = []
    for d in range(rank):
        dims = {s[d - rank + len(s)] for s in shapes if d - rank + len(s) >= 0}
        dims.discard(1)
        if len(dims) > 1:
            raise AlloTypeError(f"shapes {' and '.join(str(list(s)) for s in shapes)} do not broadcast")
        out.append(dims.pop() if dims else 1)
    if target is not None and tuple(out) != tuple(target):
        raise AlloTypeError(f"cannot assign an array of shape {list(shapes[-1])} to one of shape {list(target)}")
    return tuple(out)
