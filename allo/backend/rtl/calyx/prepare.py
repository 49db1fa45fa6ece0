"""allo's side of the Calyx route, on the loop IR: what `lower-scf-to-calyx` (CIRCT 1.62) needs
beyond the shared hardware preparation (allo.backend.rtl.prepare).

1. every `if` becomes guarded stores (allo.backend.rtl.ifconv: 1.62 crashes on `scf.if`); a
   `while` under an `if` runs while `guard and cond`;
2. a `while` whose condition reads an array is refused with the kernel line (1.62 cannot lower a
   loop condition that reads memory; scalars are fine: they become loop-carried registers);
3. an integer multiply by a constant with at most three set bits (address arithmetic `i * 5`,
   `2 * x`) becomes shifts and adds: in Calyx a multiply is a std_mult_pipe group of several
   cycles, shifts and adds are wires inside the group that uses them;
4. every local array becomes a memory argument of the top (a "scratch" memory the testbench serves,
   zero-filled; its initialiser becomes stores): CIRCT 1.62's lower-calyx-to-hw has no memory
   lowering, so memories live outside the design, as the kernel's own arrays do. Scalars stay
   locals: `mem2reg` makes them SSA values and Calyx registers.

Example::

    hw = prepare_for_calyx(ir_module)
    hw.scratch       # param positions of former local arrays (data in hw.hidden, zeros)
"""
from __future__ import annotations

import numpy as np

from ....errors import BackendError, located
from ....ir import nodes as N
from ....ir import visit as V
from ....ir.ops import BinOpKind
from ....ir.types import Index, Int, UInt
from ..ifconv import if_convert
from ..prepare import HWTop, copy_loops, index_t, prepare_for_hw


def prepare_for_calyx(mod: N.Module) -> HWTop:
    """`prepare_for_hw` + the Calyx-specific rewrites above (a clone; `mod` is left alone)."""
    hw = prepare_for_hw(mod, "Calyx")
    check_while_conditions(hw.func)
    if_convert(hw.func)
    _ConstMulToShifts().in_place(hw.func.body)
    check_index_multiplies(hw.func)
    hw.scratch = locals_to_args(hw)
    return hw


def check_while_conditions(func: N.Func):
    """BackendError at the `while` whose condition loads from an array."""
    for s in V.walk_stmts(func.body):
        if not isinstance(s, N.While):
            continue
        for x in V.walk_expr(s.cond):
            if isinstance(x, N.Load) and x.buf.type.rank >= 1:
                raise located(BackendError, f"the Calyx route cannot lower a `while` whose condition reads the array "
                                            f"{x.buf.name!r}: CIRCT 1.62's lower-scf-to-calyx needs a loop condition "
                                            "without memory reads; copy the element into a scalar before the loop "
                                            "and at the end of its body, or build for 'rtl'", s.loc)


def check_index_multiplies(func: N.Func):
    """BackendError at an index product of two run-time values (`B[i * n]`, the variable of
    `range(a, b, step)` with a run-time step, a + step * t): lower-scf-to-calyx puts it in a
    combinational group, where its std_mult_pipe is not allowed (CIRCT 1.62)."""
    for s in V.walk_stmts(func.body):
        for e in V.stmt_exprs(s):
            for x in V.walk_expr(e):
                if (isinstance(x, N.BinOp) and x.op == BinOpKind.MUL and isinstance(x.type, Index)
                        and not isinstance(x.lhs, N.Const) and not isinstance(x.rhs, N.Const)):
                    raise located(BackendError, "the Calyx route cannot lower an index computed as a product of two "
                                                "run-time values (an index like `i * n`, or the variable of a `range` "
                                                "with a run-time step): CIRCT 1.62 puts the multiplier in a "
                                                "combinational group; use a constant step or factor, or build for "
                                                "'rtl'", x.loc or s.loc)


class _ConstMulToShifts(V.Rewriter):
    """x * c (c > 1 an integer constant with <= 3 set bits) -> sum of x << k: exact modulo the
    type's width, as the multiply is."""

    def rewrite_BinOp(self, e):
        if e.op != BinOpKind.MUL or not isinstance(e.type, (Int, UInt, Index)):
            return e
        for x, c in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
            if isinstance(c, N.Const) and isinstance(c.value, int) and not isinstance(c.value, bool) \
                    and c.value > 1 and bin(c.value).count("1") <= 3:
                terms = [x if k == 0 else N.BinOp(BinOpKind.SHL, x, N.Const(k, e.type), e.type, e.loc)
                         for k in range(c.value.bit_length()) if c.value >> k & 1]
                out = terms[0]
                for t in terms[1:]:
                    out = N.BinOp(BinOpKind.ADD, out, t, e.type, e.loc)
                return out
        return e


def locals_to_args(hw: HWTop) -> list:
    """Turn every local array (rank >= 1) of `hw.func` into a zero-filled hidden memory argument, in
    place; returns the new parameter positions."""
    f = hw.func
    moved = []

    class _Hoist(V.Rewriter):
        def rewrite_Alloc(self, s):
            if s.buf.type.rank == 0:
                return s
            moved.append(s.buf)
            return _init_stores(s)

    f.body = _Hoist().stmts(f.body)
    positions = []
    for b in moved:
        b.kind = "arg"
        positions.append(len(f.params))
        hw.hidden.append((len(f.params), np.zeros(b.shape, dtype=storage_dtype(b.dtype))))
        f.params.append(b)
    return positions


def storage_dtype(t) -> np.dtype:
    """The signless container integer of a hardware element type (bool/int5 -> int8, int24 -> int32)."""
    nbytes = 1
    while nbytes * 8 < t.bits:
        nbytes *= 2
    return np.dtype(f"i{nbytes}")


def _init_stores(s: N.Alloc) -> list:
    b = s.buf
    if s.init is None:
        return []
    if isinstance(s.init, N.Buffer):
        return copy_loops(b, s.init, s.loc)
    iv = N.IterVar("z0")
    value = s.init if s.init.type == b.dtype else N.Cast(s.init, b.dtype, s.loc)
    store = N.Store(b, [iv], value, s.loc)
    return [N.For(iv, N.Const(0, index_t), N.Const(b.shape[0], index_t), 1, [store], name=f"init_{b.name}", loc=s.loc)]


__all__ = ["prepare_for_calyx", "check_while_conditions", "locals_to_args"]
