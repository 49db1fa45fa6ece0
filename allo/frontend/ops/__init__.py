"""The op table: one handler per torch op, registered with `@torch_op(<aten names>)`, one module
per op family (shape.py, elementwise.py, reduce.py, linalg.py, norms.py, conv.py, pool.py,
attention.py, recurrent.py).

A handler gets the lowering context (lower.py), the node, and the op's arguments bound by name
(from the aten schema, defaults filled in; graph values already converted to Views/Consts/numbers).
It emits library calls (`ctx.nn("linear", [T, M, N, K], ...)`) or generated loops (`ctx.ew`,
`ctx.reduce`), or just returns a new View for layout ops, and returns the node's value.

Example::

    @torch_op("aten.relu")
    def relu(ctx, node, a):
        return activation(ctx, a["self"], "relu", lambda x: f"max({x}, 0.0)")
"""
from __future__ import annotations

# the family modules register their handlers into the table when imported
from . import attention, conv, elementwise, linalg, norms, pool, recurrent, reduce, shape  # noqa: F401
from .table import OPS, bind, closest_ops, supported_ops, torch_op

__all__ = ["OPS", "torch_op", "supported_ops", "closest_ops", "bind"]
