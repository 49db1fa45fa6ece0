"""Tutorial 4: see what a schedule buys in hardware (QoR estimates without vendor tools).

Run it with `python tutorials/04_qor.py`. `allo.report(s)` estimates how Vitis HLS 2022.1 would
synthesize the C++ allo emits for a schedule: latency (cycles and ms at the target clock), the
initiation interval of each loop and what limits it, and resources against an FPGA part. It
takes milliseconds, so you can watch every primitive's effect. This tutorial:

1. schedules tutorial 2's gemm step by step (naive -> reorder -> buffer_at -> pipeline ->
   partition) and prints latency and resources after each primitive,
2. reads one report in full (the per-loop table and the reasons for each II),
3. sweeps the unroll factor and plots latency against DSPs (if matplotlib is installed),
4. shows the real Vitis flow (mode="csyn"), which runs when `vitis_hls` is on PATH.

The figure and the Vitis project go to a fresh temporary folder (printed), not where you run it.
"""
import shutil
import tempfile
from pathlib import Path

import numpy as np

import allo
from allo.ir.types import float32

M = N = K = 32
CLOCK_NS, PART = 3.33, "xcu280"
OUT = Path(tempfile.mkdtemp(prefix="allo_tutorial04_"))


def gemm(A: float32[M, K], B: float32[K, N]) -> float32[M, N]:
    C: float32[M, N] = 0.0
    for i, j in allo.grid(M, N):
        for k in allo.reduction(K):
            C[i, j] += A[i, k] * B[k, j]
    return C


rng = np.random.default_rng(0)
A = rng.uniform(-1, 1, size=(M, K)).astype(np.float32)
B = rng.uniform(-1, 1, size=(K, N)).astype(np.float32)


def show(step, s):
    """One line per schedule step: the estimate, and a check that the numbers did not change."""
    np.testing.assert_allclose(s.build()(A, B), A @ B, rtol=1e-4, atol=1e-4)
    r = allo.report(s, clock_ns=CLOCK_NS, part=PART)
    res = r.resources
    print(f"{step:<34} {r.latency_cycles:>8} cycles {r.latency_ms * 1e3:>8.2f} us   "
          f"DSP {res['DSP']:>4}  BRAM {res['BRAM_18K']:>3}  LUT {res['LUT']:>6}")
    return r


# ----------------------------------------------------------------------------- 1. step by step
print(f"gemm {M}x{N}x{K}, float32, {PART} @ {CLOCK_NS} ns")
s = allo.customize(gemm)
naive = show("naive", s)
# Three nested loops; the innermost (k, 32 iterations) is below Vitis's automatic pipelining
# threshold (64), so every multiply-add waits for the previous one.

s.reorder("k", "j")
show("reorder(k, j)", s)
# Same work, same latency: the order alone buys nothing until the loops are pipelined.

row = s.buffer_at(s.C, "i")
show("buffer_at(C, i)", s)
# One row of C lives in an on-chip buffer (C_buf): init loop, compute loop, write-back loop.

s.pipeline("k")
piped = show("pipeline(k)", s)
# k is pipelined and j (32 lanes) is unrolled inside it; the report says why II is not 1:
print("   ", piped.loop("k").reason)
# ...B has one dual-port memory, and 32 lanes want a column of it every cycle.

s.partition(s.B, allo.Partition.Complete, dim=2)
s.partition(row, allo.Partition.Complete, dim=1)
best = show("partition(B, row buffer)", s)
print("   ", best.loop("k").reason)
# Now the limit is the adder: each lane adds into its own C_buf element every iteration, and the
# next add must wait for the previous one (a loop-carried dependence through the adder).
print(f"speed-up over the naive kernel: {naive.latency_cycles / best.latency_cycles:.1f}x, "
      f"DSPs: {naive.resources['DSP']} -> {best.resources['DSP']}")

# ----------------------------------------------------------------------------- 2. a full report
print()
print(best)  # like Vitis's synthesis summary: one row per loop, nested as in the code
d = best.to_dict()  # or best.to_json(): for scripts and design-space exploration
assert d["loops"] and d["latency_cycles"] == best.latency_cycles


# ----------------------------------------------------------------------------- 3. a trade-off sweep
def schedule(factor):
    """Tutorial 2's HLS gemm with `factor` lanes: split j, pipeline the outer part, unroll the
    inner part, partition B and the row buffer cyclically by `factor`."""
    s = allo.customize(gemm)
    s.reorder("k", "j")
    row = s.buffer_at(s.C, "i")
    s.split("j", factor)
    s.pipeline("j.outer")
    s.unroll("j.inner")
    s.partition(s.B, allo.Partition.Cyclic, dim=2, factor=factor)
    s.partition(row, allo.Partition.Cyclic, dim=1, factor=factor)
    return s


points = []
print()
print("lanes  latency (cycles)  DSP")
for factor in (1, 2, 4, 8, 16, 32):
    r = allo.report(schedule(factor), clock_ns=CLOCK_NS, part=PART)
    points.append((r.resources["DSP"], r.latency_cycles))
    print(f"{factor:>5}  {r.latency_cycles:>16}  {r.resources['DSP']:>3}")
assert points[-1][1] < points[0][1] and points[-1][0] > points[0][0]  # faster costs multipliers

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("(matplotlib is not installed: no figure)")
else:
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([p[0] for p in points], [p[1] for p in points], "o-")
    ax.set_xlabel("DSP")
    ax.set_ylabel("latency (cycles)")
    ax.set_yscale("log")
    ax.set_title("gemm: lanes 1..32")
    fig.tight_layout()
    fig.savefig(OUT / "qor_tradeoff.png")
    print(f"wrote {OUT / 'qor_tradeoff.png'}")

# ----------------------------------------------------------------------------- 4. the real tool
# With AMD Vitis HLS installed, mode="csyn" writes a project whose run.tcl synthesizes at your
# part and clock; calling the module runs vitis_hls and returns the tool's report (same type,
# source "vitis"), so estimate and tool sit side by side.
hls = schedule(8).build(target="vhls", mode="csyn", project=str(OUT / "gemm_csyn.prj"), part=PART,
                        clock_ns=CLOCK_NS)
print()
print(hls.tcl.splitlines()[-3])  # csynth_design
if shutil.which("vitis_hls"):
    tool = hls()
    print(f"Vitis: {tool.latency_cycles} cycles; estimate: {hls.report(source='estimate').latency_cycles}")
else:
    print(f"vitis_hls is not on PATH: the project is written to {hls.project}; hls.report() is the estimate:",
          hls.report().latency_cycles, "cycles")
