"""Running a generated C++ testbench on numpy arguments through raw files (the Catapult C
simulation and the XLS[cc] software emulation; Vitis csim has its own, allo/backend/hls/csim.py).

Each argument k is written as `in<k>.bin` (numpy's container dtype; fixed point as raw scaled
integers: allo.backend.hls.storage), the testbench writes result j as `out<j>.bin` and every array
argument it may have changed as `arg<k>.bin`; `FileIO.results` reads them back with the LLVM
module's convention (one result: the value; several: a tuple; none: None; arrays the kernel writes
are updated in place). `IO_CPP` is the C++ side: `allo_read<S>(dir, file, T *dst, n)` and
`allo_write<S>(dir, file, const T *src, n)` convert each element with `allo_load(T &, S)` /
`allo_store<S>(const T &)`, which the testbench defines for its types.

Example::

    io = FileIO(func, written={0})
    io.write_inputs([A, B], data_dir)
    ... run the testbench with data_dir as argv[1] ...
    C = io.results(data_dir, [A, B])
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import AlloTypeError
from ..ir import nodes as N
from ..ir.types import ArrayType
from .hls.storage import from_storage, storage_dtype, to_storage
from .marshal import check_writable

IO_CPP = r"""
#include <cstdio>
#include <cstdlib>
#include <string>

static std::string allo_path(const char *dir, const char *file) { return std::string(dir) + "/" + file; }

template <class S, class T> static void allo_read(const char *dir, const char *file, T *dst, size_t n) {
  std::FILE *f = std::fopen(allo_path(dir, file).c_str(), "rb");
  if (!f) { std::fprintf(stderr, "allo testbench: cannot open %s\n", file); std::exit(2); }
  for (size_t i = 0; i < n; i++) {
    S s;
    if (std::fread(&s, sizeof(S), 1, f) != 1) { std::fprintf(stderr, "allo testbench: %s is short\n", file); std::exit(2); }
    allo_load(dst[i], s);
  }
  std::fclose(f);
}

template <class S, class T> static void allo_write(const char *dir, const char *file, const T *src, size_t n) {
  std::FILE *f = std::fopen(allo_path(dir, file).c_str(), "wb");
  if (!f) { std::fprintf(stderr, "allo testbench: cannot write %s\n", file); std::exit(2); }
  for (size_t i = 0; i < n; i++) {
    S s = allo_store<S>(src[i]);
    std::fwrite(&s, sizeof(S), 1, f);
  }
  std::fclose(f);
}
"""


def shape_of(t) -> tuple:
    return tuple(t.shape) if isinstance(t, ArrayType) else ()


def dtype_of(t):
    return t.dtype if isinstance(t, ArrayType) else t


class FileIO:
    """The numpy side of one top function's testbench files."""

    def __init__(self, func: N.Func, written=()):
        self.func = func
        self.written = sorted(k for k in written if func.params[k].shape)

    def check_count(self, args, extra_outputs: bool = False) -> int:
        """How many of `args` are inputs; with `extra_outputs`, trailing arrays may be the results'
        buffers (upstream Allo's `mod(a, b, c)` with the result written into c)."""
        n, m = len(self.func.params), len(self.func.result_types)
        if len(args) == n or (extra_outputs and m and len(args) == n + m):
            return n
        want = f"{n}" + (f" (or {n + m} with result buffers)" if extra_outputs and m else "")
        raise AlloTypeError(f"{self.func.name}() takes {want} arguments, got {len(args)}")

    def write_inputs(self, args, d: Path) -> None:
        for k, (a, p) in enumerate(zip(args, self.func.params)):
            if k in self.written:
                check_writable(a, f"{self.func.name}: argument {k} ({p.name!r})")
            to_storage(a, p, k, self.func.name).tofile(str(Path(d) / f"in{k}.bin"))

    def _read(self, d: Path, name: str, t):
        raw = np.fromfile(str(Path(d) / name), dtype=storage_dtype(dtype_of(t)))
        value = from_storage(raw, dtype_of(t))
        shape = shape_of(t)
        return value.reshape(shape) if shape else value[0]

    def results(self, d: Path, args):
        """Read the outputs, update written arrays among `args` in place, return the results."""
        for k in self.written:
            args[k][...] = self._read(d, f"arg{k}.bin", self.func.params[k].type)
        outs = [self._read(d, f"out{j}.bin", t) for j, t in enumerate(self.func.result_types)]
        n = len(self.func.params)
        for out, buf in zip(outs, args[n:]):  # upstream's result buffers
            buf[...] = out
        if not outs:
            return None
        return outs[0] if len(outs) == 1 else tuple(outs)


__all__ = ["FileIO", "IO_CPP", "shape_of", "dtype_of"]
