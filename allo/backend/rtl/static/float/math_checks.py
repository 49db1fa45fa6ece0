"""Operand sweeps and ulp references for the float32 math units (f32_exp, f32_log, f32_log2,
f32_trig (sin, cos), f32_tanh, f32_sigmoid, f32_rsqrt, f32_erf): the units are fixed sequences of
the basic float32 units, the CPU build calls libm, so they are compared in ulp, against the
correctly rounded value (float64 rounded to float32) and against this machine's libm (expf, logf,
log2f, sinf, cosf, tanhf, erff: what the LLVM build calls), with every special (zeros, inf, NaN,
overflow / underflow) required exact. The bounds are the ones docs/rtl.md states.

Example::

    cases = math_cases()
    outs, text, mods = bench_outputs(cases, ExprEmitter())
    a = math_operands(20000, seed=1)
    got = run_bench(build_bench(outs, text, modules=mods), list(outs), a, a, np.zeros(len(a), dtype=np.uint64))
    worst(got, cases, a)     # {"exp": (1, 1, 0), ...}: ulp vs correctly rounded, ulp vs libm, specials
"""
from __future__ import annotations

import ctypes
import math
import ctypes.util

import numpy as np

from .....ir import nodes as N
from .....ir.ops import MathFn
from .checks import F32, SPECIAL_BITS, _leaf

# unit -> (max ulp vs the correctly rounded value, max ulp vs libm): the documented bounds
BOUNDS = {"exp": (1, 2), "tanh": (1, 2), "sigmoid": (4, 4), "rsqrt": (1, 0), "erf": (1, 2), "log": (1, 2),
          "log2": (1, 2), "sin": (1, 2), "cos": (1, 2)}
# kernels of allo.library.nn through the static RTL: max ulp from the LLVM build
KERNEL_BOUNDS = {"softmax": 4}
# models through from_pytorch(target="rtl") (tests/float_models.py): max |RTL - LLVM| in units of 2^-23
# (outputs of a final LayerNorm are of order 1; measured 3 over 200 inputs)
MODEL_BOUNDS = {"block": 4}
# thresholds of the units (exp: overflow, underflow, subnormal results; tanh, erf, log: branch points)
EDGES = [88.72283, 88.7228394, 89.0, -87.33654, -103.972, -104.0, 0.625, 9.0, -0.625, -9.0, 0.3465736, 1.0, -1.0,
         2.25, -2.25, 4.0, -4.0, 0.7071068, 1.4142135, 1.1754944e-38]


def _f64(fn):
    def ref(a):
        with np.errstate(all="ignore"):
            return fn(a.view(np.float32).astype(np.float64)).astype(np.float32)
    return ref


def _libm(name):
    lib = ctypes.CDLL(ctypes.util.find_library("m"))
    f = getattr(lib, name)
    f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float]

    def ref(a):
        return np.array([f(v) for v in a.view(np.float32).tolist()], dtype=np.float32)
    return ref


def _sigmoid_with(exp):
    """The LLVM build's sigmoid sequence 1 / (1 + exp(-a)) in float32, with the given exp."""
    def ref(a):
        e = exp((-a.view(np.float32)).view(np.uint32))
        with np.errstate(all="ignore"):
            return (np.float32(1) / (np.float32(1) + e)).astype(np.float32)
    return ref


def _erf64(x):
    return np.array([math.erf(v) for v in x.tolist()])


def _rsqrt(a):
    with np.errstate(all="ignore"):
        return (np.float32(1) / np.sqrt(a.view(np.float32))).astype(np.float32)


def math_cases() -> dict:
    """{name: (IR node over input a, correctly rounded reference, libm reference)}: references map
    float32 bits (uint32) to float32 values. sigmoid's references are the LLVM build's sequence
    1 / (1 + exp(-a)) with a correctly rounded exp and with libm's expf."""
    A = _leaf(F32)

    def call(fn):
        return N.MathCall(fn, [A], F32)
    return {
        "exp": (call(MathFn.EXP), _f64(np.exp), _libm("expf")),
        "tanh": (call(MathFn.TANH), _f64(np.tanh), _libm("tanhf")),
        "sigmoid": (call(MathFn.SIGMOID), _sigmoid_with(_f64(np.exp)), _sigmoid_with(_libm("expf"))),
        "log": (call(MathFn.LOG), _f64(np.log), _libm("logf")),
        "log2": (call(MathFn.LOG2), _f64(np.log2), _libm("log2f")),
        "sin": (call(MathFn.SIN), _f64(np.sin), _libm("sinf")),
        "cos": (call(MathFn.COS), _f64(np.cos), _libm("cosf")),
        "erf": (call(MathFn.ERF), _f64(_erf64), _libm("erff")),
        "rsqrt": (call(MathFn.RSQRT), _f64(lambda x: 1.0 / np.sqrt(x)), _rsqrt),
    }


def math_operands(n: int, seed: int = 0):
    """n float32 bit patterns: the special classes, neighbours of the units' thresholds, dense
    uniform samples of the ranges where the functions are not constant, random bit patterns."""
    rng = np.random.default_rng(seed)
    edges = np.array(EDGES, dtype=np.float32).view(np.int32)
    near = (edges[:, None] + np.arange(-8, 9, dtype=np.int32)[None, :]).ravel().view(np.uint32)
    fixed = np.concatenate([np.array(SPECIAL_BITS, dtype=np.uint32), near])
    m = max(0, n - fixed.size)
    k = m // 4
    parts = [fixed,
             rng.uniform(-105, 90, k).astype(np.float32).view(np.uint32),
             rng.uniform(-10, 10, k).astype(np.float32).view(np.uint32),
             (rng.uniform(-1, 1, k) * np.exp2(-rng.integers(0, 40, k))).astype(np.float32).view(np.uint32),
             rng.integers(0, 2 ** 32, m - 3 * k, dtype=np.uint64).astype(np.uint32)]
    return np.concatenate(parts)[:n]


def ulp_distance(got, want):
    """|got - want| in float32 ulps (adjacent floats are 1 apart, -0 and +0 are 0 apart); NaN vs
    NaN is 0, NaN vs a number is 2^32."""
    def key(u):
        u = u.astype(np.int64)
        return np.where(u >= 0x80000000, 0x80000000 - u, u)
    g = np.asarray(got, dtype=np.float32).view(np.uint32)
    w = np.asarray(want, dtype=np.float32).view(np.uint32)
    d = np.abs(key(g) - key(w))
    gn, wn = np.isnan(g.view(np.float32)), np.isnan(w.view(np.float32))
    return np.where(gn & wn, 0, np.where(gn | wn, 2 ** 32, d))


def special_mismatches(got, want) -> int:
    """Vectors where either side is a zero, an infinity or a NaN and the two differ (NaN == any NaN)."""
    g, w = np.asarray(got, dtype=np.float32), np.asarray(want, dtype=np.float32)
    sp = ~np.isfinite(g) | ~np.isfinite(w) | (g == 0) | (w == 0)
    same = (g.view(np.uint32) == w.view(np.uint32)) | (np.isnan(g) & np.isnan(w))
    return int((sp & ~same).sum())


def worst(outputs: dict, cases: dict, a, libm_n: int = 50_000) -> dict:
    """{case: (max ulp vs correctly rounded, max ulp vs libm on the first libm_n vectors, special
    mismatches against libm)} of bench outputs (uint64 arrays) on inputs a."""
    out = {}
    for name, (_, exact, libm) in cases.items():
        got = (outputs[name] & np.uint64(0xffffffff)).astype(np.uint32).view(np.float32)
        cr = exact(a)
        fin = np.isfinite(cr) & np.isfinite(got)
        d_cr = int(ulp_distance(got[fin], cr[fin]).max(initial=0))
        sub = a[:libm_n]
        lm = libm(sub)
        out[name] = (d_cr, int(ulp_distance(got[:libm_n], lm).max(initial=0)), special_mismatches(got[:libm_n], lm))
    return out


def bench_outputs(cases: dict, emitter):
    """({output name: (SV expression, 32)}, SV text inside the bench module, unit modules after it)
    of the math cases."""
    outs = {name: (emitter.emit(node, ["a"]), 32) for name, (node, _, _) in cases.items()}
    return outs, emitter.functions() + emitter.instances(), emitter.modules()


__all__ = ["math_cases", "math_operands", "ulp_distance", "special_mismatches", "worst", "bench_outputs", "BOUNDS",
           "KERNEL_BOUNDS", "MODEL_BOUNDS"]
