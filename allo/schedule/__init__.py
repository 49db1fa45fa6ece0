"""Schedule primitives as rewrites of allo's loop IR (declared in primitives.py), and loop addressing
(`allo.ir.loops`, re-exported here).

Example::

    from allo.schedule import get_loops, find_loop, split, reorder
    split(func, "i", 4)                      # i -> i.outer, i.inner
    reorder(func, "i.inner", "j")
    get_loops(func)["S_i_j_0"]["j"]          # a LoopHandle (names only)
"""
from ..ir.loops import (BandHandle, LoopHandle, LoopNest, all_loops, band_of, find_buffer, find_loop, get_bands,
                        get_loops, loop_names, loop_tree)
from ..ir.visit import loop_path
from .primitives import (PARTITION_KINDS, PRIMITIVES, buffer_at, compute_at, dataflow, fuse, inline, parallel,
                         partition, pipeline, reorder, reshape, reuse_at, split, to, unfold, unroll)

__all__ = [
    "BandHandle", "LoopHandle", "LoopNest", "all_loops", "band_of", "find_buffer", "find_loop",
    "get_bands", "get_loops", "loop_names", "loop_path", "loop_tree",
    "split", "reorder", "fuse", "unroll", "pipeline", "parallel", "dataflow",
    "partition", "buffer_at", "reuse_at", "compute_at", "PARTITION_KINDS", "reshape", "unfold", "inline", "to",
    "PRIMITIVES",
]
