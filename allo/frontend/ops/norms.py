"""Normalisation: layer_norm, rms_norm, batch_norm (running statistics), softmax/log_softmax.

Each goes to its library kernel over the rows of the last axis (softmax over another axis permutes
the view first).
"""
from __future__ import annotations

from ..layout import numel
from .common import elem_type, flat_param, ones, zeros
from .table import torch_op


@torch_op("aten.layer_norm")
def layer_norm(ctx, node, a):
    d = numel(a["normalized_shape"])
    xname, (m, _) = ctx.rows(a["input"], d)
    g = flat_param(ctx, a["weight"], d, "gamma", ones)
    b = flat_param(ctx, a["bias"], d, "beta", zeros)
    return ctx.nn("layer_norm", [elem_type(ctx), m, d], [xname, g, b, repr(float(a["eps"]))], node.shape, (m, d))


@torch_op("aten.rms_norm")
def rms_norm(ctx, node, a):
    import torch

    d = numel(a["normalized_shape"])
    eps = a.get("eps")
    if eps is None:
        eps = torch.finfo(node.dtype).eps
    xname, (m, _) = ctx.rows(a["input"], d)
    g = flat_param(ctx, a["weight"], d, "gamma", ones)
    return ctx.nn("rms_norm", [elem_type(ctx), m, d], [xname, g, repr(float(eps))], node.shape, (m, d))


@torch_op("aten.batch_norm", "aten._native_batch_norm_legit_no_training", "aten.native_batch_norm",
          "aten._native_batch_norm_legit")
def batch_norm(ctx, node, a):
    training = a.get("training", False)
    mean, var = a.get("running_mean"), a.get("running_var")
    if training or mean is None or var is None:
        raise ctx.error("batch norm with batch statistics (training mode or track_running_stats=False) cannot be "
                        "imported; call model.eval() on a model with running statistics")
    v = ctx.view(a["input"])
    if v.rank < 2:
        raise ctx.error("batch norm needs an input with a channel dimension")
    b, c = v.sizes[0], v.sizes[1]
    rest = v.sizes[2:]
    h, w = (rest[0], numel(rest[1:])) if rest else (1, 1)
    x = ctx.arr(v, (b, c, h, w))
    args = [x, flat_param(ctx, mean, c, "mean", zeros), flat_param(ctx, var, c, "var", ones),
            flat_param(ctx, a.get("weight"), c, "gamma", ones), flat_param(ctx, a.get("bias"), c, "beta", zeros),
            repr(float(a["eps"]))]
    out = ctx.nn("batch_norm2d", [elem_type(ctx), b, c, h, w], args, v.sizes, (b, c, h, w))
    if node.key == "aten.batch_norm":
        return out
    return (out, None, None)


@torch_op("aten.softmax", "aten._softmax", "aten.log_softmax", "aten._log_softmax", "aten.special_softmax")
def softmax(ctx, node, a):
    x = ctx.view(a["self"])
    kernel = "log_softmax" if "log_softmax" in node.key else "softmax"
    return softmax_view(ctx, x, a["dim"], kernel)


def softmax_view(ctx, v, dim, kernel="softmax"):
    if v.rank == 0:
        raise ctx.error("softmax of a scalar")
    dim = dim % v.rank
    perm = [d for d in range(v.rank) if d != dim] + [dim]
    pv = v.permute(perm) if dim != v.rank - 1 else v
    name, (m, n) = ctx.rows(pv)
    out = ctx.nn(kernel, [elem_type(ctx), m, n], [name], pv.sizes, (m, n))
    if dim == v.rank - 1:
        return out
    inv = [perm.index(d) for d in range(v.rank)]
    return out.permute(inv)
