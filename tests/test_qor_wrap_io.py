"""The estimate of a `target="vitis_hls"` build follows its interface: with wrap_io (the build's
default) the load_buf / store_res copy loops of the generated C++ are rows of the report and part
of the latency; with wrap_io=False the body indexes the m_axi ports directly."""
import re

import pytest

import allo
from allo.ir.types import float32, int32

N = 16


def scale(A: float32[N, N], B: float32[N, N]):
    for i, j in allo.grid(N, N):
        B[i, j] = A[i, j] * 2.0


def accumulate(A: int32[N], S: int32[1]):
    for i in range(N):
        S[0] += A[i]


def _sched(fn, loop):
    s = allo.customize(fn)
    s.pipeline(loop)
    return s


def test_copy_loops_are_rows_named_as_in_the_cpp():
    mod = _sched(scale, "j").build(target="vitis_hls")
    r = mod.report()
    names = [row.name for row in r.loops]
    assert names[0] == "l_load_buf0_i0" and names[1] == "l_load_buf1_i0" and names[-1] == "l_store_res1_i0"
    for name in ("l_load_buf0_i0", "l_load_buf1_i0", "l_store_res1_i0"):
        assert re.search(rf"\b{name}:", mod.hls_code), name
    copies = [row for row in r.loops if "buf" in row.name or "res" in row.name]
    assert all(row.pipelined and row.ii == 1 and row.trip_count == N * N for row in copies)
    # the rows add up to the total (the top function's own state on top)
    assert 0 <= r.latency_cycles - sum(row.latency for row in r.loops) <= 2


def test_wrap_io_adds_the_copies_to_the_body():
    s = _sched(scale, "j")
    wrapped = s.build(target="vitis_hls").report()
    direct = s.build(target="vitis_hls", wrap_io=False).report()
    body = next(row for row in wrapped.loops if row.name == "l_i_l_j")
    copies = sum(row.latency for row in wrapped.loops if row is not body)
    assert copies >= 3 * N * N  # two loads and one store of 256 elements each
    assert wrapped.latency_cycles > direct.latency_cycles + 2 * N * N
    # the body reads on-chip arrays (1 cycle) instead of the bus (13): a shorter pipeline
    direct_body = next(row for row in direct.loops if row.name == "l_i_l_j")
    assert body.iteration_latency < direct_body.iteration_latency
    assert wrapped.resources["BRAM_18K"] > direct.resources["BRAM_18K"]  # the on-chip copies


def test_only_written_arrays_are_copied_back():
    r = _sched(accumulate, "i").build(target="vitis_hls").report()
    names = [row.name for row in r.loops]
    assert "l_store_res1_i0" in names and "l_store_res0_i0" not in names
    assert names.count("l_load_buf0_i0") == 1 and "l_load_buf1_i0" in names


def test_schedule_estimate_defaults_to_the_direct_interface():
    s = _sched(scale, "j")
    assert allo.qor.estimate(s, target="vitis_hls").latency_cycles == \
        s.build(target="vitis_hls", wrap_io=False).report().latency_cycles
    assert allo.qor.estimate(s, target="vitis_hls", wrap_io=True).latency_cycles == \
        s.build(target="vitis_hls").report().latency_cycles
    # wrap_io has no meaning for plain arrays (vhls)
    assert allo.qor.estimate(s, wrap_io=True).latency_cycles == allo.qor.estimate(s).latency_cycles


def test_bad_wrap_io_is_an_allo_error():
    with pytest.raises(allo.AlloError, match="wrap_io must be True or False"):
        allo.qor.estimate(_sched(scale, "j"), target="vitis_hls", wrap_io="yes")
