"""`s.build(target="calyx")`: the Calyx route (allo -> scf -> CIRCT's calyx dialect -> stand-ins
for the Calyx passes pip circt lacks -> FSM -> hw -> SystemVerilog -> Verilator), callable like
the LLVM module, plus the design in Calyx's native language (`.futil`).

One stage per file: `prepare` (loop IR), `module` (CalyxModule: build, call, write, synth),
`harness` (the go/done testbench's ports and runs); the CIRCT side is ../calyx_circt/.

Example::

    cx = s.build(target="calyx")
    out = cx(A, B); cx.cycles; print(cx.futil)
"""
from ....errors import AlloError, BackendError
from ....ir import nodes as N
from .module import DEFAULT_MAX_CYCLES, CalyxModule, parse_calyx


def build_calyx(mod: N.Module, max_cycles: int = DEFAULT_MAX_CYCLES, **unknown) -> CalyxModule:
    """Lower an allo IR module through Calyx (see CalyxModule). `max_cycles` bounds each simulation.

    Example::

        cx = build_calyx(ir_module); cx(A, B); print(cx.cycles)
    """
    if unknown:
        raise BackendError(f"build(target='calyx'): unknown option(s) {sorted(unknown)}; it takes max_cycles=")
    if isinstance(max_cycles, bool) or not isinstance(max_cycles, int) or max_cycles < 1:
        raise BackendError(f"build(target='calyx'): max_cycles must be a positive integer, got {max_cycles!r}")
    try:
        return CalyxModule(mod, max_cycles=max_cycles)
    except AlloError:
        raise
    except Exception as e:
        raise BackendError(f"Calyx build of {mod.top!r} failed: {type(e).__name__}: {e}") from e


__all__ = ["CalyxModule", "build_calyx", "parse_calyx"]
