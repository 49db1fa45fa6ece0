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
import warnings

from ..errors import FrontendError, warn
from .fxnorm import normalize_fx
from .graph import Captured, Const, make_node, op_key


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
        warn(f"{type(model).__name__} is in training mode; allo imports it with eval semantics (dropout off, "
             "batch norm with running statistics). Call model.eval() to silence this warning.", UserWarning)
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


# ---------------------------------------------------------------------------- torch.fx fallback
def _capture_fx(model, inputs, export_error) -> Captured:
    import torch
    from torch.fx.passes.shape_prop import ShapeProp

    dyn = _dynamic_error(export_error)
    try:
        with _quiet_torch():  # ShapeProp prints the traceback of a failing node to stderr
            gm = torch.fx.symbolic_trace(model)
            ShapeProp(gm).propagate(*inputs)
    except Exception as e:  # noqa: BLE001
        raise (_eager_error(model, inputs) or dyn or _dynamic_error(e) or FrontendError(
            f"cannot capture the model: torch.export failed ({type(export_error).__name__}: "
            f"{_first_line(export_error)}) and torch.fx.symbolic_trace failed ({type(e).__name__}: "
            f"{_first_line(e)})")) from None
    return normalize_fx(gm, inputs)


def _eager_error(model, inputs) -> FrontendError | None:
    """Both tracers failed: if torch itself cannot run the model on the inputs, the inputs are at
    fault (a shape or dtype forward() does not take), not the tracing; say that instead."""
    import torch

    try:
        with _quiet_torch(), torch.no_grad():
            model(*inputs)
    except Exception as e:  # noqa: BLE001 - whatever the model raises
        given = ", ".join(f"{str(x.dtype).replace('torch.', '')}{list(x.shape)}" for x in inputs)
        return FrontendError(f"the model fails on the example inputs ({given}) when torch runs it: "
                             f"{type(e).__name__}: {_first_line(e)}; pass inputs of the shapes and dtypes its "
                             "forward() takes")
    return None


def _first_line(e) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else ""
