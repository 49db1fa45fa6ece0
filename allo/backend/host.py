"""The one owner of allo's process-wide effects: what running compiled code changes in this process.

Importing allo changes nothing. `configure()`, which the LLVM backend calls before its first JIT
build, applies once per process:
- "malloc": glibc's mmap/trim thresholds are raised (allo.backend.allocator; skipped with
  ALLO_MALLOC_TUNING=0, when glibc's MALLOC_MMAP_THRESHOLD_/MALLOC_TRIM_THRESHOLD_ are set, off glibc);
- "KMP_BLOCKTIME": os.environ["KMP_BLOCKTIME"] = "1" unless it is set (read by libiomp5 when the
  first parallel kernel loads it);
- "SIGINT": allo's C-level SIGINT handler is chained in front of the current one, so Ctrl-C stops
  long JIT calls (allo.backend.interrupt; skipped when SIGINT is ignored or has its default action),
  and given back at exit.
`at_exit(fn)` is how allo registers exit work (each function once): giving SIGINT back, killing
child processes still running (allo.backend.toolchain), stopping DSE worker pools (allo.dse).

ALLO_PROCESS_EFFECTS=0 turns all of it off: `configure()` applies nothing, `at_exit` registers
nothing (children still die with this process: see allo.backend.toolchain), and long JIT calls
cannot be interrupted with Ctrl-C.

Imports: the mechanisms allo.backend.allocator and allo.backend.interrupt only.

Example::

    configure()          # frozenset({'malloc', 'KMP_BLOCKTIME', 'SIGINT'}) on Linux/glibc
    at_exit(stop_pools)  # True: runs at interpreter exit
"""
from __future__ import annotations

import atexit
import os
import threading

from . import interrupt
from .allocator import tune_malloc

ENV_SWITCH = "ALLO_PROCESS_EFFECTS"
_lock = threading.RLock()  # configure() registers an exit hook while it holds the lock
_effects: frozenset | None = None  # what configure() applied, once it ran
_exit_hooks: list = []


def enabled() -> bool:
    """False when the user turned allo's process-wide effects off (ALLO_PROCESS_EFFECTS=0)."""
    return os.environ.get(ENV_SWITCH, "1") != "0"


def configure() -> frozenset:
    """Apply the process-wide effects once (see the module doc); later calls only return the
    names of the effects applied the first time.

    Example::

        configure()          # frozenset() when ALLO_PROCESS_EFFECTS=0
    """
    global _effects
    if _effects is None:
        with _lock:
            if _effects is None:
                _effects = frozenset(_apply()) if enabled() else frozenset()
    return _effects


def _apply():
    if tune_malloc():
        yield "malloc"
    if _openmp_environment():
        yield "KMP_BLOCKTIME"
    if interrupt.install():
        at_exit(interrupt.uninstall)  # before the JIT'd handler is freed at exit
        yield "SIGINT"


def _openmp_environment() -> bool:
    """KMP_BLOCKTIME=1: idle OpenMP workers spin for 1 ms after a parallel loop, then sleep. The
    default (200 ms of spinning) starves numpy/torch threads and other processes on a small
    machine; 0 makes every parallel loop pay a thread wake-up (a 2-thread layer_norm 128x768 took
    0.093 ms with 0, 0.053 ms with 1, 0.075 ms on one thread). Users can set their own value."""
    if "KMP_BLOCKTIME" in os.environ:
        return False
    os.environ["KMP_BLOCKTIME"] = "1"
    return True


def at_exit(fn) -> bool:
    """Run `fn()` at interpreter exit (registered once however often it is asked for; hooks run
    last-registered first). False, and nothing registered, when ALLO_PROCESS_EFFECTS=0.

    Example::

        at_exit(shutdown_pools)
    """
    if not enabled():
        return False
    with _lock:
        if fn not in _exit_hooks:
            _exit_hooks.append(fn)
            atexit.register(fn)
    return True


__all__ = ["configure", "at_exit", "enabled", "ENV_SWITCH"]
