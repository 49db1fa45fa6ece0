"""The build targets: every name `Schedule.build`, `ImportedModel.build` / `from_pytorch` and the
`allo compile` CLI accept, the options each takes, and where each is implemented.

The backends (allo.backend) sit above the schedule layer, so this registry names each
implementation by module path and function name and imports it with importlib when a build runs.
Importing them here would invert the layers, and would load the LLVM and CIRCT bindings for
every schedule, built or not.

Options: the general keywords of `build` (`mode`, `project`, `threads`) and the target's own
ones. A target whose builder checks its own options (`self_checking`: rtl, calyx) is handed
everything that was given; for the others an option the target does not take is an AlloError
listing the ones it does (`Target.ignores` are accepted and dropped).

Example::

    targets.names()                    # ('llvm', 'vhls', 'vitis_hls', 'rtl', 'calyx', 'catapult', 'xls', 'mlir')
    targets.get("llvm").options        # ('threads', 'opt_level', 'optimize', 'fast_math', 'bounds_check')
    mod = targets.build(s, "vhls", mode="csim", project="gemm.prj")

Imports: errors, transforms.streams, schedule.dynamic.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass

from ..errors import AlloError, clean
from ..transforms.streams import lower_streams
from .dynamic import SizedOnCall, dynamic_params, refuse

GENERAL = ("mode", "project", "threads")  # the keywords `Schedule.build` names in its signature


@dataclass(frozen=True)
class Target:
    """One build target. `kind` is what a build returns: "cpu" (a callable LLVM module), "hls"
    (an HLS module, callable in csim mode), "verilog" (a simulated RTL module), "calyx" (Calyx
    IR), "vendor" (C++ for another vendor's HLS tool and its project; callable where that tool or
    g++ runs it) or "schedule" (the Schedule). `impl` is "module:function" (None: the Schedule itself);
    the builder is called as `function(ir_module, **options)` (plus `target=name` when `pass_name`)."""

    name: str
    kind: str
    description: str
    impl: str | None
    options: tuple = ()
    ignores: tuple = ()
    self_checking: bool = False
    lower_streams: bool = False  # FIFOs become arrays first (the backend has no streams)
    pass_name: bool = False

    def builder(self):
        module, _, function = self.impl.partition(":")
        return getattr(importlib.import_module(module), function)


# wrap_io shapes only target="vitis_hls"'s kernel interface (as upstream, where vivado_hls ignores it)
_HLS_OPTIONS = ("mode", "project", "timeout", "bounds_check", "bundle", "part", "clock_ns", "weights", "wrap_io",
                "configs")

TARGETS = (
    Target("llvm", "cpu", "CPU code through LLVM, JIT-compiled; a callable module", "allo.backend.llvm.module:build_llvm",
           ("threads", "opt_level", "optimize", "fast_math", "bounds_check"), lower_streams=True),
    Target("vhls", "hls", "Vitis HLS C++ (mode='csim' runs it under g++)", "allo.backend.hls:build_hls", _HLS_OPTIONS,
           ignores=("threads",), pass_name=True),
    Target("vitis_hls", "hls", "Vitis HLS C++ with the Vitis run modes", "allo.backend.hls:build_hls", _HLS_OPTIONS,
           ignores=("threads",), pass_name=True),
    Target("rtl", "verilog", "SystemVerilog (statically scheduled, or CIRCT handshake with scheduling='dynamic'), "
           "simulated with Verilator", "allo.backend.rtl:build_rtl", ("max_cycles", "scheduling", "clock_ns"),
           self_checking=True),
    Target("calyx", "calyx", "SystemVerilog through CIRCT's Calyx dialect (+ native .futil), simulated with Verilator",
           "allo.backend.rtl.calyx:build_calyx", ("max_cycles",), self_checking=True, lower_streams=True),
    Target("catapult", "vendor", "Catapult HLS C++ (ac types) and project; mode='csim'/'csyn' run Catapult (MGC_HOME)",
           "allo.backend.catapult:build_catapult", ("mode", "project", "clock_ns", "timeout"), ignores=("threads",)),
    Target("xls", "vendor", "XLS[cc] C++ (channels or memories) and project; mode='sw_emu' runs it under g++",
           "allo.backend.xls:build_xls", ("mode", "project", "use_memory", "timeout"), ignores=("threads",)),
    Target("mlir", "schedule", "the Schedule itself (`s.module` is the MLIR)", None),
)
ALIASES = {"xlscc": "xls"}  # upstream Allo's other spelling

UNSUPPORTED = {"ihls": "Intel HLS (ihls)", "tapa": "TAPA", "aie": "AMD AI Engine (aie)",
               "spmw": "the SPMW dataflow backend", "simulator": "the dataflow simulator"}

_BY_NAME = {t.name: t for t in TARGETS}


def names() -> tuple:
    """The supported target names, in the order messages list them."""
    return tuple(_BY_NAME)


def _listed() -> str:
    quoted = [repr(n) for n in names()]
    return f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def get(name: str) -> Target:
    """The Target named `name`; an AlloError for a known-but-unsupported or unknown name."""
    name = ALIASES.get(name, name)
    if name in _BY_NAME:
        return _BY_NAME[name]
    if name in UNSUPPORTED:
        raise AlloError(f"build target {name!r}: {UNSUPPORTED[name]} code generation is not supported by allo; "
                        f"supported targets: {', '.join(repr(n) for n in names())}")
    raise AlloError(f"unknown build target {name!r}; use {_listed()}")


def check_options(target: Target, given: dict, options: dict) -> None:
    """Refuse options `target` does not take (instead of a raw TypeError or silence). `given`
    are the general keywords that were not None, `options` the rest."""
    if target.self_checking:
        return
    bad = sorted(k for k in options if k not in target.options)
    bad += sorted(k for k in given if k not in target.options and k not in target.ignores)
    if bad:
        raise AlloError(f"build(target={target.name!r}): unknown option(s) {', '.join(bad)}; options for this target: "
                        f"{', '.join(target.options) or 'none'}")


def build(schedule, name: str = "llvm", mode=None, project=None, threads=None, **options):
    """Build `schedule` (an allo.Schedule) for target `name`; see the module docstring.

    Example: `targets.build(s, "llvm", threads=2)` is `s.build(threads=2)`."""
    target = get(name)
    given = {k: v for k, v in zip(GENERAL, (mode, project, threads)) if v is not None}
    check_options(target, given, options)
    if target.impl is None:
        return schedule
    kwargs = {k: v for k, v in given.items() if k not in target.ignores}
    kwargs.update(options)
    if target.pass_name:
        kwargs["target"] = name
    ir = schedule.ir.clone()
    try:
        if dynamic_params(ir):  # float32[...] parameters: see allo.schedule.dynamic
            return _build_dynamic(target, ir, kwargs)
        return target.builder()(lower_streams(ir) if target.lower_streams else ir, **kwargs)
    except AlloError as e:
        raise clean(e) from None


def _build_dynamic(target: Target, ir, kwargs):
    """LLVM and csim: a module specialised per call to the arrays' lengths; HLS C++: unsized array
    parameters; the other targets need static sizes."""
    def build_one(one):
        return target.builder()(lower_streams(one) if target.lower_streams else one, **kwargs)

    if target.name == "llvm" or (target.kind == "hls" and kwargs.get("mode") == "csim"):
        return SizedOnCall(ir, build_one, f"{target.name} module")
    if target.kind == "hls" and kwargs.get("mode") is None and kwargs.get("project") is None:
        return build_one(ir)
    refuse(ir, f"target={target.name!r}" + (f", mode={kwargs['mode']!r}" if target.kind == "hls" else ""))


__all__ = ["Target", "TARGETS", "UNSUPPORTED", "ALIASES", "GENERAL", "names", "get", "build", "check_options"]
