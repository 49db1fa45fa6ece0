"""The fast operator binding on recurrences: in an explicitly pipelined loop Vitis binds the
faster (more DSP, fewer stages) core to an operator on a loop-carried dependence, and allo's
estimator times recurrences with that latency (`OpCost.fast`, allo.qor.body). The static
circuit does the same: every operator on a cycle from a carried value (a register read, a
promoted accumulator, a load of a memory the iteration stores) back to its write gets
`latency = fast`, so the circuit's II equals the estimate's (a float accumulation at 3.33 ns:
fadd 3 instead of 6 cycles, II 4).

Example::

    bind_fast_recurrences(graph_nodes)    # in place; returns the number of rebound operators
"""
from __future__ import annotations

import dataclasses


def _inputs(n):
    return list(n.args) + list(n.coords or []) + ([n.pred] if n.pred is not None else [])


def bind_fast_recurrences(nodes) -> int:
    """Give every operator on a loop-carried cycle of `nodes` (one iteration's graph) its fast latency."""
    writes = {}
    for n in nodes:
        if n.kind == "rwrite":
            writes.setdefault(("reg", n.reg), []).append(n)
        elif n.kind == "store":
            writes.setdefault(("mem", n.mem.name), []).append(n)
    rebound = 0
    for n in nodes:
        if n.kind == "rread":
            sinks = writes.get(("reg", n.reg), [])
        elif n.kind == "bypass":
            sinks = [n.store]
        elif n.kind == "load" and not n.bypass:
            sinks = writes.get(("mem", n.mem.name), [])
        else:
            continue
        if not sinks:
            continue
        down, todo = set(), [n]
        while todo:
            x = todo.pop()
            for u in x.users:
                if id(u) not in down:
                    down.add(id(u))
                    todo.append(u)
        up, todo = set(), list(sinks)
        while todo:
            x = todo.pop()
            for a in _inputs(x):
                if id(a) not in up:
                    up.add(id(a))
                    todo.append(a)
        for x in nodes:
            if x.kind == "op" and id(x) in down and id(x) in up and x.cost.fast < x.cost.latency:
                x.cost = dataclasses.replace(x.cost, latency=x.cost.fast)
                rebound += 1
    return rebound


__all__ = ["bind_fast_recurrences"]
