"""Linear algebra: linear, addmm, matmul/mm/bmm (with broadcasting), einsum, baddbmm.

Products go to the library (`nn.linear`, `nn.linear3d`, `nn.matmul`, `nn.bmm`); operands are laid out
as the arrays those kernels take (a copy only when a view is not already that array).
"""
from __future__ import annotations

from ..codegen import literal
from ..graph import Const
from ..layout import numel
from .common import broadcast_shapes, elem_type, flat_param, reshape_view, zeros
from .table import torch_op


@torch_op("aten.linear")
def linear(ctx, node, a):
    return linear_view(ctx, a["input"], a["weight"], a["bias"], node.shape)


def linear_view(ctx, x, w, b, out_sizes):
    n, k = ctx.sizes(w)
    v = ctx.view(x)
    T = elem_type(ctx)
    wname = ctx.arr(w, (n, k))
    bname = flat_param(ctx, b, n, "bias", zeros)
    if v.is_whole() and len(v.buf.shape) == 3 and v.buf.shape[2] == k and ctx.prog.uses.get(id(v.buf)):
        bb, m, _ = v.buf.shape
        return ctx.nn("linear3d", [T, bb, m, n, k], [v.buf.name, wname, bname], out_sizes, (bb, m, n))
    xname, (m, _) = ctx.rows(v, k)
    return ctx.nn("linear", [T, m, n, k], [xname, wname, bname], out_sizes, (m, n))


@torch_op("aten.addmm")
def addmm(ctx, node, a):
    bias, m1, m2 = a["self"], a["mat1"], a["mat2"]
    beta, alpha = a.get("beta", 1), a.get("alpha", 1)
    n = ctx.sizes(m2)[1]
    if isinstance(m2, Const) and isinstance(bias, Const) and numel(tuple(bias.tensor.shape)) == n:
        w = Const((m2.tensor.t() * alpha).contiguous(), f"{m2.name}_t")
        b = Const((bias.tensor.reshape(n) * beta).contiguous(), bias.name)
        return linear_view(ctx, m1, w, b, node.shape)
    hint = ctx.hint
    ctx.hint = hint + "_mm"
    prod = matmul_views(ctx, m1, m2, node.shape)
    ctx.hint = hint

    return ctx.ew("addmm", lambda p, q: f"{q} * {literal(alpha)} + {p} * {literal(beta)}", [bias, prod])


@torch_op("aten.matmul", "aten.mm", "aten.bmm")
def matmul(ctx, node, a):
    return matmul_views(ctx, a["self"], a.get("other", a.get("mat2")), node.shape)


def matmul_views(ctx, x, y, out_sizes):
    a, b = ctx.view(x), ctx.view(y)
    squeeze = []
    if a.rank == 1:
        a = a.unsqueeze(0)
        squeeze.append(-2)
    if b.rank == 1:
        b = b.unsqueeze(1)
        squeeze.append(-1)
    T = elem_type(ctx)
    m, k = a.sizes[-2:]
    n = b.sizes[-1]
    batch = broadcast_shapes(a.sizes[:-2], b.sizes[:-2])
    full = tuple(batch) + (m, n)
    if b.rank == 2 or all(s == 0 for s in b.expand(tuple(batch) + (k, n)).strides[:len(batch)]):
        # one weight matrix for every batch: a plain [B*M, K] x [K, N] product
        b2 = b if b.rank == 2 else _drop_batch(b, batch, k, n)
        a_full = a.expand(tuple(batch) + (m, k))
        aname, (rows, _) = ctx.rows(a_full, k)
        out = ctx.nn("matmul", [T, rows, k, n], [aname, ctx.arr(b2, (k, n))], full, (rows, n))
    else:
        nb = numel(batch)
        aname = ctx.arr(a.expand(tuple(batch) + (m, k)), (nb, m, k))
        bname = ctx.arr(b.expand(tuple(batch) + (k, n)), (nb, k, n))
        out = ctx.nn("bmm", [T, nb, m, k, n], [aname, bname], full, (nb, m, n))
    if squeeze:
        out = out.reshape(tuple(out_sizes))
    return out


def _drop_batch(b, batch, k, n):
    v = b.expand(tuple(batch) + (k, n))
    for _ in batch:
        v = v.select(0, 0)
    return v


@torch_op("aten.einsum")
def einsum(ctx, node, a):
    """One- and two-operand einsum: permute + reshape + bmm/matmul (views), sums for dropped indices."""
    eq = a["equation"].replace(" ", "")
    ops = list(a["tensors"])
    lhs, _, out = eq.partition("->")
    specs = lhs.split(",")
    if "..." in eq or len(specs) != len(ops) or len(ops) not in (1, 2):
        raise ctx.error(f"einsum {eq!r} is not supported (one or two operands, no ellipsis)")
    if not _:
        letters = "".join(specs)
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    views = [ctx.view(t) for t in ops]
    for spec, v in zip(specs, views):
        if len(set(spec)) != len(spec):
            raise ctx.error(f"einsum {eq!r}: repeated indices in one operand (diagonals) are not supported")
    hint = ctx.hint
    if len(ops) == 2:
        sa, sb = specs
        size = {c: n for spec, v in zip(specs, views) for c, n in zip(spec, v.sizes)}
        for spec in (sa, sb):  # indices only in one operand and not in the output are summed out first
            lonely = [c for c in spec if c not in out and c not in (sb if spec is sa else sa)]
            if lonely:
                raise ctx.error(f"einsum {eq!r}: summing an index of one operand only is not supported")
        batch = [c for c in out if c in sa and c in sb]
        fa = [c for c in out if c in sa and c not in sb]
        fb = [c for c in out if c in sb and c not in sa]
        k = [c for c in sa if c in sb and c not in out]
        va = views[0].permute([sa.index(c) for c in batch + fa + k])
        vb = views[1].permute([sb.index(c) for c in batch + k + fb])
        nb, m, kk, n = (numel([size[c] for c in g]) for g in (batch, fa, k, fb))
        va = reshape_view(ctx, va, (nb, m, kk))
        vb = reshape_view(ctx, vb, (nb, kk, n))
        ctx.hint = hint + "_mm"
        prod = matmul_views(ctx, va, vb, (nb, m, n))
        ctx.hint = hint
        res = reshape_view(ctx, prod, tuple(size[c] for c in batch + fa + fb))
        order = batch + fa + fb
    else:
        (sa,), (v,) = specs, views
        dropped = [i for i, c in enumerate(sa) if c not in out]
        res = v
        order = [c for c in sa if c in out]
        if dropped:
            res = ctx.reduce("einsum_sum", v, dropped, False, "0", lambda acc, x: f"{acc} + {x}")
    return res.permute([order.index(c) for c in out]) if order != list(out) else res


@torch_op("aten.baddbmm")
def baddbmm(ctx, node, a):

    beta, alpha = a.get("beta", 1), a.get("alpha", 1)
    hint = ctx.hint
    ctx.hint = hint + "_mm"
    prod = matmul_views(ctx, a["batch1"], a["batch2"], node.shape)
    ctx.hint = hint
    return ctx.ew("baddbmm", lambda p, q: f"{q} * {literal(alpha)} + {p} * {literal(beta)}", [a["self"], prod])
