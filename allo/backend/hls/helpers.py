"""Helper functions written into kernel.cpp only when a kernel uses them (`ctx.need(name)`), and the
math functions Vitis's hls_math.h declares on half.

Example::

    HELPERS["allo_div"]   # 'static inline int64_t allo_div(int64_t a, int64_t b) {...'
"""
from __future__ import annotations

from ...ir.ops import MathFn
from . import block_streams

# Math functions hls_math.h declares on half (Vitis HLS's convention: hls::exp(half), ...); C
# simulation without the Xilinx headers computes them in float and rounds (helper "allo_hls_half").
HALF_MATH = {MathFn.EXP: "exp", MathFn.LOG: "log", MathFn.LOG2: "log2", MathFn.SQRT: "sqrt", MathFn.SIN: "sin",
             MathFn.COS: "cos", MathFn.TANH: "tanh", MathFn.FLOOR: "floor", MathFn.CEIL: "ceil", MathFn.POW: "pow"}

# Helpers written into kernel.cpp only when used.
HELPERS = {
    "allo_hls_half": """\
// hls::exp & co on half: Vitis HLS's hls_math.h; for C simulation without it, computed in float.
#if defined(__has_include) && __has_include(<hls_math.h>) && !defined(ALLO_OWN_AP)
#include <hls_math.h>
#else
namespace hls {
""" + "\n".join(f"static inline half {f}(half x) {{ return (half)std::{f}((float)x); }}"
                for f in HALF_MATH.values() if f != "pow") + """
static inline half pow(half x, half y) { return (half)std::pow((float)x, (float)y); }
}  // namespace hls
#endif""",
    "allo_div": """\
// Integer division that never traps: x / 0 gives 0 and MIN / -1 wraps (as allo's LLVM backend).
static inline int64_t allo_div(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return (int64_t)(0 - (uint64_t)a);
  return a / b;
}""",
    "allo_stream": """\
// hls::stream for C simulation (the Xilinx header when present, else a FIFO on std::deque).
#if defined(ALLO_XILINX_AP) && __has_include(<hls_stream.h>)
#include <hls_stream.h>
#else
#include <deque>
#include <cstdio>
#include <cstdlib>
namespace hls {
template <class T> class stream {
 public:
  stream() {}
  explicit stream(const char *) {}
  T read() {
    if (q_.empty()) {
      std::fprintf(stderr, "allo csim: read from an empty hls::stream\\n");
      std::exit(5);
    }
    T v = q_.front();
    q_.pop_front();
    return v;
  }
  void read(T &v) { v = read(); }
  void write(const T &v) { q_.push_back(v); }
  bool empty() const { return q_.empty(); }
  bool full() const { return false; }
  size_t size() const { return q_.size(); }

 private:
  std::deque<T> q_;
};
}  // namespace hls
#endif""",
    "allo_block_stream": block_streams.HELPER,
    "allo_divu": """\
static inline uint64_t allo_divu(uint64_t a, uint64_t b) { return b == 0 ? 0 : a / b; }""",
    "allo_modu": """\
static inline uint64_t allo_modu(uint64_t a, uint64_t b) { return b == 0 ? 0 : a % b; }""",
    "allo_floordiv": """\
// Floor division (numpy semantics for signed integers); x // 0 gives 0, MIN // -1 wraps.
static inline int64_t allo_floordiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return (int64_t)(0 - (uint64_t)a);
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}""",
    "allo_mod": """\
// Modulo with the sign of the divisor (numpy semantics for signed integers); x % 0 gives 0.
static inline int64_t allo_mod(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}""",
    "allo_shl": """\
// Shifts by amounts outside [0, bits) give 0 (left, unsigned right) or the sign fill (signed right).
static inline uint64_t allo_shl(uint64_t a, uint64_t n, int bits) { return n >= (uint64_t)bits ? 0 : a << n; }""",
    "allo_shr": """\
static inline int64_t allo_shr(int64_t a, uint64_t n, int bits) { return a >> (n >= (uint64_t)bits ? bits - 1 : (int)n); }""",
    "allo_shru": """\
static inline uint64_t allo_shru(uint64_t a, uint64_t n, int bits) { return n >= (uint64_t)bits ? 0 : a >> n; }""",
    "allo_fptoi": """\
// float -> integer as docs/language.md says: truncate toward zero, wrap (here to 64 bits; the caller
// wraps further), NaN and inf give 0. Beyond 2**63 x is an integer m * 2**e (e >= 11): its low 64
// bits are m << e. The same steps as allo's LLVM backend.
#include <cstring>
static inline int64_t allo_fptoi(double x) {
  if (x >= -9223372036854775808.0 && x < 9223372036854775808.0) return (int64_t)x;
  uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  int ex = (int)((b >> 52) & 0x7ff), e = ex - 1075;
  uint64_t m = (b & 0xfffffffffffffULL) | 0x10000000000000ULL;
  uint64_t r = (ex == 0x7ff || e >= 64) ? 0 : m << e;
  return (int64_t)((b >> 63) ? 0 - r : r);
}""",
    "allo_fptoiw": """\
// allo_fptoi for integers wider than 64 bits (W bits, type T).
#include <cstring>
template <class T, int W> static inline T allo_fptoiw(double x) {
  if (x >= -9223372036854775808.0 && x < 9223372036854775808.0) return (T)(long long)x;
  uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  int ex = (int)((b >> 52) & 0x7ff), e = ex - 1075;
  if (ex == 0x7ff || e >= W) return (T)0;
  T r = (T)(long long)((b & 0xfffffffffffffULL) | 0x10000000000000ULL);
  r = (T)(r << e);
  return (b >> 63) ? (T)(-r) : r;
}""",
    "allo_fptofx": """\
// A fixed-point value of at most 64 bits from its floored scaled float s = floor(x * 2**F):
// the raw bits by allo_fptoi (truncate, wrap, NaN and inf -> 0), as allo's LLVM backend.
template <class T> static inline T allo_fptofx(double s) {
  T r;
  allo_set_raw(r, (long long)allo_fptoi(s));
  return r;
}""",
    "allo_fptofxw": """\
// The same for wider fixed point: the ap_fixed constructor floors and wraps exactly; NaN, inf and
// a scaled value beyond double give 0.
template <class T> static inline T allo_fptofxw(double x, double s) { return std::isfinite(s) ? T(x) : T(0); }""",
    "allo_fxshl": """\
// Shifts of a fixed-point value's raw bits (x << 1 doubles x, wrapping): amounts outside [0, W)
// give 0, or the sign fill for a signed >>, as allo's integer shifts.
template <int W, class T> static inline T allo_fxshl(T x, long long n) {
  T r;
  allo_set_raw(r, (n < 0 || n >= W) ? 0LL : (long long)((unsigned long long)allo_get_raw(x) << n));
  return r;
}""",
    "allo_fxshr": """\
template <int W, bool S, class T> static inline T allo_fxshr(T x, long long n) {
  long long v = allo_get_raw(x);
  T r;
  if (S) allo_set_raw(r, v >> ((n < 0 || n >= W) ? W - 1 : n));
  else allo_set_raw(r, (n < 0 || n >= W) ? 0LL : (long long)((unsigned long long)v >> n));
  return r;
}""",
    "allo_fmod": """\
// Floating-point modulo with the sign of the divisor (numpy semantics).
template <class T> static inline T allo_fmod(T a, T b) {
  T r = std::fmod(a, b);
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}""",
    "allo_ipow": """\
// Integer power by squaring, wrapping at T's width. A negative exponent gives the C
// truncation of 1 / base**-e: 1 for base 1, +-1 for base -1, else 0.
template <class T> static inline T allo_ipow(T base, T e) {
  const T one = 1, zero = 0, mone = (T)(zero - one);
  if (e < zero) return base == one ? one : base == mone ? ((e & one) != zero ? mone : one) : zero;
  T r = 1;
  for (; e > 0; e = (T)(e >> 1), base = (T)(base * base))
    if (e & 1) r = (T)(r * base);
  return r;
}""",
    "allo_fmin": """\
// min of floats as arith.minimumf: NaN propagates, -0 < +0.
template <class T> static inline T allo_fmin(T a, T b) {
  if (a != a || b != b) return a + b;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}""",
    "allo_fmax": """\
// max of floats as arith.maximumf: NaN propagates, -0 < +0.
template <class T> static inline T allo_fmax(T a, T b) {
  if (a != a || b != b) return a + b;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}""",
    "allo_abs": """\
template <class T> static inline T allo_abs(T x) { return x < T(0) ? (T)(-x) : x; }""",
    "allo_get_bit": """\
// Bit i of x (0 outside the width), through ap_uint's operator[].
template <int W, class T> static inline bool allo_get_bit(T x, long long i) {
  ap_uint<W> r = x;
  return i >= 0 && i < W && r[(int)i];
}""",
    "allo_set_bit": """\
// x with bit i set to b (unchanged outside the width).
template <int W, class T> static inline T allo_set_bit(T x, long long i, bool b) {
  if (i < 0 || i >= W) return x;
  ap_uint<W> r = x;
  r[(int)i] = b;
  return (T)r;
}""",
    "allo_set_range": """\
// x with bits hi..lo replaced by v, through ap_uint's range().
template <int W, class T, class V> static inline T allo_set_range(T x, int hi, int lo, V v) {
  ap_uint<W> r = x;
  r.range(hi, lo) = v;
  return (T)r;
}""",
    "allo_reverse": """\
template <int W, class T> static inline T allo_reverse(T x) {
  ap_uint<W> r = x;
  r.reverse();
  return (T)r;
}""",
    "allo_bitcast": """\
// The same bits as another type of the same size (int32 <-> float, ...), through a union as
// Vitis HLS documents for type punning (g++ defines reading the other member too).
template <class To, class From> union allo_bits {
  From from;
  To to;
  allo_bits(From x) : from(x) {}
};
template <class To, class From> static inline To allo_bitcast(From x) {
  static_assert(sizeof(To) == sizeof(From), "bitcast needs types of one size");
  return allo_bits<To, From>(x).to;
}""",
    "allo_words": """\
// An integer constant wider than 64 bits, from its 64-bit words (most significant first).
template <class T> static inline T allo_words(T r) { return r; }
template <class T, class... R> static inline T allo_words(T r, unsigned long long w, R... rest) {
  return allo_words<T>((T)((T)(r << 64) | (T)w), rest...);
}""",
    "allo_wdiv": """\
// Division, floor division and modulo of integers wider than 64 bits (same rules as allo_div & co).
template <class T> static inline T allo_wdiv(T a, T b) {
  if (b == 0) return (T)0;
  if (b == -1) return (T)(-a);
  return (T)(a / b);
}""",
    "allo_wdivu": """\
template <class T> static inline T allo_wdivu(T a, T b) { return b == 0 ? (T)0 : (T)(a / b); }""",
    "allo_wmodu": """\
template <class T> static inline T allo_wmodu(T a, T b) { return b == 0 ? (T)0 : (T)(a % b); }""",
    "allo_wfloordiv": """\
template <class T> static inline T allo_wfloordiv(T a, T b) {
  if (b == 0) return (T)0;
  if (b == -1) return (T)(-a);
  T q = (T)(a / b);
  return ((T)(a % b) != 0 && ((a < 0) != (b < 0))) ? (T)(q - 1) : q;
}""",
    "allo_wmod": """\
template <class T> static inline T allo_wmod(T a, T b) {
  if (b == 0 || b == -1) return (T)0;
  T r = (T)(a % b);
  return (r != 0 && ((r < 0) != (b < 0))) ? (T)(r + b) : r;
}""",
    "allo_wshl": """\
// Shifts of integers wider than 64 bits by amounts of their own type (out of range: 0 / the sign).
template <class T> static inline T allo_wshl(T a, T n, int bits) {
  return (n < 0 || n >= bits) ? (T)0 : (T)(a << (int)n.to_int64());
}""",
    "allo_wshr": """\
template <class T> static inline T allo_wshr(T a, T n, int bits) {
  return (T)(a >> ((n < 0 || n >= bits) ? bits - 1 : (int)n.to_int64()));
}""",
    "allo_wshru": """\
template <class T> static inline T allo_wshru(T a, T n, int bits) {
  return (n >= bits) ? (T)0 : (T)(a >> (int)n.to_int64());
}""",
}


__all__ = ["HELPERS", "HALF_MATH"]
