"""Primitives that change a function's structure: `reshape` (a buffer's shape), `unfold` (loops
copied out into separate bodies, one per iteration) and `inline` (an HLS inline marker).
Argument values (shapes, positions) are checked before by their declared kinds (primitives.py).

Example::

    reshape(f, "B", (2, 5, 2, 5))    # B[10, 10] -> B[2, 5, 2, 5]; B[i, j] becomes B[i//5, i%5, j//5, j%5]
    unfold(f, "PE", [0, 1])          # loops 0 and 1 of band PE become straight-line copies
    inline(f)                        # #pragma HLS inline in the function
"""
from __future__ import annotations

import copy
import math

from ..errors import ScheduleError
from ..ir import nodes as N, visit as V
from ..ir.attrs import CONFIG_OP, INLINE, INSTANCES, OP_NAME, PARTITION
from ..ir.loops import find_buffer, get_bands
from ..ir.types import ArrayType
from .rewrite import add, as_int, const, floordiv, mod, mul


def _err(prim, arg, msg):
    return ScheduleError(f"{prim}: argument '{arg}': {msg}")


# ----------------------------------------------------------------------------- reshape
def _dim_groups(old, new):
    """Pairs (old dims, new dims) of consecutive axes with equal products, e.g. [10, 10] ->
    [2, 5, 2, 5] gives [([0], [0, 1]), ([1], [2, 3])]; None when the shapes share no such split."""
    groups, i, j = [], 0, 0
    while i < len(old) or j < len(new):
        gi, gj = [i], [j]
        if i >= len(old) or j >= len(new):
            return None
        po, pn = old[i], new[j]
        while po != pn:
            if po < pn:
                i += 1
                if i >= len(old):
                    return None
                gi.append(i)
                po *= old[i]
            else:
                j += 1
                if j >= len(new):
                    return None
                gj.append(j)
                pn *= new[j]
        groups.append((gi, gj))
        i, j = i + 1, j + 1
    return groups


def _linear(indices, shape):
    flat = const(0)
    for idx, ext in zip(indices, shape):
        flat = add(mul(flat, ext), idx)
    return flat


def _unflatten(flat, shape):
    out, rest = [], flat
    for d in reversed(range(len(shape))):
        out.append(mod(rest, shape[d]) if d else rest)
        rest = floordiv(rest, shape[d]) if d else rest
    return list(reversed(out))


def remap_indices(indices, old, new):
    """Indices into `new` for an access at `indices` of `old` (same elements, row-major)."""
    groups = _dim_groups(old, new) or [(list(range(len(old))), list(range(len(new))))]
    out = []
    for gi, gj in groups:
        flat = _linear([indices[d] for d in gi], [old[d] for d in gi])
        out += _unflatten(flat, [new[d] for d in gj])
    return out


def reshape(func: N.Func, buffer, shape, callers=()) -> None:
    """Give `buffer` the shape `shape` (same number of elements, row-major order); every access
    is rewritten. Arguments and returned arrays change the function's signature, so the top
    function (or a function no other function calls) may reshape them.

    `callers` names the functions that call `func` (filled in by the Schedule)."""
    buf = find_buffer(func, buffer, "reshape", "target")
    new, old = tuple(shape), tuple(buf.shape)
    if not old:
        raise _err("reshape", "target", f"{buf.name!r} is a scalar")
    if not new or any(d <= 0 for d in new) or math.prod(new) != math.prod(old):
        raise _err("reshape", "shape", f"{buf.name!r} has shape {list(old)} ({math.prod(old)} elements); "
                                       f"{list(new)} does not hold the same number of elements")
    if buf.kind == "global":
        raise _err("reshape", "target", f"{buf.name!r} is a constant; copy it into a local array to reshape it")
    if buf.attrs.get(PARTITION):
        raise _err("reshape", "target", f"{buf.name!r} is partitioned; reshape it before partitioning")
    for s in V.walk_stmts(func.body):
        if isinstance(s, N.CallStmt) and any(a is buf for a in s.args + s.results):
            raise _err("reshape", "target", f"{buf.name!r} is passed to or returned by a call of {s.callee!r}, "
                                            "which expects its current shape")
        if isinstance(s, N.Alloc) and s.buf is buf and isinstance(s.init, N.Buffer):
            raise _err("reshape", "target", f"{buf.name!r} is initialised from a constant array")
    ret = func.body[-1] if func.body and isinstance(func.body[-1], N.Return) else None
    returned = [k for k, v in enumerate(ret.values if ret else []) if v is buf]
    if (buf.kind == "arg" or returned) and callers:
        raise _err("reshape", "target", f"{buf.name!r} is part of the signature of {func.name!r}, which "
                                        f"{', '.join(sorted(callers))} call(s); reshape it in the top function")
    V.reindex(func.body, lambda b, idx: remap_indices(idx, old, new) if b is buf else None)
    buf.type = ArrayType(buf.dtype, new)
    for k in returned:
        func.result_types[k] = buf.type


# ----------------------------------------------------------------------------- unfold
def unfold(module: N.Module, func_name: str, band, axes) -> None:
    """Copy loops `axes` (positions in the perfect nest of band `band` of function `func_name`,
    outermost = 0) out into one body per iteration: `for i in range(2): S(i)` becomes `S(0); S(1)`
    (processing elements that HLS builds side by side). Bounds must be constant, lower bounds 0.
    The band's loops may sit beside other statements (the copy loops of `buffer_at`). A call directly in an unfolded loop's body gets its own copy of the callee per iteration, as
    upstream Allo does (`kernel` -> `kernel_0`, `kernel_1`; two axes give `kernel_0_0`, ...), so
    each processing element can be scheduled on its own (`s.pipeline("kernel_1:k")`)."""
    func = module.func(func_name)
    bands = get_bands(func)
    if band not in bands:
        raise _err("unfold", "band_name", f"function {func.name!r} has no band {band!r}; bands: {', '.join(bands)}")
    axes = sorted(axes)
    if not axes or axes != list(range(axes[0], axes[0] + len(axes))) or axes[0] < 0:
        raise _err("unfold", "axes", f"expected consecutive non-negative loop positions, got {axes!r}")
    chain = [bands[band]]
    while (nxt := _next_band_loop(chain[-1])) is not None:
        chain.append(nxt)
    if axes[-1] >= len(chain):
        raise _err("unfold", "axes", f"band {band!r} has {len(chain)} nested loop(s) "
                                     f"({', '.join(lp.name for lp in chain)}); axis {axes[-1]} is out of range")
    for pos in reversed(axes):
        lp = chain[pos]
        lb, ub = as_int(lp.lb), as_int(lp.ub)
        if lb != 0 or ub is None:
            raise _err("unfold", "axes", f"loop {lp.name!r} needs constant bounds starting at 0")
        copies = _unfolded(func, lp, range(lb, ub, lp.step))
        copied = _own_callees(module, func, copies, range(lb, ub, lp.step), len(lp.body))
        holder = chain[pos - 1].body if pos else _parent_body(func, lp)
        at = next(k for k, s in enumerate(holder) if s is lp)
        if pos == 0 and OP_NAME in lp.attrs:
            first = next((s for s in copies if isinstance(s, N.For) and OP_NAME not in s.attrs), None)
            if first is not None and OP_NAME not in first.attrs:
                first.attrs[OP_NAME] = lp.attrs[OP_NAME]  # the band name stays addressable
        holder[at:at + 1] = copies
        _drop_uncalled(module, copied)


def _next_band_loop(lp):
    """The loop nested in `lp` that continues its band: the lone statement of the body, or the
    one loop of the body that starts no band of its own (buffer_at's copy loops sit beside it)."""
    if len(lp.body) == 1 and isinstance(lp.body[0], N.For):
        return lp.body[0]
    inner = [s for s in lp.body if isinstance(s, N.For) and OP_NAME not in s.attrs]
    return inner[0] if len(inner) == 1 else None


def _parent_body(func, loop):
    path = V.loop_path(func, loop)
    if len(path) > 1:
        return path[-2].body

    return V.parent_list(func, loop)[0]


def _unfolded(func, lp, values):
    out = []
    shared = {id(b): b for b in V.iter_buffers(func)}
    shared.update({id(x.var): x.var for x in V.loop_path(func, lp)})  # outer loop vars stay linked
    for v in values:
        body = copy.deepcopy(lp.body, dict(shared))  # fresh inner loops and vars, the same buffers
        V.subst_stmts(body, {lp.var: const(v)})
        for s in V.walk_stmts(body):
            if isinstance(s, N.For) and OP_NAME in s.attrs:
                s.attrs[OP_NAME] = f"{s.attrs[OP_NAME]}_{lp.name}{v}"
        out += body
    return out


def _own_callees(module, func, copies, values, per_copy):
    """Point each call at the top level of the unfolded copies (`per_copy` statements per value)
    at a fresh copy of its callee named `<callee>_<value>`; returns the names of the callees copied.
    Copies go right before the function that calls them (callees precede callers)."""
    old = set()
    for k, v in enumerate(values):
        for st in copies[k * per_copy:(k + 1) * per_copy]:
            if not isinstance(st, N.CallStmt) or st.callee == func.name:
                continue
            src = module.func(st.callee)
            name, n = f"{src.name}_{v}", 0
            while name in {f.name for f in module.funcs}:  # never shadow an existing function
                n += 1
                name = f"{src.name}_{v}_{n}"
            module.funcs.insert(module.funcs.index(func), src.clone(name))
            inst = module.meta.get(INSTANCES, {})
            if src.name in inst:
                inst[name] = inst[src.name]
            old.add(src.name)
            st.callee = name
    return old


def _drop_uncalled(module, names):
    """Remove the functions of `names` that no function calls any more (not the top)."""
    for name in names:
        called = any(isinstance(st, N.CallStmt) and st.callee == name for f in module.funcs for st in V.walk_stmts(f.body))
        if not called and name != module.top:
            module.funcs = [f for f in module.funcs if f.name != name]
            module.meta.get(INSTANCES, {}).pop(name, None)


# ----------------------------------------------------------------------------- inline
def inline(func: N.Func, enable=True) -> None:
    """Mark `func` for inlining into its callers (`#pragma HLS inline`; `inline off` when False)."""
    func.attrs[INLINE] = bool(enable)


# ----------------------------------------------------------------------------- config_op
def config_op(module: N.Module, func_name: str, op: str, impl: str = "auto", latency: int = -1) -> None:
    """Default binding of integer operator `op` for the whole design (Vitis `config_op <op> -impl
    <impl> [-latency n]`, written into run.tcl; the QoR estimate binds the same way). "auto"
    removes the setting (Vitis's width rule: a multiplier with an operand of at most 10 bits in
    LUTs, wider ones in DSPs)."""
    table = dict(module.meta.get(CONFIG_OP, {}))
    if impl == "auto" and latency < 0:
        table.pop(op, None)
    else:
        table[op] = (impl, None if latency < 0 else int(latency))
    if table:
        module.meta[CONFIG_OP] = table
    else:
        module.meta.pop(CONFIG_OP, None)


__all__ = ["reshape", "unfold", "inline", "remap_indices", "config_op"]
