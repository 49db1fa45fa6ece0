"""The Calyx route's own transformations, checked numerically, and its structure.

Calyx is not simulated (the Calyx-to-Verilog passes are not in the pip wheel), so what allo does
before handing the kernel to `lower-scf-to-calyx` (inline, flatten, outputs as arguments,
if-conversion) is executed on the LLVM JIT instead: the prepared function must compute exactly
what the kernel computes.
"""
from __future__ import annotations

import numpy as np
import pytest

import allo
from allo.backend.llvm.module import build_llvm
from allo.backend.rtl.ifconv import if_convert
from allo.backend.rtl.prepare import prepare_for_hw
from allo.ir import nodes as N
from allo.ir import visit as V
from allo.ir.types import int16, int32
from tests.rtl_util import assert_bit_exact, calyx_well_formed, needs_rtl
from tests.test_rtl_flow import TABLE, _mixed_args, in_place, int5, mixed, scale

pytestmark = needs_rtl


def branches(A: int32[8], B: int32[8], n: int16) -> int32[8]:
    C: int32[8] = 0
    for i in range(8):
        if A[i] > B[i]:
            C[i] = A[i] - B[i]
            if C[i] > n:
                C[i] = n
        elif A[i] == 0:
            C[i] = B[i] if B[i] > 0 else -B[i]
        else:
            C[i] = A[i] * 2
            A[i] = 0
    k: int32 = 0
    if n > 2:
        for j in range(4):
            C[j] += j
            k += 3
    C[7] = k
    return C


def run_prepared_on_llvm(s, args, convert_ifs=True):
    """Run the function that the Calyx route hands to CIRCT on the LLVM JIT; returns the kernel's
    results (updated arguments are written back like a normal call)."""
    hw = prepare_for_hw(s.ir.clone(), "Calyx")
    if convert_ifs:
        if_convert(hw.func)
    params = list(hw.func.params)  # the build may add a hidden status parameter (allo.transforms.guards)
    mod = build_llvm(N.Module([hw.func], hw.func.name))
    plan_outs = [rt for rt in hw.original.result_types]
    call, out_arrays = [], []
    for k, p in enumerate(params):
        if k < len(args):
            a = args[k]
            call.append(a.reshape(p.shape) if isinstance(a, np.ndarray) else a)
        elif k in hw.outputs:
            rt = plan_outs[[i for i, t in enumerate(plan_outs) if hasattr(t, "shape")][hw.outputs.index(k)]]
            out = np.zeros(p.shape, dtype=rt.dtype.np_dtype)
            out_arrays.append((out, rt.shape))
            call.append(out)
        else:
            data = dict(hw.hidden)[k]
            call.append(data.view(p.dtype.np_dtype).reshape(p.shape))
    scalars = mod(*call)
    results = [o.reshape(shape) for o, shape in out_arrays]
    if scalars is not None:
        results += list(scalars) if isinstance(scalars, tuple) else [scalars]
    return results


@pytest.mark.parametrize("kernel, make", [
    (branches, lambda r: [r.integers(-5, 5, 8).astype(np.int32), r.integers(-5, 5, 8).astype(np.int32), 3]),
    (in_place, lambda r: [np.arange(-3, 3, dtype=np.int32), np.array([1, 0, 1, 1, 0, 1], np.bool_), 7]),
])
def test_if_conversion_computes_what_the_kernel_computes(kernel, make):
    for seed in range(3):
        args = make(np.random.default_rng(seed))
        s = allo.customize(kernel)
        want_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        want = s.build()(*want_args)
        got_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        got = run_prepared_on_llvm(s, got_args)
        want_list = [] if want is None else (list(want) if isinstance(want, tuple) else [want])
        for g, w in zip(got, want_list):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
        for g, w in zip(got_args, want_args):  # in-place updates agree too
            if isinstance(g, np.ndarray):
                np.testing.assert_array_equal(g, w)


def test_if_conversion_leaves_no_if():
    s = allo.customize(branches)
    hw = prepare_for_hw(s.ir.clone(), "Calyx")
    if_convert(hw.func)
    assert not any(isinstance(x, N.If) for x in V.walk_stmts(hw.func.body))


def test_calyx_of_kernel_with_branches_calls_and_constants():
    for kernel in (branches, calls_and_table):
        cx = allo.customize(kernel).build(target="calyx")
        comp = calyx_well_formed(cx, kernel.__name__)
        assert "scf.if" not in cx.mlir
        assert comp["cells"].get("register", 0) >= 1
        assert str(cx) == cx.calyx and "calyx.entrypoint" in cx.calyx


def calls_and_table(x: int5[8], k: int16) -> int32[8]:
    y = scale(x, k)
    z: int32[8] = 0
    for i in range(8):
        z[i] = y[i] + TABLE[i]
    return z


def test_calyx_refuses_while_with_the_line():
    with pytest.raises(allo.BackendError) as e:
        allo.customize(mixed).build(target="calyx")
    line = mixed.__code__.co_firstlineno + 14
    assert f"test_rtl_flow.py:{line}" in str(e.value) and "while" in str(e.value)


def test_calyx_write(tmp_path):
    cx = allo.customize(branches).build(target="calyx")
    d = cx.write(tmp_path / "cx")
    assert (d / "branches.calyx.mlir").read_text() == cx.calyx
    assert "scf.while" in (d / "branches.mlir").read_text()


def test_mixed_prepared_function_matches_kernel():
    """Inlined calls, a constant table as a memory argument, tuple results as output arguments."""
    s = allo.customize(mixed)
    args = _mixed_args()
    want = s.build()(*args)
    got = run_prepared_on_llvm(s, args, convert_ifs=False)  # arrays first, then the scalar
    assert_bit_exact(tuple(got), tuple(want), "mixed")
