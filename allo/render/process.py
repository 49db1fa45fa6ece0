"""Whether this process may use allo's MLIR wheel: not once CIRCT's Python bindings are loaded.

The pip `circt` package carries its own copy of LLVM/MLIR; with both in one process, the next
use of allo's MLIR crashes or corrupts the heap (segfaults in the verifier, SIGABRT "corrupted size
vs. prev_size"). allo itself runs CIRCT in a child process (allo.backend.rtl.tools), but a user may
import `circt` next to allo: every entry point into allo's MLIR calls `check_mlir_process` first,
so that this is an error saying what to do instead of a crash.

Example::

    check_mlir_process()     # BackendError if `import circt` happened in this process
"""
from __future__ import annotations

import sys

from ..errors import BackendError


def check_mlir_process() -> None:
    """BackendError when CIRCT's Python bindings are loaded into this process."""
    loaded = [m for m in ("circt", "circt.ir") if m in sys.modules]
    if loaded:
        raise BackendError(
            "the Python package `circt` is imported in this process: its own copy of LLVM/MLIR corrupts the "
            "heap of allo's MLIR (the build would crash the interpreter), so allo refuses to use MLIR here. "
            "allo runs CIRCT in a child process itself (target='rtl'/'calyx'); if you need circt yourself, "
            "use it in a separate process (subprocess, or multiprocessing with the 'spawn' start method)")


__all__ = ["check_mlir_process"]
