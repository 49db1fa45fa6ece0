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

from ..errors import AlloError, AlloTypeError
from ..ir.types import ArrayType


class Memory:
    """Where an array lives: `resource` in BRAM, URAM, LUTRAM, SRL, AUTO (the tool decides);
    `storage_type` in RAM_1P, RAM_2P, RAM_T2P, RAM_S2P, RAM_1WNR, ROM_1P, ROM_2P, ROM_NP
    (None: the tool decides); `latency` in cycles (None: the tool decides). `depth` is for
    streams and is refused on arrays."""

    VALID_RESOURCE = ("BRAM", "URAM", "LUTRAM", "SRL", "AUTO")
    VALID_STORAGE_TYPE = ("RAM_1P", "RAM_2P", "RAM_T2P", "RAM_1WNR", "RAM_S2P", "ROM_1P", "ROM_2P", "ROM_NP")

    def __init__(self, resource: str = "AUTO", storage_type: str | None = None, latency: int | None = None,
                 depth: int | None = None):
        if not isinstance(resource, str) or resource.upper() not in self.VALID_RESOURCE:
            raise AlloError(f"Memory(resource={resource!r}): expected one of {', '.join(self.VALID_RESOURCE)}")
        if storage_type is not None and (not isinstance(storage_type, str)
                                         or storage_type.upper() not in self.VALID_STORAGE_TYPE):
            raise AlloError(f"Memory(storage_type={storage_type!r}): expected one of "
                            f"{', '.join(self.VALID_STORAGE_TYPE)} or None")
        if latency is not None and (isinstance(latency, bool) or not isinstance(latency, int) or latency < 1):
            raise AlloError(f"Memory(latency={latency!r}): expected a positive number of cycles")
        if depth is not None:
            raise AlloError("Memory(depth=...) sizes streams (FIFOs); allo arrays take their depth from the shape, "
                            "so depth= is not supported on arrays")
        self.resource = resource.upper()
        self.storage_type = storage_type.upper() if storage_type else None
        self.latency = latency
        self.depth = None

    def binding(self) -> dict:
        """The `Buffer.attrs["bind_storage"]` entry: {"resource": ..., "storage_type": ..., "latency": ...}."""
        out = {"resource": self.resource, "storage_type": self.storage_type}
        if self.latency is not None:
            out["latency"] = self.latency
        return out

    def __rmatmul__(self, array_type):
        if not isinstance(array_type, ArrayType):
            raise AlloTypeError(f"`@ Memory(...)` annotates an array type such as int32[32], got {array_type!r}")
        return ArrayType(array_type.dtype, array_type.shape, memory=self)

    def __eq__(self, other):
        return isinstance(other, Memory) and (self.resource, self.storage_type, self.latency) == (
            other.resource, other.storage_type, other.latency)

    def __hash__(self):
        return hash((self.resource, self.storage_type, self.latency))

    def __repr__(self):
        parts = [f'resource="{self.resource}"']
        if self.storage_type:
            parts.append(f'storage_type="{self.storage_type}"')
        if self.latency is not None:
            parts.append(f"latency={self.latency}")
        return f"Memory({', '.join(parts)})"


class _AIEOnly:
    """Upstream Allo's AI Engine data layouts; allo has no AIE backend."""

    def __init__(self, *args, **kwargs):
        raise AlloError(f"allo.memory.{type(self).__name__} describes data layouts for AMD AI Engine (AIE) "
                        "dataflow kernels, which allo does not support; use Memory(resource=...) for HLS "
                        "storage binding")


class Layout(_AIEOnly):
    """Not supported (AIE only): constructing it raises an AlloError that says so."""


class DTensor(_AIEOnly):
    """Not supported (AIE only): constructing it raises an AlloError that says so."""


__all__ = ["Memory", "Layout", "DTensor"]
