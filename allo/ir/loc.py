"""Source locations carried by IR nodes (`node.loc`): the kernel line an error points at.

Example::

    Loc("k.py", 12, 4, "    C[i] = A[i]").mlir()     # 'loc("k.py":12:5)'
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Loc:
    """A position in kernel source: absolute file line (1-based) and column."""

    filename: str
    lineno: int
    col: int = 0
    source_line: str | None = None

    def mlir(self) -> str:
        """The MLIR location literal, e.g. loc("k.py":12:5)."""
        name = self.filename.replace("\\", "\\\\").replace('"', '\\"')
        return f'loc("{name}":{self.lineno}:{self.col + 1})'
