"""allo's reader and interpreter of native Calyx (allo/backend/rtl/calyx/futil_parse.py, futil_sim.py):
hand-written programs with known results (no CIRCT needed), the Calyx semantics that matter (a
group's assignments are off in its done cycle; while/if test their comb group; par runs its
children together), errors with the .futil line, and mutations of a real `.futil` that the
interpreter must notice (so the `.futil == LLVM` checks elsewhere can fail)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from allo.backend.rtl.calyx.futil_parse import FutilSyntaxError, Par, Seq, While, parse_futil
from allo.backend.rtl.calyx.futil_sim import FutilRuntimeError, run_futil

SUM = """
import "primitives/core.futil";
component main(n: 8) -> (out0: 32) {
  cells {
    @external(1) ext_mem0 = comb_mem_d1(32, 8, 3);
    i = std_reg(8);
    acc = std_reg(32);
    add_i = std_add(8);
    add_acc = std_add(32);
    lt = std_lt(8);
    sl = std_slice(8, 3);
  }
  wires {
    group init { i.in = 8'd0; i.write_en = 1'd1; acc.in = 32'd0; acc.write_en = 1'd1;
                 init[done] = i.done & acc.done ? 1'd1; }
    comb group cond { lt.left = i.out; lt.right = n; }
    group body {
      sl.in = i.out; ext_mem0.addr0 = sl.out;
      add_acc.left = acc.out; add_acc.right = ext_mem0.read_data;
      acc.in = add_acc.out; acc.write_en = 1'd1;
      body[done] = acc.done;
    }
    group step { add_i.left = i.out; add_i.right = 8'd1; i.in = add_i.out; i.write_en = 1'd1; step[done] = i.done; }
    out0 = acc.out;
  }
  control { seq { init; while lt.out with cond { seq { body; step; } } } }
}
"""


def test_parse_gives_cells_groups_and_the_control_tree():
    comp = parse_futil(SUM)["main"]
    assert comp.inputs == {"n": 8} and comp.outputs == {"out0": 32}
    assert comp.cells["ext_mem0"].external and comp.cells["ext_mem0"].params == (32, 8, 3)
    assert set(comp.groups) == {"init", "cond", "body", "step"} and comp.groups["cond"].comb
    loop = comp.control.body[0].body[1]
    assert isinstance(loop, While) and loop.comb == "cond" and str(loop.cond) == "lt.out"
    assert [type(x) for x in loop.body.body] == [Seq]
    assert len(comp.wires) == 1 and str(comp.wires[0].dest) == "out0"


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 2**32 - 1), min_size=8, max_size=8), st.integers(0, 8))
def test_interpreted_sum_equals_numpy(words, n):
    _, mems, outs = run_futil(SUM, {"ext_mem0": words}, {"n": n})
    assert outs["out0"] == sum(words[:n]) % 2**32
    assert mems["ext_mem0"] == words


def test_a_group_is_off_in_its_done_cycle():
    """Two groups in a row add 1 to the same register: with the go = !done semantics the count
    is 2, not 3 (a group that kept writing in its done cycle would add once more)."""
    text = """
component main() -> (out0: 8) {
  cells { r = std_reg(8); a = std_add(8); }
  wires {
    group inc1 { a.left = r.out; a.right = 8'd1; r.in = a.out; r.write_en = 1'd1; inc1[done] = r.done; }
    group inc2 { a.left = r.out; a.right = 8'd1; r.in = a.out; r.write_en = 1'd1; inc2[done] = r.done; }
    out0 = r.out;
  }
  control { seq { inc1; inc2; } }
}"""
    cycles, _, outs = run_futil(text, {}, {})
    assert outs["out0"] == 2 and cycles == 4


def test_par_runs_children_together():
    text = """
component main() -> (o1: 8, o2: 8) {
  cells { x = std_reg(8); y = std_reg(8); }
  wires {
    group wx { x.in = 8'd5; x.write_en = 1'd1; wx[done] = x.done; }
    group wy { y.in = 8'd7; y.write_en = 1'd1; wy[done] = y.done; }
    o1 = x.out; o2 = y.out;
  }
  control { par { wx; wy; } }
}"""
    comp = parse_futil(text)["main"]
    assert isinstance(comp.control.body[0], Par)
    cycles, _, outs = run_futil(text, {}, {})
    assert outs == {"o1": 5, "o2": 7} and cycles == 2  # one write cycle + the done cycle, not 4


def test_signed_division_is_cs_and_pipelined_units_wait_for_done():
    text = """
component main(a: 16, b: 16) -> (q: 16, r: 16, p: 16) {
  cells { d = std_sdiv_pipe(16); m = std_mult_pipe(16); rq = std_reg(16); rr = std_reg(16); rp = std_reg(16); }
  wires {
    group div { d.left = a; d.right = b; d.go = !d.done ? 1'd1; rq.in = d.out_quotient; rq.write_en = d.done;
                rr.in = d.out_remainder; rr.write_en = d.done; div[done] = rq.done; }
    group mul { m.left = a; m.right = b; m.go = !m.done ? 1'd1; rp.in = m.out; rp.write_en = m.done; mul[done] = rp.done; }
    q = rq.out; r = rr.out; p = rp.out;
  }
  control { seq { div; mul; } }
}"""
    def wrap16(v):
        return (v + 32768) % 65536 - 32768

    for a, b in [(-7, 2), (7, -2), (-7, -2), (100, 7), (-32768, -1)]:
        _, _, outs = run_futil(text, {}, {"a": a, "b": b})
        got = {k: wrap16(v) for k, v in outs.items()}
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # C: truncated toward zero
        assert got == {"q": wrap16(q), "r": wrap16(a - q * b), "p": wrap16(a * b)}, (a, b, got)


def test_two_drivers_at_once_name_both_lines():
    text = """component main() -> (o: 8) {
  cells { r = std_reg(8); }
  wires {
    group g { r.in = 8'd1;
              r.in = 8'd2; r.write_en = 1'd1; g[done] = r.done; }
    o = r.out;
  }
  control { g; }
}"""
    with pytest.raises(FutilRuntimeError, match=r"r\.in driven with 1 \(\.futil line 4\) and 2 \(line 5\)"):
        run_futil(text, {}, {})


def test_syntax_errors_name_the_line():
    with pytest.raises(FutilSyntaxError, match="line 3"):
        parse_futil("component main() -> () {\n  cells {\n    r = std_reg(8)\n  }\n}")
    with pytest.raises(FutilRuntimeError, match="no primitive 'std_fancy'"):
        run_futil("component main() -> () { cells { f = std_fancy(8); } wires { } control { } }", {}, {})


def test_a_group_that_never_ends_hits_max_cycles():
    text = """component main() -> () {
  cells { r = std_reg(8); }
  wires { group g { r.in = 8'd1; g[done] = r.done; } }
  control { g; }
}"""
    with pytest.raises(FutilRuntimeError, match="did not finish within 50 cycles"):
        run_futil(text, {}, {}, max_cycles=50)


def _mutations():
    """(description, rewrite of SUM's text) pairs that change what the program computes."""
    return [
        ("loop bound read from the wrong port", lambda t: t.replace("lt.right = n;", "lt.right = 8'd3;")),
        ("step adds 2", lambda t: t.replace("add_i.right = 8'd1", "add_i.right = 8'd2")),
        ("body and step swapped", lambda t: t.replace("seq { body; step; }", "seq { step; body; }")),
        ("accumulator starts at 5", lambda t: t.replace("acc.in = 32'd0;", "acc.in = 32'd5;")),
    ]


@pytest.mark.parametrize("what, mutate", _mutations(), ids=[m[0] for m in _mutations()])
def test_mutations_of_a_program_change_its_result(what, mutate):
    words = list(range(1, 9))
    runs = [run_futil(t, {"ext_mem0": words}, {"n": 6}) for t in (SUM, mutate(SUM))]
    assert runs[0][2]["out0"] == 21
    try:
        mutated = runs[1][2]["out0"]
    except FutilRuntimeError:
        return
    assert mutated != 21, what
