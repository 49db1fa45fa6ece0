"""Stage 1 of the import: capture a PyTorch model as a graph with static shapes.

torch.export is the main path; models it cannot trace fall back to torch.fx (fxnorm.py). The result
is a raw `Captured` graph: user inputs, constant tensors (parameters, buffers, lifted constants,
each with its state-dict name) and the compute nodes in order, each with an op key (`aten.linear`,
`getitem`, ...) and the shape/dtype torch computed for it. Normalisation (constant folding,
in-place ops, mutated buffers, names) is the next stage (normalize.py).

Example::

    cap = capture(model, [torch.rand(8, 16)])
    print(cap.graph)                  # the torch.export graph
    [n.key for n in cap.nodes]        # ['aten.linear', 'aten.linear', 'aten.relu']
"""
from __future__ import annotations

import contextlib
import io
import logging
import operator
import os
import sys
import warnings
from dataclasses import dataclass, field

from ..errors import FrontendError


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
    # set by normalize.py:
    op: str = ""  # the op table key to lower with (`aten.add` for an in-place `aten.add_`)
    updates: tuple = ()  # fx nodes naming the tensor an in-place op overwrites (later readers see the result)
    var: str = ""  # variable name of the result in the generated source

    def __post_init__(self):
        if self.target is None:
            self.target = self.fx.target
        self.op = self.op or self.key

    @property
    def name(self):
        return self.fx.name

    def source_line(self) -> tuple | None:
        """(file, line, code) of the model's own source that produced the node: the innermost frame
        of the recorded stack that is not inside torch (torch.nn.Linear's forward is not the user's
        line; the `self.fc(x)` that called it is)."""
        frames = _frames(self.fx.meta.get("stack_trace") or "")
        for frame in reversed(frames):
            if not _inside_torch(frame[0]):
                return frame
        return frames[-1] if frames else None

    def where(self) -> str:
        """`graph node 'linear_1' in module 'fc' (model.py:12: out = self.fc(x))` for messages."""
        text = f"graph node {self.fx.name!r}"
        if self.module:
            text += f" in module {self.module!r}"
        src = self.source_line()
        if src is not None:
            text += f" ({src[0]}:{src[1]}: {src[2]})" if src[2] else f" ({src[0]}:{src[1]})"
        return text


def _frames(trace: str) -> list:
    lines = trace.strip().splitlines()
    out = []
    for i, line in enumerate(lines):
        line = line.strip()
        if line.startswith("File "):
            parts = line.split(",")
            file = parts[0][5:].strip().strip('"')
            lineno = parts[1].strip().removeprefix("line ") if len(parts) > 1 else "?"
            code = lines[i + 1].strip() if i + 1 < len(lines) and not lines[i + 1].strip().startswith("File ") else ""
            out.append((file, lineno, code))
    return out


def _inside_torch(path: str) -> bool:
    import torch

    root = os.path.dirname(os.path.abspath(torch.__file__))
    return os.path.abspath(path).startswith(root + os.sep)


@dataclass
class Captured:
    graph: object  # torch.fx.Graph, printed by verbose=True
    method: str  # "torch.export" or "torch.fx"
    inputs: list  # [(fx node, name, shape, torch dtype)]
    consts: dict  # fx node -> Const
    nodes: list  # [TNode] compute nodes in order
    outputs: list  # flat list of fx nodes / Python values
    out_spec: object = None  # pytree spec to rebuild the model's output structure
    state: list = field(default_factory=list)  # buffers the model mutates: [StateVar] (normalize.py)


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


def example_tuple(example_inputs) -> tuple:
    """`example_inputs` as a tuple of tensors: a list/tuple of tensors, or one tensor (one input).
    Anything else is a FrontendError (a tensor is never iterated into its rows)."""
    import torch

    if isinstance(example_inputs, torch.Tensor):
        return (example_inputs,)
    if isinstance(example_inputs, dict) or not isinstance(example_inputs, (list, tuple)):
        raise FrontendError(f"example_inputs must be a list of tensors (one per forward() argument), got "
                            f"{type(example_inputs).__name__}; e.g. example_inputs=[torch.rand(8, 16)]")
    for i, x in enumerate(example_inputs):
        if not isinstance(x, torch.Tensor):
            raise FrontendError(f"example_inputs[{i}] is a {type(x).__name__}; pass tensors (shapes are taken "
                                "from them)")
    return tuple(example_inputs)


def capture(model, example_inputs) -> Captured:
    """Export `model` with eval semantics on `example_inputs` (see `example_tuple`). A model left in
    training mode is captured in eval mode with a warning, and its mode is restored afterwards."""
    import torch

    if not isinstance(model, torch.nn.Module):
        raise FrontendError(f"from_pytorch needs a torch.nn.Module, got {type(model).__name__}")
    inputs = example_tuple(example_inputs)
    was_training = model.training
    if was_training:
        warnings.warn(f"{type(model).__name__} is in training mode; allo imports it with eval semantics (dropout off, "
                      "batch norm with running statistics). Call model.eval() to silence this warning.",
                      UserWarning, stacklevel=_caller_level())
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


def _caller_level() -> int:
    """The warnings stacklevel of the first frame outside allo (the user's from_pytorch call)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(root + os.sep):
        frame, level = frame.f_back, level + 1
    return level


class _quiet_torch:
    """Silence torch's tracing output while exporting (a failed export prints the whole graph to
    stderr; our FrontendError says what went wrong instead)."""

    def __enter__(self):
        self.redirect = contextlib.redirect_stderr(io.StringIO())
        self.redirect.__enter__()
        self.warnings = warnings.catch_warnings()
        self.warnings.__enter__()
        warnings.simplefilter("ignore")  # torch's tracing chatter (e.g. rnn._flat_weights), not the user's
        self.loggers = [logging.getLogger(n) for n in ("torch", "torch.fx", "torch._dynamo", "torch.export")]
        self.levels = [lg.level for lg in self.loggers]
        for lg in self.loggers:
            lg.setLevel(logging.CRITICAL)

    def __exit__(self, *exc):
        for lg, level in zip(self.loggers, self.levels):
            lg.setLevel(level)
        self.warnings.__exit__(*exc)
        self.redirect.__exit__(*exc)


def _dynamic_error(e) -> FrontendError | None:
    text = f"{type(e).__name__}: {e}"
    markers = ("data-dependent", "data dependent", "GuardOnDataDependent", "symbolically traced variables cannot be "
               "used as inputs to control flow", "Dynamic control flow", "dynamic shape", "UnsupportedAliasMutation",
               "Could not guard on")
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
            nodes.append(make_node(n, op_key(n.target)))
        elif n.op == "output":
            outputs = list(n.args[0]) if isinstance(n.args[0], (tuple, list)) else [n.args[0]]
        elif n.op == "get_attr":
            consts[n] = Const(getattr(gm, n.target), n.name, n.target)
        else:
            raise FrontendError(f"unexpected {n.op} node {n.name!r} in the exported graph")
    return Captured(gm.graph, "torch.export", inputs, consts, nodes, outputs, ep.call_spec.out_spec)


def make_node(n, key, module=None, target=None, args=None, kwargs=None) -> TNode:
    """A TNode for fx node `n` (shape/dtype from its metadata)."""
    val = n.meta.get("val", n.meta.get("tensor_meta"))
    shape = dtype = None
    if hasattr(val, "shape"):
        try:
            shape = tuple(int(d) for d in val.shape)
        except Exception:  # noqa: BLE001 - unbacked/symbolic sizes raise torch-specific errors
            raise FrontendError(f"graph node {n.name!r} has a data-dependent or dynamic shape {list(val.shape)} "
                                "(e.g. boolean-mask indexing); allo needs static shapes") from None
        dtype = val.dtype
    elif isinstance(val, (tuple, list)):  # several results (lstm, split): the first tensor's dtype
        dtype = next((v.dtype for v in val if hasattr(v, "dtype")), None)
    if module is None:
        stack = n.meta.get("nn_module_stack") or {}
        module = list(stack.values())[-1][0] if stack else ""
    args = tuple(n.args) if args is None else tuple(args)
    kwargs = dict(n.kwargs) if kwargs is None else dict(kwargs)
    return TNode(n, key, args, kwargs, shape, dtype, module or "", target)


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
            f"{_first_line(export_error)}) and torch.fx.symbolic_trace failed ({type(e).__name__}: "
            f"{_first_line(e)})")) from None
    from .fxnorm import normalize_fx

    return normalize_fx(gm, inputs)


def _first_line(e) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else ""
