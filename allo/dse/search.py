"""The search driver of `allo.dse.explore` and `explore_model`: argument checks, the batch loop
over a strategy and an executor (`Search`), and numerical verification of the best candidates.

Example::

    run = Search(base, space, settings, limits, score_fn, "latency", make_strategy("tpe", space, 64),
                 64, seed=0, batch=16, log=None, verbose=False)
    run.run(make_executor("local")); result = run.result()
"""
from __future__ import annotations

import json
import math
import os
import time

import numpy as np

from ..errors import AlloError, DSEError
from ..qor.report import RESOURCE_KEYS
from ..qor.tables import part_info
from ..schedule.customize import customize
from ..schedule.schedule import Schedule
from .result import LOG_VERSION, DSEResult, Trial, read_log
from .space import recipe_key
from .verify import check_equal

OBJECTIVES = ("latency", "interval") + RESOURCE_KEYS


def check_int(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise DSEError(f"explore: {name} must be an integer >= {minimum}, got {value!r}")


def is_torch_module(obj) -> bool:
    return any(c.__module__.startswith("torch.nn") and c.__name__ == "Module" for c in type(obj).__mro__)


def schedule_of(obj, instantiate=None):
    """The Schedule to start from: a Schedule as is, a kernel customized (with `instantiate`)."""
    if isinstance(obj, Schedule):
        return obj
    inner = getattr(obj, "schedule", None)  # a from_pytorch module keeps its schedule
    if isinstance(inner, Schedule):
        return inner
    if callable(obj):
        return customize(obj, instantiate=instantiate)
    raise DSEError(f"explore: expected a kernel, an allo.Schedule or a torch.nn.Module, got {type(obj).__name__}")


def resolve_budget(budget, part: str) -> dict:
    """{resource: limit}: `budget` as given, or the totals of `part`."""
    try:
        _, totals = part_info(part)
    except AlloError as e:
        raise DSEError(f"explore: {e}") from None
    if budget is None:
        return {k: int(v) for k, v in totals.items() if k in RESOURCE_KEYS}
    if not isinstance(budget, dict) or not budget:
        raise DSEError(f"explore: budget must be a dict like {{'DSP': 300, 'BRAM_18K': 200}}, got {budget!r}")
    out = {}
    for k, v in budget.items():
        if k not in RESOURCE_KEYS:
            raise DSEError(f"explore: unknown budget resource {k!r}; use {', '.join(RESOURCE_KEYS)}")
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or v < 0:
            raise DSEError(f"explore: budget[{k!r}] must be a number >= 0, got {v!r}")
        out[k] = v
    return out


def resolve_objective(objective):
    """(score function of an estimate dict, objective name); a user's function is checked to
    return a number on every call."""
    if callable(objective):
        name = getattr(objective, "__name__", "custom")
        return _checked_objective(objective, name), name
    if objective not in OBJECTIVES:
        raise DSEError(f"explore: unknown objective {objective!r}; use one of {', '.join(OBJECTIVES)} or a function "
                       "of the estimate dict")
    if objective in ("latency", "interval"):
        return (lambda r: r[objective]), objective
    return (lambda r: r["resources"].get(objective, 0)), objective


def _checked_objective(fn, name):
    def score(estimate):
        try:
            v = fn(estimate)
        except Exception as e:
            raise DSEError(f"explore: the objective {name!r} raised {type(e).__name__}: {e} (it is called with a "
                           "dict {'latency', 'interval', 'resources'})") from e
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or math.isnan(v):
            raise DSEError(f"explore: the objective {name!r} returned {v!r}; it must return a number to minimise, "
                           "e.g. lambda r: r['latency'] * max(1, r['resources']['DSP'])")
        return v
    return score


def check_cache(cache):
    """`cache=` must be None or a dict (the caller keeps it between searches)."""
    if cache is not None and not isinstance(cache, dict):
        raise DSEError(f"explore: cache must be a dict kept between searches (or None), got {type(cache).__name__}")
    return cache


def check_log(log) -> None:
    """A `log=` path must be a file this process can create or append to (checked before searching)."""
    if log is None:
        return
    if not isinstance(log, (str, os.PathLike)):
        raise DSEError(f"explore: log must be a file path (str), got {type(log).__name__}")
    path = os.fspath(log)
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        problem = "is a folder"
    elif os.path.exists(path):
        problem = None if os.access(path, os.R_OK | os.W_OK) else "is not readable and writable"
    else:
        problem = None if os.path.isdir(folder) and os.access(folder, os.W_OK) else \
            f"cannot be created ({folder} is not a writable folder)"
    if problem:
        raise DSEError(f"explore: log={path!r} {problem}; pass the path of a file in a writable folder, or log=None")


# ----------------------------------------------------------------------------- the search loop
class Search:
    """The batch loop of one search (see module docstring)."""

    def __init__(self, base, space, settings, limits, score_fn, objective, strategy, trials, seed, batch, log,
                 verbose=False, cache=None):
        self.base, self.space, self.settings, self.limits = base, space, settings, limits
        self.score_fn, self.objective, self.strategy = score_fn, objective, strategy
        self.trials, self.seed, self.batch, self.log, self.verbose = trials, seed, batch, log, verbose
        self.done = []  # Trials in proposal order
        # recipe key -> result dict of its first evaluation; with `cache` (a dict the caller keeps),
        # shared with earlier searches of the same kernel and estimate settings (an estimate does
        # not depend on the budget: a search per budget scores each recipe once)
        self.by_recipe = {} if cache is None else cache.setdefault(
            (base.key, json.dumps(settings.to_dict(), sort_keys=True, default=str)), {})
        self.seen = set()  # index vectors proposed
        self.history = []  # (index vector, rank tuple)
        self.eval_seconds = 0.0
        self.evaluated = 0
        self.header = {"allo_dse": LOG_VERSION, "kernel": base.source, "fingerprint": base.key,
                       "space": space.describe(), "settings": settings.to_dict(), "objective": objective,
                       "budget": limits, "seed": seed, "strategy": strategy.name, "batch": batch,
                       "left_out": dict(getattr(space, "left_out", {}))}
        self.next_round = 0
        if log and os.path.exists(log):
            self._resume(log)

    def _resume(self, path):
        header, trials, _, complete_rounds = read_log(path)
        same = json.loads(json.dumps({"space": self.space.describe(), "settings": self.settings.to_dict()}))
        if header.get("fingerprint") != self.base.key or any(header.get(k) != v for k, v in same.items()):
            raise DSEError(f"explore: log {path} belongs to another kernel, space or estimate settings (kernel "
                           f"{header.get('kernel')}, settings {header.get('settings')}); delete it or pass another path")
        rounds = {}
        for t in trials:
            rounds.setdefault(t.round, []).append(t)
        complete = sorted(r for r in rounds if r in complete_rounds)  # a cut round is scored again
        for r in complete:
            for t in rounds[r]:
                t.config = self.space.config(self.space.indices(t.config))
                self._record(t, self._as_result(t))
        self.next_round = complete[-1] + 1 if complete else 0

    @staticmethod
    def _as_result(t):
        if t.status != "ok":
            return {"status": t.status, "error": t.error, "seconds": t.seconds}
        return {"status": "ok", "latency": t.latency, "interval": t.interval, "work": t.work,
                "resources": t.resources, "available": t.available, "seconds": t.seconds}

    def run(self, executor):
        if self.log and not os.path.exists(self.log):
            with open(self.log, "w") as f:
                f.write(json.dumps({"header": self.header}) + "\n")
        while len(self.done) < self.trials:
            rng = np.random.default_rng([self.seed, self.next_round])
            want = min(self.batch, self.trials - len(self.done))
            proposals = self.strategy.propose(self.space, self.history, want, rng, self.seen)
            if not proposals:
                break  # the strategy has nothing new (a grid ran out)
            self._round(executor, proposals)
            self.next_round += 1

    def _round(self, executor, proposals):
        trials, new = [], {}
        for idx in proposals:
            self.seen.add(tuple(idx))
            steps = self.space.expand(self.base.ir, idx)
            t = Trial(len(self.done) + len(trials), self.next_round, self.space.config(idx), steps, "pending")
            t._indices = tuple(idx)
            trials.append(t)
            key = recipe_key(steps)
            if key not in self.by_recipe and key not in new:
                new[key] = (t.index, steps)
        t0 = time.perf_counter()
        results = dict(executor.map(self.base, self.settings, list(new.values()))) if new else {}
        self.eval_seconds += time.perf_counter() - t0
        self.evaluated += len(new)
        for key, (i, _) in new.items():
            self.by_recipe[key] = results.get(i, {"status": "error", "error": "no result from the executor"})
        for t in trials:
            self._record(t, self.by_recipe[recipe_key(t.steps)])
        if self.log:
            with open(self.log, "a") as f:
                for t in trials:
                    f.write(json.dumps({"trial": t.to_json()}) + "\n")
                f.write(json.dumps({"round_done": self.next_round}) + "\n")
        if self.verbose:
            best = min((t for t in self.done if t.feasible), key=lambda t: t.score, default=None)
            print(f"[dse] round {self.next_round}: {len(self.done)}/{self.trials} trials, best "
                  f"{best.latency if best else '-'} cycles")

    def _record(self, t, res):
        t.status = res["status"]
        t.error = res.get("error", "")
        t.seconds = res.get("seconds", 0.0)
        if t.status == "ok":
            t.latency, t.interval, t.work = res["latency"], res["interval"], res.get("work", res["latency"])
            t.resources, t.available = dict(res["resources"]), dict(res.get("available", {}))
            over = max((t.resources.get(k, 0) / v if v else (float("inf") if t.resources.get(k, 0) else 0.0))
                       for k, v in self.limits.items())
            t.feasible = over <= 1.0
            t.score = float(self.score_fn({"latency": t.latency, "interval": t.interval, "resources": t.resources}))
            # ties (a dataflow design's non-critical stages): less total work ranks first
            rank = (0, t.score, t.latency, t.work) if t.feasible else (1, over, t.latency, t.work)
        else:
            t.feasible, t.score, rank = False, None, (2, 0, 0, 0)
        idx = getattr(t, "_indices", None) or self.space.indices(t.config)
        self.seen.add(idx)
        self.history.append((idx, rank))
        self.done.append(t)
        self.by_recipe.setdefault(recipe_key(t.steps), res)

    def result(self) -> DSEResult:
        stats = {"trials": len(self.done), "evaluated": self.evaluated, "eval_seconds": round(self.eval_seconds, 3),
                 "candidates_per_second": round(self.evaluated / self.eval_seconds, 3) if self.eval_seconds else None}
        return DSEResult(self.base, self.done, self.objective, self.limits, self.settings, self.space.describe(),
                         self.header, stats)


# ----------------------------------------------------------------------------- verification
def verify_best(result: DSEResult, n: int, seed: int = 0) -> None:
    """Check the `n` best distinct feasible recipes numerically (marks `verified`/`note`); a
    candidate that fails its checked replay or the comparison is marked False and skipped by
    `result.best`."""
    reference = result.base.schedule([]).build()
    rng = np.random.default_rng([seed, 7919])
    checked = set()
    for t in result.ranked():
        if len(checked) >= n:
            break
        key = recipe_key(t.steps)
        if key in checked:
            continue
        checked.add(key)
        try:
            ok, note = check_equal(reference, t.schedule, rng)
        except AlloError as e:
            ok, note = False, f"{type(e).__name__}: {' '.join(str(e).split())[:300]}"
        t.verified, t.note = ok, note
