"""A BERT-base encoder layer (hidden 768, 12 heads, FFN 3072, seq 128, batch 1) imported with
`allo.frontend.from_pytorch` vs torch eager (transformers BertLayer, random weights, eval mode).

Two allo builds: `from_pytorch` as is (the exact default: library kernels with their composed
schedules, parallel rows on all cores) and with `fast_math=True`. One thread: interleaved in this
process. Two threads: each contender in a fresh process (torch's and allo's OpenMP runtimes disturb
each other when they share one), side by side, with the cores each actually got.
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import cputime, isolated, row, set_threads, timeit  # noqa: E402

SEQ, HIDDEN, HEADS, FFN = 128, 768, 12, 3072


def bert_layer():
    import torch
    from transformers import BertConfig
    from transformers.models.bert.modeling_bert import BertLayer

    torch.manual_seed(0)
    cfg = BertConfig(hidden_size=HIDDEN, num_attention_heads=HEADS, intermediate_size=FFN,
                     attn_implementation="eager")
    layer = BertLayer(cfg).eval()

    class Encoder(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            return self.inner(x)[0]

    return Encoder(layer).eval()


def run(reps: int = 5) -> list:
    try:
        import torch

        import allo
        model = bert_layer()
    except Exception as e:  # transformers or the frontend missing
        return [f"bert: skipped ({type(e).__name__}: {e})"]
    x = torch.randn(1, SEQ, HIDDEN)
    t0 = time.perf_counter()
    imp = allo.frontend.import_model(model, [x], verbose=False)
    imp.schedule(pipeline_helpers=False)
    lines = [f"bert layer: import+compose {time.perf_counter() - t0:.2f} s"]
    builds = {}
    for name, kw in (("allo_exact", {}), ("allo", {"fast_math": True})):
        t0 = time.perf_counter()
        builds[name] = imp.build("llvm", threads=1, **kw)
        lines.append(f"bert layer ({name}, 1 thread): JIT compile {time.perf_counter() - t0:.2f} s")
    with torch.no_grad():
        want = model(x).numpy()
    xn = x.numpy()
    for m in builds.values():
        np.testing.assert_allclose(m(xn), want, rtol=1e-3, atol=1e-3)
    flops = 2.0 * SEQ * HIDDEN * (4 * HIDDEN + 2 * FFN) + 4.0 * SEQ * SEQ * HIDDEN
    with torch.no_grad():
        set_threads(1)
        t = timeit({"allo": lambda: builds["allo"](xn), "allo_exact": lambda: builds["allo_exact"](xn),
                    "torch": lambda: model(x)}, reps)
        lines.append(row("bert layer 1 thread (allo fast_math)", t, "allo", ["torch"], flops))
        lines.append(row("bert layer 1 thread (allo exact)", {"allo_exact": t["allo_exact"], "torch": t["torch"]},
                         "allo_exact", ["torch"], flops))
        c = cputime({"allo": lambda: builds["allo"](xn), "allo_exact": lambda: builds["allo_exact"](xn),
                     "torch": lambda: model(x)}, reps)
        lines.append(row("bert layer 1 thread, CPU time", c, "allo_exact", ["torch"], flops))
    set_threads(os.cpu_count() or 1)
    lines += two_threads(reps)
    return lines


_SETUP = """
import torch, allo
from bench_bert import bert_layer, SEQ, HIDDEN
model = bert_layer()
torch.manual_seed(1)
x = torch.randn(1, SEQ, HIDDEN)
xn = x.numpy()
torch.set_grad_enabled(False)
"""


def two_threads(reps: int) -> list:
    """allo (exact default, and fast_math) and torch eager with 2 threads, each in its own process."""
    flops = 2.0 * SEQ * HIDDEN * (4 * HIDDEN + 2 * FFN) + 4.0 * SEQ * SEQ * HIDDEN
    build = "mod = allo.frontend.from_pytorch(model, [x], threads=2, fast_math={fm}, verbose=False)\n"
    t = {"allo_exact": isolated(_SETUP + build.format(fm=False), "mod(xn)", 2, reps),
         "allo": isolated(_SETUP + build.format(fm=True), "mod(xn)", 2, reps),
         "torch": isolated(_SETUP, "model(x)", 2, reps)}
    lines = [row("bert layer 2 threads (allo exact)", {"allo_exact": t["allo_exact"], "torch": t["torch"]},
                 "allo_exact", ["torch"], flops),
             row("bert layer 2 threads (allo fast_math)", {"allo": t["allo"], "torch": t["torch"]}, "allo",
                 ["torch"], flops),
             f"  (allo exact / torch, 2 threads: {t['allo_exact'] / t['torch']:.2f}x the time; fast_math: "
             f"{t['allo'] / t['torch']:.2f}x; load {os.getloadavg()[0]:.1f})"]
    return lines


if __name__ == "__main__":
    for line in run():
        print(line)
