"""MLIR attribute dictionaries from Python values (loop, function and buffer attributes).

Example::

    _attr_dict([("loop_name", "i"), ("pipeline_ii", 1), ("parallel", True)])
    # '{loop_name = "i", pipeline_ii = 1 : ui32, parallel}'
"""
from __future__ import annotations

import re

import numpy as np

_UI32_ATTRS = ("pipeline_ii", "unroll")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_$.]*$")


def _quote(s: str) -> str:
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _attr_value(key, v):
    if isinstance(v, (bool, np.bool_)):
        return None
    if isinstance(v, (int, np.integer)):
        return f"{int(v)} : {'ui32' if key in _UI32_ATTRS else 'i32'}"
    if isinstance(v, (float, np.floating)):
        return f"{float(v)!r} : f64"
    if isinstance(v, str):
        return _quote(v)
    if isinstance(v, tuple):
        return _quote(":".join(str(x) for x in v))
    if isinstance(v, list):
        return "[" + ", ".join(_attr_value(key, x) or "unit" for x in v) + "]"
    if isinstance(v, dict):
        return _attr_dict(v.items())
    return _quote(str(v))


def _attr_dict(items) -> str:
    """`{k = v, flag}` from (key, value) pairs; True -> unit attribute, False/None dropped."""
    parts = []
    for k, v in items:
        if v is None or v is False:
            continue
        key = k if _IDENT.match(k) else _quote(k)
        if v is True:
            parts.append(key)
        else:
            parts.append(f"{key} = {_attr_value(k, v)}")
    return "{" + ", ".join(parts) + "}" if parts else ""
