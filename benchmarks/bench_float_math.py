"""The big sweep of the float32 math units (f32_exp, f32_tanh, f32_sigmoid, f32_erf, f32_rsqrt)
through Verilator: prints, per unit, the inputs run, the largest ulp distance from the correctly
rounded value and from this machine's libm (what the LLVM build calls), and the zero / inf / NaN
results that differ from libm, against the bounds docs/rtl.md states.
Usage: `python benchmarks/bench_float_math.py [inputs]` (default 1,000,000).
"""
from __future__ import annotations

import sys
import time

import numpy as np

from allo.backend.rtl.static.exprs import ExprEmitter
from allo.backend.rtl.static.float import bench, math_checks


def main(n: int = 1_000_000) -> int:
    cases = math_checks.math_cases()
    outs, text = math_checks.bench_outputs(cases, ExprEmitter())
    t = time.time()
    exe = bench.build_bench(outs, text)
    print(f"bench built in {time.time() - t:.1f} s ({len(outs)} units)")
    a = math_checks.math_operands(n, seed=99)
    t = time.time()
    got = bench.run_bench(exe, list(outs), a, a, np.zeros(len(a), dtype=np.uint64))
    print(f"{n} inputs x {len(outs)} units simulated in {time.time() - t:.1f} s")
    worst = math_checks.worst(got, cases, a, libm_n=n)
    bad = 0
    print(f"{'unit':8s} {'inputs':>9s} {'ulp vs CR':>9s} {'ulp vs libm':>11s} {'specials':>8s} {'bound':>7s}")
    for name, (cr, lm, sp) in worst.items():
        b_cr, b_lm = math_checks.BOUNDS[name]
        ok = cr <= b_cr and lm <= b_lm and sp == 0
        bad += not ok
        print(f"{name:8s} {n:9d} {cr:9d} {lm:11d} {sp:8d} {b_cr:>3d}/{b_lm:<3d}{'' if ok else '  OVER'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(*(int(v) for v in sys.argv[1:2])))
