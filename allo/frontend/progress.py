"""Progress lines for slow imports: one line per finished stage on stderr.

With `verbose=None` (from_pytorch's default) nothing is printed unless the import has been running
for more than `QUIET_SECONDS`; from then on the finished stages so far and every later one are
printed (so a 12-layer BERT says what it is doing, a small MLP stays silent). `verbose=True`
prints every line, `verbose=False` none.

Example::

    p = Progress(None)
    p.start("build", "building for llvm")
    ...
    p.done("build")          # "allo: build 3.1 s" once the import is slow
"""
from __future__ import annotations

import sys
import time

from ..backend.progress import QUIET_SECONDS


class Progress:
    def __init__(self, verbose=None, stream=None):
        self.verbose = verbose
        self.stream = stream
        self.t0 = self.last = time.perf_counter()
        self.pending = []
        self.loud = verbose is True

    def start(self, stage: str, message: str):
        """A long stage begins: say so if we are already printing."""
        self._maybe_flush()
        if self.loud:
            self._print(f"allo: {message} ...")
        self.last = time.perf_counter()

    def done(self, stage: str, detail: str = ""):
        now = time.perf_counter()
        line = f"allo: {stage} {now - self.last:.2f} s" + (f" ({detail})" if detail else "")
        self.last = now
        self.pending.append(line)
        self._maybe_flush()

    def tick(self):
        """A unit of work inside a stage (lets a slow stage start printing)."""
        self._maybe_flush()

    def finish(self):
        if self.loud and self.pending:
            self._flush()
        if self.loud and self.verbose is not False:
            self._print(f"allo: import done in {time.perf_counter() - self.t0:.2f} s")

    def _maybe_flush(self):
        if self.verbose is False:
            self.pending.clear()
            return
        if not self.loud and time.perf_counter() - self.t0 > QUIET_SECONDS:
            self.loud = True
        if self.loud:
            self._flush()

    def _flush(self):
        for line in self.pending:
            self._print(line)
        self.pending.clear()

    def _print(self, line):
        print(line, file=self.stream or sys.stderr, flush=True)
