"""QoR estimator vs published Vitis HLS 2022.1 latencies, and how long an estimate takes.

    python benchmarks/bench_qor.py

For the 16 PolyBench designs of the Allo PLDI'24 artifact (tests/qor: 8 kernels, Allo-scheduled
and Vitis baseline, medium sizes, float32, xcu280 @ 3.33 ns) prints the published latency, allo's
estimate, the error, the ranking per kernel, and the median time of one `allo.qor.estimate` (a
schedule already built; medians of several runs, CPU time of this thread, robust on a busy
machine). Also runnable from run_all.py as "qor".
"""
from __future__ import annotations

import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from allo import qor  # noqa: E402
import allo  # noqa: E402
from tests.qor import baselines, designs, held_out, published  # noqa: E402

REPS = 5


def _timed(fn, reps=REPS):
    cpu, wall, out = [], [], None
    for _ in range(reps):
        c0, w0 = time.thread_time(), time.perf_counter()
        out = fn()
        cpu.append(time.thread_time() - c0)
        wall.append(time.perf_counter() - w0)
    return out, statistics.median(cpu), statistics.median(wall)


def rows():
    out = []
    for name in published.CYCLES:
        sizes = published.SIZES[name]
        d = designs.DESIGNS[name](**sizes)
        b, target, bundle = baselines.build(name, sizes)
        for kind, sched, tgt, bnd, pub in (("allo", d.schedule, d.target, None, published.CYCLES[name][0]),
                                           ("baseline", b, target, bundle, published.CYCLES[name][1])):
            r, cpu, wall = _timed(lambda: qor.estimate(sched, clock_ns=published.CLOCK_NS, part=published.PART,
                                                       target=tgt, bundle=bnd))
            out.append((name, kind, pub, r.latency_cycles, (r.latency_cycles - pub) / pub, cpu, wall))
    return out


def held_out_rows():
    """Designs the model was not tuned on (tests/qor/held_out.py, baselines.HELD_OUT)."""
    out = []
    for name, sizes in held_out.SIZES.items():
        pub_allo, pub_base = held_out.CYCLES[name]
        cases = []
        if name in held_out.DESIGNS and pub_allo is not None:
            d = held_out.DESIGNS[name](**sizes)
            cases.append(("allo", d.schedule, d.target, None, pub_allo))
        kernel, _ = baselines.HELD_OUT[name](**sizes)
        cases.append(("baseline", allo.customize(kernel), baselines.TARGET, baselines.BUNDLE, pub_base))
        for kind, sched, tgt, bnd, pub in cases:
            r, cpu, wall = _timed(lambda: qor.estimate(sched, clock_ns=published.CLOCK_NS, part=published.PART,
                                                       target=tgt, bundle=bnd))
            out.append((name, kind, pub, r.latency_cycles, (r.latency_cycles - pub) / pub, cpu, wall))
    return out


def run():
    lines = [f"QoR estimate vs published Vitis HLS 2022.1 (xcu280 @ {published.CLOCK_NS} ns, cycles, worst case)",
             f"{'design':<12} {'kind':<9} {'published':>12} {'estimate':>12} {'error':>8}  {'CPU ms':>7} {'wall ms':>8}"]
    table = rows()
    for name, kind, pub, est, err, cpu, wall in table:
        lines.append(f"{name:<12} {kind:<9} {pub:>12} {est:>12} {100 * err:>+7.1f}%  {1e3 * cpu:>7.1f} {1e3 * wall:>8.1f}")
    within = sum(abs(e) <= 0.25 for *_, e, _, _ in table)
    by = {(n, k): est for n, k, _, est, *_ in table}
    ranked = sum(by[(n, "allo")] < by[(n, "baseline")] for n in published.CYCLES)
    cpus = sorted(c for *_, c, _ in table)
    lines.append(f"within 25%: {within}/16; scheduled design ranked faster than the baseline: {ranked}/8")
    lines.append(f"estimate time (median CPU of {REPS} runs): median {1e3 * statistics.median(cpus):.1f} ms, "
                 f"max {1e3 * cpus[-1]:.1f} ms over the 16 designs")
    lines.append("held out (not tuned on): the artifact's other kernels")
    held = held_out_rows()
    for name, kind, pub, est, err, cpu, wall in held:
        lines.append(f"{name:<12} {kind:<9} {pub:>12} {est:>12} {100 * err:>+7.1f}%  {1e3 * cpu:>7.1f} {1e3 * wall:>8.1f}")
    lines.append(f"held out within 15%: {sum(abs(e) <= 0.15 for *_, e, _, _ in held)}/{len(held)}")
    return lines


if __name__ == "__main__":
    for line in run():
        print(line, flush=True)
