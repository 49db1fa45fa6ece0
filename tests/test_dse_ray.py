"""allo.dse on Ray: a local Ray instance started on 127.0.0.1 inside the test (one per module:
starting Ray takes ~15 s on a busy 2-core machine) scores the same trials as the local pool."""
import pytest

ray = pytest.importorskip("ray", reason="ray is not installed: pip install 'allo[dse]' (CI installs it)")

from allo import dse  # noqa: E402
from allo.dse.executors import RayExecutor  # noqa: E402
from tests.qor import designs  # noqa: E402


@pytest.fixture(scope="module")
def ray_cluster():
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, _node_ip_address="127.0.0.1", include_dashboard=False, log_to_driver=False)
    yield ray
    if started:
        ray.shutdown()


def test_ray_executor_scores_the_same_trials_as_the_local_pool(ray_cluster):
    kernel = designs.DESIGNS["atax"](M=6, N=10, scheduled=False).schedule
    kw = dict(budget={"DSP": 60}, trials=24, seed=4, batch=12)
    on_ray = dse.explore(kernel, executor="ray", verify=1, **kw)
    local = dse.explore(kernel, executor="local", workers=2, verify=0, **kw)
    assert [(t.status, t.latency, t.resources, t.steps) for t in on_ray.trials] == \
           [(t.status, t.latency, t.resources, t.steps) for t in local.trials]
    assert on_ray.best_trial.verified is True and on_ray.best_trial.dsp <= 60
    assert on_ray.stats["candidates_per_second"] > 0
    # an executor object with explicit chunks of 3 candidates per Ray task: same trials again
    chunked = dse.explore(kernel, executor=RayExecutor(chunk_size=3), verify=0, **kw)
    assert [t.latency for t in chunked.trials] == [t.latency for t in local.trials]
    assert ray_cluster.is_initialized()  # explore joined the running instance, did not restart it
