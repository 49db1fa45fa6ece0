"""PolyBench through the public HLS flow: `s.build(target="vhls", mode="csim", project=...)`.

Every kernel of tests/polybench runs twice under g++ C simulation, unscheduled and with a
hand-written HLS schedule (pipeline, split + unroll, reorder, fuse, partition; band-qualified
loop names where a name repeats). The C simulation must match the LLVM build of the same
schedule: bit for bit for integers, within 1e-5 relative for floats; both must match numpy.
Each schedule also lists the pragmas it must produce, under which loop label.

`assert_same_results` and `loop_pragmas` are reused by the other HLS acceptance tests.
"""
from __future__ import annotations

import re
import shutil

import numpy as np
import pytest

import allo
from allo import Partition
from tests.polybench.kernels import BY_NAME

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed for HLS C simulation")

FLOAT_TOL = dict(rtol=1e-5, atol=1e-6)
PIPE, UNROLL = "#pragma HLS pipeline II=1", "#pragma HLS unroll"


def assert_same_results(got, want, exact: bool = False, what: str = ""):
    """csim results `got` equal LLVM results `want` (tuples or single values): same shapes and
    dtypes; bit-identical for integers (and for anything when `exact`, e.g. fixed point,
    which both return as float64), 1e-5 relative for floats."""
    got_t = got if isinstance(got, tuple) else (got,)
    want_t = want if isinstance(want, tuple) else (want,)
    assert len(got_t) == len(want_t), f"{what}: {len(got_t)} results, LLVM gave {len(want_t)}"
    for k, (g, w) in enumerate(zip(got_t, want_t)):
        g, w = np.asarray(g), np.asarray(w)
        assert (g.shape, g.dtype) == (w.shape, w.dtype), \
            f"{what} result {k}: {g.shape} {g.dtype}, LLVM gave {w.shape} {w.dtype}"
        if exact or g.dtype.kind != "f":
            np.testing.assert_array_equal(g, w, err_msg=f"{what} result {k}")
        else:
            np.testing.assert_allclose(g, w, **FLOAT_TOL, err_msg=f"{what} result {k}")


def loop_pragmas(code: str) -> dict:
    """{loop label: [pragma lines directly at the top of its body]} for labels that have any."""
    lines = code.splitlines()
    out = {}
    for k, line in enumerate(lines):
        m = re.match(r"\s*(l_\w+): for \(", line)
        if not m:
            continue
        pragmas = []
        for nxt in lines[k + 1:]:
            if not nxt.strip().startswith("#pragma HLS"):
                break
            pragmas.append(nxt.strip())
        if pragmas:
            assert m.group(1) not in out, f"label {m.group(1)} appears twice"
            out[m.group(1)] = pragmas
    return out


def partition_pragmas(code: str) -> list:
    return sorted(ln.strip() for ln in code.splitlines() if "#pragma HLS array_partition" in ln)


# ----------------------------------------------------------------------------- schedules
SCHEDULES = {}  # kernel name -> (schedule fn, {label: pragmas}, [array_partition "variable=..." tails])


def schedule(name: str, loops: dict, partitions: list):
    """Register `fn(s)` as the HLS schedule of PolyBench kernel `name` and the pragmas it must emit."""
    def deco(fn):
        SCHEDULES[name] = (fn, loops, sorted(f"#pragma HLS array_partition variable={p}" for p in partitions))
        return fn
    return deco


@schedule("gemm", {"l_j": [PIPE], "l_j_outer": [PIPE], "l_j_inner": [UNROLL]},
          ["C cyclic factor=2 dim=2", "B cyclic factor=2 dim=2"])
def _gemm(s):
    s.pipeline("S_j_1/j")          # C[i, j] *= beta
    s.split("S_k_2/j", 2)          # the j loop inside k: 2 lanes
    s.pipeline("j.outer")
    s.unroll("j.inner")
    s.partition(s.B, Partition.Cyclic, dim=2, factor=2)
    s.partition(s.C, Partition.Cyclic, dim=2, factor=2)


@schedule("2mm", {"l_j": [PIPE], "l_j_1": [PIPE], "l_k_1": ["#pragma HLS unroll factor=2"]},
          ["A cyclic factor=2 dim=2", "tmp complete dim=2"])
def _2mm(s):
    s.reorder("S_i_j_0/k", "S_i_j_0/j")  # i, k, j: no carried dependence in the inner loop
    s.pipeline("S_i_j_0/j")
    s.unroll("S_i_j_2/k", 2)
    s.pipeline("S_i_j_2/j")
    s.partition(s.A, Partition.Cyclic, dim=2, factor=2)
    s.partition(s.tmp, Partition.Complete, dim=2)


@schedule("3mm", {"l_k": [PIPE], "l_j": [PIPE], "l_j_1": [PIPE], "l_k_2": [UNROLL]},
          ["E complete dim=2", "F block factor=2 dim=1"])
def _3mm(s):
    s.split("S_i_j_0/j", 4)  # 10 = 3 * 4 - 2: a guarded tail
    s.pipeline("S_i_j_0/k")
    s.reorder("S_i_j_2/k", "S_i_j_2/j")
    s.pipeline("S_i_j_2/j")
    s.unroll("S_i_j_4/k", 0)
    s.pipeline("S_i_j_4/j")
    s.partition(s.E, Partition.Complete, dim=2)
    s.partition(s.F, Partition.Block, dim=1, factor=2)


@schedule("atax", {"l_j": [PIPE], "l_j_1": ["#pragma HLS unroll factor=2"]}, ["A cyclic factor=2 dim=2"])
def _atax(s):
    s.pipeline("S_j_1/j")
    s.unroll("S_j_2/j", 2)
    s.partition(s.A, Partition.Cyclic, dim=2, factor=2)


@schedule("bicg", {"l_j": [PIPE]}, ["A complete dim=2"])
def _bicg(s):
    s.pipeline("j")
    s.partition(s.A, Partition.Complete, dim=2)


@schedule("gesummv", {"l_j_outer": [PIPE], "l_j_inner": [UNROLL]},
          ["A cyclic factor=5 dim=2", "B cyclic factor=5 dim=2"])
def _gesummv(s):
    s.split("j", 5)
    s.unroll("j.inner")
    s.pipeline("j.outer")
    s.partition(s.A, Partition.Cyclic, dim=2, factor=5)
    s.partition(s.B, Partition.Cyclic, dim=2, factor=5)


@schedule("mvt", {"l_j": [PIPE], "l_i_1": [PIPE]}, ["A complete dim=0"])
def _mvt(s):
    s.pipeline("S_i_j_0/j")
    s.reorder("S_i_j_1/j", "S_i_j_1/i")  # x2[i] += A[j, i] * y2[j]: j outer, i inner
    s.pipeline("S_i_j_1/i")
    s.partition(s.A, Partition.Complete, dim=0)


@schedule("syrk", {"l_j": [PIPE], "l_j_inner": [PIPE]}, ["A cyclic factor=2 dim=2"])
def _syrk(s):
    s.pipeline("S_j_1/j")
    s.split("S_k_2/j", 3)  # a triangular loop (j < i + 1) split by 3
    s.pipeline("j.inner")
    s.partition(s.A, Partition.Cyclic, dim=2, factor=2)


@schedule("syr2k", {"l_k": [PIPE], "l_j_1": ["#pragma HLS unroll factor=2"]}, ["C block factor=2 dim=1"])
def _syr2k(s):
    s.unroll("S_k_2/j", 2)
    s.pipeline("k")
    s.partition(s.C, Partition.Block, dim=1, factor=2)


@schedule("trmm", {"l_k": [PIPE]}, ["A complete dim=1"])
def _trmm(s):
    s.pipeline("k")
    s.partition(s.A, Partition.Complete, dim=1)


@schedule("symm", {"l_k": [PIPE]}, ["B cyclic factor=5 dim=2"])
def _symm(s):
    s.split("j", 5)
    s.pipeline("k")
    s.partition(s.B, Partition.Cyclic, dim=2, factor=5)


@schedule("jacobi-2d", {"l_j": [PIPE], "l_j_1": [PIPE]}, ["A cyclic factor=2 dim=2"])
def _jacobi_2d(s):
    s.split("S_i_1/i", 4)
    s.pipeline("S_i_1/j")
    s.pipeline("S_i_3/j")
    s.partition(s.A, Partition.Cyclic, dim=2, factor=2)


@schedule("correlation", {"l_i": [PIPE], "l_i_1": [PIPE], "l_j_2": [PIPE], "l_k": [PIPE]}, ["mean complete dim=0"])
def _correlation(s):
    s.pipeline("S_j_0/i")
    s.pipeline("S_j_2/i")
    s.pipeline("S_i_j_4/j")
    s.pipeline("S_i_5/k")
    s.partition(s.mean, Partition.Complete)


@schedule("doitgen", {"l_k": [PIPE], "l_p_1": [PIPE]}, ["C4 complete dim=1"])
def _doitgen(s):
    s.fuse("r", "q")
    s.pipeline("S_p_1/k")
    s.pipeline("S_p_3/p")
    s.partition(s.C4, Partition.Complete, dim=1)


@schedule("floyd-warshall", {"l_j": [PIPE]}, ["path cyclic factor=2 dim=2"])
def _floyd_warshall(s):
    s.split("i", 5)
    s.pipeline("j")
    s.partition(s.path, Partition.Cyclic, dim=2, factor=2)


# ----------------------------------------------------------------------------- tests
def test_every_polybench_kernel_has_an_hls_schedule():
    assert set(SCHEDULES) == set(BY_NAME)


def _csim_vs_llvm(case, s, project):
    args = case.make_inputs(np.random.default_rng(0))
    want = case.run(s.build(), args)
    hls = s.build(target="vhls", mode="csim", project=str(project))
    got = case.run(hls, args)
    assert_same_results(got, want, what=case.name)
    case.check(got, args)  # and both agree with numpy
    return hls


@pytest.mark.parametrize("name", list(BY_NAME))
def test_unscheduled_csim_matches_llvm(name, tmp_path):
    case = BY_NAME[name]
    hls = _csim_vs_llvm(case, allo.customize(case.kernel), tmp_path / "prj")
    assert "#pragma" not in hls.hls_code
    for f in ("kernel.cpp", "kernel.h", "host.cpp", "run.tcl"):
        assert (tmp_path / "prj" / f).is_file()
    assert (tmp_path / "prj" / "kernel.cpp").read_text() == hls.hls_code


@pytest.mark.parametrize("name", list(BY_NAME))
def test_scheduled_csim_matches_llvm_and_places_pragmas(name, tmp_path):
    case = BY_NAME[name]
    fn, loops, partitions = SCHEDULES[name]
    s = allo.customize(case.kernel)
    fn(s)
    hls = _csim_vs_llvm(case, s, tmp_path / "prj")
    assert loop_pragmas(hls.hls_code) == loops
    assert partition_pragmas(hls.hls_code) == partitions
