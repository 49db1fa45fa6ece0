"""The copy loops of a `target="vitis_hls"` top built with `wrap_io=True` (the default of
`s.build(target="vitis_hls")`, allo/backend/hls/interface.py): before the body, `load_buf<k>` copies
each array argument from its m_axi port into an on-chip array; after it, `store_res<k>` copies each
array the body may write (and each array result) back. Each is a sub-function with one loop nest
over the array's elements, pipelined at II=1 (one bus beat per cycle), so it costs the element
count plus the bus latency of one beat (m_axi read latency for loads, the write turnaround for
stores: the function returns once the last write is acknowledged) and the call.

Example::

    loads, stores = io_copy_rows(top, ports, tables)
    sum(r.latency for r in loads + stores)     # cycles the copies add to the body's latency
"""
from __future__ import annotations

from ..ir import effects as E
from .report import LoopRow

_REASON = ("wrap_io: {what} m_axi port {name!r} {how} an on-chip array, pipelined at II=1 "
           "(build with wrap_io=False to index the port directly)")


def _row(kind: str, k: int, buf, depth: int, tables) -> LoopRow:
    n = 1
    for d in buf.shape:
        n *= int(d)
    ctrl = tables.control
    overhead = int(ctrl["pipeline_overhead"]) + int(ctrl["function_overhead"]) + int(ctrl["call_overhead"])
    name = f"l_load_buf{k}_i0" if kind == "load" else f"l_store_res{k}_i0"
    what, how = ("copies", "into") if kind == "load" else ("receives", "from")
    return LoopRow(name, "loop", n, True, 1, 1, depth, n + depth - 1 + overhead,
                   _REASON.format(what=what, name=buf.name, how=how))


def io_copy_rows(top, ports, tables) -> tuple:
    """([load rows], [store rows]) of the copy loops around `top`'s body; `ports` are its array
    ports (arguments, then returned local arrays) in port order, as the emitter numbers them."""
    m = tables.memory["m_axi"]
    load_depth = int(m["read_latency"]) + 1  # the beat's read, then the local array's write
    store_depth = int(m["write_turnaround"]) + 1  # the local's read, then the write until its response
    params = {id(p) for p in top.params}
    written = E.params_maybe_written(top)
    loads, stores = [], []
    for k, p in enumerate(ports):
        if id(p) in params:
            loads.append(_row("load", k, p, load_depth, tables))
        if id(p) not in params or id(p) in written:
            stores.append(_row("store", k, p, store_depth, tables))
    return loads, stores


__all__ = ["io_copy_rows"]
