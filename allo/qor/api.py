"""Public entry points of the QoR model: `estimate(...)` and `report(...)` (= `allo.report`).

Both accept a Schedule, an HLS module (from `s.build(target="vhls")`), allo's IR module
(`allo.ir.nodes.Module`, picklable: what a design-space explorer ships to worker processes), or a
kernel function (customized without a schedule).

Example::

    r = allo.qor.estimate(s, clock_ns=3.33, part="xcu280")          # target "vhls"
    r = allo.qor.estimate(s.ir, target="vitis_hls", bundle="gmem")   # m_axi, one shared bundle
"""
from __future__ import annotations

from ..errors import AlloError, located
from ..ir import nodes as N
from ..schedule.customize import customize
from ..schedule.dynamic import dynamic_params
from .estimate import Estimator
from .report import QoRReport


def _module_of(obj):
    """(ir Module, target, bundle) of anything that holds a design."""
    if isinstance(obj, N.Module):
        return obj, None, None
    ir = getattr(obj, "ir_module", None)  # HLSModule
    if isinstance(ir, N.Module):
        return ir, getattr(obj, "target", None), getattr(obj, "bundle", None)
    ir = getattr(obj, "ir", None)  # Schedule
    if isinstance(ir, N.Module):
        return ir, None, None
    imported = getattr(obj, "imported", None)  # a from_pytorch module
    if imported is not None and imported is not obj:
        return _module_of(imported)
    sched = getattr(obj, "schedule", None)
    if sched is not None and sched is not obj:
        return _module_of(sched)
    if callable(obj):
        return customize(obj).ir, None, None
    raise AlloError(f"QoR: cannot estimate a {type(obj).__name__}; pass a Schedule, an HLS module, "
                    "an allo IR Module or a kernel")


def estimate(obj, clock_ns: float = 3.33, part: str = "xcu280", target: str | None = None,
             bundle=None, wrap_io: bool | None = None) -> QoRReport:
    """Estimate latency, II and resources of `obj` as Vitis HLS 2022.1 would synthesize it.

    `target`: "vhls" (plain arrays: ap_memory ports) or "vitis_hls" (m_axi ports; `bundle` is one
    bundle name for all arrays, a {argument: bundle} dict, or None for one bundle per array);
    default: the HLS module's own target, else "vhls". `wrap_io` (vitis_hls only): the top copies
    its arrays into on-chip arrays before the body and back after it (the `load_buf` / `store_res`
    loops of `s.build(target="vitis_hls")`, its default) or the body indexes the m_axi ports
    directly (`wrap_io=False`); default: the HLS module's own choice, else False (the body alone,
    as the published Vitis designs of allo.qor's validation are written).

    Example::

        r = allo.qor.estimate(s)
        print(r.latency_cycles, r.loop("k").ii, r.resources["DSP"])
    """
    mod, own_target, own_bundle = _module_of(obj)
    for _, p in dynamic_params(mod)[:1]:  # interface memories and their ports need their sizes
        raise located(AlloError, f"QoR estimate of {mod.top!r}: parameter {p.name!r} is {p.type!r}, an array of "
                      f"run-time length; the estimate needs every array's size: estimate a copy of the kernel with "
                      f"a static shape ({p.type.dtype!r}[N])", p.loc)
    target = target or own_target or "vhls"
    bundle = bundle if bundle is not None else own_bundle
    if wrap_io is None:
        wrap_io = bool(getattr(obj, "wrap_io", False)) if own_target else False
    if not isinstance(wrap_io, bool):
        raise AlloError(f"QoR: wrap_io must be True or False, got {wrap_io!r}")
    return Estimator(mod, clock_ns=clock_ns, part=part, target=target, bundle=bundle, wrap_io=wrap_io).report()


def report(obj, clock_ns: float = 3.33, part: str = "xcu280", target: str | None = None, bundle=None) -> QoRReport:
    """`allo.report(s)`: the estimate of a schedule (or the Vitis report of an HLS module built
    with mode="csyn" after synthesis ran). Same arguments as `estimate`."""
    rep = getattr(obj, "report", None)
    if getattr(obj, "ir_module", None) is not None and callable(rep):
        return rep(clock_ns=clock_ns, part=part)
    return estimate(obj, clock_ns=clock_ns, part=part, target=target, bundle=bundle)


__all__ = ["estimate", "report"]
