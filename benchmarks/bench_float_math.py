"""The big sweep of the float32 math units (f32_exp, f32_log, f32_log2, f32_trig, f32_tanh,
f32_sigmoid, f32_erf, f32_rsqrt) through Verilator: prints, per unit, the inputs run, the largest
ulp distance from the correctly rounded value and from this machine's libm (what the LLVM build calls), and
the zero / inf / NaN results that differ from libm, against the bounds docs/rtl.md states; then
f32_pow on operand pairs against libm's powf: the largest ulp distance, and the largest
(ulp - 2) / |b| (the documented bound is 3 + |b| ulp).
Usage: `python benchmarks/bench_float_math.py [inputs]` (default 1,000,000).
"""
from __future__ import annotations

import sys
import time

import numpy as np

from allo.backend.rtl.static.exprs import ExprEmitter
from allo.backend.rtl.static.float import bench, checks, math_checks
from allo.ir import nodes as N
from allo.ir.ops import MathFn


def pow_sweep(n: int) -> int:
    """f32_pow on n pairs (wide-range and near-1 bases, exponents up to +-100) vs libm powf."""
    import ctypes
    import ctypes.util
    rng = np.random.default_rng(7)
    k = n // 3
    f32 = np.float32
    a = np.concatenate([np.exp(rng.uniform(-80, 80, k)).astype(f32), rng.uniform(0.3, 3, k).astype(f32),
                        -np.exp(rng.uniform(-5, 5, n - 2 * k)).astype(f32)])
    b = np.concatenate([rng.standard_normal(k) * 3, rng.uniform(-100, 100, k),
                        np.round(rng.uniform(-9, 9, n - 2 * k))]).astype(f32)
    em = ExprEmitter()
    leaf = checks._leaf(checks.F32)
    exe = bench.build_bench({"pow": (em.emit(N.MathCall(MathFn.POW, [leaf, leaf], checks.F32), ["a", "b"]), 32)},
                            em.functions() + em.instances(), modules=em.modules())
    got = bench.run_bench(exe, ["pow"], a.view(np.uint32), b.view(np.uint32), np.zeros(n, dtype=np.uint64))
    got = (got["pow"] & np.uint64(0xffffffff)).astype(np.uint32).view(f32)
    powf = ctypes.CDLL(ctypes.util.find_library("m")).powf
    powf.restype, powf.argtypes = ctypes.c_float, [ctypes.c_float, ctypes.c_float]
    want = np.array([powf(x, y) for x, y in zip(a.tolist(), b.tolist())], dtype=f32)
    d = math_checks.ulp_distance(got, want).astype(np.float64)
    absb = np.abs(b.astype(np.float64))
    over = int((d > 3 + absb).sum())
    print(f"pow      {n:9d} pairs: max {int(d.max())} ulp vs libm, max (ulp - 2) / |b| "
          f"{((d - 2) / np.maximum(absb, 1e-30)).max():.3f}, over 3 + |b|: {over}")
    return 1 if over else 0


def main(n: int = 1_000_000) -> int:
    cases = math_checks.math_cases()
    outs, text, mods = math_checks.bench_outputs(cases, ExprEmitter())
    t = time.time()
    exe = bench.build_bench(outs, text, modules=mods)
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
    return 1 if bad or pow_sweep(min(n, 300_000)) else 0


if __name__ == "__main__":
    sys.exit(main(*(int(v) for v in sys.argv[1:2])))
