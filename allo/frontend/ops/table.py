"""The op table itself: the registry `OPS` that `@torch_op` fills, lookups and argument binding
(the handlers live in the family modules of this package, which import this module).

Example::

    @torch_op("aten.relu")
    def relu(ctx, node, a): ...
    OPS["aten.relu"] is relu
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
