"""Where the element type of every value of an imported model is decided.

Lowering asks a `TypePlan` for the type of each model input, each node's result and each weight,
instead of reading torch's dtype itself, so that per-layer precision (quantization to int8 or
fixed point, hls4ml-style precision configs) replaces one object. The default plan keeps torch's
dtypes: float32 stays float32, int64 ids stay int64.

Example::

    plan = TypePlan()
    plan.value_type(node)            # allo.float32 for a float32 node
"""
from __future__ import annotations

from ..errors import FrontendError
from ..ir import types as T
from ..ir.types import bfloat16, float16, float32, float64, int8, int16, int32, int64, uint8


def torch_dtype_to_allo(dtype):
    """The allo element type for a torch dtype (FrontendError if allo has none)."""
    import torch

    table = {torch.float32: float32, torch.float64: float64, torch.float16: float16,
             torch.bfloat16: bfloat16, torch.int64: int64, torch.int32: int32, torch.int16: int16,
             torch.int8: int8, torch.uint8: uint8, torch.bool: T.bool}
    if dtype not in table:
        raise FrontendError(f"tensors of dtype {dtype} are not supported (use float32, integer or bool tensors)")
    return table[dtype]


class TypePlan:
    """Element types of an imported model's values: torch's dtypes, unchanged."""

    def input_type(self, name: str, torch_dtype):
        """Type of model input `name`."""
        return torch_dtype_to_allo(torch_dtype)

    def value_type(self, node, torch_dtype=None):
        """Type of the result of graph node `node` (its torch dtype unless `torch_dtype` is given)."""
        return torch_dtype_to_allo(torch_dtype if torch_dtype is not None else node.dtype)

    def weight_type(self, const):
        """Type of a constant tensor (parameter, buffer or folded value)."""
        return torch_dtype_to_allo(const.tensor.dtype)

    # hooks of the lowering pass (lower.py); a quantizing plan (quant/plan.py) overrides them
    def lower_node(self, ctx, tn, args: dict, handler):
        """The value of node `tn`: its op handler on the bound arguments."""
        return handler(ctx, tn, args)

    def bind_value(self, name: str, value):
        """Called with each model input's and node's value (by graph name) as it is lowered."""

    def output_value(self, ctx, value):
        """A model output's value as the module returns it."""
        return value

    def finish(self, ctx, env):
        """Called once every node is lowered (before the outputs)."""
