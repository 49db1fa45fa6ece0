"""Destination passing for the top function: a returned local array is written straight into
the caller's output array instead of a fresh allocation copied out afterwards.

`direct_outputs(mod)` rewrites the top function of a module clone: each returned local (declared
at the top level of the function, not returned twice) becomes an extra argument; its Alloc
becomes a fill loop (or nothing without initial value) and it leaves the Return. The returned
plan tells `entry_wrapper` how to keep the original calling convention.

Example::

    plan = direct_outputs(mod_clone)     # [("arg", param_index) | ("result", result_index)]
"""
from __future__ import annotations

from .... import render as R
from ....ir import nodes as N
from ....ir.attrs import STATEFUL
from ....ir.types import ArrayType, Index

index_t = Index()


def _fill(buf, init, loc):
    ivs = [N.IterVar(f"{buf.name}_f{k}") for k in range(buf.type.rank)]
    body = [N.Store(buf, list(ivs), init, loc=loc)]
    for k in reversed(range(buf.type.rank)):
        body = [N.For(ivs[k], N.Const(0, index_t), N.Const(buf.shape[k], index_t), 1, body, ivs[k].name)]
    return body[0]


def direct_outputs(mod: N.Module):
    """Rewrite `mod.top` in place; return the plan per original result, or None if unchanged."""
    f = mod.func(mod.top)
    if not f.body or not isinstance(f.body[-1], N.Return):
        return None
    ret = f.body[-1]
    top_allocs = {id(s.buf): k for k, s in enumerate(f.body) if isinstance(s, N.Alloc)}
    seen, chosen = set(), {}
    for k, (v, rt) in enumerate(zip(ret.values, f.result_types)):
        if not isinstance(v, N.Buffer) or not isinstance(rt, ArrayType) or id(v) in seen:
            seen.add(id(v))
            continue
        seen.add(id(v))
        a = top_allocs.get(id(v))
        if v.kind != "local" or a is None or v.type.rank == 0 or STATEFUL in v.attrs:
            continue  # a Stateful local lives in its global; the result is a copy
        init = f.body[a].init
        if isinstance(init, N.Buffer):
            continue
        chosen[k] = v
    # a buffer returned twice must stay a result
    counts = {}
    for v in ret.values:
        counts[id(v)] = counts.get(id(v), 0) + 1
    chosen = {k: v for k, v in chosen.items() if counts[id(v)] == 1}
    if not chosen:
        return None
    plan, new_vals, new_types, extra = [], [], [], []
    for k, (v, rt) in enumerate(zip(ret.values, f.result_types)):
        if k in chosen:
            plan.append(("arg", len(f.params) + len(extra)))
            extra.append(v)
        else:
            plan.append(("result", len(new_vals)))
            new_vals.append(v)
            new_types.append(rt)
    body = []
    for s in f.body[:-1]:
        if isinstance(s, N.Alloc) and any(s.buf is v for v in extra):
            if s.init is not None:
                body.append(_fill(s.buf, s.init, s.loc))
            continue
        body.append(s)
    for v in extra:
        v.kind = "arg"
    f.params = list(f.params) + extra
    f.result_types = new_types
    f.body = body + [N.Return(new_vals, loc=ret.loc)]
    return plan


def entry_wrapper(mr, top: N.Func, orig_params: int, orig_results: list, plan) -> str:
    """`@__allo_entry_<top>` with the original ABI (inputs, then one output per original result),
    calling the rewritten top function (see R.ModuleRenderer.entry_wrapper)."""
    params, call_args, pre = [], [], []
    for k, p in enumerate(top.params[:orig_params]):
        if p.kind == "scalar_arg":
            t = p.dtype
            abi = R.abi_scalar(t)
            params.append(f"%a{k}: {abi}")
            lines, v = R.abi_to_compute(f"%a{k}", abi, t, f"%c{k}")
            pre.append(lines)
            call_args.append((v, t.mlir))
        else:
            params.append(f"%a{k}: {p.type.mlir}")
            call_args.append((f"%a{k}", p.type.mlir))
    outs = []
    for k, rt in enumerate(orig_results):
        ty = rt.mlir if isinstance(rt, ArrayType) else f"memref<{R.scalar_storage(rt)}>"
        params.append(f"%o{k}: {ty}")
        outs.append(ty)
    for k, (kind, _) in enumerate(plan):
        if kind == "arg":
            call_args.append((f"%o{k}", outs[k]))
    lines = [f"  func.func @{R.ENTRY_PREFIX}{top.name}({', '.join(params)}) attributes {{llvm.emit_c_interface}} {{"]
    lines += ["    " + x for chunk in pre for x in chunk]
    rtypes = [rt.mlir for rt in top.result_types]
    n = len(rtypes)
    lhs = "" if n == 0 else ("%r = " if n == 1 else f"%r:{n} = ")
    lines.append(f"    {lhs}func.call @{top.name}({', '.join(v for v, _ in call_args)}) : "
                 f"({', '.join(t for _, t in call_args)}) -> ({', '.join(rtypes)})")
    for k, (kind, idx) in enumerate(plan):
        if kind != "result":
            continue
        rt = orig_results[k]
        r = "%r" if n == 1 else f"%r#{idx}"
        if isinstance(rt, ArrayType):
            lines.append(f"    memref.copy {r}, %o{k} : {rt.mlir} to {rt.mlir}")
            lines.append(f"    memref.dealloc {r} : {rt.mlir}")
        else:
            conv, sv = R.compute_to_storage(r, rt, f"%s{k}")
            lines += ["    " + x for x in conv]
            lines.append(f"    memref.store {sv}, %o{k}[] : {outs[k]}")
    lines += ["    return", "  }"]
    return "\n".join(lines) + "\n"
