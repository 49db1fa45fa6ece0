"""What statements do to buffers: the loads, reads, writes and uses under a statement list, and
what a function does to its parameters, also through the functions it calls.

Within one function a call is opaque: a buffer passed to a call is read and may be written by it
(`reads`, `writes`, `params_maybe_written`). `param_effects` looks into the callees instead.
Built on the buffer references of `allo.ir.visit.buffer_refs`; results are keyed by `id(buffer)`
(buffers are referenced by identity) and ordered by first mention.

Example::

    writes(loop.body)                   # {id(C): C}: stored to (or passed to a call) in the loop
    written_param_indices(mod, "top")   # {2}: top (or a function it calls) writes its 3rd argument

May import: `allo.errors`, `allo.ir` (nodes, visit).
"""
from __future__ import annotations

from collections import Counter

from .nodes import Alloc, CallStmt, Func, Load, Module, Return, Store
from .visit import COPY, DECLARE, LOAD, PASS, RESULT, RETURN, STORE, body_exprs, buffer_refs, walk_expr, walk_stmts

READ_ROLES = frozenset((LOAD, PASS, COPY))
WRITE_ROLES = frozenset((STORE, PASS, RESULT))
USE_ROLES = READ_ROLES | WRITE_ROLES | {RETURN}


def _buffers(body, roles) -> dict:
    out = {}
    for s in walk_stmts(body):
        for role, b in buffer_refs(s):
            if role in roles:
                out.setdefault(id(b), b)
    return out


def mentioned(body: list) -> list:
    """Every buffer the statements under `body` mention (declarations too), in order of first mention."""
    return list(_buffers(body, USE_ROLES | {DECLARE}).values())


def reads(body: list) -> dict:
    """Buffers read under `body` (loads, call arguments, copy-initialisers): {id: Buffer}."""
    return _buffers(body, READ_ROLES)


def writes(body: list) -> dict:
    """Buffers stored to, passed to a call (which may write them) or receiving a call's result
    under `body`: {id: Buffer}. Declaring a local is not a write."""
    return _buffers(body, WRITE_ROLES)


def used(body: list) -> dict:
    """Buffers read, written, passed or returned under `body` (a declaration alone is no use)."""
    return _buffers(body, USE_ROLES)


def refers(s, buf, roles) -> bool:
    """Does statement `s` itself (not a nested statement) refer to `buf` in one of `roles`?"""
    return any(b is buf and role in roles for role, b in buffer_refs(s))


def mentions(s, buf) -> bool:
    """Does statement `s` (or one nested in it) use `buf` (see `used`)?"""
    return any(b is buf and role in USE_ROLES for x in walk_stmts([s]) for role, b in buffer_refs(x))


def loads(body: list):
    """Every Load node under `body` (each node object once), including loads inside indices."""
    seen = set()
    for x in body_exprs(body):
        if isinstance(x, Load) and id(x) not in seen:
            seen.add(id(x))
            yield x


def has_load(e) -> bool:
    """Does expression `e` read memory (contain a Load)?"""
    return any(isinstance(x, Load) for x in walk_expr(e))


def loads_from(exprs, buf) -> bool:
    """Does an expression of `exprs` (or inside one) load from `buf`?"""
    return any(isinstance(x, Load) and x.buf is buf for e in exprs for x in walk_expr(e))


def accesses(body: list, buf) -> tuple:
    """(loads, stores, calls) of `buf` under `body`: Load nodes (and Allocs copying `buf` in),
    Store statements, and CallStmts passing or receiving it (and Returns returning it)."""
    found = [ld for ld in loads(body) if ld.buf is buf]
    stores, calls = [], []
    for s in walk_stmts(body):
        if isinstance(s, Store) and s.buf is buf:
            stores.append(s)
        elif isinstance(s, CallStmt) and any(a is buf for a in list(s.args) + list(s.results)):
            calls.append(s)
        elif isinstance(s, Alloc) and s.init is buf:
            found.append(s)
        elif isinstance(s, Return) and any(v is buf for v in s.values):
            calls.append(s)
    return found, stores, calls


def uses_buffer(s, buf) -> bool:
    """Does statement `s` (or one nested in it) declare, access, pass or return `buf`?"""
    return any(b is buf for x in walk_stmts([s]) for _, b in buffer_refs(x))


def ref_counts(body: list) -> Counter:
    """{id(buffer): how many times the statements under `body` mention it} (with repetition;
    declarations count)."""
    return Counter(id(b) for s in walk_stmts(body) for _, b in buffer_refs(s))


def stmt_counts(body: list) -> Counter:
    """{id(buffer): how many statements under `body` mention it} (declarations count)."""
    return Counter(k for s in walk_stmts(body) for k in {id(b) for _, b in buffer_refs(s)})


def declared(body: list) -> list:
    """Buffers declared under `body`: Alloc'd locals and call results, in program order."""
    return [b for s in walk_stmts(body) for role, b in buffer_refs(s) if role in (DECLARE, RESULT)]


# ----------------------------------------------------------------------------- parameters
def params_maybe_written(func: Func) -> set:
    """ids of the parameters `func` may write: stored to, or passed to a call (which may write
    what it is passed; see `param_effects` for what the callees really do)."""
    params = {id(p) for p in func.params}
    return {k for k in _buffers(func.body, (STORE, PASS)) if k in params}


def param_effects(mod: Module, fname: str, memo: dict | None = None) -> dict:
    """{id(param): (read, written)} for the parameters of function `fname` of `mod`: read when an
    expression loads from it, written when it is stored to, counting what the functions it is
    passed to do with it. A function reached again while its effects are being found (recursion)
    counts as reading and writing. `memo` ({function name: effects}) saves work across calls.

    Example: `param_effects(mod, "top")[id(top.params[0])]` is `(True, False)` for an input."""
    memo = {} if memo is None else memo
    if fname in memo:
        return memo[fname]
    memo[fname] = {}
    func = mod.func(fname)
    out = {id(p): [False, False] for p in func.params}
    for s in walk_stmts(func.body):
        for role, b in buffer_refs(s):
            if id(b) in out and role in (LOAD, STORE):
                out[id(b)][role == STORE] = True
        if isinstance(s, CallStmt):
            callee = mod.func(s.callee)
            inner = param_effects(mod, s.callee, memo)
            for p, a in zip(callee.params, s.args):
                if id(a) in out:
                    r, w = inner.get(id(p), (True, True))
                    out[id(a)][0] |= r
                    out[id(a)][1] |= w
    memo[fname] = {k: tuple(v) for k, v in out.items()}
    return memo[fname]


def written_param_indices(mod: Module, fname: str) -> set:
    """Positions of the parameters of `fname` that it, or a function it calls, writes."""
    effects = param_effects(mod, fname)
    return {k for k, p in enumerate(mod.func(fname).params) if effects[id(p)][1]}


__all__ = ["mentioned", "reads", "writes", "used", "mentions", "loads", "has_load", "loads_from", "accesses", "uses_buffer", "refers", "ref_counts",
           "stmt_counts", "declared", "params_maybe_written", "param_effects", "written_param_indices",
           "READ_ROLES", "WRITE_ROLES", "USE_ROLES"]
