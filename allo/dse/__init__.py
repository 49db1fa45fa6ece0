"""Design-space exploration: find good schedules automatically, scored by the QoR estimator.

`explore(kernel_or_schedule, ...)` derives a search space from the kernel's loops and arrays (or
takes an `allo.dse.Space`), scores candidates as schedule recipes (replayed in worker processes:
on this machine by default, on a Ray cluster with `executor="ray"`), respects a resource budget,
verifies the best numerically and returns a `DSEResult` (`best`, `pareto`, `table()`, `plot()`,
a resumable JSON-lines log). `explore_model` searches a from_pytorch model layer by layer under
one whole-model budget and balances the layers of its dataflow pipeline.

Example::

    import allo
    r = allo.dse.explore(gemm, budget={"DSP": 300}, trials=200, seed=0)
    print(r.best)             # the best schedule's steps
    print(r.table())          # the top candidates
    r.pareto                  # latency / DSP / BRAM trade-off
"""
from .derive import default_space
from .evaluate import Settings
from .explore import explore, load
from .lanes import lanes_space
from .nest_lanes import nest_lanes_space
from .model import ModelResult, explore_model
from .result import DSEResult, Trial, pareto_front
from .space import Space

__all__ = ["explore", "explore_model", "Space", "default_space", "DSEResult", "ModelResult", "Trial", "Settings",
           "pareto_front", "load", "lanes_space", "nest_lanes_space"]
