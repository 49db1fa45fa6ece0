"""OpenMP for the LLVM JIT: where the runtime is, how many threads, which passes.

Loops marked `parallel` (s.parallel(axis)) are rendered as `affine.parallel`; `lower-affine` makes
them `scf.parallel` and `convert-scf-to-openmp` turns those into `omp.parallel` + `omp.wsloop`
with a fixed thread count. The `__kmpc_*` entry points come from libiomp5 of the PyPI
`intel-openmp` wheel (`<sys.prefix>/lib/libiomp5.so`); the system libgomp does not provide them.
The runtime's environment (KMP_BLOCKTIME) is set by allo.backend.host.configure before the first
JIT build loads it.

Example::

    lib = runtime()                    # path or None
    n = resolve_threads(None)          # all cores
"""
from __future__ import annotations

import functools
import os
import sys

from ...errors import warn

ENV_LIBRARY = "ALLO_OPENMP_LIB"  # override the runtime location (tests use it to simulate absence)


@functools.lru_cache(maxsize=None)
def _find(override: str | None) -> str | None:
    if override is not None:
        return override if override and os.path.exists(override) else None
    for prefix in dict.fromkeys([sys.prefix, sys.base_prefix, os.path.dirname(os.path.dirname(sys.executable))]):
        p = os.path.join(prefix, "lib", "libiomp5.so")
        if os.path.exists(p):
            return p
    return None


def runtime() -> str | None:
    """Path of libiomp5.so, or None when the intel-openmp wheel is not installed."""
    return _find(os.environ.get(ENV_LIBRARY))


def cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def resolve_threads(threads: int | None) -> int:
    """Thread count for parallel loops: `threads` if given, else all cores available to us."""
    return int(threads) if threads is not None else cores()


def parallel_plan(has_parallel: bool, threads: int | None):
    """(use_openmp, threads, runtime path). Warns and falls back to serial code when parallel
    loops exist but the runtime is missing."""
    n = resolve_threads(threads)
    if not has_parallel or n <= 1:
        return False, 1, None
    lib = runtime()
    if lib is None:
        warn("allo: OpenMP runtime libiomp5.so not found (pip install intel-openmp); parallel loops run serially",
             RuntimeWarning)
        return False, 1, None
    return True, n, lib


def passes(threads: int) -> list:
    """The pass that turns scf.parallel into OpenMP (runs right after lower-affine)."""
    return [f"convert-scf-to-openmp{{num-threads={int(threads)}}}"]


__all__ = ["runtime", "cores", "resolve_threads", "parallel_plan", "passes", "ENV_LIBRARY"]
