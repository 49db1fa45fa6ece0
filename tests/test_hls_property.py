"""Random schedules through the public API: the HLS C simulation equals the LLVM build, and the
pragmas of the C++ sit in the loops that the schedule marked.

Hypothesis draws up to six primitives (split with non-divisors, reorder, fuse, unroll, pipeline,
buffer_at, partition, reuse_at), with the step generator of tests/test_schedule_property.py, on
gemms in int32, float32 and Fixed(12, 4) and on an int32 3x3 convolution stencil. Steps that
cannot apply raise AlloError and are skipped. For what was applied: csim == LLVM (integers and
fixed point bit for bit, floats within 1e-5 relative); the labelled loops of the C++, in program
order, carry exactly the pipeline/unroll/dataflow attributes that the printed MLIR (`s.module`)
carries on the same loops; the array_partition pragmas are exactly the MLIR partition attributes.
Few examples per kernel: every example compiles C++ with g++ (~0.3 s).
"""
from __future__ import annotations

import re
import shutil
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import allo
from tests.test_hls_csim_polybench import assert_same_results
from allo.ir.types import Fixed
from tests.test_schedule_property import CASES as _CASES
from tests.test_schedule_property import Case, _draw_step

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed for HLS C simulation")

FX = Fixed(12, 4)


def gemm_fx(A: FX[5, 6], B: FX[6, 4]) -> FX[5, 4]:
    C: FX[5, 4] = 0
    for i, j in allo.grid(5, 4):
        for k in allo.reduction(6):
            C[i, j] += A[i, k] * B[k, j]
    return C


CASES = {**_CASES, "gemm_fx": Case(gemm_fx, lambda r: [r.uniform(-4, 4, (5, 6)), r.uniform(-4, 4, (6, 4))],
                                   ["A", "B", "C"])}
# conv_i: B[y, x] += A[y + r, x + c] * W[r, c] over a 3x3 window; gemm_fx wraps and floors in Fixed(12, 4)
KERNELS = {"gemm_i": True, "gemm_f": False, "gemm_fx": True, "conv_i": True}  # name -> bit-exact


# ----------------------------------------------------------------------------- MLIR vs C++ loops
def mlir_loops(text: str) -> list:
    """[(loop_name, [pragmas its attributes ask for])] for every named loop of the printed
    MLIR, in program (pre-)order. Loop attributes are printed after the loop's closing brace,
    so blocks are tracked with a stack."""
    loops, stack = [], []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("}"):
            slot = stack.pop()
            if slot is not None:
                m = re.search(r'loop_name = "([^"]+)"', s)
                if m:
                    attrs = dict(re.findall(r"\b(pipeline_ii|unroll) = (\d+)", s))
                    pragmas = []
                    if "pipeline_ii" in attrs:
                        pragmas.append(f"#pragma HLS pipeline II={attrs['pipeline_ii']}")
                    if "unroll" in attrs:
                        n = int(attrs["unroll"])
                        pragmas.append("#pragma HLS unroll" if n == 0 else f"#pragma HLS unroll factor={n}")
                    if re.search(r"[{,]\s*dataflow\s*[,}]", s):
                        pragmas.append("#pragma HLS dataflow")
                    loops[slot] = (m.group(1), pragmas)
        if s.endswith("{"):
            is_loop = re.match(r"(affine|scf)\.for\b", s) is not None
            stack.append(len(loops) if is_loop else None)
            if is_loop:
                loops.append(None)
    assert not stack, "unbalanced braces in the printed MLIR"
    return [lp for lp in loops if lp is not None]


def cpp_loops(code: str) -> list:
    """[(label, [pragma lines at the top of its body])] for every labelled loop, in order."""
    lines = code.splitlines()
    out = []
    for k, line in enumerate(lines):
        m = re.match(r"\s*(l_\w+): for \(", line)
        if m:
            pragmas = []
            for nxt in lines[k + 1:]:
                if not nxt.strip().startswith("#pragma HLS"):
                    break
                pragmas.append(nxt.strip())
            out.append((m.group(1), pragmas))
    return out


def mlir_partitions(text: str) -> Counter:
    """(buffer, kind, dim, factor) of every partition attribute: on allocs and on the function."""
    out = Counter()
    entries = re.findall(r'name = "(\w+)", partition = \[([^\]]*)\]', text)
    for group in re.findall(r"partition = \{([^}]*)\}", text):
        entries += re.findall(r"(\w+) = \[([^\]]*)\]", group)
    for name, items in entries:
        for item in re.findall(r'"(\w+):(\d+):(\d+)"', items):
            out[(name, item[0], int(item[1]), int(item[2]))] += 1
    return out


def cpp_partitions(code: str) -> Counter:
    out = Counter()
    for var, kind, factor, dim in re.findall(
            r"#pragma HLS array_partition variable=(\w+) (\w+)(?: factor=(\d+))? dim=(\d+)", code):
        out[(var, kind, int(dim), int(factor or 0))] += 1
    return out


def assert_pragmas_follow_the_mlir(s, code: str):
    text = str(s.module)
    mlir, cpp = mlir_loops(text), cpp_loops(code)
    assert len(cpp) == len(mlir), f"C++ labels {[c[0] for c in cpp]} vs MLIR loops {[m[0] for m in mlir]}"
    for (name, want), (label, got) in zip(mlir, cpp):
        base = "l_" + re.sub(r"[^0-9A-Za-z_]", "_", name)
        assert label == base or re.fullmatch(re.escape(base) + r"_\d+", label), f"loop {name!r} labelled {label}"
        assert got == want, f"pragmas of {label} (loop {name!r}): {got}, MLIR says {want}"
    assert cpp_partitions(code) == mlir_partitions(text)
    func_dataflow = len(re.findall(r"func\.func .*attributes \{[^}]*\bdataflow\b", text))
    assert code.count("#pragma HLS") == sum(len(p) for _, p in cpp) + sum(cpp_partitions(code).values()) + func_dataflow


def test_pragma_readers_on_a_known_schedule():
    """The helpers above see what they should (so the property cannot pass vacuously)."""
    s = allo.customize(CASES["gemm_i"].kernel)
    s.split("j", 2)
    s.pipeline("k", 2)
    s.unroll("j.inner", 0)
    s.partition(s.A, allo.Partition.Cyclic, dim=2, factor=3)
    row = s.buffer_at(s.C, "i")
    s.partition(row, allo.Partition.Complete, dim=1)
    s.dataflow("i")
    code = s.build(target="vhls").hls_code
    names = ["i", "C_buf_d0_init", "j.outer", "j.inner", "k", "C_buf_d0_back"]
    assert [lp[0] for lp in mlir_loops(str(s.module))] == names
    assert [lp[0] for lp in cpp_loops(code)] == ["l_" + n.replace(".", "_") for n in names]
    loops = dict(mlir_loops(str(s.module)))
    assert loops["k"] == ["#pragma HLS pipeline II=2"] and loops["j.inner"] == ["#pragma HLS unroll"]
    assert dict(cpp_loops(code))["l_k"] == ["#pragma HLS pipeline II=2"]
    assert loops["i"] == dict(cpp_loops(code))["l_i"] == ["#pragma HLS dataflow"]
    assert mlir_partitions(str(s.module)) == Counter({("A", "cyclic", 2, 3): 1, ("C_buf", "complete", 1, 0): 1})
    assert_pragmas_follow_the_mlir(s, code)


# ----------------------------------------------------------------------------- the property
def _run(case, mod):
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in case.inputs]
    out = mod(*args)
    return tuple(args[i] for i in case.outputs) if case.outputs else (out,)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
@pytest.mark.parametrize("name", KERNELS)
def test_random_schedules_csim_matches_llvm(name, data):
    case = CASES[name]
    s = allo.customize(case.kernel)
    buffers = list(case.buffers)
    for _ in range(data.draw(st.integers(1, 6))):
        prim, args = _draw_step(data, s, buffers)
        try:
            out = getattr(s, prim)(*args)
        except allo.AlloError:
            continue
        if prim in ("buffer_at", "reuse_at"):
            buffers.append(out)
    want = _run(case, s.build())
    hls = s.build(target="vhls", mode="csim")  # a temporary project, removed with the module
    assert_same_results(_run(case, hls), want, exact=KERNELS[name], what=f"{name} after {s}")
    assert_pragmas_follow_the_mlir(s, hls.hls_code)
