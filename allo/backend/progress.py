"""Progress lines for long silent steps (a Verilator build, a Yosys run): nothing when the step
is quick; past `QUIET_SECONDS` one line on stderr says what allo is doing, and a second one how
long it took when it ends. `ALLO_PROGRESS=0` turns them off. from_pytorch's stage lines
(allo/frontend/progress.py) use the same threshold.

Example::

    with slow_step(lambda: "building the simulator of 'gemm'"):
        run_child(cmd)          # after 2 s: "allo: building the simulator of 'gemm' ..."
                                # at the end: "allo: building the simulator of 'gemm': 19.3 s"

    @reports_progress("Yosys synthesis of {top!r} for {part}")
    def synthesize(verilog, top, part="generic"): ...
"""
from __future__ import annotations

import functools
import inspect
import os
import sys
import threading
import time
from contextlib import contextmanager

QUIET_SECONDS = 2.0
ENV_PROGRESS = "ALLO_PROGRESS"


@contextmanager
def slow_step(message, stream=None):
    """Run the body; if it takes longer than `QUIET_SECONDS`, print `allo: <message> ...` then and
    `allo: <message>: <seconds> s` at the end. `message` is a string or a function returning one
    (called only when a line is printed)."""
    if os.environ.get(ENV_PROGRESS, "1") == "0":
        yield
        return
    lock, said, t0 = threading.Lock(), [], time.perf_counter()

    def say(text):
        print(f"allo: {text}", file=stream or sys.stderr, flush=True)

    def announce():
        with lock:
            if said is not None and not said:
                said.append(message() if callable(message) else message)
                say(f"{said[0]} ...")

    timer = threading.Timer(QUIET_SECONDS, announce)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        with lock:
            if said:
                say(f"{said[0]}: {time.perf_counter() - t0:.1f} s")
            said = None  # a timer firing now prints nothing


def reports_progress(template: str):
    """Decorator: the function's calls run under `slow_step`, the message being `template`
    formatted with the call's arguments by name (defaults included)."""
    def wrap(fn):
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def run(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            with slow_step(lambda: template.format(**bound.arguments)):
                return fn(*args, **kwargs)

        run.progress_template = template
        return run
    return wrap
