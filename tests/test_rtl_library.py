"""The integer library kernels (linear, matmul, relu, conv2d, add, qlinear) and two composed designs
through the RTL flow: Verilator == LLVM bit for bit with the library's predefined schedules
composed in, cycles reported, Calyx built and checked structurally."""
from __future__ import annotations

import numpy as np
import pytest

import allo
from allo.ir.types import int8, int32
from allo.library import nn
from tests.rtl_util import assert_bit_exact, calyx_well_formed, full_only, needs_rtl, run_both

pytestmark = needs_rtl

rng = np.random.default_rng(0)


def ri(*shape, lo=-8, hi=8, dtype=np.int32):
    return rng.integers(lo, hi, shape).astype(dtype)


# kernel, template args, argument maker
LIBRARY = {
    "linear": (nn.linear, [int32, 3, 4, 5], lambda: [ri(3, 5), ri(4, 5), ri(4)]),
    "matmul": (nn.matmul, [int32, 3, 5, 4], lambda: [ri(3, 5), ri(5, 4)]),
    "relu": (nn.relu, [int32, 3, 5], lambda: [ri(3, 5)]),
    "add": (nn.add, [int8, 3, 5], lambda: [ri(3, 5, dtype=np.int8), ri(3, 5, dtype=np.int8)]),
    # B, Cin, Cout, H, W, Kh, Kw, Oh, Ow, Sh, Sw, Ph, Pw, Dh, Dw, G: 2x2 window, stride 2, padding 1
    "conv2d": (nn.conv2d, [int32, 1, 2, 2, 4, 4, 2, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1],
               lambda: [ri(1, 2, 4, 4), ri(2, 2, 2, 2), ri(2)]),
    # int8 inputs and weights, int32 accumulator and output
    "qlinear": (nn.qlinear, [int8, int8, int32, int32, 3, 4, 6],
                lambda: [ri(3, 6, dtype=np.int8), ri(4, 6, dtype=np.int8), ri(4)]),
}


def _library_schedule(name):
    kernel, targs, make = LIBRARY[name]
    s = allo.customize(kernel, instantiate=targs)
    s.compose(kernel, instantiate=targs)  # the kernel's predefined schedule
    return s, make()


@pytest.mark.parametrize("name", list(LIBRARY))
def test_library_kernel_rtl_matches_llvm(name):
    s, args = _library_schedule(name)
    rtl, got, want = run_both(s, args)
    assert_bit_exact(got, want, name)
    assert rtl.cycles > 0


@full_only("conv2d's 3x3 path with its line-buffer (reuse_at) schedule: a large design")
def test_conv3x3_line_buffered_rtl_matches_llvm():
    targs = [int32, 1, 2, 2, 5, 5, 3, 3, 3, 3, 1, 1, 0, 0, 1, 1, 1]
    s = allo.customize(nn.conv2d, instantiate=targs)
    s.compose(nn.conv2d, instantiate=targs)
    rtl, got, want = run_both(s, [ri(1, 2, 5, 5), ri(2, 2, 3, 3), ri(2)])
    assert_bit_exact(got, want, "conv2d 3x3")
    calyx_well_formed(s.build(target="calyx"), "conv2d")


def _calyx_matches_llvm(s, args, what):
    cx = s.build(target="calyx")
    calyx_well_formed(cx, cx.hw.func.name)
    got, want = cx(*[a.copy() for a in args]), s.build()(*[a.copy() for a in args])
    assert_bit_exact(got, want, f"{what} via Calyx")
    assert cx.cycles > 0
    assert_bit_exact(cx.interpret(*[a.copy() for a in args]), want, f"{what}: .futil interpreted")


@pytest.mark.parametrize("name", list(LIBRARY))
def test_library_kernel_calyx_matches_llvm(name):
    s, args = _library_schedule(name)
    _calyx_matches_llvm(s, args, name)


# ------------------------------------------------------------------------------ composed designs
def mlp(x: int8[2, 8], w1: int8[6, 8], b1: int32[6], w2: int8[4, 6], b2: int32[4]) -> int32[2, 4]:
    """int8 activations and weights, int32 accumulation: linear -> relu -> linear."""
    xi: int32[2, 8] = 0
    w1i: int32[6, 8] = 0
    w2i: int32[4, 6] = 0
    for i, k in allo.grid(2, 8):
        xi[i, k] = x[i, k]
    for j, k in allo.grid(6, 8):
        w1i[j, k] = w1[j, k]
    for j, k in allo.grid(4, 6):
        w2i[j, k] = w2[j, k]
    h = nn.linear[int32, 2, 6, 8, "l1"](xi, w1i, b1)
    r = nn.relu[int32, 2, 6](h)
    return nn.linear[int32, 2, 4, 6, "l2"](r, w2i, b2)


def conv_block(x: int32[1, 2, 4, 4], w: int32[2, 2, 2, 2], b: int32[2], skip: int32[2, 9]) -> int32[2, 9]:
    """conv2d (2x2 window) -> flatten -> relu -> residual add."""
    y = nn.conv2d[int32, 1, 2, 2, 4, 4, 2, 2, 3, 3, 1, 1, 0, 0, 1, 1, 1, "c"](x, w, b)
    flat: int32[2, 9] = 0
    for c, p in allo.grid(2, 9):
        flat[c, p] = y[0, c, p // 3, p % 3]
    r = nn.relu[int32, 2, 9](flat)
    return nn.add[int32, 2, 9](r, skip)


def _mlp_schedule():
    s = allo.customize(mlp)
    s.compose(nn.linear, id="l1", instantiate=[int32, 2, 6, 8])
    s.compose(nn.linear, id="l2", instantiate=[int32, 2, 4, 6])
    s.compose(nn.relu, instantiate=[int32, 2, 6])
    args = [ri(2, 8, lo=-100, hi=100, dtype=np.int8), ri(6, 8, lo=-100, hi=100, dtype=np.int8), ri(6, lo=-500, hi=500),
            ri(4, 6, lo=-100, hi=100, dtype=np.int8), ri(4, lo=-500, hi=500)]
    return s, args


def _conv_schedule():
    s = allo.customize(conv_block)
    s.compose(nn.conv2d, id="c", instantiate=[int32, 1, 2, 2, 4, 4, 2, 2, 3, 3, 1, 1, 0, 0, 1, 1, 1])
    s.compose(nn.relu, instantiate=[int32, 2, 9])
    return s, [ri(1, 2, 4, 4), ri(2, 2, 2, 2), ri(2), ri(2, 9)]


def _mlp_reference(x, w1, b1, w2, b2):
    h = np.maximum(x.astype(np.int64) @ w1.astype(np.int64).T + b1, 0)
    return (h @ w2.astype(np.int64).T + b2).astype(np.int32)


@pytest.mark.parametrize("design", ["mlp", "conv_block"])
def test_composed_design_rtl_matches_llvm(design):
    s, args = _mlp_schedule() if design == "mlp" else _conv_schedule()
    assert s.steps, "library schedules were composed"
    rtl, got, want = run_both(s, args)
    assert_bit_exact(got, want, design)
    if design == "mlp":
        np.testing.assert_array_equal(got, _mlp_reference(*args))
    assert rtl.cycles > 0
    _calyx_matches_llvm(s, args, design)


@full_only("a second unrolling check; the default run unrolls vsum (tests/test_rtl_flow.py)")
def test_unrolling_matmul_reduces_cycles():
    kernel, targs, make = LIBRARY["matmul"]
    args = make()
    cycles = []
    for unroll in (False, True):
        s = allo.customize(kernel, instantiate=targs)
        if unroll:
            s.unroll("k", 0)  # the whole reduction per output element
        rtl, got, want = run_both(s, args)
        assert_bit_exact(got, want, f"matmul unroll={unroll}")
        cycles.append(rtl.cycles)
    assert cycles[1] < cycles[0], cycles
