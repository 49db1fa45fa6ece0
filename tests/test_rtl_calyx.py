"""The Calyx route end to end: allo -> scf -> CIRCT's calyx dialect -> allo's stand-ins -> FSM ->
SystemVerilog, simulated with Verilator and compared bit for bit with the LLVM build; the native
`.futil` text of the same designs read back structurally; allo's own rewrites before the handover
(if-conversion) checked on the LLVM JIT. The stand-ins themselves: test_rtl_calyx_standins.py.
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
from allo.ir.types import float32, int8, int16, int32
from tests.polybench.int_kernels import INT_KERNELS
from tests.rtl_util import FULL, assert_bit_exact, calyx_well_formed, futil_structure, needs_rtl
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


def test_calyx_refuses_a_while_reading_an_array_with_the_line():
    with pytest.raises(allo.BackendError) as e:
        allo.customize(scan).build(target="calyx")
    line = scan.__code__.co_firstlineno + 2
    assert f"test_rtl_calyx.py:{line}" in str(e.value) and "while" in str(e.value) and "'A'" in str(e.value)


def test_calyx_refuses_floats_with_the_line():
    with pytest.raises(allo.BackendError) as e:
        allo.customize(fscale).build(target="calyx")
    assert f"test_rtl_calyx.py:{fscale.__code__.co_firstlineno}" in str(e.value) and "floating-point" in str(e.value)


def test_calyx_float_op_inside_an_int_kernel_is_named_with_its_line():
    """Integer arguments, one float operation in the body: the error names that operation, its line
    and the Calyx route (not the handshake lowering), and says where floats do build."""
    with pytest.raises(allo.BackendError) as e:
        allo.customize(int_via_float).build(target="calyx")
    msg = str(e.value)
    assert f"test_rtl_calyx.py:{int_via_float.__code__.co_firstlineno + 3}" in msg, msg
    assert "Calyx route" in msg and "cast from float32 to int32" in msg and "handshake" not in msg, msg
    assert "'rtl'" in msg, msg


def test_calyx_write(tmp_path):
    cx = allo.customize(branches).build(target="calyx")
    d = cx.write(tmp_path / "cx")
    assert (d / "branches.calyx.mlir").read_text() == cx.calyx
    assert (d / "branches.futil").read_text() == cx.futil
    assert (d / "branches.sv").read_text() == cx.verilog
    assert "scf.while" in (d / "branches.mlir").read_text()
    assert "calyx.comb_group" not in (d / "branches.fixed.calyx.mlir").read_text()
    for f in ("glue.cpp", "allo_calyx_driver.cpp", "allo_calyx.h", "build.sh", "README.md"):
        assert (d / f).exists(), f
    assert "ext_mem0_addr0" in (d / "README.md").read_text()


def test_mixed_prepared_function_matches_kernel():
    """Inlined calls, a constant table as a memory argument, tuple results as output arguments."""
    s = allo.customize(mixed)
    args = _mixed_args()
    want = s.build()(*args)
    got = run_prepared_on_llvm(s, args, convert_ifs=False)  # arrays first, then the scalar
    assert_bit_exact(tuple(got), tuple(want), "mixed")


# ---------------------------------------------------------------------------- simulated route
def vadd(A: int32[8], B: int32[8]) -> int32[8]:
    C: int32[8] = 0
    for i in range(8):
        C[i] = A[i] + B[i]
    return C


def dot(A: int32[8], B: int32[8]) -> int32:
    acc: int32 = 0
    for i in range(8):
        acc += A[i] * B[i]
    return acc


def mm(A: int16[4, 4], B: int16[4, 4]) -> int32[4, 4]:
    C: int32[4, 4] = 0
    for i in range(4):
        for j in range(4):
            for k in range(4):
                C[i, j] += A[i, k] * B[k, j]
    return C


def collatz(A: int32[8], n: int32) -> (int32, int32):
    k: int32 = 0
    s: int32 = 0
    while k < n:
        if A[k] > s:
            s = s + A[k]
        else:
            s = s - 1
        k += 1
    steps: int32 = 0
    x: int32 = s if s > 0 else 1 - s
    while x != 1:
        x = x // 2 if x % 2 == 0 else 3 * x + 1
        steps += 1
    return s, steps


def scan(A: int32[8]) -> int32:
    k: int32 = 0
    while A[k] > 0:
        k += 1
    return k


def fscale(A: float32[4]) -> float32[4]:
    B: float32[4] = 0.0
    for i in range(4):
        B[i] = A[i] * 2.0
    return B


def int_via_float(A: int32[4]) -> int32[4]:
    B: int32[4] = 0
    for i in range(4):
        B[i] = int(float(A[i]) * 1.5)
    return B


def _rng_i32(lo, hi, n):
    return lambda r: r.integers(lo, hi, n).astype(np.int32)


ROUTE = [
    ("vadd", vadd, lambda r: [_rng_i32(-50, 50, 8)(r), _rng_i32(-50, 50, 8)(r)]),
    ("dot", dot, lambda r: [_rng_i32(-50, 50, 8)(r), _rng_i32(-50, 50, 8)(r)]),
    ("mm", mm, lambda r: [r.integers(-20, 20, (4, 4)).astype(np.int16), r.integers(-20, 20, (4, 4)).astype(np.int16)]),
    ("branches", branches, lambda r: [r.integers(-5, 5, 8).astype(np.int32), r.integers(-5, 5, 8).astype(np.int32), 3]),
    ("collatz", collatz, lambda r: [_rng_i32(-9, 9, 8)(r), 6]),
    ("mixed", mixed, lambda r: _mixed_args()),
]
CI_POLYBENCH = ("gemm", "atax", "jacobi-2d", "floyd-warshall")
POLY = [(c.name, c.kernel, c.make_inputs) for c in INT_KERNELS]


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def check_calyx_route(kernel, args):
    """The Calyx build of `kernel` == its LLVM build on `args` (results and updated arguments)."""
    s = allo.customize(kernel)
    cx = s.build(target="calyx")
    got_args, want_args = _copies(args), _copies(args)
    got, want = cx(*got_args), s.build()(*want_args)
    if want is not None:
        assert_bit_exact(got, want, kernel.__name__)
    for g, w in zip(got_args, want_args):
        if isinstance(g, np.ndarray):
            np.testing.assert_array_equal(g, w, err_msg=f"{kernel.__name__}: argument updated in place")
    assert isinstance(cx.cycles, int) and cx.cycles > 0
    check_futil_runs_like_llvm(cx, args, want_args, want, kernel.__name__)
    return cx


def check_futil_runs_like_llvm(cx, args, want_args, want, what):
    """The native `.futil` text, run on allo's Calyx interpreter, computes what LLVM computes."""
    fut_args = _copies(args)
    got = cx.interpret(*fut_args)
    if want is not None:
        assert_bit_exact(got, want, f"{what} (.futil interpreted)")
    for g, w in zip(fut_args, want_args):
        if isinstance(g, np.ndarray):
            np.testing.assert_array_equal(g, w, err_msg=f"{what} (.futil): argument updated in place")
    assert cx.interpret_cycles > 0


@pytest.mark.parametrize("name, kernel, make", ROUTE + [p for p in POLY if p[0] in CI_POLYBENCH],
                         ids=[r[0] for r in ROUTE] + list(CI_POLYBENCH))
def test_calyx_route_equals_llvm(name, kernel, make):
    cx = check_calyx_route(kernel, make(np.random.default_rng(1)))
    top = cx.hw.func.name
    calyx_well_formed(cx, top)
    fut = futil_structure(cx.futil)["main"]
    assert fut["groups"] and fut["control"] and fut["cells"]
    assert sum(1 for c in fut["cells"].values() if c == "comb_mem_d1") == len(cx.interface.memories)
    assert "calyx.par" not in cx.calyx_fixed and "with @" not in cx.calyx_fixed  # the stand-ins ran


@pytest.mark.skipif(not FULL, reason="every integer PolyBench kernel through Calyx; set ALLO_RTL_FULL=1")
@pytest.mark.parametrize("name, kernel, make", [p for p in POLY if p[0] not in CI_POLYBENCH],
                         ids=[p[0] for p in POLY if p[0] not in CI_POLYBENCH])
def test_calyx_route_equals_llvm_full(name, kernel, make):
    check_calyx_route(kernel, make(np.random.default_rng(2)))


def test_calyx_cycles_follow_the_data():
    """A `while` that runs longer on other data takes more cycles; the same call, the same count."""
    cx = allo.customize(collatz).build(target="calyx")
    a = np.arange(8, dtype=np.int32)
    cx(a, 1)
    short = cx.cycles
    cx(a, 8)
    longer = cx.cycles
    cx(a, 1)
    assert cx.cycles == short < longer


def test_scalars_are_registers_not_memories():
    """The accumulator of dot is a loop-carried register: no memory cell, no read/write group per
    iteration (the loop body is two loads, a multiply and the latch)."""
    cx = allo.customize(dot).build(target="calyx")
    comp = cx.summary()["dot"]
    assert not {"seq_mem", "memory"} & set(comp["cells"])
    assert len(cx.interface.memories) == 2


def scale5(A: int8[8], B: int32[2, 5]) -> int32[8]:
    C: int32[8] = 0
    for i in range(8):
        C[i] = A[i] * 5 + A[i] * 2 + B[i % 2, i % 5] * 7
    return C


def test_constant_multiplies_are_shifts_and_adds():
    """x * 5, x * 2, x * 7 and the address arithmetic of B[i % 2, i % 5] need no multiplier group:
    results (wrapping int8 included) == LLVM, no std_mult_pipe cell."""
    s = allo.customize(scale5)
    cx = s.build(target="calyx")
    rng = np.random.default_rng(5)
    a = rng.integers(-128, 128, 8).astype(np.int8)
    b = rng.integers(-2**31, 2**31, (2, 5)).astype(np.int32)
    want = s.build()(a.copy(), b.copy())
    assert_bit_exact(cx(a.copy(), b.copy()), want, "scale5")
    assert_bit_exact(cx.interpret(a.copy(), b.copy()), want, "scale5 (.futil)")
    assert "std_mult_pipe" not in cx.calyx
