"""`allo.dse.explore(cache=)`: a dict kept across searches of one kernel (a search per budget)
scores each recipe once; the trials and the best designs are those of searches without it."""
import pytest

from allo import dse
from allo.errors import DSEError
from tests.qor import designs


def small_atax():
    return designs.DESIGNS["atax"](M=6, N=10, scheduled=False).schedule


def _summary(r):
    return [(t.index, t.status, t.latency, t.resources, t.feasible, t.steps) for t in r.trials]


def test_a_cache_across_budgets_gives_the_same_trials_and_scores_less():
    kw = dict(trials=40, batch=8, seed=3, executor="inline", verify=0, strategy="local")
    cache = {}
    alone, shared = [], []
    for dsp in (10, 40, 200):
        alone.append(dse.explore(small_atax(), budget={"DSP": dsp}, **kw))
        shared.append(dse.explore(small_atax(), budget={"DSP": dsp}, cache=cache, **kw))
    for a, s in zip(alone, shared):
        assert _summary(a) == _summary(s)
        assert a.best_trial.index == s.best_trial.index and a.best_trial.dsp <= s.budget["DSP"]
    assert shared[0].stats["evaluated"] == alone[0].stats["evaluated"]  # an empty cache: all scored
    later = sum(s.stats["evaluated"] for s in shared[1:])
    assert later < sum(a.stats["evaluated"] for a in alone[1:])  # recipes of earlier budgets reused
    assert len(cache) == 1  # one kernel, one estimate setting


def test_the_cache_keeps_kernels_and_settings_apart():
    cache = {}
    kw = dict(trials=12, seed=1, executor="inline", verify=0, cache=cache)
    a = dse.explore(small_atax(), **kw)
    b = dse.explore(small_atax(), clock_ns=5.0, **kw)  # other estimate settings: scored again
    assert b.stats["evaluated"] == a.stats["evaluated"] and len(cache) == 2
    c = dse.explore(designs.DESIGNS["atax"](M=8, N=10, scheduled=False).schedule, **kw)
    assert c.stats["evaluated"] > 0 and len(cache) == 3


def test_a_cache_that_is_not_a_dict_is_refused():
    with pytest.raises(DSEError, match="cache must be a dict"):
        dse.explore(small_atax(), trials=4, verify=0, executor="inline", cache=[])
