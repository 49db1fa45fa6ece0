"""Cycles and resources of integer designs in Verilog (the open hardware flow, docs/rtl.md).

    .venv/bin/python benchmarks/bench_rtl.py [--xc7] [name ...]

Per design: clock cycles of one call in the Verilator simulation (results checked equal to the
LLVM build first), Verilog size, build time (CIRCT + Verilator + g++, from an empty cache for
that design), and Yosys counts: generic gates and flip-flops, plus Xilinx 7-series LUT / FF /
DSP / CARRY4 with --xc7 (slower). Next to them, the QoR estimate of the same design through the
HLS route (`mod.qor()` = allo.qor at 3.33 ns on xcu280: latency in cycles, LUT / FF / DSP), so
the dataflow circuit CIRCT builds can be compared with the FSM schedule Vitis HLS would build.
Schedule variants show what a schedule does to cycles and area. Published (Allo PLDI'24) numbers
are float32 at PolyBench medium sizes: not comparable with these small integer designs.
"""
from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import allo  # noqa: E402
from allo.ir.types import int8, int32  # noqa: E402
from allo.library import nn  # noqa: E402
from tests.polybench.int_kernels import INT_BY_NAME  # noqa: E402


def _polybench(name, schedule=None):
    case = INT_BY_NAME[name]

    def make():
        s = allo.customize(case.kernel)
        if schedule:
            schedule(s)
        return s, case.make_inputs(np.random.default_rng(0))

    return make


def _library(kernel, targs, shapes, dtype=np.int32, unroll=None):
    def make():
        s = allo.customize(kernel, instantiate=targs)
        s.compose(kernel, instantiate=targs)
        if unroll:
            s.unroll(*unroll)
        rng = np.random.default_rng(0)
        return s, [rng.integers(-8, 8, sh).astype(dtype) for sh in shapes]

    return make


def mlp(x: int8[4, 16], w1: int8[8, 16], b1: int32[8], w2: int8[4, 8], b2: int32[4]) -> int32[4, 4]:
    xi: int32[4, 16] = 0
    w1i: int32[8, 16] = 0
    w2i: int32[4, 8] = 0
    for i, k in allo.grid(4, 16):
        xi[i, k] = x[i, k]
    for j, k in allo.grid(8, 16):
        w1i[j, k] = w1[j, k]
    for j, k in allo.grid(4, 8):
        w2i[j, k] = w2[j, k]
    h = nn.linear[int32, 4, 8, 16, "l1"](xi, w1i, b1)
    r = nn.relu[int32, 4, 8](h)
    return nn.linear[int32, 4, 4, 8, "l2"](r, w2i, b2)


def _mlp():
    s = allo.customize(mlp)
    s.compose(nn.linear, id="l1", instantiate=[int32, 4, 8, 16])
    s.compose(nn.linear, id="l2", instantiate=[int32, 4, 4, 8])
    rng = np.random.default_rng(0)
    shapes = [((4, 16), np.int8), ((8, 16), np.int8), ((8,), np.int32), ((4, 8), np.int8), ((4,), np.int32)]
    return s, [rng.integers(-100, 100, sh).astype(dt) for sh, dt in shapes]


DESIGNS = {
    "gemm": _polybench("gemm"),
    "gemm unroll j": _polybench("gemm", lambda s: s.unroll("S_k_2/j", 0)),
    "atax": _polybench("atax"),
    "jacobi-2d": _polybench("jacobi-2d"),
    "floyd-warshall": _polybench("floyd-warshall"),
    "matmul 4x8x4": _library(nn.matmul, [int32, 4, 8, 4], [(4, 8), (8, 4)]),
    "matmul 4x8x4 unroll k": _library(nn.matmul, [int32, 4, 8, 4], [(4, 8), (8, 4)], unroll=("k", 0)),
    "relu 4x8": _library(nn.relu, [int32, 4, 8], [(4, 8)]),
    "add int8 4x8": _library(nn.add, [int8, 4, 8], [(4, 8), (4, 8)], dtype=np.int8),
    "mlp int8/int32": _mlp,
}


def _same(a, b):
    a, b = (a if isinstance(a, tuple) else (a,)), (b if isinstance(b, tuple) else (b,))
    return all(np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(a, b))


def run(names=None, xc7=False):
    """Lines of the results table (one per design)."""
    yield (f"{'design':24s} {'cycles':>7s} {'Verilog':>8s} {'build':>6s} {'gates':>6s} {'FF':>5s}"
           + (f" {'LUT':>5s} {'FF':>5s} {'DSP':>4s} {'CARRY4':>6s}" if xc7 else "")
           + f" | {'HLS est':>7s} {'LUT':>5s} {'FF':>5s} {'DSP':>4s}")
    for name, make in DESIGNS.items():
        if names and name not in names:
            continue
        s, args = make()
        t0 = time.perf_counter()
        rtl = s.build(target="rtl")
        got = rtl(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        build = time.perf_counter() - t0
        want = s.build()(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        if got is not None and not _same(got, want):
            yield f"{name:24s} RESULTS DIFFER FROM LLVM"
            continue
        g = rtl.synth(part="generic")
        line = (f"{name:24s} {rtl.cycles:7d} {len(rtl.verilog) / 1000:6.0f}KB {build:5.1f}s "
                f"{g.total_cells - g.ffs:6d} {g.ffs:5d}")
        if xc7:
            x = rtl.synth(part="xc7")
            line += f" {x.luts:5d} {x.ffs:5d} {x.dsps:4d} {x.carry:6d}"
        est = rtl.qor()
        res = est.resources
        line += f" | {est.latency_cycles:7d} {res['LUT']:5d} {res['FF']:5d} {res['DSP']:4d}"
        yield line


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--xc7"]
    for row in run(args, xc7="--xc7" in sys.argv):
        print(row, flush=True)
