"""Upstream Allo's module constructors: `allo.LLVMModule(mod, top_func_name)` and
`allo.HLSModule(mod, top_func_name, platform)`, for a schedule (or its `s.module`), e.g. the result
of `allo.primitives.unify`. They build the schedule as `s.build(...)` does.

Example::

    s = unify(f1, f2, 4)
    mod = allo.LLVMModule(s, "f1_f2_unified")
    code = allo.HLSModule(s, "f1_f2_unified", "vivado_hls").hls_code
"""
from __future__ import annotations

from .errors import AlloError
from .schedule.schedule import Schedule, rendered_by

# upstream platform names -> allo build targets (other platforms fall through to s.build's error)
_PLATFORMS = {"vivado_hls": "vhls", "vhls": "vhls", "vitis_hls": "vitis_hls"}


def _schedule(mod, top_func_name, what):
    s = mod if isinstance(mod, Schedule) else rendered_by(mod)
    if s is None:
        raise AlloError(f"{what} takes a schedule or its module (`s.module`), got {type(mod).__name__}")
    if top_func_name is not None and top_func_name != s.top_func_name:
        raise AlloError(f"{what}: the schedule's top function is {s.top_func_name!r}, not {top_func_name!r}")
    return s


def LLVMModule(mod, top_func_name=None, **options):  # noqa: N802 - upstream Allo's class name
    """`s.build(target="llvm", **options)` for the schedule of `mod` whose top is `top_func_name`."""
    return _schedule(mod, top_func_name, "LLVMModule").build(target="llvm", **options)


def HLSModule(mod, top_func_name=None, platform="vivado_hls", mode=None, project=None, **options):  # noqa: N802
    """`s.build(target=..., mode=, project=)` with upstream's platform names ("vivado_hls" is
    allo's "vhls", "vitis_hls" stays)."""
    s = _schedule(mod, top_func_name, "HLSModule")
    return s.build(target=_PLATFORMS.get(platform, platform), mode=mode, project=project, **options)


__all__ = ["LLVMModule", "HLSModule"]
