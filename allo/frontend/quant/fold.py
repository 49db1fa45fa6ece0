"""BatchNorm folding (before quantizing): a batch norm in eval mode whose input is a conv or linear
with constant weights, used by nothing else, becomes part of that layer's weights and bias
(W' = W * g / sqrt(var + eps) per output channel, b' = (b - mean) * g / sqrt(var + eps) + beta); the
batch norm node then passes its input through (op `allo.folded_batch_norm`).

Example::

    folded = fold_batch_norms(graph)     # {"conv": "getitem"}: the conv now computes the BN's output
"""
from __future__ import annotations

from ..graph import Const
from ..ops.table import bind, torch_op

BN_KEYS = ("aten.batch_norm", "aten._native_batch_norm_legit_no_training")
LAYER_KEYS = ("aten.conv2d", "aten.conv1d", "aten.convolution", "aten.linear")


def fold_batch_norms(graph) -> dict:
    """Fold every foldable batch norm of `graph` (in place); {layer node name: name of the node whose
    calibrated range the layer's output now has}."""
    producers = {tn.fx: tn for tn in graph.nodes}
    folded = {}
    for tn in graph.nodes:
        if tn.op not in BN_KEYS:
            continue
        a = bind(tn.target, tn.args, tn.kwargs)
        layer = producers.get(a["input"])
        if layer is None or layer.op not in LAYER_KEYS or len(layer.fx.users) != 1 or a.get("training"):
            continue
        consts = [_const(graph, a.get(k)) for k in ("running_mean", "running_var", "weight", "bias")]
        la = bind(layer.target, layer.args, layer.kwargs)
        w, b = _const(graph, la["weight"]), _const(graph, la.get("bias"))
        if consts[0] is None or consts[1] is None or w is None or (la.get("bias") is not None and b is None) \
                or la.get("transposed"):
            continue
        _fold(graph, layer, la, w, b, consts, float(a["eps"]))
        tn.op = "allo.folded_batch_norm"
        users = list(tn.fx.users)
        folded[layer.name] = users[0].name if tn.key != "aten.batch_norm" and len(users) == 1 else tn.name
    return folded


def _const(graph, x):
    if x is None:
        return None
    if isinstance(x, Const):
        return x
    return graph.consts.get(x)


def _fold(graph, layer, la, w, b, consts, eps):
    import torch

    mean, var, gamma, beta = (c.tensor.double() if c is not None else None for c in consts)
    n = w.tensor.shape[0]
    gamma = torch.ones(n, dtype=torch.float64) if gamma is None else gamma
    beta = torch.zeros(n, dtype=torch.float64) if beta is None else beta
    factor = gamma / torch.sqrt(var + eps)
    shape = (n,) + (1,) * (w.tensor.dim() - 1)
    new_w = (w.tensor.double() * factor.reshape(shape)).to(w.tensor.dtype)
    bias = b.tensor.double() if b is not None else torch.zeros(n, dtype=torch.float64)
    new_b = ((bias - mean) * factor + beta).to(w.tensor.dtype)
    la["weight"] = Const(new_w, f"{w.name}_bnfold")
    la["bias"] = Const(new_b, f"{layer.var or layer.name}_bias_bnfold")
    schema = layer.target._schema
    layer.args = tuple(la[arg.name] for arg in schema.arguments if not arg.kwarg_only)
    layer.kwargs = {arg.name: la[arg.name] for arg in schema.arguments if arg.kwarg_only}


@torch_op("allo.folded_batch_norm")
def folded_batch_norm(ctx, node, a):
    """A batch norm folded into the layer before it: its input unchanged."""
    v = ctx.view(a["input"])
    return v if node.key == "aten.batch_norm" else (v, None, None)
