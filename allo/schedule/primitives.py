"""Every schedule primitive in one namespace (each one rewrites a `nodes.Func` in place).

Example::

    from allo.schedule import primitives as P
    P.split(func, "i", 4)
    P.reorder(func, "k", "j")
    P.buffer_at(func, "C", "i")
"""
from .compute_at import compute_at
from .loop_transforms import dataflow, fuse, parallel, pipeline, reorder, split, unroll
from .memory_transforms import PARTITION_KINDS, buffer_at, partition, reuse_at
from .structure_transforms import inline, reshape, unfold

__all__ = ["split", "reorder", "fuse", "unroll", "pipeline", "parallel", "dataflow",
           "partition", "buffer_at", "reuse_at", "compute_at", "PARTITION_KINDS", "reshape", "unfold", "inline"]
