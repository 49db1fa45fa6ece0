"""Capture a PyTorch model as a graph with static shapes (torch.export, fx as a fallback).

The result is a `Captured` graph: user inputs, constant tensors (parameters, buffers, lifted and
folded constants, each with its state-dict name), and the remaining compute nodes in order, each
with an op key (`aten.linear`, `getitem`, ...) and the shape/dtype torch computed for it.
Nodes that depend only on constants (causal masks, rotary tables, `w.t()`) are evaluated here
with torch, so the kernel code sees them as ready-made weights.

Example::

    cap = capture(model, [torch.rand(8, 16)])
    print(cap.graph)                  # the torch.export graph
    [n.key for n in cap.nodes]        # ['aten.linear', 'aten.linear', 'aten.relu']
"""
from __future__ import annotations

import operator
from dataclasses import dataclass

from ..errors import FrontendError

NOOP_KEYS = {"aten._assert_tensor_metadata", "aten._assert_scalar", "aten.sym_constrain_range_for_size",
             "aten._assert_async", "aten.sym_constrain_range", "aten._functional_assert_async"}


@dataclass
class Const:
    """A constant tensor: a parameter/buffer (`state` is its state-dict name) or a folded value."""

    tensor: object
    name: str
    state: str | None = None


@dataclass
class TNode:
    """One compute node: `key` names the op, `args`/`kwargs` hold fx nodes and Python values."""

    fx: object
    key: str
    args: tuple
    kwargs: dict
    shape: tuple | None
    dtype: object
    module: str = ""  # innermost nn.Module path that produced the node ("" = top level)
    target: object = None  # the aten op (defaults to fx.target)

    def __post_init__(self):
        if self.target is None:
            self.target = self.fx.target

    @property
    def name(self):
        return self.fx.name

    def where(self) -> str:
        """`node 'linear_1' (aten.linear) at model.py:12: out = self.fc(x)` for messages."""
        text = f"graph node {self.fx.name!r}"
        if self.module:
            text += f" in module {self.module!r}"
        trace = (self.fx.meta.get("stack_trace") or "").strip().splitlines()
        for i in range(len(trace) - 1, -1, -1):
            line = trace[i].strip()
            if line.startswith("File "):
                where = line.split(",")
                loc = f"{where[0][5:].strip().strip(chr(34))}:{where[1].strip().removeprefix('line ')}"
                code = trace[i + 1].strip() if i + 1 < len(trace) else ""
                text += f" ({loc}: {code})" if code else f" ({loc})"
                break
        return text


@dataclass
class Captured:
    graph: object  # torch.fx.Graph, printed by verbose=True
    method: str  # "torch.export" or "torch.fx"
    inputs: list  # [(fx node, name, shape, torch dtype)]
    consts: dict  # fx node -> Const
    nodes: list  # [TNode] compute nodes in order
    outputs: list  # flat list of fx nodes / Python values
    out_spec: object = None  # pytree spec to rebuild the model's output structure


def op_key(target) -> str:
    """Canonical name of an fx call target: `aten.linear` for torch.ops.aten.linear.default."""
    if target is operator.getitem:
        return "getitem"
    packet = getattr(target, "overloadpacket", None)
    if packet is not None:
        ns = getattr(target, "namespace", "aten")
        return f"{ns}.{packet.__name__}"
    name = getattr(target, "__name__", None) or str(target)
    mod = getattr(target, "__module__", "") or ""
    return f"{mod}.{name}" if mod else name


def capture(model, example_inputs) -> Captured:
    """Export `model` (in eval mode) on `example_inputs` and normalise the graph."""
    import torch

    if not isinstance(model, torch.nn.Module):
        raise FrontendError(f"from_pytorch needs a torch.nn.Module, got {type(model).__name__}")
    inputs = tuple(example_inputs)
    for i, x in enumerate(inputs):
        if not isinstance(x, torch.Tensor):
            raise FrontendError(f"example_inputs[{i}] is a {type(x).__name__}; pass tensors (shapes are taken from them)")
    was_training = model.training
    model.eval()
    try:
        try:
            with _quiet_torch():
                ep = torch.export.export(model, inputs)
        except Exception as export_error:  # noqa: BLE001 - any tracing failure
            return _capture_fx(model, inputs, export_error)
        return _from_export(ep)
    finally:
        model.train(was_training)


class _quiet_torch:
    """Silence torch's tracing output while exporting (a failed export prints the whole graph to
    stderr; our FrontendError says what went wrong instead)."""

    def __enter__(self):
        import contextlib
        import io
        import logging

        self.redirect = contextlib.redirect_stderr(io.StringIO())
        self.redirect.__enter__()
        self.loggers = [logging.getLogger(n) for n in ("torch", "torch.fx", "torch._dynamo", "torch.export")]
        self.levels = [lg.level for lg in self.loggers]
        for lg in self.loggers:
            lg.setLevel(logging.CRITICAL)

    def __exit__(self, *exc):
        for lg, level in zip(self.loggers, self.levels):
            lg.setLevel(level)
        self.redirect.__exit__(*exc)


def _dynamic_error(e) -> FrontendError | None:
    text = f"{type(e).__name__}: {e}"
    markers = ("data-dependent", "data dependent", "GuardOnDataDependent", "symbolically traced variables cannot be used as inputs to control flow",
               "Dynamic control flow", "dynamic shape", "UnsupportedAliasMutation", "Could not guard on")
    if any(m.lower() in text.lower() for m in markers):
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        return FrontendError("the model has data-dependent control flow or dynamic shapes, which allo cannot import "
                             f"(kernels need static loops and shapes): {first}. Rewrite the branch with torch.where "
                             "or move it out of forward().")
    return None


# ---------------------------------------------------------------------------- torch.export
def _from_export(ep) -> Captured:
    sig = ep.graph_signature
    state = {}
    state.update({k: ("param", v) for k, v in sig.inputs_to_parameters.items()})
    state.update({k: ("buffer", v) for k, v in sig.inputs_to_buffers.items()})
    state.update({k: ("constant", v) for k, v in sig.inputs_to_lifted_tensor_constants.items()})
    state.update({k: ("constant", v) for k, v in getattr(sig, "inputs_to_lifted_custom_objs", {}).items()})
    gm = ep.graph_module
    inputs, consts, nodes, outputs = [], {}, [], []
    for n in gm.graph.nodes:
        if n.op == "placeholder":
            if n.name in state:
                kind, target = state[n.name]
                tensor = ep.state_dict[target] if target in ep.state_dict else ep.constants[target]
                consts[n] = Const(tensor.detach(), target.replace(".", "_"), target)
            else:
                val = n.meta.get("val")
                if not hasattr(val, "shape"):
                    raise FrontendError(f"model input {n.name!r} is not a tensor ({type(val).__name__}); "
                                        "only tensor inputs can be model inputs")
                inputs.append((n, n.name, tuple(int(d) for d in val.shape), val.dtype))
        elif n.op == "call_function":
            nodes.append(_tnode(n, op_key(n.target)))
        elif n.op == "output":
            outputs = list(n.args[0]) if isinstance(n.args[0], (tuple, list)) else [n.args[0]]
        elif n.op == "get_attr":
            consts[n] = Const(getattr(gm, n.target), n.name, n.target)
        else:
            raise FrontendError(f"unexpected {n.op} node {n.name!r} in the exported graph")
    cap = Captured(gm.graph, "torch.export", inputs, consts, nodes, outputs, ep.call_spec.out_spec)
    _fold_constants(cap)
    return cap


def _tnode(n, key, module=None, target=None, args=None, kwargs=None) -> TNode:
    val = n.meta.get("val", n.meta.get("tensor_meta"))
    shape = dtype = None
    if hasattr(val, "shape"):
        try:
            shape = tuple(int(d) for d in val.shape)
        except Exception:  # noqa: BLE001 - unbacked/symbolic sizes raise torch-specific errors
            raise FrontendError(f"graph node {n.name!r} has a data-dependent or dynamic shape {list(val.shape)} "
                                "(e.g. boolean-mask indexing); allo needs static shapes") from None
        dtype = val.dtype
    if module is None:
        stack = n.meta.get("nn_module_stack") or {}
        module = list(stack.values())[-1][0] if stack else ""
    args = tuple(n.args) if args is None else tuple(args)
    kwargs = dict(n.kwargs) if kwargs is None else dict(kwargs)
    return TNode(n, key, args, kwargs, shape, dtype, module or "", target)


def _fold_constants(cap: Captured):
    """Evaluate nodes whose inputs are all constants; they become Consts named after the node."""
    import torch
    from torch.fx.node import map_arg

    keep = []
    for tn in cap.nodes:
        deps = []
        map_arg((tn.args, tn.kwargs), deps.append)
        if tn.key in NOOP_KEYS:
            continue
        if all(d in cap.consts for d in deps):
            args = map_arg(tn.args, lambda d: cap.consts[d].tensor)
            kwargs = map_arg(tn.kwargs, lambda d: cap.consts[d].tensor)
            name = tn.key.split(".", 1)[-1]
            if name.endswith("_") and not name.startswith("_") and args and isinstance(args[0], torch.Tensor):
                args = (args[0].clone(),) + tuple(args[1:])  # earlier readers keep the old constant
            try:
                with torch.no_grad():
                    value = tn.target(*args, **kwargs)
            except Exception as e:  # noqa: BLE001
                raise FrontendError(f"cannot evaluate constant {tn.where()} ({tn.key}): {e}") from None
            if isinstance(value, torch.Tensor):
                cap.consts[tn.fx] = Const(value.detach(), tn.name)
                continue
            if isinstance(value, (tuple, list)) and all(isinstance(v, torch.Tensor) for v in value):
                cap.consts[tn.fx] = Const(tuple(v.detach() for v in value), tn.name)
                continue
        keep.append(tn)
    cap.nodes = keep


# ---------------------------------------------------------------------------- torch.fx fallback
def _capture_fx(model, inputs, export_error) -> Captured:
    import torch
    from torch.fx.passes.shape_prop import ShapeProp

    dyn = _dynamic_error(export_error)
    try:
        gm = torch.fx.symbolic_trace(model)
        ShapeProp(gm).propagate(*inputs)
    except Exception as e:  # noqa: BLE001
        raise (dyn or _dynamic_error(e) or FrontendError(
            f"cannot capture the model: torch.export failed ({type(export_error).__name__}: "
            f"{str(export_error).strip().splitlines()[0] if str(export_error).strip() else ''}) and torch.fx."
            f"symbolic_trace failed ({type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''})")) from None
    from .fxnorm import normalize_fx

    return normalize_fx(gm, inputs)
