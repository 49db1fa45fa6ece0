"""allo.dse: space derivation and the Space DSL, determinism with a seed, budgets, verification of
the best candidates, the local process pool, the JSON log (resume), result views, model-level
search, and that the unchecked replay of the workers agrees with the checked one. The Ray
executor is in test_dse_ray.py; the PolyBench targets in benchmarks/bench_dse.py."""
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import allo
from allo import dse
from allo.dse.evaluate import Base, Settings, evaluate
from allo.dse.space import recipe_key
from allo.errors import DSEError
from allo.ir.types import float32
from tests.qor import designs

GEMM = dict(P=8, R=12, Q=16)  # tiny sizes: estimates take milliseconds, LLVM builds under a second


def small_gemm():
    return designs.DESIGNS["gemm"](**GEMM, scheduled=False).schedule


def small_atax():
    return designs.DESIGNS["atax"](M=6, N=10, scheduled=False).schedule


def vadd(A: float32[64], B: float32[64]) -> float32[64]:
    C: float32[64] = 0.0
    for i in range(64):
        C[i] = A[i] * 2.0 + B[i]
    return C


def _summary(r):
    return [(t.index, t.status, t.latency, t.resources, t.steps) for t in r.trials]


# ----------------------------------------------------------------------------- space derivation
def test_default_space_of_a_two_stage_kernel():
    space = dse.default_space(small_gemm())
    names = [p.name for p in space.params]
    # mm1's three innermost loops (j0 under the perfect k0/j0 chain), ele_add's 2-deep nest,
    # dataflow of mm1's i0 loop (3 loops inside), of the top (2 calls), and the stream between them
    assert names[:4] == ["mm1:j0_init:pipe", "mm1:j0_init:lanes", "mm1:j0_init:ii", "mm1:j0_init:part"]
    for want in ("mm1:j0:order", "mm1:j0:pipe", "ele_add:j2:order", "mm1:i0:dataflow", "kernel_gemm:dataflow",
                 "kernel_gemm:out_AB:stream"):
        assert want in names
    p = {p.name: p for p in space.params}
    assert p["mm1:j0:order"].options == (["k0", "j0"], ["j0", "k0"])
    # i0 holds an init loop and the k0-j0 nest (imperfect): pipelining it is offered too
    assert p["mm1:j0:pipe"].options == ("none", "inner", "outer", "loop:i0")
    assert p["mm1:j0_init:pipe"].options == ("none", "inner", "loop:i0")  # no perfect parent: no "outer"
    assert p["mm1:j0:lanes"].options == (1, 2, 4, 6, 12)  # largest divisors of 12 up to 1, 2, 4, 8, 16
    assert all(12 % f == 0 for f in p["mm1:j0:lanes"].options)
    assert space.size == np.prod([len(q.options) for q in space.params])


def test_default_space_seed_expands_to_a_uniform_schedule():
    s = small_gemm()
    space = dse.default_space(s)
    assert space.seeds[0] == {}  # the kernel as it is
    assert space.expand(s.ir, space.indices(space.seeds[0])) == []
    lanes4 = space.expand(s.ir, space.indices(space.seeds[3]))  # lane ladder value 4
    text = [f"{p}@{f}{a}" for p, f, a, _ in lanes4]
    assert "pipeline@mm1('k0/j0', 1)" in text or "pipeline@mm1('j0', 1)" in text
    assert "unroll@mm1('j0', 4)" in text and "to@kernel_gemm('out_AB', 'ele_add')" in text
    # accumulator v4 complete, B cyclic by the lanes; the streamed out_AB/AB are not partitioned
    assert "partition@mm1('v4', 'complete', 1, 0)" in text and "partition@mm1('B', 'cyclic', 2, 4)" in text
    assert not any(p == "partition" and a[0] in ("out_AB", "AB") for p, f, a, _ in lanes4)


def test_space_dsl_grid_finds_the_best_and_reports_illegal_candidates():
    space = dse.Space()
    space.split("i", [1, 4, 8])
    space.pipeline(["i.inner", "i", None], ii=[1])
    space.rule(lambda s, cfg: s.unroll("i.inner") if cfg["split:i"] > 1 else None)
    space.partition("A", kinds=["cyclic"], dims=[1], factors=[4, 8])
    assert space.size == 3 * 3 * 3
    r = dse.explore(vadd, space=space, trials=100, executor="inline", verify=1)
    assert r.header["strategy"] == "grid" and len(r.trials) == 27
    illegal = [t for t in r.trials if t.status == "illegal"]
    assert illegal and all("no loop named" in t.error for t in illegal)  # pipeline("i.inner") without a split
    best = r.best_trial
    assert best.latency == min(t.latency for t in r.trials if t.status == "ok")
    assert best.verified is True and "unroll('i.inner', 0)" in str(r.best)
    assert isinstance(r.best, allo.Schedule)


def test_space_dsl_errors():
    space = dse.Space()
    with pytest.raises(DSEError, match="at least one option"):
        space.choice("x", [])
    space.choice("x", [1, 2])
    with pytest.raises(DSEError, match="defined twice"):
        space.choice("x", [3])
    with pytest.raises(DSEError, match="not JSON data"):
        space.choice("y", [object()])
    with pytest.raises(DSEError, match="no option 5"):
        space.seed({"x": 5})
    space.choice("z", [0, 1], apply=lambda s, v: s.partition(s.Q))  # vadd has no buffer Q
    with pytest.raises(DSEError, match="parameter 'z'"):
        dse.explore(vadd, space=space, trials=4, executor="inline", verify=0)


def test_explore_argument_errors():
    for kwargs, msg in [({"objective": "speed"}, "unknown objective"), ({"strategy": "anneal"}, "unknown strategy"),
                        ({"executor": "mpi"}, "unknown executor"), ({"budget": {"DSPs": 3}}, "unknown budget resource"),
                        ({"budget": {"DSP": -1}}, "must be a number >= 0"), ({"trials": 0}, "trials must be"),
                        ({"part": "xc9000"}, "unknown part")]:
        with pytest.raises(DSEError, match=msg):
            dse.explore(vadd, **kwargs)
    with pytest.raises(DSEError, match="expected a kernel"):
        dse.explore(42)


def test_explore_bad_log_seed_and_objective_are_dse_errors(tmp_path):
    """issue 28 item 8: each was a raw FileNotFoundError / TypeError / ValueError before."""
    for kwargs, msg in [({"log": str(tmp_path / "missing" / "x.jsonl")}, "log=.* cannot be created"),
                        ({"log": str(tmp_path)}, "log=.* is a folder"), ({"seed": "1"}, "seed must be an integer"),
                        ({"seed": 1.5}, "seed must be an integer"),
                        ({"objective": lambda r: None}, "returned None; it must return a number"),
                        ({"objective": lambda r: float("nan")}, "returned nan"),
                        ({"objective": lambda r: r["latncy"]}, "raised KeyError")]:
        with pytest.raises(DSEError, match=msg):
            dse.explore(vadd, trials=2, executor="inline", verify=0, **kwargs)


# ----------------------------------------------------------------------------- the search
@pytest.fixture(scope="module")
def gemm_run():
    return dse.explore(small_gemm(), budget={"DSP": 40}, trials=32, seed=1, executor="inline", verify=2)


def test_same_seed_same_trials_and_budget_respected(gemm_run):
    again = dse.explore(small_gemm(), budget={"DSP": 40}, trials=32, seed=1, executor="inline", verify=0)
    assert _summary(again) == _summary(gemm_run)
    other = dse.explore(small_gemm(), budget={"DSP": 40}, trials=32, seed=2, executor="inline", verify=0)
    assert _summary(other) != _summary(gemm_run)
    feasible = [t for t in gemm_run.trials if t.feasible]
    assert feasible and all(t.dsp <= 40 for t in feasible)
    assert any(t.status == "ok" and t.dsp > 40 and not t.feasible for t in gemm_run.trials)
    assert gemm_run.best_trial.dsp <= 40
    base = gemm_run.trials[0]  # the first seed: the kernel unchanged
    assert base.steps == [] and gemm_run.best_trial.latency < base.latency / 4


def test_best_candidates_are_verified(gemm_run):
    checked = [t for t in gemm_run.ranked() if t.verified is not None]
    assert len({recipe_key(t.steps) for t in checked}) == 2 and all(t.verified for t in checked)
    assert "equal the unscheduled" in checked[0].note
    s = gemm_run.best
    rng = np.random.default_rng(0)
    A, B, Cm = (rng.uniform(-1, 1, sh).astype(np.float32) for sh in [(8, 16), (16, 12), (8, 12)])
    np.testing.assert_allclose(s.build()(A, B, Cm), A @ B + 0.1 * Cm, rtol=1e-5, atol=1e-5)


def test_verification_catches_a_wrong_schedule():
    from allo.dse.verify import check_equal

    def vadd_wrong(A: float32[64], B: float32[64]) -> float32[64]:
        C: float32[64] = 0.0
        for i in range(64):
            C[i] = A[i] * 2.0 - B[i]
        return C

    ok, note = check_equal(allo.customize(vadd), allo.customize(vadd_wrong), np.random.default_rng(0))
    assert not ok and "output 0 differs" in note


def test_infeasible_budget_has_a_clear_error():
    r = dse.explore(small_gemm(), budget={"DSP": 0, "BRAM_18K": 0}, trials=8, executor="inline", verify=1)
    assert not any(t.feasible for t in r.trials) and r.best_trial is None
    with pytest.raises(DSEError, match="no candidate met the budget"):
        r.best


def test_a_space_no_candidate_can_apply_names_the_reason_not_the_budget():
    """docs/dse.md's Space example once ended in `space.step("dataflow", "top")` on a kernel named
    gemm: every candidate was refused and the error blamed the budget and the trial count."""
    space = dse.Space()
    space.split("i", [1, 2, 4])
    space.step("dataflow", "top")
    r = dse.explore(vadd, space=space, trials=3, executor="inline", verify=0)
    with pytest.raises(DSEError) as info:
        r.best
    msg = str(info.value)
    assert "(3 trials, 0 estimated, 3 illegal; the most common reason, in 3 of 3: dataflow: " in msg
    assert "no loop named 'top'" in msg and msg.endswith("fix the space (its steps), not the budget")
    assert "no feasible candidate: " + msg in r.summary()


def test_the_most_common_refusal_is_counted_across_candidates():
    space = dse.Space()
    space.split("i", [2, 4, 8])
    space.choice("p", ["none", "k", "i.inner"], apply=lambda s, v: v != "none" and s.pipeline(v))
    r = dse.explore(vadd, space=space, trials=9, strategy="grid", executor="inline", verify=0,
                    budget={"DSP": 0, "BRAM_18K": 0, "LUT": 0})
    msg = r.why_no_best()
    assert "(9 trials, 6 estimated, 3 illegal; the most common reason, in 3 of 3: pipeline: " in msg
    assert "no loop named 'k'" in msg and msg.endswith("raise the budget or the trials")


def test_result_views(gemm_run, tmp_path):
    front = gemm_run.pareto
    assert front and front == sorted(front, key=lambda t: t.latency)
    for p in front:  # no feasible trial beats a front point on latency, DSP and BRAM at once
        assert not any(t.latency < p.latency and t.dsp <= p.dsp and t.bram <= p.bram for t in gemm_run.trials
                       if t.feasible)
    assert isinstance(front[-1].schedule, allo.Schedule)
    table = gemm_run.table(5)
    assert table.splitlines()[0].split()[:4] == ["#", "trial", "latency", "interval"] and "yes" in table
    assert "best: trial" in str(gemm_run)
    png = tmp_path / "dse.png"
    pytest.importorskip("matplotlib")
    gemm_run.plot(str(png))
    assert png.read_bytes()[:4] == b"\x89PNG"
    path = tmp_path / "gemm.jsonl"
    gemm_run.save(str(path))
    back = dse.load(str(path), small_gemm())
    assert _summary(back) == _summary(gemm_run)
    assert back.best_trial.index == gemm_run.best_trial.index and back.best_trial.verified is True
    assert str(back.best) == str(gemm_run.best)
    with pytest.raises(DSEError, match="another kernel"):
        dse.load(str(path), small_atax())


def test_log_resume_continues_exactly(tmp_path):
    log = str(tmp_path / "atax.jsonl")
    kw = dict(trials=36, batch=12, seed=5, executor="inline", verify=0)
    full = dse.explore(small_atax(), **kw)
    first = dse.explore(small_atax(), log=log, **dict(kw, trials=24))
    lines = open(log).read().splitlines()
    with open(log, "w") as f:  # an interrupted run: the second round's lines cut mid-way
        f.write("\n".join(lines[:1 + 12 + 1 + 5]) + "\n" + lines[1 + 12 + 1 + 5][:20])
    resumed = dse.explore(small_atax(), log=log, **kw)
    assert _summary(resumed) == _summary(full)
    assert resumed.stats["evaluated"] < full.stats["evaluated"]  # round 0 came from the log
    assert len(first.trials) == 24
    header = json.loads(open(log).readline())["header"]
    assert header["fingerprint"] == Base.of(small_atax()).key
    with pytest.raises(DSEError, match="another kernel"):
        dse.explore(small_gemm(), log=log, **kw)


def test_local_process_pool_gives_the_inline_results():
    kw = dict(budget={"DSP": 60}, trials=24, seed=4, verify=0)
    local = dse.explore(small_atax(), executor="local", workers=2, **kw)
    inline = dse.explore(small_atax(), executor="inline", **kw)
    assert _summary(local) == _summary(inline)
    from allo.dse.executors import POOLS

    pool = POOLS[2]
    assert len(pool._procs) == 2 and all(p.proc.poll() is None for p in pool._procs)
    assert local.stats["candidates_per_second"] > 0


def _pickled_modules(blob: bytes) -> set:
    """The modules whose classes/functions a pickle refers to (recorded while loading it)."""
    import io
    import pickle

    mods = set()

    class Recorder(pickle.Unpickler):
        def find_class(self, module, name):
            mods.add(module)
            return super().find_class(module, name)

    Recorder(io.BytesIO(blob)).load()
    return mods


def test_what_crosses_processes_is_plain_data():
    """The base kernel and the recipes sent to workers hold no MLIR object (only allo's IR)."""
    import pickle

    from allo.dse.evaluate import Settings as S

    s = small_gemm()
    s.build()  # the schedule now also holds MLIR/LLVM state: none of it may be sent
    base = Base.of(s)
    space = dse.default_space(s)
    steps = space.expand(s.ir, space.indices(space.seeds[3]))
    msg = pickle.dumps(("eval", base.key, base.blob, S(), [(0, steps)]), protocol=pickle.HIGHEST_PROTOCOL)
    mods = _pickled_modules(base.blob) | _pickled_modules(msg)
    assert mods and all(m.startswith(("allo.ir", "allo.dse", "builtins", "fractions")) for m in mods), mods


# ----------------------------------------------------------------------------- the fast path agrees
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 9), st.integers(2, 12), st.integers(0, 2 ** 31 - 1))
def test_unchecked_replay_agrees_with_the_checked_schedule(m, n, seed):
    """What workers score (unchecked replay) is what the user gets (checked replay)."""
    s = designs.DESIGNS["atax"](M=m, N=n, scheduled=False).schedule
    space = dse.default_space(s)
    rng = np.random.default_rng(seed)
    idx = tuple(int(rng.integers(len(p.options))) for p in space.params)
    steps = space.expand(s.ir, idx)
    base = Base.of(s)
    fast = evaluate(base.ir, steps, Settings())
    try:
        checked = base.schedule(steps)
    except allo.AlloError as e:
        assert fast["status"] == "illegal", (steps, str(e))
        return
    assert fast["status"] == "ok", fast
    r = allo.qor.estimate(checked)
    assert (fast["latency"], fast["resources"]) == (r.latency_cycles, dict(r.resources))


# ----------------------------------------------------------------------------- models
def test_model_level_search_balances_layers_within_one_budget():
    r = dse.explore_model(small_gemm(), budget={"DSP": 30}, trials=48, executor="inline")
    assert set(r.layers) == {"mm1", "ele_add"}
    assert sum(t.dsp for t in r.choice.values()) <= 30 and r.estimate["resources"]["DSP"] <= 30
    assert r.verified is True
    assert r.schedule.steps[-1].primitive == "dataflow" and r.schedule.steps[-1].func == "kernel_gemm"
    # a layer no slower than needed: every non-bottleneck layer has the cheapest such point
    slow = max(t.latency for t in r.choice.values())
    for name, t in r.choice.items():
        assert t.dsp == min(p.dsp for p in r.layers[name].pareto if p.latency <= slow)
    assert "model" in r.table()


def test_model_level_search_of_a_pytorch_model():
    torch = pytest.importorskip("torch")

    class MLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear1 = torch.nn.Linear(16, 32)
            self.linear2 = torch.nn.Linear(32, 8)

        def forward(self, x):
            return torch.relu(self.linear2(torch.relu(self.linear1(x))))

    torch.manual_seed(0)
    model = MLP().eval()
    x = torch.rand(4, 16)
    r = dse.explore(model, example_inputs=[x], budget={"DSP": 40}, trials=32, executor="inline")
    assert {"linear_1", "linear_2"} <= set(r.layers) and r.estimate["resources"]["DSP"] <= 40
    assert r.verified is True
    out = r.schedule.build()(x.numpy())
    np.testing.assert_allclose(out, model(x).detach().numpy(), rtol=1e-4, atol=1e-5)
    with pytest.raises(DSEError, match="example_inputs"):
        dse.explore_model(model)


def test_ray_executor_without_ray_says_how_to_install(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(DSEError, match=r"pip install 'allo\[dse\]'"):
        dse.explore(vadd, executor="ray", trials=2)
