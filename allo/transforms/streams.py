"""FIFO semantics for stream parameters on the CPU (LLVM) backend.

`s.to(...)` marks arrays passed between kernels as streams (`Buffer.attrs["stream"]`). On the
CPU the producer runs to completion before the consumer, so a FIFO is storage with a write
counter in the producer and a read counter in the consumer: the k-th write goes to slot k and the
k-th read takes slot k, whatever indices the kernel wrote. `lower_streams` rewrites every access
of a stream parameter that way (on a clone, before rendering), so a kernel that did not touch
its stream in FIFO order would compute different numbers here than its loops suggest.

Example::

    mod = schedule.ir.clone()
    lower_streams(mod)        # then render / JIT as usual
"""
from __future__ import annotations

from ..ir import nodes as N
from ..ir import visit as V
from ..ir.attrs import STREAM
from ..ir.ops import BinOpKind
from ..ir.types import ArrayType

index_t = N.index_t


def lower_streams(mod: N.Module) -> N.Module:
    """Rewrite the accesses of every stream parameter into FIFO order, in place; returns `mod`."""
    for func in mod.funcs:
        for p in func.params:
            if p.attrs.get(STREAM) and p.shape:
                _fifo(func, p)
    return mod


def _fifo(func: N.Func, param: N.Buffer):
    taken = {b.name for b in V.iter_buffers(func)}
    name, n = f"{param.name}_fifo_pos", 0
    while name in taken:
        n += 1
        name = f"{param.name}_fifo_pos_{n}"
    counter = N.Buffer(name, ArrayType(index_t, ()), "local")
    func.body.insert(0, N.Alloc(counter, N.Const(0, index_t)))
    func.body[:] = _rewrite(func.body, param, counter)


def _slot(param, counter):
    """Indices of the element at the counter's position (row-major)."""
    pos = N.Load(counter, [], index_t)
    out, stride = [], 1
    strides = []
    for d in reversed(param.shape):
        strides.append(stride)
        stride *= int(d)
    strides.reverse()
    for k, (d, st) in enumerate(zip(param.shape, strides)):
        e = V.copy_expr(pos) if k else pos
        if st != 1:
            e = N.BinOp(BinOpKind.FLOORDIV, e, N.Const(st, index_t), index_t)
        if k:
            e = N.BinOp(BinOpKind.MOD, e, N.Const(int(d), index_t), index_t)
        out.append(e)
    return out


def _bump(counter):
    nxt = N.BinOp(BinOpKind.ADD, N.Load(counter, [], index_t), N.Const(1, index_t), index_t)
    return N.Store(counter, [], nxt)


def _rewrite(body, param, counter):
    out = []
    for s in body:
        touched = False
        if isinstance(s, N.Store) and s.buf is param:
            s.indices = _slot(param, counter)
            touched = True
        for e in V.stmt_exprs(s):
            for x in V.walk_expr(e):
                if isinstance(x, N.Load) and x.buf is param:
                    x.indices = _slot(param, counter)
                    touched = True
        if isinstance(s, (N.For, N.While)):
            s.body[:] = _rewrite(s.body, param, counter)
        elif isinstance(s, N.If):
            s.then[:] = _rewrite(s.then, param, counter)
            s.orelse[:] = _rewrite(s.orelse, param, counter)
        out.append(s)
        if touched:
            out.append(_bump(counter))
    return out


__all__ = ["lower_streams"]
