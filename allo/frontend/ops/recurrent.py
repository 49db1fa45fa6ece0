"""Recurrent layers: nn.LSTM and nn.GRU (stacked, bidirectional, batch_first, unbatched),
unrolled over the example's sequence length.

Per layer and direction, the input projection of all time steps is one library `nn.linear`
([T*B, I] x W_ih^T + biases); the recurrence is one generated kernel whose time loop carries the
hidden (and cell) state and computes `h @ W_hh^T` and the gates at every step. Gate order and
formulas are torch's (LSTM: i, f, g, o; GRU: r, z, n with b_hn inside r * (...)).

Example::

    out, (h, c) = nn.LSTM(16, 32, num_layers=2, batch_first=True)(x)   # imports as 2 linears + 2 recurrences
"""
from __future__ import annotations

from ..codegen import loop_text
from ..graph import Const
from ..layout import View
from .common import elem_type, with_hint
from .linalg import linear_view
from .table import torch_op

GATES = {"lstm": 4, "gru": 3}


@torch_op("aten.lstm", "aten.gru")
def recurrent(ctx, node, a):
    kind = node.key.split(".")[-1]
    if not isinstance(a.get("params"), (list, tuple)) or "batch_first" not in a:
        raise ctx.error(f"{kind} with packed sequences is not supported (pass a padded tensor)")
    if a.get("train") and a.get("dropout"):
        raise ctx.error(f"{kind} with dropout in training mode cannot be imported (call model.eval())")
    x = ctx.view(a["input"])
    unbatched = x.rank == 2
    x = x.unsqueeze(1) if unbatched else (x.transpose(0, 1) if a["batch_first"] else x)
    layers, dirs = a["num_layers"], 2 if a["bidirectional"] else 1
    per = 4 if a["has_biases"] else 2
    params = list(a["params"])
    if len(params) != layers * dirs * per or not all(isinstance(p, Const) for p in params):
        raise ctx.error(f"{kind} with projections (proj_size) or non-parameter weights is not supported")
    hx = list(a["hx"]) if kind == "lstm" else [a["hx"]]
    seq, batch = x.sizes[0], x.sizes[1]
    hidden = params[1].tensor.shape[1]
    finals = [[], []]  # h_n and c_n pieces, (layer, direction) order
    layer_in = x
    for layer in range(layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            w = params[k * per:(k + 1) * per]
            init = [_initial(ctx, h, k, batch, hidden, unbatched) for h in hx]
            ys = with_hint(ctx, f"l{layer}{'_reverse' if d else ''}", _direction, ctx, kind, layer_in, w, init,
                           seq, batch, hidden, d == 1)
            last = 0 if d else seq - 1
            outs.append(_h_seq(ys, kind))
            finals[0].append(_h_seq(ys, kind).select(0, last))
            if kind == "lstm":
                finals[1].append(ys.select(0, last).select(1, 1))
        layer_in = outs[0] if dirs == 1 else ctx.concat(outs, 2, (seq, batch, dirs * hidden))
    out = layer_in.squeeze([1]) if unbatched else (layer_in.transpose(0, 1) if a["batch_first"] else layer_in)
    states = [_stack(ctx, parts, unbatched, name) for parts, name in zip(finals, ("h_n", "c_n")) if parts]
    return (out, *states)


def _initial(ctx, h, k, batch, hidden, unbatched):
    """The [B, H] initial state of layer/direction k from hx ([L*D, B, H], or [L*D, H] unbatched)."""
    if isinstance(h, Const):
        return Const(h.tensor[k].reshape(batch, hidden).contiguous(), f"{ctx.hint}_h0_{k}")
    v = ctx.view(h).select(0, k)
    return v.unsqueeze(0) if unbatched else v


def _h_seq(ys: View, kind) -> View:
    return ys.select(2, 0) if kind == "lstm" else ys


def _stack(ctx, parts, unbatched, name):
    hint = ctx.hint
    ctx.hint = f"{hint}_{name}"
    try:
        _, batch, hidden = (len(parts),) + parts[0].sizes
        out = ctx.concat([p.unsqueeze(0) for p in parts], 0, (len(parts), batch, hidden))
    finally:
        ctx.hint = hint
    return out.squeeze([1]) if unbatched else out


def _direction(ctx, kind, x: View, w, init, seq, batch, hidden, reverse) -> View:
    """One layer in one direction: the input projection (library linear), then the recurrence."""
    import torch

    gates = GATES[kind] * hidden
    w_ih, w_hh = w[0], w[1]
    b_ih = w[2].tensor if len(w) == 4 else torch.zeros(gates)
    b_hh = w[3].tensor if len(w) == 4 else torch.zeros(gates)
    bias = b_ih + b_hh if kind == "lstm" else b_ih
    flat = x.reshape((seq * batch, x.sizes[2])) or View.whole(ctx.laid_out(x), (seq * batch, x.sizes[2]))
    proj = with_hint(ctx, "proj", linear_view, ctx, flat, w_ih, Const(bias.contiguous(), f"{w_ih.name}_gate_bias"),
                     (seq, batch, gates))
    params = [("P", ctx.laid_out(proj, (seq * batch, gates))), ("W", ctx.laid_out(w_hh, (gates, hidden)))]
    if kind == "gru":
        params.append(("Bh", ctx.laid_out(Const(b_hh.contiguous(), f"{w_hh.name}_bias"), (gates,))))
    params += [(f"S{i}", ctx.laid_out(s, (batch, hidden))) for i, s in enumerate(init)]
    T = elem_type(ctx)
    body = (_lstm_body if kind == "lstm" else _gru_body)(T, seq, batch, hidden, reverse)
    out_shape = (seq, batch, 2, hidden) if kind == "lstm" else (seq, batch, hidden)
    buf = ctx.prog.helper_call(kind, params, body, out_shape, T, ctx.hint)
    return View.whole(buf)


def _recurrence(T, seq, batch, hidden, gates, reverse, init_lines, gate_init, step_lines):
    """`for s in range(seq)`: gs = hs @ W^T (+ gate_init), then the gate step; loop names are
    unique in the kernel (the HLS schedule pipelines the innermost ones by name)."""
    step = f"({seq - 1} - s)" if reverse else "s"

    def row(b):  # row of P (the input projection, [T*B, gates]) for time step s, batch b
        return f"{step} * {batch} + {b}"

    lines = [f"hs: {T!r}[{batch}, {hidden}]", f"gs: {T!r}[{batch}, {gates}]"] + init_lines
    matvec = [f"acc: {T!r} = {gate_init.format(t=row('bg'))}", f"for k in allo.reduction({hidden}):",
              "    acc = acc + hs[bg, k] * W[r, k]", "gs[bg, r] = acc"]
    body = loop_text([batch, gates], ["bg", "r"], matvec) + \
        loop_text([batch, hidden], ["b", "j"], [ln.format(t=row("b"), y=step) for ln in step_lines])
    return lines + [f"for s in range({seq}):"] + ["    " + ln for ln in body]


def _sigmoid(x):
    return f"1.0 / (1.0 + allo.exp(-({x})))"


def _lstm_body(T, seq, batch, hidden, reverse):
    H = hidden
    init = [f"cs: {T!r}[{batch}, {H}]"] + loop_text([batch, H], ["bi", "ji"], ["hs[bi, ji] = S0[bi, ji]",
                                                                             "cs[bi, ji] = S1[bi, ji]"])
    step = [f"ig: {T!r} = {_sigmoid('gs[b, j]')}", f"fg: {T!r} = {_sigmoid(f'gs[b, {H} + j]')}",
            f"gg: {T!r} = allo.tanh(gs[b, {2 * H} + j])", f"og: {T!r} = {_sigmoid(f'gs[b, {3 * H} + j]')}",
            "cs[b, j] = fg * cs[b, j] + ig * gg", "hs[b, j] = og * allo.tanh(cs[b, j])",
            "Y[{y}, b, 0, j] = hs[b, j]", "Y[{y}, b, 1, j] = cs[b, j]"]
    return _recurrence(T, seq, batch, H, 4 * H, reverse, init, "P[{t}, r]", step)


def _gru_body(T, seq, batch, hidden, reverse):
    H = hidden
    init = loop_text([batch, H], ["bi", "ji"], ["hs[bi, ji] = S0[bi, ji]"])
    step = [f"rg: {T!r} = {_sigmoid('P[{t}, j] + gs[b, j]')}",
            f"zg: {T!r} = {_sigmoid(f'P[{{t}}, {H} + j] + gs[b, {H} + j]')}",
            f"ng: {T!r} = allo.tanh(P[{{t}}, {2 * H} + j] + rg * gs[b, {2 * H} + j])",
            "hs[b, j] = (1.0 - zg) * ng + zg * hs[b, j]", "Y[{y}, b, j] = hs[b, j]"]
    return _recurrence(T, seq, batch, H, 3 * H, reverse, init, "Bh[r]", step)
