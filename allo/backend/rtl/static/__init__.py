"""The statically scheduled RTL backend: allo's loop IR scheduled by allo (the estimator's rules
and operator tables) and printed directly as SystemVerilog with ap_ctrl_hs control and
ap_memory ports, simulated with Verilator.

Stages, one file each: `prepare` (inline calls, constants as memories, outputs as arguments) ->
`design` (units and the FSM structure) -> `dfg` (one iteration's dataflow graph) -> `schedule`
(times, ports, II) -> `emit` (SystemVerilog; `exprs`/`svfuncs` print scalar expressions,
`float_exprs` floats as calls of the float32 units in `float/`, `fastbind` gives recurrences the
fast operator binding) ->
`harness` (the Verilator testbench) -> `module` (the numpy-callable StaticRTLModule).

Example::

    mod = s.build(target="rtl"); C = mod(A, B); mod.cycles, mod.report()
"""
