"""Cycles, resources and logic depth of integer and float32 designs in Verilog (the open hardware flow,
docs/rtl.md), next to the QoR estimate of the same schedule.

    .venv/bin/python benchmarks/bench_rtl.py [--xc7] [name ...]

Per design, one row: the estimate's cycles (`mod.qor()` = allo.qor at 3.33 ns on xcu280, what
Vitis HLS would build from the C++ route), the simulated cycles of one call of each circuit in
BUILDERS (Verilator; results checked equal to the LLVM build first), Yosys counts of each circuit
(Xilinx 7-series LUT / FF / DSP / BRAM_18K with --xc7, which is slow; else generic gates / FF)
with the timing proxy (logic levels of the longest register-to-register path; with --xc7 also
the clock it suggests, ns), and the estimate's LUT / FF / DSP / BRAM_18K.

BUILDERS: "static" is `s.build(target="rtl")` (the statically scheduled circuit once issue 27
lands; before that, the handshake circuit), "dynamic" is `s.build(target="rtl",
scheduling="dynamic")` (the handshake circuit), "calyx" is `s.build(target="calyx")` (CIRCT's
Calyx dialect through allo's stand-ins and the FSM flow). A builder, simulation or synthesis that fails is
"n/a" in the table with its reason in a numbered note below it, so the bench runs before and
after the static scheduler. The float rows ("f32 ...") use the float32 units of the static circuit
and, as extern modules, of the handshake circuit (Calyx has none: n/a); results equal the LLVM build bit for bit, softmax within its
documented ulp bound (FLOAT_ULPS), GELU within its absolute bound
(FLOAT_ABS). Published (Allo PLDI'24) numbers are float32 at PolyBench
medium sizes: not comparable with these small designs.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import allo  # noqa: E402
from allo.backend.rtl.static.float import math_checks  # noqa: E402
from allo.ir.types import float32, int8, int32  # noqa: E402
from allo.library import nn  # noqa: E402
from tests.polybench.int_kernels import INT_BY_NAME  # noqa: E402
from tests.test_rtl_float_kernels import gemm as fgemm, vector_ops as fvec  # noqa: E402
from tests.test_rtl_float_math import exp_kernel as fexp  # noqa: E402
from tests.test_rtl_float_ops import exact_ops as fexact  # noqa: E402
from tests.test_rtl_static import pipe2, vmul_into  # noqa: E402


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


def _scheduled(kernel, steps, shapes, dtype=np.int32):
    def make():
        s = allo.customize(kernel)
        steps(s)
        rng = np.random.default_rng(0)
        if dtype == np.float32:
            return s, [rng.uniform(-1, 1, sh).astype(dtype) for sh in shapes]
        return s, [rng.integers(-8, 8, sh).astype(dtype) for sh in shapes]

    return make


def _float_library(kernel, targs, shapes, extra=()):
    def make():
        s = allo.customize(kernel, instantiate=targs)
        rng = np.random.default_rng(0)
        return s, [rng.standard_normal(sh).astype(np.float32) for sh in shapes] + list(extra)

    return make


def _unroll4(s):
    s.unroll("i", 4)
    for b in ("A", "B", "C"):
        s.partition(getattr(s, b), allo.Partition.Cyclic, factor=4)
    s.pipeline("i")


DESIGNS = {
    "vmul pipelined": _scheduled(vmul_into, lambda s: s.pipeline("i"), [(64,), (64,), (64,)]),
    "vmul unroll 4, cyclic 4": _scheduled(vmul_into, _unroll4, [(64,), (64,), (64,)]),
    "stream pipe2 (depth 2)": _scheduled(pipe2, lambda s: s.to(s.T, "consume", depth=2), [(64,), (64,)]),
    "f32 gemm 8": _scheduled(fgemm, lambda s: None, [(8, 8), (8, 8)], np.float32),
    "f32 gemm 8 pipeline k": _scheduled(fgemm, lambda s: s.pipeline("k"), [(8, 8), (8, 8)], np.float32),
    "f32 vector ops 32": _scheduled(fvec, lambda s: None, [(32,), (32,)], np.float32),
    "f32 // % floor ceil 64": _scheduled(fexact, lambda s: None, [(64,), (64,)], np.float32),
    "f32 exp 4": _scheduled(fexp, lambda s: None, [(4,)], np.float32),
    "f32 softmax 4x16": _float_library(nn.softmax, [float32, 4, 16], [(4, 16)]),
    "f32 layer_norm 4x16": _float_library(nn.layer_norm, [float32, 4, 16], [(4, 16), (16,), (16,)], [1e-5]),
    "f32 gelu 4x16": _float_library(nn.gelu, [float32, 4, 16], [(4, 16)]),
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


BUILDERS = {
    "static": lambda s: s.build(target="rtl"),
    "dynamic": lambda s: s.build(target="rtl", scheduling="dynamic"),
    "calyx": lambda s: s.build(target="calyx"),
}


# float designs whose LLVM build calls libm: the largest ulp distance allowed (docs/rtl.md)
FLOAT_ULPS = {"f32 softmax 4x16": math_checks.KERNEL_BOUNDS["softmax"], "f32 exp 4": math_checks.BOUNDS["exp"][1]}
# float designs whose bound is absolute (1 + erf(x / sqrt 2) cancels for negative x): |RTL - LLVM|
# <= k |x| + one ulp of the result, x the first argument (tests/test_rtl_float_math.py)
FLOAT_ABS = {"f32 gelu 4x16": 2.0 ** -23}


def _close(got, want, x, k):
    d = np.abs(np.asarray(got, np.float64) - np.asarray(want, np.float64))
    return bool((d <= k * np.abs(np.asarray(x, np.float64)) + np.spacing(np.abs(np.asarray(want)))).all())


def _same(a, b, ulps=0):
    a, b = (a if isinstance(a, tuple) else (a,)), (b if isinstance(b, tuple) else (b,))
    def one(x, y):
        x, y = np.asarray(x), np.asarray(y)
        if ulps and x.dtype == np.float32:
            return x.shape == y.shape and int(math_checks.ulp_distance(x, y).max(initial=0)) <= ulps
        if x.dtype.kind == "f":  # bits, so NaNs compare too
            return x.shape == y.shape and np.array_equal(x.view(f"u{x.itemsize}"), y.view(f"u{y.itemsize}"))
        return np.array_equal(x, y)
    return all(one(x, y) for x, y in zip(a, b))


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


class Notes:
    """Numbered reasons for the n/a cells (one number per distinct reason)."""

    def __init__(self):
        self.reasons = {}

    def na(self, what: str, err: BaseException) -> str:
        first = (str(err).strip().splitlines() or [""])[0][:160]
        text = f"{what}: {type(err).__name__}: {first}"
        self.reasons.setdefault(text, len(self.reasons) + 1)
        return f"n/a[{self.reasons[text]}]"

    def lines(self):
        return [f"  [{k}] {text}" for text, k in self.reasons.items()]


def _circuit(make_module, s, args, want, xc7, notes, name, design=""):
    """(cycles cell, synthesis cells, module or None) of one builder on one design."""
    width = 6 if xc7 else 3
    try:
        mod = make_module(s)
        got = mod(*_copies(args))
    except Exception as e:  # noqa: BLE001 - any failure is a table cell with its reason
        return notes.na(name, e), [notes.na(name, e)] + [""] * (width - 1), None
    if design in FLOAT_ABS:
        ok = got is not None and _close(got, want, args[0], FLOAT_ABS[design])
    else:
        ok = got is None or _same(got, want, FLOAT_ULPS.get(design, 0))
    if not ok:
        return "WRONG", [""] * width, None
    try:
        r = mod.synth(part="xc7" if xc7 else "generic")
    except Exception as e:  # noqa: BLE001
        return mod.cycles, [notes.na(f"{name} synth", e)] + [""] * (width - 1), mod
    levels = "" if r.logic_levels is None else r.logic_levels
    if xc7:
        clock = "" if r.suggested_clock_ns is None else f"{r.suggested_clock_ns:.1f}"
        return mod.cycles, [r.luts, r.ffs, r.dsps, f"{r.brams:g}", levels, clock], mod
    return mod.cycles, [r.total_cells - r.ffs, r.ffs, levels], mod


def header(xc7=False):
    syn = ["LUT", "FF", "DSP", "BRAM", "lvl", "ns"] if xc7 else ["gates", "FF", "lvl"]
    cols = ["est cyc", *[f"{b} cyc" for b in BUILDERS]]
    for b in BUILDERS:
        cols += [f"{b[:3]} {c}" for c in syn]
    return cols + ["est LUT", "est FF", "est DSP", "est BRAM"]


def run(names=None, xc7=False):
    """Lines of the results table (one per design), then the notes for its n/a cells."""
    cols = header(xc7)
    widths = [max(len(c), 7) for c in cols]
    yield f"{'design':24s} " + " ".join(f"{c:>{w}s}" for c, w in zip(cols, widths))
    notes = Notes()
    for name, make in DESIGNS.items():
        if names and name not in names:
            continue
        s, args = make()
        want = s.build()(*_copies(args))
        cycles, synth, est = [], [], None
        for label, builder in BUILDERS.items():
            c, cells, mod = _circuit(builder, s, args, want, xc7, notes, label, name)
            cycles.append(c)
            synth += cells
            if est is None and mod is not None:
                est = mod.qor()
        est = est or allo.report(s)  # same model and defaults as mod.qor()
        res = est.resources
        row = [est.latency_cycles, *cycles, *synth, res["LUT"], res["FF"], res["DSP"], f"{res['BRAM_18K']:g}"]
        yield f"{name:24s} " + " ".join(f"{str(v):>{w}s}" for v, w in zip(row, widths))
    yield from notes.lines()
if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--xc7"]
    for row in run(args, xc7="--xc7" in sys.argv):
        print(row, flush=True)
