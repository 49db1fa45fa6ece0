"""Stage 5 of the import: customize the generated `forward` and compose the schedules.

Every library instance gets its kernel's predefined schedule (`s.compose(nn.linear, id="1",
instantiate=[float32, 8, 32, 16])`), once per instance however many calls share it; for HLS
targets the innermost loops of the generated helper kernels are pipelined too. Each layer of the
summary records what it got.

Example::

    s = compose_schedules(program, forward, filename)
    pipeline_helpers(s, program)          # HLS only: #pragma HLS pipeline in the helper loops
"""
from __future__ import annotations

from allo.library import nn

from ..errors import AlloError, FrontendError, ScheduleError
from ..library.nn.common import PARALLEL_MIN_WORK
from ..schedule.customize import customize
from .codegen import HelperCall, NnCall


def compose_schedules(program, forward, filename, progress=None):
    """`allo.customize(forward)` with every library instance's schedule composed."""
    try:
        s = customize(forward)
    except AlloError as e:
        raise FrontendError(f"the generated program does not compile (a frontend bug; source in {filename}):\n{e}") \
            from None
    done = set()
    for layer in program.layers:
        applied = []
        for c in layer.calls:
            if not isinstance(c, NnCall):
                continue
            kernel = getattr(nn, c.kernel)
            if getattr(kernel, "schedule_fn", None) is None:
                continue
            key = (c.kernel, c.inst_id)
            if key not in done:
                s.compose(kernel, id=c.inst_id, instantiate=list(c.targs))
                done.add(key)
                if progress is not None:
                    progress.tick()
            applied.append(f"{c.kernel}{'_' + c.inst_id if c.inst_id else ''} (library)")
        layer.schedule = ", ".join(applied)
    parallel_helpers(s, program)
    return s


def parallel_helpers(s, program):
    """Mark the outermost loop (of extent > 1) of every large generated loop nest parallel, as the
    library schedules do for their kernels (OpenMP on the CPU; HLS ignores it). Nests the parallel
    check refuses (a scan's carried state) stay serial."""
    used = {c.helper for c in program.stmts if isinstance(c, HelperCall)}
    for helper, nests in program.outer_loops.items():
        for names, extents in (nests if helper in used else ()):
            size = 1
            for e in extents:
                size *= e
            loop = next((n for n, e in zip(names, extents) if e > 1), None)
            if loop is None or 4 * size < PARALLEL_MIN_WORK:
                continue
            try:
                s.parallel(f"{helper}:{loop}")
            except ScheduleError:
                pass


def pipeline_helpers(s, program):
    """Pipeline the innermost loops of every generated helper kernel (HLS pragmas)."""
    done = set()
    for layer in program.layers:
        helpers = []
        for c in layer.calls:
            if isinstance(c, HelperCall) and c.helper not in helpers:
                helpers.append(c.helper)
                if c.helper not in done:
                    for loop in program.inner_loops.get(c.helper, []):
                        s.pipeline(f"{c.helper}:{loop}")
                    done.add(c.helper)
        extra = [f"{h} (pipelined)" for h in helpers]
        layer.schedule = ", ".join([p for p in [layer.schedule] if p] + extra)
