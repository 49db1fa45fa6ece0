"""Accuracy of quantized imports vs the float model (`from_pytorch(..., precision=...)`): the seed MLP,
a CNN (conv/bn/relu/pool/linear) and a transformer block (tests/quant_models.py, random weights),
calibrated on 8 random batches, evaluated on 32 other random batches. Classifiers (MLP, CNN): top-1
agreement with the float model; all: max / mean absolute error and relative RMS error of the outputs.
Also the LLVM call time of each build next to the float build's (median, same process).

    python benchmarks/bench_quant.py [batches]      # default 32 evaluation batches
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

PRECISIONS = [("float32", None), ("int8", "int8"), ("fixed16_8", "Fixed(16, 8)"), ("auto", "auto")]


def evaluate(name, precision, batches):
    import torch

    import allo
    from allo.frontend import from_pytorch
    from tests.quant_models import make

    model, example, cal = make(name)
    spec = eval(precision, {"Fixed": allo.Fixed}) if precision and precision.startswith("Fixed") else precision
    t0 = time.perf_counter()
    mod = from_pytorch(model, example, precision=spec, calibration_data=cal if spec else None, verbose=False)
    build = time.perf_counter() - t0
    gen = torch.Generator().manual_seed(1234)
    errs, agree, total, sq, ref_sq, calls = [], 0, 0, 0.0, 0.0, []
    for _ in range(batches):
        x = torch.randn(*example[0].shape, generator=gen)
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
            "build": build, "call": float(np.median(calls))}


def main():
    batches = int(sys.argv[1]) if len(sys.argv) > 1 else 32
    print(f"# quantized imports vs the float model ({batches} random evaluation batches; load avg "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores: times are noisy)")
    print(f"{'model':6} {'precision':10} {'top-1 agree':>11} {'max|err|':>9} {'mean|err|':>9} {'rel rms':>8} "
          f"{'import s':>8} {'call ms':>8}")
    for name in ("mlp", "cnn", "block"):
        for label, spec in PRECISIONS:
            r = evaluate(name, spec, batches)
            top1 = f"{r['top1']:.1%}" if r["top1"] is not None else "-"
            print(f"{name:6} {label:10} {top1:>11} {r['max']:9.4f} {r['mean']:9.5f} {r['rel']:8.2%} "
                  f"{r['build']:8.1f} {r['call'] * 1e3:8.3f}", flush=True)


if __name__ == "__main__":
    main()
