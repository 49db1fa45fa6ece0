"""Smoke test of an installed allo (a wheel in a clean venv, run by scripts/check_wheel.sh).

Run it from a folder outside the repository, with the interpreter of the venv to check:

    cd "$(mktemp -d)" && /path/to/venv/bin/python /path/to/allo/scripts/wheel_smoke.py

It checks what a user does first with every part of the package that reads files shipped with it:
a kernel on the LLVM JIT, the g++ C simulation (allo_ap.h), a QoR estimate (qor/data/*.json), a tiny
design-space exploration (worker processes importing the installed allo), the console script's
error without torch, and the RTL flow (CIRCT worker, Verilator driver sources) when the `rtl` extra
is installed. Each check prints one line with its time; the first failure raises.
"""
import importlib.util
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import allo
from allo.ir.types import float32, int32

REPO = Path(__file__).resolve().parent.parent


def gemm(A: float32[16, 16], B: float32[16, 16]) -> float32[16, 16]:
    C: float32[16, 16] = 0.0
    for i, j in allo.grid(16, 16):
        for k in allo.reduction(16):
            C[i, j] += A[i, k] * B[k, j]
    return C


def vadd(A: int32[8], B: int32[8]) -> int32[8]:
    C: int32[8] = 0
    for i in range(8):
        C[i] = A[i] + B[i]
    return C


def check(name, fn):
    t0 = time.perf_counter()
    detail = fn()
    print(f"wheel smoke: {name}: ok ({time.perf_counter() - t0:.1f} s){'; ' + detail if detail else ''}", flush=True)


def installed_not_the_source():
    where = Path(allo.__file__).resolve()
    assert REPO not in where.parents, f"allo was imported from the repository ({where}), not from the install"
    assert "torch" not in sys.modules and importlib.util.find_spec("torch") is None, "torch is installed here"
    return f"allo {allo.__version__} from {where.parent}"


def llvm_and_csim():
    rng = np.random.default_rng(0)
    A, B = (rng.uniform(-1, 1, (16, 16)).astype(np.float32) for _ in range(2))
    s = allo.customize(gemm)
    s.reorder("k", "j")
    s.pipeline("j")
    np.testing.assert_allclose(s.build()(A, B), A @ B, rtol=1e-5, atol=1e-5)
    if shutil.which(os.environ.get("CXX", "g++")) is None:
        return "no g++: C simulation skipped"
    np.testing.assert_allclose(s.build(target="vhls", mode="csim")(A, B), A @ B, rtol=1e-5, atol=1e-5)
    return "LLVM and C simulation equal numpy"


def estimate_and_dse():
    s = allo.customize(gemm)
    s.pipeline("j")
    r = allo.report(s, clock_ns=3.33, part="xcu280")
    assert r.latency_cycles > 0 and "DSP" in r.resources, r
    d = allo.dse.explore(gemm, budget={"DSP": 300}, trials=4, seed=0)
    assert d.best_trial is not None and d.best_trial.verified is not False, d.summary()
    return f"estimate {r.latency_cycles} cycles; DSE best {d.best_trial.latency} cycles"


def console_script_without_torch():
    exe = Path(sys.executable).with_name("allo")
    assert exe.exists(), f"the console script {exe} is not installed"
    r = subprocess.run([str(exe), "compile", "model.py:Net", "--input-shape", "2x4"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2 and "pip install torch" in r.stderr and "Traceback" not in r.stderr, r
    return r.stderr.strip().splitlines()[-1]


def rtl():
    s = allo.customize(vadd)
    mod = s.build(target="rtl")
    A = np.arange(8, dtype=np.int32)
    B = np.full(8, 5, dtype=np.int32)
    np.testing.assert_array_equal(mod(A, B), A + B)
    return f"Verilator simulation equal numpy, {mod.cycles} cycles"


def main():
    check("install", installed_not_the_source)
    check("llvm + csim", llvm_and_csim)
    check("qor + dse", estimate_and_dse)
    check("allo console script", console_script_without_torch)
    if importlib.util.find_spec("circt") is None:
        print("wheel smoke: rtl: skipped (the rtl extra is not installed)")
    else:
        check("rtl", rtl)
    print("wheel smoke: all checks passed")


if __name__ == "__main__":
    main()
