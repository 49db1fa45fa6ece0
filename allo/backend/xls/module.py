"""`s.build(target="xls")`: the XLS[cc] design (`final_cpp`), its project and software emulation.

The kernel C++ is the HLS emitter's (allo/backend/hls/emit.py) in the XLS dialect (dialect.py);
wrap.py puts the TestBlock (channels or memories) and the RAM rewrites around it; swemu.py compiles
and runs it with g++ in mode "sw_emu". Project files: test_block.cpp, rewrites.textproto (memory
mode); for sw_emu also harness.cpp, xls_shim/ and the sw_emu binary.
"""
from __future__ import annotations

import re
import shutil
import tempfile
import weakref
from pathlib import Path

from ...errors import BackendError, VendorError, located
from ...ir import nodes as N
from ...ir.effects import written_param_indices
from ...transforms.guards import instrument
from ..filesim import FileIO
from ..hls.csim import INCLUDE_DIR
from ..hls.emit import emit_module
from ..hls.types import type_printer
from ..limits import check_allocation_sizes
from ..marshal import check_io_widths
from ..toolchain import cxx, run_child
from .dialect import XLS
from .swemu import harness_text, shim_files
from .wrap import Wrapped, check_kernel

MODES = (None, "sw_emu")
CXX_FLAGS = ["-std=c++14", "-O2", "-fwrapv", "-Wno-unknown-pragmas"]
_VITIS_ONLY = re.compile(r"\b(ap_u?int|ap_u?fixed|hls::\w+|half)\b")


def build_xls(mod: N.Module, mode: str | None = None, project: str | None = None, use_memory: bool = False,
              timeout: float | None = None) -> "XLSModule":
    """XLS[cc] C++ for `mod` (see XLSModule). `use_memory=True` maps array arguments and results to
    `__xls_memory` (RAM rewrites in `rewrites_textproto`); `timeout` bounds each g++/sw_emu child."""
    return XLSModule(mod, mode, project, use_memory, timeout)


class XLSModule:
    """A built XLS[cc] design: `final_cpp` (also `hls_code`, `str(mod)`: what xlscc reads),
    `core_code` (the kernel functions alone), `rewrites_textproto` ("" without memories), `top`,
    `project`, `mode`, `use_memory`. In mode "sw_emu", `mod(*args)` runs the software emulation
    (results as the LLVM module returns them)."""

    def __init__(self, mod: N.Module, mode=None, project=None, use_memory=False, timeout=None):
        if mode not in MODES:
            raise BackendError(f"xls: unknown mode {mode!r}; expected 'sw_emu' (or none for the code only)")
        if not isinstance(use_memory, bool):
            raise BackendError(f"xls: use_memory={use_memory!r} must be True or False")
        self.mode, self.use_memory, self.timeout = mode, use_memory, timeout
        check_kernel(mod)
        check_allocation_sizes(mod)
        check_io_widths(mod.func(mod.top))
        instrument(mod)  # locals start at zero, as in every allo build
        code = emit_module(mod, target="vhls", dialect=XLS)
        sig = code.signatures[mod.top]
        self.func, self.top = mod.func(mod.top), code.top
        self._written = sorted(written_param_indices(mod, mod.top))
        with type_printer(XLS):
            self.block = Wrapped(self.func, sig, self._written, use_memory)
            head = sig.text() + " {"
            core = code.kernel_cpp
            if self.block.memories:
                core = core.replace(head, self.block.memory_signature() + " {", 1)
            if self.block.combinational:
                core = core.replace(head, "#pragma hls_top\n" + head, 1)
            self.core_code = core
            self.final_cpp = core if self.block.combinational else core + "\n" + self.block.class_text()
            self.rewrites_textproto = self.block.textproto()
            self.harness = harness_text(self.block) if mode == "sw_emu" else None
        m = _VITIS_ONLY.search(self.final_cpp)
        if m:
            raise located(VendorError, f"XLS [CC] backend: kernel {self.func.name!r} needs `{m.group(0)}` (a "
                                       "bit-level helper or wide-integer operation written for Vitis HLS's ap_int), "
                                       "which the XLS backend does not emit yet; build it for target='vhls'",
                          getattr(self.func, "loc", None))
        self.project = None
        if mode is not None or project is not None:
            self.project = self.write_project(project)
            if project is None:
                weakref.finalize(self, shutil.rmtree, str(self.project), True)
        self._io = FileIO(self.func, self._written)
        self._exe = None

    @property
    def hls_code(self) -> str:
        return self.final_cpp

    def __str__(self):
        return self.final_cpp

    def __repr__(self):
        return f"<XLSModule {self.top} mode={self.mode!r} use_memory={self.use_memory}>"

    def write_project(self, path=None) -> Path:
        d = Path(path) if path is not None else Path(tempfile.mkdtemp(prefix="allo-xls-"))
        files = {"test_block.cpp": self.final_cpp}
        if self.rewrites_textproto:
            files["rewrites.textproto"] = self.rewrites_textproto
        if self.harness is not None:
            files["harness.cpp"] = self.harness
            files.update({f"xls_shim/{k}": v for k, v in shim_files().items()})
        try:
            (d / "xls_shim").mkdir(parents=True, exist_ok=True) if self.harness else d.mkdir(parents=True, exist_ok=True)
            for name, text in files.items():
                (d / name).write_text(text, encoding="utf-8")
            if self.harness is not None:
                shutil.copy(INCLUDE_DIR / "allo_ap.h", d / "xls_shim" / "allo_ap.h")
        except OSError as e:
            raise BackendError(f"xls: cannot write the project folder {str(d)!r}: {e}") from None
        return d

    def __call__(self, *args):
        if self.mode != "sw_emu":
            raise BackendError("xls: build with mode='sw_emu' to run the design (g++ software emulation); "
                               "other modes need Google's xlscc")
        self._io.check_count(args)
        exe = self._binary()
        with tempfile.TemporaryDirectory(prefix="data-", dir=str(self.project)) as d:
            self._io.write_inputs(args, Path(d))
            r = run_child([str(exe), d], timeout=self.timeout, what="XLS sw_emu")
            if r.returncode != 0:
                raise BackendError(f"xls sw_emu: the design failed (exit {r.returncode}):\n{r.stderr[-4000:]}")
            return self._io.results(Path(d), list(args))

    def _binary(self) -> Path:
        if self._exe is None:
            exe = self.project / "sw_emu"
            r = run_child([cxx("XLS software emulation"), *CXX_FLAGS, "-Ixls_shim", "-I.", "harness.cpp", "-o",
                           "sw_emu"], cwd=str(self.project), timeout=self.timeout, what="g++")
            if r.returncode != 0:
                raise BackendError(f"xls sw_emu: g++ failed on {self.project}/test_block.cpp:\n{r.stderr[-4000:]}")
            self._exe = exe
        return self._exe


__all__ = ["build_xls", "XLSModule", "MODES"]
