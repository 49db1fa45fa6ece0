"""Design-space exploration next to published designs (PolyBench medium, float32, xcu280 @ 3.33 ns).

    python benchmarks/bench_dse.py [--kernels 3mm] [--no-verify]   # vs Stream-HLS (bench_streamhls.py)
    python benchmarks/bench_dse.py --allo [--trials N] [--skip-ray]

Default: per kernel (gemm, 2mm, 3mm, atax, bicg, gesummv, mvt) and DSP budget (220 / 2,560 /
9,024): Allo's and Stream-HLS's published RTL cycles, our best design's estimate (DSP/LUT/BRAM),
trials and seconds, and the geomean speedup vs Stream-HLS per budget (bench_streamhls.py).

`--allo`: gemm, 2mm and atax next to Allo's published hand-scheduled latency with the default
space, and candidates per second on the local process pool vs a local Ray cluster (started by
this script on 127.0.0.1).

Each search starts from the kernels of the Allo designs with no primitive applied (tests/qor,
`scheduled=False`) and uses the default space of `allo.dse`. Two budgets per kernel:
- "published DSP": the DSP count of the published design as allo's estimator sees it (the same
  model that scores the candidates, so the comparison is like for like);
- "U280": the totals of the xcu280 (what the issue calls a U280-like budget).
2mm is searched for both interfaces: "vhls" (arrays on ap_memory ports, as the published gemm
and atax designs) and "vitis_hls" (m_axi on one bundle, as the published 2mm design).
The speed section scores the same 64 gemm candidates (seed 11) on each executor, after a warm-up,
and reports the median of 3 runs (CPU-bound: on a 2-core machine both executors have 2 workers).
Also runnable from run_all.py as "dse".
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from allo import dse, qor  # noqa: E402
from tests.qor import designs, published  # noqa: E402

CASES = (("gemm", "vhls"), ("2mm", "vhls"), ("2mm", "vitis_hls"), ("atax", "vhls"))
SPEED_TRIALS, SPEED_REPS = 64, 3


def _published(name, target):
    d = designs.DESIGNS[name](**published.SIZES[name])
    r = qor.estimate(d.schedule, clock_ns=published.CLOCK_NS, part=published.PART, target=target)
    return published.CYCLES[name][0], r.latency_cycles, r.resources["DSP"]


def search_rows(trials: int):
    """One row per (kernel, target, budget) search, yielded as each search ends."""
    for name, target in CASES:
        pub, pub_est, pub_dsp = _published(name, target)
        kernel = designs.DESIGNS[name](**published.SIZES[name], scheduled=False).schedule
        for label, budget, n in (("published DSP", {"DSP": pub_dsp}, trials), ("U280", None, trials)):
            t0 = time.perf_counter()
            r = dse.explore(kernel, budget=budget, part=published.PART, target=target, clock_ns=published.CLOCK_NS,
                            trials=n, seed=0, executor="local", verify=3)
            best = r.best_trial
            meets = [p for p in r.pareto if p.latency <= pub]
            yield {"kernel": name, "target": target, "budget": label, "dsp_limit": (budget or r.budget)["DSP"],
                   "published": pub, "published_est": pub_est, "published_dsp": pub_dsp,
                   "best": best.latency if best else None, "best_dsp": best.dsp if best else None,
                   "verified": best.verified if best else None,
                   "cheapest_meeting": min((p.dsp for p in meets), default=None),
                   "trials": len(r.trials), "seconds": time.perf_counter() - t0,
                   "cps": r.stats["candidates_per_second"], "recipe": best.recipe() if best else ""}


def speed_rows(skip_ray: bool):
    kernel = designs.DESIGNS["gemm"](**published.SIZES["gemm"], scheduled=False).schedule
    kw = dict(budget={"DSP": 280}, part=published.PART, trials=SPEED_TRIALS, seed=11, verify=0)
    results = {}
    executors = [("inline", {}), ("local", {"workers": os.cpu_count()})]
    if not skip_ray:
        import ray

        t0 = time.perf_counter()
        ray.init(num_cpus=os.cpu_count(), _node_ip_address="127.0.0.1", include_dashboard=False, log_to_driver=False)
        yield (f"Ray: local cluster on 127.0.0.1 with {os.cpu_count()} CPUs started in {time.perf_counter() - t0:.1f} s")
        executors.append(("ray", {}))
    for name, extra in executors:
        dse.explore(kernel, executor=name, **dict(kw, trials=8), **extra)  # warm-up: workers import allo
        cps = []
        for _ in range(SPEED_REPS):
            r = dse.explore(kernel, executor=name, **kw, **extra)
            cps.append(r.stats["candidates_per_second"])
            results[name] = [(t.latency, t.resources, t.steps) for t in r.trials]
        yield (f"{name:<7} {statistics.median(cps):7.2f} candidates/s (median of {SPEED_REPS}; "
               f"{r.stats['evaluated']} scored per run)")
    same = all(v == results["inline"] for v in results.values())
    yield f"same trials on {', '.join(results)}: {same}"
    if not skip_ray:
        ray.shutdown()


def run(trials: int = 300, skip_ray: bool = False):
    """The report's lines, yielded as they are measured (a full run takes minutes)."""
    yield (f"allo.dse vs Allo's published latency (PolyBench medium, xcu280 @ {published.CLOCK_NS} ns, "
           f"{trials} trials per search, seed 0, local pool)")
    yield (f"{'kernel':<6} {'target':<9} {'budget':<13} {'DSP<=':>5} {'published':>9} {'(estimate)':>10} "
           f"{'DSE best':>9} {'DSP':>5} {'<= pub':>6} {'verified':>8} {'DSP to meet pub':>15} {'s':>5} {'cand/s':>6}")
    rows = []
    for r in search_rows(trials):
        rows.append(r)
        yield (f"{r['kernel']:<6} {r['target']:<9} {r['budget']:<13} {r['dsp_limit']:>5} {r['published']:>9} "
               f"{r['published_est']:>10} {r['best'] or '-':>9} {r['best_dsp'] or '-':>5} "
               f"{'yes' if r['best'] and r['best'] <= r['published'] else 'no':>6} {str(r['verified']):>8} "
               f"{r['cheapest_meeting'] or '-':>15} {r['seconds']:>5.0f} {r['cps']:>6.1f}")
    for r in rows:
        if r["budget"] == "published DSP":
            yield f"-- best recipe, {r['kernel']} ({r['target']}, DSP <= {r['dsp_limit']}):"
            yield from ("   " + s for s in r["recipe"].splitlines())
    yield "candidates per second (gemm medium, the same 64 candidates on each executor)"
    yield from speed_rows(skip_ray)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=300)
    ap.add_argument("--skip-ray", action="store_true")
    ap.add_argument("--allo", action="store_true", help="the comparison with Allo's published designs and the "
                                                         "executor speeds instead of the Stream-HLS table")
    ap.add_argument("--streamhls", action="store_true", help="the Stream-HLS table (the default)")
    ap.add_argument("--kernels", nargs="+", default=None, help="Stream-HLS table: only these kernels")
    ap.add_argument("--no-verify", action="store_true", help="Stream-HLS table: skip the LLVM check of each design")
    args = ap.parse_args()
    if not args.allo:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from bench_streamhls import KERNELS, run as run_streamhls

        t0 = time.perf_counter()
        for line in run_streamhls(args.kernels or KERNELS, not args.no_verify):
            print(line, flush=True)
        print(f"whole table: {time.perf_counter() - t0:.0f} s", flush=True)
        sys.exit(0)
    for line in run(args.trials, args.skip_ray):
        print(line, flush=True)
