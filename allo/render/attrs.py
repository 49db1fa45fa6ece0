"""MLIR attribute dictionaries from Python values (loop, function and buffer attributes).

Example::

    _attr_dict([("loop_name", "i"), ("pipeline_ii", 1), ("parallel", True)])
    # '{loop_name = "i", pipeline_ii = 1 : ui32, parallel}'
"""
from __future__ import annotations

import re

import numpy as np

from ..ir.attrs import PARTITION, PARTITION_MAP, PIPELINE_II, UNROLL, Partition, rendered

UI32_ATTRS = (PIPELINE_II, UNROLL)
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_$.]*$")


def quote(s: str) -> str:
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


class RawAttr(str):
    """Attribute text emitted as it is (an `affine_map<...>`), not quoted."""


def partition_map(shape, specs) -> RawAttr:
    """The bank/offset layout of a partitioned array as an affine map, as upstream Allo prints it:
    one bank index per dim, then one offset per dim. complete: (d, 0); block factor f: (d floordiv
    ceil(N/f), d mod ceil(N/f)); cyclic factor f: (d mod f, d floordiv f); not partitioned: (0, d).

    Example: partition_map((10, 10), [("complete", 0, 0)]) -> affine_map<(d0, d1) -> (d0, d1, 0, 0)>"""
    per_dim = [None] * len(shape)
    for kind, dim, factor in specs:
        for d in (range(len(shape)) if dim == 0 else [dim - 1]):
            per_dim[d] = (kind, factor)
    banks, offsets = [], []
    for d, (n, spec) in enumerate(zip(shape, per_dim)):
        v = f"d{d}"
        kind, factor = spec or (None, 0)
        if kind == Partition.Complete:
            banks.append(v), offsets.append("0")
        elif kind == Partition.Block:
            size = -(-n // factor)
            banks.append(f"{v} floordiv {size}"), offsets.append(f"{v} mod {size}")
        elif kind == Partition.Cyclic:
            banks.append(f"{v} mod {factor}"), offsets.append(f"{v} floordiv {factor}")
        else:
            banks.append("0"), offsets.append(v)
    dims = ", ".join(f"d{d}" for d in range(len(shape)))
    return RawAttr(f"affine_map<({dims}) -> ({', '.join(banks + offsets)})>")


def buffer_attrs(b) -> list:
    """The view-mode attributes of a local array's alloc: its public attrs, and the layout map of
    its partitions (`partition_map`)."""
    items = [(k, v) for k, v in b.attrs.items() if rendered(k, llvm=False)]
    if b.attrs.get(PARTITION):
        items.append((PARTITION_MAP, partition_map(b.shape, b.attrs[PARTITION])))
    return items


def attr_value(key, v):
    if isinstance(v, RawAttr):
        return str(v)
    if isinstance(v, (bool, np.bool_)):
        return None
    if isinstance(v, (int, np.integer)):
        return f"{int(v)} : {'ui32' if key in UI32_ATTRS else 'i32'}"
    if isinstance(v, (float, np.floating)):
        return f"{float(v)!r} : f64"
    if isinstance(v, str):
        return quote(v)
    if isinstance(v, tuple):
        return quote(":".join(str(x) for x in v))
    if isinstance(v, list):
        return "[" + ", ".join(attr_value(key, x) or "unit" for x in v) + "]"
    if isinstance(v, dict):
        return attr_dict(v.items())
    return quote(str(v))


def attr_dict(items) -> str:
    """`{k = v, flag}` from (key, value) pairs; True -> unit attribute, False/None dropped."""
    parts = []
    for k, v in items:
        if v is None or v is False:
            continue
        key = k if IDENT.match(k) else quote(k)
        if v is True:
            parts.append(key)
        else:
            parts.append(f"{key} = {attr_value(k, v)}")
    return "{" + ", ".join(parts) + "}" if parts else ""
