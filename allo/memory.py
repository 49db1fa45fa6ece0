"""`allo.memory.Memory` under upstream Allo's module name (the class lives in `allo.dsl.memory`).

Example::

    from allo.memory import Memory
    def k(A: float32[1024] @ Memory(resource="URAM")) -> float32[1024]: ...
"""
from .dsl.memory import DTensor, Layout, Memory

__all__ = ["Memory", "Layout", "DTensor"]
