"""Rewrite allo's loop IR into the shape CIRCT's hardware lowerings accept.

CIRCT 1.62 (pip) lowers one function with 1-D, statically sized memories, no calls into functions
that take memories, no memref results and no floating point. `prepare_for_hw` makes a clone of
the module that satisfies this and describes how the hardware top relates to the kernel:

1. every call is inlined into the top function (callee results become locals of the caller);
2. global constants (weights) become extra memory arguments that the simulation harness serves;
3. array results become output arguments written by the design (scalars stay results);
4. every array is flattened to one dimension (index = sum of index * stride).

Floating point the route has no units for raises a BackendError that names the float operation
and the kernel line: the handshake circuit ("RTL") takes float32 (hs_float/check.py), the Calyx
route none (CIRCT 1.62's Calyx lowering has no float primitives).

Example::

    hw = prepare_for_hw(ir_module)
    hw.func            # the single N.Func to render
    hw.inputs          # top param positions of the user's arguments, in call order
    hw.outputs         # top param positions of the array results
    hw.hidden          # [(param position, storage ndarray)] for global constants
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np

from ...errors import BackendError, located
from ...ir import nodes as N
from ...ir import visit as V
from ...ir.attrs import STATEFUL
from ...ir.ops import BinOpKind
from ...ir.types import ArrayType, Float, Index
from ...render.module import storage_array
from .hs_float_check import check_handshake_floats

index_t = Index()
_MAX_INLINE_DEPTH = 64


@dataclass
class HWTop:
    """The prepared top function and how its parameters map to the kernel's call signature."""

    func: N.Func
    inputs: list  # param positions of the user's arguments (same order as the kernel's params)
    outputs: list  # param positions receiving the kernel's array results (in result order)
    scalar_results: list  # result positions (in the kernel's result list) returned by value
    hidden: list = field(default_factory=list)  # (param position, storage ndarray) of constants
    original: N.Func = None  # the kernel's own top function (its signature drives marshalling)
    float_units: list = field(default_factory=list)  # handshake route: the float units it calls (hs_float/)


def prepare_for_hw(mod: N.Module, what: str = "RTL") -> HWTop:
    """A clone of `mod`'s top function, inlined, flattened and in destination-passing style."""
    mod = mod.clone()
    try:
        top = mod.func(mod.top)
    except KeyError:
        raise BackendError(f"top function {mod.top!r} not found in the module") from None
    original = top.clone()
    if what == "RTL":  # the handshake circuit: allo's float32 units (hs_float/)
        check_handshake_floats(_reachable(mod, top))
    else:
        check_no_floats(mod, top, what)
    check_no_stateful(mod, top, what)
    top.body = _Inliner(mod, 0).stmts(top.body)
    hw = _to_destination_passing(top, original)
    _globals_to_args(hw)
    flatten_buffers(hw.func)
    return hw


def check_no_stateful(mod: N.Module, top: N.Func, what: str):
    """BackendError naming the first `T @ Stateful` local reachable from `top`: the hardware flows
    reset every local at each start, so the state would not carry over."""
    for f in _reachable(mod, top):
        for s in V.walk_stmts(f.body):
            if isinstance(s, N.Alloc) and STATEFUL in s.buf.attrs:
                msg = (f"{what} does not support Stateful variables yet: local {s.buf.name!r} of {f.name!r} keeps "
                       "its value across calls; build it with target='vhls'/'vitis_hls' (a C++ static) or 'llvm'")
                raise located(BackendError, msg, s.loc or s.buf.loc)


# ============================================================================ floats
def check_no_floats(mod: N.Module, top: N.Func, what: str):
    """BackendError naming the first floating-point operation reachable from `top`."""
    for f in _reachable(mod, top):
        for p in f.params:
            if isinstance(p.dtype, Float):
                msg = _float_msg(what, f"argument {p.name!r} of {f.name!r} is {p.dtype!r}")
                raise located(BackendError, msg, p.loc or f.loc)
        for rt in f.result_types:
            t = rt.dtype if isinstance(rt, ArrayType) else rt
            if isinstance(t, Float):
                raise located(BackendError, _float_msg(what, f"{f.name!r} returns {rt!r}"), f.loc)
        for s in V.walk_stmts(f.body):
            if isinstance(s, N.Alloc) and isinstance(s.buf.dtype, Float):
                msg = _float_msg(what, f"local {s.buf.name!r} is {s.buf.type!r}")
                raise located(BackendError, msg, s.loc or s.buf.loc)
            for e in V.stmt_exprs(s):
                for x in V.walk_expr(e):
                    op = _float_op(x)
                    if op is not None:
                        raise located(BackendError, _float_msg(what, op), getattr(x, "loc", None) or s.loc)


def _float_op(e) -> str | None:
    t = getattr(e, "type", None)
    if isinstance(e, N.MathCall) and (isinstance(t, Float) or any(isinstance(a.type, Float) for a in e.args)):
        return f"floating-point {e.fn}() ({t!r})"
    if isinstance(e, N.Cast) and (isinstance(t, Float) or isinstance(e.value.type, Float)):
        return f"cast from {e.value.type!r} to {t!r}"
    if isinstance(e, N.BinOp) and (isinstance(t, Float) or isinstance(e.lhs.type, Float)):
        return f"floating-point '{e.op}' on {e.lhs.type!r}"
    if isinstance(e, N.UnaryOp) and isinstance(t, Float):
        return f"floating-point '{e.op}' on {t!r}"
    if isinstance(e, N.Load) and isinstance(t, Float):
        return f"load of {t!r} from {e.buf.name!r}"
    if isinstance(e, N.Const) and isinstance(t, Float):
        return f"{t!r} constant {e.value!r}"
    if isinstance(e, N.Select) and isinstance(t, Float):
        return f"floating-point select ({t!r})"
    return None


def _float_msg(what: str, op: str) -> str:
    if what == "Calyx":
        return (f"the Calyx route has no floating-point units: {op}. CIRCT 1.62's lower-scf-to-calyx has no "
                f"float primitives and allo's float32 units are wired into the static circuit only; build for "
                f"'rtl' (the static circuit takes float32), use Int/UInt/Fixed types for Calyx, or build for "
                f"'llvm'/'vhls'")
    return (f"the handshake circuit (scheduling='dynamic') has no floating-point units: {op}. CIRCT's handshake "
            f"lowering (pip circt 1.62) supports integers and fixed point only; build for 'rtl' with the default "
            f"scheduling='static' (allo's float32 units), use Int/UInt/Fixed types, or build for 'llvm'/'vhls'")


def _reachable(mod: N.Module, top: N.Func) -> list:
    out, todo, seen = [], [top], set()
    while todo:
        f = todo.pop()
        if f.name in seen:
            continue
        seen.add(f.name)
        out.append(f)
        for s in V.walk_stmts(f.body):
            if isinstance(s, N.CallStmt):
                try:
                    todo.append(mod.func(s.callee))
                except KeyError:
                    raise located(BackendError, f"call to unknown function {s.callee!r}", s.loc) from None
    return out


# ============================================================================ inlining
class _Inliner(V.Rewriter):
    """Copies of statements with every CallStmt (at any nesting) replaced by the callee's statements."""

    def __init__(self, mod: N.Module, depth: int):
        self.mod, self.depth = mod, depth

    def rewrite_CallStmt(self, s):
        if self.depth >= _MAX_INLINE_DEPTH:
            raise located(BackendError, f"calls nest deeper than {_MAX_INLINE_DEPTH} levels (recursion?) "
                                        f"at the call to {s.callee!r}", s.loc)
        return _inline_call(self.mod, s, self.depth)


def _inline_call(mod: N.Module, call: N.CallStmt, depth: int) -> list:
    callee = mod.func(call.callee).clone()
    if len(call.args) != len(callee.params):
        raise located(BackendError, f"call to {call.callee!r} passes {len(call.args)} arguments, it takes "
                                    f"{len(callee.params)}", call.loc)
    pre, mapping = [], {}
    for p, a in zip(callee.params, call.args):
        if p.kind == "scalar_arg":  # evaluate the argument once, at the call, into a scalar local
            tmp = N.Buffer(p.name, ArrayType(p.dtype, ()), "local", loc=call.loc)
            pre += [N.Alloc(tmp, None, call.loc), N.Store(tmp, [], _scalar_expr(a), call.loc)]
            mapping[id(p)] = tmp
        else:
            if not isinstance(a, N.Buffer):
                raise located(BackendError, f"call to {call.callee!r}: argument {p.name!r} must be an array", call.loc)
            mapping[id(p)] = a
    body = list(callee.body)
    ret = body.pop() if body and isinstance(body[-1], N.Return) else None
    post = []
    if ret is not None:
        top_allocs = {id(s.buf) for s in body if isinstance(s, N.Alloc)}
        claimed = set()
        for k, (v, rb) in enumerate(zip(ret.values, call.results)):
            rt = callee.result_types[k]
            if isinstance(rt, ArrayType):
                rb.kind = "local"
                if isinstance(v, N.Buffer) and id(v) in top_allocs and id(v) not in claimed and id(v) not in mapping:
                    mapping[id(v)] = rb  # the callee's local becomes the caller's result buffer
                    claimed.add(id(v))
                else:
                    pre.append(N.Alloc(rb, None, call.loc))
                    post += copy_loops(rb, v, call.loc)
            else:
                rb.kind = "local"
                pre.append(N.Alloc(rb, None, call.loc))
                post.append(N.Store(rb, [], _cast(_scalar_expr(v), rt), call.loc))
    body = V.replace_buffers(body + post, mapping)
    return pre + _Inliner(mod, depth + 1).stmts(body)


def _scalar_expr(a):
    if isinstance(a, N.Expr):
        return a
    if isinstance(a, N.Buffer) and a.type.rank == 0:
        return N.Load(a, [])
    raise BackendError(f"expected a scalar, got {a!r}")


def _cast(e, t):
    return e if e.type == t else N.Cast(e, t, getattr(e, "loc", None))


def copy_loops(dst: N.Buffer, src, loc=None) -> list:
    """Statements copying array `src` (a Buffer of dst's shape) into `dst`, element by element."""
    if not isinstance(src, N.Buffer) or tuple(src.shape) != tuple(dst.shape):
        raise located(BackendError, f"cannot copy {getattr(src, 'name', src)!r} into {dst.name!r}", loc)
    ivs = [N.IterVar(f"c{k}") for k in range(len(dst.shape))]
    value = N.Load(src, list(ivs), src.dtype, loc)
    return [_loop_nest(ivs, dst.shape, N.Store(dst, list(ivs), _cast(value, dst.dtype), loc), f"copy_{dst.name}", loc)]


def _loop_nest(ivs, shape, stmt, name, loc):
    """`stmt` inside one loop per dimension of `shape` (ivs[k] runs over shape[k])."""
    for k in reversed(range(len(shape))):
        stmt = N.For(ivs[k], N.Const(0, index_t), N.Const(shape[k], index_t), 1, [stmt], name=f"{name}_{k}", loc=loc)
    return stmt


# ============================================================================ top signature
def _to_destination_passing(top: N.Func, original: N.Func) -> HWTop:
    """Array results become output parameters; `Alloc` initialisers of globals become copies."""
    params = list(top.params)
    inputs = list(range(len(params)))
    outputs, scalars, post = [], [], []
    body = list(top.body)
    ret = body.pop() if body and isinstance(body[-1], N.Return) else None
    mapping, claimed = {}, set()
    top_allocs = {id(s.buf): s for s in body if isinstance(s, N.Alloc)}
    scalar_values = []
    if ret is not None:
        for k, (v, rt) in enumerate(zip(ret.values, top.result_types)):
            if not isinstance(rt, ArrayType):
                scalars.append(k)
                scalar_values.append(_scalar_expr(v))
                continue
            out = N.Buffer(f"out{k}" if not isinstance(v, N.Buffer) else v.name, rt, "arg", loc=top.loc)
            if isinstance(v, N.Buffer) and id(v) in top_allocs and id(v) not in claimed:
                claimed.add(id(v))
                mapping[id(v)] = out
            else:
                post += copy_loops(out, v, ret.loc)
            outputs.append(len(params))
            params.append(out)
    body = V.replace_buffers(body + post, mapping)
    body = [_alloc_as_stores(s) if isinstance(s, N.Alloc) and s.buf.kind == "arg" else s for s in body]
    body = _flat(body)
    if ret is not None and scalar_values:
        body.append(N.Return(scalar_values, ret.loc))
    result_types = [top.result_types[k] for k in scalars]
    func = dataclasses.replace(top, params=params, result_types=result_types, body=body, attrs={})
    return HWTop(func, inputs, outputs, scalars, [], original)


def _flat(body):
    out = []
    for s in body:
        out += s if isinstance(s, list) else [s]
    return out


def _alloc_as_stores(s: N.Alloc):
    """The initialiser of an output buffer (now a parameter) as explicit stores."""
    b = s.buf
    if s.init is None:
        return []
    if isinstance(s.init, N.Buffer):
        return copy_loops(b, s.init, s.loc)
    ivs = [N.IterVar(f"z{k}") for k in range(len(b.shape))]
    return [_loop_nest(ivs, b.shape, N.Store(b, list(ivs), _cast(s.init, b.dtype), s.loc), f"init_{b.name}", s.loc)]


def _globals_to_args(hw: HWTop):
    """Global constants become memory parameters served by the harness (their data in `hidden`)."""
    f = hw.func
    globs = [b for b in V.iter_buffers(f) if b.kind == "global"]
    for g in globs:
        data = storage_array(g)
        g.kind, g.data = "arg", None
        hw.hidden.append((len(f.params), data))
        f.params.append(g)
    # a local initialised from a global copies it with loops (CIRCT has no memref.copy)
    f.body = _CopyInits().stmts(f.body)


class _CopyInits(V.Rewriter):
    def rewrite_Alloc(self, s):
        if isinstance(s.init, N.Buffer):
            return [N.Alloc(s.buf, None, s.loc)] + copy_loops(s.buf, s.init, s.loc)
        return s


# ============================================================================ flattening
def flatten_buffers(func: N.Func):
    """Make every array of rank >= 2 one-dimensional, in place (row-major linear indices)."""
    bufs = [b for b in V.iter_buffers(func) if b.type.rank >= 2 and b.kind != "scalar_arg"]
    shapes = {id(b): tuple(b.shape) for b in bufs}
    for b in bufs:
        b.type = ArrayType(b.dtype, (math.prod(b.shape),))
        if b.data is not None:
            b.data = np.ascontiguousarray(b.data).reshape(-1)

    V.reindex(func.body, lambda b, idx: [linear_index(idx, shapes[id(b)])] if id(b) in shapes else None)


def linear_index(indices: list, shape: tuple) -> N.Expr:
    """Row-major `sum(indices[k] * stride[k])` as an index expression (affine when the indices are)."""
    acc = None
    stride = 1
    for idx, dim in zip(reversed(indices), reversed(shape)):
        term = idx if stride == 1 else N.BinOp(BinOpKind.MUL, idx, N.Const(stride, index_t), index_t)
        acc = term if acc is None else N.BinOp(BinOpKind.ADD, term, acc, index_t)
        stride *= dim
    return acc


__all__ = ["HWTop", "prepare_for_hw", "check_no_floats", "flatten_buffers", "linear_index", "copy_loops"]
