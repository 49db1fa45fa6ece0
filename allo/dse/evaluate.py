"""Scoring one candidate: replay its recipe on a copy of the base kernel, then estimate its QoR.

This is the only code that runs in worker processes (local pool or Ray). Its inputs are plain
data: the base kernel as allo's picklable loop-IR module (sent once per worker and cached by
key) and recipes as step tuples; its output is a small dict. No MLIR object crosses a process
boundary (the MLIR of a candidate is rendered, if ever, where it is built).

Example::

    base = Base.of(allo.customize(gemm))
    out = evaluate(base.ir, [("pipeline", "gemm", ("j", 1), ())], Settings())
    out["status"], out["latency"], out["resources"]["DSP"]
"""
from __future__ import annotations

import hashlib
import inspect
import pickle
import time
from dataclasses import asdict, dataclass

from ..errors import AlloError
from ..ir import nodes as N
from ..ir import visit as V
from ..qor.api import estimate
from ..schedule.schedule import Schedule


@dataclass(frozen=True)
class Settings:
    """How candidates are estimated (same meaning as in `allo.qor.estimate`)."""

    clock_ns: float = 3.33
    part: str = "xcu280"
    target: str | None = None
    bundle: object = None

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Base:
    """The kernel every candidate starts from: its IR (pickled once for workers), a key, where its
    source is (`file.py:line name`), and, in the driver only, the schedule it came from."""

    ir: N.Module
    blob: bytes
    key: str
    source: str
    kernel: object = None
    targs: tuple = ()
    steps: tuple = ()

    @classmethod
    def of(cls, sched_or_ir) -> "Base":
        ir = getattr(sched_or_ir, "ir", sched_or_ir)
        if not isinstance(ir, N.Module):
            raise TypeError(type(sched_or_ir).__name__)
        blob = pickle.dumps(ir, protocol=pickle.HIGHEST_PROTOCOL)
        kernel = getattr(sched_or_ir, "kernel", None)
        return cls(ir, blob, fingerprint(ir), source_of(kernel, ir.top), kernel,
                   tuple(getattr(sched_or_ir, "targs", ())), tuple(getattr(sched_or_ir, "steps", ())))

    def schedule(self, steps):
        """A fresh `allo.Schedule` of this kernel with `steps` replayed (every check on)."""
        s = Schedule(self.ir.clone(), self.kernel, self.targs)
        s.steps = list(self.steps)
        s.replay(steps)
        return s


def source_of(kernel, top: str) -> str:
    """`file.py:line name` of a kernel function (or just the top function's name)."""
    fn = getattr(kernel, "fn", kernel)
    try:
        _, line = inspect.getsourcelines(fn)
        return f"{inspect.getsourcefile(fn)}:{line} {top}"
    except (TypeError, OSError):
        return top


def fingerprint(ir: N.Module) -> str:
    """A stable key of a kernel's structure: functions, loops (names, bounds, attributes) and
    buffers (names, types, partitions). Used to check that a resumed log belongs to the kernel."""
    h = hashlib.sha256(ir.top.encode())
    for f in ir.funcs:
        h.update(f.name.encode())
        for b in V.iter_buffers(f):
            h.update(f"{b.name}:{b.kind}:{b.type}:{sorted(map(str, b.attrs.items()))}".encode())
        for lp, path in V.iter_loops(f.body):
            h.update(f"{len(path)}:{lp.name}:{lp.lb}:{lp.ub}:{lp.step}:{sorted(map(str, lp.attrs.items()))}".encode())
        h.update(str(sorted(map(str, f.attrs.items()))).encode())
    return h.hexdigest()[:16]


_BASES = {}  # key -> IR module, per worker process


def cached_base(key: str, blob: bytes | None) -> N.Module:
    if key not in _BASES:
        if blob is None:
            raise KeyError(key)
        _BASES.clear()  # one search at a time per worker: keep memory flat
        _BASES[key] = pickle.loads(blob)
    return _BASES[key]


def evaluate(base_ir: N.Module, steps, settings: Settings) -> dict:
    """Replay `steps` (unchecked: the schedule is thrown away) and estimate; never raises."""
    t0 = time.perf_counter()
    s = Schedule(base_ir.clone())
    try:
        s.replay(steps, checked=False)
    except AlloError as e:
        return {"status": "illegal", "error": _first_line(e), "step": len(s.steps), "seconds": time.perf_counter() - t0}
    except Exception as e:  # noqa: BLE001 - an internal failure of one candidate must not stop the search
        return {"status": "error", "error": f"{type(e).__name__}: {_first_line(e)}", "step": len(s.steps),
                "seconds": time.perf_counter() - t0}
    try:
        r = estimate(s.ir, clock_ns=settings.clock_ns, part=settings.part, target=settings.target,
                     bundle=settings.bundle)
    except Exception as e:  # noqa: BLE001
        return {"status": "error", "error": f"estimate: {type(e).__name__}: {_first_line(e)}",
                "seconds": time.perf_counter() - t0}
    return {"status": "ok", "latency": int(r.latency_cycles), "interval": int(r.ii),
            "work": int(sum(row.latency for row in r.loops)),
            "resources": {k: int(v) for k, v in r.resources.items()},
            "available": {k: int(v) for k, v in r.available.items()},
            "seconds": time.perf_counter() - t0}


def evaluate_chunk(key: str, blob: bytes | None, settings: Settings, chunk: list) -> list:
    """[(index, result)] for a chunk of (index, steps) pairs on the base `key`."""
    base = cached_base(key, blob)
    return [(i, evaluate(base, steps, settings)) for i, steps in chunk]


def _first_line(e, limit: int = 400) -> str:
    text = " ".join(str(e).split())
    return (text[:limit] + "...") if len(text) > limit else (text or type(e).__name__)
