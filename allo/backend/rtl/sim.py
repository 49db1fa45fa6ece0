"""Build (cached by content hash) and run the Verilator simulation of a design.

Build time dominates the RTL flow, so the build avoids Verilator's generated Makefile:
- Verilator only translates the SystemVerilog to C++ (`--cc`, well under a second);
- the Verilator runtime (verilated.cpp, verilated_threads.cpp), allo's testbench drivers (handshake:
  driver/allo_rtl_driver.cpp; static: driver/allo_static_driver.cpp) and a precompiled verilated.h
  are compiled once per cache directory, Verilator version and compiler;
- per design only the generated model and a small port table (glue) compile, at -O0 (optimising
  the large generated code costs more than it saves on short runs), as two translation units
  (cycle code; cold init code) side by side.

Example::

    exe = build_simulator(verilog, glue_cpp(iface), "gemm")
    cycles, memories, results = run_simulator(exe, iface, images, scalars, max_cycles=10**7)
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path


from ...errors import BackendError
from .harness import DRIVER_DIR, DRIVER_HEADER, DRIVER_SOURCE

DRIVER_IO = DRIVER_DIR / "allo_driver_io.h"  # included by the static and Calyx drivers
from .ports import Interface
from ..progress import reports_progress
from ..toolchain import build_lock, cache_dir, cxx, private_tmp, run_child, run_children
from .tools import verilator_env, verilator_root, verilator_version

CXX_FLAGS = ["-std=gnu++17", "-O0", "-w", "-faligned-new", "-DVERILATOR=1", "-DVM_COVERAGE=0", "-DVM_SC=0",
             "-DVM_TIMING=0", "-DVM_TRACE=0", "-DVM_TRACE_FST=0", "-DVM_TRACE_VCD=0", "-DVM_TRACE_SAIF=0"]
VERILATOR_FLAGS = ["--cc", "-Wno-fatal", "-Wno-lint", "-Wno-style", "--no-timing", "--x-assign", "fast",
                   "--x-initial", "fast", "--output-split", "0", "--output-split-cfuncs", "0"]
_RUNTIME = ("verilated.cpp", "verilated_threads.cpp")  # from Verilator's include/


def _cxx() -> str:
    return cxx("the Verilator simulation")


def _includes() -> list:
    inc = verilator_root() / "include"
    return ["-I", str(inc), "-I", str(inc / "vltstd")]


def _key(*parts) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(str(p).encode())
        h.update(b"\0")
    return h.hexdigest()[:20]


def runtime_objects(driver: Path = DRIVER_SOURCE, header: Path = DRIVER_HEADER) -> tuple:
    """(object files of the Verilator runtime and of the testbench `driver`, folder of a precompiled
    verilated.h), built once per (Verilator, compiler, flags) into the cache, under a lock (threads
    and processes that need it at the same time wait for one build). The runtime is shared by every
    driver; a driver's object is named by the hash of its source and `header`. The precompiled header
    saves ~1 s of parsing per simulation build; g++ falls back to the plain header if it cannot use it.

    Example::

        objs, pch_dir = runtime_objects(DRIVER_DIR / "allo_static_driver.cpp", DRIVER_DIR / "allo_static.h")
    """
    d = cache_dir("rtl") / f"vlrt_{_key(verilator_version(), _cxx(), CXX_FLAGS)}"
    inc = verilator_root() / "include"
    drv_key = _key(driver.read_text(), header.read_text(), DRIVER_IO.read_text())
    jobs = [(inc / src, d / (Path(src).stem + ".o")) for src in _RUNTIME] + [(driver, d / f"{driver.stem}_{drv_key}.o")]
    objs = [obj for _, obj in jobs]
    pch, pch_header = d / "allo_vl.h.gch", d / "allo_vl.h"
    if all(o.exists() for o in objs) and pch.exists():
        return objs, d
    d.mkdir(parents=True, exist_ok=True)
    with build_lock(d):
        if not pch_header.exists():
            tmp = private_tmp(pch_header)
            tmp.write_text('#include "verilated.h"\n')
            os.replace(tmp, pch_header)
        jobs = [(src, obj, ["-I", str(header.parent), "-c"]) for src, obj in jobs]
        jobs.append((pch_header, pch, ["-x", "c++-header"]))
        todo = [(src, out, private_tmp(out), mode) for src, out, mode in jobs if not out.exists()]
        cmds = [[_cxx(), *CXX_FLAGS, *_includes(), *mode, str(src), "-o", str(tmp)] for src, _, tmp, mode in todo]
        try:
            results = run_children(cmds, "C++ compiler for the Verilator runtime", timeout=1800)
            for (src, out, tmp, _), r in zip(todo, results):
                if r.returncode != 0:
                    raise BackendError(f"g++ failed on the Verilator runtime {src.name}:\n{r.stderr[-3000:]}")
                os.replace(tmp, out)
        finally:
            for _, _, tmp, _ in todo:
                tmp.unlink(missing_ok=True)
    return objs, d


@reports_progress("building the Verilator simulator of {top!r} (once per design; cached)")
def build_simulator(verilog: str, glue: str, top: str, driver: Path = DRIVER_SOURCE,
                    header: Path = DRIVER_HEADER) -> Path:
    """The simulation executable of `verilog` with its port table `glue` (built once per content
    hash, under a lock: concurrent callers wait for one build; the testbench `driver` (whose glue
    includes `header`) and the runtime come from `runtime_objects`). The default driver is the
    handshake one; the static backend passes allo_static_driver.cpp."""
    runtime, pch_dir = runtime_objects(driver, header)
    key = _key(verilog, glue, top, pch_dir.name, VERILATOR_FLAGS, *(o.name for o in runtime))
    exe = cache_dir("rtl") / f"sim_{top}_{key}"
    if exe.exists():
        return exe
    with build_lock(exe):
        if not exe.exists():
            _build_simulator(verilog, glue, top, exe, runtime, pch_dir, header.parent)
    return exe


def _build_simulator(verilog, glue, top, exe, runtime, pch_dir, driver_dir):
    with tempfile.TemporaryDirectory(prefix="allo_rtl_build_") as work:
        w = Path(work)
        (w / "design.sv").write_text(verilog)
        (w / "glue.cpp").write_text(glue)
        cmd = [str(verilator_root() / "bin" / "verilator"), *VERILATOR_FLAGS, "--top-module", top,
               "--prefix", f"V{top}", "-Mdir", "obj", "design.sv"]
        r = run_child(cmd, cwd=work, env=verilator_env(), timeout=900, what=f"Verilator run on {top!r}")
        if r.returncode != 0:
            raise BackendError(f"Verilator failed on the design {top!r}:\n{(r.stderr or r.stdout)[-4000:]}")
        # two translation units (the cycle code; the cold init/settle code) compiled side by side
        sources = sorted(p.name for p in (w / "obj").glob("*.cpp"))
        units = {"fast.cpp": [f"obj/{s}" for s in sources if "Slow" not in s] + ["glue.cpp"],
                 "slow.cpp": [f"obj/{s}" for s in sources if "Slow" in s]}
        cmds = []
        for name, files in units.items():
            (w / name).write_text("".join(f'#include "{f}"\n' for f in files))
            cmds.append([_cxx(), *CXX_FLAGS, "-I", str(pch_dir), "-include", "allo_vl.h", *_includes(), "-I", "obj",
                         "-I", str(driver_dir), "-c", name, "-o", name[:-4] + ".o"])
        for r in run_children(cmds, f"C++ compiler for the Verilator simulation of {top!r}", cwd=work, timeout=1800):
            if r.returncode != 0:
                raise BackendError(f"g++ failed to compile the Verilator simulation of {top!r}:\n{r.stderr[-4000:]}")
        tmp = private_tmp(exe)
        try:
            cmd = [_cxx(), "fast.o", "slow.o", *map(str, runtime), "-o", str(tmp), "-pthread", "-latomic"]
            r = run_child(cmd, cwd=work, timeout=900, what=f"linker of the Verilator simulation of {top!r}")
            if r.returncode != 0:
                raise BackendError(f"linking the Verilator simulation of {top!r} failed:\n{r.stderr[-4000:]}")
            os.replace(tmp, exe)
        finally:
            tmp.unlink(missing_ok=True)


def run_simulator(exe: Path, iface: Interface, images: dict, scalars: dict, max_cycles: int):
    """Run once. `images`: {memory arg: bytes}, `scalars`: {scalar arg: int} (handshake argument
    numbers). Returns (cycles, {memory arg: bytes after the run, for written memories},
    [result ints, sign-extended per the result's signedness])."""
    with tempfile.TemporaryDirectory(prefix="allo_rtl_run_") as tmp:
        for m in iface.memories:
            data = images[m.arg]
            if len(data) != m.size * m.elem_bytes:
                raise BackendError(f"internal error: memory {m.name!r} has {len(data)} bytes, the design expects "
                                   f"{m.size * m.elem_bytes}")
            Path(tmp, f"m{m.arg}.bin").write_bytes(data)
        for s in iface.scalars:
            nbytes = max(8, (s.bits + 63) // 64 * 8)
            v = int(scalars[s.arg]) & ((1 << (8 * nbytes)) - 1)
            Path(tmp, f"s{s.arg}.bin").write_bytes(v.to_bytes(nbytes, "little"))
        r = run_child([exe, tmp, int(max_cycles)], timeout=3600, what=f"Verilator simulation of {iface.top!r}")
        if r.returncode != 0:
            how = f"signal {-r.returncode}" if r.returncode < 0 else f"exit code {r.returncode}"
            raise BackendError(f"the Verilator simulation of {iface.top!r} failed ({how}): "
                               f"{(r.stderr or r.stdout).strip()[-2000:]}")
        cycles = int(Path(tmp, "cycles.txt").read_text())
        mems = {m.arg: Path(tmp, f"m{m.arg}.out").read_bytes() for m in iface.memories if m.stores}
        results = []
        for res in iface.results:
            raw = int.from_bytes(Path(tmp, f"o{res.index}.bin").read_bytes(), "little")
            raw &= (1 << res.bits) - 1 if res.bits else 0
            if res.signed and res.bits and raw >> (res.bits - 1):
                raw -= 1 << res.bits
            results.append(raw)
    return cycles, mems, results


def copy_build_inputs(verilog: str, glue: str, top: str, dest: Path, driver: Path = DRIVER_SOURCE,
                      header: Path = DRIVER_HEADER):
    """Write the design, its glue, allo's testbench `driver` (+ `header`) and a build.sh that builds
    them like allo does."""
    (dest / f"{top}.sv").write_text(verilog)
    (dest / "glue.cpp").write_text(glue)
    (dest / driver.name).write_text(driver.read_text())
    (dest / header.name).write_text(header.read_text())
    if f'"{DRIVER_IO.name}"' in driver.read_text():  # the static and Calyx drivers' shared helpers
        (dest / DRIVER_IO.name).write_text(DRIVER_IO.read_text())
    root = verilator_root()
    inc = root / "include"
    script = f"""#!/bin/sh
# Build the Verilator simulation of {top} as allo does, then run it on a data folder:
#   sh build.sh && ./sim DATA_DIR 100000000
# DATA_DIR holds m<k>.bin (memory images) and s<k>.bin (scalars); see README.md.
set -e
cd "$(dirname "$0")"
export VERILATOR_ROOT={root}
$VERILATOR_ROOT/bin/verilator {' '.join(VERILATOR_FLAGS)} --top-module {top} --prefix V{top} -Mdir obj {top}.sv
for f in obj/*.cpp; do printf '#include "%s"\\n' "$f"; done > model.cpp
{_cxx()} {' '.join(CXX_FLAGS)} -I{inc} -I{inc}/vltstd -Iobj -I. model.cpp glue.cpp {driver.name} \\
  {inc}/verilated.cpp {inc}/verilated_threads.cpp -o sim -pthread -latomic
"""
    (dest / "build.sh").write_text(script)
    os.chmod(dest / "build.sh", 0o755)


__all__ = ["build_simulator", "run_simulator", "runtime_objects", "copy_build_inputs", "CXX_FLAGS",
           "VERILATOR_FLAGS"]

