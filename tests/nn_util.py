"""Shared helpers for the allo.library.nn tests (test_nn_*.py).

`check(kernel, targs, args, expected)` builds the instance twice, unscheduled and with the kernel's
predefined schedule, runs both on LLVM and compares with `expected`; it also asserts that the
scheduled IR carries a pipeline_ii attribute.
"""
from __future__ import annotations

import numpy as np
import torch
from hypothesis import HealthCheck, settings

import allo
from allo.ir import nodes as N
from allo.ir import visit as V
from allo.ir.fixed import from_raw, to_raw, wrap_int

FAST = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
QUICK = settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TOL = dict(atol=1e-4, rtol=1e-4)


def rand(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def tt(x):
    return torch.from_numpy(np.array(x))  # a writable contiguous copy


def pipelined_loops(s) -> list:
    """Names of loops with pipeline_ii in any function of schedule `s`."""
    out = []
    for f in s.ir.funcs:
        for st in V.walk_stmts(f.body):
            if isinstance(st, N.For) and "pipeline_ii" in st.attrs:
                out.append(st.name)
    return out


def scheduled(kernel, targs):
    s = allo.customize(kernel, instantiate=list(targs))
    kernel.schedule_fn(s)
    assert pipelined_loops(s), f"schedule of {kernel.name} pipelines nothing"
    return s


def run_both(kernel, targs, args):
    """(unscheduled result, scheduled result) on LLVM."""
    plain = allo.customize(kernel, instantiate=list(targs)).build()(*args)
    sched = scheduled(kernel, targs).build()(*args)
    return plain, sched


def check(kernel, targs, args, expected, exact_schedule=True, **tol):
    """Both builds match `expected`; the scheduled one also matches the plain one bit for bit
    (unless `exact_schedule=False`, for schedules that reorder a float reduction)."""
    plain, sched = run_both(kernel, targs, args)
    tol = tol or TOL
    np.testing.assert_allclose(plain, expected, **tol)
    if exact_schedule:
        np.testing.assert_array_equal(sched, plain)
    else:
        np.testing.assert_allclose(sched, expected, **tol)
    return plain


# ---------------------------------------------------------------------------- integer / fixed emulation
def fixed_mul_raw(a, b, t):
    """Raw product of raw fixed values a, b of type t (2W multiply, floor shift by F, wrap to W)."""
    prod = a.astype(np.int64) * b.astype(np.int64)
    return wrap_int(prod >> t.frac, t.bits, True)


def fixed_raw(x, t):
    return to_raw(x, t).astype(np.int64)


def fixed_val(raw, t):
    return from_raw(wrap_int(raw, t.bits, True), t)
