"""Schedule primitives on hand-built loop IR, checked with the reference interpreter.

Every rewrite must keep results bit-identical (numeric tests), leave the loops named and
bounded as documented (structural tests) and reject what it cannot do with a message naming
the primitive and the argument (error tests)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import allo
from allo.errors import AlloError, ScheduleError
from allo.interp import run
from allo.ir import nodes as N
from allo.ir import visit as V
from allo.ir.check import verify_func
from allo.ir.types import float32, index, int32
from allo.schedule import (BandHandle, LoopHandle, buffer_at, compute_at, dataflow, find_buffer, find_loop, fuse,
                           get_bands, get_loops, loop_path, loop_tree, parallel, partition, pipeline, reorder, reuse_at,
                           split, unroll)
from allo.schedule.rewrite import trip_count


# ----------------------------------------------------------------------------- IR construction helpers
def c(v, t=index):
    return N.Const(v, t)


def ld(buf, *idx):
    return N.Load(buf, list(idx))


def st_(buf, idx, value):
    return N.Store(buf, list(idx), value)


def b(op, x, y):
    return N.BinOp(op, x, y, x.type)


def ix(var, off):
    return var if off == 0 else N.BinOp("add", var, c(off), index)


def loop(var, lo, hi, body, op=None, step=1):
    lo_e = lo if isinstance(lo, N.Expr) else c(lo)
    hi_e = hi if isinstance(hi, N.Expr) else c(hi)
    return N.For(var, lo_e, hi_e, step, body, var.name, {"op_name": op} if op else {})


def arg(name, t):
    return N.Buffer(name, t, "arg")


def local(name, t):
    return N.Buffer(name, t, "local")


def module(*funcs):
    return N.Module(list(funcs), funcs[-1].name)


def gemm(dt=float32, M=16, N_=16, K=16):
    A, B = arg("A", dt[M, K]), arg("B", dt[K, N_])
    C = local("C", dt[M, N_])
    i, j, k = N.IterVar("i"), N.IterVar("j"), N.IterVar("k")
    upd = st_(C, [i, j], b("add", ld(C, i, j), b("mul", ld(A, i, k), ld(B, k, j))))
    body = [N.Alloc(C, c(0, dt)),
            loop(i, 0, M, [loop(j, 0, N_, [loop(k, 0, K, [upd], op="S_k_1")])], op="S_i_j_0"),
            N.Return([C])]
    return module(N.Func("gemm", [A, B], [dt[M, N_]], body))


def linear(M=8, N_=32, K=16):
    """The seed's nn.linear without the bias: Z[i, j] += X[i, k] * W[j, k]."""
    X, W = arg("X", float32[M, K]), arg("W", float32[N_, K])
    Z = local("Z", float32[M, N_])
    i, j, k = N.IterVar("i"), N.IterVar("j"), N.IterVar("k")
    upd = st_(Z, [i, j], b("add", ld(Z, i, j), b("mul", ld(X, i, k), ld(W, j, k))))
    body = [N.Alloc(Z, c(0.0, float32)),
            loop(i, 0, M, [loop(j, 0, N_, [loop(k, 0, K, [upd], op="S_k_1")])], op="S_i_j_0"),
            N.Return([Z])]
    return module(N.Func("linear", [X, W], [float32[M, N_]], body))


def two_mm(dt=float32, M=8, K=12, N_=10, L=6):
    """tmp = A @ B; out = tmp @ C, with the loop names i, j, k repeated in both nests."""
    A, B, C = arg("A", dt[M, K]), arg("B", dt[K, N_]), arg("C", dt[N_, L])
    tmp, out = local("tmp", dt[M, N_]), local("out", dt[M, L])
    v = {n: N.IterVar(n[0]) for n in ("i0", "j0", "k0", "i1", "j1", "k1")}
    i0, j0, k0, i1, j1, k1 = (v[n] for n in ("i0", "j0", "k0", "i1", "j1", "k1"))
    u0 = st_(tmp, [i0, j0], b("add", ld(tmp, i0, j0), b("mul", ld(A, i0, k0), ld(B, k0, j0))))
    u1 = st_(out, [i1, j1], b("add", ld(out, i1, j1), b("mul", ld(tmp, i1, k1), ld(C, k1, j1))))
    body = [N.Alloc(tmp, c(0, dt)),
            loop(i0, 0, M, [loop(j0, 0, N_, [loop(k0, 0, K, [u0], op="S_k_1")])], op="S_i_j_0"),
            N.Alloc(out, c(0, dt)),
            loop(i1, 0, M, [loop(j1, 0, L, [loop(k1, 0, N_, [u1], op="S_k_3")])], op="S_i_j_2"),
            N.Return([out])]
    return module(N.Func("mm2", [A, B, C], [dt[M, L]], body))


def blur(dt=float32, H=10, W=10):
    """3x3 box sum: B[y, x] = sum A[y + r, x + s]."""
    A, B = arg("A", dt[H, W]), local("B", dt[H - 2, W - 2])
    y, x = N.IterVar("y"), N.IterVar("x")
    total = None
    for r in range(3):
        for s in range(3):
            term = ld(A, ix(y, r), ix(x, s))
            total = term if total is None else b("add", total, term)
    body = [N.Alloc(B, c(0, dt)),
            loop(y, 0, H - 2, [loop(x, 0, W - 2, [st_(B, [y, x], total)])], op="S_y_x_0"),
            N.Return([B])]
    return module(N.Func("blur", [A], [dt[H - 2, W - 2]], body))


def conv(dt=float32, H=8, W=9, KH=3, KW=2):
    """out[y, x] += A[y + r, x + s] * Wt[r, s] (window loops r, s inside y, x)."""
    A, Wt = arg("A", dt[H, W]), arg("Wt", dt[KH, KW])
    out = local("out", dt[H - KH + 1, W - KW + 1])
    y, x, r, s = (N.IterVar(n) for n in "yxrs")
    upd = st_(out, [y, x], b("add", ld(out, y, x), b("mul", ld(A, b("add", y, r), b("add", x, s)), ld(Wt, r, s))))
    body = [N.Alloc(out, c(0, dt)),
            loop(y, 0, H - KH + 1, [loop(x, 0, W - KW + 1, [loop(r, 0, KH, [loop(s, 0, KW, [upd])], op="S_r_s_1")])],
                 op="S_y_x_0"),
            N.Return([out])]
    return module(N.Func("conv", [A, Wt], [dt[H - KH + 1, W - KW + 1]], body))


def stencil1d(n=10):
    """out[i] = A[i] + A[i + 1], plus A[i - 1] when i >= 1 (a guarded read below row 0)."""
    A, out = arg("A", float32[n]), local("out", float32[n - 1])
    i = N.IterVar("i")
    body = [N.Alloc(out, c(0.0, float32)),
            loop(i, 0, n - 1, [st_(out, [i], b("add", ld(A, i), ld(A, ix(i, 1)))),
                               N.If(b("ge", i, c(1)), [st_(out, [i], b("add", ld(out, i), ld(A, ix(i, -1))))])],
                 op="S_i_0"),
            N.Return([out])]
    return module(N.Func("st1", [A], [float32[n - 1]], body))


def prod_cons(consumer_index=None):
    """B[i, j] = A[i, j] + 1; C[ii, jj] = B[<consumer_index>] * 2."""
    A = arg("A", float32[8, 8])
    B, C = local("B", float32[8, 8]), local("C", float32[8, 8])
    i, j, ii, jj = (N.IterVar(n) for n in ("i", "j", "ii", "jj"))
    idx = consumer_index(ii, jj) if consumer_index else [ii, jj]
    body = [N.Alloc(B),
            loop(i, 0, 8, [loop(j, 0, 8, [st_(B, [i, j], b("add", ld(A, i, j), c(1.0, float32)))])], op="S_i_j_0"),
            N.Alloc(C),
            loop(ii, 0, 8, [loop(jj, 0, 8, [st_(C, [ii, jj], b("mul", ld(B, *idx), c(2.0, float32)))])],
                 op="S_ii_jj_1"),
            N.Return([C])]
    return module(N.Func("pc", [A], [float32[8, 8]], body))


def strided(lo=1, hi=15, step=2):
    """out[i] = A[i] * 3 for i in range(lo, hi, step) (other elements stay 0)."""
    A, out = arg("A", float32[16]), local("out", float32[16])
    i = N.IterVar("i")
    body = [N.Alloc(out, c(0.0, float32)),
            loop(i, lo, hi, [st_(out, [i], b("mul", ld(A, i), c(3.0, float32)))], op="S_i_0", step=step),
            N.Return([out])]
    return module(N.Func("strided", [A], [float32[16]], body))


def triangular(n=9):
    """out[i] += A[i, j] for j in range(i, n) (inner bound depends on i)."""
    A, out = arg("A", int32[n, n]), local("out", int32[n])
    i, j = N.IterVar("i"), N.IterVar("j")
    body = [N.Alloc(out, c(0, int32)),
            loop(i, 0, n, [loop(j, i, n, [st_(out, [i], b("add", ld(out, i), ld(A, i, j)))])], op="S_i_0"),
            N.Return([out])]
    return module(N.Func("tri", [A], [int32[n]], body))


# ----------------------------------------------------------------------------- checking helpers
RNG = np.random.default_rng(0)


def inputs(mod):
    out = []
    for p in mod.func(mod.top).params:
        if p.dtype == int32:
            out.append(RNG.integers(-2**31, 2**31 - 1, size=p.shape, dtype=np.int64).astype(np.int32))
        else:
            out.append(RNG.standard_normal(p.shape).astype(np.float32))
    return out


def same(a, b_):
    return a.dtype == b_.dtype and a.shape == b_.shape and a.tobytes() == b_.tobytes()


def check_same(make, schedule, data=None):
    """Run the unscheduled and scheduled module; results must be bit-identical."""
    ref_mod, mod = make(), make()
    data = data if data is not None else inputs(ref_mod)
    func = mod.func(mod.top)
    result = schedule(func)
    verify_func(func, strict=True)
    want, got = run(ref_mod, *data), run(mod, *data)
    assert same(want, got), f"results changed:\n{want}\n{got}"
    return func, result


def fingerprint(func):
    """A printable image of the whole function (to prove failed primitives change nothing)."""
    names = {}

    def nm(o):
        return names.setdefault(id(o), f"{getattr(o, 'name', '?')}#{len(names)}")

    def ex(e):
        if isinstance(e, N.IterVar):
            return nm(e)
        if isinstance(e, N.Const):
            return repr(e.value)
        if isinstance(e, N.Load):
            return f"{nm(e.buf)}[{','.join(map(ex, e.indices))}]"
        return f"{type(e).__name__}({getattr(e, 'op', getattr(e, 'fn', ''))},{','.join(map(ex, V.child_exprs(e)))})"

    def st(s):
        if isinstance(s, N.For):
            return f"for {s.name} {nm(s.var)} {ex(s.lb)}:{ex(s.ub)}:{s.step} {sorted(s.attrs.items())} {{{bl(s.body)}}}"
        if isinstance(s, N.If):
            return f"if {ex(s.cond)} {{{bl(s.then)}}} else {{{bl(s.orelse)}}}"
        if isinstance(s, N.Store):
            return f"{nm(s.buf)}[{','.join(map(ex, s.indices))}]={ex(s.value)}"
        if isinstance(s, N.Alloc):
            return f"alloc {nm(s.buf)} {s.buf.shape} {sorted(s.buf.attrs.items())}"
        return type(s).__name__

    def bl(body):
        return ";".join(map(st, body))

    return bl(func.body) + str([sorted(p.attrs.items()) for p in func.params])


# ----------------------------------------------------------------------------- interpreter sanity
def test_interp_matches_numpy():
    mod = gemm(int32)
    A, B_ = inputs(mod)
    assert same(run(mod, A, B_), A @ B_)  # int32 matmul wraps like the kernel
    mod = gemm(float32)
    A, B_ = inputs(mod)
    got = run(mod, A, B_)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, A @ B_, rtol=1e-5, atol=1e-5)
    A = inputs(blur())[0]
    want = sum(A[r:r + 8, s:s + 8] for r in range(3) for s in range(3))
    np.testing.assert_allclose(run(blur(), A), want, rtol=1e-5)


def _scalar_func(params, ret_t, make_body, name="f"):
    return module(N.Func(name, params, [ret_t], make_body()))


def test_interp_integer_and_cast_semantics():
    from allo.ir.types import Int, int8
    A = arg("A", int8[6])
    Bv = arg("B", int8[6])
    out = local("out", int32[6, 6])
    i = N.IterVar("i")

    def wide(e):
        return N.Cast(e, int32)
    a, bb = ld(A, i), ld(Bv, i)
    exprs = [b("add", a, bb), b("mul", a, bb), b("floordiv", a, bb), b("mod", a, bb), b("div", a, bb),
             N.Cast(N.Cast(b("add", a, bb), Int(5)), int8)]
    body = [N.Alloc(out, c(0, int32))]
    body.append(loop(i, 0, 6, [st_(out, [c(k), i], wide(e)) for k, e in enumerate(exprs)]))
    body.append(N.Return([out]))
    mod = module(N.Func("ints", [A, Bv], [int32[6, 6]], body))
    x = np.array([100, -100, 7, -7, 127, -128], np.int8)
    y = np.array([100, 3, -2, -2, 1, -1], np.int8)
    got = run(mod, x, y)
    with np.errstate(all="ignore"):
        assert (got[0] == (x + y).astype(np.int32)).all()            # int8 wraps
        assert (got[1] == (x * y).astype(np.int32)).all()
        assert (got[2] == (x // y).astype(np.int32)).all()           # floor division like numpy
        assert (got[3] == (x % y).astype(np.int32)).all()
    trunc = [int(p / q) for p, q in zip(x.astype(int), y.astype(int))]
    assert list(got[4]) == [((t + 128) % 256) - 128 for t in trunc]  # C division truncates (then wraps)
    five = [((int(p) + int(q) + 16) % 32) - 16 for p, q in zip(x, y)]  # wraps at 5 bits
    assert list(got[5]) == five
    F = arg("F", float32[4])
    o = local("o", int32[4])
    j = N.IterVar("j")
    fbody = [N.Alloc(o), loop(j, 0, 4, [st_(o, [j], N.Cast(ld(F, j), int32))]), N.Return([o])]
    fm = module(N.Func("f2i", [F], [int32[4]], fbody))
    assert list(run(fm, np.array([1.9, -1.9, 2.5, -0.5], np.float32))) == [1, -1, 2, 0]


def test_interp_fixed_point():
    from allo.ir.fixed import quantize
    from allo.ir.types import Fixed
    T = Fixed(8, 4)
    A, Bv = arg("A", T[4]), arg("B", T[4])
    o = local("o", T[4])
    i = N.IterVar("i")
    body = [N.Alloc(o), loop(i, 0, 4, [st_(o, [i], b("mul", ld(A, i), ld(Bv, i)))]), N.Return([o])]
    mod = module(N.Func("fx", [A, Bv], [T[4]], body))
    x = np.array([1.5, -1.25, 3.0, 7.9375])
    y = np.array([2.0, 1.5, -0.0625, 1.0])
    got = run(mod, x, y)
    raw = np.floor(quantize(x, T) * 16).astype(int) * np.floor(quantize(y, T) * 16).astype(int) >> 4
    want = ((raw + 128) % 256 - 128) / 16.0
    assert got.dtype == np.float64 and list(got) == list(want)


def test_interp_control_flow_calls_and_globals():
    from allo.ir.types import bool as bool_t

    # helper(X, s) -> X * s (array) ; top calls it, then loops with while/if/select over a global
    X, s = arg("X", float32[4]), N.Buffer("s", N.ArrayType(float32, ()), "scalar_arg")
    Y = local("Y", float32[4])
    i = N.IterVar("i")
    helper = N.Func("helper", [X, s], [float32[4]], [
        N.Alloc(Y), loop(i, 0, 4, [st_(Y, [i], b("mul", ld(X, i), ld(s)))]), N.Return([Y])])
    A = arg("A", float32[4])
    G = N.Buffer("G", float32[4], "global", data=np.array([1, 2, 3, 4], np.float32), global_name="g")
    R_ = N.Buffer("R", float32[4], "result")
    cnt = local("cnt", int32[()])
    flag = local("flag", bool_t[4])
    j = N.IterVar("j")
    body = [
        N.CallStmt("helper", [A, c(2.0, float32)], [R_]),
        N.Alloc(cnt, c(0, int32)),
        N.While(b("lt", ld(cnt), c(3, int32)), [st_(cnt, [], b("add", ld(cnt), c(1, int32)))]),
        N.Alloc(flag),
        loop(j, 0, 4, [
            st_(flag, [j], b("gt", ld(R_, j), ld(G, j))),
            N.If(ld(flag, j), [st_(R_, [j], N.Select(b("gt", ld(G, j), c(2.0, float32)), ld(G, j), c(0.0, float32),
                                                    float32))],
                 [st_(R_, [j], b("add", ld(R_, j), N.Cast(ld(cnt), float32)))]),
        ]),
        N.Return([R_]),
    ]
    top = N.Func("top", [A], [float32[4]], body)
    mod = N.Module([helper, top], "top")
    a = np.array([0.25, 2.0, 1.0, 3.0], np.float32)
    r = a * np.float32(2)
    g = np.array([1, 2, 3, 4], np.float32)
    want = np.where(r > g, np.where(g > 2, g, 0), r + 3).astype(np.float32)
    assert same(run(mod, a), want)
    assert same(run(mod, a, np.float32(3), func="helper"), a * np.float32(3))


# ----------------------------------------------------------------------------- loop addressing
def test_find_loop_forms_and_handles():
    f = gemm().func("gemm")
    assert find_loop(f, "k").name == "k"
    assert find_loop(f, "S_i_j_0/j") is find_loop(f, "j") is find_loop(f, "S_i_j_0:j")
    assert find_loop(f, "S_i_j_0") is find_loop(f, "i")
    loops = get_loops(f)
    assert list(loops) == ["S_i_j_0", "S_k_1"]
    h = loops["S_i_j_0"]["k"]
    assert h == LoopHandle("gemm", "S_i_j_0", "k") and hash(h) == hash(LoopHandle("gemm", "S_i_j_0", "k"))
    assert loops.S_i_j_0.j == loops["S_i_j_0"]["j"]
    assert find_loop(f, h) is find_loop(f, "k")
    assert find_loop(f, loops.S_k_1) is find_loop(f, "k")
    assert isinstance(loops["S_i_j_0"], BandHandle)
    assert [x.name for x in loop_path(f, find_loop(f, "k"))] == ["i", "j", "k"]
    assert list(get_bands(f)) == ["S_i_j_0", "S_k_1"]


def test_handles_survive_rewrites():
    f = gemm().func("gemm")
    h = get_loops(f)["S_i_j_0"]["k"]
    split(f, "i", 4)
    reorder(f, "k", "j")
    assert find_loop(f, h).name == "k"
    assert find_loop(f, get_loops(f).S_i_j_0["i.inner"]).name == "i.inner"


def test_find_loop_errors():
    f = gemm().func("gemm")
    with pytest.raises(ScheduleError, match=r"split: argument 'axis': no loop named 'q' in function 'gemm'; loops: i, j, k"):
        split(f, "q", 2)
    with pytest.raises(ScheduleError, match=r"has no band 'S_x_9'; bands: S_i_j_0, S_k_1"):
        find_loop(f, "S_x_9/j")
    with pytest.raises(ScheduleError, match=r"band 'S_k_1' .* has no loop named 'i'"):
        find_loop(f, "S_k_1/i")
    with pytest.raises(ScheduleError, match="has no loop 'z'"):
        get_loops(f)["S_i_j_0"]["z"]
    with pytest.raises(ScheduleError, match="no band 'nope'"):
        get_loops(f).nope
    m = two_mm().func("mm2")
    with pytest.raises(ScheduleError, match=r"pipeline: argument 'axis': loop name 'j' is ambiguous.*'S_i_j_0/j', 'S_i_j_2/j'"):
        pipeline(m, "j")
    assert isinstance(ScheduleError("x"), AlloError)


def test_find_buffer():
    f = two_mm().func("mm2")
    assert find_buffer(f, "tmp").shape == (8, 10)
    with pytest.raises(ScheduleError, match=r"partition: argument 'target': no buffer named 'Q'.*buffers: A, B, C, tmp, out"):
        partition(f, "Q")


# ----------------------------------------------------------------------------- split
@pytest.mark.parametrize("factor", [1, 3, 4, 16, 20])
def test_split_numeric(factor):
    check_same(gemm, lambda f: split(f, "j", factor))
    check_same(gemm, lambda f: split(f, "k", factor))


@pytest.mark.parametrize("factor", [1, 2, 3, 5, 8])
def test_split_strided_loop(factor):
    check_same(strided, lambda f: split(f, "i", factor))
    check_same(lambda: strided(3, 16, 3), lambda f: split(f, "i", factor))


def test_split_non_constant_bounds():
    f, _ = check_same(triangular, lambda f: split(f, "j", 4))
    outer = find_loop(f, "j.outer")
    assert outer.step == 4 and isinstance(outer.lb, N.IterVar)
    check_same(triangular, lambda f: (split(f, "j", 2), split(f, "j.inner", 2)))


def test_split_structure():
    f = gemm().func("gemm")
    outer, inner = split(f, "i", 4)
    assert loop_tree(f) == [("i.outer", [("i.inner", [("j", [("k", [])])])])]
    assert outer.attrs == {"op_name": "S_i_j_0"} and inner.attrs == {}
    assert (trip_count(outer), trip_count(inner)) == (4, 4)
    assert not any(isinstance(s, N.If) for s in V.walk_stmts(f.body))  # 16 % 4 == 0: no guard
    split(f, "j", 5)
    j_in = find_loop(f, "j.inner")
    assert trip_count(find_loop(f, "j.outer")) == 4 and trip_count(j_in) == 5
    assert isinstance(j_in.body[0], N.If)  # 16 % 5 != 0: guarded
    st = next(s for s in V.walk_stmts(f.body) if isinstance(s, N.Store))
    assert st.loc is None or st.loc  # loc is kept on the moved store (None in hand-built IR)


def test_split_errors():
    f = gemm().func("gemm")
    before = fingerprint(f)
    for bad in (0, -2, 2.5, True, "4"):
        with pytest.raises(ScheduleError, match=r"split: argument 'factor': expected a positive integer, got"):
            split(f, "i", bad)
    assert fingerprint(f) == before


# ----------------------------------------------------------------------------- reorder
def test_reorder_numeric_and_structure():
    f, _ = check_same(gemm, lambda f: reorder(f, "k", "j"))
    assert loop_tree(f) == [("i", [("k", [("j", [])])])]
    f, _ = check_same(gemm, lambda f: reorder(f, "j", "k", "i"))
    assert loop_tree(f) == [("j", [("k", [("i", [])])])]
    assert find_loop(f, "j").attrs["op_name"] == "S_i_j_0"  # the band name stays outermost
    assert set(get_bands(f)) == {"S_i_j_0", "S_k_1"}


def test_reorder_keeps_unmentioned_loops_in_place():
    f, _ = check_same(gemm, lambda f: reorder(f, "k", "i"))
    assert loop_tree(f) == [("k", [("j", [("i", [])])])]


def test_reorder_keeps_attributes_with_loops():
    f = gemm().func("gemm")
    pipeline(f, "j", 2)
    reorder(f, "k", "j")
    assert find_loop(f, "j").attrs == {"pipeline_ii": 2}


def test_reorder_after_split_int_exact():
    def sched(f):
        split(f, "k", 4)
        reorder(f, "k.inner", "i", "k.outer")
    check_same(lambda: gemm(int32), sched)


def test_tiling_with_non_dividing_factors():
    def tile(f):
        split(f, "i", 3)
        split(f, "j", 5)
        reorder(f, "i.outer", "j.outer", "i.inner", "j.inner")
    f, _ = check_same(gemm, tile)
    assert loop_tree(f) == [("i.outer", [("j.outer", [("i.inner", [("j.inner", [("k", [])])])])])]
    guards = [s for s in V.walk_stmts(f.body) if isinstance(s, N.If)]
    assert len(guards) == 2  # each guard sits just inside the loop it tests
    assert find_loop(f, "i.inner").body[0] is guards[0] and find_loop(f, "j.inner").body[0] is guards[1]
    check_same(gemm, lambda f: (tile(f), fuse(f, "i.inner", "j.inner"), buffer_at(f, "C", "j.outer")))
    check_same(lambda: gemm(int32), lambda f: (tile(f), reorder(f, "k", "i.outer")))


def test_rewrites_keep_locations():
    from allo.ir.loc import Loc

    def located_gemm():
        mod = gemm()
        f = mod.func("gemm")
        for k, s in enumerate(V.walk_stmts(f.body)):
            s.loc = Loc("k.py", 10 + k, 4)
            for e in V.stmt_exprs(s):
                for x in V.walk_expr(e):
                    if isinstance(x, N.Load):
                        x.loc = Loc("k.py", 10 + k, 8)
        return mod

    def sched(f):
        split(f, "i", 3)
        buffer_at(f, "C", "i.inner")
        reorder(f, "k", "j")
        fuse(f, "i.outer", "i.inner")
    f, _ = check_same(located_gemm, sched)
    nodes = [s for s in V.walk_stmts(f.body) if isinstance(s, (N.Store, N.Alloc, N.For, N.If))]
    nodes += [x for s in V.walk_stmts(f.body) for e in V.stmt_exprs(s) for x in V.walk_expr(e) if isinstance(x, N.Load)]
    assert nodes and all(x.loc is not None for x in nodes)


def test_reorder_errors():
    f = gemm().func("gemm")
    before = fingerprint(f)
    with pytest.raises(ScheduleError, match="reorder: argument 'axes': expected at least two loops"):
        reorder(f, "i")
    with pytest.raises(ScheduleError, match="reorder: argument 'axes': a loop is named twice"):
        reorder(f, "i", "i")
    m = two_mm().func("mm2")
    with pytest.raises(ScheduleError, match="reorder: argument 'axes': loops .* are not nested in one another"):
        reorder(m, "S_i_j_0/i", "S_i_j_2/j")
    buffer_at(f, "C", "i")
    with pytest.raises(ScheduleError, match="reorder: argument 'axes': loops 'i' .. 'k' are not a perfect nest"):
        reorder(f, "k", "i")
    t = triangular().func("tri")
    tb = fingerprint(t)
    with pytest.raises(ScheduleError, match="reorder: argument 'axes': the bounds of loop 'j' depend on loop 'i'"):
        reorder(t, "j", "i")
    assert fingerprint(t) == tb
    assert before != fingerprint(f)  # (buffer_at applied above)


# ----------------------------------------------------------------------------- fuse
def test_fuse_numeric_and_structure():
    f, fused = check_same(gemm, lambda f: fuse(f, "i", "j"))
    assert loop_tree(f) == [("i_j_fused", [("k", [])])]
    assert trip_count(fused) == 256 and fused.attrs["op_name"] == "S_i_j_0"
    f, fused = check_same(gemm, lambda f: fuse(f, "i", "j", "k"))
    assert trip_count(fused) == 4096
    check_same(strided, lambda f: (split(f, "i", 3), fuse(f, "i.outer", "i.inner")))


def test_fuse_errors():
    f = gemm().func("gemm")
    before = fingerprint(f)
    with pytest.raises(ScheduleError, match="fuse: argument 'axes': expected at least two loops"):
        fuse(f, "i")
    with pytest.raises(ScheduleError, match="fuse: argument 'axes': loops .* must be consecutive"):
        fuse(f, "i", "k")
    with pytest.raises(ScheduleError, match="fuse: argument 'axes': loops .* must be consecutive"):
        fuse(f, "j", "i")
    assert fingerprint(f) == before
    t = triangular().func("tri")
    with pytest.raises(ScheduleError, match="fuse: argument 'axes': loop 'j' has non-constant bounds"):
        fuse(t, "i", "j")


# ----------------------------------------------------------------------------- attributes
def test_attribute_primitives():
    f, _ = check_same(gemm, lambda f: (unroll(f, "k", 4), unroll(f, "j"), pipeline(f, "i", 3), parallel(f, "i"),
                                       dataflow(f), dataflow(f, "j")))
    assert find_loop(f, "k").attrs["unroll"] == 4
    assert find_loop(f, "j").attrs == {"unroll": 0, "dataflow": True}
    i = find_loop(f, "i")
    assert i.attrs["pipeline_ii"] == 3 and i.attrs["parallel"] is True
    assert f.attrs["dataflow"] is True


def test_attribute_errors():
    f = gemm().func("gemm")
    with pytest.raises(ScheduleError, match=r"unroll: argument 'factor': expected an integer >= 0, got -1"):
        unroll(f, "k", -1)
    with pytest.raises(ScheduleError, match=r"pipeline: argument 'initiation_interval': expected a positive integer, got 0"):
        pipeline(f, "k", 0)
    with pytest.raises(ScheduleError, match=r"parallel: argument 'axis': no loop named 'x'"):
        parallel(f, "x")


def test_partition():
    f = gemm().func("gemm")
    partition(f, "A", "cyclic", 2, 4)
    partition(f, "C")

    class Partition:  # an enum-like value, as the Schedule API passes
        name = "Block"
    partition(f, "B", Partition, 1, 2)
    assert find_buffer(f, "A").attrs["partition"] == [("cyclic", 2, 4)]
    assert find_buffer(f, "C").attrs["partition"] == [("complete", 0, 0)]
    assert find_buffer(f, "B").attrs["partition"] == [("block", 1, 2)]
    before = fingerprint(f)
    with pytest.raises(ScheduleError, match=r"partition: argument 'dim': buffer 'A' has rank 2; dim must be in 0..2"):
        partition(f, "A", "cyclic", 3, 2)
    with pytest.raises(ScheduleError, match=r"partition: argument 'factor': expected a positive integer, got 0"):
        partition(f, "A", "block", 1, 0)
    with pytest.raises(ScheduleError, match=r"partition: argument 'partition_type': expected one of"):
        partition(f, "A", "diagonal", 1, 2)
    with pytest.raises(ScheduleError, match=r"partition: argument 'dim': expected an integer >= 0"):
        partition(f, "A", "complete", -1)
    assert fingerprint(f) == before


# ----------------------------------------------------------------------------- buffer_at
def test_buffer_at_numeric_and_structure():
    f, buf = check_same(gemm, lambda f: buffer_at(f, "C", "i"))
    assert buf.name == "C_buf" and buf.shape == (16,)
    assert loop_tree(f) == [("i", [("j_init", []), ("j", [("k", [])]), ("j_back", [])])]
    j_init, j_back = find_loop(f, "j_init"), find_loop(f, "j_back")
    assert j_init.attrs["op_name"].startswith("S_j_init_") and j_back.attrs["op_name"].startswith("S_j_back_")
    assert isinstance(f.body[1], N.Alloc) and f.body[1].buf is buf  # allocated once, outside the loops
    assert isinstance(j_init.body[0].value, N.Const)  # C starts at 0 and row i is fresh: store the constant
    assert isinstance(j_back.body[0], N.Store) and j_back.body[0].buf.name == "C"


def test_buffer_at_scalar_accumulator_and_reads_current_values():
    f, buf = check_same(gemm, lambda f: buffer_at(f, "C", "j"))
    assert buf.shape == ()
    assert loop_tree(f) == [("i", [("j", [("k", [])])])]
    assert isinstance(find_loop(f, "j").body[0].value, N.Load)  # j is not top level: read C
    # the second nest of 2mm reads tmp, and out's slices are fresh per i1
    check_same(two_mm, lambda f: (buffer_at(f, "tmp", "S_i_j_0/i"), buffer_at(f, "out", "S_i_j_2/j")))


def test_buffer_at_after_reorder_and_split():
    check_same(gemm, lambda f: (reorder(f, "k", "j"), buffer_at(f, "C", "i")))
    check_same(gemm, lambda f: (split(f, "i", 3), buffer_at(f, "C", "i.inner"), split(f, "j_init", 5)))
    check_same(gemm, lambda f: (split(f, "j", 4), buffer_at(f, "C", "i")))


def test_seed_linear_schedule():
    def sched(f):
        buffer_at(f, "Z", "i")
        reorder(f, "k", "j")
        pipeline(f, "j")
    f, _ = check_same(linear, sched)
    assert loop_tree(f) == [("i", [("j_init", []), ("k", [("j", [])]), ("j_back", [])])]
    assert find_loop(f, "j").attrs["pipeline_ii"] == 1
    assert find_loop(f, "i").attrs["op_name"] == "S_i_j_0"
    assert find_loop(f, "k").attrs["op_name"] == "S_k_1"
    init = find_loop(f, "j_init").body[0]
    assert init.buf.name == "Z_buf" and isinstance(init.value, N.Const) and init.value.value == 0.0


def test_buffer_at_errors():
    f = gemm().func("gemm")
    before = fingerprint(f)
    with pytest.raises(ScheduleError, match="buffer_at: argument 'axis': no loop named 'w'"):
        buffer_at(f, "C", "w")
    with pytest.raises(ScheduleError, match="buffer_at: argument 'target': no buffer named 'Q'"):
        buffer_at(f, "Q", "i")
    assert fingerprint(f) == before


# ----------------------------------------------------------------------------- reuse_at
def test_reuse_at_line_buffer():
    f, lb = check_same(blur, lambda f: reuse_at(f, "A", "y"))
    assert lb.shape == (3, 10) and lb.name == "A_reuse_y"
    y = find_loop(f, "y")
    assert (y.lb.value, y.ub.value) == (0, 10) and y.attrs["op_name"] == "S_y_x_0"
    tree = loop_tree(f)
    assert tree == [("y", [("A_reuse_y_c0", [("A_reuse_y_shift", [])]), ("x", [])])]
    assert not any(ld.buf.name == "A" for ld in _loads(find_loop(f, "x").body))
    alloc = next(s for s in f.body if isinstance(s, N.Alloc) and s.buf is lb)
    assert alloc.init.value == 0.0  # zero-filled: no slot is ever read uninitialised


def test_reuse_at_window_chain():
    def sched(f):
        lb = reuse_at(f, "A", "y")
        return lb, reuse_at(f, lb, "x")
    f, (lb, wb) = check_same(blur, sched)
    assert wb.shape == (3, 3)
    x = find_loop(f, "x")
    assert (x.lb.value, x.ub.value) == (0, 10)
    assert {ld.buf.name for ld in _loads(x.body[-1].then)} == {wb.name}
    check_same(lambda: blur(int32, 12, 9), sched)
    check_same(blur, lambda f: (reuse_at(f, "A", "x"), split(f, "y", 3)))


def test_reuse_at_convolution_window():
    def sched(f):
        lb = reuse_at(f, "A", "y")
        return lb, reuse_at(f, lb, "x")
    f, (lb, wb) = check_same(conv, sched)
    assert lb.shape == (3, 9) and wb.shape == (3, 2)
    r_loop = find_loop(f, "r")
    assert {ld.buf.name for ld in _loads(r_loop.body)} == {wb.name, "Wt", "out"}
    check_same(lambda: conv(int32, 7, 7, 2, 3), sched)
    check_same(conv, lambda f: (split(f, "r", 2), reuse_at(f, "A", "y")))


def test_reuse_at_1d_with_boundary_guard():
    f, rb = check_same(stencil1d, lambda f: reuse_at(f, "A", "i"))
    assert rb.shape == (3,)
    i = find_loop(f, "i")
    assert (i.lb.value, i.ub.value) == (-1, 10)
    fill = [s for s in i.body if isinstance(s, N.If)][0]  # the row load is guarded (row -1 does not exist)
    assert isinstance(fill.then[0], N.Store) and fill.then[0].buf is rb


def test_reuse_at_after_split():
    def sched(f):
        split(f, "y", 3)
        lb = reuse_at(f, "A", "y.inner")  # rows restart with every y.outer block
        reuse_at(f, lb, "x")
    check_same(blur, sched)


def _loads(body):
    from allo.ir.effects import loads
    return list(loads(body))


def test_reuse_at_errors():
    f = blur().func("blur")
    before = fingerprint(f)
    with pytest.raises(ScheduleError, match="reuse_at: argument 'target': buffer 'B' is written inside loop 'y'"):
        reuse_at(f, "B", "y")
    m = two_mm().func("mm2")
    with pytest.raises(ScheduleError, match="reuse_at: argument 'target': buffer 'C' is not read inside loop 'i'"):
        reuse_at(m, "C", "S_i_j_0/i")
    g = gemm().func("gemm")
    with pytest.raises(ScheduleError, match="reuse_at: argument 'axis': reads of 'B' must index exactly one"):
        reuse_at(g, "B", "i")
    s = strided(0, 8, 1).func("strided")
    i = find_loop(s, "i")
    i.body[0].value.lhs.indices = [N.BinOp("mul", i.var, i.var, index)]  # A[i*i] (A[2*i] is a strided window)
    with pytest.raises(ScheduleError, match="reuse_at: argument 'axis': a read of 'A' is not a stencil access"):
        reuse_at(s, "A", "i")
    st2 = strided(0, 16, 2).func("strided")
    with pytest.raises(ScheduleError, match="reuse_at: argument 'axis': loop 'i' has step 2"):
        reuse_at(st2, "A", "i")
    assert fingerprint(f) == before


# ----------------------------------------------------------------------------- compute_at
def test_compute_at_inner():
    f, _ = check_same(prod_cons, lambda f: compute_at(f, "j", "jj"))
    assert loop_tree(f) == [("ii", [("jj", [])])]
    jj = find_loop(f, "jj")
    assert [s.buf.name for s in jj.body] == ["B", "C"]
    assert find_loop(f, "ii").attrs["op_name"] == "S_ii_jj_1"


def test_compute_at_outer():
    rev = lambda ii, jj: [ii, N.BinOp("sub", c(7), jj, index)]  # noqa: E731 - reads row ii in reverse
    f, _ = check_same(lambda: prod_cons(rev), lambda f: compute_at(f, "i", "ii"))
    assert loop_tree(f) == [("ii", [("j", []), ("jj", [])])]
    assert find_loop(f, "j").attrs["op_name"] == "S_i_j_0"  # the producer band keeps its name
    check_same(prod_cons, lambda f: (compute_at(f, "i", "ii"), split(f, "j", 3)))


def test_compute_at_errors():
    rev = lambda ii, jj: [ii, N.BinOp("sub", c(7), jj, index)]  # noqa: E731
    f = prod_cons(rev).func("pc")
    before = fingerprint(f)
    with pytest.raises(ScheduleError, match="compute_at: argument 'target_loop': the consumer reads 'B' at elements other"):
        compute_at(f, "j", "jj")
    with pytest.raises(ScheduleError, match="compute_at: argument 'target_loop': 'i' is at depth 1 .* 'jj' is at depth 2"):
        compute_at(f, "i", "jj")
    with pytest.raises(ScheduleError, match="compute_at: argument 'from_loop': the nest of 'ii' must come before"):
        compute_at(f, "ii", "i")
    with pytest.raises(ScheduleError, match="compute_at: argument 'target_loop': loops 'i' and 'j' are nested"):
        compute_at(f, "i", "j")
    assert fingerprint(f) == before
    g = prod_cons().func("pc")
    split(g, "jj", 3)
    with pytest.raises(ScheduleError, match="compute_at: argument 'target_loop': loop 'j' .* must have equal constant extents"):
        compute_at(g, "j", "jj.outer")


# ----------------------------------------------------------------------------- random schedules
KERNELS = {
    "pc": prod_cons,
    "gemm": lambda: gemm(int32, 6, 7, 5),
    "mm2": lambda: two_mm(int32, 5, 4, 6, 3),
    "blur": lambda: blur(int32, 7, 8),
    "conv": lambda: conv(int32, 6, 5, 2, 3),
}


def _random_step(data, func):
    """Apply one random primitive; ScheduleErrors are fine when the state is left unchanged."""
    loops = [lp for lp in V.walk_stmts(func.body) if isinstance(lp, N.For)]
    handles = {id(lp): _qualified(func, lp) for lp in loops}
    pick = lambda: handles[id(data.draw(st.sampled_from(loops)))]  # noqa: E731
    prim = data.draw(st.sampled_from(["split", "reorder", "fuse", "unroll", "buffer_at", "pipeline", "reuse_at",
                                      "compute_at"]))
    if prim == "split":
        return split, (pick(), data.draw(st.integers(1, 9)))
    if prim == "reorder":
        return reorder, (pick(), pick())
    if prim == "fuse":
        return fuse, (pick(), pick())
    if prim == "compute_at":
        return compute_at, (pick(), pick())
    if prim == "unroll":
        return unroll, (pick(), data.draw(st.integers(0, 4)))
    if prim == "pipeline":
        return pipeline, (pick(), data.draw(st.integers(1, 3)))
    bufs = [b_.name for b_ in V.iter_buffers(func) if b_.kind != "global"]
    target = data.draw(st.sampled_from(bufs))
    return (buffer_at if prim == "buffer_at" else reuse_at), (target, pick())


def _qualified(func, lp):
    from allo.schedule import band_of
    same_name = [x for x in V.walk_stmts(func.body) if isinstance(x, N.For) and x.name == lp.name]
    if len(same_name) == 1:
        return lp.name
    return f"{band_of(func, lp)}/{lp.name}"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from(sorted(KERNELS)))
def test_random_schedules_keep_results(data, kernel):
    make = KERNELS[kernel]
    ref = make()
    args = inputs(ref)
    want = run(ref, *args)
    mod = make()
    func = mod.func(mod.top)
    if kernel == "pc" and data.draw(st.booleans()):
        compute_at(func, *data.draw(st.sampled_from([("i", "ii"), ("j", "jj")])))
    applied = 0
    for _ in range(data.draw(st.integers(1, 6))):
        prim, params = _random_step(data, func)
        before = fingerprint(func)
        try:
            prim(func, *params)
            applied += 1
        except ScheduleError:
            assert fingerprint(func) == before, f"{prim.__name__}{params} failed but changed the IR"
            continue
        verify_func(func, strict=True)
    assert same(run(mod, *args), want)


# ----------------------------------------------------------------------------- dependences
def wavefront(di, dj):
    """A[i, j] = A[i - di, j - dj] + 1 over the interior (in place)."""
    A = arg("A", int32[8, 8])
    i, j = N.IterVar("i"), N.IterVar("j")
    src = ld(A, ix(i, -di), ix(j, -dj))
    body = [loop(i, 1, 7, [loop(j, 1, 7, [st_(A, [i, j], b("add", src, c(1, int32)))])], op="S_i_j_0")]
    return module(N.Func("wave", [A], [], body))


@pytest.mark.parametrize("di,dj,legal", [(1, 0, True), (0, 1, True), (1, 1, True), (1, -1, False), (-1, 1, False)])
def test_reorder_checks_dependences(di, dj, legal):
    def run_inplace(mod, A):
        A = A.copy()
        run(mod, A)
        return A
    A = inputs(wavefront(di, dj))[0]
    mod = wavefront(di, dj)
    f = mod.func("wave")
    if legal:
        reorder(f, "j", "i")
        assert loop_tree(f) == [("j", [("i", [])])]
        assert same(run_inplace(mod, A), run_inplace(wavefront(di, dj), A))
    else:
        before = fingerprint(f)
        with pytest.raises(ScheduleError, match=r"reorder: argument 'axes': order \(j, i\) reverses a dependence on 'A'"):
            reorder(f, "j", "i")
        assert fingerprint(f) == before


# ----------------------------------------------------------------------------- IR from the frontend
def _fe_gemm(A: float32[16, 16], B: float32[16, 16]) -> float32[16, 16]:
    C: float32[16, 16] = 0.0
    for i, j in allo.grid(16, 16):
        for k in allo.reduction(16):
            C[i, j] += A[i, k] * B[k, j]
    return C


def _fe_blur(A: float32[10, 10]) -> float32[8, 8]:
    B: float32[8, 8] = 0.0
    for y, x in allo.grid(8, 8):
        B[y, x] = (A[y, x] + A[y, x + 1] + A[y, x + 2] + A[y + 1, x] + A[y + 1, x + 1] + A[y + 1, x + 2]
                   + A[y + 2, x] + A[y + 2, x + 1] + A[y + 2, x + 2])
    return B


def _fe_pc(A: float32[8, 8]) -> float32[8, 8]:
    B: float32[8, 8] = 0.0
    for i, j in allo.grid(8, 8):
        B[i, j] = A[i, j] + 1.0
    C: float32[8, 8] = 0.0
    for ii, jj in allo.grid(8, 8):
        C[ii, jj] = B[ii, jj] * 2.0
    return C


FRONTEND_SCHEDULES = [
    ("_fe_gemm", lambda f: (split(f, "i", 3), split(f, "j", 5), reorder(f, "i.outer", "j.outer", "i.inner", "j.inner"),
                            pipeline(f, "j.inner"))),
    ("_fe_gemm", lambda f: (buffer_at(f, "C", "i"), reorder(f, "k", "j"), pipeline(f, "j"))),
    ("_fe_gemm", lambda f: (fuse(f, "i", "j"), unroll(f, "k", 4), split(f, "i_j_fused", 7))),
    ("_fe_blur", lambda f: reuse_at(f, reuse_at(f, "A", "y"), "x")),
    ("_fe_pc", lambda f: compute_at(f, "j", "jj")),
    ("_fe_pc", lambda f: compute_at(f, "i", "ii")),
]


@pytest.mark.parametrize("kernel,schedule", FRONTEND_SCHEDULES)
def test_primitives_on_frontend_ir(kernel, schedule):
    build_ir = pytest.importorskip("allo.schedule.kernel_ir").build_ir
    fn = globals()[kernel]
    check_same(lambda: build_ir(fn)[0], schedule)


def test_reorder_after_reuse_at_is_rejected():
    """A reuse buffer carries values from one x iteration to the next (found by the random test)."""
    mod = blur(int32, 7, 8)
    func = mod.func(mod.top)
    reuse_at(func, "A", "x")
    with pytest.raises(ScheduleError, match="reuse buffer"):
        reorder(func, "x", "y")


def test_buffer_at_after_reuse_at_stays_inside_the_split_guard():
    """split(i, 4) of 6 rows leaves a guard; a reuse_at fill beside it must not pull buffer_at's
    copies out of it (they read and wrote rows 6 and 7 of a 6-row array)."""
    ref = KERNELS["gemm"]()
    args = inputs(ref)
    want = run(ref, *args)
    mod = KERNELS["gemm"]()
    func = mod.func(mod.top)
    split(func, "i", 4)
    reuse_at(func, "A", "i.inner")
    buffer_at(func, "C", "i.inner")
    buffer_at(func, "C", "i.inner")
    verify_func(func, strict=True)
    assert same(run(mod, *args), want)
