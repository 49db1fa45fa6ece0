"""Run every CPU benchmark and print machine facts and one line per measurement.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/run_all.py [gemm conv2d norms bert qor dse]

Medians of interleaved repetitions (wall clock); "speed vs X" is X's time / allo's time (above 1:
allo is faster). "CPU time" lines count only the CPU time of the calling thread (robust on a
busy machine, single-threaded runs only). Numbers are recorded in benchmarks/RESULTS.md.
"""
from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import bench_bert  # noqa: E402
import bench_conv2d  # noqa: E402
import bench_dse  # noqa: E402
import bench_gemm  # noqa: E402
import bench_norms  # noqa: E402
import bench_qor  # noqa: E402
from common import machine  # noqa: E402

BENCHES = {"gemm": bench_gemm.run, "conv2d": bench_conv2d.run, "norms": bench_norms.run, "bert": bench_bert.run,
           "qor": bench_qor.run, "dse": bench_dse.run}


def main(names):
    for k, v in machine().items():
        print(f"{k}: {v}")
    for name in names or list(BENCHES):
        t0 = time.perf_counter()
        for line in BENCHES[name]():
            print(line, flush=True)
        print(f"({name}: {time.perf_counter() - t0:.0f} s)")
    print(f"loadavg after: {open('/proc/loadavg').read().split()[0]}")


if __name__ == "__main__":
    main(sys.argv[1:])
