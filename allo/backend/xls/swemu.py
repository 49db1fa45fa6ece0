"""XLS[cc] software emulation (mode="sw_emu"): the generated C++ compiled with g++ against allo's
own stand-ins for XLS's headers, driven by a harness on numpy inputs.

The stand-ins (written into the project's `xls_shim/`): `xls_builtin.h` (`__xls_channel`: a FIFO
whose read of an empty channel stops the run with an error; `__xls_memory`: a bounds-checked
array), `xls_int.h` (`XlsInt<W, S>` as allo's csim ap_int, allo_ap.h) and `xls_fixed.h`
(`XlsFixed<W, I, S>` as ap_fixed: truncation and wrap-around, the XLS defaults). The harness
(`harness.cpp`) reads `in<k>.bin`, pushes the arguments into the TestBlock's channels (or fills its
memories, or calls a combinational top directly), runs the top once and writes `out<j>.bin` /
`arg<k>.bin` (allo/backend/filesim.py).

Example::

    files = shim_files()          # {"xls_builtin.h": ..., "xls_int.h": ..., ...}
    harness_text(block, top="vvadd")
"""
from __future__ import annotations

import numpy as np

from ..filesim import IO_CPP
from ..hls.types import cpp_type, storage_cpp_type
from .wrap import Wrapped, elem_type, shape

BUILTIN_H = r"""// allo's stand-in for XLS[cc]'s xls_builtin.h (software emulation only).
#ifndef ALLO_XLS_BUILTIN_H
#define ALLO_XLS_BUILTIN_H
#include <cstdio>
#include <cstdlib>
#include <deque>

enum __xls_channel_dir { __xls_channel_dir_Unknown, __xls_channel_dir_Out, __xls_channel_dir_In,
                         __xls_channel_dir_InOut };

template <typename T, __xls_channel_dir Dir = __xls_channel_dir_Unknown> class __xls_channel {
  std::deque<T> q_;
 public:
  T read() {
    if (q_.empty()) { std::fprintf(stderr, "allo sw_emu: read from an empty __xls_channel\n"); std::exit(3); }
    T v = q_.front();
    q_.pop_front();
    return v;
  }
  void write(const T &v) { q_.push_back(v); }
  bool empty() const { return q_.empty(); }
};

template <typename T, int Size> class __xls_memory {
  T d_[Size];
 public:
  __xls_memory() : d_() {}
  T &operator[](long long i) {
    if (i < 0 || i >= Size) { std::fprintf(stderr, "allo sw_emu: __xls_memory index %lld outside [0, %d)\n", i, Size); std::exit(3); }
    return d_[i];
  }
  const T &operator[](long long i) const { return const_cast<__xls_memory *>(this)->operator[](i); }
};
#endif
"""

INT_H = r"""// allo's stand-in for XLS[cc]'s xls_int.h: XlsInt<W, S> as allo's exact ap_int (allo_ap.h).
#ifndef ALLO_XLS_INT_H
#define ALLO_XLS_INT_H
#include <type_traits>
#include "allo_ap.h"
template <int W, bool S> using XlsInt = typename std::conditional<S, ap_int<W>, ap_uint<W> >::type;
#endif
"""

FIXED_H = r"""// allo's stand-in for XLS[cc]'s xls_fixed.h: XlsFixed<W, I, S> as ap_fixed (truncate, wrap).
#ifndef ALLO_XLS_FIXED_H
#define ALLO_XLS_FIXED_H
#include <type_traits>
#include "allo_ap.h"
template <int W, int I, bool S> using XlsFixed = typename std::conditional<S, ap_fixed<W, I>, ap_ufixed<W, I> >::type;
#endif
"""

CONVERSIONS = r"""
// File element (numpy container type; raw scaled integer for fixed point) <-> kernel value.
template <class T, class S> static void allo_load(T &x, S s) { x = (T)s; }
template <int W, int I, ap_q_mode Q, ap_o_mode O, int N, class S> static void allo_load(ap_fixed<W, I, Q, O, N> &x, S s) { allo_set_raw(x, (long long)s); }
template <int W, int I, ap_q_mode Q, ap_o_mode O, int N, class S> static void allo_load(ap_ufixed<W, I, Q, O, N> &x, S s) { allo_set_raw(x, (long long)s); }
template <class S, class T> static S allo_store(const T &x) { return (S)x; }
template <class S, int W, int I, ap_q_mode Q, ap_o_mode O, int N> static S allo_store(const ap_fixed<W, I, Q, O, N> &x) { return (S)allo_get_raw(x); }
template <class S, int W, int I, ap_q_mode Q, ap_o_mode O, int N> static S allo_store(const ap_ufixed<W, I, Q, O, N> &x) { return (S)allo_get_raw(x); }
"""


def shim_files() -> dict:
    return {"xls_builtin.h": BUILTIN_H, "xls_int.h": INT_H, "xls_fixed.h": FIXED_H}


def harness_text(block: Wrapped) -> str:
    """main(): inputs from argv[1]/in<k>.bin through the block, outputs to out<j>.bin / arg<k>.bin."""
    sig = block.sig
    top = sig.name
    pre, post = [], []
    outs = iter(block.out_names)
    call_args = []
    for p in sig.params:
        t, dims = cpp_type(elem_type(p)), shape(p)
        n, io = int(np.prod(dims, dtype=np.int64)), f"<{storage_cpp_type(elem_type(p))}>"
        is_in = p.role in ("arg", "scalar_arg")
        if p in block.memories:
            ptr = f"&block.{p.name}[0]"
            if is_in:
                pre.append(f"  allo_read{io}(dir, \"in{p.index}.bin\", {ptr}, {n});")
            if not is_in or p.index in block.written:
                post.append(f"  allo_write{io}(dir, \"{'arg' if is_in else 'out'}{p.index}.bin\", {ptr}, {n});")
            next(outs) if not is_in else None
            continue
        local = f"h_{p.name}"
        pre.append(f"  static {t} {local}[{n}];")
        if is_in:
            pre.append(f"  allo_read{io}(dir, \"in{p.index}.bin\", {local}, {n});")
            if not block.combinational:
                pre.append(f"  for (int i = 0; i < {n}; i++) block.{p.name}_in.write({local}[i]);")
            call_args.append(f"{local}[0]" if not dims else local)
            if p.index in block.written:
                post.append(f"  for (int i = 0; i < {n}; i++) {local}[i] = block.{p.name}_out.read();")
                post.append(f"  allo_write{io}(dir, \"arg{p.index}.bin\", {local}, {n});")
        else:
            chan = next(outs)
            call_args.append(f"{local}[0]")
            if not block.combinational:
                post.append(f"  for (int i = 0; i < {n}; i++) {local}[i] = block.{chan}.read();")
            post.append(f"  allo_write{io}(dir, \"out{p.index}.bin\", {local}, {n});")
    if sig.return_type is not None:
        t, io = cpp_type(sig.return_type), f"<{storage_cpp_type(sig.return_type)}>"
        pre.append(f"  static {t} h_return[1];")
        chan = next(outs)
        if block.combinational:
            call = f"  h_return[0] = {top}({', '.join(call_args)});"
        else:
            post.insert(0, f"  h_return[0] = block.{chan}.read();")
        post.append(f"  allo_write{io}(dir, \"out0.bin\", h_return, 1);")
    if block.combinational:
        call = call if sig.return_type is not None else f"  {top}({', '.join(call_args)});"
    else:
        call = f"  block.{top}();"
    main = ["int main(int argc, char **argv) {", "  const char *dir = argc > 1 ? argv[1] : \".\";"]
    if not block.combinational:
        main.append("  static TestBlock block;")
    main += pre + [call] + post + ["  return 0;", "}"]
    return (f"// Generated by allo: XLS[cc] software emulation harness of {top}. Usage: ./sw_emu dir\n"
            "#include \"test_block.cpp\"\n" + CONVERSIONS + IO_CPP + "\n" + "\n".join(main) + "\n")


__all__ = ["shim_files", "harness_text"]
