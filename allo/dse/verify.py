"""Numeric verification of a candidate: its LLVM build must compute what the unscheduled kernel
computes, on random inputs (results and every array argument, which kernels may update in place).

Example::

    ok, why = check_equal(base_schedule, candidate_schedule, rng=numpy.random.default_rng(0))
"""
from __future__ import annotations

import numpy as np

from ..ir import nodes as N
from ..ir.types import Fixed, Float, Index, Int, UFixed, UInt


def random_value(t, shape, rng):
    """Random numpy data of allo type `t` (small magnitudes: sums of products stay exact-ish)."""
    size = shape or ()
    if isinstance(t, Float):
        data = rng.uniform(-1.0, 1.0, size=size)
    elif isinstance(t, (Fixed, UFixed)):
        lo = 0.0 if isinstance(t, UFixed) else -1.0
        data = rng.uniform(lo, 1.0, size=size)
    elif isinstance(t, UInt):
        data = rng.integers(0, 2 if t.bits == 1 else min(16, 2 ** t.bits), size=size)
    elif isinstance(t, (Int, Index)):
        hi = 8 if isinstance(t, Index) else min(8, 2 ** (t.bits - 1))
        data = rng.integers(-hi, hi, size=size)
    else:
        data = rng.uniform(-1.0, 1.0, size=size)
    if not shape:
        return t.np_dtype.type(data) if hasattr(t, "np_dtype") else data
    return np.asarray(data).astype(t.np_dtype)


def random_inputs(func: N.Func, rng) -> list:
    """One random argument per parameter of `func` (arrays and scalars)."""
    return [random_value(p.dtype, p.shape, rng) for p in func.params]


def _outputs(result, args) -> list:
    outs = list(result) if isinstance(result, tuple) else ([] if result is None else [result])
    return [np.asarray(o) for o in outs] + [a for a in args if isinstance(a, np.ndarray)]


def _close(got, want, rtol, atol) -> bool:
    if got.shape != want.shape:
        return False
    if np.issubdtype(want.dtype, np.floating):
        scale = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
        return bool(np.allclose(got, want, rtol=rtol, atol=atol * scale, equal_nan=True))
    return bool(np.array_equal(got, want))


def check_equal(reference, candidate, rng, trials: int = 1, rtol: float = 1e-4, atol: float = 1e-5,
                opt_level: int = 0):
    """(ok, message): build both schedules for LLVM and compare them on `trials` random inputs.

    `reference` may be an already built module (a callable) to avoid rebuilding it. The candidate
    is compiled at LLVM `opt_level` (default 0: the check needs its numbers, not its speed, and
    LLVM's optimisation of a many-lane design's straight-line code - bicg's 5,330 lanes and adder
    trees - took 75 s at -O2 against 11 s at -O0, after allo.render's unroll cap)."""
    ref_mod = reference if callable(reference) and not hasattr(reference, "build") else reference.build()
    cand_mod = candidate.build(opt_level=opt_level)
    func = candidate.ir.func(candidate.ir.top)
    for _ in range(trials):
        args = random_inputs(func, rng)
        ref_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        cand_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        want = _outputs(ref_mod(*ref_args), ref_args)
        got = _outputs(cand_mod(*cand_args), cand_args)
        if len(want) != len(got):
            return False, f"{len(got)} outputs instead of {len(want)}"
        for k, (g, w) in enumerate(zip(got, want)):
            if not _close(g, w, rtol, atol):
                diff = float(np.max(np.abs(g.astype(np.float64) - w.astype(np.float64)))) if g.shape == w.shape else None
                return False, f"output {k} differs from the unscheduled kernel (max abs diff {diff})"
    return True, "LLVM results equal the unscheduled kernel's"
