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

import difflib

OPS: dict = {}


def torch_op(*keys):
    """Register the decorated handler for the given op keys (`"aten.linear"`, ...)."""

    def deco(fn):
        for k in keys:
            OPS[k] = fn
        return fn

    return deco


def supported_ops() -> list:
    """Every op key the frontend imports, sorted (`allo ops` prints them)."""
    return sorted(OPS)


def closest_ops(key: str, n: int = 5) -> list:
    """The `n` supported op names most similar to `key` (for "did you mean" messages)."""
    name = key.split(".", 1)[-1]
    names = sorted({k.split(".", 1)[-1] for k in OPS})
    close = difflib.get_close_matches(name, names, n=n, cutoff=0.0)
    return close[:n]


def bind(target, args, kwargs) -> dict:
    """Arguments by schema name (defaults filled in) for an aten OpOverload; positional otherwise."""
    schema = getattr(target, "_schema", None)
    if schema is None:
        out = {f"arg{i}": a for i, a in enumerate(args)}
        out.update(kwargs)
        return out
    out = {}
    for i, arg in enumerate(schema.arguments):
        if i < len(args) and not arg.kwarg_only:
            out[arg.name] = args[i]
        elif arg.name in kwargs:
            out[arg.name] = kwargs[arg.name]
        elif arg.has_default_value():
            out[arg.name] = arg.default_value
        else:
            out[arg.name] = None
    return out


from . import attention, conv, elementwise, linalg, norms, pool, recurrent, reduce, shape  # noqa: E402,F401

__all__ = ["OPS", "torch_op", "supported_ops", "closest_ops", "bind"]
