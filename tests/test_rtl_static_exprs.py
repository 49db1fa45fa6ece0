"""The static RTL expression printer (allo.backend.rtl.static.exprs) is bit-exact with the LLVM
build: every operator x integer / fixed-point / bool / index types x boundary values, and
hypothesis-generated expression trees, simulated by Verilator (tests/rtl_comb_sim.py, one build
per batch) and compared bit for bit with the LLVM build, or with allo.interp where the LLVM
kernel boundary cannot carry the values (leaves wider than 64 bits, fixed point over 53 bits).

Default run: two Verilator builds (the sweep; 60 random groups) and one Yosys parse. ALLO_RTL_FULL=1
adds types to the sweep, the sweep with a named wire per node, 20 batches of hypothesis-drawn
trees and a wired random batch.
"""
import random
import re
import subprocess

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from allo.backend.rtl.static.exprs import ExprEmitter, iso, op_kind, sv_width
from allo.backend.rtl.tools import yosys_command
from allo.errors import AlloTypeError, BackendError
from allo.ir import bits, emit
from allo.ir import nodes as N
from allo.ir.loc import Loc
from allo.ir.ops import BinOpKind, UnaryOpKind
from allo.ir.types import Fixed, Index, Int, UFixed, UInt, float16, float32, index, int8, int16, int32, int64
from allo.ir.visit import child_exprs

from .rtl_comb_sim import (Group, checked, interp_reference, leaf, llvm_reference, merge, mismatches, simulate,
                           sv_text)
from .rtl_expr_trees import boundary_values, groups, seeded_groups
from .rtl_util import FULL, needs_rtl

INTS = [Int(1), Int(2), Int(7), Int(8), Int(9), Int(16), Int(32), Int(33), Int(64), Int(65), Int(128),
        UInt(1), UInt(2), UInt(8), UInt(16), UInt(31), UInt(32), UInt(64), UInt(65), UInt(128), index]
FIXED = [Fixed(8, 4), Fixed(16, 8), Fixed(12, 0), Fixed(8, 8), Fixed(5, 3), Fixed(32, 16), Fixed(64, 32),
         UFixed(8, 4), UFixed(16, 3), UFixed(8, 8), UFixed(40, 20)]
if FULL:
    INTS += [Int(3), Int(15), Int(31), Int(63), Int(100), UInt(3), UInt(9), UInt(33), UInt(63), UInt(100)]
    FIXED += [Fixed(24, 23), Fixed(48, 12), Fixed(65, 30), UFixed(3, 1), UFixed(32, 32), UFixed(64, 16)]
INT_OPS = [BinOpKind.ADD, BinOpKind.SUB, BinOpKind.MUL, BinOpKind.DIV, BinOpKind.FLOORDIV, BinOpKind.MOD,
           BinOpKind.MIN, BinOpKind.MAX, BinOpKind.AND, BinOpKind.OR, BinOpKind.XOR, BinOpKind.SHL, BinOpKind.SHR,
           BinOpKind.POW]
FIXED_OPS = [BinOpKind.ADD, BinOpKind.SUB, BinOpKind.MUL, BinOpKind.DIV, BinOpKind.MIN, BinOpKind.MAX]
BITWISE = [BinOpKind.AND, BinOpKind.OR, BinOpKind.XOR]  # on integers only (the frontend refuses fixed point)
CMPS = [BinOpKind.LT, BinOpKind.LE, BinOpKind.GT, BinOpKind.GE, BinOpKind.EQ, BinOpKind.NE]
BOOL = UInt(1)
MIXED = [(int8, UInt(8)), (Int(8), Fixed(8, 4)), (UFixed(8, 4), Fixed(16, 8)), (int32, UInt(32)),
         (UInt(64), int64), (int16, index), (UInt(3), Fixed(12, 2)), (Int(5), UInt(1))]


def _operand(name, t):
    """A leaf of type t (index: an int64 leaf cast to index, as loop variables enter)."""
    if isinstance(t, Index):
        ld = leaf(name, int64)
        return ld.buf, N.Cast(ld, index)
    ld = leaf(name, t)
    return ld.buf, ld


def _rows(pick_from, n, rng):
    return [tuple(rng.choice(vals) for vals in pick_from) for _ in range(n)]


def _binary_group(t, rng):
    (ba, a), (bb, b) = _operand(f"a_{t}", t), _operand(f"b_{t}", t)
    vals = boundary_values(int64 if isinstance(t, Index) else t)
    rows = [(x, y) for x in vals for y in vals]
    ops = FIXED_OPS if isinstance(t, (Fixed, UFixed)) else [op for op in INT_OPS if op != BinOpKind.POW or
                                                           not isinstance(t, (Index, UInt)) or t.bits > 1]
    wide = isinstance(t, (Int, UInt)) and t.bits > 64
    if wide:  # allo.interp's pow beyond 64 bits gives 0 for every negative exponent, LLVM +-1 for bases +-1
        ops = [op for op in ops if op != BinOpKind.POW]
    exprs = [N.BinOp(op, a, b, t) for op in ops] + [N.BinOp(op, a, b, BOOL) for op in CMPS]
    exprs += [N.BinOp(op, emit.to_bool(a), emit.to_bool(b), BOOL) for op in (BinOpKind.LAND, BinOpKind.LOR)]
    out = [Group([ba, bb], rows, exprs, f"bin {t!r}")]
    if wide:  # the same operators on values that enter as int64, so that the LLVM build checks them
        (bx, x), (by, y) = _operand(f"x_{t}", int64), _operand(f"y_{t}", int64)
        x, y = N.Cast(x, t), N.Cast(y, t)
        vals64 = boundary_values(int64)
        out.append(Group([bx, by], [(p, q) for p in vals64 for q in vals64],
                         [N.BinOp(op, x, y, t) for op in INT_OPS] + [N.BinOp(op, x, y, BOOL) for op in CMPS],
                         f"wide {t!r}"))
    if t == BOOL:  # bool ** bool: the LLVM build of it never ends (an i1 shift by 1 in its loop): interp only
        out.append(Group([ba, bb], rows, [N.BinOp(BinOpKind.POW, a, b, t)], "bool pow", llvm=False))
    if isinstance(t, (Fixed, UFixed)):  # shifts move the raw bits by an integer of t's width
        amount_t = (Int if isinstance(t, Fixed) else UInt)(t.bits)
        bn, n = _operand(f"n_{t}", amount_t)
        out.append(Group([ba, bn], [(x, y) for x in vals for y in boundary_values(amount_t)],
                         [N.BinOp(op, a, n, t) for op in (BinOpKind.SHL, BinOpKind.SHR)], f"shift {t!r}"))
    return out


def _unary_group(t, rng, targets):
    ba, a = _operand(f"u_{t}", t)
    vals = boundary_values(int64 if isinstance(t, Index) else t)
    rows = [(v,) for v in vals] + [(rng.getrandbits(sv_width(t)),) for _ in range(6)]
    exprs = [N.UnaryOp(UnaryOpKind.NEG, a, t), N.UnaryOp(UnaryOpKind.INVERT, a, t),
             N.UnaryOp(UnaryOpKind.NOT, emit.to_bool(a), BOOL), emit.unary(UnaryOpKind.NEG, a),
             N.Cast(a, BOOL)]
    if not isinstance(t, Index) and sv_width(t) <= 64:
        exprs.append(N.MathCall("abs", [a], t))  # allo.interp's abs does not wrap fixed MIN: LLVM checks these
    exprs += [N.Cast(a, d) for d in targets if d != t]
    if isinstance(t, (Int, UInt)):
        w = t.bits
        exprs += [bits.bit_get(a, 0), bits.bit_get(a, w - 1), bits.bit_reverse(a), bits.bit_slice(a, 0, (w + 1) // 2),
                  bits.bit_slice(a, w // 2, w), bits.bit_slice(a, w - 1, w)]
    return Group([ba], rows, exprs, f"unary {t!r}")


def _bits_group(t, rng):
    """Run-time bit indices (inside, at and beyond the width, negative) and slice writes."""
    w = t.bits
    bx, x = _operand(f"x_{t}", t)
    bi, i = _operand(f"i_{t}", int64)
    bb, b = _operand(f"c_{t}", BOOL)
    lo, hi = w // 3, w // 3 + max(1, w // 2)
    bv, v = _operand(f"v_{t}", UInt(hi - lo))
    idx = [k & (2 ** 64 - 1) for k in (0, 1, w - 1, w, w + 1, 63, 64, -1, 1 << 40, w // 2)]
    rows = _rows([boundary_values(t), idx, [0, 1], boundary_values(UInt(hi - lo))], 40, rng)
    ix = emit.cast(i, index)
    exprs = [bits.bit_get(x, ix), bits.bit_set(x, ix, b), bits.slice_set(x, lo, hi, None, v),
             bits.slice_set(x, 0, w, None, emit.cast(v, UInt(w))), bits.bit_set(x, w - 1, b)]
    return Group([bx, bi, bb, bv], rows, exprs, f"bits {t!r}")


def _select_group(t, rng):
    bc, c = _operand(f"s_{t}", BOOL)
    (ba, a), (bb, b) = _operand(f"p_{t}", t), _operand(f"q_{t}", t)
    vals = boundary_values(int64 if isinstance(t, Index) else t)
    rows = _rows([[0, 1], vals, vals], 12, rng)
    return Group([bc, ba, bb], rows, [N.Select(c, a, b, t)], f"select {t!r}")


def _mixed_group(ta, tb, rng):
    """Operands of two types through the frontend's promotion (bit growth, casts, narrowing)."""
    (ba, a), (bb, b) = _operand(f"m_{ta}", ta), _operand(f"n_{tb}", tb)
    va, vb = (boundary_values(int64 if isinstance(t, Index) else t) for t in (ta, tb))
    exprs = []
    for op in FIXED_OPS + BITWISE + CMPS + [BinOpKind.FLOORDIV, BinOpKind.MOD, BinOpKind.SHL, BinOpKind.SHR]:
        try:
            exprs.append(emit.binary(op, a, b))
        except AlloTypeError:  # an operator the types do not allow (e.g. // on fixed point)
            continue
    exprs.append(emit.select(emit.binary(BinOpKind.LT, a, b), a, b))
    return Group([ba, bb], [(x, y) for x in va for y in vb], exprs, f"mixed {ta!r} {tb!r}")


def sweep_groups(seed=27):
    rng = random.Random(seed)
    types = INTS + FIXED
    targets = types
    out = []
    for t in types:
        out += _binary_group(t, rng)
        out.append(_unary_group(t, rng, targets))
        out.append(_select_group(t, rng))
        if isinstance(t, (Int, UInt)):
            out.append(_bits_group(t, rng))
    out += [_mixed_group(ta, tb, rng) for ta, tb in MIXED]
    return out


def _check(gs, wires=False):
    got = simulate(gs, wires=wires)
    want = merge(llvm_reference(gs), interp_reference(gs))
    assert checked(want) == sum(len(g.rows) * len(g.exprs) for g in gs), "every result has a reference"
    bad = mismatches(gs, got, want)
    assert not bad, "\n".join(bad)
    return checked(want)


# ----------------------------------------------------------------------------- Verilator
@needs_rtl
def test_every_operator_type_and_boundary_value_is_bit_exact():
    n = _check(sweep_groups())
    assert n > 30000


@needs_rtl
@pytest.mark.skipif(not FULL, reason="the sweep again with a wire per node; set ALLO_RTL_FULL=1")
def test_sweep_with_a_wire_per_node():
    _check(sweep_groups(), wires=True)


def _tree_settings(n):
    return settings(max_examples=n, deadline=None, derandomize=True, database=None,
                    phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))


@needs_rtl
@_tree_settings(1)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_expression_trees_are_bit_exact(seed):
    """One build of 60 random groups (a seed: hypothesis's first example of a composite strategy
    is its minimal one, trees of one node; the shrinkable strategy runs in the full sweep)."""
    _check(seeded_groups(seed, 60))


@needs_rtl
@pytest.mark.skipif(not FULL, reason="20 builds of 100 hypothesis-drawn groups; set ALLO_RTL_FULL=1")
@_tree_settings(20)
@given(gs=groups(count=100))
def test_hypothesis_expression_trees_are_bit_exact(gs):
    _check(gs)


@needs_rtl
@pytest.mark.skipif(not FULL, reason="a bigger random batch; set ALLO_RTL_FULL=1")
def test_seeded_random_trees_with_wires():
    _check(seeded_groups(7, 200), wires=True)


# ----------------------------------------------------------------------------- printer alone
def _ld(name, t):
    return leaf(name, t)


def test_widths():
    assert [sv_width(t) for t in (index, BOOL, Int(5), UInt(128), Fixed(16, 8), UFixed(3, 3))] == [64, 1, 5, 128, 16, 3]


def test_results_are_self_determined_primaries():
    """Every result is a concatenation, a helper call or a literal: safe inside any operator."""
    em = ExprEmitter()
    a, b = _ld("a", Int(8)), _ld("b", Int(8))
    exprs = [N.BinOp(op, a, b, Int(8)) for op in INT_OPS] + [N.BinOp(op, a, b, BOOL) for op in CMPS]
    exprs += [N.Cast(a, t) for t in (Int(16), UInt(4), Fixed(12, 4), BOOL, index)] + [N.Const(-3, Int(8))]
    for e in exprs:
        text = em.emit(e, ["a", "b"][:len(child_exprs(e))])
        assert iso(text) == text, text


def test_helpers_are_emitted_once_when_used_and_named_by_width():
    em = ExprEmitter()
    assert em.functions() == ""
    a, b = _ld("a", int32), _ld("b", int32)
    em.emit(N.BinOp("floordiv", a, b, int32), ["a", "b"])
    em.emit(N.BinOp("floordiv", a, b, int32), ["x", "y"])
    em.emit(N.BinOp("mul", _ld("p", Fixed(16, 8)), _ld("q", Fixed(16, 8)), Fixed(16, 8)), ["p", "q"])
    em.emit(N.BinOp("div", _ld("p", UFixed(8, 2)), _ld("q", UFixed(8, 2)), UFixed(8, 2)), ["p", "q"])
    names = re.findall(r"function automatic logic \[\d+:0\] (\w+)\(", em.functions())
    assert names == ["allo_div_u16", "allo_floordiv_s32", "allo_fxdiv_u8_2", "allo_fxmul_s16_8"]
    assert "return" not in em.functions()  # Yosys 0.70 reads no `return`


def test_constants_are_sized_raw_literals():
    em = ExprEmitter()
    assert em.emit(N.Const(-1, Int(8)), []) == "8'hff"
    assert em.emit(N.Const(-1.5, Fixed(8, 2)), []) == "8'hfa"
    assert em.emit(N.Const(True, BOOL), []) == "1'h1"
    assert em.emit(N.Const(-2, index), []) == "64'hfffffffffffffffe"


def test_op_kinds():
    a, b = _ld("a", int8), _ld("b", int8)
    kinds = {op_kind(N.BinOp(op, a, b, int8)) for op in (BinOpKind.ADD, BinOpKind.SUB)}
    assert kinds == {"add"}
    assert op_kind(N.BinOp("mul", a, b, int8)) == "mul"
    assert op_kind(N.BinOp("mod", a, b, int8)) == "div"
    assert op_kind(N.BinOp("lt", a, b, BOOL)) == op_kind(N.BinOp("max", a, b, int8)) == "cmp"
    assert op_kind(N.BinOp("shl", a, b, int8)) == "shift"
    assert op_kind(N.BinOp("shl", a, N.Const(2, int8), int8)) == "shift_const"
    assert op_kind(N.BinOp("xor", a, b, int8)) == op_kind(N.UnaryOp("invert", a, int8)) == "logic"
    assert op_kind(N.UnaryOp("neg", a, int8)) == "add"
    assert op_kind(N.Select(N.Const(1, BOOL), a, b, int8)) == "select"
    assert op_kind(N.Cast(a, int16)) == "cast"
    assert op_kind(bits.bit_slice(a, 0, 4)) == "bit"
    assert op_kind(N.Const(3, int8)) == "const"
    assert op_kind(N.Cast(a, float32)) == "float"
    with pytest.raises(BackendError, match="not an operator"):
        op_kind(a)


def test_floats_go_to_the_hook_with_op_and_line():
    loc = Loc("kern.py", 12, 4, "    C[i] = A[i] * 2.0")
    x = _ld("x", float32)
    e = N.BinOp("mul", x, N.Const(2.0, float32), float32, loc)
    em = ExprEmitter()
    assert em.emit(e, ["x", "32'h40000000"]) in em.instances() and "module allo_f32_mul_m(" in em.modules()  # the float32 units
    h = _ld("h", float16)
    with pytest.raises(BackendError, match=r"kern.py:12: .*float16"):
        ExprEmitter().emit(N.BinOp("mul", h, h, float16, loc), ["h", "h"])

    class FloatUnits(ExprEmitter):
        def float_op(self, e, args):
            return f"fmul32({', '.join(args)})"

    assert FloatUnits().emit(e, ["x", "c"]) == "fmul32(x, c)"


def test_bad_input_is_a_backend_error():
    p = _ld("p", Fixed(8, 4))
    with pytest.raises(BackendError, match="operator 'floordiv' is not supported on fixed-point type Fixed"):
        ExprEmitter().emit(N.BinOp("floordiv", p, p, Fixed(8, 4)), ["p", "p"])
    with pytest.raises(BackendError, match="has 2 operands, got 1"):
        ExprEmitter().emit(N.BinOp("add", p, p, Fixed(8, 4)), ["p"])
    with pytest.raises(BackendError, match="cannot print a Load"):
        ExprEmitter().emit(p, [])


@needs_rtl
def test_helpers_elaborate_in_yosys(tmp_path):
    """The SV of every helper (and nested expressions) reads and elaborates in the synthesis flow's Yosys."""
    gs = [g for g in sweep_groups() if g.name in ("bin int8", "bin Fixed(8, 4)", "bin UFixed(8, 4)", "bits uint8",
                                                  "unary int8", "bin bool", "bool pow")]
    gs += seeded_groups(3, 4)
    (tmp_path / "d.sv").write_text(sv_text(gs))
    r = subprocess.run([*yosys_command(), "-q", "-p", "read_verilog -sv d.sv; hierarchy -top comb_top; proc; check -assert"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
