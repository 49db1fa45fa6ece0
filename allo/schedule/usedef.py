"""Use-def chains over a schedule's functions (`s.use_def_chain`, upstream Allo's name).

A tensor (`"func.name"`: an argument or named local) is *used* by every tensor whose value is
computed from it: locals assigned from expressions reading it, the parameter it is passed to in a
call, and the variable receiving that call's result (also through a function returning it).
`get_equivalent_tensors` follows argument passing only: the callee parameters that are the
same data.

Example::

    chain = s.use_def_chain
    {f"{t.path}:{t.name}" for t in chain["kernel.A"].users}     # {"kernel:B", "foo:A"}
    chain.get_equivalent_tensors("kernel.D")                    # the parameters D is passed as
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import ScheduleError
from ..ir import nodes as N, visit as V


@dataclass(eq=False)
class Tensor:
    """One argument or named local of a function, with the tensors computed from it."""

    path: str  # function name
    name: str
    users: set = field(default_factory=set)

    def __repr__(self):
        return f"Tensor({self.path}:{self.name})"


def _reads(e) -> list:
    if not isinstance(e, N.Expr):
        return []
    return [x.buf for x in V.walk_expr(e) if isinstance(x, N.Load)]


class UseDefChain:
    """See the module docstring. Index with "func.name"."""

    def __init__(self, module: N.Module):
        self.tensors = {}  # (func, id(buf)) -> Tensor
        self._ids = {}  # "func.name" -> (func, id(buf))
        self._pass = {}  # key -> keys of the parameters it is passed to
        self._temps = set()  # keys of scalar call results (unnamed: looked through)
        funcs = {f.name: f for f in module.funcs}
        self._params = {(f.name, id(p)): k for f in module.funcs for k, p in enumerate(f.params)}
        self._edges = []  # (source key, user key) before scalar call results are looked through
        for f in module.funcs:
            self._scan(f, funcs)
        self._resolve()

    def _key(self, func, buf):
        key = (func.name, id(buf))
        if key not in self.tensors:
            self.tensors[key] = Tensor(func.name, buf.name)
            self._ids.setdefault(f"{func.name}.{buf.name}", key)
            if buf.kind == "result" and not buf.shape:
                self._temps.add(key)
        return key

    def _scan(self, f, funcs):
        for s in V.walk_stmts(f.body):
            if isinstance(s, (N.Store, N.Alloc)):
                value = s.value if isinstance(s, N.Store) else s.init
                srcs = [value] if isinstance(value, N.Buffer) else _reads(value)
                for b in srcs:
                    if b is not s.buf:
                        self._edges.append((self._key(f, b), self._key(f, s.buf)))
            elif isinstance(s, N.CallStmt) and s.callee in funcs:
                self._call(f, s, funcs[s.callee])
            elif isinstance(s, N.Return):
                for caller, call in self._call_sites(f.name, funcs):
                    for v, r in zip(s.values, call.results):
                        for b in ([v] if isinstance(v, N.Buffer) else _reads(v)):
                            self._edges.append((self._key(f, b), self._key(caller, r)))

    def _call(self, f, s, callee):
        for p, a in zip(callee.params, s.args):
            srcs = [a] if isinstance(a, N.Buffer) else _reads(a)
            direct = isinstance(a, N.Buffer) or (isinstance(a, N.Load) and not a.indices)
            for b in srcs:
                src, dst = self._key(f, b), self._key(callee, p)
                self._edges.append((src, dst))
                if direct:
                    self._pass.setdefault(src, set()).add(dst)
                for r in s.results:
                    self._edges.append((src, self._key(f, r)))

    @staticmethod
    def _call_sites(name, funcs):
        for g in funcs.values():
            for s in V.walk_stmts(g.body):
                if isinstance(s, N.CallStmt) and s.callee == name:
                    yield g, s

    def _resolve(self):
        """Scalar call results (unnamed temporaries) pass their users on to what they came from."""
        temps = self._temps
        succ = {}
        for a, b in self._edges:
            succ.setdefault(a, set()).add(b)

        def users_of(key, seen):
            out = set()
            for b in succ.get(key, ()):
                if b in temps and b not in seen:
                    out |= users_of(b, seen | {b})
                elif b not in temps:
                    out.add(b)
            return out

        for key, t in self.tensors.items():
            t.users = {self.tensors[u] for u in users_of(key, {key})}

    def __getitem__(self, name: str) -> Tensor:
        if name not in self._ids:
            raise ScheduleError(f"use_def_chain: no tensor {name!r}; use 'function.name', e.g. "
                                f"{next(iter(self._ids), 'kernel.A')!r}")
        return self.tensors[self._ids[name]]

    def label(self, key) -> str:
        """Upstream Allo's name of a tensor: "func:<index>" for a parameter, "func:name" otherwise."""
        k = self._params.get(key)
        return f"{key[0]}:{k}" if k is not None else f"{key[0]}:{self.tensors[key].name}"

    def get_equivalent_variables(self, name: str) -> set:
        """Upstream Allo's `s.get_equivalent_variables("func:D")`: the labels (see `label`) of the
        tensors that are the same data as `name` through argument passing, in either direction,
        `name` included. `name` is "func:name" or "func:<parameter index>".

        Example: ``{"kernel:D", "foo:0", "foo2:0"}`` when kernel passes D to foo, which passes it on."""
        by_label = {self.label(key): key for key in self.tensors}
        func, _, rest = name.partition(":")
        start = by_label.get(name) or self._ids.get(f"{func}.{rest}")
        if start is None:
            raise ScheduleError(f"get_equivalent_variables: no variable {name!r}; use 'function:name' or "
                                f"'function:<argument index>', e.g. {next(iter(by_label), 'kernel:0')!r}")
        links = {}
        for src, dsts in self._pass.items():
            for dst in dsts:
                links.setdefault(src, set()).add(dst)
                links.setdefault(dst, set()).add(src)
        seen, todo = {start}, [start]
        while todo:
            for k in links.get(todo.pop(), ()):
                if k not in seen:
                    seen.add(k)
                    todo.append(k)
        return {self.label(k) for k in seen}

    def get_equivalent_tensors(self, name: str) -> set:
        """The parameters `name` is passed to, directly or through further calls."""
        start = self._ids.get(name)
        if start is None:
            self[name]  # raises the error
        out, todo = set(), [start]
        while todo:
            for k in self._pass.get(todo.pop(), ()):
                if self.tensors[k] not in out:
                    out.add(self.tensors[k])
                    todo.append(k)
        return out
