"""Accuracy of quantized imports vs the float model (`from_pytorch(..., precision=...)`): the seed MLP,
a CNN (conv/bn/relu/pool/linear) and a transformer block (tests/quant_models.py, random weights),
calibrated on 8 random batches, evaluated on 32 other random batches. Classifiers (MLP, CNN): top-1
agreement with the float model; all: max / mean absolute error and relative RMS error of the outputs.
Also the LLVM call time of each build next to the float build's (median, same process). The
"int8 int-only" rows import with `integer_only=True` (softmax, GELU, LayerNorm, residual adds in
integer kernels: no float op in the core). With --rtl, every quantized build whose core is integer
is also built for the static RTL (Verilator), checked == the LLVM build bit for bit on the first
evaluation batch, and its cycles per call reported (rows with float ops in the core show "float").

    python benchmarks/bench_quant.py [batches] [--rtl]      # default 32 evaluation batches
"""
from __future__ import annotations

import os
import re
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

PRECISIONS = [("float32", None, False), ("int8", "int8", False), ("int8 int-only", "int8", True),
              ("fixed16_8", "Fixed(16, 8)", False), ("auto", "auto", False)]
FLOAT_TYPES = re.compile(r"\b(?:b?f(?:16|32|64))\b")


def rtl_cycles(imported, mod, x):
    """Cycles of one static-RTL call of the import (checked == the LLVM build), or why there are none."""
    core = imported.schedule().module.operation.get_asm(large_elements_limit=16)
    if FLOAT_TYPES.search(core):
        return "float"
    rtl = imported.build("rtl")
    got = rtl(x)
    if not np.array_equal(got, mod(x)):
        raise SystemExit(f"RTL != LLVM for {imported.filename}")
    return str(rtl.cycles)


def evaluate(name, precision, integer_only, batches, rtl=False):
    import torch

    import allo
    from allo.frontend import import_model
    from tests.quant_models import make

    model, example, cal = make(name)
    spec = eval(precision, {"Fixed": allo.Fixed}) if precision and precision.startswith("Fixed") else precision
    t0 = time.perf_counter()
    imported = import_model(model, example, precision=spec, calibration_data=cal if spec else None,
                            integer_only=integer_only, verbose=False)
    mod = imported.build("llvm")
    build = time.perf_counter() - t0
    gen = torch.Generator().manual_seed(1234)
    errs, agree, total, sq, ref_sq, calls = [], 0, 0, 0.0, 0.0, []
    cycles = "-"
    for k in range(batches):
        x = torch.randn(*example[0].shape, generator=gen)
        if k == 0 and rtl and spec is not None:
            cycles = rtl_cycles(imported, mod, x.numpy())
        t = time.perf_counter()
        got = mod(x.numpy())
        calls.append(time.perf_counter() - t)
        want = model(x).detach().numpy()
        d = np.abs(got.astype(np.float64) - want)
        errs.append(d)
        sq += float((d * d).sum())
        ref_sq += float((want.astype(np.float64) ** 2).sum())
        if name != "block":
            agree += int((got.argmax(-1) == want.argmax(-1)).sum())
            total += got.shape[0]
    d = np.concatenate([e.reshape(-1) for e in errs])
    return {"max": d.max(), "mean": d.mean(), "rel": (sq / ref_sq) ** 0.5, "top1": agree / total if total else None,
            "build": build, "call": float(np.median(calls)), "cycles": cycles}


def main():
    args = [a for a in sys.argv[1:] if a != "--rtl"]
    rtl = "--rtl" in sys.argv[1:]
    batches = int(args[0]) if args else 32
    print(f"# quantized imports vs the float model ({batches} random evaluation batches; load avg "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores: times are noisy)")
    print(f"{'model':6} {'precision':13} {'top-1 agree':>11} {'max|err|':>9} {'mean|err|':>9} {'rel rms':>8} "
          f"{'import s':>8} {'call ms':>8} {'rtl cycles':>10}")
    for name in ("mlp", "cnn", "block"):
        for label, spec, integer_only in PRECISIONS:
            r = evaluate(name, spec, integer_only, batches, rtl)
            top1 = f"{r['top1']:.1%}" if r["top1"] is not None else "-"
            print(f"{name:6} {label:13} {top1:>11} {r['max']:9.4f} {r['mean']:9.5f} {r['rel']:8.2%} "
                  f"{r['build']:8.1f} {r['call'] * 1e3:8.3f} {r['cycles']:>10}", flush=True)


if __name__ == "__main__":
    main()
