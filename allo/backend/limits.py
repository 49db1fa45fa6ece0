"""What this machine can run: locals larger than its memory are refused before a backend builds.

Shared by the LLVM JIT and HLS C simulation (both malloc every local on the host; a failed malloc
would make the kernel write through a null pointer).

Imports: allo.errors, allo.ir, allo.render (element sizes).

Example::

    check_allocation_sizes(module)     # BackendError at the kernel line of a too-large local
"""
from __future__ import annotations

import os

from ..errors import BackendError, located
from ..ir import nodes as N, visit as V
from ..render.scalars import elem_bytes


def check_allocation_sizes(mod: N.Module, limit: int | None = None) -> None:
    """Refuse locals larger than `limit` bytes (default: this machine's memory): BackendError at
    the declaring kernel line.

    Example::

        check_allocation_sizes(module, limit=1 << 30)
    """
    if limit is None:
        try:
            limit = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError):  # pragma: no cover - not POSIX
            return
    for f in mod.funcs:
        for s in V.walk_stmts(f.body):
            if isinstance(s, N.Alloc):
                size = s.buf.type.size * elem_bytes(s.buf.dtype)
                if size > limit:
                    raise located(BackendError, f"local {s.buf.name!r} in {f.name!r} needs {size / 2**30:.1f} GiB, "
                                  f"more than this machine's memory ({limit / 2**30:.1f} GiB); make it smaller or "
                                  "stream it in tiles", s.loc or s.buf.loc)


__all__ = ["check_allocation_sizes"]
