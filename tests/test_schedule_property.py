"""Random sequences of schedule primitives, applied through the public API, never change results.

For several kernels (gemm int32/float32, a 3x3 convolution stencil, 2mm int32 and PolyBench's
float 2mm) hypothesis draws up to six primitives with random loops, buffers and factors (split
factors include non-divisors). A draw that cannot apply must raise `allo.AlloError` and leave
`str(s.module)` and `s.steps` exactly as they were; whatever was applied must keep the LLVM
results: integers bit-exact, floats within 1e-5.
"""
from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import allo
from allo.ir.types import float32, int32
from tests.polybench.kernels import KERNELS as POLYBENCH


# ----------------------------------------------------------------------------- kernels
def gemm_i(A: int32[6, 7], B: int32[7, 5]) -> int32[6, 5]:
    C: int32[6, 5] = 0
    for i, j in allo.grid(6, 5):
        for k in allo.reduction(7):
            C[i, j] += A[i, k] * B[k, j]
    return C


def gemm_f(A: float32[6, 7], B: float32[7, 5]) -> float32[6, 5]:
    C: float32[6, 5] = 0.0
    for i, j in allo.grid(6, 5):
        for k in allo.reduction(7):
            C[i, j] += A[i, k] * B[k, j]
    return C


def conv_i(A: int32[8, 9], W: int32[3, 3]) -> int32[6, 7]:
    B: int32[6, 7] = 0
    for y, x in allo.grid(6, 7):
        for r, c in allo.reduction(3, 3):
            B[y, x] += A[y + r, x + c] * W[r, c]
    return B


def mm2_i(A: int32[5, 4], B: int32[4, 6], C: int32[6, 3]) -> int32[5, 3]:
    tmp: int32[5, 6] = 0
    for i, j in allo.grid(5, 6):
        for k in allo.reduction(4):
            tmp[i, j] += A[i, k] * B[k, j]
    D: int32[5, 3] = 0
    for i1, j1 in allo.grid(5, 3):
        for k1 in allo.reduction(6):
            D[i1, j1] += tmp[i1, k1] * C[k1, j1]
    return D


def _ints(rng, *shape):
    return rng.integers(-9, 10, shape).astype(np.int32)


def _floats(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


_PB_2MM = next(c for c in POLYBENCH if c.name == "2mm")


class Case:
    """A kernel, its inputs, the buffers worth scheduling, and how to read its results."""

    def __init__(self, kernel, make, buffers, outputs=()):
        self.kernel, self.make, self.buffers, self.outputs = kernel, make, buffers, outputs

    def run(self, s):
        args = [a.copy() if isinstance(a, np.ndarray) else a for a in self.inputs]
        out = s.build()(*args)
        return tuple(args[i] for i in self.outputs) if self.outputs else (out,)

    @functools.cached_property
    def inputs(self):
        return self.make(np.random.default_rng(3))

    @functools.cached_property
    def expected(self):
        return self.run(allo.customize(self.kernel))


CASES = {
    "gemm_i": Case(gemm_i, lambda r: [_ints(r, 6, 7), _ints(r, 7, 5)], ["A", "B", "C"]),
    "gemm_f": Case(gemm_f, lambda r: [_floats(r, 6, 7), _floats(r, 7, 5)], ["A", "B", "C"]),
    "conv_i": Case(conv_i, lambda r: [_ints(r, 8, 9), _ints(r, 3, 3)], ["A", "W", "B"]),
    "mm2_i": Case(mm2_i, lambda r: [_ints(r, 5, 4), _ints(r, 4, 6), _ints(r, 6, 3)], ["A", "B", "C", "tmp", "D"]),
    "2mm_f": Case(_PB_2MM.kernel, _PB_2MM.make_inputs, ["A", "B", "C", "D", "tmp"], _PB_2MM.outputs),
}


# ----------------------------------------------------------------------------- random steps
def _loop_names(s):
    loops = s.get_loops()
    return sorted({h.name for band in loops for h in loops[band]})


def _draw_step(data, s, buffers):
    """A (description, thunk) pair for one random primitive on the current schedule."""
    names = _loop_names(s)
    loop = lambda: data.draw(st.sampled_from(names))  # noqa: E731
    buf = lambda: data.draw(st.sampled_from(buffers))  # noqa: E731
    prim = data.draw(st.sampled_from(["split", "split", "reorder", "fuse", "unroll", "pipeline", "buffer_at",
                                      "partition", "reuse_at"]))
    if prim == "split":
        args = (loop(), data.draw(st.integers(1, 8)))
    elif prim in ("reorder", "fuse"):
        n = data.draw(st.integers(2, 3))
        if data.draw(st.booleans()):  # loops of one band: mostly valid nests
            loops = s.get_loops()
            band = [h.name for h in loops[data.draw(st.sampled_from(list(loops)))]]
            if prim == "fuse":
                start = data.draw(st.integers(0, max(0, len(band) - n)))
                args = tuple(band[start:start + n])
            else:
                args = tuple(data.draw(st.permutations(band))[:n])
        else:
            args = tuple(loop() for _ in range(n))
    elif prim == "unroll":
        args = (loop(), data.draw(st.integers(0, 4)))
    elif prim == "pipeline":
        args = (loop(), data.draw(st.integers(1, 3)))
    elif prim in ("buffer_at", "reuse_at"):
        args = (buf(), loop())
    else:
        kind = data.draw(st.sampled_from([allo.Partition.Complete, allo.Partition.Block, allo.Partition.Cyclic]))
        args = (buf(), kind, data.draw(st.integers(0, 2)), data.draw(st.integers(0, 4)))
    return prim, args


def _check(got, want, floats):
    for g, w in zip(got, want):
        if floats:
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
        else:
            np.testing.assert_array_equal(g, w)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
@pytest.mark.parametrize("name", sorted(CASES))
def test_random_schedules_keep_results(name, data):
    case = CASES[name]
    s = allo.customize(case.kernel)
    buffers = list(case.buffers)
    log = []
    for _ in range(data.draw(st.integers(1, 6))):
        prim, args = _draw_step(data, s, buffers)
        text, steps = str(s.module), list(s.steps)
        try:
            out = getattr(s, prim)(*args)
        except allo.AlloError:
            assert str(s.module) == text, f"failed {prim}{args} changed the module (after {log})"
            assert list(s.steps) == steps, f"failed {prim}{args} changed the step log"
            continue
        log.append(f"{prim}{args}")
        if prim in ("buffer_at", "reuse_at"):
            buffers.append(out)  # new buffers become targets too
        assert len(s.steps) == len(steps) + 1
    _check(case.run(s), case.expected, floats=name.endswith("_f"))
    if log:
        assert f"({len(log)} step(s))" in str(s)
