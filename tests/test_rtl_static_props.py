"""Random legal schedules (split, reorder, unroll, pipeline, partition) of small integer kernels:
the static circuit equals the LLVM build bit for bit and its cycles stay near the estimate (the
estimate is the worst case of guarded loops, so the circuit may be faster, never much slower)."""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import allo
from allo.ir.types import int16, int32
from tests.rtl_util import FULL, assert_bit_exact, needs_rtl, run_both

pytestmark = needs_rtl


def mm(A: int16[6, 8], B: int16[8, 4]) -> int32[6, 4]:
    C: int32[6, 4] = 0
    for i, j, k in allo.grid(6, 4, 8):
        C[i, j] += A[i, k] * B[k, j]
    return C


def stencil(A: int32[10, 12]) -> int32[10, 12]:
    B: int32[10, 12] = 0
    for i, j in allo.grid(10, 12):
        B[i, j] = A[i, j] * 3 - A[i, (j + 2) % 12]
    return B


KERNELS = {"mm": (mm, ("i", "j", "k"), ("A", "B", "C")), "stencil": (stencil, ("i", "j"), ("A", "B"))}


@st.composite
def schedules(draw):
    name = draw(st.sampled_from(sorted(KERNELS)))
    _, loops, bufs = KERNELS[name]
    steps = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["split", "reorder", "unroll", "pipeline", "partition"]))
        if kind == "split":
            steps.append(("split", draw(st.sampled_from(loops)), draw(st.sampled_from([2, 3, 4]))))
        elif kind == "reorder":
            steps.append(("reorder", draw(st.permutations(loops))))
        elif kind == "unroll":
            steps.append(("unroll", draw(st.sampled_from(loops)), draw(st.sampled_from([0, 2, 4]))))
        elif kind == "pipeline":
            steps.append(("pipeline", draw(st.sampled_from(loops)), draw(st.sampled_from([1, 2]))))
        else:
            steps.append(("partition", draw(st.sampled_from(bufs)),
                          draw(st.sampled_from([allo.Partition.Cyclic, allo.Partition.Block,
                                                allo.Partition.Complete])),
                          draw(st.integers(0, 2)), draw(st.sampled_from([2, 3, 4]))))
    return name, steps


def _apply(s, steps):
    done = []
    for step in steps:
        try:
            if step[0] == "split":
                s.split(step[1], step[2])
            elif step[0] == "reorder":
                s.reorder(*step[1])
            elif step[0] == "unroll":
                s.unroll(step[1], step[2])
            elif step[0] == "pipeline":
                s.pipeline(step[1], step[2])
            else:
                _, b, kind, dim, factor = step
                s.partition(getattr(s, b), kind, dim=dim, factor=factor)
            done.append(step)
        except allo.AlloError:
            pass  # an illegal step leaves the schedule unchanged
    return done


@settings(max_examples=40 if FULL else 5, deadline=None, derandomize=not FULL,
          phases=tuple(Phase) if FULL else [Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(schedules(), st.integers(0, 2**16))
def test_random_schedules_match_llvm_and_stay_near_the_estimate(sched, seed):
    name, steps = sched
    kernel = KERNELS[name][0]
    s = allo.customize(kernel)
    done = _apply(s, steps)
    rng = np.random.default_rng(seed)
    params = [p for p in s.ir.func(s.ir.top).params]
    args = [rng.integers(-20, 20, p.shape).astype(p.dtype.np_dtype) for p in params]
    mod, got, want = run_both(s, args)
    assert_bit_exact(got, want, f"{name} {done}")
    est = allo.report(s).latency_cycles
    assert mod.cycles <= 1.15 * est + 8, (name, done, mod.cycles, est)
