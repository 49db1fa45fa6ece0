"""softmax and layer_norm over the last axis of a 128x768 float32 array: allo vs torch eager.

Uses `allo.library.nn.softmax` / `nn.layer_norm`.
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import compile_time, cores_used, cputime, row, set_threads, timeit  # noqa: E402

import allo  # noqa: E402
from allo.ir.types import float32  # noqa: E402

M, N = 128, 768


def schedule(name: str, parallel: bool):
    from allo.library import nn

    s, src = allo.customize(getattr(nn, name), instantiate=[float32, M, N]), f"nn.{name}"
    if parallel:
        s.parallel("i")
    return s, src


def run(reps: int = 15) -> list:
    import torch

    rng = np.random.default_rng(0)
    X = rng.standard_normal((M, N)).astype(np.float32)
    g, be = rng.standard_normal(N).astype(np.float32), rng.standard_normal(N).astype(np.float32)
    eps = np.float32(1e-5)
    tX, tg, tb = map(torch.from_numpy, (X, g, be))
    cases = {
        "softmax": ((X,), lambda: torch.softmax(tX, -1)),
        "layer_norm": ((X, g, be, eps), lambda: torch.nn.functional.layer_norm(tX, (N,), tg, tb, 1e-5)),
    }
    lines = []
    for name, (args, ref) in cases.items():
        s, src = schedule(name, False)
        exact, t_exact = compile_time(lambda: s.build())
        fast, t_fast = compile_time(lambda: s.build(fast_math=True))
        sp, _ = schedule(name, True)
        par, _ = compile_time(lambda: sp.build(fast_math=True, threads=2))
        want = ref().numpy()
        for m in (exact, fast, par):
            np.testing.assert_allclose(m(*args), want, rtol=2e-4, atol=2e-5)
        lines.append(f"{name} {M}x{N} ({src}): JIT compile exact {t_exact:.2f} s, fast_math {t_fast:.2f} s")
        set_threads(1)
        t = timeit({"allo": lambda: fast(*args), "allo_exact": lambda: exact(*args), "torch": ref}, reps)
        lines.append(row(f"{name} 1 thread (allo fast_math)", t, "allo", ["torch"]))
        lines.append(row(f"{name} 1 thread (allo exact)", {"allo_exact": t["allo_exact"], "torch": t["torch"]},
                         "allo_exact", ["torch"]))
        c = cputime({"allo": lambda: fast(*args), "torch": ref}, reps)
        lines.append(row(f"{name} 1 thread, CPU time", c, "allo", ["torch"]))
        set_threads(2)
        t = timeit({"allo": lambda: par(*args), "torch": ref}, reps, interleave=False)
        lines.append(row(f"{name} 2 threads (allo fast_math)", t, "allo", ["torch"]))
        lines.append(f"  (allo 2-thread build used {cores_used(lambda: par(*args)):.2f} cores on average)")
    set_threads(os.cpu_count() or 1)
    return lines


if __name__ == "__main__":
    for line in run():
        print(line)
