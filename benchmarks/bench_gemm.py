"""GEMM 512^3 float32: allo (exact and fast_math, 1 and 2 threads) vs numpy (OpenBLAS) and torch.

Run: `python benchmarks/bench_gemm.py` (see benchmarks/RESULTS.md for recorded numbers).
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import compile_time, cores_used, cputime, isolated, process_cpu, row, set_threads, timeit  # noqa: E402

import allo  # noqa: E402
from allo.ir.types import float32  # noqa: E402

M = N = K = 512


def gemm(A: float32[M, K], B: float32[K, N]) -> float32[M, N]:
    C: float32[M, N] = 0.0
    for i, j in allo.grid(M, N):
        for k in allo.reduction(K):
            C[i, j] += A[i, k] * B[k, j]
    return C


def run(reps: int = 15) -> list:
    import torch

    rng = np.random.default_rng(0)
    A, B = rng.random((M, K), np.float32), rng.random((K, N), np.float32)
    tA, tB = torch.from_numpy(A), torch.from_numpy(B)
    s = allo.customize(gemm)
    exact, t_exact = compile_time(lambda: s.build())
    fast, t_fast = compile_time(lambda: s.build(fast_math=True))
    sp = allo.customize(gemm)
    sp.parallel("i")
    par, t_par = compile_time(lambda: sp.build(fast_math=True, threads=2))
    want = A.astype(np.float64) @ B.astype(np.float64)
    for m in (exact, fast, par):
        err = np.abs(m(A, B) - want).max() / np.abs(want).max()
        assert err < 1e-5, err
    assert np.array_equal(exact(A, B), s.build(optimize=False)(A, B))
    flops = 2.0 * M * N * K
    lines = [f"gemm {M}x{N}x{K} f32: JIT compile exact {t_exact:.2f} s, fast_math {t_fast:.2f} s, "
             f"parallel {t_par:.2f} s"]
    set_threads(1)
    t = timeit({"allo": lambda: fast(A, B), "allo_exact": lambda: exact(A, B), "numpy": lambda: A @ B,
                "torch": lambda: tA @ tB}, reps)
    lines.append(row("gemm 1 thread (allo fast_math)", t, "allo", ["numpy", "torch"], flops))
    lines.append(row("gemm 1 thread (allo exact)", {"allo_exact": t["allo_exact"], "numpy": t["numpy"]},
                     "allo_exact", ["numpy"], flops))
    c = cputime({"allo": lambda: fast(A, B), "numpy": lambda: A @ B, "torch": lambda: tA @ tB}, reps)
    lines.append(row("gemm 1 thread, CPU time", c, "allo", ["numpy", "torch"], flops))
    set_threads(2)
    t = timeit({"allo": lambda: par(A, B), "numpy": lambda: A @ B, "torch": lambda: tA @ tB}, reps, interleave=False)
    lines.append(row("gemm 2 threads (allo fast_math)", t, "allo", ["numpy", "torch"], flops))
    data = "import numpy as np\nA = np.random.default_rng(0).random((512, 512), np.float32); B = A.T.copy()\n"
    t = {"allo": isolated(data + "import allo, bench_gemm as g\ns = allo.customize(g.gemm); s.parallel('i')\n"
                          "m = s.build(fast_math=True, threads=2)", "m(A, B)", 2, reps),
         "numpy": isolated(data, "A @ B", 2, reps),
         "torch": isolated(data + "import torch\ntA, tB = torch.from_numpy(A), torch.from_numpy(B)", "tA @ tB", 2, reps)}
    lines.append(row("gemm 2 threads, separate processes", t, "allo", ["numpy", "torch"], flops))
    lines.append(f"  (allo 2-thread build used {cores_used(lambda: par(A, B)):.2f} cores on average)")
    c1, c2 = process_cpu(lambda: fast(A, B)), process_cpu(lambda: par(A, B))
    lines.append(f"  (allo CPU time per call: 1 thread {c1 * 1e3:.3f} ms, 2 threads {c2 * 1e3:.3f} ms in total: "
                 f"parallel work efficiency {c1 / c2:.2f}; with two free cores about {c2 / 2 * 1e3:.3f} ms, "
                 f"{flops / (c2 / 2) / 1e9:.0f} GFLOP/s)")
    set_threads(os.cpu_count() or 1)
    return lines


if __name__ == "__main__":
    for line in run():
        print(line)
