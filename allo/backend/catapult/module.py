"""`s.build(target="catapult")`: the Catapult HLS design, its project, and the runs that need Catapult.

The C++ is the HLS emitter's (allo/backend/hls/emit.py) in the Catapult dialect (dialect.py).
mode="csim" calls compile host.cpp + kernel.cpp with g++ against Catapult's Algorithmic C headers
($MGC_HOME/shared/include) and run them on numpy inputs; mode="csyn" calls run
`catapult -shell -f run.tcl` in the project. Without Catapult both raise a BackendError saying so;
the code and the project files are written either way.
"""
from __future__ import annotations

import os
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
from ..hls.emit import emit_module
from ..hls.types import type_printer
from ..limits import check_allocation_sizes
from ..marshal import check_io_widths
from ..toolchain import cxx, run_child
from .dialect import CATAPULT
from .project import header_text, host_text, tcl_text

MODES = (None, "csim", "csyn")
# Vitis-only spellings the shared emitter uses for bit-level helpers and FIFOs
_VITIS_ONLY = re.compile(r"\b(ap_u?int|ap_u?fixed|hls::\w+|half)\b")


def build_catapult(mod: N.Module, mode: str | None = None, project: str | None = None,
                   clock_ns: float | None = None, timeout: float | None = None) -> "CatapultModule":
    """Catapult HLS C++ for `mod` (see CatapultModule). `clock_ns` is run.tcl's clock period
    (default 10 ns); `timeout` (seconds) bounds each compile/simulation/synthesis child."""
    return CatapultModule(mod, mode, project, clock_ns, timeout)


class CatapultModule:
    """A built Catapult design: `hls_code` (also `str(mod)`), `header` (kernel.h), `host_code`
    (host.cpp), `tcl` (run.tcl), `top`, `project` (folder or None), `mode`.

    `mod(*args)` in mode "csim" runs the C simulation (results as the LLVM module returns them;
    upstream's `mod(a, b, c)` with a result buffer c works too); `mod()` in mode "csyn" runs
    Catapult synthesis."""

    def __init__(self, mod: N.Module, mode=None, project=None, clock_ns=None, timeout=None):
        if mode not in MODES:
            raise BackendError(f"catapult: unknown mode {mode!r}; expected 'csim' or 'csyn' (or none for the code only)")
        if clock_ns is not None and not (isinstance(clock_ns, (int, float)) and clock_ns > 0):
            raise BackendError(f"catapult: clock_ns={clock_ns!r} must be a positive number of nanoseconds")
        self.mode, self.timeout = mode, timeout
        check_allocation_sizes(mod)
        if mode == "csim":
            check_io_widths(mod.func(mod.top))
        instrument(mod)  # locals start at zero, as in every allo build
        code = emit_module(mod, target="vhls", dialect=CATAPULT)
        sig = code.signatures[mod.top]
        self.func, self.top = mod.func(mod.top), code.top
        with type_printer(CATAPULT):
            head = sig.text() + " {"
        self.hls_code = code.kernel_cpp.replace(head, "#pragma hls_design top\n" + head, 1)
        _refuse_vitis_only(self.hls_code, self.func)
        self._written = sorted(written_param_indices(mod, mod.top))
        self.header = header_text(sig)
        self.host_code = host_text(sig, self.top, self._written)
        self.tcl = tcl_text(self.top, mode, float(clock_ns or 10.0))
        self.project = None
        if mode is not None or project is not None:
            self.project = self.write_project(project)
            if project is None:
                weakref.finalize(self, shutil.rmtree, str(self.project), True)
        self._io = FileIO(self.func, self._written)

    def __str__(self):
        return self.hls_code

    def __repr__(self):
        return f"<CatapultModule {self.top} mode={self.mode!r} project={str(self.project) if self.project else None}>"

    def write_project(self, path=None) -> Path:
        """kernel.cpp, kernel.h, host.cpp and run.tcl into `path` (a new temp folder if None)."""
        d = Path(path) if path is not None else Path(tempfile.mkdtemp(prefix="allo-catapult-"))
        try:
            d.mkdir(parents=True, exist_ok=True)
            files = {"kernel.cpp": self.hls_code, "kernel.h": self.header, "host.cpp": self.host_code,
                     "run.tcl": self.tcl}
            for name, text in files.items():
                (d / name).write_text(text, encoding="utf-8")
        except OSError as e:
            raise BackendError(f"catapult: cannot write the project folder {str(d)!r}: {e}") from None
        return d

    def __call__(self, *args):
        if self.mode == "csim":
            return self._csim(args)
        if self.mode == "csyn":
            if args:
                raise BackendError("catapult csyn: mod() synthesizes the design and takes no arguments")
            return self._csyn()
        raise BackendError("catapult: build with mode='csim' to run the C simulation (or mode='csyn' to "
                           "synthesize with Catapult)")

    def _csim(self, args):
        inc = _ac_include()
        n = self._io.check_count(args, extra_outputs=True)
        exe = self.project / "csim"
        if not exe.exists():
            r = run_child([cxx("Catapult C simulation"), "-std=c++14", "-O2", f"-I{inc}", "-I.", "kernel.cpp",
                           "host.cpp", "-o", "csim"], cwd=str(self.project), timeout=self.timeout, what="g++")
            if r.returncode != 0:
                raise BackendError(f"catapult csim: g++ failed on {self.project}/kernel.cpp:\n{r.stderr[-4000:]}")
        with tempfile.TemporaryDirectory(prefix="data-", dir=str(self.project)) as d:
            self._io.write_inputs(args[:n], Path(d))
            r = run_child([str(exe), d], timeout=self.timeout, what="Catapult C simulation")
            if r.returncode != 0:
                raise BackendError(f"catapult csim: the testbench failed (exit {r.returncode}):\n{r.stderr[-4000:]}")
            return self._io.results(Path(d), list(args))

    def _csyn(self):
        tool = _catapult_exe()
        r = run_child([tool, "-shell", "-f", "run.tcl"], cwd=str(self.project), timeout=self.timeout,
                      what="Catapult synthesis")
        (self.project / "catapult.log").write_text(r.stdout + r.stderr, encoding="utf-8")
        if r.returncode != 0:
            raise BackendError(f"catapult csyn: Catapult failed (exit {r.returncode}); log: "
                               f"{self.project}/catapult.log\n{r.stderr[-2000:]}")
        return self.project


def _refuse_vitis_only(code: str, func: N.Func) -> None:
    m = _VITIS_ONLY.search(code)
    if m:
        raise located(VendorError, f"catapult: kernel {func.name!r} needs `{m.group(0)}` (a bit-level helper, a "
                                   "wide integer operation or a FIFO written for Vitis HLS's ap_int/hls::stream), "
                                   "which the Catapult backend does not emit yet; build it for target='vhls'",
                      getattr(func, "loc", None))


def _mgc_home(what: str) -> Path:
    home = os.environ.get("MGC_HOME")
    if not home:
        raise BackendError(f"catapult {what} needs Siemens Catapult HLS: set MGC_HOME to its installation folder "
                           "(the generated project is written without it)")
    return Path(home)


def _ac_include() -> Path:
    inc = _mgc_home("csim") / "shared" / "include"
    if not (inc / "ac_int.h").is_file():
        raise BackendError(f"catapult csim: Catapult's Algorithmic C headers are not in {inc} (ac_int.h); check MGC_HOME")
    return inc


def _catapult_exe() -> str:
    home = os.environ.get("MGC_HOME")
    exe = Path(home) / "bin" / "catapult" if home else None
    if exe is not None and exe.is_file():
        return str(exe)
    if shutil.which("catapult"):
        return shutil.which("catapult")
    _mgc_home("csyn")
    raise BackendError(f"catapult csyn: no Catapult executable at {exe} nor on PATH; check MGC_HOME")


__all__ = ["build_catapult", "CatapultModule", "MODES"]
