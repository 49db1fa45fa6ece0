"""A Verilator test bench for the float units alone: one combinational SV module whose outputs
are SV expressions over inputs `a`, `b` (32 bits) and `x` (64 bits), typically printed by the
static ExprEmitter from IR nodes, so the units are checked through the same calls kernels use.
A small C++ loop feeds it operand vectors from a file and writes every output per vector.

Example::

    exe = build_bench({"add": ("allo_f32_add(a, b, 1'b0)", 32)}, funits_text)   # funits_text: f32_add.sv's
    outs = run_bench(exe, ["add"], a_bits, b_bits, x)     # {"add": uint64 array}
"""
from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from .....errors import BackendError
from ....toolchain import build_lock, cache_dir, private_tmp, run_child
from ...sim import CXX_FLAGS, VERILATOR_FLAGS, _cxx, _includes, _key, runtime_objects
from ...tools import verilator_env, verilator_root

TOP = "allo_fu_tb"

_MAIN = r"""
#include "Vallo_fu_tb.h"
#include "verilated.h"
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <vector>
double sc_time_stamp() { return 0; }
int main(int argc, char** argv) {
  long n = atol(argv[1]);
  std::vector<uint32_t> a(n), b(n);
  std::vector<uint64_t> x(n), out((size_t)n * NOUT);
  FILE* f = fopen(argv[2], "rb");
  if (!f || fread(a.data(), 4, n, f) != (size_t)n || fread(b.data(), 4, n, f) != (size_t)n ||
      fread(x.data(), 8, n, f) != (size_t)n) { fprintf(stderr, "bad input file\n"); return 2; }
  fclose(f);
  VerilatedContext ctx;
  Vallo_fu_tb* m = new Vallo_fu_tb(&ctx);
  for (long k = 0; k < n; k++) {
    m->a = a[k]; m->b = b[k]; m->x = x[k];
    m->eval();
    uint64_t* o = &out[(size_t)k * NOUT];
OUTS
  }
  f = fopen(argv[3], "wb");
  fwrite(out.data(), 8, out.size(), f);
  fclose(f);
  delete m;
  return 0;
}
"""


# The II = 1 bench of the pipelined units: a new operand vector every enabled cycle, the clock
# enable low one cycle in eight (a stall: every register holds, the vector is offered again);
# after each cycle every output and the number of vectors issued so far (the last column).
_CLOCKED = r"""
#include "Vallo_fu_tb.h"
#include "verilated.h"
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <vector>
double sc_time_stamp() { return 0; }
int main(int argc, char** argv) {
  long n = atol(argv[1]), extra = atol(argv[4]);
  std::vector<uint32_t> a(n), b(n);
  std::vector<uint64_t> x(n), out;
  FILE* f = fopen(argv[2], "rb");
  if (!f || fread(a.data(), 4, n, f) != (size_t)n || fread(b.data(), 4, n, f) != (size_t)n ||
      fread(x.data(), 8, n, f) != (size_t)n) { fprintf(stderr, "bad input file\n"); return 2; }
  fclose(f);
  VerilatedContext ctx;
  Vallo_fu_tb* m = new Vallo_fu_tb(&ctx);
  long c = 0;
  uint64_t o[NOUT];
  uint32_t lcg = 12345;
  m->clk = 0; m->en = 1; m->a = a[0]; m->b = b[0]; m->x = x[0];
  m->eval();
  for (long cyc = 0; c < n + extra; cyc++) {
    bool en = m->en;
    m->clk = 1;
    m->eval();
    if (en) c++;
    lcg = lcg * 1103515245u + 12345u;
    m->clk = 0;
    m->en = ((lcg >> 16) & 7) != 0;
    m->a = a[c % n]; m->b = b[c % n]; m->x = x[c % n];
    m->eval();
OUTS
    for (int k = 0; k < NOUT; k++) out.push_back(o[k]);
    out.push_back((uint64_t)c);
  }
  f = fopen(argv[3], "wb");
  fwrite(out.data(), 8, out.size(), f);
  fclose(f);
  delete m;
  return 0;
}
"""


def bench_verilog(outputs: dict, functions: str, modules: str = "", clocked: bool = False) -> str:
    """The bench module: `outputs` is {name: (SV expression over a, b, x, bits)}, `functions` the
    text inside it (ExprEmitter.functions() + instances()), `modules` the unit modules after it."""
    ports = ["  input logic [31:0] a", "  input logic [31:0] b", "  input logic [63:0] x"]
    if clocked:
        ports = ["  input logic clk", "  input logic en"] + ports
    ports += [f"  output logic [63:0] o_{n}" for n in outputs]
    body = [f"  assign o_{n} = 64'({e});" if bits < 64 else f"  assign o_{n} = {e};"
            for n, (e, bits) in outputs.items()]
    return f"module {TOP}(\n" + ",\n".join(ports) + "\n);\n" + functions + "\n".join(body) + "\nendmodule\n" + modules


def build_bench(outputs: dict, functions: str, opt: str = "-O2", modules: str = "", clocked: bool = False) -> Path:
    """The bench executable (cached by content hash; built at `opt`, -O2 by default so sweeps of
    millions run in seconds; a reduced sweep of a big bench builds faster at -O0). `clocked`:
    the bench module also has inputs `clk` and `en` (the pipelined units), run by `run_clocked`."""
    verilog = bench_verilog(outputs, functions, modules, clocked)
    names = list(outputs)
    outs = "\n".join(f"    o[{k}] = m->o_{n};" for k, n in enumerate(names))
    main = (_CLOCKED if clocked else _MAIN).replace("NOUT", str(len(names))).replace("OUTS", outs)
    flags = [f for f in CXX_FLAGS if f != "-O0"] + [opt]
    exe = cache_dir("rtl") / f"fubench_{_key(verilog, main, flags)}"
    if exe.exists():
        return exe
    runtime, _ = runtime_objects()
    with build_lock(exe):
        if exe.exists():
            return exe
        with tempfile.TemporaryDirectory(prefix="allo_fu_bench_") as work:
            w = Path(work)
            (w / "bench.sv").write_text(verilog)
            (w / "main.cpp").write_text(main)
            cmd = [str(verilator_root() / "bin" / "verilator"), *VERILATOR_FLAGS, "--top-module", TOP, "-Mdir", "obj",
                   "bench.sv"]
            r = run_child(cmd, cwd=work, env=verilator_env(), timeout=900, what="Verilator run on the float bench")
            if r.returncode != 0:
                raise BackendError(f"Verilator failed on the float unit bench:\n{(r.stderr or r.stdout)[-4000:]}")
            srcs = sorted(str(p.relative_to(w)) for p in (w / "obj").glob("*.cpp"))
            (w / "all.cpp").write_text("".join(f'#include "{s}"\n' for s in srcs + ["main.cpp"]))
            tmp = private_tmp(exe)
            try:
                cmd = [_cxx(), *flags, *_includes(), "-I", "obj", "all.cpp", *map(str, runtime[:2]), "-o", str(tmp),
                       "-pthread", "-latomic"]
                r = run_child(cmd, cwd=work, timeout=1800, what="g++ on the float unit bench")
                if r.returncode != 0:
                    raise BackendError(f"g++ failed on the float unit bench:\n{r.stderr[-4000:]}")
                os.replace(tmp, exe)
            finally:
                tmp.unlink(missing_ok=True)
    return exe


def run_bench(exe: Path, names: list, a, b, x) -> dict:
    """Evaluate the bench on vectors a, b (uint32) and x (uint64); {output name: uint64 array}."""
    a = np.ascontiguousarray(a, dtype=np.uint32)
    b = np.ascontiguousarray(b, dtype=np.uint32)
    x = np.ascontiguousarray(x, dtype=np.uint64)
    n = len(a)
    with tempfile.TemporaryDirectory(prefix="allo_fu_run_") as tmp:
        fin, fout = Path(tmp, "in.bin"), Path(tmp, "out.bin")
        fin.write_bytes(a.tobytes() + b.tobytes() + x.tobytes())
        r = subprocess.run([str(exe), str(n), str(fin), str(fout)], capture_output=True, text=True)
        if r.returncode != 0:
            raise BackendError(f"the float unit bench failed: {r.stderr[-2000:]}")
        out = np.fromfile(fout, dtype=np.uint64).reshape(n, len(names))
    return {nm: out[:, k] for k, nm in enumerate(names)}


def run_clocked(exe: Path, names: list, a, b, x, extra: int) -> tuple:
    """Run a clocked bench (vectors a, b, x issued one per enabled cycle, then `extra` more issues
    to drain the pipelines): ({output name: uint64 per cycle}, vectors issued after each cycle)."""
    a = np.ascontiguousarray(a, dtype=np.uint32)
    b = np.ascontiguousarray(b, dtype=np.uint32)
    x = np.ascontiguousarray(x, dtype=np.uint64)
    n = len(a)
    with tempfile.TemporaryDirectory(prefix="allo_fu_run_") as tmp:
        fin, fout = Path(tmp, "in.bin"), Path(tmp, "out.bin")
        fin.write_bytes(a.tobytes() + b.tobytes() + x.tobytes())
        r = subprocess.run([str(exe), str(n), str(fin), str(fout), str(extra)], capture_output=True, text=True)
        if r.returncode != 0:
            raise BackendError(f"the float unit bench failed: {r.stderr[-2000:]}")
        out = np.fromfile(fout, dtype=np.uint64).reshape(-1, len(names) + 1)
    return {nm: out[:, k] for k, nm in enumerate(names)}, out[:, -1].astype(np.int64)


__all__ = ["build_bench", "run_bench", "run_clocked", "bench_verilog", "TOP"]
