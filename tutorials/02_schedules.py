"""Tutorial 2: schedules.

Run it with `python tutorials/02_schedules.py`. A schedule transforms a kernel's loops and
memories without touching its algorithm; every step keeps the results (checked here against
numpy). It walks through:

1. loops and their names, handles from `s.get_loops()`,
2. loop transformations: split, reorder (loop tiling), and reading the MLIR,
3. an HLS-style gemm: reorder, buffer_at, split, pipeline, unroll, partition,
4. the HLS C++ that the schedule produces, and the recipe (`print(s)`),
5. errors: a primitive that cannot apply raises allo.AlloError and changes nothing.
"""
import numpy as np

import allo
from allo.ir.types import float32

M = N = K = 32


def gemm(A: float32[M, K], B: float32[K, N]) -> float32[M, N]:
    C: float32[M, N] = 0.0
    for i, j in allo.grid(M, N):
        for k in allo.reduction(K):
            C[i, j] += A[i, k] * B[k, j]
    return C


rng = np.random.default_rng(0)
A = rng.uniform(-1, 1, size=(M, K)).astype(np.float32)
B = rng.uniform(-1, 1, size=(K, N)).astype(np.float32)
golden = A @ B


def check(s, what):
    """Build the schedule for the CPU and compare with numpy."""
    np.testing.assert_allclose(s.build()(A, B), golden, rtol=1e-5, atol=1e-5)
    print(f"[ok] {what} matches numpy")


# ----------------------------------------------------------------------------- 1. loops
# Loops are named by their induction variable: "i", "j", "k". The loops of one `for` statement
# form a band, named `S_<loop names>_<n>` (`S_i_j_0` for the grid, `S_k_1` for the reduction).
# `s.get_loops()` returns handles: `loops["S_i_j_0"]["j"]` is the same loop as "j".
s = allo.customize(gemm)
loops = s.get_loops()
print("bands and their loops:", {band: [h.name for h in loops[band]] for band in loops})

# ----------------------------------------------------------------------------- 2. tiling
# split("i", 8) turns loop i into i.outer (4 iterations) and i.inner (8 iterations); reorder
# lists loops outermost first. Together they tile the i/j loops into 8x8 blocks.
s.split("i", 8)
s.split(loops["S_i_j_0"]["j"], 8)
s.reorder("i.outer", "j.outer", "i.inner", "j.inner")
print(s.module)  # affine.for loops with loop_name = "i.outer", "j.outer", "i.inner", "j.inner"
check(s, "tiled gemm")

# A factor that does not divide the extent works too: the body gets a bound guard.
s_odd = allo.customize(gemm)
s_odd.split("k", 5)  # 32 = 7 * 5 - 3
check(s_odd, "gemm with k split by 5")

# ----------------------------------------------------------------------------- 3. an HLS gemm
# For hardware, we want one multiply-add per clock cycle:
# - reorder k and j, so the innermost loop walks rows of B and C (no loop-carried dependence
#   on one accumulator),
# - buffer_at(C, "i") accumulates one row of C in an on-chip buffer (C_buf): it adds a j_init
#   loop before and a j_back loop (writing the row back) after the k loop,
# - split j by 4, pipeline the outer part with II=1 and fully unroll the inner part (4 lanes),
# - partition B and the row buffer cyclically by 4 along j, so the 4 lanes read different banks.
s = allo.customize(gemm)
s.reorder("k", "j")
row = s.buffer_at(s.C, "i")  # a handle on the new buffer
s.split("j", 4)
s.pipeline("j.outer")
s.unroll("j.inner")
s.partition(s.B, allo.Partition.Cyclic, dim=2, factor=4)
s.partition(row, allo.Partition.Cyclic, dim=1, factor=4)
s.pipeline("j_init")
s.pipeline("j_back")
print(s.module)
check(s, "HLS-style gemm")

# ----------------------------------------------------------------------------- 4. HLS C++ and the recipe
# target="vhls" emits Vitis HLS C++: loops are labelled l_<name> and schedule attributes become
# pragmas. (`s.build(target="vhls", mode="csim", project="dir")` also writes a project and runs
# a C simulation with g++.)
hls = s.build(target="vhls")
print(hls.hls_code)
assert "#pragma HLS pipeline II=1" in hls.hls_code and "#pragma HLS unroll" in hls.hls_code
assert "#pragma HLS array_partition variable=B cyclic factor=4 dim=2" in hls.hls_code

# print(s) shows the applied steps in order; s.steps holds them as records.
print(s)

# ----------------------------------------------------------------------------- 5. errors
# A primitive that cannot apply raises allo.AlloError naming the primitive and the argument,
# and leaves the schedule exactly as it was.
before = str(s.module)
for bad in (lambda: s.split("q", 4),           # no such loop: the message lists the loops
            lambda: s.split("k", 0),           # the factor must be positive
            lambda: s.reorder("j_back", "k")):  # not nested in one another
    try:
        bad()
    except allo.AlloError as e:
        print("AlloError:", str(e).splitlines()[0])
assert str(s.module) == before
check(s, "the schedule after the failed steps")
