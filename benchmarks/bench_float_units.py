"""The big sweep of the float32 units (allo/backend/rtl/static/float) through Verilator: prints,
per unit, the vectors run, the mismatches against the CPU / allo's cast rules (NaN == any NaN)
and the throughput; then the pipelined units (allo_f32_*_p at every latency of checks.PIPE_LATS)
at II = 1 with stalls: a new operand pair every enabled cycle, each result checked LAT cycles
later. Usage: `python benchmarks/bench_float_units.py [vectors] [cast vectors] [pipelined vectors]`
(defaults 4,000,000, 200,000 and 1,000,000: the cast references are allo's scalar Python rules).
"""
from __future__ import annotations

import sys
import time

from allo.backend.rtl.static.exprs import ExprEmitter
from allo.backend.rtl.static.float import bench, checks


def pipelined(n: int) -> int:
    """The II = 1 sweep of the pipelined units; returns the number of mismatches."""
    cases = checks.unit_cases()
    outs, text, mods, meta = checks.pipelined_outputs(cases, ExprEmitter())
    t = time.time()
    exe = bench.build_bench(outs, text, modules=mods, clocked=True)
    print(f"pipelined bench built in {time.time() - t:.1f} s ({len(outs)} outputs)")
    a, b, x = checks.operands(n, seed=98)
    t = time.time()
    got, issued = bench.run_clocked(exe, list(outs), a, b, x, extra=64)
    dt = time.time() - t
    print(f"{n} vectors ({len(issued)} cycles, {int((issued[1:] == issued[:-1]).sum())} stalled) x {len(outs)} "
          f"outputs simulated in {dt:.1f} s")
    bad = checks.check_clocked(got, issued, meta, cases, a, b, x)
    print(f"{'pipelined unit output':24s} {'LAT':>4s} {'mismatches':>10s}")
    for name, (case, lat, early) in meta.items():
        print(f"{name:24s} {lat + early:4d} {bad[name]:10d}" + ("  (early: the value one cycle before)" if early else ""))
    return sum(bad.values())


def main(n: int = 4_000_000, n_casts: int = 200_000, n_pipe: int = 1_000_000) -> int:
    cases, preds = checks.unit_cases(), checks.predicate_cases()
    outs, text, mods = checks.bench_outputs(cases, preds, ExprEmitter())
    t = time.time()
    exe = bench.build_bench(outs, text, modules=mods)
    print(f"bench built in {time.time() - t:.1f} s ({len(outs)} outputs)")
    a, b, x = checks.operands(n, seed=99)
    t = time.time()
    got = bench.run_bench(exe, list(outs), a, b, x)
    dt = time.time() - t
    print(f"{n} vectors x {len(outs)} outputs simulated in {dt:.1f} s ({n * len(outs) / dt / 1e6:.1f} M unit evaluations/s)")
    allc = {**cases, **preds}
    arith = {k: v for k, v in allc.items() if not k.startswith(("to_", "from_"))}
    casts = {k: v for k, v in allc.items() if k.startswith(("to_", "from_"))}
    bad = checks.check(got, arith, a, b, x)
    sub = {k: v[:n_casts] for k, v in got.items()}
    bad.update(checks.check(sub, casts, a[:n_casts], b[:n_casts], x[:n_casts]))
    total = 0
    print(f"{'unit':24s} {'vectors':>9s} {'mismatches':>10s}")
    for name in allc:
        print(f"{name:24s} {n if name in arith else n_casts:9d} {bad[name]:10d}")
        total += bad[name]
    total += pipelined(n_pipe)
    print(f"total mismatches: {total}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(*(int(v) for v in sys.argv[1:4])))
