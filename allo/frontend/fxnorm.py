"""Stage 1 (fallback) of the import: torch.fx capture (`symbolic_trace` + `ShapeProp`), normalised
to the aten-style nodes the op table handles, for models torch.export cannot trace.

Module calls (`nn.Linear`, `nn.Conv2d`, ...) become their aten op with the module's tensors as
constants; `torch.*`/`F.*` functions, tensor methods and `operator` calls map to the aten op of the
same name (varargs like `x.view(2, 4)` are packed). Tensor indexing `x[:, 0]` becomes slice/select/
unsqueeze nodes.

Example::

    gm = torch.fx.symbolic_trace(model); ShapeProp(gm).propagate(x)
    cap = normalize_fx(gm, (x,))
"""
from __future__ import annotations

import operator

from ..errors import FrontendError
from .graph import Captured, Const, TNode, make_node

OPERATORS = {operator.add: "add", operator.sub: "sub", operator.mul: "mul", operator.truediv: "div",
             operator.matmul: "matmul", operator.neg: "neg", operator.pow: "pow", operator.floordiv: "floor_divide",
             operator.eq: "eq", operator.ne: "ne", operator.lt: "lt", operator.le: "le", operator.gt: "gt",
             operator.ge: "ge", operator.and_: "logical_and", operator.or_: "logical_or"}
PACKED = {"view", "reshape", "permute", "expand", "repeat", "tile"}  # methods taking *sizes
RENAMES = {"softmax": "softmax", "log_softmax": "log_softmax", "contiguous": "contiguous", "type_as": "type_as",
           "size": None, "dim": None}
PREFERRED = ("Tensor", "default", "int", "dim", "using_ints", "dims", "Scalar", "self", "dim_IntList")


def _overload(name, nargs=1):
    """The aten overload of `name` whose schema takes `nargs` positional arguments."""
    import torch

    packet = getattr(torch.ops.aten, name, None)
    if packet is None:
        return None
    names = [p for p in PREFERRED if p in packet.overloads()]
    names += [p for p in packet.overloads() if p not in names and "out" not in p]
    for p in names:
        op = getattr(packet, p)
        positional = [a for a in op._schema.arguments if not a.kwarg_only]
        required = [a for a in positional if not a.has_default_value()]
        if len(required) <= nargs <= len(positional):
            return op
    return getattr(packet, names[0]) if names else None


def _module_op(mod, args, kwargs):
    """(aten name, args, kwargs) for a call of a leaf module, or None if unknown."""
    import torch.nn as nn

    def c(t, name):
        return None if t is None else Const(t.detach(), name)

    x = args[0] if args else None
    p = mod
    table = [
        (nn.Linear, lambda: ("linear", (x, c(p.weight, "weight"), c(p.bias, "bias")))),
        (nn.Conv2d, lambda: ("conv2d", (x, c(p.weight, "weight"), c(p.bias, "bias"), p.stride, p.padding, p.dilation, p.groups))),
        (nn.Conv1d, lambda: ("conv1d", (x, c(p.weight, "weight"), c(p.bias, "bias"), p.stride, p.padding, p.dilation, p.groups))),
        ((nn.BatchNorm1d, nn.BatchNorm2d), lambda: ("batch_norm", (x, c(p.weight, "weight"), c(p.bias, "bias"),
                                                                  c(p.running_mean, "mean"), c(p.running_var, "var"),
                                                                  False, 0.0, p.eps, False))),
        (nn.LayerNorm, lambda: ("layer_norm", (x, list(p.normalized_shape), c(p.weight, "weight"), c(p.bias, "bias"), p.eps))),
        (nn.RMSNorm, lambda: ("rms_norm", (x, list(p.normalized_shape), c(p.weight, "weight"), p.eps))),
        (nn.ReLU, lambda: ("relu", (x,))),
        (nn.GELU, lambda: ("gelu", (x,), {"approximate": p.approximate})),
        (nn.SiLU, lambda: ("silu", (x,))),
        (nn.Sigmoid, lambda: ("sigmoid", (x,))),
        (nn.Tanh, lambda: ("tanh", (x,))),
        ((nn.Dropout, nn.Identity), lambda: ("clone", (x,))),
        (nn.Softmax, lambda: ("softmax", (x, p.dim if p.dim is not None else -1))),
        (nn.LogSoftmax, lambda: ("log_softmax", (x, p.dim if p.dim is not None else -1))),
        (nn.MaxPool2d, lambda: ("max_pool2d", (x, p.kernel_size, p.stride, p.padding, p.dilation, p.ceil_mode))),
        (nn.AvgPool2d, lambda: ("avg_pool2d", (x, p.kernel_size, p.stride, p.padding, p.ceil_mode, p.count_include_pad,
                                               p.divisor_override))),
        (nn.AdaptiveAvgPool2d, lambda: ("adaptive_avg_pool2d", (x, p.output_size))),
        (nn.Flatten, lambda: ("flatten", (x, p.start_dim, p.end_dim))),
        (nn.Embedding, lambda: ("embedding", (c(p.weight, "weight"), x))),
    ]
    for cls, make in table:
        if isinstance(mod, cls):
            out = make()
            return out if len(out) == 3 else (out[0], out[1], {})
    return None


def normalize_fx(gm, inputs) -> Captured:
    """Turn a shape-propagated fx GraphModule into a Captured graph of aten-style nodes."""
    import torch

    inputs_, consts, nodes, outputs = [], {}, [], []
    modules = dict(gm.named_modules())
    for n in gm.graph.nodes:
        meta = n.meta.get("tensor_meta")
        if n.op == "placeholder":
            if meta is None:
                raise FrontendError(f"model input {n.name!r} is not a tensor")
            inputs_.append((n, n.name, tuple(int(d) for d in meta.shape), meta.dtype))
        elif n.op == "get_attr":
            value = gm
            for part in n.target.split("."):
                value = getattr(value, part)
            consts[n] = Const(value.detach() if isinstance(value, torch.Tensor) else value, n.target.replace(".", "_"),
                              n.target)
        elif n.op == "output":
            outputs = list(n.args[0]) if isinstance(n.args[0], (tuple, list)) else [n.args[0]]
        else:
            nodes.append(_normalize(n, modules, consts))
    return Captured(gm.graph, "torch.fx", inputs_, consts, [t for t in nodes if t is not None], outputs)


def _normalize(n, modules, consts) -> TNode | None:
    import torch

    args, kwargs = tuple(n.args), dict(n.kwargs)
    if n.op == "call_module":
        mod = modules[n.target]
        found = _module_op(mod, args, kwargs)
        if found is None:
            raise FrontendError(f"module {n.target!r} of type {type(mod).__name__} is not supported by the torch.fx "
                                "fallback (torch.export could not capture the model)")
        name, args, kwargs = found
        for i, a in enumerate(args):
            if isinstance(a, Const):
                a.name = f"{n.target.replace('.', '_')}_{a.name}"
        return _aten(n, name, args, kwargs, module=n.target)
    if n.op == "call_method":
        name = n.target
        if name in ("size", "dim", "numel"):
            shape = tuple(args[0].meta["tensor_meta"].shape)
            value = {"size": (lambda *d: torch.Size(shape) if not d else shape[d[0]]),
                     "dim": lambda: len(shape), "numel": lambda: int(torch.tensor(shape).prod())}[name](*args[1:])
            consts[n] = Const(value, n.name)
            return None
        if name in PACKED and len(args) > 1 and not any(isinstance(a, (list, tuple)) for a in args[1:]):
            args = (args[0], list(args[1:]))
        return _aten(n, name, args, kwargs)
    if n.op == "call_function":
        if n.target is operator.getitem and _is_tensor(args[0]):
            return _aten(n, "_fx_index", args, kwargs)
        if n.target is operator.getitem:
            return make_node(n, "getitem")
        name = OPERATORS.get(n.target) or getattr(n.target, "__name__", str(n.target))
        return _aten(n, name, args, kwargs)
    raise FrontendError(f"unexpected fx node {n.op} {n.name!r}")


def _is_tensor(x):
    return hasattr(x, "meta") and x.meta.get("tensor_meta") is not None


def _aten(n, name, args, kwargs, module=""):
    if name == "_fx_index":
        return make_node(n, "fx.index", module or "", target=None, args=args, kwargs=kwargs)
    op = _overload(name, len(args))
    if op is None:
        return make_node(n, f"torch.{name}", module, args=args, kwargs=kwargs)
    return make_node(n, f"aten.{name}", module, target=op, args=args, kwargs=kwargs)
