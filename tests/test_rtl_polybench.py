"""Integer PolyBench through the hardware flows.

- RTL (CIRCT handshake -> SystemVerilog -> Verilator) equals the LLVM build bit for bit, and both
  equal the numpy reference. The default run simulates a subset that covers division (jacobi-2d,
  two written arrays), triangular loops (trmm), min (floyd-warshall) and a returned array (atax);
  ALLO_RTL_FULL=1 simulates all 15 kernels.
- Calyx (lower-scf-to-calyx) is built for all 15, checked structurally and its native `.futil` run on
  allo's Calyx interpreter == LLVM == numpy (no Verilator: ~15 s for all 15).
- Cycles move the right way under a schedule the dataflow circuit can exploit (unrolling).
"""
from __future__ import annotations

import numpy as np
import pytest

import allo
from tests.polybench.int_kernels import INT_BY_NAME, INT_KERNELS
from tests.rtl_util import FULL, assert_bit_exact, calyx_well_formed, full_only, needs_rtl, run_both

pytestmark = needs_rtl

CI_SUBSET = ("atax", "trmm", "jacobi-2d", "floyd-warshall")
SIMULATED = [c.name for c in INT_KERNELS] if FULL else list(CI_SUBSET)


def test_every_polybench_kernel_has_an_integer_instance():
    from tests.polybench.kernels import BY_NAME

    assert set(BY_NAME) - {"correlation"} <= set(INT_BY_NAME)
    assert "covariance" in INT_BY_NAME  # correlation's integer stand-in (no square root)


@pytest.mark.parametrize("name", SIMULATED)
def test_rtl_matches_llvm_and_numpy(name):
    case = INT_BY_NAME[name]
    args = case.make_inputs(np.random.default_rng(0))
    s = allo.customize(case.kernel)
    rtl = s.build(target="rtl")
    got, want = case.run(rtl, args), case.run(s.build(), args)
    assert_bit_exact(got, want, name)
    case.check(got, args)
    assert rtl.cycles > 0


@pytest.mark.parametrize("name", [c.name for c in INT_KERNELS])
def test_calyx_is_structurally_complete(name):
    case = INT_BY_NAME[name]
    cx = allo.customize(case.kernel).build(target="calyx")
    top = cx.hw.func.name
    comp = calyx_well_formed(cx, top)
    loops = cx.mlir.count("scf.while")
    assert comp["control"].get("while", 0) == loops  # one calyx.while per loop of the kernel
    memories = len([p for p in cx.hw.func.params if p.kind != "scalar_arg"])
    assert cx.calyx.count('tag = "read_data"') >= 1
    assert len({m for m in _ext_memory_ids(cx.calyx)}) == memories
    args = case.make_inputs(np.random.default_rng(3))
    got = case.run(cx.interpret, args)  # the native .futil, run on allo's Calyx interpreter
    assert_bit_exact(got, case.run(allo.customize(case.kernel).build(), args), f"{name} (.futil)")
    case.check(got, args)


def _ext_memory_ids(text):
    import re

    return re.findall(r"%ext_mem(\d+)_read_data", text)


@pytest.mark.parametrize("name, loop, factor", [("gemm", "S_k_2/j", 0)] + ([("2mm", "S_i_j_2/k", 0)] if FULL else []))
@full_only("schedule variant of a PolyBench kernel; the default run checks unrolling on vsum (tests/test_rtl_flow.py)")
def test_unrolling_polybench_reduces_cycles(name, loop, factor):
    case = INT_BY_NAME[name]
    args = case.make_inputs(np.random.default_rng(0))
    cycles = []
    for unroll in (False, True):
        s = allo.customize(case.kernel)
        if unroll:
            s.unroll(loop, factor)
        rtl, got, want = run_both(s, args)
        assert_bit_exact(got, want, f"{name} unroll={unroll}")
        cycles.append(rtl.cycles)
    assert cycles[1] < cycles[0], cycles
