// allo_ap.h: arbitrary-precision types for C simulation of allo-generated HLS C++.
//
// With the Xilinx headers on the include path (Vitis HLS, or an ap_types copy passed with -I)
// this file includes them. Otherwise it provides the subset of ap_int<N>, ap_uint<N>,
// ap_fixed<W, I> and ap_ufixed<W, I> that allo's emitter uses, with the default AP_TRN
// (floor) quantisation and AP_WRAP overflow. Define ALLO_OWN_AP to force the subset.
//
// Contract with the emitter: every arithmetic result is cast back to an allo type, so the
// subset only needs exact operators (fixed-point ones return an exact wide value) and
// conversions that floor and wrap. Width <= 64 bits; intermediates use __int128.
#ifndef ALLO_AP_H
#define ALLO_AP_H

#include <cmath>
#include <cstdint>
#include <type_traits>

#if !defined(ALLO_OWN_AP) && defined(__has_include)
#if __has_include(<ap_fixed.h>)
#define ALLO_XILINX_AP 1
#endif
#endif

#ifdef ALLO_XILINX_AP
#include <ap_fixed.h>
#include <ap_int.h>
#if __has_include(<hls_half.h>)
#include <hls_half.h>
#else
typedef _Float16 half;
#endif

// Raw bit access (value * 2^F as a W-bit integer), used by the csim host for file I/O.
template <int W, int I> inline void allo_set_raw(ap_fixed<W, I> &x, long long r) { x.range(W - 1, 0) = r; }
template <int W, int I> inline void allo_set_raw(ap_ufixed<W, I> &x, long long r) { x.range(W - 1, 0) = r; }
template <int W, int I> inline long long allo_get_raw(ap_fixed<W, I> x) {
  ap_int<W> r = x.range(W - 1, 0);
  return r.to_int64();
}
template <int W, int I> inline long long allo_get_raw(ap_ufixed<W, I> x) {
  ap_uint<W> r = x.range(W - 1, 0);
  return (long long)r.to_uint64();
}

#else  // allo's own subset

typedef _Float16 half;

namespace allo_detail {
typedef __int128 s128;
typedef unsigned __int128 u128;

// Keep the low W bits, sign- or zero-extended to 64 bits.
template <int W> inline int64_t wrap_s(uint64_t v) { return (int64_t)(v << (64 - W)) >> (64 - W); }
template <int W> inline uint64_t wrap_u(uint64_t v) { return (v << (64 - W)) >> (64 - W); }

// v * 2^(to - from), flooring when the shift goes right. A runtime shift count keeps
// out-of-range constant shifts (never taken) from tripping -Werror.
template <class R> inline R align(R v, int from, int to) {
  if (to >= from) return to - from >= 128 ? R(0) : (R)(v << (to - from));
  int k = from - to;
  if (k >= 128) return v < 0 ? R(-1) : R(0);
  return v >> k;
}

// floor(x * 2^F) as int64 (the x86 result, INT64_MIN, for NaN and out-of-range values).
inline int64_t floor_scaled(double x, int F) {
  double s = std::floor(std::ldexp(x, F));
  if (!(s >= -9223372036854775808.0 && s < 9223372036854775808.0)) return INT64_MIN;
  return (int64_t)s;
}
}  // namespace allo_detail

template <int N> struct ap_uint;

template <int N> struct ap_int {
  int64_t v;
  ap_int() : v(0) {}
  template <class T, typename std::enable_if<std::is_integral<T>::value, int>::type = 0>
  ap_int(T x) : v(allo_detail::wrap_s<N>((uint64_t)x)) {}
  template <int M> ap_int(const ap_int<M> &o) : v(allo_detail::wrap_s<N>((uint64_t)o.v)) {}
  template <int M> ap_int(const ap_uint<M> &o) : v(allo_detail::wrap_s<N>(o.v)) {}
  operator long long() const { return v; }
  long long to_int64() const { return v; }
  unsigned long long to_uint64() const { return (uint64_t)v; }
};

template <int N> struct ap_uint {
  uint64_t v;
  ap_uint() : v(0) {}
  template <class T, typename std::enable_if<std::is_integral<T>::value, int>::type = 0>
  ap_uint(T x) : v(allo_detail::wrap_u<N>((uint64_t)x)) {}
  template <int M> ap_uint(const ap_int<M> &o) : v(allo_detail::wrap_u<N>((uint64_t)o.v)) {}
  template <int M> ap_uint(const ap_uint<M> &o) : v(allo_detail::wrap_u<N>(o.v)) {}
  operator unsigned long long() const { return v; }
  long long to_int64() const { return (int64_t)v; }
  unsigned long long to_uint64() const { return v; }
};

// An exact intermediate result with F fractional bits (signed or unsigned 128-bit raw value).
template <int F, bool S> struct allo_fx_wide {
  typedef typename std::conditional<S, __int128, unsigned __int128>::type raw_t;
  raw_t v;
};

// ap_fixed<W, I> (S = true) and ap_ufixed<W, I> (S = false) share one implementation.
template <int W, int I, bool S> struct allo_fixed {
  static const int F = W - I;
  typedef typename std::conditional<S, int64_t, uint64_t>::type raw_t;
  typedef typename std::conditional<S, __int128, unsigned __int128>::type wide_t;
  raw_t v;

  static raw_t wrap(uint64_t r) { return S ? (raw_t)allo_detail::wrap_s<W>(r) : (raw_t)allo_detail::wrap_u<W>(r); }
  template <class R> static raw_t from_wide(R r, int from) { return wrap((uint64_t)allo_detail::align<R>(r, from, F)); }

  allo_fixed() : v(0) {}
  allo_fixed(double x) : v(wrap((uint64_t)allo_detail::floor_scaled(x, F))) {}
  allo_fixed(float x) : allo_fixed((double)x) {}
  template <class T, typename std::enable_if<std::is_integral<T>::value, int>::type = 0>
  allo_fixed(T x) : v(from_wide((__int128)x, 0)) {}
  template <int N> allo_fixed(const ap_int<N> &x) : v(from_wide((__int128)x.v, 0)) {}
  template <int N> allo_fixed(const ap_uint<N> &x) : v(from_wide((__int128)x.v, 0)) {}
  template <int W2, int I2, bool S2> allo_fixed(const allo_fixed<W2, I2, S2> &o) : v(from_wide(o.wide(), W2 - I2)) {}
  template <int F2, bool S2> allo_fixed(const allo_fx_wide<F2, S2> &o) : v(from_wide(o.v, F2)) {}

  wide_t wide() const { return (wide_t)v; }
  double to_double() const { return std::ldexp((double)v, -F); }
  float to_float() const { return std::ldexp((float)v, -F); }
  // C-style (toward zero), as the Xilinx to_int64(); allo's emitter floors before calling it.
  long long to_int64() const {
    wide_t q = wide() >> F;
    if (S && wide() < 0 && (wide_t)(q << F) != wide()) q += 1;
    return (long long)q;
  }
  unsigned long long to_uint64() const { return (unsigned long long)to_int64(); }
};

template <int W, int I> struct ap_fixed : allo_fixed<W, I, true> {
  typedef allo_fixed<W, I, true> base;
  using base::base;
  ap_fixed() : base() {}
};
template <int W, int I> struct ap_ufixed : allo_fixed<W, I, false> {
  typedef allo_fixed<W, I, false> base;
  using base::base;
  ap_ufixed() : base() {}
};

// Exact arithmetic between two values of one fixed type; the emitter casts the result back.
template <int W, int I, bool S>
inline allo_fx_wide<W - I, S> operator+(const allo_fixed<W, I, S> &a, const allo_fixed<W, I, S> &b) {
  return {a.wide() + b.wide()};
}
template <int W, int I, bool S>
inline allo_fx_wide<W - I, S> operator-(const allo_fixed<W, I, S> &a, const allo_fixed<W, I, S> &b) {
  return {a.wide() - b.wide()};
}
template <int W, int I, bool S>
inline allo_fx_wide<2 * (W - I), S> operator*(const allo_fixed<W, I, S> &a, const allo_fixed<W, I, S> &b) {
  return {a.wide() * b.wide()};
}
// Truncating division of (a << F) by b, like Xilinx's ap_fixed; x / 0 gives 0 instead of trapping.
template <int W, int I, bool S>
inline allo_fx_wide<W - I, S> operator/(const allo_fixed<W, I, S> &a, const allo_fixed<W, I, S> &b) {
  typedef typename allo_fixed<W, I, S>::wide_t wide_t;
  return {b.v == 0 ? (wide_t)0 : (wide_t)(a.wide() << (W - I)) / b.wide()};
}
template <int W, int I, bool S> inline allo_fx_wide<W - I, S> operator-(const allo_fixed<W, I, S> &a) {
  return {-a.wide()};
}

// Bitwise operators act on the raw bits (as Xilinx's, for operands of one type).
#define ALLO_FIXED_BIT(OP)                                                                           \
  template <int W, int I, bool S>                                                                    \
  inline allo_fixed<W, I, S> operator OP(const allo_fixed<W, I, S> &a, const allo_fixed<W, I, S> &b) { \
    allo_fixed<W, I, S> r;                                                                           \
    r.v = a.v OP b.v;                                                                                \
    return r;                                                                                        \
  }
ALLO_FIXED_BIT(&)
ALLO_FIXED_BIT(|)
ALLO_FIXED_BIT(^)
#undef ALLO_FIXED_BIT
template <int W, int I, bool S> inline allo_fixed<W, I, S> operator~(const allo_fixed<W, I, S> &a) {
  allo_fixed<W, I, S> r;
  r.v = r.wrap((uint64_t)~a.v);
  return r;
}

#define ALLO_FIXED_CMP(OP)                                                                           \
  template <int W, int I, bool S>                                                                    \
  inline bool operator OP(const allo_fixed<W, I, S> &a, const allo_fixed<W, I, S> &b) { return a.v OP b.v; }
ALLO_FIXED_CMP(==)
ALLO_FIXED_CMP(!=)
ALLO_FIXED_CMP(<)
ALLO_FIXED_CMP(<=)
ALLO_FIXED_CMP(>)
ALLO_FIXED_CMP(>=)
#undef ALLO_FIXED_CMP

// Printing (`std::cout << x`) without pulling <ostream> into every kernel: any stream class works.
template <class OS, int W, int I, bool S, typename std::enable_if<std::is_class<OS>::value, int>::type = 0>
inline OS &operator<<(OS &os, const allo_fixed<W, I, S> &x) {
  os << x.to_double();
  return os;
}

template <int W, int I> inline void allo_set_raw(ap_fixed<W, I> &x, long long r) { x.v = x.wrap((uint64_t)r); }
template <int W, int I> inline void allo_set_raw(ap_ufixed<W, I> &x, long long r) { x.v = x.wrap((uint64_t)r); }
template <int W, int I> inline long long allo_get_raw(ap_fixed<W, I> x) { return (long long)x.v; }
template <int W, int I> inline long long allo_get_raw(ap_ufixed<W, I> x) { return (long long)x.v; }

#endif  // ALLO_XILINX_AP
#endif  // ALLO_AP_H
