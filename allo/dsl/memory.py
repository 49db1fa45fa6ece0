"""Storage binding: `allo.memory.Memory` says which FPGA memory holds an array.

`A: float32[64, 64] @ Memory(resource="URAM")` on a parameter or a local becomes
`#pragma HLS bind_storage variable=A type=ram_2p impl=uram` in the HLS C++ and a
`bind_storage = {resource = "URAM", ...}` attribute in the MLIR; the QoR estimate counts the
array in that resource. The LLVM build computes exactly as without it.

Example::

    from allo.memory import Memory

    def kernel(A: int32[1024] @ Memory(resource="URAM"), B: int32[1024]) -> int32[1024]:
        buf: int32[1024] @ Memory(resource="LUTRAM", storage_type="RAM_1P") = 0
        ...
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from ..errors import AlloError, AlloTypeError, AlloValueError
from ..ir.attrs import MEMORY_RESOURCE_CODE, MEMORY_STORAGE_CODE
from ..ir.types import ArrayType


class Memory:
    """Where an array lives: `resource` in BRAM, URAM, LUTRAM, SRL, AUTO (the tool decides);
    `storage_type` in RAM_1P, RAM_2P, RAM_T2P, RAM_S2P, RAM_1WNR, ROM_1P, ROM_2P, ROM_NP
    (None: the tool decides); `latency` in cycles (None: the tool decides). `depth` is for
    streams: kept on the object, refused when it annotates an array."""

    VALID_RESOURCE = ("BRAM", "URAM", "LUTRAM", "SRL", "AUTO")
    VALID_STORAGE_TYPE = ("RAM_1P", "RAM_2P", "RAM_T2P", "RAM_1WNR", "RAM_S2P", "ROM_1P", "ROM_2P", "ROM_NP")
    # upstream Allo's memref memory-space number: resource code * 16 + storage-type code
    RESOURCE_TO_SPACE = MEMORY_RESOURCE_CODE
    STORAGE_TYPE_TO_CODE = MEMORY_STORAGE_CODE

    def __init__(self, resource: str = "AUTO", storage_type: str | None = None, latency: int | None = None,
                 depth: int | None = None):
        if not isinstance(resource, str) or resource.upper() not in self.VALID_RESOURCE:
            raise AlloValueError(f"Invalid resource: Memory(resource={resource!r}) expects one of "
                                 f"{', '.join(self.VALID_RESOURCE)}")
        if storage_type is not None and (not isinstance(storage_type, str)
                                         or storage_type.upper() not in self.VALID_STORAGE_TYPE):
            raise AlloValueError(f"Invalid storage_type: Memory(storage_type={storage_type!r}) expects one of "
                                 f"{', '.join(self.VALID_STORAGE_TYPE)} or None")
        if latency is not None and (isinstance(latency, bool) or not isinstance(latency, int) or latency < 1):
            raise AlloValueError(f"Memory(latency={latency!r}): expected a positive number of cycles")
        if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
            raise AlloValueError(f"Memory(depth={depth!r}): expected a positive number of entries")
        self.resource = resource.upper()
        self.storage_type = storage_type.upper() if storage_type else None
        self.latency = latency
        self.depth = depth

    def get_memory_space(self) -> int:
        """Upstream Allo's integer encoding of this binding: resource code * 16 + storage-type code.

        Example: ``Memory(resource="BRAM", storage_type="RAM_2P").get_memory_space() == 18``.
        """
        return self.RESOURCE_TO_SPACE[self.resource] * 16 + self.STORAGE_TYPE_TO_CODE[self.storage_type]

    def binding(self) -> dict:
        """The `Buffer.attrs["bind_storage"]` entry: {"resource": ..., "storage_type": ..., "latency": ...}."""
        out = {"resource": self.resource, "storage_type": self.storage_type}
        if self.latency is not None:
            out["latency"] = self.latency
        return out

    def __rmatmul__(self, array_type):
        if not isinstance(array_type, ArrayType):
            raise AlloTypeError(f"`@ Memory(...)` annotates an array type such as int32[32], got {array_type!r}")
        if self.depth is not None:
            raise AlloTypeError("Memory(depth=...) sizes streams (FIFOs); an array takes its depth from its shape, "
                                f"so drop depth= on {array_type!r}")
        return ArrayType(array_type.dtype, array_type.shape, memory=self)

    def __eq__(self, other):
        return isinstance(other, Memory) and (self.resource, self.storage_type, self.latency, self.depth) == (
            other.resource, other.storage_type, other.latency, other.depth)

    def __hash__(self):
        return hash((self.resource, self.storage_type, self.latency, self.depth))

    def __repr__(self):
        parts = [f'resource="{self.resource}"']
        if self.storage_type:
            parts.append(f'storage_type="{self.storage_type}"')
        if self.latency is not None:
            parts.append(f"latency={self.latency}")
        if self.depth is not None:
            parts.append(f"depth={self.depth}")
        return f"Memory({', '.join(parts)})"


class Layout:
    """How a tensor is split over a grid (mesh) of processing elements, one entry per tensor
    dimension: `Layout.Shard(k)` splits that dimension over mesh dimension k, `Layout.Replicate`
    gives every PE the whole dimension. Upstream Allo uses it for AI Engine kernels, which allo
    does not build; here it is the description and its placement arithmetic.

    Example::

        S, R = Layout.Shard, Layout.Replicate
        Layout([S(0), R]).get_placement([2, 2])
        # {(0, 0): [(0, 0), (0, 1)], (1, 0): [(1, 0), (1, 1)]}
    """

    @dataclass(frozen=True)
    class Shard:
        """Split a tensor dimension over mesh dimension `axis`."""
        axis: int

    @dataclass(frozen=True)
    class Replicate:
        """Every PE holds the whole tensor dimension."""

    def __init__(self, partitions):
        if isinstance(partitions, str) or not isinstance(partitions, (list, tuple)):
            raise AlloValueError(f"Layout({partitions!r}): expected a list with one entry per tensor dimension, "
                                 "each Layout.Shard(mesh_axis) or Layout.Replicate, e.g. "
                                 "Layout([Layout.Shard(0), Layout.Replicate])")
        self.partitions = [self._entry(p) for p in partitions]

    @staticmethod
    def _entry(p):
        if p is Layout.Replicate:
            return Layout.Replicate()
        if isinstance(p, Layout.Replicate) or (isinstance(p, Layout.Shard) and isinstance(p.axis, int)
                                                 and p.axis >= 0):
            return p
        raise AlloValueError(f"Layout entry {p!r}: expected Layout.Shard(mesh_axis >= 0) or Layout.Replicate")

    def get_placement(self, mesh_dims) -> dict:
        """Map each tensor tile id to the PE coordinates that hold it (a replicated dimension's
        tile id is 0)."""
        for p in self.partitions:
            if isinstance(p, Layout.Shard) and p.axis >= len(mesh_dims):
                raise AlloValueError(f"Layout: Shard({p.axis}) names mesh dimension {p.axis}, but the mesh "
                                     f"{list(mesh_dims)} has {len(mesh_dims)}")
        placement: dict = {}
        for pe in product(*(range(d) for d in mesh_dims)):
            tile = tuple(pe[p.axis] if isinstance(p, Layout.Shard) else 0 for p in self.partitions)
            placement.setdefault(tile, []).append(pe)
        return placement

    def __eq__(self, other):
        return isinstance(other, Layout) and self.partitions == other.partitions

    def __hash__(self):
        return hash(tuple(self.partitions))

    def __repr__(self):
        return "Layout([" + ", ".join(f"S({p.axis})" if isinstance(p, Layout.Shard) else "R"
                                      for p in self.partitions) + "])"


class DTensor:
    """A tensor as distributed over a PE mesh: its global `shape`, `dtype` and either a `Layout`
    (`.layout`) or a `Memory` binding (`.memory`) from `spec`. `get_local_shape()` is the tile one
    PE holds.

    Example::

        t = DTensor(rank=None, mapping=[2, 2], shape=(32, 32), dtype=int32,
                    spec=Layout([Layout.Shard(0), Layout.Replicate]), name="A")
        t.get_local_shape()   # (16, 32)
    """

    def __init__(self, rank, mapping, shape, dtype, spec, name=None, top_name=None):
        if spec is not None and not isinstance(spec, (Layout, Memory)):
            raise AlloValueError(f"DTensor(spec={spec!r}): expected a Layout, a Memory or None")
        self.rank, self.mapping, self.shape, self.dtype = rank, mapping, tuple(shape), dtype
        self.name, self.top_name = name, top_name
        self.layout = spec if isinstance(spec, Layout) else None
        self.memory = spec if isinstance(spec, Memory) else None
        if self.layout is not None and len(self.layout.partitions) != len(self.shape):
            raise AlloValueError(f"DTensor {name!r}: the layout has {len(self.layout.partitions)} entries but the "
                                 f"shape {list(self.shape)} has {len(self.shape)} dimensions")
        self.global_placement = (self.layout.get_placement(mapping)
                                 if self.layout is not None and mapping is not None else None)

    def get_local_shape(self) -> tuple:
        """The shape of one PE's tile: sharded dimensions divided by their mesh dimension."""
        if self.layout is None or self.mapping is None:
            return self.shape
        out = []
        for size, p in zip(self.shape, self.layout.partitions):
            if isinstance(p, Layout.Shard):
                parts = self.mapping[p.axis]
                if size % parts:
                    raise AlloValueError(f"DTensor {self.name!r}: dimension of size {size} does not split "
                                         f"evenly over mesh dimension {p.axis} ({parts} PEs)")
                size //= parts
            out.append(size)
        return tuple(out)

    def __str__(self):
        spec = f"layout={self.layout!r}" if self.layout is not None else f"memory={self.memory!r}"
        return f"DTensor(name={self.name!r}, shape={list(self.shape)}, dtype={self.dtype}, {spec})"

    __repr__ = __str__


__all__ = ["Memory", "Layout", "DTensor"]
