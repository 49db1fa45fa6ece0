"""The machinery of declared primitives: `Arg`, `Primitive`, `Step`, and what a declaration generates.

A `Primitive` names its implementation (a rewrite of one `nodes.Func`, or of the whole module for
`scope="module"`) and declares each argument's kind (allo.schedule.kinds). From that declaration:

- `prim.function`: the function-level API (`allo.schedule.split(func, "i", 4)`): the arguments'
  values are checked, then the implementation runs;
- `prim.check(args, kwargs)`: the same check on a recorded step (what `Schedule.apply` runs);
- `prim.method()`: the `Schedule` method (`s.split(axis, factor)`) with the declared signature and
  docstring: it resolves the addresses to one function, builds the `Step` and hands it to
  `schedule.apply` (which applies or, on a recording schedule, records it).

Addresses name one function per step: the one an argument names explicitly ("func:j", a
handle), else the top function; arguments naming two different functions are an error.

Imports: errors, and kinds (same package). The table itself is allo.schedule.primitives.
Example::

    split = Primitive("split", loop_transforms.split, [Arg("axis", LOOP), Arg("factor", POSITIVE)],
                      doc="Split loop `axis` ...")
    split.function(func, "i", 4)              # on a nodes.Func
    Schedule.split = split.method()           # s.split("i", 4)
"""
from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field

from ..errors import AlloError, ScheduleError, clean
from .kinds import OMIT, At, BufferHandle, Kind, Resolved

_EMPTY = inspect.Parameter.empty


@dataclass(frozen=True)
class Step:
    """One applied primitive: name, target function, and resolved (replayable) arguments."""

    primitive: str
    func: str
    args: tuple
    kwargs: tuple = field(default_factory=tuple)

    def __str__(self):
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs]
        return f"{self.primitive}({', '.join(parts)})  @{self.func}"


@dataclass(frozen=True)
class Arg:
    """One declared argument. `keyword` arguments are passed to the implementation by name and
    recorded in `Step.kwargs` only when they differ from their default; `variadic` is `*axes`."""

    name: str
    kind: Kind
    default: object = _EMPTY
    keyword: bool = False
    variadic: bool = False

    def parameter(self) -> inspect.Parameter:
        if self.variadic:
            return inspect.Parameter(self.name, inspect.Parameter.VAR_POSITIONAL)
        return inspect.Parameter(self.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=self.default)


class Primitive:
    """A declared primitive; see the module docstring. `returns` is "schedule" (the method
    returns the schedule, for chaining), "buffer" (the handle of the buffer it made) or "axes" (unfold: its
    sorted axes, as upstream Allo returns them, for `to`'s space-time form)."""

    def __init__(self, name: str, impl, args: list, doc: str, scope: str = "function", returns: str = "schedule"):
        self.name, self.impl, self.args, self.doc = name, impl, tuple(args), inspect.cleandoc(doc)
        self.scope, self.returns = scope, returns
        params = list(inspect.signature(impl).parameters.values())[2 if scope == "module" else 1:]
        self._impl_signature = inspect.Signature(params)
        self._param_names = [p.name for p in params]
        self._var_at = next((k for k, p in enumerate(params) if p.kind is p.VAR_POSITIONAL), None)
        self._by_param = self._map_params()
        self.function = self._function()

    def _map_params(self) -> dict:
        """{implementation parameter: Arg}: positional arguments in order, keyword ones by name."""
        positional = [a for a in self.args if a.kind.passed and not a.keyword]
        keyword = [a for a in self.args if a.keyword]
        if len(positional) > len(self._param_names) or any(a.name not in self._param_names for a in keyword):
            raise TypeError(f"primitive {self.name!r}: declared arguments do not match {self.impl.__qualname__}"
                            f"{self._impl_signature}")
        return {**dict(zip(self._param_names, positional)), **{a.name: a for a in keyword}}

    # ------------------------------------------------------------------ checking
    def check(self, args, kwargs) -> tuple:
        """(args, kwargs) of a step with every declared value checked and normalized; `kwargs` is
        a dict or (name, value) pairs."""
        kwargs = dict(kwargs)
        self._impl_signature.bind(*args, **kwargs)  # arity and names: a TypeError, as Python reports them
        var = len(self._param_names) if self._var_at is None else self._var_at
        at = [self._param_names[min(k, var)] for k in range(len(args))]
        return (tuple(self._checked(p, v) for p, v in zip(at, args)),
                {k: self._checked(k, v) for k, v in kwargs.items()})

    def _checked(self, param, value):
        arg = self._by_param.get(param)
        return value if arg is None else arg.kind.check(self.name, arg.name, value)

    def _function(self):
        impl, skip = self.impl, 2 if self.scope == "module" else 1

        @functools.wraps(impl)
        def function(*args, **kwargs):
            rest, kwargs = self.check(args[skip:], kwargs)
            return impl(*args[:skip], *rest, **kwargs)

        return function

    # ------------------------------------------------------------------ the Schedule method
    def signature(self) -> inspect.Signature:
        self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
        return inspect.Signature([self_param] + [a.parameter() for a in self.args if a.kind.in_signature])

    def method(self):
        """The Schedule method of this primitive (declared signature, docstring with the argument kinds)."""
        sig = self.signature()

        def method(schedule, *args, **kwargs):
            bound = sig.bind(schedule, *args, **kwargs)
            try:
                return self.invoke(schedule, bound)
            except AlloError as e:
                raise clean(e) from None

        method.__name__ = self.name
        method.__qualname__ = f"Schedule.{self.name}"
        method.__signature__ = sig
        method.__doc__ = self.doc + "\n\nArguments:\n" + "\n".join(
            f"    {a.name}: {a.kind.what}" for a in self.args if a.kind.in_signature)
        return method

    def invoke(self, schedule, bound):
        """Resolve the bound arguments on `schedule`, apply the step, return what the method returns."""
        bound.apply_defaults()
        at = At(tuple(f.name for f in schedule.ir.funcs), schedule.top_func_name)
        resolved = {a.name: a.kind.resolve(at, self.name, a.name, bound.arguments[a.name])
                    for a in self.args if a.kind.in_signature}
        func = self._home(resolved, at.top)
        for a in self.args:
            if not a.kind.in_signature:
                resolved[a.name] = Resolved(a.kind.derive(schedule.ir, func))
        result = schedule.apply(self._step(func, resolved))
        if self.returns == "axes":  # unfold: the axes, which `to` takes as the space dimensions (upstream's return)
            return sorted(resolved["axes"].value)
        if self.returns == "buffer":
            return BufferHandle(func, result.name) if hasattr(result, "name") else result
        return schedule

    def _step(self, func: str, resolved: dict) -> Step:
        """The Step of resolved arguments: positional ones in order, keyword ones when not default."""
        args, kwargs = [], {}
        for a in self.args:
            value = resolved[a.name].value
            if value is OMIT or not a.kind.passed:
                continue
            if not a.keyword:
                args += list(value) if a.variadic else [value]
            elif a.default is _EMPTY or value != a.default:
                kwargs[a.name] = value
        return Step(self.name, func, tuple(args), tuple(sorted(kwargs.items())))

    def _home(self, resolved: dict, top: str) -> str:
        """The step's function: the one the arguments name explicitly (all the same), else `top`."""
        homes = [(arg, shown, f) for arg, r in resolved.items() for shown, f in r.homes]
        if not homes:
            return top
        first, first_shown, func = homes[0]
        for arg, shown, f in homes[1:]:
            if f != func:
                raise ScheduleError(f"{self.name}: argument '{arg}': {shown} is in function {f!r}, but argument "
                                    f"'{first}' ({first_shown}) is in function {func!r}")
        return func


class Table(dict):
    """The declared primitives by name; `install(cls)` adds their methods to a class."""

    def __init__(self, *prims: Primitive):
        super().__init__((p.name, p) for p in prims)

    def install(self, cls):
        for name, prim in self.items():
            method = prim.method()
            method.__module__ = cls.__module__
            setattr(cls, name, method)
        return cls

    def get_primitive(self, name: str) -> Primitive:
        if name not in self:
            raise ScheduleError(f"unknown primitive {name!r}; primitives: {', '.join(self)}")
        return self[name]
