"""Reliability costs: memory and threads over many distinct builds, and the per-call overhead of
an interruptible (Ctrl-C-able) LLVM call.

    python benchmarks/bench_reliability.py [N]        # N distinct builds (default 300)

1. Builds N distinct kernels (a different constant each), calls and drops each module; reports
   RSS and OS thread growth, once with the engine cache as it was before (128 engines kept
   strongly) and once as it is now (engines live while a module uses them, plus the last 8).
   Each configuration runs in its own process.
2. Median time per call of a small `while`-loop kernel with and without the interrupt guard.
3. `python benchmarks/bench_reliability.py loops`: the cost per iteration of the guards of loops with
   run-time bounds (the abort flag polled at the back edge, the entry checks of affine accesses) on
   tight loops, against builds of the same kernels without them.
4. `python benchmarks/bench_reliability.py embedding`: the cost of the id check of the library's
   `nn.embedding` (always bounds-checked) against the same instance built without it.
"""
import gc
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

import allo
import allo.backend.llvm.module as llvm
from allo.ir.types import float32, int32, int64


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _threads() -> int:
    return len(os.listdir("/proc/self/task"))


def builds(n: int, cache_size: int) -> dict:
    """RSS/thread growth over `n` distinct builds with the strong engine cache set to `cache_size`."""
    llvm.CACHE_SIZE = cache_size

    def one(k):
        scale = float(k)

        def kern(A: float32[8]) -> float32[8]:
            B: float32[8] = 0.0
            for i in range(8):
                B[i] = A[i] * scale
            return B

        allo.customize(kern).build()(np.ones(8, np.float32))

    for k in range(10):  # warm up: imports, the first engines
        one(k)
    gc.collect()
    rss0, th0, t0 = _rss_mb(), _threads(), time.perf_counter()
    for k in range(10, 10 + n):
        one(k)
    gc.collect()
    return {"builds": n, "cache": cache_size, "rss_growth_mb": round(_rss_mb() - rss0, 1),
            "threads_before": th0, "threads_after": _threads(), "seconds": round(time.perf_counter() - t0, 1)}


def call_overhead(calls: int = 20000) -> dict:
    """Median seconds per call of a `while` kernel, interruptible vs plain (same module)."""
    def spin(n: int32, A: int32[4]) -> int32:
        x: int32 = 0
        while x < n:
            A[x % 4] += 1
            x = x + 1
        return x

    mod = allo.customize(spin).build()
    A = np.zeros(4, np.int32)
    out = {}
    for rnd in range(3):
        for flag in (True, False):
            mod.interruptible = flag
            ts = []
            for _ in range(calls // 3):
                t = time.perf_counter()
                mod(0, A)
                ts.append(time.perf_counter() - t)
            out.setdefault(flag, []).append(statistics.median(ts))
    on, off = min(out[True]), min(out[False])
    return {"interruptible_us": round(on * 1e6, 2), "plain_us": round(off * 1e6, 2),
            "overhead_us": round((on - off) * 1e6, 2)}


N_LOOP = 1 << 14


def _while_regs(n: int64) -> int64:
    x: int64 = 0
    i: int64 = 0
    while i < n:
        x = x * 3 + i
        i = i + 1
    return x


def _for_regs(n: int64) -> int64:
    x: int64 = 0
    for i in range(n):
        x = x * 3 + i
    return x


def _for_memory(A: int32[N_LOOP], n: int32):
    for i in range(n):
        A[i] = A[i] * 3 + 1


def _for_nested(A: int32[N_LOOP, 8], n: int32):
    for i in range(n):
        for j in range(8):
            A[i, j] += j


def _short_rows(A: int32[N_LOOP, 4], n: int32):
    for i in range(N_LOOP):  # the inner loop starts N_LOOP times: one entry check each
        for j in range(n):
            A[i, j] += j


def _per_iteration_ns(mod, args, n, calls=200) -> float:
    mod(*args)
    best = min(_timed(mod, args) for _ in range(calls))
    return best / n * 1e9


def _timed(mod, args) -> float:
    t = time.perf_counter()
    mod(*args)
    return time.perf_counter() - t


def loop_costs() -> list:
    """ns per iteration of tight loops with run-time bounds, guarded (this build) and unguarded."""
    plain_instrument = llvm.instrument
    rows = []
    kernels = [("while, registers only", _while_regs, lambda: (N_LOOP,)),
               ("for range(n), registers only", _for_regs, lambda: (N_LOOP,)),
               ("for range(n), A[i] = A[i] * 3 + 1", _for_memory, lambda: (np.zeros(N_LOOP, np.int32), N_LOOP)),
               ("for range(n) over a constant 8-loop", _for_nested, lambda: (np.zeros((N_LOOP, 8), np.int32), N_LOOP)),
               ("constant loop over for range(n), n = 4 (per outer iteration)", _short_rows,
                lambda: (np.zeros((N_LOOP, 4), np.int32), 4))]
    for label, kern, args in kernels:
        guarded = allo.customize(kern).build()
        llvm.instrument = lambda mod, bounds_check=False, aborts=False, entry_checks=False: \
            plain_instrument(mod, bounds_check)
        try:
            bare = allo.customize(kern).build()
        finally:
            llvm.instrument = plain_instrument
        costs = {}
        for _ in range(3):  # interleaved rounds: the machine is shared
            for name, mod in (("guarded", guarded), ("unguarded", bare)):
                ns = _per_iteration_ns(mod, args(), N_LOOP)
                costs[name] = min(costs.get(name, ns), ns)
        rows.append({"loop": label, "guarded_ns": round(costs["guarded"], 3), "unguarded_ns": round(costs["unguarded"], 3),
                     "cost_ns": round(costs["guarded"] - costs["unguarded"], 3)})
    return rows


def embedding_costs() -> list:
    """Time per call of nn.embedding (default LLVM build, ids checked) vs. the instance without the check."""
    from allo.ir.attrs import BOUNDS_CHECK
    from allo.library import nn

    rows = []
    rng = np.random.default_rng(0)
    for vocab, dim, length in ((30522, 768, 128), (1000, 64, 512), (1000, 8, 4096)):
        table = rng.standard_normal((vocab, dim)).astype(np.float32)
        ids = rng.integers(0, vocab, length).astype(np.int64)
        checked = allo.customize(nn.embedding, instantiate=[float32, vocab, dim, length]).build()
        s = allo.customize(nn.embedding, instantiate=[float32, vocab, dim, length])
        s.ir.func(s.top_func_name).attrs.pop(BOUNDS_CHECK)
        bare = s.build()
        np.testing.assert_array_equal(checked(ids, table), bare(ids, table))
        best = {}
        for _ in range(5):  # interleaved rounds: the machine is shared
            for name, mod in (("checked", checked), ("unchecked", bare)):
                t = min(_timed(mod, (ids, table)) for _ in range(20))
                best[name] = min(best.get(name, t), t)
        rows.append({"V, D, L": [vocab, dim, length], "checked_us": round(best["checked"] * 1e6, 1),
                     "unchecked_us": round(best["unchecked"] * 1e6, 1),
                     "cost_ns_per_id": round((best["checked"] - best["unchecked"]) / length * 1e9, 2)})
    return rows


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "embedding":
        for row in embedding_costs():
            print(json.dumps(row))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "loops":
        for row in loop_costs():
            print(json.dumps(row))
        return
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        n, cache = int(sys.argv[2]), int(sys.argv[3])
        print(json.dumps(builds(n, cache) if n else call_overhead()))
        return
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    for label, cache in (("before (128 engines kept)", 128), ("now (weak + last 8)", 8)):
        r = subprocess.run([sys.executable, __file__, "--child", str(n), str(cache)], capture_output=True, text=True)
        print(label, r.stdout.strip() or r.stderr[-2000:])
    r = subprocess.run([sys.executable, __file__, "--child", "0", "0"], capture_output=True, text=True)
    print("interruptible call", r.stdout.strip() or r.stderr[-2000:])


if __name__ == "__main__":
    main()
