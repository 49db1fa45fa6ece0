"""Arrays of run-time length (`def kernel(A: float32[...], size: int32)`, memref<?xf32>).

The loop IR keeps the unknown extent (None in the shape; `s.module` prints memref<?xf32>, the HLS
C++ takes an unsized array `float A[]`). Targets that compile a call (LLVM, csim) specialise the
kernel to the lengths of the arrays each call passes: the clone gets those static shapes and is
built as any kernel (one build per distinct set of lengths, cached), so bounds checks, entry
checks and the CPU optimiser see the real sizes. Targets whose hardware needs its memories' sizes
(rtl, calyx, catapult, xls) refuse with the parameter's line.

Example::

    mod = s.build()                      # SizedOnCall
    mod(np.zeros(256, np.float32), out, 256)   # builds the length-256 version, then runs it
"""
from __future__ import annotations

import numpy as np

from ..errors import AlloError, AlloTypeError, located
from ..ir.types import ArrayType


def dynamic_params(ir) -> list:
    """(position, Buffer) of the top function's array parameters of run-time length."""
    func = ir.func(ir.top)
    return [(k, p) for k, p in enumerate(func.params) if isinstance(p.type, ArrayType) and p.type.dynamic]


def refuse(ir, what: str) -> None:
    """AlloError at the first run-time-length parameter: the build `what` ("target='rtl'") needs
    static sizes."""
    k, p = dynamic_params(ir)[0]
    raise located(AlloError, f"build({what}): parameter {p.name!r} is {p.type!r}, an array of run-time "
                  f"length; this build needs every array's size: give it a static shape "
                  f"({p.type.dtype!r}[N]), or build for 'llvm' or 'vhls'", p.loc)


def specialise(ir, lengths: dict):
    """A clone of `ir` whose run-time-length parameters have the static lengths {position: n}."""
    out = ir.clone()
    func = out.func(out.top)
    for k, n in lengths.items():
        p = func.params[k]
        p.type = ArrayType(p.type.dtype, (int(n),), p.type.memory)
    for t in func.result_types:
        if isinstance(t, ArrayType) and t.dynamic:
            raise located(AlloTypeError, f"{func.name!r} returns {t!r}: a result needs a static shape", func.loc)
    return out


class SizedOnCall:
    """A built kernel with run-time-length arrays: each call builds (once per set of lengths) the
    version specialised to the arrays it is given, with `build(ir)`, and runs it."""

    def __init__(self, ir, build, what: str):
        self.ir, self._build, self.what = ir, build, what
        self.positions = dynamic_params(ir)
        self.versions = {}  # (lengths...) -> built module

    def lengths(self, args) -> tuple:
        out = []
        for k, p in self.positions:
            if k >= len(args):
                raise AlloError(f"{self.ir.top}: argument {k} ({p.name!r}) is missing")
            shape = np.shape(args[k])
            if len(shape) != 1 or shape[0] < 1:
                raise located(AlloTypeError, f"{self.ir.top}: argument {k} ({p.name!r}, {p.type!r}) must be a "
                              f"non-empty 1-D array, got shape {list(shape)}", p.loc)
            out.append(shape[0])
        return tuple(out)

    def version(self, args):
        key = self.lengths(args)
        if key not in self.versions:
            self.versions[key] = self._build(specialise(self.ir, {k: n for (k, _), n in zip(self.positions, key)}))
        return self.versions[key]

    def __call__(self, *args, **kw):
        return self.version(args)(*args, **kw)

    def __repr__(self):
        return f"<{self.what} of {self.ir.top!r} (arrays of run-time length; {len(self.versions)} version(s) built)>"


__all__ = ["dynamic_params", "refuse", "specialise", "SizedOnCall"]
