"""Vectorisable f32 approximations of exp, sigmoid, tanh and erf (only with `fast_math=True`).

libm's expf/erff/tanhf are scalar calls that LLVM cannot vectorise; these are plain arith ops
(Cephes-style expf, ~1 ulp; Abramowitz-Stegun 7.1.26 erf, |error| < 1.5e-7). Special values:
exp(-inf) = 0, exp(+inf) = inf, NaN propagates.

Example::

    v = emit_exp(renderer, "%x")      # SSA name of exp(%x) : f32
"""
from __future__ import annotations

from ....ir.ops import MathFn
from ....ir.types import Float

LOG2E = 1.44269504088896341
LN2_HI = 0.693359375
LN2_LO = -2.12194440e-4
EXP_HI = 88.3762626647949
EXP_LO = -87.3365447504
_EXP_POLY = (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1)
_ERF_P = 0.3275911
_ERF_A = (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)  # a5..a1


class F32:
    """Tiny emitter of f32 arith ops on a renderer (`r.op`)."""

    def __init__(self, r):
        self.r = r

    def c(self, v) -> str:
        return self.r.const(float(v), Float(32))

    def bin(self, op, a, b) -> str:
        return self.r.op(f"arith.{op} {a}, {b} : f32")

    def add(self, a, b):
        return self.bin("addf", a, b)

    def sub(self, a, b):
        return self.bin("subf", a, b)

    def mul(self, a, b):
        return self.bin("mulf", a, b)

    def div(self, a, b):
        return self.bin("divf", a, b)

    def cmp(self, pred, a, b):
        return self.r.op(f"arith.cmpf {pred}, {a}, {b} : f32")

    def sel(self, c, a, b):
        return self.r.op(f"arith.select {c}, {a}, {b} : f32")


def emit_exp(r, x) -> str:
    f = F32(r)
    lo, hi = f.c(EXP_LO), f.c(EXP_HI)
    xm = r.op(f"arith.maximumf {x}, {lo} : f32")
    xc = r.op(f"arith.minimumf {xm}, {hi} : f32")
    t = f.add(f.mul(xc, f.c(LOG2E)), f.c(0.5))
    n = r.op(f"math.floor {t} : f32")
    y = f.sub(f.sub(xc, f.mul(n, f.c(LN2_HI))), f.mul(n, f.c(LN2_LO)))
    p = f.c(_EXP_POLY[0])
    for coef in _EXP_POLY[1:]:
        p = f.add(f.mul(p, y), f.c(coef))
    p = f.add(f.add(f.mul(p, f.mul(y, y)), y), f.c(1.0))
    ni = r.op(f"arith.fptosi {n} : f32 to i32")
    bias, sh = r.iconst(127, "i32"), r.iconst(23, "i32")
    biased = r.op(f"arith.addi {ni}, {bias} : i32")
    bits = r.op(f"arith.shli {biased}, {sh} : i32")
    scale = r.op(f"arith.bitcast {bits} : i32 to f32")
    out = f.mul(p, scale)
    out = f.sel(f.cmp("olt", x, lo), f.c(0.0), out)
    out = f.sel(f.cmp("ogt", x, hi), f.c(float("inf")), out)
    return f.sel(f.cmp("uno", x, x), x, out)


def emit_sigmoid(r, x) -> str:
    f = F32(r)
    e = emit_exp(r, r.op(f"arith.negf {x} : f32"))
    return f.div(f.c(1.0), f.add(f.c(1.0), e))


def emit_tanh(r, x) -> str:
    """tanh(x) = sign(x) (1 - 2 / (exp(2|x|) + 1)); |x| > 9 gives +-1."""
    f = F32(r)
    ax = r.op(f"math.absf {x} : f32")
    e = emit_exp(r, f.add(ax, ax))
    t = f.sub(f.c(1.0), f.div(f.c(2.0), f.add(e, f.c(1.0))))
    return r.op(f"math.copysign {t}, {x} : f32")


def emit_erf(r, x) -> str:
    f = F32(r)
    ax = r.op(f"math.absf {x} : f32")
    t = f.div(f.c(1.0), f.add(f.c(1.0), f.mul(f.c(_ERF_P), ax)))
    p = f.c(_ERF_A[0])
    for coef in _ERF_A[1:]:
        p = f.add(f.mul(p, t), f.c(coef))
    p = f.mul(p, t)
    e = emit_exp(r, r.op(f"arith.negf {f.mul(ax, ax)} : f32"))
    y = f.sub(f.c(1.0), f.mul(p, e))
    return r.op(f"math.copysign {y}, {x} : f32")


EMITTERS = {MathFn.EXP: emit_exp, MathFn.SIGMOID: emit_sigmoid, MathFn.TANH: emit_tanh, MathFn.ERF: emit_erf}
