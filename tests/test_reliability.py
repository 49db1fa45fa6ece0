"""No silent wrong answer, crash, hang or leak under bad input (LLVM side; csim side in
test_reliability_csim.py): indices, uninitialised locals, integer powers, read-only outputs,
schedule misuse, interrupts, pickling, engine lifetime and error messages."""
import gc
import inspect
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import allo
from allo.interp import run
from allo.ir.types import float32, int32
from allo.transforms import guards

from . import kernels_unsafe as ku

RNG = np.random.default_rng(11)


def line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return next(first + k for k, line in enumerate(lines) if text in line)


def assert_located(err, fn, text):
    msg = str(err)
    assert f"kernels_unsafe.py:{line_of(fn, text)}:" in msg, msg
    assert text.strip() in msg, msg


# ----------------------------------------------------------------------------- item 4: constant and affine indices
def test_negative_constant_indices_follow_python():
    A = np.arange(8, dtype=np.float32)
    assert allo.customize(ku.last_element).build()(A) == 7.0
    B = np.zeros(8, np.float32)
    assert allo.customize(ku.store_last).build()(A, B) is None
    np.testing.assert_array_equal(B, [0, 0, 0, 0, 0, 0, 0.0, 99.0])
    assert run(allo.customize(ku.last_element).ir, A) == 7.0


@pytest.mark.parametrize("fn,text,value", [
    (ku.shifted_store, "B[i - 4] = A[i]", "is -4 at i = 0"),
    (ku.reads_past_end, "Y[i] = X[i + 1]", "is 16 at i = 15"),
    (ku.far_constant_store, "A[1000000] = 1.0", "is 1000000"),
    (ku.strided_past_end, "B[i] = A[3 * i]", "is 9 at i = 3"),
])
def test_out_of_bounds_affine_access_is_a_build_error_at_the_line(fn, text, value):
    with pytest.raises(allo.BoundsError) as info:
        allo.customize(fn)
    assert_located(info.value, fn, text)
    assert value in str(info.value) and isinstance(info.value, IndexError)


def test_guarded_and_strided_accesses_in_range_are_accepted():
    X = RNG.random(16, dtype=np.float32)
    np.testing.assert_array_equal(allo.customize(ku.guarded_shift).build()(X), np.r_[X[1:], X[:1]])
    A = RNG.random(8, dtype=np.float32)
    np.testing.assert_array_equal(allo.customize(ku.strided_read).build()(A), A[1::2])


# ----------------------------------------------------------------------------- item 7 / issue 10: bounds_check
def test_bounds_check_histogram_names_array_index_and_line():
    mod = allo.customize(ku.histogram).build(bounds_check=True)
    np.testing.assert_array_equal(mod(np.arange(8, dtype=np.int32)), np.r_[np.ones(8), np.zeros(8)])
    with pytest.raises(allo.BoundsError) as info:
        mod(np.array([1, 2, 3, 1000, 4, 5, 6, 7], np.int32))
    assert_located(info.value, ku.histogram, "H[X[i]] += 1")
    assert "index 1000" in str(info.value) and "'H'" in str(info.value)


@pytest.mark.parametrize("bad", [-1, 10, 10**12])
def test_bounds_check_embedding_ids(bad):
    mod = allo.customize(ku.embedding).build(bounds_check=True)
    table = np.arange(40, dtype=np.float32).reshape(10, 4)
    np.testing.assert_array_equal(mod(table, np.array([0, 9, 3])), table[[0, 9, 3]])
    with pytest.raises(allo.BoundsError, match=f"index {bad} is out of bounds for dimension 0 of 'table'") as info:
        mod(table, np.array([0, bad, 3]))
    assert_located(info.value, ku.embedding, "out[l, d] = table[ids[l], d]")


def test_bounds_check_catches_a_dynamic_loop_bound_and_protects_memory():
    A = np.ones(8, np.float32)
    mod = allo.customize(ku.dynamic_bound).build(bounds_check=True)
    assert mod(A, 8) == 8.0
    with pytest.raises(allo.BoundsError, match="index 8 is out of bounds for 'A'"):
        mod(A, 10**6)
    guard = np.full(16, 7.0, np.float32)
    window = guard[4:12]  # the kernel may only write these 8 elements
    store = allo.customize(ku.dynamic_store).build(bounds_check=True)
    with pytest.raises(allo.BoundsError):
        store(window, 12)
    np.testing.assert_array_equal(guard, np.r_[np.full(4, 7.0), np.ones(8), np.full(4, 7.0)])


def test_bounds_check_does_not_fire_on_a_guarded_select():
    mod = allo.customize(ku.guarded_gather).build(bounds_check=True)
    A = np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(mod(A, np.array([3, 9, -2, 7], np.int32)), [3.0, -1.0, -1.0, 7.0])


def test_bounds_check_is_reusable_for_one_function_and_in_the_interpreter():
    s = allo.customize(ku.histogram)
    info = guards.instrument(s.ir, bounds_check=False)  # nothing to check: no hidden argument
    assert not info.status
    s = allo.customize(ku.histogram)
    guards.require_bounds_check(s.ir.func("histogram"))  # what the frontend does for embeddings
    mod = s.build()
    assert mod.bounds_check is False
    with pytest.raises(allo.BoundsError, match="index 99"):
        mod(np.full(8, 99, np.int32))
    ir = allo.customize(ku.histogram).ir.clone()
    info = guards.instrument(ir, bounds_check=True)
    status = info.new_status()
    run(ir, np.full(8, -3, np.int32), status)
    with pytest.raises(allo.BoundsError, match="index -3"):
        info.raise_if_failed(status)


# ----------------------------------------------------------------------------- item 8: uninitialised locals
def test_uninitialised_locals_start_at_zero_everywhere():
    A = RNG.random(8, dtype=np.float32)
    for _ in range(3):  # deterministic, not heap garbage
        np.testing.assert_array_equal(allo.customize(ku.uninitialised).build()(A), A)
    np.testing.assert_array_equal(run(allo.customize(ku.uninitialised).ir, A), A)
    v = np.array([1, 2, 3, 4], np.int32)
    assert allo.customize(ku.uninitialised_scalar).build()(v) == 10


def test_zero_init_is_only_added_where_needed():
    from allo.ir import nodes as N
    from allo.ir import visit as V

    for fn, want in ((ku.written_first, [None, None]), (ku.uninitialised, [0.0])):
        ir = allo.customize(fn).ir.clone()
        guards.zero_init(ir)
        inits = [st.init for st in V.walk_stmts(ir.func(fn.__name__).body) if isinstance(st, N.Alloc)]
        assert [None if i is None else i.value for i in inits] == want
    code = allo.customize(ku.written_first).build(target="vhls").hls_code
    assert code.count("for (") == 1  # no fill loop added for B
    np.testing.assert_array_equal(allo.customize(ku.written_first).build()(np.ones(4, np.float32)), np.full(4, 2.0))


# ----------------------------------------------------------------------------- item 9: integer ** negative
def test_integer_power_with_negative_exponent_is_defined():
    A = np.array([1, -1, 2, 0, -3, 1, -1, 5], np.int32)
    mod = allo.customize(ku.int_pow).build()
    for e, want in [(-1, [1, -1, 0, 0, 0, 1, -1, 0]), (-2, [1, 1, 0, 0, 0, 1, 1, 0]), (3, A.astype(np.int64) ** 3)]:
        np.testing.assert_array_equal(mod(A, e), np.asarray(want, np.int32))
        np.testing.assert_array_equal(run(allo.customize(ku.int_pow).ir, A, e), np.asarray(want, np.int32))


# ----------------------------------------------------------------------------- item 5: read-only outputs
@pytest.mark.parametrize("make", [
    lambda: _readonly(np.zeros(4, np.float32)),
    lambda: np.frombuffer(bytes(16), np.float32),
])
def test_read_only_output_is_refused_before_running(make):
    A = make()
    before = A.copy()
    with pytest.raises(allo.AlloTypeError, match="read-only"):
        allo.customize(ku.inplace).build()(A)
    np.testing.assert_array_equal(A, before)
    # read-only *inputs* are fine
    np.testing.assert_array_equal(allo.customize(ku.scale).build()(_readonly(np.ones(4, np.float32))), np.full(4, 2.0))


def test_read_only_memmap_output_is_refused(tmp_path):
    path = tmp_path / "a.bin"
    np.zeros(4, np.float32).tofile(path)
    A = np.memmap(path, dtype=np.float32, mode="r", shape=(4,))
    with pytest.raises(allo.AlloTypeError, match="read-only"):
        allo.customize(ku.inplace).build()(A)


def _readonly(a):
    a.setflags(write=False)
    return a


# ----------------------------------------------------------------------------- items 2, 11: schedules
def prefix_sum(A: int32[8]) -> int32[8]:
    B: int32[8] = 0
    for i in range(8):
        B[i] = A[i]
    for k in range(1, 8):
        B[k] = B[k] + B[k - 1]
    return B


def strided(B: int32[10, 20]):
    for i in range(8):
        for j in range(8):
            B[i + 1, 2 * j] = B[i, 2 * j + 2]


def permuted(B: int32[8, 8], P: int32[8]):
    for i in range(8):
        for j in range(8):
            B[i, P[j]] = B[i, j] + 1


def carried_scalar(A: int32[4, 4]) -> int32[4, 4]:
    B: int32[4, 4] = 0
    acc: int32 = 0
    for i in range(4):
        for j in range(4):
            acc = acc * 3 + A[i, j]
            B[i, j] = acc
    return B


@pytest.mark.parametrize("kernel,prep,order,reason", [
    (prefix_sum, [("split", ("k", 2))], ("k.inner", "k.outer"), "reverses a dependence on 'B'"),
    (strided, [], ("j", "i"), "reverses a dependence on 'B' (distance (i: 1, j: -1))"),
    (permuted, [], ("j", "i"), "cannot be checked: an index of 'B' is not affine in the loops (P[j])"),
    (carried_scalar, [], ("j", "i"), "changes the order of the updates of each element of 'acc'"),
])
def test_reorder_refuses_what_it_cannot_prove(kernel, prep, order, reason):
    s = allo.customize(kernel)
    for prim, args in prep:
        getattr(s, prim)(*args)
    before, steps = str(s.module), list(s.steps)
    with pytest.raises(allo.ScheduleError) as info:
        s.reorder(*order)
    assert reason in str(info.value)
    assert str(s.module) == before and s.steps == steps


def gemm_int(A: int32[8, 8], B: int32[8, 8]) -> int32[8, 8]:
    C: int32[8, 8] = 0
    for i, j in allo.grid(8, 8):
        for k in allo.reduction(8):
            C[i, j] += A[i, k] * B[k, j]
    return C


def test_legal_reorders_still_apply_and_keep_results():
    s = allo.customize(gemm_int)
    s.split("i", 4)
    s.reorder("k", "j")
    s.reorder("i.inner", "k")
    A, B = RNG.integers(-9, 9, (8, 8)).astype(np.int32), RNG.integers(-9, 9, (8, 8)).astype(np.int32)
    np.testing.assert_array_equal(s.build()(A, B), A @ B)


@pytest.mark.parametrize("call,match", [
    (lambda s: s.split("i", 2**40), "too large"),
    (lambda s: s.split("i", 2**63), "too large"),
    (lambda s: s.unroll("i", 2**63), "too large"),
    (lambda s: s.pipeline("i", 2**63), "too large"),
])
def test_huge_factors_are_refused_with_a_short_message(call, match):
    s = allo.customize(ku.scale)
    before = str(s.module)
    with pytest.raises(allo.ScheduleError, match=match) as info:
        call(s)
    assert len(str(info.value)) < 200 and str(s.module) == before


def test_split_factor_larger_than_the_extent_is_clamped():
    s = allo.customize(ku.scale)
    s.split("i", 2**31 - 1)
    t = time.perf_counter()
    np.testing.assert_array_equal(s.build()(np.ones(4, np.float32)), np.full(4, 2.0))
    assert time.perf_counter() - t < 30
    assert "2147483647" not in str(s.module)


# ----------------------------------------------------------------------------- item 10: allocation sizes
def test_local_larger_than_memory_is_refused_at_build():
    s = allo.customize(ku.huge_local)
    with pytest.raises(allo.BackendError, match="more than this machine's memory") as info:
        s.build()
    assert_located(info.value, ku.huge_local, "B: float32[1000000, 1000000] = 0.0")


# ----------------------------------------------------------------------------- item 12: Ctrl-C
def test_ctrl_c_interrupts_an_infinite_llvm_loop(tmp_path):
    script = tmp_path / "spin.py"
    script.write_text(textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {os.path.dirname(os.path.dirname(os.path.abspath(__file__)))!r})
        import numpy as np, allo
        from tests import kernels_unsafe as ku
        mod = allo.customize(ku.spin).build()
        assert mod.interruptible
        print("ready", flush=True)
        try:
            mod(5, np.zeros(4, np.int32))
        except KeyboardInterrupt:
            print("interrupted", flush=True)
        print(mod(0, np.zeros(4, np.int32)), flush=True)
    """))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert out.split() == ["interrupted", "0"]


def test_kernels_without_while_loops_are_not_interruptible():
    assert not allo.customize(ku.scale).build().interruptible


# ----------------------------------------------------------------------------- item 13: engine lifetime
def test_dropped_modules_release_their_engines_and_threads():
    def build(k):
        c = float(k)

        def kern(A: float32[4]) -> float32[4]:
            B: float32[4] = 0.0
            for i in range(4):
                B[i] = A[i] * c
            return B

        return allo.customize(kern).build()

    for k in range(12):  # fill the small cache of recent builds
        build(1000 + k)(np.ones(4, np.float32))
    gc.collect()
    threads = len(os.listdir("/proc/self/task"))
    for k in range(20):
        np.testing.assert_array_equal(build(k)(np.ones(4, np.float32)), np.full(4, float(k)))
    gc.collect()
    assert len(os.listdir("/proc/self/task")) <= threads
    kept = build(7)
    gc.collect()
    assert build(7)._compiled is kept._compiled  # a live module's engine is still reused


def test_dropped_imported_models_release_their_engines_and_threads():
    """from_pytorch leaked ~3.6 MB and 2 LLVM threads per import (the engine cache kept them)."""
    torch = pytest.importorskip("torch")

    def imported(k):
        torch.manual_seed(k)  # other weights: another build
        model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU()).eval()
        x = torch.rand(2, 4)
        mod = allo.frontend.from_pytorch(model, [x], verbose=False, threads=1)
        np.testing.assert_allclose(mod(x.numpy()), model(x).detach().numpy(), rtol=1e-5, atol=1e-6)

    for k in range(10):  # fill the small cache of recent builds
        imported(100 + k)
    gc.collect()
    threads = len(os.listdir("/proc/self/task"))
    for k in range(10):
        imported(k)
    gc.collect()
    assert len(os.listdir("/proc/self/task")) <= threads


# ----------------------------------------------------------------------------- item 15: pickling
def test_llvm_modules_pickle_and_rejit():
    for mod, args in [(allo.customize(ku.histogram).build(bounds_check=True), (np.arange(8, dtype=np.int32),)),
                      (allo.customize(gemm_int).build(), (np.eye(8, dtype=np.int32), np.eye(8, dtype=np.int32)))]:
        blob = pickle.dumps(mod)
        assert len(blob) < 200_000
        again = pickle.loads(blob)
        np.testing.assert_array_equal(again(*args), mod(*args))
    with pytest.raises(allo.BoundsError):
        pickle.loads(pickle.dumps(allo.customize(ku.histogram).build(bounds_check=True)))(np.full(8, 50, np.int32))


def test_llvm_module_runs_in_a_spawn_pool():
    import multiprocessing as mp

    mod = allo.customize(gemm_int).build()
    A = RNG.integers(-5, 5, (8, 8)).astype(np.int32)
    with mp.get_context("spawn").Pool(1) as pool:
        out = pool.apply(_call_module, (mod, A))
    np.testing.assert_array_equal(out, A @ A)


def _call_module(mod, A):
    return mod(A, A)


# ----------------------------------------------------------------------------- item 14: messages
def test_unknown_build_and_call_keywords_are_allo_errors():
    s = allo.customize(ku.scale)
    with pytest.raises(allo.AlloError, match="unknown option.*bogus.*bounds_check"):
        s.build(bogus=1)
    with pytest.raises(allo.AlloError, match="unknown option.*project"):
        s.build(project="somewhere")
    with pytest.raises(allo.AlloError, match="unknown option.*threads_per_core"):
        s.build(target="vhls", threads_per_core=2)
    with pytest.raises(allo.AlloTypeError, match="by position"):
        s.build()(A=np.ones(4, np.float32))
    with pytest.raises(allo.AlloError, match="unknown keyword"):
        allo.customize(ku.scale, instantate=[1])


def test_fixed_point_modulo_is_a_located_error():
    from allo.ir.types import Fixed

    FX = Fixed(16, 8)

    def fmod(A: FX[4]) -> FX[4]:
        B: FX[4] = 0.0
        for i in range(4):
            B[i] = A[i] % A[i]
        return B

    with pytest.raises(allo.AlloError, match="not defined on fixed-point") as info:
        allo.customize(fmod).build()
    assert "B[i] = A[i] % A[i]" in str(info.value) and "ModuleNotFoundError" not in str(info.value)


def test_bad_annotation_shapes_name_the_line(tmp_path):
    src = tmp_path / "bad_shapes.py"
    src.write_text("import allo\nfrom allo.ir.types import float32\n\n\ndef k(A: float32[0]) -> float32[4]:\n"
                   "    return A\n")
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(allo.AlloTypeError, match=r"bad_shapes.py:5: array dimension must be a positive integer, "
                                                     r"got 0 in float32\[0\]"):
            __import__("bad_shapes")
    finally:
        sys.path.remove(str(tmp_path))
    for ann in ("float32[-1]", "float32[2.5]"):
        src.write_text(f"def k(A: '{ann}') -> None:\n    pass\n")
        ns = {"float32": float32}
        exec(compile(src.read_text(), str(src), "exec"), ns)
        with pytest.raises(allo.AlloTypeError, match="bad_shapes.py:1:"):
            allo.customize(ns["k"])


def test_library_template_misuse_points_at_the_users_call():
    from allo.library import nn

    def user(A: float32[4, 4]) -> float32[4, 4]:
        return nn.relu[float32, 0, 4](A)

    with pytest.raises(allo.AlloTypeError) as info:
        allo.customize(user)
    msg = str(info.value)
    here = f"{os.path.basename(__file__)}:{line_of(user, 'return nn.relu')}"
    assert msg.startswith(os.path.abspath(__file__)) and here in msg, msg
    assert "raised in allo/library/nn/activations.py" in msg
    with pytest.raises(allo.AlloTypeError) as info:
        allo.customize(nn.relu, instantiate=[float32, -1, 4])
    assert os.path.basename(__file__) in str(info.value).splitlines()[0]


def test_internal_class_names_do_not_leak():
    def idx_loop_var(A: float32[4]) -> float32[4]:
        for i in range(4):
            A[i] = i[0]
        return A

    with pytest.raises(allo.AlloTypeError, match="'i' cannot be indexed: it is a loop variable") as info:
        allo.customize(idx_loop_var)
    assert "IterVar" not in str(info.value)
