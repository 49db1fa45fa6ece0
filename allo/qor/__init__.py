"""QoR: see what a schedule buys in hardware, without vendor tools.

`estimate(s)` (also `allo.report(s)` and `s.build(target="vhls").report()`) models how Vitis HLS
2022.1 synthesizes the design allo emits: latency (worst case, cycles and ms), the top-level
interval, one row per loop with its trip count, achieved II and what limits it, and resources
(DSP, BRAM_18K, FF, LUT, URAM) against a part. Operator latencies and resources come from the
tables in allo/qor/data/ (per clock), not from code. With Vitis installed,
`build(target="vhls", mode="csyn")` runs the real tool and `report()` parses its csynth.xml into
the same `QoRReport` (source "vitis").

Example::

    s = allo.customize(gemm)
    s.pipeline("k")
    r = allo.report(s, clock_ns=3.33, part="xcu280")
    print(r)                        # table like Vitis's synthesis summary
    r.latency_cycles, r.ii, r.resources["DSP"]
"""
from .api import estimate, report
from .estimate import Estimator
from .report import LoopRow, QoRReport

__all__ = ["estimate", "report", "Estimator", "QoRReport", "LoopRow"]
