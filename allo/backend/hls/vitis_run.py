"""Calling an HLS module built with mode "csyn", "cosim" or "impl": run Vitis HLS on its project.

- csyn / impl: `hls()` runs `vitis_hls -f run.tcl` and returns the parsed synthesis report
  (`allo.qor.QoRReport`, source "vitis");
- cosim: `hls(*inputs)` stages the inputs like csim, runs C/RTL co-simulation and returns the
  results the RTL testbench wrote (same conventions as the LLVM module).

Example::

    hls = s.build(target="vhls", mode="csyn", project="gemm.prj")
    r = hls()             # BackendError if vitis_hls is not on PATH
"""
from __future__ import annotations

import shutil

from ...errors import AlloTypeError, BackendError
from .storage import to_storage
from .vitis import run_vitis


def run_mode(hls, args):
    if hls.mode in ("csyn", "impl"):
        if args:
            raise AlloTypeError(f"mode={hls.mode!r} synthesizes the design; call the module without arguments "
                                f"(got {len(args)})")
        run_vitis(hls.project)
        return hls.report(source="vitis")
    return _cosim(hls, args)


def _cosim(hls, args):
    params = hls.func.params
    if len(args) != len(params):
        raise AlloTypeError(f"{hls.func.name}: expected {len(params)} arguments "
                            f"({', '.join(p.name for p in params)}), got {len(args)}")
    staged = [to_storage(a, p, k, hls.func.name) for k, (a, p) in enumerate(zip(args, params))]
    data = hls.project / "data"
    if data.exists():
        shutil.rmtree(data)
    data.mkdir(parents=True)
    for k, raw in enumerate(staged):
        raw.tofile(str(data / f"in{k}.bin"))
    run_vitis(hls.project)
    results = [hls._read(str(data), f"out{k}.bin", t) for k, t in enumerate(hls.func.result_types)]
    for k in hls._written:
        args[k][...] = hls._read(str(data), f"arg{k}.bin", params[k].type)
    if not results:
        return None
    if not (data / "out0.bin").exists() and hls.func.result_types:
        raise BackendError(f"co-simulation wrote no results into {data}")
    return results[0] if len(results) == 1 else tuple(results)
