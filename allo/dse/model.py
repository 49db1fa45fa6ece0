"""Model-level search: one search per layer, then one schedule for the whole model under one budget.

A model imported with `from_pytorch(..., target="mlir")` is a top function calling one function
per layer. Each layer is searched on its own (a module holding the layer and its callees, so an
estimate costs milliseconds however large the model), which yields its Pareto front of
(latency, DSP, BRAM_18K). With the top function a dataflow pipeline, the model's throughput is
set by its slowest layer, so the layers are balanced as hls4ml's reuse factors or Allo's LLM
designs are by hand: start every layer at its cheapest point, move the slowest layer to its next
faster point while the summed resources fit the budget, then give every other layer the cheapest
point that is still no slower than the slowest one. The chosen recipes are replayed on the model
with `dataflow` on the top, estimated as a whole (and re-balanced under a tighter budget if the
whole design is over it) and verified numerically against the model as imported.

Example::

    r = allo.dse.explore_model(model, example_inputs=[torch.rand(8, 16)], budget={"DSP": 200}, trials=96)
    print(r.table()); r.schedule.build(target="vhls")
"""
from __future__ import annotations

import numpy as np

from ..errors import AlloError, DSEError
from ..frontend import from_pytorch
from ..ir import nodes as N
from ..ir.attrs import DATAFLOW
from ..qor.api import estimate
from ..schedule.schedule import Schedule
from .derive import default_space, reachable_funcs
from .evaluate import Base, Settings
from .executors import make_executor
from .search import Search, check_int, is_torch_module, resolve_budget, resolve_objective, schedule_of
from .strategies import make_strategy
from .verify import check_equal


class ModelResult:
    """The outcome of `explore_model`: `schedule` (= `best`) for the whole model, `layers`
    ({layer: DSEResult of its own search}), `choice` ({layer: the Trial picked}), `estimate`
    (the whole model's latency/interval/resources), `verified`/`note`, and `table()`."""

    def __init__(self, schedule, layers, choice, estimate, budget, verified=None, note=""):
        self.schedule = schedule
        self.layers = layers
        self.choice = choice
        self.estimate = estimate
        self.budget = budget
        self.verified, self.note = verified, note

    @property
    def best(self):
        return self.schedule

    @property
    def balance(self) -> float:
        """Slowest over fastest chosen layer latency (1.0 = perfectly balanced)."""
        lat = [t.latency for t in self.choice.values()]
        return max(lat) / max(1, min(lat)) if lat else 1.0

    def table(self) -> str:
        rows = [("layer", "latency", "DSP", "BRAM_18K", "front", "trials")]
        for name, t in self.choice.items():
            res = self.layers[name]
            rows.append((name, str(t.latency), str(t.dsp), str(t.bram), str(len(res.pareto)), str(len(res.trials))))
        e = self.estimate
        rows.append(("model", f"{e['latency']} (interval {e['interval']})", str(e["resources"].get("DSP", 0)),
                     str(e["resources"].get("BRAM_18K", 0)), "", ""))
        widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
        lines = ["  ".join(v.ljust(w) if c == 0 else v.rjust(w) for c, (v, w) in enumerate(zip(r, widths))) for r in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(lines)

    def __str__(self):
        return f"model DSE within {self.budget}:\n{self.table()}\nverified: {self.verified} ({self.note})"


def layer_names(ir: N.Module) -> list:
    """The functions the top calls directly, in call order (each is one layer)."""
    out = []
    for s in ir.func(ir.top).body:
        if isinstance(s, N.CallStmt) and s.callee not in out and s.callee in {f.name for f in ir.funcs}:
            out.append(s.callee)
    return out


def layer_module(ir: N.Module, layer: str) -> N.Module:
    """A module holding `layer` (as top) and the functions it calls."""
    sub = N.Module([f for f in ir.funcs], layer, ir.meta).clone()
    keep = set(reachable_funcs(sub))
    sub.funcs = [f for f in sub.funcs if f.name in keep]
    return sub


def explore_model(model_or_schedule, example_inputs=None, objective="latency", budget=None, part=None,
                  trials: int = 128, strategy="auto", executor="local", seed: int = 0, *, clock_ns: float = 3.33,
                  target=None, bundle=None, workers=None, address=None, batch: int = 16, verify: int = 1,
                  verbose: bool = False) -> ModelResult:
    """Per-layer search of a from_pytorch model (or any top function calling layer functions)
    under one whole-model `budget`; `trials` is the total over all layers. See module docstring."""
    check_int("trials", trials, 1)
    check_int("seed", seed, 0)
    sched = _model_schedule(model_or_schedule, example_inputs)
    layers = layer_names(sched.ir)
    if not layers:
        raise DSEError(f"explore_model: the top function {sched.ir.top!r} calls no layer functions; "
                       "use allo.dse.explore for a single kernel")
    settings = Settings(clock_ns, part or "xcu280", target, bundle)
    limits = resolve_budget(budget, settings.part)
    score_fn, objective_name = resolve_objective(objective)
    ex = make_executor(executor, workers=workers, address=address)
    per_layer = max(1, trials // len(layers))
    results = {}
    for k, name in enumerate(layers):
        sub = Schedule(layer_module(sched.ir, name))
        space = default_space(sub)
        run = Search(Base.of(sub), space, settings, limits, score_fn, objective_name,
                     make_strategy(strategy, space, per_layer), per_layer, seed + k, batch, None, verbose)
        run.run(ex)
        results[name] = run.result()
    budget_left = dict(limits)
    for _ in range(3):  # the whole design may need more than the layers' sum (channels, control)
        choice = balance({n: r.pareto for n, r in results.items()}, budget_left)
        final = _assemble(sched, choice)
        est = _estimate(final, settings)
        over = {k: est["resources"].get(k, 0) - v for k, v in limits.items() if est["resources"].get(k, 0) > v}
        if not over:
            break
        budget_left = {k: v - over.get(k, 0) for k, v in budget_left.items()}
    else:
        raise DSEError(f"explore_model: no combination of the layers' schedules fits the budget {limits} "
                       f"(best try uses {est['resources']})")
    out = ModelResult(final, results, choice, est, limits)
    if verify:
        try:
            out.verified, out.note = check_equal(sched, final, np.random.default_rng([seed, 104729]))
        except AlloError as e:
            out.verified, out.note = False, " ".join(str(e).split())[:300]
    return out


def _model_schedule(obj, example_inputs):
    if is_torch_module(obj):
        if example_inputs is None:
            raise DSEError("explore_model: a torch.nn.Module needs example_inputs=[...] (as for from_pytorch)")

        return from_pytorch(obj, example_inputs=example_inputs, target="mlir")
    return schedule_of(obj)


def balance(fronts: dict, budget: dict) -> dict:
    """{layer: Trial}: minimise the slowest layer's latency with the summed resources within
    `budget`, then move every other layer to its cheapest point no slower than the slowest."""
    for name, front in fronts.items():
        if not front:
            raise DSEError(f"explore_model: no schedule of layer {name!r} fits the budget {budget}")
    by_cost = {n: sorted(f, key=lambda t: (t.dsp, t.bram, t.latency)) for n, f in fronts.items()}
    pick = {n: f[0] for n, f in by_cost.items()}

    def fits(choice):
        return all(sum(t.resources.get(k, 0) for t in choice.values()) <= v for k, v in budget.items())

    if not fits(pick):
        raise DSEError(f"explore_model: the cheapest schedules of the layers already exceed the budget {budget}")
    while True:
        slow = max(pick, key=lambda n: pick[n].latency)
        faster = [t for t in by_cost[slow] if t.latency < pick[slow].latency]
        moved = False
        for t in sorted(faster, key=lambda t: (t.dsp, t.bram, t.latency)):
            trial = dict(pick, **{slow: t})
            if fits(trial):
                pick, moved = trial, True
                break
        if not moved:
            break
    interval = max(t.latency for t in pick.values())
    for n, f in by_cost.items():
        cheaper = [t for t in f if t.latency <= interval]
        if cheaper:
            pick[n] = cheaper[0]
    return pick


def _assemble(sched, choice):
    """The model's schedule with every layer's chosen recipe and a dataflow top."""
    base = Base.of(sched)
    steps = [s for name, t in choice.items() for s in t.steps]
    top = sched.ir.func(sched.ir.top)
    if sum(isinstance(s, (N.CallStmt, N.For)) for s in top.body) >= 2 and not top.attrs.get(DATAFLOW):
        steps.append(("dataflow", sched.ir.top, (), ()))
    return base.schedule(steps)


def _estimate(s, settings) -> dict:
    r = estimate(s, clock_ns=settings.clock_ns, part=settings.part, target=settings.target, bundle=settings.bundle)
    return {"latency": r.latency_cycles, "interval": r.ii, "resources": dict(r.resources)}


__all__ = ["explore_model", "ModelResult", "balance", "layer_names", "layer_module"]
