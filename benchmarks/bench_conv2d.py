"""conv2d 3x3, 64 -> 64 channels, 56x56, padding 1, batch 1, float32: allo vs torch eager.

Uses `allo.library.nn.conv2d` when it builds, else the same loops written as a DSL kernel.
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import compile_time, cores_used, cputime, row, set_threads, timeit  # noqa: E402

import allo  # noqa: E402
from allo.ir.types import float32  # noqa: E402

C, H, W, KS = 64, 56, 56, 3


def conv_dsl(X: float32[1, C, H, W], Wt: float32[C, C, KS, KS], b: float32[C]) -> float32[1, C, H, W]:
    Xp: float32[1, C, H + 2, W + 2] = 0.0
    for pc, ph, pw in allo.grid(C, H, W):
        Xp[0, pc, ph + 1, pw + 1] = X[0, pc, ph, pw]
    Y: float32[1, C, H, W]
    for co, oh, ow in allo.grid(C, H, W):
        acc: float32 = b[co]
        for ci, kh, kw in allo.reduction(C, KS, KS):
            acc += Xp[0, ci, oh + kh, ow + kw] * Wt[co, ci, kh, kw]
        Y[0, co, oh, ow] = acc
    return Y


def schedule(parallel: bool):
    """(schedule, source) — nn.conv2d if the library builds here, else the DSL kernel."""
    try:
        from allo.library import nn

        s = allo.customize(nn.conv2d, instantiate=[float32, 1, C, C, H, W, KS, KS, H, W, 1, 1, 1, 1, 1, 1, 1])
        src = "nn.conv2d"
    except Exception:  # library missing or changed: same computation as a DSL kernel
        s, src = allo.customize(conv_dsl), "DSL kernel"
    if parallel:
        s.parallel("oh")
    return s, src


def run(reps: int = 9) -> list:
    import torch

    rng = np.random.default_rng(0)
    X = rng.standard_normal((1, C, H, W)).astype(np.float32)
    Wt = (rng.standard_normal((C, C, KS, KS)) * 0.1).astype(np.float32)
    b = rng.standard_normal(C).astype(np.float32)
    tX, tW, tb = map(torch.from_numpy, (X, Wt, b))
    s, src = schedule(False)
    exact, t_exact = compile_time(lambda: s.build())
    fast, t_fast = compile_time(lambda: s.build(fast_math=True))
    sp, _ = schedule(True)
    par, t_par = compile_time(lambda: sp.build(fast_math=True, threads=2))
    want = torch.nn.functional.conv2d(tX, tW, tb, padding=1).numpy()
    for m in (exact, fast, par):
        np.testing.assert_allclose(m(X, Wt, b), want, rtol=1e-4, atol=1e-4)
    conv = lambda: torch.nn.functional.conv2d(tX, tW, tb, padding=1)  # noqa: E731
    flops = 2.0 * C * C * KS * KS * H * W
    lines = [f"conv2d {C}->{C} 3x3 on {H}x{W} ({src}): JIT compile exact {t_exact:.2f} s, "
             f"fast_math {t_fast:.2f} s, parallel {t_par:.2f} s"]
    set_threads(1)
    t = timeit({"allo": lambda: fast(X, Wt, b), "allo_exact": lambda: exact(X, Wt, b), "torch": conv}, reps)
    lines.append(row("conv2d 1 thread (allo fast_math)", t, "allo", ["torch"], flops))
    lines.append(row("conv2d 1 thread (allo exact)", {"allo_exact": t["allo_exact"], "torch": t["torch"]},
                     "allo_exact", ["torch"], flops))
    c = cputime({"allo": lambda: fast(X, Wt, b), "torch": conv}, reps)
    lines.append(row("conv2d 1 thread, CPU time", c, "allo", ["torch"], flops))
    set_threads(2)
    t = timeit({"allo": lambda: par(X, Wt, b), "torch": conv}, reps, interleave=False)
    lines.append(row("conv2d 2 threads (allo fast_math)", t, "allo", ["torch"], flops))
    lines.append(f"  (allo 2-thread build used {cores_used(lambda: par(X, Wt, b)):.2f} cores on average)")
    set_threads(os.cpu_count() or 1)
    return lines


if __name__ == "__main__":
    for line in run():
        print(line)
