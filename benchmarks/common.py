"""Shared helpers for the CPU benchmarks: machine facts, BLAS/torch thread control, and an
interleaved timer (other processes on a shared machine slow every contender alike).

Example::

    t = timeit({"allo": lambda: f(A, B), "numpy": lambda: A @ B}, reps=15)
    t["allo"]        # median seconds per call
"""
from __future__ import annotations

import ctypes
import glob
import os
import platform
import statistics
import sys
import time

import numpy as np


def _openblas():
    d = os.path.join(os.path.dirname(np.__file__), "..", "numpy.libs")
    for path in glob.glob(os.path.join(d, "*openblas*")):
        return ctypes.CDLL(path)
    return None


def _blas_call(suffixes, restype=None, *args):
    lib = _openblas()
    if lib is None:
        return None
    for name in suffixes:
        fn = getattr(lib, name, None)
        if fn is not None:
            fn.restype = restype
            return fn(*args)
    return None


def blas_core() -> str:
    """The OpenBLAS kernel family numpy runs here (e.g. SkylakeX, Haswell)."""
    r = _blas_call(["scipy_openblas_get_corename64_", "openblas_get_corename64_", "openblas_get_corename"],
                   ctypes.c_char_p)
    return r.decode() if r else "unknown"


def set_threads(n: int):
    """Thread count of numpy's OpenBLAS and of torch (intra-op)."""
    _blas_call(["scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_", "openblas_set_num_threads"],
               None, ctypes.c_int(n))
    try:
        import torch

        torch.set_num_threads(n)
    except ImportError:  # pragma: no cover
        pass


def machine() -> dict:
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    info = {"nproc": os.cpu_count(), "cpu": model, "python": platform.python_version(), "numpy": np.__version__,
            "blas_core": blas_core(), "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE", "(unset)"),
            "loadavg": open("/proc/loadavg").read().split()[0] if os.path.exists("/proc/loadavg") else "?"}
    try:
        import torch

        info["torch"] = torch.__version__
    except ImportError:  # pragma: no cover
        pass
    return info


def timeit(fns: dict, reps: int = 15, min_time: float = 0.05, interleave: bool = True) -> dict:
    """Median seconds per call of each function, measured in interleaved rounds (or, with
    interleave=False, one block per function: multi-threaded runs of two OpenMP runtimes, torch's
    and allo's, disturb each other when interleaved because idle workers keep spinning)."""
    for f in fns.values():  # warm up
        f()
    inner = {}
    for name, f in fns.items():
        t0 = time.perf_counter()
        f()
        dt = max(time.perf_counter() - t0, 1e-7)
        inner[name] = max(1, int(min_time / dt))
    samples = {name: [] for name in fns}

    def one(name):
        f, n = fns[name], inner[name]
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        samples[name].append((time.perf_counter() - t0) / n)

    if interleave:
        for _ in range(reps):
            for name in fns:
                one(name)
    else:
        for name in fns:
            fns[name]()
            time.sleep(0.05)
            for _ in range(reps):
                one(name)
    return {name: statistics.median(v) for name, v in samples.items()}


def cputime(fns: dict, reps: int = 15, min_time: float = 0.05) -> dict:
    """Median CPU seconds of the calling thread per call (single-threaded code only): time
    spent preempted by other processes on a busy machine is not counted."""
    inner = {}
    for name, f in fns.items():
        f()
        t0 = time.thread_time()
        f()
        inner[name] = max(1, int(min_time / max(time.thread_time() - t0, 1e-6)))
    samples = {name: [] for name in fns}
    for _ in range(reps):
        for name, f in fns.items():
            t0 = time.thread_time()
            for _ in range(inner[name]):
                f()
            samples[name].append((time.thread_time() - t0) / inner[name])
    return {name: statistics.median(v) for name, v in samples.items()}


def cores_used(f, calls: int = 20) -> float:
    """Process CPU time / wall time over `calls` calls of f: about 2 when two threads really ran
    at once; about 1 when another process held the second core."""
    f()
    w0, c0 = time.perf_counter(), time.process_time()
    for _ in range(calls):
        f()
    return (time.process_time() - c0) / max(time.perf_counter() - w0, 1e-9)


def process_cpu(f, calls: int = 20) -> float:
    """Median process CPU seconds (all threads) per call: the work a parallel build does,
    whether or not its threads got a core of their own."""
    f()
    out = []
    for _ in range(calls):
        c0 = time.process_time()
        f()
        out.append(time.process_time() - c0)
    return statistics.median(out)


_ISOLATED = """
import os, sys, statistics, time
sys.path.insert(0, {bench!r}); sys.path.insert(0, {root!r})
from common import set_threads
set_threads({threads})
{setup}
f = lambda: {stmt}
for _ in range(3):
    f()
out = []
for _ in range({reps}):
    t0 = time.perf_counter(); f(); out.append(time.perf_counter() - t0)
print(statistics.median(out))
"""


def isolated(setup: str, stmt: str, threads: int, reps: int = 15) -> float:
    """Median seconds of `stmt` timed in a fresh Python process (no other thread pool around:
    numpy's OpenBLAS, torch's OpenMP and allo's libiomp5 workers otherwise compete for the
    cores while idle-spinning)."""
    import subprocess

    bench = os.path.dirname(os.path.abspath(__file__))
    code = _ISOLATED.format(bench=bench, root=os.path.dirname(bench), threads=threads, setup=setup, stmt=stmt,
                            reps=reps)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    if res.returncode != 0:
        raise RuntimeError(f"isolated timing failed:\n{res.stderr[-2000:]}")
    return float(res.stdout.strip().splitlines()[-1])


def compile_time(build) -> tuple:
    """(result of build(), seconds) with allo's process-wide JIT cache cleared first."""
    from allo.backend.llvm.module import clear_engine_cache

    clear_engine_cache()
    t0 = time.perf_counter()
    out = build()
    return out, time.perf_counter() - t0


def row(name, t: dict, ours: str, refs, flops=None) -> str:
    """One result line: medians in ms, speed ratios ref_time / our_time, GFLOP/s."""
    parts = [f"{name:<34}"]
    for k, v in t.items():
        parts.append(f"{k} {v * 1e3:8.3f} ms")
    for r in refs:
        if r in t:
            parts.append(f"speed vs {r} {t[r] / t[ours]:5.2f}x")
    if flops:
        parts.append(f"{flops / t[ours] / 1e9:6.1f} GFLOP/s")
    return " | ".join(parts)
