"""End-to-end tests of the public schedule API (SPEC section 4), written as a user would.

Every primitive is applied through `allo.customize(kernel)` / `s.<primitive>(...)` and checked
three ways: numerically (the LLVM build equals the unscheduled kernel, bit for bit for int32
kernels, and matches numpy), structurally (`str(s.module)`: loop names, bounds, attributes) and
by its errors (an `allo.AlloError` naming the primitive and the argument, after which the
schedule, its module and its step log are exactly as before and it still builds and runs).
"""
from __future__ import annotations

import contextlib
import re
import shutil

import numpy as np
import pytest

import allo
from allo.ir.types import float32, int32

RNG = np.random.default_rng(7)


# ----------------------------------------------------------------------------- kernels
def gemm_i(A: int32[16, 16], B: int32[16, 16]) -> int32[16, 16]:
    C: int32[16, 16] = 0
    for i, j in allo.grid(16, 16):
        for k in allo.reduction(16):
            C[i, j] += A[i, k] * B[k, j]
    return C


def gemm_f(A: float32[16, 16], B: float32[16, 16]) -> float32[16, 16]:
    C: float32[16, 16] = 0.0
    for i, j in allo.grid(16, 16):
        for k in allo.reduction(16):
            C[i, j] += A[i, k] * B[k, j]
    return C


def odd_i(A: int32[10, 7]) -> int32[10, 7]:
    """Extents 10 and 7: most split factors do not divide them."""
    B: int32[10, 7] = 0
    for i, j in allo.grid(10, 7):
        B[i, j] = A[i, j] * (i + 1) - j
    return B


def linear(X: float32[8, 16], W: float32[32, 16], b: float32[32]) -> float32[8, 32]:
    """The seed's nn.linear: Z = X @ W.T, then the bias."""
    Z: float32[8, 32] = 0.0
    for i, j in allo.grid(8, 32):
        for k in allo.reduction(16):
            Z[i, j] += X[i, k] * W[j, k]
    for ib, jb in allo.grid(8, 32):  # own names: a repeated "i" would need band-qualified addressing
        Z[ib, jb] += b[jb]
    return Z


def linear_out(X: float32[8, 16], W: float32[32, 16], b: float32[32]) -> float32[8, 32]:
    """linear with the bias written to a second buffer, so Z starts each row at its initial 0."""
    Z: float32[8, 32] = 0.0
    for i, j in allo.grid(8, 32):
        for k in allo.reduction(16):
            Z[i, j] += X[i, k] * W[j, k]
    Y: float32[8, 32] = 0.0
    for ib, jb in allo.grid(8, 32):
        Y[ib, jb] = Z[ib, jb] + b[jb]
    return Y


def blur_i(A: int32[10, 10]) -> int32[8, 8]:
    B: int32[8, 8] = 0
    for y, x in allo.grid(8, 8):
        B[y, x] = (A[y, x] + A[y, x + 1] + A[y, x + 2] + A[y + 1, x] + A[y + 1, x + 1] + A[y + 1, x + 2]
                   + A[y + 2, x] + A[y + 2, x + 1] + A[y + 2, x + 2])
    return B


def blur_f(A: float32[10, 10]) -> float32[8, 8]:
    B: float32[8, 8] = 0.0
    for y, x in allo.grid(8, 8):
        B[y, x] = (A[y, x] + A[y, x + 1] + A[y, x + 2] + A[y + 1, x] + A[y + 1, x + 1] + A[y + 1, x + 2]
                   + A[y + 2, x] + A[y + 2, x + 1] + A[y + 2, x + 2])
    return B


def conv_i(A: int32[10, 10], W: int32[3, 3]) -> int32[8, 8]:
    B: int32[8, 8] = 0
    for y, x in allo.grid(8, 8):
        for r, c in allo.reduction(3, 3):
            B[y, x] += A[y + r, x + c] * W[r, c]
    return B


def pc_i(A: int32[8, 8]) -> int32[8, 8]:
    B: int32[8, 8] = 0
    for i, j in allo.grid(8, 8):
        B[i, j] = A[i, j] + 1
    C: int32[8, 8] = 0
    for ii, jj in allo.grid(8, 8):
        C[ii, jj] = B[ii, jj] * 2 - A[ii, jj]
    return C


def pc_f(A: float32[8, 8]) -> float32[8, 8]:
    B: float32[8, 8] = 0.0
    for i, j in allo.grid(8, 8):
        B[i, j] = A[i, j] * 0.5 + 1.0
    C: float32[8, 8] = 0.0
    for ii, jj in allo.grid(8, 8):
        C[ii, jj] = B[ii, jj] * B[ii, jj]
    return C


def scale(A: int32[8, 8]) -> int32[8, 8]:
    C: int32[8, 8] = 0
    for i, j in allo.grid(8, 8):
        C[i, j] = A[i, j] * 3 - 1
    return C


def caller(A: int32[8, 8]) -> int32[8, 8]:
    """Calls `scale`; its loops are addressed as "scale:i", its buffers as "scale:C"."""
    D = scale(A)
    E: int32[8, 8] = 0
    for i, j in allo.grid(8, 8):
        E[i, j] = D[i, j] + A[j, i]
    return E


def rows(A: int32[8, 8]) -> int32[8, 8]:
    """Nested `range` loops: bands S_i_0 (holding i and j) and S_j_1."""
    C: int32[8, 8] = 0
    for i in range(8):
        for j in range(8):
            C[i, j] = A[i, j] + i
    return C


def calls_rows(A: int32[8, 8]) -> int32[8, 8]:
    return rows(A)


def ints(*shape, lo=-20, hi=20):
    return RNG.integers(lo, hi, shape).astype(np.int32)


def floats(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


# numpy references
def ref_gemm(A, B):
    return A @ B


def ref_odd(A):
    i = np.arange(10, dtype=np.int32)[:, None]
    j = np.arange(7, dtype=np.int32)[None, :]
    return A * (i + 1) - j


def ref_linear(X, W, b):
    return X @ W.T + b


def ref_blur(A):
    return sum(A[r:r + 8, c:c + 8] for r in range(3) for c in range(3))


def ref_conv(A, W):
    return sum(A[r:r + 8, c:c + 8] * W[r, c] for r in range(3) for c in range(3))


def ref_pc_i(A):
    return (A + 1) * 2 - A


def ref_caller(A):
    return A * 3 - 1 + A.T


# ----------------------------------------------------------------------------- helpers
def run(s, *args, **build_kw):
    """Build `s` for LLVM and run it on copies of `args`."""
    return s.build(**build_kw)(*[np.array(a, copy=True) for a in args])


def assert_same_as_unscheduled(kernel, s, *args, exact=True, rtol=1e-5):
    """The scheduled build equals the build of the plain kernel (bitwise when `exact`)."""
    want = run(allo.customize(kernel), *args)
    got = run(s, *args)
    if exact:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-5)
    return got


@contextlib.contextmanager
def unchanged(s, *args):
    """Assert that the body leaves `s.module` and `s.steps` exactly as they were, and that the
    schedule still builds and runs afterwards (when `args` are given)."""
    text, steps, rendered = str(s.module), list(s.steps), str(s)
    yield
    assert str(s.module) == text, "a failed primitive changed the module"
    assert list(s.steps) == steps, "a failed primitive changed the step log"
    assert str(s) == rendered
    if args:
        run(s, *args)


def expect_error(s, fn, *fragments, args=()):
    """`fn(s)` raises an AlloError whose message contains every fragment; nothing changes."""
    with unchanged(s, *args):
        with pytest.raises(allo.AlloError) as info:
            fn(s)
    msg = str(info.value)
    for frag in fragments:
        assert frag in msg, f"{frag!r} not in error message:\n{msg}"
    return msg


# ---- a tiny reader of the printed MLIR: the loop tree of one function
_FOR = re.compile(r"affine\.(?:for|parallel) \(?%\w+\)? = (.+?) to (.+?)(?: step (\d+))? \{$")
_ATTR_NAME = re.compile(r'loop_name = "([^"]+)"')


def func_text(module_text: str, func: str) -> str:
    """The text of `func.func @func` in a printed module."""
    m = re.search(rf"func\.func @{re.escape(func)}\(", module_text)
    assert m, f"no func.func @{func} in module"
    lines, depth, out = module_text[m.start():].splitlines(), 0, []
    for ln in lines:
        out.append(ln)
        depth += ln.count("{") - ln.count("}")
        if depth == 0 and len(out) > 1:
            break
    return "\n".join(out)


class Loop:
    """One `affine.for` of the printed module: name, bounds, attribute text, children."""

    def __init__(self, lb, ub, step):
        self.lb, self.ub, self.step = lb, ub, int(step or 1)
        self.name, self.attrs, self.children = None, "", []

    def tree(self):
        return (self.name, [c.tree() for c in self.children])

    def find(self, name):
        if self.name == name:
            return self
        for c in self.children:
            hit = c.find(name)
            if hit:
                return hit
        return None

    def __repr__(self):
        return f"Loop({self.name}, {self.lb} to {self.ub}, {self.attrs})"


def loops_of(module_text: str, func: str) -> list:
    """Top-level loops (with nested loops as children) of `func`; `if` regions are transparent."""
    roots, stack = [], []  # stack holds Loop or None (a non-loop region)
    for raw in func_text(module_text, func).splitlines()[1:]:
        ln = raw.strip()
        if ln.startswith("}"):
            closed = stack.pop() if stack else None
            if isinstance(closed, Loop):
                closed.attrs = ln
                m = _ATTR_NAME.search(ln)
                closed.name = m.group(1) if m else None
            if ln.endswith("{"):  # `} else {`
                stack.append(None)
            continue
        m = _FOR.search(ln)
        if m:
            lp = Loop(*m.groups())
            parent = next((x for x in reversed(stack) if isinstance(x, Loop)), None)
            (parent.children if parent else roots).append(lp)
            stack.append(lp)
        elif ln.endswith("{"):
            stack.append(None)
    return roots


def named_tree(module_text, func):
    """Loop tree of `func` without the unnamed initialisation loops of local arrays."""
    return [lp.tree() for lp in loops_of(module_text, func) if lp.name is not None]


def find(module_text, func, name) -> Loop:
    for root in loops_of(module_text, func):
        hit = root.find(name)
        if hit:
            return hit
    raise AssertionError(f"no loop {name!r} in @{func}")


# ----------------------------------------------------------------------------- basics
def test_module_is_mlir_and_names_follow_the_seed():
    s = allo.customize(gemm_i)
    import mlir.ir

    assert isinstance(s.module, mlir.ir.Module)
    assert s.top_func_name == "gemm_i"
    text = str(s.module)
    assert named_tree(text, "gemm_i") == [("i", [("j", [("k", [])])])]
    i = find(text, "gemm_i", "i")
    assert 'op_name = "S_i_j_0"' in i.attrs and (i.lb, i.ub) == ("0", "16")
    assert 'op_name = "S_k_1"' in find(text, "gemm_i", "k").attrs
    assert s.steps == [] and "0 step(s)" in str(s)
    np.testing.assert_array_equal(run(s, A := ints(16, 16), B := ints(16, 16)), ref_gemm(A, B))


# ----------------------------------------------------------------------------- split
@pytest.mark.parametrize("factor", [1, 2, 3, 4, 5, 7, 16, 20])
def test_split_numeric_int_exact(factor):
    A = ints(10, 7)
    s = allo.customize(odd_i)
    s.split("i", factor)
    s.split("j", factor)
    np.testing.assert_array_equal(assert_same_as_unscheduled(odd_i, s, A), ref_odd(A))


@pytest.mark.parametrize("factor", [3, 4, 16])
def test_split_numeric_float_gemm(factor):
    A, B = floats(16, 16), floats(16, 16)
    s = allo.customize(gemm_f)
    s.split("k", factor)  # the reduction order per element is unchanged: bit-identical
    s.split("i", factor)
    got = assert_same_as_unscheduled(gemm_f, s, A, B, exact=True)
    np.testing.assert_allclose(got, A @ B, rtol=1e-4, atol=1e-4)


def test_split_structure():
    s = allo.customize(odd_i)
    s.split("i", 4)  # 10 = 3 * 4 - 2: guarded
    s.split("j", 7)  # divides: no guard
    text = str(s.module)
    assert named_tree(text, "odd_i") == [("i.outer", [("i.inner", [("j.outer", [("j.inner", [])])])])]
    outer, inner = find(text, "odd_i", "i.outer"), find(text, "odd_i", "i.inner")
    assert (outer.lb, outer.ub, inner.lb, inner.ub) == ("0", "3", "0", "4")
    assert 'op_name = "S_i_j_0"' in outer.attrs  # the band name stays on the outermost loop
    jo, ji = find(text, "odd_i", "j.outer"), find(text, "odd_i", "j.inner")
    assert (jo.ub, ji.ub) == ("1", "7")
    body = func_text(text, "odd_i")
    assert body.count("arith.cmpi slt") == 1 and "scf.if" in body  # only the non-dividing split guards
    loops = s.get_loops()
    assert [h.name for h in loops["S_i_j_0"]] == ["i.outer", "i.inner", "j.outer", "j.inner"]
    assert str(s.steps[0]) == "split('i', 4)  @odd_i"


def test_split_errors():
    s = allo.customize(odd_i)
    A = ints(10, 7)
    for bad in (0, -3, 2.5, True, "4"):
        expect_error(s, lambda s: s.split("i", bad), "split", "factor", repr(bad), args=(A,))
    msg = expect_error(s, lambda s: s.split("q", 2), "split", "axis", "'q'", args=(A,))
    assert "loops: i, j" in msg
    s.split("i", 4)
    expect_error(s, lambda s: s.split("i", 2), "split", "axis", "i.outer, i.inner, j", args=(A,))


# ----------------------------------------------------------------------------- reorder
def test_reorder_numeric_and_structure():
    A, B = ints(16, 16), ints(16, 16)
    s = allo.customize(gemm_i)
    s.reorder("k", "j")
    text = str(s.module)
    assert named_tree(text, "gemm_i") == [("i", [("k", [("j", [])])])]
    np.testing.assert_array_equal(assert_same_as_unscheduled(gemm_i, s, A, B), ref_gemm(A, B))
    s.reorder("j", "i")  # full permutation of the nest: (j, k, i)
    assert named_tree(str(s.module), "gemm_i") == [("j", [("k", [("i", [])])])]
    assert 'op_name = "S_i_j_0"' in find(str(s.module), "gemm_i", "j").attrs
    assert_same_as_unscheduled(gemm_i, s, A, B)


def test_reorder_float_and_after_split():
    A, B = floats(16, 16), floats(16, 16)
    s = allo.customize(gemm_f)
    s.split("i", 4)
    s.split("j", 8)
    s.reorder("i.outer", "j.outer", "i.inner", "j.inner")
    assert named_tree(str(s.module), "gemm_f") == [
        ("i.outer", [("j.outer", [("i.inner", [("j.inner", [("k", [])])])])])]
    assert_same_as_unscheduled(gemm_f, s, A, B, exact=False)


def test_reorder_non_dividing_tiles_int_exact():
    A = ints(10, 7)
    s = allo.customize(odd_i)
    s.split("i", 3)
    s.split("j", 4)
    s.reorder("i.outer", "j.outer", "i.inner", "j.inner")
    assert named_tree(str(s.module), "odd_i") == [("i.outer", [("j.outer", [("i.inner", [("j.inner", [])])])])]
    np.testing.assert_array_equal(assert_same_as_unscheduled(odd_i, s, A), ref_odd(A))


def test_reorder_errors():
    A, B = ints(16, 16), ints(16, 16)
    s = allo.customize(gemm_i)
    s.buffer_at(s.C, "i")  # i now holds init / compute / write-back loops: not a perfect nest
    expect_error(s, lambda s: s.reorder("k", "i"), "reorder", "axes", "not a perfect nest", args=(A, B))
    expect_error(s, lambda s: s.reorder("k", "nope"), "reorder", "axes", "'nope'", args=(A, B))
    expect_error(s, lambda s: s.reorder("k"), "reorder", "at least two", args=(A, B))
    expect_error(s, lambda s: s.reorder("j_init", "k"), "reorder", "not nested", args=(A, B))
    expect_error(s, lambda s: s.reorder(), "reorder", args=(A, B))


# ----------------------------------------------------------------------------- fuse
def test_fuse_numeric_and_structure():
    A, B = ints(16, 16), ints(16, 16)
    s = allo.customize(gemm_i)
    s.fuse("i", "j")
    text = str(s.module)
    assert named_tree(text, "gemm_i") == [("i_j_fused", [("k", [])])]
    fused = find(text, "gemm_i", "i_j_fused")
    assert (fused.lb, fused.ub) == ("0", "256") and 'op_name = "S_i_j_0"' in fused.attrs
    np.testing.assert_array_equal(assert_same_as_unscheduled(gemm_i, s, A, B), ref_gemm(A, B))
    s.split("i_j_fused", 7)  # a fused loop splits like any other (non-dividing: 256 = 37 * 7 - 3)
    assert find(str(s.module), "gemm_i", "i_j_fused.outer").ub == "37"
    assert_same_as_unscheduled(gemm_i, s, A, B)


def test_fuse_float_and_three_loops():
    A, B = floats(16, 16), floats(16, 16)
    s = allo.customize(gemm_f)
    s.fuse("i", "j", "k")  # keeps the per-element order of the reduction
    assert named_tree(str(s.module), "gemm_f") == [("i_j_k_fused", [])]
    assert find(str(s.module), "gemm_f", "i_j_k_fused").ub == "4096"
    assert_same_as_unscheduled(gemm_f, s, A, B, exact=True)


def test_fuse_errors():
    A, B = ints(16, 16), ints(16, 16)
    s = allo.customize(gemm_i)
    expect_error(s, lambda s: s.fuse("j", "i"), "fuse", "axes", "outermost first", args=(A, B))
    expect_error(s, lambda s: s.fuse("i", "k"), "fuse", "axes", "consecutive", args=(A, B))
    expect_error(s, lambda s: s.fuse("i"), "fuse", "axes", "at least two", args=(A, B))
    expect_error(s, lambda s: s.fuse("i", "zz"), "fuse", "axes", "'zz'", args=(A, B))


# ----------------------------------------------------------------------------- unroll / pipeline / parallel
def test_unroll_numeric_structure_and_errors():
    A, B = ints(16, 16), ints(16, 16)
    s = allo.customize(gemm_i)
    s.unroll("k", 4)
    s.unroll("j")  # default factor 0 = fully
    text = str(s.module)
    assert "unroll = 4 : ui32" in find(text, "gemm_i", "k").attrs
    assert "unroll = 0 : ui32" in find(text, "gemm_i", "j").attrs
    np.testing.assert_array_equal(assert_same_as_unscheduled(gemm_i, s, A, B), ref_gemm(A, B))
    s2 = allo.customize(gemm_f)
    s2.unroll("k", 3)  # non-dividing
    s2.unroll("i", 16)
    assert_same_as_unscheduled(gemm_f, s2, floats(16, 16), floats(16, 16), exact=True)
    expect_error(s, lambda s: s.unroll("k", -1), "unroll", "factor", "-1", args=(A, B))
    expect_error(s, lambda s: s.unroll("w", 2), "unroll", "axis", "'w'", args=(A, B))


def test_pipeline_numeric_structure_and_errors():
    A, B = ints(16, 16), ints(16, 16)
    s = allo.customize(gemm_i)
    s.pipeline("j")
    s.pipeline("k", initiation_interval=2)
    text = str(s.module)
    assert "pipeline_ii = 1 : ui32" in find(text, "gemm_i", "j").attrs
    assert "pipeline_ii = 2 : ui32" in find(text, "gemm_i", "k").attrs
    assert "pipeline_ii" not in find(text, "gemm_i", "i").attrs
    np.testing.assert_array_equal(assert_same_as_unscheduled(gemm_i, s, A, B), ref_gemm(A, B))
    for bad in (0, -1, 1.5):
        expect_error(s, lambda s: s.pipeline("j", bad), "pipeline", "initiation_interval", repr(bad), args=(A, B))
    expect_error(s, lambda s: s.pipeline("jj"), "pipeline", "axis", "'jj'", args=(A, B))


@pytest.mark.parametrize("threads", [None, 2])
def test_parallel_numeric_structure_and_errors(threads):
    A, B = ints(16, 16), ints(16, 16)
    s = allo.customize(gemm_i)
    s.parallel("i")
    assert "parallel" in find(str(s.module), "gemm_i", "i").attrs
    got = run(s, A, B, threads=threads)
    np.testing.assert_array_equal(got, ref_gemm(A, B))
    np.testing.assert_array_equal(got, run(allo.customize(gemm_i), A, B))
    expect_error(s, lambda s: s.parallel("p"), "parallel", "axis", "'p'", args=(A, B))


# ----------------------------------------------------------------------------- partition
def test_partition_structure_numeric_and_hls():
    A, B = ints(16, 16), ints(16, 16)
    s = allo.customize(gemm_i)
    s.partition(s.A, allo.Partition.Cyclic, dim=2, factor=4)
    s.partition(s.B, partition_type=allo.Partition.Block, dim=1, factor=2)
    s.partition(s.C)  # Complete, all dims
    s.partition(s.C, allo.Partition.Complete, dim=1)
    text = func_text(str(s.module), "gemm_i")
    assert 'A = ["cyclic:2:4"]' in text and 'B = ["block:1:2"]' in text
    assert re.search(r'memref\.alloc\(\) \{name = "C", partition = \["complete:0:0", "complete:1:0"\], '
                     r'partition_map = #map\d*\}', text)  # the map itself is printed as a module-level alias
    np.testing.assert_array_equal(assert_same_as_unscheduled(gemm_i, s, A, B), ref_gemm(A, B))
    code = s.build(target="vhls").hls_code
    for pragma in ("#pragma HLS array_partition variable=A cyclic factor=4 dim=2",
                   "#pragma HLS array_partition variable=B block factor=2 dim=1",
                   "#pragma HLS array_partition variable=C complete dim=0",
                   "#pragma HLS array_partition variable=C complete dim=1"):
        assert pragma in code


def test_partition_errors():
    A, B = ints(16, 16), ints(16, 16)
    s = allo.customize(gemm_i)
    expect_error(s, lambda s: s.partition(s.A, dim=3), "partition", "dim", "rank 2", args=(A, B))
    expect_error(s, lambda s: s.partition(s.A, dim=-1), "partition", "dim", args=(A, B))
    expect_error(s, lambda s: s.partition(s.A, allo.Partition.Cyclic, dim=1, factor=0), "partition", "factor",
                 args=(A, B))
    expect_error(s, lambda s: s.partition(s.A, "diagonal"), "partition", "partition_type", "diagonal", args=(A, B))
    expect_error(s, lambda s: s.partition("Q"), "partition", "target", "'Q'", "buffers: A, B, C", args=(A, B))


# ----------------------------------------------------------------------------- buffer_at
@pytest.mark.parametrize("reorder_first", [False, True])
def test_buffer_at_seed_linear_schedule(reorder_first):
    """The seed's schedule: Z_buf / j_init / k { j } / j_back inside i, matching numpy."""
    X, W, b = floats(8, 16), floats(32, 16), floats(32)
    s = allo.customize(linear)
    if reorder_first:
        s.reorder("k", "j")
    buf = s.buffer_at(s.Z, "i")
    if not reorder_first:
        s.reorder("k", "j")
    s.pipeline("j")
    text = str(s.module)
    assert named_tree(text, "linear") == [("i", [("j_init", []), ("k", [("j", [])]), ("j_back", [])]),
                                          ("ib", [("jb", [])])]
    body = func_text(text, "linear")
    assert f'memref.alloc() {{name = "{buf.name}"}} : memref<32xf32>' in body
    assert "pipeline_ii = 1 : ui32" in find(text, "linear", "j").attrs
    assert 'op_name = "S_i_j_0"' in find(text, "linear", "i").attrs
    for name in ("j_init", "j_back"):
        assert 'op_name = "S_' + name in find(text, "linear", name).attrs
    # Z is written in the accumulation loop only through the buffer
    j_loop = func_text(text, "linear").split('loop_name = "j_init"')[1].split('loop_name = "k"')[0]
    assert f'{{to = "{buf.name}"}}' in j_loop and '{to = "Z"}' not in j_loop
    got = assert_same_as_unscheduled(linear, s, X, W, b, exact=True)
    np.testing.assert_allclose(got, ref_linear(X, W, b), rtol=1e-5, atol=1e-5)
    assert sorted(st.primitive for st in s.steps) == ["buffer_at", "pipeline", "reorder"]


def test_buffer_at_seed_init_stores_the_constant():
    """When Z is not touched outside the band, j_init stores 0.0 like the seed (no load of Z)."""
    X, W, b = floats(8, 16), floats(32, 16), floats(32)
    s = allo.customize(linear_out)
    s.buffer_at(s.Z, "i")
    s.reorder("k", "j")
    s.pipeline("j")
    text = str(s.module)
    init = func_text(text, "linear_out").split('loop_name = "j_init"')[0].rsplit("affine.for", 1)[1]
    assert "affine.load" not in init and 'to = "Z_buf"' in init
    np.testing.assert_allclose(assert_same_as_unscheduled(linear_out, s, X, W, b), ref_linear(X, W, b),
                               rtol=1e-5, atol=1e-5)


def test_buffer_at_int_exact_and_inner_axis():
    A, B = ints(16, 16), ints(16, 16)
    s = allo.customize(gemm_i)
    s.buffer_at(s.C, "j")  # a scalar accumulator per (i, j)
    text = str(s.module)
    assert re.search(r'name = "C_buf"\} : memref<i32>', text)
    np.testing.assert_array_equal(assert_same_as_unscheduled(gemm_i, s, A, B), ref_gemm(A, B))
    s2 = allo.customize(gemm_i)
    s2.split("i", 5)
    s2.buffer_at(s2.C, "i.inner")
    s2.reorder("k", "j")
    np.testing.assert_array_equal(assert_same_as_unscheduled(gemm_i, s2, A, B), ref_gemm(A, B))


def test_buffer_at_errors():
    A, B = ints(16, 16), ints(16, 16)
    s = allo.customize(gemm_i)
    expect_error(s, lambda s: s.buffer_at("Q", "i"), "buffer_at", "target", "'Q'", args=(A, B))
    expect_error(s, lambda s: s.buffer_at(s.C, "q"), "buffer_at", "axis", "'q'", args=(A, B))


# ----------------------------------------------------------------------------- reuse_at
def test_reuse_at_blur_line_and_window_buffers():
    A = ints(10, 10)
    s = allo.customize(blur_i)
    lb = s.reuse_at(s.A, "y")
    wb = s.reuse_at(lb, "x")
    assert (lb.name, wb.name) == ("A_reuse_y", "A_reuse_y_reuse_x")
    text = func_text(str(s.module), "blur_i")
    assert f'name = "{lb.name}"}} : memref<3x10xi32>' in text  # line buffer: 3 rows
    assert f'name = "{wb.name}"}} : memref<3x3xi32>' in text  # window: 3x3
    y, x = find(str(s.module), "blur_i", "y"), find(str(s.module), "blur_i", "x")
    assert (y.ub, x.ub) == ("10", "10")  # extended by the stencil height/width - 1
    assert '{from = "A"}' in text and text.count('{from = "A"}') == 1  # A is read once, into the line buffer
    np.testing.assert_array_equal(assert_same_as_unscheduled(blur_i, s, A), ref_blur(A))
    s.pipeline("x")
    np.testing.assert_array_equal(run(s, A), ref_blur(A))


def test_reuse_at_float_blur_matches_numpy():
    A = floats(10, 10)
    s = allo.customize(blur_f)
    s.reuse_at(s.reuse_at(s.A, "y"), "x")
    got = assert_same_as_unscheduled(blur_f, s, A, exact=True)
    np.testing.assert_allclose(got, ref_blur(A), rtol=1e-5, atol=1e-5)


def test_reuse_at_conv_window_loops():
    A, W = ints(10, 10), ints(3, 3, lo=-3, hi=4)
    s = allo.customize(conv_i)
    wb = s.reuse_at(s.reuse_at(s.A, "y"), "x")
    s.unroll("r")
    s.unroll("c")
    s.pipeline("x")
    assert f'name = "{wb.name}"}} : memref<3x3xi32>' in str(s.module)
    np.testing.assert_array_equal(assert_same_as_unscheduled(conv_i, s, A, W), ref_conv(A, W))


def test_reuse_at_errors():
    A = ints(10, 10)
    s = allo.customize(blur_i)
    expect_error(s, lambda s: s.reuse_at(s.B, "y"), "reuse_at", "target", "'B' is written", args=(A,))
    expect_error(s, lambda s: s.reuse_at(s.A, "yy"), "reuse_at", "axis", "'yy'", args=(A,))
    g = allo.customize(gemm_i)
    expect_error(g, lambda s: s.reuse_at(s.B, "i"), "reuse_at", "axis", "'B'", args=(ints(16, 16), ints(16, 16)))
    expect_error(g, lambda s: s.reuse_at(s.C, "i"), "reuse_at", "target", "'C' is written",
                 args=(ints(16, 16), ints(16, 16)))


# ----------------------------------------------------------------------------- compute_at
@pytest.mark.parametrize("frm,to,tree", [
    ("j", "jj", [("ii", [("jj", [])])]),
    ("i", "ii", [("ii", [("j", []), ("jj", [])])]),
])
def test_compute_at_int_exact(frm, to, tree):
    A = ints(8, 8)
    s = allo.customize(pc_i)
    s.compute_at(frm, to)
    text = str(s.module)
    assert named_tree(text, "pc_i") == tree
    np.testing.assert_array_equal(assert_same_as_unscheduled(pc_i, s, A), ref_pc_i(A))


def test_compute_at_float_and_handles():
    A = floats(8, 8)
    s = allo.customize(pc_f)
    loops = s.get_loops()
    s.compute_at(loops["S_i_j_0"]["j"], loops["S_ii_jj_1"]["jj"])
    s.pipeline("jj")
    assert named_tree(str(s.module), "pc_f") == [("ii", [("jj", [])])]
    got = assert_same_as_unscheduled(pc_f, s, A, exact=True)
    np.testing.assert_allclose(got, (A * 0.5 + 1) ** 2, rtol=1e-6)


def test_compute_at_errors():
    A = ints(8, 8)
    s = allo.customize(pc_i)
    s.split("jj", 3)
    expect_error(s, lambda s: s.compute_at("j", "jj.outer"), "compute_at", "target_loop", "equal constant extents",
                 args=(A,))
    t = allo.customize(pc_i)
    expect_error(t, lambda s: s.compute_at("i", "jj"), "compute_at", "target_loop", "depth", args=(A,))
    expect_error(t, lambda s: s.compute_at("jj", "j"), "compute_at", "from_loop", "must come before", args=(A,))
    expect_error(t, lambda s: s.compute_at("i", "j"), "compute_at", "nested", args=(A,))
    expect_error(t, lambda s: s.compute_at("zz", "jj"), "compute_at", "from_loop", "'zz'", args=(A,))


# ----------------------------------------------------------------------------- dataflow
def test_dataflow_function_and_loop():
    A = ints(8, 8)
    s = allo.customize(caller)
    s.dataflow("caller")
    s.dataflow("scale")
    s.dataflow("i")
    text = str(s.module)
    for f in ("caller", "scale"):
        head = func_text(text, f).splitlines()[0]
        assert re.search(r"attributes \{[^}]*\bdataflow\b", head), head
    assert "dataflow" in find(text, "caller", "i").attrs
    np.testing.assert_array_equal(assert_same_as_unscheduled(caller, s, A), ref_caller(A))
    code = s.build(target="vhls").hls_code
    assert code.count("#pragma HLS dataflow") == 3
    expect_error(s, lambda s: s.dataflow("nothing"), "dataflow", "'nothing'", args=(A,))


def test_dataflow_default_is_top():
    s = allo.customize(gemm_i)
    s.dataflow()
    assert s.steps[-1].func == "gemm_i"
    assert re.search(r"attributes \{[^}]*\bdataflow\b", func_text(str(s.module), "gemm_i").splitlines()[0])


# ----------------------------------------------------------------------------- addressing
def test_addressing_called_function_loops_and_buffers():
    A = ints(8, 8)
    s = allo.customize(caller)
    s.split("scale:i", 3)
    loops = s.get_loops("scale")
    assert list(loops) == ["S_i_j_0"]
    s.pipeline(loops["S_i_j_0"]["j"])
    s.partition("scale:C", allo.Partition.Cyclic, dim=2, factor=2)
    s.unroll("j", 2)  # plain names address the top function
    text = str(s.module)
    assert named_tree(text, "scale") == [("i.outer", [("i.inner", [("j", [])])])]
    assert "pipeline_ii = 1 : ui32" in find(text, "scale", "j").attrs
    assert "unroll" not in find(text, "scale", "j").attrs
    assert "unroll = 2 : ui32" in find(text, "caller", "j").attrs
    assert named_tree(text, "caller") == [("i", [("j", [])])]
    assert 'name = "C", partition = ["cyclic:2:2"]' in func_text(text, "scale")
    assert [(st.primitive, st.func) for st in s.steps] == [
        ("split", "scale"), ("pipeline", "scale"), ("partition", "scale"), ("unroll", "caller")]
    np.testing.assert_array_equal(assert_same_as_unscheduled(caller, s, A), ref_caller(A))


def test_buffer_and_loop_in_different_functions_is_an_error():
    """`buffer_at`/`reuse_at` take the loop from the buffer's function; a loop explicitly in
    another function is rejected instead of silently re-homed to a same-named loop."""
    A = ints(8, 8)
    s = allo.customize(caller)
    expect_error(s, lambda s: s.buffer_at(s.E, "scale:i"), "buffer_at", "axis", "'scale'", "'caller'", args=(A,))
    expect_error(s, lambda s: s.reuse_at(s.A, "scale:i"), "reuse_at", "axis", "'scale'", args=(A,))
    expect_error(s, lambda s: s.buffer_at("scale:C", s.get_loops()["S_i_j_0"]["j"]), "buffer_at", "axis",
                 args=(A,))
    s.buffer_at("scale:C", "i")  # a plain loop name belongs to the buffer's function
    s.buffer_at(s.E, "caller:i")
    assert [(st.func, st.args) for st in s.steps] == [("scale", ("C", "i")), ("caller", ("E", "i"))]
    assert named_tree(str(s.module), "scale") == [("i", [("j_init", []), ("j", []), ("j_back", [])])]
    np.testing.assert_array_equal(assert_same_as_unscheduled(caller, s, A), ref_caller(A))


def test_handles():
    s = allo.customize(gemm_i)
    loops = s.get_loops()
    assert list(loops) == ["S_i_j_0", "S_k_1"]
    band = loops["S_i_j_0"]
    assert [h.name for h in band] == ["i", "j", "k"]
    assert band["j"] == loops.S_i_j_0.j  # attribute access too
    s.split(band["j"], 4)
    s.pipeline(s.get_loops()["S_i_j_0"]["j.inner"])
    s.reorder(loops["S_k_1"]["k"], s.get_loops()["S_i_j_0"]["j.inner"])
    assert named_tree(str(s.module), "gemm_i") == [("i", [("j.outer", [("k", [("j.inner", [])])])])]
    A, B = ints(16, 16), ints(16, 16)
    assert_same_as_unscheduled(gemm_i, s, A, B)
    # a band handle as a loop argument means the band's outermost loop
    t = allo.customize(gemm_i)
    t.parallel(t.get_loops()["S_i_j_0"])
    assert "parallel" in find(str(t.module), "gemm_i", "i").attrs


def test_spec_handle_form_on_a_called_function():
    """SPEC: `loops = s.get_loops("func"); loops["S_i_0"]["j"]`."""
    A = ints(8, 8)
    s = allo.customize(calls_rows)
    loops = s.get_loops("rows")
    assert list(loops) == ["S_i_0", "S_j_1"]
    assert [h.name for h in loops["S_i_0"]] == ["i", "j"]
    s.pipeline(loops["S_i_0"]["j"])
    s.unroll(loops.S_j_1.j, 2)
    s.split("rows:i", 3)
    assert s.steps[0].args == ("S_i_0/j", 1) and s.steps[0].func == "rows"
    text = str(s.module)
    j = find(text, "rows", "j")
    assert "pipeline_ii = 1 : ui32" in j.attrs and "unroll = 2 : ui32" in j.attrs
    assert named_tree(text, "rows") == [("i.outer", [("i.inner", [("j", [])])])]
    np.testing.assert_array_equal(run(s, A), A + np.arange(8, dtype=np.int32)[:, None])


def test_handle_and_name_misses_list_what_exists():
    s = allo.customize(gemm_i)
    loops = s.get_loops()
    with pytest.raises(allo.AlloError, match="bands: S_i_j_0, S_k_1"):
        loops["S_x_0"]
    with pytest.raises(allo.AlloError, match="loops: i, j, k"):
        loops["S_i_j_0"]["q"]
    with pytest.raises(allo.AlloError, match="functions: gemm_i"):
        s.get_loops("nope")
    with unchanged(s):
        with pytest.raises(allo.AlloError, match="buffers: A, B, C"):
            s.Q  # noqa: B018 - the attribute access is the test
    assert not hasattr(s, "Q") and hasattr(s, "C")
    t = allo.customize(caller)
    expect_error(t, lambda s: s.partition("scale:Z"), "partition", "'Z'", "buffers: A, C")
    expect_error(t, lambda s: s.split("scale:q", 2), "split", "'q'", "in function 'scale'", "loops: i, j")


def test_ambiguous_loop_names_need_band_qualified_forms():
    """The frontend keeps loop names unique (a repeated `i` becomes `i_1`); a module where two
    loops share a name (made here by renaming) needs "band/name" or handles."""
    A = ints(8, 8)
    s = allo.customize(pc_i)
    for lp in s.ir.func("pc_i").body:
        if getattr(lp, "name", None) == "ii":
            lp.name, lp.body[0].name = "i", "j"
    s._mlir_cache = None
    assert named_tree(str(s.module), "pc_i") == [("i", [("j", [])]), ("i", [("j", [])])]
    msg = expect_error(s, lambda s: s.pipeline("j"), "pipeline", "axis", "ambiguous", args=(A,))
    assert "'S_i_j_0/j'" in msg and "'S_ii_jj_1/j'" in msg
    s.pipeline("S_ii_jj_1/j")
    s.unroll(s.get_loops()["S_i_j_0"]["j"], 2)
    trees = loops_of(str(s.module), "pc_i")
    named = [lp for lp in trees if lp.name == "i"]
    assert "unroll = 2" in named[0].children[0].attrs and "pipeline_ii = 1" in named[1].children[0].attrs
    np.testing.assert_array_equal(run(s, A), ref_pc_i(A))


# ----------------------------------------------------------------------------- atomicity, the log
def test_failed_primitives_leave_a_working_schedule():
    """A mix of valid and invalid steps: every failure is atomic, the valid ones all count."""
    A, B = ints(16, 16), ints(16, 16)
    s = allo.customize(gemm_i)
    s.split("i", 4)
    expect_error(s, lambda s: s.reorder("k", "i"), "reorder", args=(A, B))  # i is gone
    s.buffer_at(s.C, "i.inner")
    expect_error(s, lambda s: s.reorder("k", "i.inner"), "reorder", "not a perfect nest", args=(A, B))
    s.reorder("k", "j")
    expect_error(s, lambda s: s.fuse("k", "j", "i.inner"), "fuse", args=(A, B))
    s.pipeline("j")
    expect_error(s, lambda s: s.reuse_at(s.A, "j"), "reuse_at", args=(A, B))
    assert [st.primitive for st in s.steps] == ["split", "buffer_at", "reorder", "pipeline"]
    np.testing.assert_array_equal(assert_same_as_unscheduled(gemm_i, s, A, B), ref_gemm(A, B))


def test_step_log_and_print():
    s = allo.customize(gemm_i)
    s.split("i", 4).reorder("k", "j").pipeline("j")  # primitives return the schedule
    s.partition(s.A, allo.Partition.Cyclic, dim=2, factor=4)
    text = str(s)
    assert "Schedule of gemm_i (4 step(s))" in text
    lines = text.splitlines()[1:]
    assert lines == ["  0: split('i', 4)  @gemm_i", "  1: reorder('k', 'j')  @gemm_i",
                     "  2: pipeline('j', 1)  @gemm_i", "  3: partition('A', 'cyclic', 2, 4)  @gemm_i"]
    st = s.steps[0]
    assert (st.primitive, st.func, st.args) == ("split", "gemm_i", ("i", 4))
    assert "4 step(s)" in repr(s)


def test_build_many_times_and_targets():
    A, B = ints(16, 16), ints(16, 16)
    s = allo.customize(gemm_i)
    s.pipeline("j")
    m1 = s.build()
    h = s.build(target="vhls")
    s.split("i", 4)  # scheduling after a build: the old module is unaffected
    m2 = s.build()
    np.testing.assert_array_equal(m1(A, B), m2(A, B))
    assert "l_i_outer" not in h.hls_code and "l_i_outer" in s.build(target="vhls").hls_code
    with pytest.raises(allo.AlloError, match="target"):
        s.build(target="fpga9000")


# ----------------------------------------------------------------------------- HLS
def _label_pragmas(code: str, label: str) -> list:
    """The pragma lines directly at the top of loop `label:` in the HLS code."""
    lines = code.splitlines()
    at = next(k for k, ln in enumerate(lines) if ln.strip().startswith(f"{label}: for"))
    out = []
    for ln in lines[at + 1:]:
        if not ln.strip().startswith("#pragma"):
            break
        out.append(ln.strip())
    return out


def test_hls_pragmas_in_the_right_loops():
    s = allo.customize(linear)
    s.buffer_at(s.Z, "i")
    s.reorder("k", "j")
    s.pipeline("j")
    s.unroll("j_init")
    s.unroll("j_back", 4)
    s.partition(s.W, allo.Partition.Cyclic, dim=1, factor=4)
    code = s.build(target="vhls").hls_code
    assert _label_pragmas(code, "l_j") == ["#pragma HLS pipeline II=1"]
    assert _label_pragmas(code, "l_j_init") == ["#pragma HLS unroll"]
    assert _label_pragmas(code, "l_j_back") == ["#pragma HLS unroll factor=4"]
    assert _label_pragmas(code, "l_k") == [] and _label_pragmas(code, "l_i") == []
    assert "#pragma HLS array_partition variable=W cyclic factor=4 dim=1" in code
    assert str(s.build(target="vhls")) == code
    t = allo.customize(odd_i)
    t.split("i", 4)
    t.pipeline("i.inner", initiation_interval=2)
    code = t.build(target="vhls").hls_code
    assert _label_pragmas(code, "l_i_inner") == ["#pragma HLS pipeline II=2"]
    assert "l_i_outer:" in code


def _csim_or_skip(s, tmp_path):
    if shutil.which("g++") is None:
        pytest.skip("g++ not available for C simulation")
    return s.build(target="vhls", mode="csim", project=str(tmp_path))


def test_hls_csim_matches_llvm_linear(tmp_path):
    X, W, b = floats(8, 16), floats(32, 16), floats(32)
    s = allo.customize(linear)
    s.buffer_at(s.Z, "i")
    s.reorder("k", "j")
    s.pipeline("j")
    s.partition(s.W, allo.Partition.Cyclic, dim=1, factor=4)
    csim = _csim_or_skip(s, tmp_path)
    for f in ("kernel.cpp", "kernel.h", "host.cpp", "run.tcl"):
        assert (tmp_path / f).exists()
    np.testing.assert_allclose(csim(X, W, b), run(s, X, W, b), rtol=1e-6, atol=1e-6)


def test_hls_csim_matches_llvm_conv_int(tmp_path):
    A, W = ints(10, 10), ints(3, 3, lo=-3, hi=4)
    s = allo.customize(conv_i)
    s.reuse_at(s.reuse_at(s.A, "y"), "x")
    s.pipeline("x")
    s.split("c", 2)
    code = s.build(target="vhls").hls_code
    assert _label_pragmas(code, "l_x") == ["#pragma HLS pipeline II=1"]
    csim = _csim_or_skip(s, tmp_path)
    np.testing.assert_array_equal(csim(A, W), run(s, A, W))
    np.testing.assert_array_equal(csim(A, W), ref_conv(A, W))


def linear_repeated_names(X: float32[8, 16], W: float32[32, 16], b: float32[32]) -> float32[8, 32]:
    Z: float32[8, 32] = 0.0
    for i, j in allo.grid(8, 32):
        for k in allo.reduction(16):
            Z[i, j] += X[i, k] * W[j, k]
    for i, j in allo.grid(8, 32):
        Z[i, j] += b[j]
    return Z


def test_repeated_loop_names_need_the_band_qualified_form():
    s = allo.customize(linear_repeated_names)
    before = str(s.module)
    with pytest.raises(allo.AlloError, match="ambiguous") as info:
        s.buffer_at(s.Z, "i")
    assert "S_i_j_0" in str(info.value) and str(s.module) == before
    loops = s.get_loops()
    s.buffer_at(s.Z, loops["S_i_j_0"]["i"])
    s.reorder(loops["S_i_j_0"]["k"], loops["S_i_j_0"]["j"])
    s.pipeline("S_i_j_0:j")
    text = str(s.module)
    assert 'loop_name = "j_init"' in text and 'loop_name = "j_back"' in text
    X, W, b = (np.random.rand(*sh).astype(np.float32) for sh in ((8, 16), (32, 16), (32,)))
    np.testing.assert_allclose(s.build()(X, W, b), X @ W.T + b, rtol=1e-5, atol=1e-5)
