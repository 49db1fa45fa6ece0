"""Module-level rewrites under upstream Allo's names (`allo.passes`).

`generate_input_output_buffers(s.module, top, flatten=False)` gives the top function local
copies of its array arguments and results: `load_buf<k>` copies argument k into a local buffer
`buf<k>` before the body, `store_res<k>` copies each result out into `res<k>` (and written
arguments back), as HLS designs do to decouple off-chip ports from on-chip buffers. With
`flatten=True` the top function's arrays become 1-D (row-major), so the built module takes and
returns flat arrays. It rewrites the schedule the module came from (`s.module`, `s.build()`).

Example::

    s = allo.customize(gemm)
    allo.passes.generate_input_output_buffers(s.module, s.top_func_name, flatten=True)
    C = s.build()(A.reshape(-1), B.reshape(-1))     # C has shape (M * N,)
"""
from __future__ import annotations

import math

from .errors import AlloError
from .ir import nodes as N
from .ir import visit as V
from .ir.attrs import KERNEL, OP_NAME
from .ir.effects import params_maybe_written
from .ir.ops import BinOpKind
from .ir.types import ArrayType, index
from .schedule.schedule import Schedule, rendered_by


def schedule_of(module):
    """The Schedule whose `s.module` is `module` (AlloError for any other object)."""
    if isinstance(module, Schedule):
        return module
    owner = rendered_by(module)
    if owner is not None:
        return owner
    raise AlloError("allo.passes takes the module of a schedule (`s.module` of `s = allo.customize(...)`) or the "
                    "schedule itself")


def _copy_func(name, src_t, dst_t, loc):
    """func @name(src, dst): dst[i...] = src[...] over dst's (or src's) shape, row-major."""
    src = N.Buffer("src", src_t, "arg", loc=loc)
    dst = N.Buffer("dst", dst_t, "arg", loc=loc)
    shape = src_t.shape if len(src_t.shape) >= len(dst_t.shape) else dst_t.shape
    ivs = [N.IterVar(f"i{d}", loc=loc) for d in range(len(shape))]

    def index_into(t):
        if tuple(t.shape) == tuple(shape):
            return list(ivs)
        flat = ivs[0]
        for d in range(1, len(shape)):
            flat = N.BinOp(BinOpKind.ADD, N.BinOp(BinOpKind.MUL, flat, N.Const(shape[d], index), index), ivs[d], index)
        return [flat]

    body = [N.Store(dst, index_into(dst_t), N.Load(src, index_into(src_t)), loc)]
    for d in reversed(range(len(shape))):
        body = [N.For(ivs[d], N.Const(0, index), N.Const(shape[d], index), 1, body, f"i{d}", {}, loc)]
    body[0].attrs[OP_NAME] = f"S_{'_'.join(f'i{d}' for d in range(len(shape)))}_0"
    return N.Func(name, [src, dst], [], body, {KERNEL: name}, loc)


def _rewrite(mod: N.Module, top: str, flatten: bool):
    f = mod.func(top)
    taken = {g.name for g in mod.funcs}
    written = params_maybe_written(f)
    new_funcs, head, tail = [], [], []
    n = len(f.params)

    def outer_type(t):
        return ArrayType(t.dtype, (math.prod(t.shape),)) if flatten else ArrayType(t.dtype, t.shape)

    def fresh(name):
        if name in taken:
            raise AlloError(f"generate_input_output_buffers: {top!r} already has a function named {name!r}")
        taken.add(name)
        return name

    params = []
    for k, p in enumerate(f.params):
        if p.kind != "arg":
            params.append(p)
            continue
        outer = N.Buffer(p.name, outer_type(p.type), "arg", loc=p.loc, attrs=dict(p.attrs))
        buf = N.Buffer(f"buf{k}", ArrayType(p.dtype, p.shape), "local", loc=p.loc)
        V.replace_buffers(f.body, {id(p): buf})
        load = fresh(f"load_buf{k}")
        new_funcs.append(_copy_func(load, outer.type, buf.type, f.loc))
        head += [N.Alloc(buf, None, f.loc), N.CallStmt(load, [outer, buf], [], {}, f.loc)]
        if id(p) in written:
            back = fresh(f"store_res{k}")
            new_funcs.append(_copy_func(back, buf.type, outer.type, f.loc))
            tail.append(N.CallStmt(back, [buf, outer], [], {}, f.loc))
        params.append(outer)
    ret = f.body.pop() if f.body and isinstance(f.body[-1], N.Return) else None
    results, types = [], []
    for j, (v, t) in enumerate(zip(ret.values if ret else [], f.result_types)):
        if not isinstance(t, ArrayType):
            results.append(v)
            types.append(t)
            continue
        res = N.Buffer(f"res{n + j}", outer_type(t), "local", loc=f.loc)
        store = fresh(f"store_res{n + j}")
        new_funcs.append(_copy_func(store, ArrayType(t.dtype, t.shape), res.type, f.loc))
        head.append(N.Alloc(res, None, f.loc))
        tail.append(N.CallStmt(store, [v, res], [], {}, f.loc))
        results.append(res)
        types.append(res.type)
    f.params, f.result_types = params, types
    f.body = head + f.body + tail + ([N.Return(results, ret.loc)] if ret is not None else [])
    mod.funcs[:0] = new_funcs


def generate_input_output_buffers(module, top_func_name, flatten=False, mappings=None):
    """See the module docstring. `mappings` (upstream's custom copy patterns) is not supported."""
    if mappings is not None:
        raise AlloError("generate_input_output_buffers(mappings=...): custom copy patterns are not supported; "
                        "the copies are plain row-major loops")
    s = schedule_of(module)
    if top_func_name != s.top_func_name:
        raise AlloError(f"generate_input_output_buffers: {top_func_name!r} is not the top function "
                        f"({s.top_func_name!r}) of this schedule")
    snapshot = s.ir.clone()
    try:
        _rewrite(s.ir, top_func_name, bool(flatten))
        s._verify(top_func_name)
    except AlloError:
        s.ir = snapshot
        raise
    finally:
        s._mlir_cache = None
    return s.module


__all__ = ["generate_input_output_buffers"]
