"""HLS modules: the C++ text, the Vitis HLS project on disk, and C simulation with g++.

C simulation writes the inputs as raw little-endian files (numpy container dtypes; fixed point
as raw scaled integers), runs a g++-built testbench (host.cpp) on them and reads the outputs
back, so calling the module feels exactly like calling the LLVM module.

Example::

    hls = build_hls(module, mode="csim", project="gemm.prj")
    print(hls.hls_code)          # Vitis HLS C++
    C = hls(A, B)                # compiles once (cached by code hash), runs, returns numpy
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import threading
import uuid
import weakref
from pathlib import Path

import numpy as np

from ...dsl.calls import fill_defaults
from ...errors import AlloTypeError, BackendError
from ...ir import nodes as N, visit as V
from ...ir.attrs import BOUNDS_CHECK, CONFIG_OP, STATEFUL
from ...ir.effects import written_param_indices
from ...ir.types import ArrayType
from ...qor import estimate
from ...qor.vitis import find_csynth_xml, parse_csynth_xml
from ...render import to_mlir_module
from ...transforms.guards import instrument
from ..limits import check_allocation_sizes
from ..marshal import check_io_widths, check_writable, returned_params
from ..toolchain import cache_dir, cxx, run_child
from ..vitis import generate_hbm_config
from .emit import ModuleCode, emit_module
from .storage import from_storage, storage_dtype, to_storage
from .types import cpp_type, storage_cpp_type
from .vitis import check_clock, resolve_part, tcl_text
from .vitis_run import run_mode

INCLUDE_DIR = Path(__file__).parent / "include"
CXX_FLAGS = ["-std=c++14", "-O2", "-Wall", "-Werror", "-Wno-unknown-pragmas", "-Wno-unused-label", "-fwrapv"]
MODES = (None, "csim", "csyn", "cosim", "impl", "sw_emu", "hw_emu", "hw")
EMULATION = {"sw_emu": "Vitis software emulation (sw_emu)", "hw_emu": "Vitis hardware emulation (hw_emu)",
             "hw": "running on an FPGA board (hw)"}


def build_hls(mod: N.Module, mode: str | None = None, project: str | None = None, target: str = "vhls",
              timeout: float | None = None, bounds_check: bool = False, bundle=None,
              part: str | None = None, clock_ns: float | None = None, weights: dict | None = None,
              wrap_io: bool = True, configs: dict | None = None) -> "HLSModule":
    """Emit Vitis HLS C++ for `mod`; with mode="csim" the result runs under g++ C simulation.
    `timeout` (seconds, default none) bounds each C simulation run; the binary is killed after it.
    `bounds_check=True` checks indices at run time (allo.transforms.guards; the C++ gets a status array).
    `weights` ({top argument index: numpy array}) are stored as binary files in the project's
    weights/ folder and read by the testbench, so callers pass only the other arguments.
    `wrap_io` (target="vitis_hls"): copy the top's m_axi arrays into on-chip locals (default) or index
    the pointers directly (backend/hls/interface.py). `configs={"hbm_mapping": {argument: bank}}`
    writes the v++ connectivity file <top>.cfg into the project (allo.backend.vitis).

    Example::

        hls = build_hls(module, mode="csim", timeout=60)
        out = hls(A, B)        # same conventions as the LLVM module
        print(hls)             # the C++ code
    """
    return HLSModule(mod, mode=mode, project=project, target=target, timeout=timeout, bounds_check=bounds_check,
                     bundle=bundle, part=part, clock_ns=clock_ns, weights=weights, wrap_io=wrap_io, configs=configs)


class HLSModule:
    """A built HLS design. `hls_code` (also `str(mod)`) is the kernel C++; with mode="csim"
    calling it compiles (once) and runs the C simulation on numpy inputs.

    Attributes: `hls_code`, `header` (kernel.h), `host_code` (host.cpp), `tcl` (run.tcl),
    `top` (C++ name of the top function), `project` (project folder or None), `mode`, `target`,
    `weight_files` ({argument index: file name in weights/} for arguments the testbench loads),
    `timeout` (seconds a C simulation may run before it is killed; None = no limit; a call may
    override it: `hls(A, B, timeout=5)`).
    """

    def __init__(self, mod: N.Module, mode: str | None = None, project: str | None = None, target: str = "vhls",
                 timeout: float | None = None, bounds_check: bool = False, bundle=None, part: str | None = None,
                 clock_ns: float | None = None, weights: dict | None = None, wrap_io: bool = True,
                 configs: dict | None = None):
        if mode not in MODES:
            raise BackendError(f"unknown HLS mode {mode!r}; expected one of {', '.join(map(str, MODES[1:]))}")
        self.mode, self.target, self.timeout = mode, target, timeout

        self.part, self.clock_ns = resolve_part(part), check_clock(clock_ns)
        if bounds_check and mode in ("csyn", "cosim", "impl"):
            raise BackendError(f"bounds_check checks indices in C simulation (mode='csim'), not in mode={mode!r}")
        if mode != "csim":  # functions that always check (e.g. embeddings) do so in simulation, not in hardware
            for f in mod.funcs:
                f.attrs.pop(BOUNDS_CHECK, None)
        else:
            check_allocation_sizes(mod)
        self._guard = instrument(mod, bounds_check=bool(bounds_check))  # also: locals start at zero
        if not isinstance(wrap_io, bool):
            raise BackendError(f"wrap_io must be True or False, got {wrap_io!r}")
        hbm = _check_configs(configs)
        code: ModuleCode = emit_module(mod, target=target, bundle=bundle, wrap_io=wrap_io)  # validates the module first
        if mode == "csim":
            check_io_widths(mod.func(mod.top))
        self.ir_module, self.bundle, self.wrap_io = mod, bundle, wrap_io  # for report() (allo.qor)
        self._stateful = sorted(b.name for f in mod.funcs for b in V.iter_buffers(f) if STATEFUL in b.attrs)
        self._calls = 0
        self.func = mod.func(mod.top)
        self._weights = _check_weights(weights or {}, self.func)
        self.weight_files = {k: f"{self.func.params[k].name}.bin" for k in sorted(self._weights)}
        self.top = code.top
        self.signature = code.signatures[mod.top]
        self.hls_code = code.kernel_cpp
        self.header = _header_text(code, self.signature)
        self._written = sorted(written_param_indices(mod, mod.top))
        # float32[...] parameters (C++ `float A[]`): no host program of fixed sizes; csim builds one
        # per call, specialised to the arrays' lengths (allo.schedule.dynamic)
        dynamic = any(isinstance(p.type, ArrayType) and p.type.dynamic for p in self.func.params)
        self.host_code = None if dynamic else _host_text(self)
        self.tcl = _tcl_text(self)
        self.hbm_config = None if hbm is None else generate_hbm_config(self.top, hbm, _port_names(self))
        self.project = None
        if mode is not None or project is not None:
            self.project = self.write_project(project)
            if project is None:  # a temp project lives as long as this module
                weakref.finalize(self, shutil.rmtree, str(self.project), True)
        self._data_saved = False

    def __str__(self):
        return self.hls_code

    @property
    def module(self):
        """The MLIR view of the module the C++ was emitted from (upstream Allo's `mod.module`)."""
        return to_mlir_module(self.ir_module, mode="view")

    def __repr__(self):
        where = f", project={str(self.project)!r}" if self.project else ""
        return f"HLSModule(top={self.top!r}, target={self.target!r}, mode={self.mode!r}{where})"

    # --- project ----------------------------------------------------------------------
    def _files(self) -> dict:
        return {"kernel.cpp": self.hls_code, "kernel.h": self.header, "host.cpp": self.host_code,
                "run.tcl": self.tcl, "allo_ap.h": (INCLUDE_DIR / "allo_ap.h").read_text(),
                "build.sh": _build_script(self.top), **({f"{self.top}.cfg": self.hbm_config} if self.hbm_config else {})}

    def write_project(self, path: str | None = None) -> Path:
        """Write kernel.cpp, kernel.h, host.cpp, run.tcl, allo_ap.h and build.sh (`sh build.sh &&
        ./csim data weights` runs the C simulation without allo) into `path` (a temp dir if None)."""
        d = Path(path) if path is not None else Path(tempfile.mkdtemp(prefix=f"allo_hls_{self.top}_"))
        try:
            d.mkdir(parents=True, exist_ok=True)
            for name, text in self._files().items():
                p = d / name
                if not p.exists() or p.read_text() != text:
                    p.write_text(text)
            (d / "build.sh").chmod(0o755)
            self._write_weights(d / "weights")
        except OSError as e:
            raise BackendError(f"cannot write the HLS project to {d}: {e}") from None
        return d.resolve()

    def _write_weights(self, d: Path):
        """weights/<arg>.bin (raw container values, like the inputs), rewritten only when changed."""
        if not self._weights:
            return
        d.mkdir(exist_ok=True)
        for k, name in self.weight_files.items():
            raw = to_storage(self._weights[k], self.func.params[k], k, self.func.name)
            digest = hashlib.sha256(raw.tobytes()).hexdigest()
            stamp = d / f".{name}.sha256"
            if (d / name).exists() and stamp.exists() and stamp.read_text() == digest:
                continue
            raw.tofile(d / name)
            stamp.write_text(digest)

    # --- QoR ------------------------------------------------------------------------------
    def report(self, clock_ns: float | None = None, part: str | None = None, source: str | None = None):
        """Latency/II/resources of this design (an `allo.qor.QoRReport`).

        source: "vitis" (the csynth.xml a Vitis run wrote into the project), "estimate" (allo's
        model, no vendor tools), or None: Vitis's report when there is one, else the estimate.
        clock_ns/part default to this module's build options (3.33 ns, xcu280).

        Example::

            r = s.build(target="vhls").report(clock_ns=3.33, part="xcu280")
            print(r.latency_cycles, r.ii, r.resources["DSP"])
        """
        if source not in (None, "vitis", "estimate"):
            raise BackendError(f"report: source must be 'vitis', 'estimate' or None, got {source!r}")
        if source != "estimate":
            xml = find_csynth_xml(self.project, self.top)
            if xml is not None:
                r = parse_csynth_xml(xml)
                r.target = self.target
                return r
            if source == "vitis":
                raise BackendError(f"report(source='vitis'): no csynth.xml in {self.project}; build with "
                                   "mode='csyn' and call the module to run Vitis HLS first")
        return estimate(self, clock_ns=self.clock_ns if clock_ns is None else clock_ns,
                        part=self.part if part is None else part)

    # --- C simulation -------------------------------------------------------------------
    def __call__(self, *args, timeout=None, **kwargs):
        if kwargs:
            raise AlloTypeError(f"{self.func.name}: pass the arguments by position, not by keyword "
                                f"({', '.join(kwargs)}); the only keyword is timeout=")
        if self.mode in EMULATION:
            raise BackendError(f"{EMULATION[self.mode]} needs the Vitis toolchain with XRT (v++, xrt) and is not "
                               f"available in allo; the HLS sources are in {self.project}. Build with mode='csim' "
                               f"to run the design here (g++ C simulation, same results as LLVM)")
        if self.mode in ("csyn", "impl", "cosim"):
            return run_mode(self, args)
        if self.mode != "csim":
            raise BackendError(f"this HLS module was built with mode={self.mode!r}; only mode='csim' runs "
                               f"here (other modes need Vitis HLS: vitis_hls -f run.tcl in {self.project})")
        params = self.func.params
        if self._stateful and self._calls:
            raise BackendError(f"{self.func.name}: C simulation runs each call in a new process, so the Stateful "
                               f"variable(s) {', '.join(self._stateful)} would start again from their initial value; "
                               "call a csim module with Stateful variables once (or use the LLVM build, "
                               "s.build(), whose state carries over between calls)")
        self._calls += 1
        passed = self._passed()
        args = fill_defaults(self.func, args) if not self._weights else list(args)
        staged = self._stage(args, passed)
        status = self._guard.new_status() if self._guard.status else None
        if status is not None:
            k = len(params) - 1
            staged.append((k, to_storage(status, params[k], k, self.func.name)))
        for j, k in enumerate(passed):
            if k in self._written:
                check_writable(args[j], f"argument {k} ({params[k].name!r}) of {self.func.name}()")
        exe = self._binary()
        with tempfile.TemporaryDirectory(prefix="allo_csim_") as tmp:
            for k, raw in staged:
                raw.tofile(os.path.join(tmp, f"in{k}.bin"))
            if not self._data_saved and self._owns_project():
                # keep one input set so `./csim data weights` and run.tcl reproduce a call
                shutil.copytree(tmp, self.project / "data", dirs_exist_ok=True)
                self._data_saved = True
            self._run(exe, tmp, self.timeout if timeout is None else timeout)
            results = [self._read(tmp, f"out{k}.bin", t) for k, t in enumerate(self.func.result_types)]
            for j, k in enumerate(passed):
                if k in self._written:
                    args[j][...] = self._read(tmp, f"arg{k}.bin", params[k].type)
            if status is not None:
                status[...] = self._read(tmp, f"arg{len(params) - 1}.bin", params[-1].type)
        if status is not None:
            self._guard.raise_if_failed(status)
        if not results:
            return None
        for j, k in returned_params(self.func).items():  # `return A` gives back the caller's A
            if isinstance(args[k], np.ndarray):
                results[j] = args[k]
        return results[0] if len(results) == 1 else tuple(results)

    def _passed(self) -> list:
        """Indices of the parameters the caller passes: not the weights loaded from files, not the
        bounds-check status array allo adds."""
        n = len(self.func.params) - (1 if self._guard.status else 0)
        return [k for k in range(n) if k not in self._weights]

    def _stage(self, args, passed):
        """[(argument index, raw container array)] for the arguments the caller passes."""
        params = self.func.params
        if len(args) != len(passed):
            loaded = f" (the others are loaded from {self.project}/weights)" if self._weights else ""
            raise AlloTypeError(f"{self.func.name}: expected {len(passed)} arguments "
                                f"({', '.join(params[k].name for k in passed)}){loaded}, got {len(args)}")
        return [(k, to_storage(a, params[k], k, self.func.name)) for k, a in zip(passed, args)]

    def write_inputs(self, *args) -> Path:
        """Store one set of arguments as the project's data/in<k>.bin, so that `./csim data weights`
        and `vitis_hls -f run.tcl` run the C simulation on them; returns the data folder."""
        if self.project is None:
            self.project = self.write_project()
            weakref.finalize(self, shutil.rmtree, str(self.project), True)
        passed = self._passed()
        data = self.project / "data"
        data.mkdir(exist_ok=True)
        for k, raw in self._stage(args, passed):
            raw.tofile(data / f"in{k}.bin")
        self._data_saved = True
        return data

    def _owns_project(self) -> bool:
        """Does the project folder still hold this module's code? (Another module built into the
        same folder overwrites it; this module then keeps running its own code.)"""
        try:
            return (self.project / "kernel.cpp").read_text() == self.hls_code
        except OSError:
            return False

    def _binary(self) -> Path:
        """The compiled testbench: built once per code hash, kept in the csim cache directory.

        It is compiled from this module's own sources in a private folder (never from the
        project folder, which another module may have rewritten), into a temp file unique to
        this call, then renamed into place atomically (safe across threads and processes)."""
        compiler = cxx("HLS C simulation")
        files = self._files()
        key = hashlib.sha256("\0".join([files["kernel.cpp"], files["kernel.h"], files["host.cpp"], " ".join(CXX_FLAGS),
                                        files["allo_ap.h"], compiler]).encode()).hexdigest()[:20]
        exe = cache_dir("hls") / f"csim_{self.top}_{key}"
        if exe.exists():
            return exe
        tmp = exe.with_name(f"{exe.name}.{os.getpid()}.{threading.get_ident()}.{uuid.uuid4().hex[:12]}.tmp")
        with tempfile.TemporaryDirectory(prefix="allo_csim_build_") as build:
            for name in ("kernel.cpp", "kernel.h", "host.cpp", "allo_ap.h"):
                Path(build, name).write_text(files[name])
            cmd = [compiler, *CXX_FLAGS, "-I", build, "kernel.cpp", "host.cpp", "-o", str(tmp)]
            try:
                r = run_child(cmd, cwd=build, timeout=900, what=f"C++ compiler for the C simulation of {self.top!r}")
                if r.returncode != 0:
                    raise BackendError(f"g++ failed to compile the HLS C simulation of {self.top!r} "
                                       f"(sources in project {self.project}):\n{r.stderr.strip()}\n"
                                       f"command: {' '.join(cmd)}")
                os.replace(tmp, exe)
            finally:
                if tmp.exists():
                    tmp.unlink()
        return exe

    def _run(self, exe: Path, data_dir: str, timeout=None):
        r = run_child([exe, data_dir, str(self.project / "weights")], timeout=timeout,
                      what=f"C simulation of {self.top!r}", big_stack=True)
        if r.returncode != 0:
            how = f"signal {-r.returncode}" if r.returncode < 0 else f"exit code {r.returncode}"
            raise BackendError(f"C simulation of {self.top!r} failed ({how}; project {self.project}):\n"
                               f"{(r.stderr or r.stdout).strip()}")

    @staticmethod
    def _read(tmp: str, name: str, t):
        shape = t.shape if isinstance(t, ArrayType) else ()
        dtype = t.dtype if isinstance(t, ArrayType) else t
        raw = np.fromfile(os.path.join(tmp, name), dtype=storage_dtype(dtype))
        if raw.size != int(np.prod(shape, dtype=np.int64)):
            raise BackendError(f"C simulation wrote {raw.size} values to {name}, expected shape {shape}")
        value = from_storage(raw.reshape(shape), dtype)
        return value[()] if shape == () else value


# ----------------------------------------------------------------------------- numpy I/O
def _check_weights(weights: dict, func: N.Func) -> dict:
    out = {}
    for k, arr in weights.items():
        if not isinstance(k, int) or not 0 <= k < len(func.params) or not func.params[k].shape:
            raise BackendError(f"weights: {k!r} is not the index of an array argument of {func.name}()")
        out[k] = np.asarray(arr)
    return out




# ----------------------------------------------------------------------------- project files
def _check_configs(configs):
    """The hbm_mapping of upstream Allo's `configs=` (the only key allo reads), or None."""
    if configs is None:
        return None
    if not isinstance(configs, dict) or set(configs) - {"hbm_mapping"}:
        raise BackendError(f"configs: allo reads only {{'hbm_mapping': {{argument: bank}}}}, got {configs!r} (part=, "
                           "clock_ns= and bundle= are build options)")
    return configs.get("hbm_mapping")


def _port_names(hls: "HLSModule") -> dict:
    """Kernel argument names (and results as output_<k> / out<k>) -> the top function's C++ parameters."""
    names = {}
    for p in hls.signature.params:
        if p.role in ("arg", "scalar_arg"):
            names[hls.func.params[p.index].name] = p.name
        else:
            names[f"output_{p.index}"] = names[f"out{p.index}"] = p.name
    return names


def _header_text(code: ModuleCode, sig) -> str:
    return (f"// Generated by allo: the top function of the HLS design.\n#ifndef ALLO_KERNEL_H\n#define ALLO_KERNEL_H\n\n"
            f"#include <cstdint>\n\n#include \"allo_ap.h\"\n\n{sig.text()};\n\n#endif  // ALLO_KERNEL_H\n")


_HOST_PRELUDE = """\
// Generated by allo: C simulation testbench for {top}.
// Usage: csim [dir [weights]]  reads dir/in<k>.bin (argument k, raw little-endian values) and
// weights/<name>.bin (arguments stored with the project), calls {top}, writes dir/out<k>.bin
// (result k) and dir/arg<k>.bin (argument k when the kernel writes it).
#include <cstdio>
#include <cstdlib>

#include "kernel.h"

// File element (numpy container type; raw scaled integer for fixed point) <-> kernel value.
template <class T, class S> static void allo_load(T &x, S s) {{ x = (T)s; }}
template <int W, int I, ap_q_mode Q, ap_o_mode O, int N, class S> static void allo_load(ap_fixed<W, I, Q, O, N> &x, S s) {{ allo_set_raw(x, (long long)s); }}
template <int W, int I, ap_q_mode Q, ap_o_mode O, int N, class S> static void allo_load(ap_ufixed<W, I, Q, O, N> &x, S s) {{ allo_set_raw(x, (long long)s); }}
template <class S, class T> static S allo_store(const T &x) {{ return (S)x; }}
template <class S, int W, int I, ap_q_mode Q, ap_o_mode O, int N> static S allo_store(const ap_fixed<W, I, Q, O, N> &x) {{ return (S)allo_get_raw(x); }}
template <class S, int W, int I, ap_q_mode Q, ap_o_mode O, int N> static S allo_store(const ap_ufixed<W, I, Q, O, N> &x) {{ return (S)allo_get_raw(x); }}

static const char *allo_dir = "data";
static const char *allo_weights_dir = "weights";

static FILE *allo_open(const char *dir, const char *file, const char *mode, bool required = false) {{
  static char path[4096];
  std::snprintf(path, sizeof(path), "%s/%s", dir, file);
  FILE *f = std::fopen(path, mode);
  if (!f && (mode[0] == 'w' || required)) {{
    std::fprintf(stderr, "allo csim: cannot %s %s\\n", mode[0] == 'w' ? "write" : "read", path);
    std::exit(4);
  }}
  if (!f) std::fprintf(stderr, "allo csim: cannot open %s, using zeros\\n", path);
  return f;
}}

template <class S, class T> static void allo_read(const char *file, T *dst, size_t n, const char *dir = 0) {{
  S *buf = (S *)std::calloc(n, sizeof(S));
  FILE *f = dir ? allo_open(dir, file, "rb", true) : allo_open(allo_dir, file, "rb");
  if (f) {{
    size_t got = std::fread(buf, sizeof(S), n, f);
    std::fclose(f);
    if (got != n) {{
      std::fprintf(stderr, "allo csim: %s holds %zu values, expected %zu\\n", file, got, n);
      std::exit(3);
    }}
  }}
  for (size_t i = 0; i < n; i++) allo_load(dst[i], buf[i]);
  std::free(buf);
}}

template <class S, class T> static void allo_write(const char *file, const T *src, size_t n) {{
  S *buf = (S *)std::calloc(n, sizeof(S));
  for (size_t i = 0; i < n; i++) buf[i] = allo_store<S>(src[i]);
  FILE *f = allo_open(allo_dir, file, "wb");
  if (std::fwrite(buf, sizeof(S), n, f) != n) {{
    std::fprintf(stderr, "allo csim: short write to %s\\n", file);
    std::exit(4);
  }}
  std::fclose(f);
  std::free(buf);
}}
"""


def _host_text(hls: HLSModule) -> str:
    sig, top = hls.signature, hls.top
    decls, reads, writes, call_args = [], [], [], []
    for p in sig.params:
        t = p.type.dtype if isinstance(p.type, ArrayType) else p.type
        shape = p.type.shape if isinstance(p.type, ArrayType) else ()
        name = f"h_{p.name}"
        decls.append(f"static {cpp_type(t)} {name}" + "".join(f"[{d}]" for d in shape) + ";")
        ptr, n = f"&{name}" + "[0]" * len(shape), int(np.prod(shape, dtype=np.int64))
        io = f"<{storage_cpp_type(t)}>"
        if p.role in ("arg", "scalar_arg") and p.index in hls.weight_files:
            reads.append(f"  allo_read{io}(\"{hls.weight_files[p.index]}\", {ptr}, {n}, allo_weights_dir);")
        elif p.role in ("arg", "scalar_arg"):
            reads.append(f"  allo_read{io}(\"in{p.index}.bin\", {ptr}, {n});")
            if p.index in hls._written:
                writes.append(f"  allo_write{io}(\"arg{p.index}.bin\", {ptr}, {n});")
        else:
            writes.append(f"  allo_write{io}(\"out{p.index}.bin\", {ptr}, {n});")
        call_args.append(ptr if p.pointer else name)  # a Vitis port: the array's first element
    call = f"{top}({', '.join(call_args)});"
    if sig.return_type is not None:
        t = sig.return_type
        decls.append(f"static {cpp_type(t)} h_return;")
        call = "h_return = " + call
        writes.insert(0, f"  allo_write<{storage_cpp_type(t)}>(\"out0.bin\", &h_return, 1);")
    main = ["int main(int argc, char **argv) {", "  if (argc > 1) allo_dir = argv[1];",
            "  if (argc > 2) allo_weights_dir = argv[2];",
            *reads, f"  {call}", *writes, "  return 0;", "}"]
    return _HOST_PRELUDE.format(top=top) + "\n" + "\n".join(decls) + "\n\n" + "\n".join(main) + "\n"


def _build_script(top: str) -> str:
    """build.sh: the testbench compiled as allo compiles it (without -Werror: another compiler
    version may warn where this one does not)."""
    flags = " ".join(f for f in CXX_FLAGS if f != "-Werror")
    return (f"#!/bin/sh\n# Generated by allo: builds ./csim, the C simulation testbench of {top}, with $CXX "
            f"(default g++).\n# Then `./csim data weights` reads data/in<k>.bin and weights/<arg>.bin, calls {top} "
            f"and writes\n# data/out<k>.bin (results) and data/arg<k>.bin (arguments the kernel writes).\n"
            f"set -e\ncd \"$(dirname \"$0\")\"\n${{CXX:-g++}} {flags} -I. kernel.cpp host.cpp -o csim\n"
            f"echo \"built ./csim: run ./csim data weights\"\n")


def _tcl_text(hls: HLSModule) -> str:
    return tcl_text(hls.top, hls.mode, hls.target, hls.part, hls.clock_ns, weights=bool(hls.weight_files),
                    config_ops=hls.ir_module.meta.get(CONFIG_OP))


__all__ = ["build_hls", "HLSModule", "CXX_FLAGS"]
