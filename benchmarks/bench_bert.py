"""A BERT-base encoder layer (hidden 768, 12 heads, FFN 3072, seq 128, batch 1) imported with
`allo.frontend.from_pytorch` vs torch eager (transformers BertLayer, random weights, eval mode).

Two allo builds: `from_pytorch` as is (library kernels with their composed HLS schedules; the CPU
optimiser folds buffer_at back) and with `fast_math=True`.
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import cputime, row, set_threads, timeit  # noqa: E402

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
        from allo.frontend.pytorch import TorchModule, import_model
        model = bert_layer()
    except Exception as e:  # transformers or the frontend missing
        return [f"bert: skipped ({type(e).__name__}: {e})"]
    x = torch.randn(1, SEQ, HIDDEN)
    t0 = time.perf_counter()
    imp = import_model(model, [x])
    s = imp.schedule()
    t_import = time.perf_counter() - t0
    from allo.backend import llvm

    builds, lines = {}, []
    for name, kw in (("allo", {}), ("allo_fm", {"fast_math": True})):
        llvm._cache.clear()
        t0 = time.perf_counter()
        mod = s.build(**kw)
        builds[name] = TorchModule(mod, imp.program.inputs, imp.input_sizes(), [], imp.out_info,
                                   imp.captured.out_spec, imp)
        lines.append(f"bert layer ({name}): import+compose {t_import:.2f} s, JIT compile {time.perf_counter() - t0:.2f} s")
    with torch.no_grad():
        want = model(x).numpy()
    xn = x.numpy()
    for m in builds.values():
        np.testing.assert_allclose(m(xn), want, rtol=1e-3, atol=1e-3)
    flops = 2.0 * SEQ * HIDDEN * (4 * HIDDEN + 2 * FFN) + 4.0 * SEQ * SEQ * HIDDEN
    with torch.no_grad():
        set_threads(1)
        t = timeit({"allo": lambda: builds["allo_fm"](xn), "allo_exact": lambda: builds["allo"](xn),
                    "torch": lambda: model(x)}, reps)
        lines.append(row("bert layer 1 thread (allo fast_math)", t, "allo", ["torch"], flops))
        lines.append(row("bert layer 1 thread (allo exact)", {"allo_exact": t["allo_exact"], "torch": t["torch"]},
                         "allo_exact", ["torch"], flops))
        c = cputime({"allo": lambda: builds["allo_fm"](xn), "torch": lambda: model(x)}, reps)
        lines.append(row("bert layer 1 thread, CPU time", c, "allo", ["torch"], flops))
        set_threads(2)
        t = timeit({"torch": lambda: model(x)}, reps, interleave=False)
        lines.append(f"bert layer torch eager 2 threads: {t['torch'] * 1e3:.2f} ms (allo build has no parallel loops)")
    set_threads(os.cpu_count() or 1)
    return lines


if __name__ == "__main__":
    for line in run():
        print(line)
