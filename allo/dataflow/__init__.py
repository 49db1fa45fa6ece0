"""`allo.dataflow`: spatial dataflow programs, written the way upstream Allo writes them.

A region (`@df.region()`) declares typed streams and kernels; each kernel runs once per point of
its `mapping` grid (`df.get_pid()` gives the point), and kernel instances talk only through the
streams (`.put(x)`, `.get()`). `df.customize(top)` gives an ordinary `Schedule` of the region
(one function per instance, named `<kernel>_<i>_<j>`, the region function calling them), so every
primitive applies (`s.pipeline("linear1_0:j")`, `s.partition("top:A", dim=1)`).

Targets of `df.build`: "simulator" (the instances run concurrently with bounded FIFOs, deadlocks
are reported), "llvm" (the instances run one after another in producer-before-consumer order,
FIFOs unbounded), "vhls"/"vitis_hls" (one HLS function per instance, `hls::stream`, a dataflow
region; `mode="csim"` runs it under g++). docs/dataflow.md describes the model and the checks.

Example::

    import allo.dataflow as df
    from allo.ir.types import float32, Stream

    @df.region()
    def top(A: float32[16], B: float32[16]):
        pipe: Stream[float32, 4]

        @df.kernel(mapping=[1], args=[A])
        def producer(a: float32[16]):
            for i in range(16):
                pipe.put(a[i])

        @df.kernel(mapping=[1], args=[B])
        def consumer(b: float32[16]):
            for i in range(16):
                b[i] = pipe.get() + 1

    mod = df.build(top, target="simulator")
    mod(A, B)
"""
from __future__ import annotations

import os

from ..dsl.dataflow import RegionDef, kernel
from ..dsl.names import get_pid
from ..errors import AlloError, DataflowError
from ..ir.attrs import DF_REGION, DF_STREAM
from ..schedule.customize import customize as _customize
from ..schedule.schedule import Schedule
from .simulator import SimulatorModule

TARGETS = ("simulator", "llvm", "vhls", "vitis_hls", "rtl")


def region():
    """`@df.region()`: a dataflow region (stream declarations and `@df.kernel`s).

    Example::

        @df.region()
        def top(A: float32[M, K], B: float32[K, N], C: float32[M, N]):
            fifo_A: Stream[float32, 4][P0, P1]
            ...
    """
    def deco(fn):
        if isinstance(fn, RegionDef):
            return fn
        return RegionDef(fn)

    return deco


def customize(func, enable_tensor=False, opt_default=False, **kwargs):
    """A `Schedule` of region `func`: one function per kernel instance plus the region function.

    Example::

        s = df.customize(top)
        s.partition("top:A", dim=1, factor=2)
        mod = s.build(target="vitis_hls", mode="csim", project="top.prj")
    """
    if isinstance(func, Schedule):
        return func
    _check_region(func, "customize")
    s = _customize(func, enable_tensor=enable_tensor, **kwargs)
    if opt_default:
        for f in s.ir.funcs:
            if f.name != s.ir.top and DF_REGION not in f.attrs:
                for st in f.body:
                    if getattr(st, "name", None) is not None and hasattr(st, "var"):
                        s.pipeline(f"{f.name}:{st.name}")
    return s


def build(func, target="vitis_hls", mode="csim", project="top.prj", configs=None, wrap_io=True, enable_tensor=False,
          **kwargs):
    """Build region `func` (or a `df.customize` schedule) for `target`.

    "simulator": concurrent instances, bounded FIFOs, deadlock reports; "llvm": sequential in
    producer-before-consumer order; "vhls"/"vitis_hls": HLS C++ (`mode` "csim" runs it with
    g++, "csyn"/"cosim"/"impl"/"sw_emu"/"hw_emu"/"hw" need Vitis); "rtl": the statically
    scheduled circuit (instances run concurrently, streams are FIFOs; arrays shared by instances
    serialize them); "aie" is not available.

    Example::

        sim = df.build(top, target="simulator"); sim(A, B, C)
        hls = df.build(top, target="vhls"); print(hls.hls_code)
    """
    if target == "aie":
        raise AlloError("df.build(target='aie'): AMD AI Engine code generation is not supported by allo; use "
                        "target='simulator', 'llvm', 'vhls', 'vitis_hls' or 'rtl'")
    if target not in TARGETS:
        raise AlloError(f"df.build(target={target!r}): a dataflow region builds for {', '.join(TARGETS)}")
    s = customize(func, enable_tensor=enable_tensor)
    if target == "simulator":
        return SimulatorModule(s.ir.clone())
    if target == "llvm":
        _check_sequential(s)
        return s.build(target="llvm", **kwargs)
    if target == "rtl":  # the static circuit: one process per instance, streams as FIFOs (docs/rtl.md)
        return s.build(target="rtl", **kwargs)
    if configs is not None:
        kwargs.setdefault("configs", configs)
    if not wrap_io:
        kwargs.setdefault("wrap_io", wrap_io)
    project = os.path.abspath(os.path.expanduser(project)) if project is not None else None
    return s.build(target=target, mode=mode, project=project, **kwargs)


def _check_region(func, what):
    if not isinstance(func, RegionDef):
        name = getattr(func, "__name__", type(func).__name__)
        raise AlloError(f"df.{what}({name}): expected a @df.region() function")


def _check_sequential(s):
    """The LLVM build runs instances one after another: it needs an order without stream cycles
    and FIFOs whose length is known."""
    for f in s.ir.funcs:
        info = f.attrs.get(DF_REGION)
        if info and info["cyclic"]:
            raise DataflowError(f"df.build(target='llvm'): the streams of region {f.name!r} form a cycle through "
                                f"{', '.join(info['cyclic'])}, so no instance order runs them one after another; "
                                "use target='simulator'")
        for b in f.params:
            meta = b.attrs.get(DF_STREAM)
            if meta and meta["bound"] is None:
                raise DataflowError(f"df.build(target='llvm'): the number of items through stream {meta['name']!r} "
                                    f"({f.name}) is not known at compile time (a while loop or a run-time loop bound); "
                                    "use target='simulator'")


__all__ = ["region", "kernel", "get_pid", "build", "customize", "SimulatorModule", "DataflowError"]
