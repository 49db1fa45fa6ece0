"""The captured graph as the frontend stages pass it on: `Captured` (inputs, constants, compute
nodes, outputs), its `TNode`s and `Const` tensors, and `op_key` (the op table's name of an fx target).

Example::

    cap = capture(model, [x])        # a Captured
    [n.key for n in cap.nodes]       # ['aten.linear', 'aten.relu', ...]
"""
from __future__ import annotations

import operator
import os
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
