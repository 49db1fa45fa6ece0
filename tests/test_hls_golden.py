"""Golden tests of the HLS C++ (`s.build(target="vhls").hls_code`), compared as exact text.

Two scheduled gemms: the HLS gemm of tutorials/02_schedules.py (taken from running the
tutorial itself: reorder, buffer_at, split, pipeline, unroll, partition) and a plain gemm with
`pipeline("j")`. Besides the text compare, explicit asserts pin what matters if the golden is
ever refreshed carelessly: which loop each pragma sits in, which arrays are partitioned how, and
the loop nesting. Both designs also run in csim against LLVM, and the generated C++ compiles
with `g++ -std=c++14 -Wall -Werror -Wno-unknown-pragmas -Wno-unused-label` (csim's own flags).

Refresh the golden files after an intended change of the emitted C++ with::

    ALLO_UPDATE_GOLDEN=1 python -m pytest tests/test_hls_golden.py

then review the diff of tests/golden/ like any other change.
"""
from __future__ import annotations

import contextlib
import difflib
import io
import os
import re
import runpy
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import allo
from allo.backend.hls.csim import CXX_FLAGS
from allo.ir.types import float32
from tests.test_hls_csim_polybench import assert_same_results, loop_pragmas, partition_pragmas

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed for HLS C simulation")

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("ALLO_UPDATE_GOLDEN", "") not in ("", "0")
WERROR = ["-std=c++14", "-Wall", "-Werror", "-Wno-unknown-pragmas", "-Wno-unused-label"]
PIPE = "#pragma HLS pipeline II=1"


def check_golden(name: str, text: str):
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text)
        return
    if not path.exists():
        pytest.fail(f"golden file {path} is missing; create it with ALLO_UPDATE_GOLDEN=1")
    want = path.read_text()
    if text != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), text.splitlines(True),
                                            f"golden/{name}", "emitted C++"))
        pytest.fail(f"HLS C++ differs from tests/golden/{name} (refresh with ALLO_UPDATE_GOLDEN=1 if the change "
                    f"is intended):\n{diff}")


def loop_parents(code: str) -> dict:
    """{loop label: label of the nearest enclosing labelled loop (None at top level)}, by indentation."""
    parents, stack = {}, []
    for line in code.splitlines():
        m = re.match(r"(\s*)(l_\w+): for \(", line)
        if m:
            indent = len(m.group(1))
            while stack and stack[-1][0] >= indent:
                stack.pop()
            parents[m.group(2)] = stack[-1][1] if stack else None
            stack.append((indent, m.group(2)))
    return parents


def body_lines(code: str, func: str) -> list:
    """Stripped lines of C++ function `func`'s body."""
    lines = code.splitlines()
    start = next(k for k, ln in enumerate(lines) if re.match(rf"void {func}\(", ln))
    end = lines.index("}", start)
    return [ln.strip() for ln in lines[start + 1:end]]


# ----------------------------------------------------------------------------- designs
@pytest.fixture(scope="module")
def tutorial():
    """The globals of tutorials/02_schedules.py after running it: `s` is its HLS gemm schedule,
    `hls` the module built from it, `A`, `B` its inputs."""
    with contextlib.redirect_stdout(io.StringIO()):
        return runpy.run_path(str(ROOT / "tutorials" / "02_schedules.py"), run_name="tutorial_02")


def gemm(A: float32[16, 16], B: float32[16, 16]) -> float32[16, 16]:
    C: float32[16, 16] = 0.0
    for i, j in allo.grid(16, 16):
        for k in allo.reduction(16):
            C[i, j] += A[i, k] * B[k, j]
    return C


def pipelined_gemm():
    """The textbook HLS gemm: j pipelined (k, inside it, unrolled by the tool); A's rows and B's
    columns completely partitioned so that all k products read in one cycle."""
    s = allo.customize(gemm)
    s.pipeline("j")
    s.partition(s.A, allo.Partition.Complete, dim=2)
    s.partition(s.B, allo.Partition.Complete, dim=1)
    return s


# ----------------------------------------------------------------------------- tutorial 02 gemm
def test_tutorial_gemm_golden(tutorial):
    code = tutorial["hls"].hls_code
    assert tutorial["s"].build(target="vhls").hls_code == code  # deterministic
    check_golden("gemm_tutorial02.cpp", code)


def test_tutorial_gemm_pragmas_sit_in_the_right_loops(tutorial):
    code = tutorial["hls"].hls_code
    assert "void gemm(float A[32][32], float B[32][32], float C[32][32]) {" in code
    assert loop_pragmas(code) == {"l_j_init": [PIPE], "l_j_outer": [PIPE], "l_j_inner": ["#pragma HLS unroll"],
                                  "l_j_back": [PIPE]}
    assert loop_parents(code) == {"l_i": None, "l_j_init": "l_i", "l_k": "l_i", "l_j_outer": "l_k",
                                  "l_j_inner": "l_j_outer", "l_j_back": "l_i"}
    lines = body_lines(code, "gemm")
    outer = lines.index("l_j_outer: for (int j_outer = 0; j_outer < 8; j_outer++) {")
    assert lines[outer + 1:outer + 4] == [PIPE, "l_j_inner: for (int j_inner = 0; j_inner < 4; j_inner++) {",
                                          "#pragma HLS unroll"]
    assert partition_pragmas(code) == ["#pragma HLS array_partition variable=B cyclic factor=4 dim=2",
                                       "#pragma HLS array_partition variable=C_buf cyclic factor=4 dim=1"]
    assert lines[0] == "#pragma HLS array_partition variable=B cyclic factor=4 dim=2"  # an argument: at the top
    row = lines.index("float C_buf[32];")  # a local: right after its declaration
    assert lines[row + 1] == "#pragma HLS array_partition variable=C_buf cyclic factor=4 dim=1"


def test_tutorial_gemm_csim_matches_llvm(tutorial, tmp_path):
    s, A, B = tutorial["s"], tutorial["A"], tutorial["B"]
    hls = s.build(target="vhls", mode="csim", project=str(tmp_path / "gemm"))
    got = hls(A, B)
    assert_same_results(got, s.build()(A, B), what="tutorial gemm")
    np.testing.assert_allclose(got, A @ B, rtol=1e-5, atol=1e-5)


# ----------------------------------------------------------------------------- pipelined gemm
def test_pipelined_gemm_golden_and_pragmas(tmp_path):
    s = pipelined_gemm()
    code = s.build(target="vhls").hls_code
    check_golden("gemm_pipeline_j.cpp", code)
    lines = body_lines(code, "gemm")
    j = lines.index("l_j: for (int j = 0; j < 16; j++) {")
    assert lines[j + 1] == PIPE  # directly inside l_j, before anything else
    assert lines[j + 2] == "l_k: for (int k = 0; k < 16; k++) {"
    assert loop_pragmas(code) == {"l_j": [PIPE]}
    assert loop_parents(code) == {"l_i": None, "l_j": "l_i", "l_k": "l_j"}
    assert lines[:2] == ["#pragma HLS array_partition variable=A complete dim=2",
                         "#pragma HLS array_partition variable=B complete dim=1"]
    rng = np.random.default_rng(1)
    A, B = (rng.uniform(-1, 1, (16, 16)).astype(np.float32) for _ in range(2))
    got = s.build(target="vhls", mode="csim", project=str(tmp_path / "gemm"))(A, B)
    assert_same_results(got, s.build()(A, B), what="pipelined gemm")


# ----------------------------------------------------------------------------- compiler flags
def test_csim_compiles_with_the_werror_flag_set():
    assert set(WERROR) <= set(CXX_FLAGS), f"csim flags {CXX_FLAGS} lack some of {WERROR}"


@pytest.mark.parametrize("golden", ["gemm_tutorial02.cpp", "gemm_pipeline_j.cpp"])
def test_golden_cpp_compiles_with_werror(golden, tmp_path):
    """The golden files themselves (what a user hands to Vitis HLS) pass -Wall -Werror."""
    project = pipelined_gemm().build(target="vhls", project=str(tmp_path / "prj")).project  # brings allo_ap.h
    r = subprocess.run(["g++", *WERROR, "-fsyntax-only", "-I", str(project), str(GOLDEN / golden)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
