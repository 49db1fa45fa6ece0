"""Search spaces: named parameters with finite options, expanded into schedule recipes.

A point of a space (a *config*: {parameter name: chosen option}) becomes a *recipe*: the list of
schedule steps `(primitive, func, args, kwargs)` that `Schedule.replay` applies. Expansion runs
in the driver and only records steps (no IR is touched), so a candidate travels to a worker
process as a few tuples; the schedule's own legality checks run there and prune it.

Example::

    space = allo.dse.Space()
    space.split("j", [1, 2, 4, 8])                 # factor 1 = leave j alone
    space.pipeline(["j.inner", "i"], ii=[1, 2])    # which loop, which II
    space.partition("B", kinds=["cyclic"], dims=[2], factors=[2, 4, 8])
    space.choice("order", [None, ("k", "j")], apply=lambda s, v: v and s.reorder(*v))
    space.rule(lambda s, cfg: s.unroll("j.inner") if cfg["split:j"] > 1 else None)
    space.size                                      # number of configs
"""
from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass
from typing import Callable

from ..errors import DSEError
from ..ir.attrs import Partition
from ..schedule.declare import Step
from ..schedule.schedule import Schedule


def canonical(value) -> str:
    """A stable text form of an option value (tuples and lists alike), for keys and JSON logs;
    TypeError for values that are not JSON data."""
    return json.dumps(value, sort_keys=True)


def to_json(value):
    """Option values as JSON data (tuples become lists)."""
    return json.loads(canonical(value))


@dataclass
class Param:
    """One dimension of a space: `options` (JSON-able values) and how a chosen value becomes
    steps: `apply(recorder, value)` (None: the value is only read by rules)."""

    name: str
    options: tuple
    apply: Callable | None = None
    group: str = ""  # default spaces group a loop nest's parameters (shown in tables)

    def index_of(self, value) -> int:
        key = canonical(value)
        for k, opt in enumerate(self.options):
            if canonical(opt) == key:
                return k
        raise DSEError(f"parameter {self.name!r} has no option {value!r}; options: {list(self.options)}")


@dataclass
class _Rule:
    fn: Callable  # fn(recorder, cfg)
    name: str = "rule"


class Recorder(Schedule):
    """A recording Schedule (`record_only=True`): primitive calls are resolved and logged, not applied.

    Addresses ("j", "func:j", handles, `s.C`) resolve exactly as on a real schedule; buffers
    returned by buffer_at/reuse_at are placeholders `"$k"` that `Schedule.replay` resolves. The
    base module is only read. Adds merged partition requests for the default spaces."""

    def __init__(self, ir_module):
        super().__init__(ir_module, record_only=True)
        self.partitions = {}  # (func, buffer, dim) -> (kind, factor): merged requests of default spaces

    @property
    def recorded(self) -> list:
        """The recorded steps as recipe tuples (primitive, func, args, kwargs pairs)."""
        return [(st.primitive, st.func, tuple(st.args), tuple(st.kwargs)) for st in self.steps]

    def request_partition(self, func: str, buffer: str, dim: int, kind: str, factor: int):
        """Ask for a partition; requests for one dimension merge (complete wins, else the
        largest factor) and are recorded by `flush_partitions`."""
        key = (func, buffer, dim)
        old = self.partitions.get(key)
        if old is None or _stronger((kind, factor), old):
            self.partitions[key] = (kind, factor)

    def flush_partitions(self):
        for (func, buffer, dim), (kind, factor) in sorted(self.partitions.items()):
            self.apply(Step("partition", func, (buffer, kind, dim, factor)))
        self.partitions.clear()


def _stronger(a, b) -> bool:
    if a[0] == b[0]:
        return a[1] > b[1]
    return a[0] == Partition.Complete


class Space:
    """An ordered set of parameters (and rules) whose configs expand to schedule recipes.
    See the module docstring for the DSL; `allo.dse.default_space(s)` derives one from a kernel."""

    def __init__(self):
        self.items = []
        self.seeds = []  # configs the searches score first (see `seed`)
        self.left_out = {}  # loop address -> why no parameter covers it (default spaces fill it)

    # ------------------------------------------------------------------ DSL
    def choice(self, name: str, options, apply: Callable | None = None, group: str = "") -> "Space":
        """A parameter `name` taking one of `options`; `apply(s, value)` records its steps on `s`
        (a schedule-like recorder), or None when only rules read the value."""
        options = tuple(options)
        if not options:
            raise DSEError(f"Space.choice: parameter {name!r} needs at least one option")
        if any(p.name == name for p in self.params):
            raise DSEError(f"Space.choice: parameter {name!r} is defined twice")
        for v in options:
            try:
                json.dumps(to_json(v))
            except (TypeError, ValueError):
                raise DSEError(f"Space.choice: option {v!r} of {name!r} is not JSON data (numbers, strings, "
                               "None, lists)") from None
        self.items.append(Param(name, options, apply, group))
        return self

    def split(self, loop: str, factors) -> "Space":
        """`split:<loop>`: split `loop` by one of `factors` (1 = no split)."""
        return self.choice(f"split:{loop}", [int(f) for f in factors],
                           lambda s, f: s.split(loop, f) if f > 1 else None)

    def unroll(self, loop: str, factors) -> "Space":
        """`unroll:<loop>`: unroll `loop` by one of `factors` (0 = fully, 1 = not at all)."""
        return self.choice(f"unroll:{loop}", [int(f) for f in factors],
                           lambda s, f: s.unroll(loop, f) if f != 1 else None)

    def pipeline(self, loops, ii=1) -> "Space":
        """`pipeline:<loops>`: pipeline one of `loops` (None = none) at one of the IIs `ii`."""
        loops = [loops] if isinstance(loops, str) or loops is None else list(loops)
        iis = [ii] if isinstance(ii, int) else list(ii)
        options = [[lp, int(k)] for lp in loops if lp is not None for k in iis] + ([None] if None in loops else [])
        name = "pipeline:" + "|".join(str(lp) for lp in loops)
        return self.choice(name, options, lambda s, v: s.pipeline(v[0], v[1]) if v else None)

    def reorder(self, *orders) -> "Space":
        """`reorder:<loops>`: one of the loop orders given (each outermost first; None = keep)."""
        opts = [None if o is None else list(o) for o in orders]
        loops = sorted({lp for o in orders if o for lp in o})
        return self.choice("reorder:" + ",".join(loops), opts, lambda s, v: s.reorder(*v) if v else None)

    def partition(self, buffer: str, kinds=(Partition.Complete, Partition.Cyclic), dims=(0,), factors=(2, 4, 8)) -> "Space":
        """`partition:<buffer>`: no partition or one (kind, dim, factor) from the products given."""
        opts = [None]
        for kind, dim in itertools.product(kinds, dims):
            opts += [[kind, int(dim), 0]] if kind == Partition.Complete else [[kind, int(dim), int(f)] for f in factors]
        return self.choice(f"partition:{buffer}", opts, lambda s, v: s.partition(buffer, v[0], v[1], v[2]) if v else None)

    def step(self, primitive: str, *args, **kwargs) -> "Space":
        """A step applied to every candidate (e.g. `space.step("dataflow", "gemm")` for a kernel gemm)."""
        return self.rule(lambda s, cfg: getattr(s, primitive)(*args, **kwargs), name=primitive)

    def rule(self, fn: Callable, name: str = "rule") -> "Space":
        """Steps that depend on several parameters: `fn(s, cfg)` records them, in space order."""
        self.items.append(_Rule(fn, name))
        return self

    def seed(self, config: dict) -> "Space":
        """A config to score before anything else (e.g. a hand schedule as a starting point);
        parameters it leaves out take their first option."""
        self.indices(config)  # validates names/options now
        unknown = set(config) - {p.name for p in self.params}
        if unknown:
            raise DSEError(f"Space.seed: unknown parameters {sorted(unknown)}")
        self.seeds.append(dict(config))
        return self

    # ------------------------------------------------------------------ queries
    @property
    def params(self) -> list:
        return [it for it in self.items if isinstance(it, Param)]

    @property
    def size(self) -> int:
        """The number of configs (the product of the option counts)."""
        return math.prod(len(p.options) for p in self.params)

    def config(self, indices) -> dict:
        """The config of an index vector (one option index per parameter)."""
        return {p.name: p.options[k] for p, k in zip(self.params, indices)}

    def indices(self, config: dict) -> tuple:
        """The index vector of a config (parameters missing from it take their first option)."""
        return tuple(p.index_of(config[p.name]) if p.name in config else 0 for p in self.params)

    def grid(self):
        """Every index vector, first parameter slowest."""
        return itertools.product(*(range(len(p.options)) for p in self.params))

    def describe(self) -> list:
        """[(name, options)] as JSON data (what the JSON log stores)."""
        return [(p.name, [to_json(o) for o in p.options]) for p in self.params]

    # ------------------------------------------------------------------ expansion
    def expand(self, base_ir, indices) -> list:
        """The recipe (list of (primitive, func, args, kwargs) steps) of one index vector.

        Raises DSEError when a parameter's apply function or a rule fails while recording
        (addresses that cannot resolve, such as an unknown function, fail here)."""
        cfg = self.config(indices)
        rec = Recorder(base_ir)
        for it in self.items:
            try:
                if isinstance(it, Param):
                    if it.apply is not None:
                        it.apply(rec, cfg[it.name])
                else:
                    it.fn(rec, cfg)
            except DSEError:
                raise
            except Exception as e:  # a user callable or an address the recorder could not resolve
                what = f"parameter {it.name!r} = {cfg[it.name]!r}" if isinstance(it, Param) else f"rule {it.name!r}"
                raise DSEError(f"Space: {what} could not record its steps: {type(e).__name__}: {e}") from None
        rec.flush_partitions()
        return rec.recorded


def recipe_key(steps) -> str:
    """A canonical text of a recipe: candidates with equal keys are the same schedule."""
    return canonical([[p, f, list(a), [list(kv) for kv in k]] for p, f, a, k in steps])


def steps_from_json(data) -> list:
    """Recipe steps read back from JSON (lists) as tuples."""
    return [(p, f, tuple(a), tuple(tuple(kv) for kv in k)) for p, f, a, k in data]


def steps_to_json(steps) -> list:
    return [[p, f, to_json(list(a)), [[k, to_json(v)] for k, v in kw]] for p, f, a, kw in steps]


def format_step(step) -> str:
    p, f, a, kw = step
    parts = [repr(x) for x in a] + [f"{k}={v!r}" for k, v in kw]
    return f"{p}({', '.join(parts)})  @{f}"
