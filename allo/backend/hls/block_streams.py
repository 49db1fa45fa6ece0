"""Streams of blocks in HLS C++: a dataflow stream whose items are arrays (`Stream[int16[4, 4], 2]`)
is an `hls::stream< hls::vector<T, n> >`; the instance moves a block one element at a time (the
IR's put/get of a block is a row-major loop over its elements), so each instance writes through an
`allo_block_writer` (it sends the vector once its n-th element is in) and reads through an
`allo_block_reader` (it receives a vector when its previous one is used up).

Example (what a producer of `pipe: Stream[int16[4, 4], 4]` becomes)::

    void producer_0(int16_t A[8][4], hls::stream< hls::vector< int16_t, 16 > > &pipe) {
      allo_block_writer< int16_t, 16 > pipe_w;
      ...
          pipe_w.put(pipe, block[m][n]);
"""
from __future__ import annotations

from ...ir.attrs import DF_STREAM
from .types import cpp_type

HELPER = """\
// Streams of blocks (Stream[int16[4, 4], d]): each item an hls::vector, which an instance writes
// and reads one element at a time (a block's put/get is a row-major loop over its elements).
#if defined(ALLO_XILINX_AP) && __has_include(<hls_vector.h>)
#include <hls_vector.h>
#else
namespace hls {
template <class T, size_t N> struct vector {
  T d_[N];
  T &operator[](size_t i) { return d_[i]; }
  const T &operator[](size_t i) const { return d_[i]; }
};
}  // namespace hls
#endif
template <class T, int N> struct allo_block_writer {
  hls::vector<T, N> blk;
  int n = 0;
  void put(hls::stream<hls::vector<T, N> > &s, T v) {
    blk[n++] = v;
    if (n == N) {
      s.write(blk);
      n = 0;
    }
  }
};
template <class T, int N> struct allo_block_reader {
  hls::vector<T, N> blk;
  int n = N;
  T get(hls::stream<hls::vector<T, N> > &s) {
    if (n == N) {
      blk = s.read();
      n = 0;
    }
    return blk[n++];
  }
};"""


def block_elems(buf) -> int:
    """Scalars per item of stream buffer `buf` (1: a scalar stream, written and read directly)."""
    meta = buf.attrs.get(DF_STREAM) if hasattr(buf, "attrs") else None
    return int(meta["item"]) if meta else 1


def stream_ctype(dtype, elems: int) -> str:
    """The C++ item type of a stream of `elems` scalars of allo type `dtype` per item."""
    t = cpp_type(dtype)
    return f"hls::vector< {t}, {elems} >" if elems > 1 else t


def port_decl(kind: str, dtype, elems: int, name: str) -> str:
    """The declaration of an instance's block writer/reader `name`."""
    return f"allo_block_{kind}< {cpp_type(dtype)}, {elems} > {name};"
