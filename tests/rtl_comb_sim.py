"""Differential harness of the static RTL expression printer (allo.backend.rtl.static.exprs):
many expression trees -> ONE combinational SystemVerilog module -> ONE Verilator build -> every
output compared bit for bit with the interpreter (allo.interp) and/or the LLVM build.

A `Group` is a set of leaves (rank-0 buffers, read as `Load(buf, [])`), rows of input values
for them and expressions over them. All values are raw bits: unsigned ints of `sv_width(t)`
bits (two's complement of signed ints, the scaled integer of fixed point). The module gets one
input port per leaf and one output per expression (ports wider than 64 bits are split into
64-bit chunks); the C++ testbench reads every row from a file, evaluates and prints every
output, so one build checks thousands of (expression, row) cases.

Example::

    a, b = leaf("a", int8), leaf("b", int8)
    g = Group([a.buf, b.buf], [(1, 2), (0x7F, 1)], [BinOp("add", a, b, int8)])
    got = simulate([g])                  # got[0][0] == [3, 0x80]: group 0, expression 0, per row
    assert mismatches([g], got, interp_reference([g])) == []
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from allo.backend.rtl.sim import CXX_FLAGS, VERILATOR_FLAGS, runtime_objects
from allo.backend.rtl.static.exprs import ExprEmitter, sv_width
from allo.backend.rtl.tools import verilator_env, verilator_root
from allo.backend.toolchain import build_lock, cache_dir, cxx, private_tmp, run_child
from allo.interp import compile_module, storage_dtype
from allo.ir import nodes as N
from allo.ir.ops import MathFn
from allo.ir.types import ArrayType, Fixed, Index, Int, UInt, index, int64, is_bool, is_fixed
from allo.ir.visit import child_exprs, map_expr, walk_expr

# Verilator issue 7955 (nested constant shifts folded wrongly) is worked around with these flags
# when ISSUE_7955 is set; the default build runs without them to show whether it is needed.
ISSUE_7955_FLAGS = ["-fno-dfg-peephole-replace-shiftl-shiftl", "-fno-dfg-peephole-replace-shiftr-shiftr"]
ISSUE_7955 = os.environ.get("ALLO_VERILATOR_7955", "") not in ("", "0")
TOP = "comb_top"


@dataclass
class Group:
    """Expressions over `leaves` (rank-0 Buffers) evaluated on every row of raw input bits."""

    leaves: list
    rows: list
    exprs: list
    name: str = ""
    llvm: bool = True  # False: never build it with LLVM (a known LLVM-side problem; see the test)


def leaf(name: str, t) -> N.Load:
    """A read of a fresh scalar leaf of type `t`."""
    return N.Load(N.Buffer(name, ArrayType(t, ()), kind="scalar_arg"), [])


def mask(t) -> int:
    return (1 << sv_width(t)) - 1


def signed_value(raw: int, t) -> int:
    """Raw bits as the integer they hold (two's complement for signed types)."""
    w = sv_width(t)
    raw &= (1 << w) - 1
    signed = isinstance(t, (Int, Fixed, Index))
    return raw - (1 << w) if signed and raw >> (w - 1) else raw


def show(e) -> str:
    """A compact text of an expression tree, for failure messages."""
    if isinstance(e, N.Load):
        return e.buf.name
    if isinstance(e, N.Const):
        return f"{e.value!r}:{e.type!r}"
    if isinstance(e, N.Cast):
        return f"{e.type!r}({show(e.value)})"
    if isinstance(e, N.BinOp):
        return f"({show(e.lhs)} {e.op} {show(e.rhs)}):{e.type!r}"
    if isinstance(e, N.UnaryOp):
        return f"{e.op}({show(e.operand)}):{e.type!r}"
    if isinstance(e, N.Select):
        return f"({show(e.a)} if {show(e.cond)} else {show(e.b)}):{e.type!r}"
    if isinstance(e, N.MathCall):
        return f"{e.fn}({', '.join(show(a) for a in e.args)}):{e.type!r}"
    return type(e).__name__


# ----------------------------------------------------------------------------- SystemVerilog
def _chunks(w: int) -> list:
    return [min(64, w - lo) for lo in range(0, w, 64)]


def _print_tree(em, e, names, wires, decls, memo):
    if isinstance(e, N.Load) and not e.indices:
        return names[id(e.buf)]
    if id(e) in memo:
        return memo[id(e)]
    args = [_print_tree(em, c, names, wires, decls, memo) for c in child_exprs(e)]
    text = em.emit(e, args)
    if wires:
        name = f"t{len(decls)}"
        decls.append(f"  logic [{sv_width(e.type) - 1}:0] {name};\n  assign {name} = {text};")
        text = name
    memo[id(e)] = text
    return text


def sv_module(groups, wires: bool = False) -> tuple:
    """(SV text, [(input port, bits)], [(output port, bits)]). `wires` names every node's value
    (as a scheduler's datapath would); otherwise each tree is one nested expression."""
    em = ExprEmitter()
    names, ins, outs, body, decls = {}, [], [], [], []
    for gi, g in enumerate(groups):
        for li, buf in enumerate(g.leaves):
            w, name = sv_width(buf.dtype), f"g{gi}_l{li}"
            names[id(buf)] = name
            parts = []
            for c, cw in enumerate(_chunks(w)):
                ins.append((f"i{gi}_{li}_{c}", cw))
                parts.append(f"i{gi}_{li}_{c}")
            decl = f"logic {name}" if w == 1 else f"logic [{w - 1}:0] {name}"  # 1-bit leaves as scalars
            body.append(f"  {decl};\n  assign {name} = {{{', '.join(reversed(parts))}}};")
        for ei, e in enumerate(g.exprs):
            w, name = sv_width(e.type), f"g{gi}_y{ei}"
            text = _print_tree(em, e, names, wires, decls, {})
            body.append(f"  logic [{w - 1}:0] {name};\n  assign {name} = {text};")
            for c, cw in enumerate(_chunks(w)):
                outs.append((f"o{gi}_{ei}_{c}", cw))
                body.append(f"  assign o{gi}_{ei}_{c} = {name}[{64 * c + cw - 1}:{64 * c}];")
    ports = [f"  input logic [{w - 1}:0] {p}" for p, w in ins] + [f"  output logic [{w - 1}:0] {p}" for p, w in outs]
    text = (f"module {TOP} (\n" + ",\n".join(ports) + "\n);\n" + em.functions() + "\n".join(decls + body)
            + "\nendmodule\n")
    return text, ins, outs


def testbench(ins, outs) -> str:
    """C++ main: argv[1] holds the row count, then per row one hex value per input port; argv[2]
    receives per row one hex value per output port."""
    sets = "\n".join(f"    if (fscanf(in, \"%llx\", &v) != 1) return 3; top->{p} = v;" for p, _ in ins)
    gets = "\n".join(f"    fprintf(out, \"%llx \", (unsigned long long)top->{p});" for p, _ in outs)
    return f"""#include "V{TOP}.h"
#include "verilated.h"
#include <cstdio>
double sc_time_stamp() {{ return 0; }}
int main(int argc, char** argv) {{
  VerilatedContext ctx;
  V{TOP}* top = new V{TOP}(&ctx);
  FILE* in = fopen(argv[1], "r");
  FILE* out = fopen(argv[2], "w");
  if (!in || !out) return 2;
  long rows = 0;
  unsigned long long v = 0;
  if (fscanf(in, "%ld", &rows) != 1) return 3;
  for (long r = 0; r < rows; ++r) {{
{sets}
    top->eval();
{gets}
    fprintf(out, "\\n");
  }}
  fclose(out);
  delete top;
  return 0;
}}
"""


def build(sv: str, tb: str, flags=()) -> Path:
    """The simulation executable (cached by content in allo's RTL cache)."""
    flags = list(flags) + (ISSUE_7955_FLAGS if ISSUE_7955 else [])
    objs, pch_dir = runtime_objects()
    runtime = [o for o in objs if o.name.startswith("verilated")]
    key = hashlib.sha256("\0".join([sv, tb, *flags, *VERILATOR_FLAGS, pch_dir.name]).encode()).hexdigest()[:20]
    exe = cache_dir("rtl") / f"comb_{key}"
    if exe.exists():
        return exe
    with build_lock(exe), tempfile.TemporaryDirectory(prefix="allo_comb_") as work:
        if exe.exists():
            return exe
        w = Path(work)
        (w / "design.sv").write_text(sv)
        (w / "tb.cpp").write_text(tb)
        cmd = [str(verilator_root() / "bin" / "verilator"), *VERILATOR_FLAGS, *flags, "--top-module", TOP,
               "--prefix", f"V{TOP}", "-Mdir", "obj", "design.sv"]
        r = run_child(cmd, cwd=work, env=verilator_env(), timeout=900, what="Verilator (comb harness)")
        if r.returncode != 0:
            raise RuntimeError(f"Verilator failed:\n{(r.stderr or r.stdout)[-4000:]}")
        (w / "all.cpp").write_text("".join(f'#include "obj/{p.name}"\n' for p in sorted((w / "obj").glob("*.cpp")))
                                   + '#include "tb.cpp"\n')
        inc = verilator_root() / "include"
        tmp = private_tmp(exe)
        cmd = [cxx("the comb harness"), *CXX_FLAGS, "-I", str(pch_dir), "-include", "allo_vl.h", "-I", str(inc),
               "-I", str(inc / "vltstd"), "-I", "obj", "all.cpp", *map(str, runtime), "-o", str(tmp), "-pthread",
               "-latomic"]
        r = run_child(cmd, cwd=work, timeout=1800, what="g++ (comb harness)")
        if r.returncode != 0:
            tmp.unlink(missing_ok=True)
            raise RuntimeError(f"g++ failed:\n{r.stderr[-4000:]}")
        os.replace(tmp, exe)
    return exe


def _nrows(groups) -> int:
    return max((len(g.rows) for g in groups), default=0)


def simulate(groups, wires: bool = False, flags=()) -> list:
    """Raw result bits per group, per expression, per row, from one Verilator build."""
    sv, ins, outs = sv_module(groups, wires)
    exe = build(sv, testbench(ins, outs), flags)
    rows = _nrows(groups)
    lines = [str(rows)]
    for r in range(rows):
        vals = []
        for g in groups:
            row = g.rows[r % len(g.rows)]
            for buf, v in zip(g.leaves, row):
                v &= mask(buf.dtype)
                vals += [f"{(v >> (64 * c)) & ((1 << cw) - 1):x}" for c, cw in enumerate(_chunks(sv_width(buf.dtype)))]
        lines.append(" ".join(vals))
    with tempfile.TemporaryDirectory(prefix="allo_comb_run_") as tmp:
        Path(tmp, "in.txt").write_text("\n".join(lines) + "\n")
        r = run_child([str(exe), str(Path(tmp, "in.txt")), str(Path(tmp, "out.txt"))], timeout=600,
                      what="comb harness simulation")
        if r.returncode != 0:
            raise RuntimeError(f"simulation failed ({r.returncode}): {r.stderr[-2000:]}")
        table = [[int(x, 16) for x in ln.split()] for ln in Path(tmp, "out.txt").read_text().splitlines()]
    got = [[[0] * len(g.rows) for _ in g.exprs] for g in groups]
    for r, vals in enumerate(table):
        k = 0
        for gi, g in enumerate(groups):
            for ei, e in enumerate(g.exprs):
                v = 0
                for c, _ in enumerate(_chunks(sv_width(e.type))):
                    v |= vals[k] << (64 * c)
                    k += 1
                if r < len(g.rows):
                    got[gi][ei][r] = v
    return got


def sv_text(groups, wires: bool = False) -> str:
    return sv_module(groups, wires)[0]


# ----------------------------------------------------------------------------- references
def _interp_input(raw: int, t):
    v = signed_value(raw, t)
    if is_bool(t):
        return np.array(bool(v))
    return np.array(v, dtype=storage_dtype(t))


def _has_index(e) -> bool:
    """Does e compute on index values (casts to and from index are exact in the interpreter)?"""
    return any(isinstance(x.type, Index) and isinstance(x, (N.BinOp, N.UnaryOp, N.MathCall)) for x in walk_expr(e))


def interp_reference(groups) -> list:
    """Raw result bits from allo.interp; None for expressions with index arithmetic (the
    interpreter keeps index values as unbounded Python ints: 64-bit wrap-around, negative and
    huge shift amounts are the LLVM build's to check)."""
    use = [[not _has_index(e) for e in g.exprs] for g in groups]
    funcs = [N.Func(f"g{gi}", list(g.leaves), [e.type for e, u in zip(g.exprs, use[gi]) if u],
                    [N.Return([e for e, u in zip(g.exprs, use[gi]) if u])]) for gi, g in enumerate(groups)]
    fns = compile_module(N.Module(funcs, funcs[-1].name)) if funcs else {}
    want = []
    with np.errstate(all="ignore"):
        for gi, g in enumerate(groups):
            per = [[] if u else None for u in use[gi]]
            live = [ei for ei, u in enumerate(use[gi]) if u]
            if live:
                for row in g.rows:
                    outs = fns[f"g{gi}"](*[_interp_input(v, b.dtype) for b, v in zip(g.leaves, row)])
                    for ei, v in zip(live, outs):
                        per[ei].append(int(v) & mask(g.exprs[ei].type))
            want.append(per)
    return want


def _llvm_leaf_ok(t) -> bool:
    if isinstance(t, Index):
        return False  # pass index values as int64 leaves with a Cast
    return sv_width(t) <= (53 if is_fixed(t) else 64)


def _llvm_outputs(e):
    """[(expression to store, its array dtype, bit offset)] reading the raw bits of e, or None."""
    t = e.type
    if isinstance(t, Index):
        return [(N.Cast(e, int64), int64, 0)]
    if is_fixed(t):
        return [(e, t, 0)] if t.bits <= 53 else None
    if t.bits <= 64:
        return [(e, t, 0)]
    out = []
    for lo in range(0, t.bits, 64):
        hi = min(t.bits, lo + 64)
        out.append((N.MathCall(MathFn.BIT_SLICE, [e, N.Const(lo, index), N.Const(hi, index)], UInt(hi - lo)),
                    UInt(hi - lo), lo))
    return out


def llvm_reference(groups, optimize: bool = False) -> list:
    """Raw result bits from the LLVM build of one kernel holding every expression (None where the
    kernel boundary cannot carry the bits: leaves wider than 64 bits, fixed point over 53 bits)."""
    from allo.backend.llvm import build_llvm
    rows = _nrows(groups)
    r = N.IterVar("r")
    ins, outs = {}, {}  # dtype -> list of (group, leaf or output slot)
    body, plan = [], []
    for gi, g in enumerate(groups):
        if not g.llvm or not all(_llvm_leaf_ok(b.dtype) for b in g.leaves):
            plan.append(None)
            continue
        slots = {}
        for b in g.leaves:
            lst = ins.setdefault(b.dtype, [])
            slots[id(b)] = (b.dtype, len(lst))
            lst.append((gi, b))
        gplan = []
        for e in g.exprs:
            parts = _llvm_outputs(e)
            if parts is None:
                gplan.append(None)
                continue
            ps = []
            for x, t, lo in parts:
                lst = outs.setdefault(t, [])
                ps.append((t, len(lst), lo))
                lst.append(x)
            gplan.append(ps)
        plan.append((slots, gplan))
    in_bufs = {t: N.Buffer(f"X{k}", ArrayType(t, (len(v), rows)), kind="arg") for k, (t, v) in enumerate(ins.items())}
    out_bufs = {t: N.Buffer(f"Y{k}", ArrayType(t, (len(v), rows)), kind="arg") for k, (t, v) in enumerate(outs.items())}
    leaf_of = {}
    for t, lst in ins.items():
        for j, (_, b) in enumerate(lst):
            leaf_of[id(b)] = (in_bufs[t], j)

    def relink(node):
        if isinstance(node, N.Load) and id(node.buf) in leaf_of:
            buf, j = leaf_of[id(node.buf)]
            return N.Load(buf, [N.Const(j, index), r])
        return node

    for t, lst in outs.items():
        for j, x in enumerate(lst):
            body.append(N.Store(out_bufs[t], [N.Const(j, index), r], map_expr(x, relink)))
    if not body:
        return [[None] * len(g.exprs) for g in groups]
    loop = N.For(r, N.Const(0, index), N.Const(rows, index), 1, body, name="r")
    params = list(in_bufs.values()) + list(out_bufs.values())
    mod = build_llvm(N.Module([N.Func("comb", params, [], [loop])], "comb"), optimize=optimize)
    arrays = []
    for t, lst in ins.items():
        a = np.zeros((len(lst), rows), dtype=t.np_dtype)
        for j, (gi, b) in enumerate(lst):
            g = groups[gi]
            k = g.leaves.index(b)
            for rr in range(rows):
                v = signed_value(g.rows[rr % len(g.rows)][k], t)
                a[j, rr] = v / 2.0 ** t.frac if is_fixed(t) else v
        arrays.append(a)
    out_arrays = [np.zeros((len(v), rows), dtype=t.np_dtype) for t, v in outs.items()]
    mod(*arrays, *out_arrays)
    res_of = dict(zip(outs, out_arrays))
    want = []
    for gi, g in enumerate(groups):
        if plan[gi] is None:
            want.append([None] * len(g.exprs))
            continue
        _, gplan = plan[gi]
        per = []
        for e, ps in zip(g.exprs, gplan):
            if ps is None:
                per.append(None)
                continue
            vals = []
            for rr in range(len(g.rows)):
                v = 0
                for t, j, lo in ps:
                    x = res_of[t][j, rr]
                    raw = int(round(float(x) * 2.0 ** t.frac)) if is_fixed(t) else int(x)
                    v |= (raw & mask(t)) << lo
                vals.append(v & mask(e.type))
            per.append(vals)
        want.append(per)
    return want


def mismatches(groups, got, want, limit: int = 20) -> list:
    """Failure messages (at most `limit`) where `got` differs from `want` (None: not checked)."""
    bad = []
    for gi, g in enumerate(groups):
        for ei, e in enumerate(g.exprs):
            if want[gi][ei] is None or got[gi][ei] is None:
                continue
            for r, row in enumerate(g.rows):
                if got[gi][ei][r] != want[gi][ei][r]:
                    ins = ", ".join(f"{b.name}={signed_value(v, b.dtype)}" for b, v in zip(g.leaves, row))
                    bad.append(f"{g.name or gi}: {show(e)} at {ins}: RTL {signed_value(got[gi][ei][r], e.type)}, "
                               f"reference {signed_value(want[gi][ei][r], e.type)}")
                    if len(bad) >= limit:
                        return bad
    return bad


def merge(first, second) -> list:
    """Per expression the results of reference `first` where it has them, else of `second`."""
    return [[a if a is not None else b for a, b in zip(fa, fb)] for fa, fb in zip(first, second)]


def checked(want) -> int:
    """How many (expression, row) results a reference provides."""
    return sum(len(v) for per in want for v in per if v is not None)


__all__ = ["Group", "leaf", "simulate", "interp_reference", "llvm_reference", "mismatches", "show", "sv_text",
           "signed_value", "mask", "checked", "merge"]
