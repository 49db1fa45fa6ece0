"""`x: T @ Stateful = init` (upstream Allo's allo.ir.types.Stateful): locals that keep their value
across calls of one built module, in the LLVM build, the interpreter, the HLS C++ (`static`) and
C simulation; checked against a Python model of the same state."""
import re

import numpy as np
import pytest

import allo
from allo import interp
from allo.ir.types import Stateful, float32, int8, int32, uint32


def counter(x: int32) -> int32:
    total: int32 @ Stateful = 7
    total = total + x
    return total


def histogram(n: int8) -> int32[16]:
    bins: int32[16] @ Stateful = 0
    bins[n] += 1
    return bins


def moving_average(v: float32) -> float32:
    window: float32[4] @ Stateful = 0.0
    pos: int32 @ Stateful = 0
    count: int32 @ Stateful = 0
    total: float32 @ Stateful = 0.0
    total = total - window[pos]
    window[pos] = v
    total = total + v
    pos = (pos + 1) % 4
    if count < 4:
        count = count + 1
    return total / count


def test_scalar_state_persists_and_each_build_starts_fresh():
    s = allo.customize(counter)
    mod = s.build()
    assert [int(mod(x)) for x in (1, 2, 3)] == [8, 10, 13]
    assert int(s.build()(5)) == 12  # a new module starts from the initial value again
    assert int(mod(0)) == 13
    assert 'memref.global "private" @counter_total : memref<i32> = dense<7>' in str(s.module)


def test_array_state_and_returned_copies_match_numpy():
    mod = allo.customize(histogram).build()
    rng = np.random.default_rng(3)
    ref = np.zeros(16, np.int32)
    results = []
    for n in rng.integers(0, 16, size=40):
        ref[n] += 1
        results.append(mod(int(n)))
        np.testing.assert_array_equal(results[-1], ref)
    assert results[0].sum() == 1  # each result is a copy, not a view of the state


def test_moving_average_state_llvm_and_interpreter():
    s = allo.customize(moving_average)
    mod = s.build()
    fns = interp.compile_module(s.ir)  # one compiled module: its state carries over too
    values = [10.0, 20.0, 30.0, 40.0, 50.0, -6.0]
    window = []
    for v in values:
        window = (window + [v])[-4:]
        expected = np.float32(sum(window) / len(window))
        np.testing.assert_allclose(mod(v), expected, rtol=1e-6)
        np.testing.assert_allclose(fns["moving_average"](np.array(v, np.float32)), expected, rtol=1e-6)


def test_hls_code_declares_statics_and_csim_runs_one_call():
    s = allo.customize(histogram)
    code = s.build(target="vhls").hls_code
    assert re.search(r"static int32_t histogram_bins\[16\] = \{0(, 0){15}\};", code)
    assert "out0[i0] = histogram_bins[i0];" in code  # the result is copied out of the static
    csim = s.build(target="vitis_hls", mode="csim")
    np.testing.assert_array_equal(csim(3), np.eye(16, dtype=np.int32)[3])
    with pytest.raises(allo.BackendError, match="new process.*bins"):
        csim(4)


def test_instances_and_callees_each_have_their_own_state():
    def acc(x: int32) -> int32:
        state: int32 @ Stateful = 100
        state = state + x
        return state

    def crc(data: int32) -> uint32:
        c: uint32 @ Stateful = 0xFFFFFFFF
        c = c ^ data
        for j in range(8):
            c = (c >> 1) ^ (0xEDB88320 & (-(c & 1)))
        return c ^ 0xFFFFFFFF

    def top(x: int32) -> int32:
        mine: int32 @ Stateful = 0
        mine = mine + 1
        a: int32 = acc(x)
        b: int32 = acc(x * 2)
        return mine * 10000 + a + b

    s = allo.customize(top)
    mod = s.build()
    state, mine = 100, 0
    for x in (1, 5, 2):
        mine += 1
        state += x
        a = state
        state += 2 * x
        assert int(mod(x)) == mine * 10000 + a + state  # both calls of acc share acc's one state
    code = s.build(target="vhls").hls_code
    assert len(re.findall(r"\bstatic int32_t \w+ = ", code)) == 2

    mod = allo.customize(crc).build()
    import zlib
    got = [int(mod(b)) for b in b"allo"]
    assert got == [zlib.crc32(b"allo"[:k + 1]) for k in range(4)]


def test_stateful_errors_name_the_variable():
    def runtime_init(x: int32) -> int32:
        s: int32 @ Stateful = x
        return s

    def in_loop(x: int32) -> int32:
        for i in range(4):
            s: int32 @ Stateful = 0
            s = s + x
        return x

    def too_big() -> int8:
        s: int8 @ Stateful = 300
        return s

    def param(x: int32 @ Stateful) -> int32:
        return x

    with pytest.raises(allo.AlloTypeError, match="'s' must be a compile-time constant"):
        allo.customize(runtime_init)
    with pytest.raises(allo.AlloSyntaxError, match="top level"):
        allo.customize(in_loop)
    with pytest.raises(allo.AlloTypeError, match=r"initial value 300 is outside int8"):
        allo.customize(too_big)
    with pytest.raises(allo.AlloTypeError, match="parameters and results cannot be Stateful"):
        allo.customize(param)
    with pytest.raises(allo.AlloTypeError, match="scalar or array type"):
        3 @ Stateful


def test_rtl_refuses_stateful_locals():
    s = allo.customize(counter)  # refused while preparing the design, before any tool runs
    with pytest.raises(allo.BackendError, match="Stateful.*'total'"):
        s.build(target="rtl")
