"""A 12-layer BERT-base (hidden 768, 12 heads, FFN 3072, vocab 30522, seq 128, batch 1; transformers
BertModel from a config with random weights) through `allo.frontend.from_pytorch`: wall time of
import + compose + build and the process's peak RSS, each run in a fresh process (so caches and
memory start cold), median of several runs, with the process CPU time (what the wall time would be
without other processes competing for the cores: the import is single-threaded but for the torch
and LLVM thread pools). Also: the per-stage split, the HLS C++ size (large
weights go to weights/ files instead of C++ literals), and one model call vs torch eager.

    python benchmarks/bench_bert12.py [runs]       # default 3 runs
"""
from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys

LAYERS, SEQ = 12, 128
HERE = os.path.dirname(os.path.abspath(__file__))


def child(target: str) -> dict:
    """One measurement (runs in its own process)."""
    import io
    import resource
    import time

    import torch
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    bert = BertModel(BertConfig(num_hidden_layers=LAYERS, attn_implementation="eager"), add_pooling_layer=False)

    class Encoder(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, ids):
            return self.inner(input_ids=ids).last_hidden_state

    model = Encoder(bert).eval()
    ids = torch.randint(0, 30522, (1, SEQ))
    import allo
    from allo.frontend import progress

    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    log = io.StringIO()
    real = progress.Progress.__init__

    def logged(self, verbose=None, stream=None):
        real(self, True, log)

    progress.Progress.__init__ = logged
    t0, c0 = time.perf_counter(), time.process_time()
    mod = allo.frontend.from_pytorch(model, [ids], target=target)
    total, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    stages = {m.group(1): float(m.group(2)) for m in re.finditer(r"allo: (\w+) ([\d.]+) s", log.getvalue())}
    out = {"target": target, "seconds": total, "cpu_seconds": cpu, "peak_rss_mb": peak, "rss_before_mb": rss0, "stages": stages,
           "load": os.getloadavg()[0]}
    if target == "llvm":
        torch.set_num_threads(mod.threads)
        with torch.no_grad():
            want = model(ids).numpy()
            got = mod(ids.numpy())
            times = {"torch": [], "allo": []}
            for _ in range(3):  # interleaved, so load changes hit both alike
                for name, fn in (("torch", lambda: model(ids)), ("allo", lambda: mod(ids.numpy()))):
                    t = time.perf_counter()
                    fn()
                    times[name].append((time.perf_counter() - t) * 1e3)
        out["torch_call_ms"], out["allo_call_ms"] = (statistics.median(times[k]) for k in ("torch", "allo"))
        out["max_abs_err"] = float(abs(got - want).max())
        out["threads"] = mod.threads
    else:
        out["kernel_cpp_mb"] = len(mod.hls_code) / 1e6
        out["weight_files"] = len(mod.weight_files)
    return out


def run(runs: int = 3) -> list:
    try:
        import transformers  # noqa: F401
    except ImportError as e:
        return [f"bert12: skipped ({e})"]
    lines = []
    for target in ("llvm", "vhls"):
        results = []
        for _ in range(runs if target == "llvm" else 1):
            proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", target], capture_output=True,
                                  text=True, env=dict(os.environ))
            if proc.returncode != 0:
                return lines + [f"bert12 {target}: failed\n{proc.stderr[-2000:]}"]
            results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        lines.append(_summary(target, results))
    return lines


def _summary(target, results) -> str:
    med = {k: statistics.median(r[k] for r in results)
           for k in ("seconds", "cpu_seconds", "peak_rss_mb", "rss_before_mb", "load")}
    stages = {k: statistics.median(r["stages"].get(k, 0.0) for r in results) for k in results[0]["stages"]}
    each = ", ".join(f"{r['seconds']:.2f}" for r in results)
    text = (f"bert-base {LAYERS} layers seq {SEQ} -> {target}: import+compose+build {med['seconds']:.2f} s "
            f"(median of {len(results)}: {each}; process CPU time {med['cpu_seconds']:.2f} s), peak RSS "
            f"{med['peak_rss_mb']:.0f} MB ({med['rss_before_mb']:.0f} MB before the import: torch + the model), "
            f"load {med['load']:.1f}\n  stages: " + ", ".join(f"{k} {v:.2f} s" for k, v in stages.items()))
    r = results[-1]
    if target == "llvm":
        text += (f"\n  one call (median of 3): allo {r['allo_call_ms']:.0f} ms ({r['threads']} threads, exact), "
                 f"torch eager {r['torch_call_ms']:.0f} ms; max |allo - torch| = {r['max_abs_err']:.2g}")
    else:
        text += f"\n  kernel.cpp {r['kernel_cpp_mb']:.2f} MB; {r['weight_files']} weights in weights/*.bin"
    return text


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        sys.path.insert(0, os.path.dirname(HERE))
        print(json.dumps(child(sys.argv[2])))
    else:
        for line in run(int(sys.argv[1]) if len(sys.argv) > 1 else 3):
            print(line)
