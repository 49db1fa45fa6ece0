"""Keep the C heap's freed memory for the next call of a compiled kernel (glibc malloc tuning).

Kernels allocate their results, intermediates and GEMM pack buffers with malloc on every call.
With glibc's defaults, blocks over 128 KB (raised dynamically up to the largest block freed) are
mmap'ed and freed blocks at the top of the heap are returned to the OS once more than twice that
is free, so each call of an imported model pages its ~12 MB of intermediates in again: 3068 page
faults per BERT-base layer call (4.8 ms of system time on one thread; with two threads the faults
of both serialise on the kernel's memory lock). Raising the mmap threshold to 32 MB and the trim
threshold to 64 MB keeps those pages mapped (0 faults per call). The process then holds at most
64 MB of freed heap memory for reuse.

Applied once, by allo.backend.host.configure (the first LLVM build); skipped when the user set
glibc's own MALLOC_MMAP_THRESHOLD_ / MALLOC_TRIM_THRESHOLD_ variables, when ALLO_MALLOC_TUNING=0
(or ALLO_PROCESS_EFFECTS=0, which turns off all of allo's process-wide effects), and off glibc.

Imports: the standard library only.

Example::

    tune_malloc()            # True when the thresholds were set
"""
from __future__ import annotations

import ctypes
import functools
import os

ENV_SWITCH = "ALLO_MALLOC_TUNING"
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameter numbers
MMAP_THRESHOLD = 32 << 20  # glibc's largest allowed value on 64-bit
TRIM_THRESHOLD = 64 << 20


@functools.lru_cache(maxsize=None)
def tune_malloc() -> bool:
    """Raise glibc's mmap and trim thresholds once per process (see the module doc)."""
    if os.environ.get(ENV_SWITCH, "1") == "0":
        return False
    if "MALLOC_MMAP_THRESHOLD_" in os.environ or "MALLOC_TRIM_THRESHOLD_" in os.environ:
        return False
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
        libc.gnu_get_libc_version  # noqa: B018 - present only in glibc
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))


__all__ = ["tune_malloc", "ENV_SWITCH"]
