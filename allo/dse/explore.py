"""`allo.dse.explore`: search a kernel's schedules for the best QoR estimate within a budget.

The driver proposes candidates in batches (a strategy over a `Space`), expands each into its
recipe (schedule steps), has an executor score the new recipes (replay + `allo.qor.estimate` in
worker processes), ranks them against the objective and the budget, logs each batch, and at the
end verifies the best few numerically (LLVM build == the unscheduled kernel on random inputs).

Determinism: batch `k` draws from `numpy.random.default_rng([seed, k])` and sees the history of
batches 0..k-1 in proposal order, so the same seed gives the same trials on any executor, and a
run resumed from its log continues exactly where it stopped.

Example::

    r = allo.dse.explore(gemm, budget={"DSP": 300}, trials=200, seed=0)              # local processes
    r = allo.dse.explore(s, part="xcu280", executor="ray", address="auto", trials=2000)
    print(r.best); print(r.table()); r.plot("gemm.png")
"""
from __future__ import annotations

from ..errors import DSEError
from .derive import default_space
from .evaluate import Base, Settings
from .executors import make_executor
from .model import explore_model
from .result import DSEResult, read_log
from .search import (OBJECTIVES, Search, check_cache, check_int, check_log, is_torch_module, resolve_budget, resolve_objective, schedule_of,
                     verify_best)
from .space import Space
from .strategies import make_strategy


def explore(kernel_or_schedule, space: Space | None = None, objective="latency", budget: dict | None = None,
            part: str | None = None, trials: int = 64, strategy="auto", executor="local", seed: int = 0, *,
            clock_ns: float = 3.33, target: str | None = None, bundle=None, workers: int | None = None,
            address: str | None = None, batch: int = 16, verify: int = 3, log: str | None = None,
            instantiate=None, example_inputs=None, layers: bool | None = None, verbose: bool = False,
            cache: dict | None = None) -> DSEResult:
    """Search schedules of a kernel (or schedule) for the best `objective` within `budget`.

    - `space`: an `allo.dse.Space`; default: `default_space(...)` derived from the loops/arrays.
    - `objective`: "latency" (cycles, default), "interval", a resource ("DSP", ...), or a
      function of the estimate dict ({"latency", "interval", "resources"}) to minimise.
    - `budget`: {"DSP": n, "BRAM_18K": n, ...} upper limits; default: the totals of `part`
      (default "xcu280"). A candidate over any limit is infeasible.
    - `strategy`: "auto" (grid when the space has at most `trials` configs, else "tpe"),
      "grid", "random", "tpe", "local" (hill climbing over ordered factors). `trials`: candidates to
      score. `seed`: fixes the search.
    - `executor`: "local" (processes on this machine, `workers=` cores), "ray" (`address=None`
      starts Ray on 127.0.0.1, "auto" or "ray://host:port" joins a cluster), "inline".
    - `verify`: how many of the best candidates to check numerically (0: none).
    - `log`: a JSON-lines file written batch by batch; an existing log of the same kernel and
      space is resumed (its trials are not scored again).
    - `cache`: a dict kept by the caller across searches: recipes scored by an earlier search of
      the same kernel and estimate settings (e.g. under another budget) are not scored again.
    - Models: a torch.nn.Module (with `example_inputs=`) or `layers=True` runs the per-layer
      search of `explore_model` under one whole-model budget.

    Example::

        r = allo.dse.explore(gemm, budget={"DSP": 280}, trials=300)
        print(r.best_trial.latency, r.best)
    """
    if layers or (layers is None and is_torch_module(kernel_or_schedule)):
        return explore_model(kernel_or_schedule, example_inputs=example_inputs, objective=objective, budget=budget,
                             part=part, trials=trials, strategy=strategy, executor=executor, seed=seed,
                             clock_ns=clock_ns, target=target, bundle=bundle, workers=workers, address=address,
                             batch=batch, verify=verify, verbose=verbose)
    check_int("trials", trials, 1)
    check_int("batch", batch, 1)
    check_int("verify", verify, 0)
    check_int("seed", seed, 0)
    check_log(log)
    sched = schedule_of(kernel_or_schedule, instantiate)
    base = Base.of(sched)
    space = default_space(sched) if space is None else space
    if not isinstance(space, Space):
        raise DSEError(f"explore: space must be an allo.dse.Space, got {type(space).__name__}")
    settings = Settings(clock_ns, part or "xcu280", target, bundle)
    limits = resolve_budget(budget, settings.part)
    score_fn, objective_name = resolve_objective(objective)
    run = Search(base, space, settings, limits, score_fn, objective_name, make_strategy(strategy, space, trials),
                 trials, seed, batch, log, verbose, cache=check_cache(cache))
    ex = make_executor(executor, workers=workers, address=address)
    run.run(ex)
    result = run.result()
    if verify:
        verify_best(result, verify, seed)
        if log:
            result.save(log)
    return result


def load(path: str, kernel_or_schedule=None, instantiate=None) -> DSEResult:
    """A `DSEResult` from a JSON-lines log. With the kernel (or schedule) it was searched on,
    the trials' schedules can be rebuilt (`r.best`, `r.pareto[k].schedule`).

    Example::

        r = allo.dse.load("gemm.jsonl", gemm)
    """
    header, trials, verification, _ = read_log(path)
    base = None
    if kernel_or_schedule is not None:
        base = Base.of(schedule_of(kernel_or_schedule, instantiate))
        if base.key != header.get("fingerprint"):
            raise DSEError(f"allo.dse.load: {path} was searched on another kernel ({header.get('kernel')})")
    limits = header.get("budget", {})
    name = header.get("objective", "latency")
    score_fn, objective = resolve_objective(name if name in OBJECTIVES else "latency")
    for t in trials:
        if t.status == "ok":
            t.feasible = all(t.resources.get(k, 0) <= v for k, v in limits.items())
            t.score = float(score_fn({"latency": t.latency, "interval": t.interval, "resources": t.resources}))
        t.verified, t.note = verification.get(str(t.index), [None, ""])
    return DSEResult(base, trials, objective, limits, Settings(**header.get("settings", {})), header.get("space"), header)
