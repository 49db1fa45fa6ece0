"""The Stream-HLS table's designs at reduced sizes on the static RTL circuit (issue 26, item 1:
"the best designs at reduced sizes simulated to confirm the estimate").

    python benchmarks/bench_dse_rtl.py [--kernels gemm atax ...]

Per kernel (gemm, 2mm, 3mm, atax, bicg, gesummv, mvt): the kernel and space of bench_streamhls.py
(streamhls_mm.py, streamhls_matvec.py, the same text with the size constants made small), the
DSE's best design within a small DSP budget, built with target="rtl" (allo/backend/rtl/static,
float32 units) and simulated with Verilator on random inputs: its results against numpy's and
its simulated cycles against allo.report's estimate of the same schedule. Each design is also
verified on LLVM by the search (`verify=1`). Runs in about a minute (Verilator builds cached).
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import re
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, ROOT)

import allo  # noqa: E402
from allo import dse  # noqa: E402
from allo.dse.verify import random_inputs  # noqa: E402

# reduced sizes: each constant line of the benchmark modules, and what it becomes
MATVEC = {r"M, N = 390, 410": "M, N = 6, 8", r"NG = 250": "NG = 8", r"NV = 400": "NV = 8"}
MM = {r"NI, NJ, NK, NL = 180, 190, 210, 220": "NI, NJ, NK, NL = 4, 6, 8, 6",
      r"I3, J3, K3, L3, M3 = 180, 190, 200, 210, 220": "I3, J3, K3, L3, M3 = 4, 6, 8, 6, 8"}
GEMM = {r"P, R, Q = 200, 220, 240": "P, R, Q = 4, 6, 8"}
# kernel -> (benchmark module, its size constants, DSP budget of the search)
CASES = {
    "gemm": ("bench_streamhls", GEMM, 48),
    "2mm": ("streamhls_mm", MM, 60),
    "3mm": ("streamhls_mm", MM, 60),
    "atax": ("streamhls_matvec", MATVEC, 40),
    "bicg": ("streamhls_matvec", MATVEC, 40),
    "gesummv": ("streamhls_matvec", MATVEC, 40),
    "mvt": ("streamhls_matvec", MATVEC, 40),
}
TRIALS = 200  # a grid when the space is at most this size, else a hill climb of this many trials
_LOADED = {}


def reduced(module: str, sizes: dict):
    """The benchmark module `module` with its size constants replaced (a copy in a temporary
    folder: allo reads a kernel's source from its file)."""
    key = (module, tuple(sorted(sizes.items())))
    if key in _LOADED:
        return _LOADED[key]
    text = open(os.path.join(HERE, f"{module}.py")).read()
    for pat, new in sizes.items():
        text, n = re.subn(rf"^{re.escape(pat)}\b", new, text, flags=re.M)
        if n != 1:
            raise SystemExit(f"bench_dse_rtl: {module}.py has no line {pat!r} (update MATVEC/MM/GEMM)")
    folder = tempfile.mkdtemp(prefix="allo_dse_rtl_")
    path = os.path.join(folder, f"{module}_small.py")
    with open(path, "w") as f:
        f.write(text)
    sys.path.insert(0, HERE)  # the module imports its siblings
    spec = importlib.util.spec_from_file_location(f"{module}_small", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    _LOADED[key] = mod
    return mod


def kernel_and_space(name):
    module, sizes, budget = CASES[name]
    m = reduced(module, sizes)
    if name == "gemm":
        return m.gemm, dse.lanes_space(m.P, m.R, out="C", rows_in="A", cols_in="B"), budget
    return (*m.spaces(max_factor=64)[name], budget)


def numpy_reference(name, args):
    """What the kernel computes (numpy, float64), as (results, in-place arguments)."""
    a = [np.asarray(x, np.float64) for x in args]
    if name == "gemm":
        A, B, C = a
        return [], [C + A @ B]
    if name == "2mm":
        A, B, C, D = a
        return [], [D + (A @ B) @ C]
    if name == "3mm":
        A, B, C, D = a
        return [(A @ B) @ (C @ D)], []
    if name == "atax":
        A, x = a
        return [A.T @ (A @ x)], []
    if name == "bicg":
        A, p, r = a
        return [A.T @ r, A @ p], []
    if name == "gesummv":
        alpha, beta, A, B, x = a
        return [alpha * (A @ x) + beta * (B @ x)], []
    if name == "mvt":
        x1, x2, y1, y2, A = a
        return [], [x1 + A @ y1, x2 + A.T @ y2]
    raise KeyError(name)


def _written(name, args):
    """The arguments a kernel updates in place, in numpy_reference's order."""
    return {"gemm": [2], "2mm": [3], "mvt": [0, 1]}.get(name, [])


def confirm(name, seed: int = 0) -> dict:
    """Search, simulate and compare one kernel (see module docstring)."""
    kernel, space, budget = kernel_and_space(name)
    t0 = time.perf_counter()
    strategy = "grid" if space.size <= TRIALS else "local"
    r = dse.explore(kernel, space=space, budget={"DSP": budget}, strategy=strategy,
                    trials=min(space.size, TRIALS), executor="inline", verify=1, seed=seed)
    best = r.best_trial
    s = best.schedule
    est = allo.qor.estimate(s)
    mod = s.build(target="rtl")
    args = random_inputs(s.ir.func(s.ir.top), np.random.default_rng(seed))
    given = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
    out = mod(*given)
    outs = [] if out is None else (list(out) if isinstance(out, tuple) else [out])
    want_out, want_args = numpy_reference(name, args)
    got = [np.asarray(o) for o in outs] + [given[k] for k in _written(name, args)]
    want = want_out + want_args
    ok = len(got) == len(want) and all(np.allclose(g, w, rtol=1e-4, atol=1e-5) for g, w in zip(got, want))
    return {"kernel": name, "budget": budget, "space": space.size, "config": best.config, "dsp": best.dsp,
            "verified": best.verified, "equal": ok, "estimate": int(est.latency_cycles), "cycles": int(mod.cycles),
            "rtl": mod.report(), "qor": est, "seconds": time.perf_counter() - t0}


def run(kernels=tuple(CASES)):
    yield ("Stream-HLS kernels at reduced sizes: the DSE's best design (float32) on the static RTL circuit "
           "(Verilator) vs allo.report's estimate")
    yield (f"{'kernel':<8} {'DSP<=':>5} {'DSP':>4} {'estimate':>8} {'RTL':>6} {'RTL/est':>7} {'==numpy':>7} "
           f"{'LLVM':>5} {'s':>4}  config")
    for name in kernels:
        r = confirm(name)
        yield (f"{name:<8} {r['budget']:>5} {r['dsp']:>4} {r['estimate']:>8} {r['cycles']:>6} "
               f"{r['cycles'] / r['estimate']:>7.2f} {str(r['equal']):>7} {str(r['verified']):>5} "
               f"{r['seconds']:>4.0f}  {r['config']}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", nargs="+", default=list(CASES))
    ap.add_argument("--tables", action="store_true", help="print the per-loop RTL and estimate tables too")
    args = ap.parse_args()
    if args.tables:
        for k in args.kernels:
            r = confirm(k)
            print(f"== {k}: {r['config']} estimate {r['estimate']} RTL {r['cycles']}\n{r['qor']}\n{r['rtl']}", flush=True)
    else:
        for line in run(args.kernels):
            print(line, flush=True)
