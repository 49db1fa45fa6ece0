// allo_ap.h: arbitrary-precision types for C simulation of allo-generated HLS C++.
//
// With the Xilinx headers on the include path (Vitis HLS, or an ap_types copy passed with -I)
// this file includes them. Otherwise it provides the subset of ap_int<N>, ap_uint<N>,
// ap_fixed<W, I> and ap_ufixed<W, I> that allo's emitter uses, with the default AP_TRN
// (floor) quantisation and AP_WRAP overflow, bit for bit like the Xilinx headers. Define
// ALLO_OWN_AP to force the subset.
//
// Contract with the emitter: every arithmetic result is cast back to an allo type and both
// operands of an operator have one type, so the subset needs exact operators between values of
// one type (fixed-point ones return an exact wide value; integers wrap at their width) and
// conversions that floor (truncate for float -> int) and wrap. Any width up to 1024 bits:
// integers up to 64 bits compute in int64_t, wider values and all fixed-point raws in
// multi-word integers (allo_detail::wint).
#ifndef ALLO_AP_H
#define ALLO_AP_H

#include <cmath>
#include <cstdint>
#include <cstring>
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
template <int W, int I, ap_q_mode Q, ap_o_mode O, int N> inline void allo_set_raw(ap_fixed<W, I, Q, O, N> &x, long long r) { x.range(W - 1, 0) = r; }
template <int W, int I, ap_q_mode Q, ap_o_mode O, int N> inline void allo_set_raw(ap_ufixed<W, I, Q, O, N> &x, long long r) { x.range(W - 1, 0) = r; }
template <int W, int I, ap_q_mode Q, ap_o_mode O, int N> inline long long allo_get_raw(ap_fixed<W, I, Q, O, N> x) {
  ap_int<W> r = x.range(W - 1, 0);
  return r.to_int64();
}
template <int W, int I, ap_q_mode Q, ap_o_mode O, int N> inline long long allo_get_raw(ap_ufixed<W, I, Q, O, N> x) {
  ap_uint<W> r = x.range(W - 1, 0);
  return (long long)r.to_uint64();
}

#else  // allo's own subset

typedef _Float16 half;

namespace allo_detail {
typedef unsigned __int128 u128;

// ----------------------------------------------------------------------------- wint<NW>
// A 64*NW-bit two's-complement integer (little-endian words); arithmetic wraps mod 2^(64 NW).
template <int NW> struct wint {
  uint64_t w[NW];
};

template <int NW> inline wint<NW> w_from_u64(uint64_t x, bool negative_fill) {
  wint<NW> r;
  r.w[0] = x;
  for (int k = 1; k < NW; ++k) r.w[k] = negative_fill ? ~0ULL : 0;
  return r;
}
template <int NW> inline wint<NW> w_from_i64(int64_t x) { return w_from_u64<NW>((uint64_t)x, x < 0); }
template <int NW> inline bool w_top(const wint<NW> &a) { return a.w[NW - 1] >> 63; }
template <int NW> inline bool w_is0(const wint<NW> &a) {
  for (int k = 0; k < NW; ++k)
    if (a.w[k]) return false;
  return true;
}
// a in NW2 words, extended with its top bit (sign) or zeros.
template <int NW2, int NW> inline wint<NW2> w_resize(const wint<NW> &a, bool sign) {
  wint<NW2> r;
  uint64_t fill = sign && w_top(a) ? ~0ULL : 0;
  for (int k = 0; k < NW2; ++k) r.w[k] = k < NW ? a.w[k] : fill;
  return r;
}
template <int NW> inline wint<NW> w_add(const wint<NW> &a, const wint<NW> &b) {
  wint<NW> r;
  u128 c = 0;
  for (int k = 0; k < NW; ++k) {
    c += (u128)a.w[k] + b.w[k];
    r.w[k] = (uint64_t)c;
    c >>= 64;
  }
  return r;
}
template <int NW> inline wint<NW> w_not(const wint<NW> &a) {
  wint<NW> r;
  for (int k = 0; k < NW; ++k) r.w[k] = ~a.w[k];
  return r;
}
template <int NW> inline wint<NW> w_neg(const wint<NW> &a) { return w_add(w_not(a), w_from_u64<NW>(1, false)); }
template <int NW> inline wint<NW> w_sub(const wint<NW> &a, const wint<NW> &b) { return w_add(a, w_neg(b)); }
template <int NW> inline wint<NW> w_mul(const wint<NW> &a, const wint<NW> &b) {
  wint<NW> r = w_from_u64<NW>(0, false);
  for (int i = 0; i < NW; ++i) {
    u128 c = 0;
    for (int j = 0; i + j < NW; ++j) {
      c += (u128)a.w[i] * b.w[j] + r.w[i + j];
      r.w[i + j] = (uint64_t)c;
      c >>= 64;
    }
  }
  return r;
}
#define ALLO_W_BITWISE(NAME, OP)                                             \
  template <int NW> inline wint<NW> NAME(const wint<NW> &a, const wint<NW> &b) { \
    wint<NW> r;                                                              \
    for (int k = 0; k < NW; ++k) r.w[k] = a.w[k] OP b.w[k];                  \
    return r;                                                                \
  }
ALLO_W_BITWISE(w_and, &)
ALLO_W_BITWISE(w_or, |)
ALLO_W_BITWISE(w_xor, ^)
#undef ALLO_W_BITWISE
// a << n (n >= 0; n >= 64 NW gives 0).
template <int NW> inline wint<NW> w_shl(const wint<NW> &a, int n) {
  wint<NW> r;
  int q = n / 64, s = n % 64;
  for (int k = NW - 1; k >= 0; --k) {
    uint64_t hi = k - q >= 0 ? a.w[k - q] : 0, lo = k - q - 1 >= 0 ? a.w[k - q - 1] : 0;
    r.w[k] = s ? (hi << s) | (lo >> (64 - s)) : hi;
  }
  return r;
}
// a >> n (n >= 0), filling with the sign bit (arith) or zeros.
template <int NW> inline wint<NW> w_shr(const wint<NW> &a, int n, bool arith) {
  wint<NW> r;
  uint64_t fill = arith && w_top(a) ? ~0ULL : 0;
  int q = n / 64, s = n % 64;
  for (int k = 0; k < NW; ++k) {
    uint64_t lo = k + q < NW ? a.w[k + q] : fill, hi = k + q + 1 < NW ? a.w[k + q + 1] : fill;
    r.w[k] = s ? (lo >> s) | (hi << (64 - s)) : lo;
  }
  return r;
}
// -1, 0, 1 comparing a and b as signed or unsigned values.
template <int NW> inline int w_cmp(const wint<NW> &a, const wint<NW> &b, bool sign) {
  if (sign && w_top(a) != w_top(b)) return w_top(a) ? -1 : 1;
  for (int k = NW - 1; k >= 0; --k)
    if (a.w[k] != b.w[k]) return a.w[k] < b.w[k] ? -1 : 1;
  return 0;
}
template <int NW> inline bool w_bit(const wint<NW> &a, int i) { return (a.w[i / 64] >> (i % 64)) & 1; }
// Unsigned long division (shift and subtract); b != 0.
template <int NW> inline void w_udivmod(const wint<NW> &a, const wint<NW> &b, wint<NW> &q, wint<NW> &r) {
  q = w_from_u64<NW>(0, false);
  r = q;
  for (int i = 64 * NW - 1; i >= 0; --i) {
    r = w_shl(r, 1);
    r.w[0] |= (uint64_t)w_bit(a, i);
    if (w_cmp(r, b, false) >= 0) {
      r = w_sub(r, b);
      q.w[i / 64] |= 1ULL << (i % 64);
    }
  }
}
// C division and remainder (quotient truncated toward zero); x / 0 and x % 0 give 0.
template <int NW> inline void w_divmod(const wint<NW> &a, const wint<NW> &b, bool sign, wint<NW> &q, wint<NW> &r) {
  if (w_is0(b)) {
    q = r = w_from_u64<NW>(0, false);
    return;
  }
  bool na = sign && w_top(a), nb = sign && w_top(b);
  w_udivmod(na ? w_neg(a) : a, nb ? w_neg(b) : b, q, r);
  if (na != nb) q = w_neg(q);
  if (na) r = w_neg(r);
}
// Keep the low W bits, sign- or zero-extended to the whole wint.
template <int NW> inline wint<NW> w_wrap(const wint<NW> &a, int W, bool sign) {
  if (W >= 64 * NW) return a;
  return sign ? w_shr(w_shl(a, 64 * NW - W), 64 * NW - W, true) : w_shr(w_shl(a, 64 * NW - W), 64 * NW - W, false);
}
// The value as a double, rounded to nearest even (like sitofp / uitofp and Xilinx to_double()).
template <int NW> inline double w_to_double(const wint<NW> &a, bool sign) {
  bool neg = sign && w_top(a);
  wint<NW> m = neg ? w_neg(a) : a;
  int top = -1;
  for (int i = 64 * NW - 1; i >= 0; --i)
    if (w_bit(m, i)) {
      top = i;
      break;
    }
  double d;
  if (top < 64) {
    d = (double)m.w[0];
  } else {  // the top 64 bits, with a sticky bit for everything below them
    int sh = top - 63;
    wint<NW> low = w_wrap(m, sh, false);
    uint64_t t = w_shr(m, sh, false).w[0] | (w_is0(low) ? 0 : 1);
    d = std::ldexp((double)t, sh);
  }
  return neg ? -d : d;
}
// floor(x * 2^F) (or toward zero), wrapped to 64 NW bits; NaN / infinities give the minimum.
template <int NW> inline wint<NW> w_from_double(double x, int F, bool floor_) {
  if (!std::isfinite(x)) return w_shl(w_from_u64<NW>(1, false), 64 * NW - 1);
  int e;
  double m = std::frexp(x, &e);  // x = m * 2^e, 0.5 <= |m| < 1
  int64_t mant = (int64_t)std::ldexp(m, 53);  // exact
  int sh = e - 53 + F;
  wint<NW> v = w_from_i64<NW>(mant);
  if (sh >= 0) return sh >= 64 * NW ? w_from_u64<NW>(0, false) : w_shl(v, sh);
  if (-sh >= 63) return w_from_i64<NW>(mant < 0 && floor_ ? -1 : 0);
  int64_t q = mant >> -sh;  // floor
  if (!floor_ && mant < 0 && (q << -sh) != mant) q += 1;
  return w_from_i64<NW>(q);
}
// floor(x * 2^F) as int64 (the x86 result, INT64_MIN, for NaN and out-of-range values).
inline int64_t floor_scaled(double x, int F) {
  double s = std::floor(std::ldexp(x, F));
  if (!(s >= -9223372036854775808.0 && s < 9223372036854775808.0)) return INT64_MIN;
  return (int64_t)s;
}

// Keep the low W bits of a 64-bit value, sign- or zero-extended.
template <int W> inline int64_t wrap_s(uint64_t v) { return (int64_t)(v << (64 - W)) >> (64 - W); }
template <int W> inline uint64_t wrap_u(uint64_t v) { return (v << (64 - W)) >> (64 - W); }

constexpr int words(int bits) { return bits <= 0 ? 1 : (bits + 63) / 64; }
// x < 0 without comparing an unsigned or bool value with 0 (-Werror=bool-compare / type-limits).
template <class T> typename std::enable_if<std::is_signed<T>::value, bool>::type negative(T x) { return x < 0; }
template <class T> typename std::enable_if<!std::is_signed<T>::value, bool>::type negative(T) { return false; }
}  // namespace allo_detail

// ----------------------------------------------------------------------------- integers
template <int N, bool S, bool Wide = (N > 64)> struct allo_int;
template <int W, int I, bool S> struct allo_fixed;
template <int N> struct ap_int;
template <int N> struct ap_uint;

// A reference to bit i or bits hi..lo of an integer (`x[i]`, `x.range(hi, lo)`), readable and writable.
template <class P> struct allo_bit_ref {
  P *p;
  int i;
  operator bool() const { return p->get_bit(i); }
  allo_bit_ref &operator=(bool b) {
    p->set_bit(i, b);
    return *this;
  }
};
template <class P> struct allo_range_ref {
  P *p;
  int hi, lo;
  template <class V> allo_range_ref &operator=(const V &v) {
    p->set_range(hi, lo, allo_int<P::width, false>(v));
    return *this;
  }
};

// Up to 64 bits: the value sign- or zero-extended in 64 bits; arithmetic goes through long long.
template <int N, bool S> struct allo_int<N, S, false> {
  static const int width = N;
  typedef typename std::conditional<S, int64_t, uint64_t>::type raw_t;
  raw_t v;
  static raw_t wrap(uint64_t x) { return S ? (raw_t)allo_detail::wrap_s<N>(x) : (raw_t)allo_detail::wrap_u<N>(x); }
  allo_int() : v(0) {}
  template <class T, typename std::enable_if<std::is_integral<T>::value, int>::type = 0>
  allo_int(T x) : v(wrap((uint64_t)x)) {}
  allo_int(__int128 x) : v(wrap((uint64_t)x)) {}
  allo_int(unsigned __int128 x) : v(wrap((uint64_t)x)) {}
  template <int M, bool S2, bool W2> allo_int(const allo_int<M, S2, W2> &o) : v(wrap(o.low64())) {}
  template <class P> allo_int(const allo_range_ref<P> &r) : v(wrap(r.p->get_range(r.hi, r.lo).low64())) {}
  template <int W2, int I2, bool S2> explicit allo_int(const allo_fixed<W2, I2, S2> &f) : v(wrap((uint64_t)f.to_int64())) {}
  typedef typename std::conditional<S, long long, unsigned long long>::type conv_t;
  operator conv_t() const { return v; }
  uint64_t low64() const { return (uint64_t)v; }
  long long to_int64() const { return (long long)v; }
  unsigned long long to_uint64() const { return (uint64_t)v; }
  double to_double() const { return (double)v; }
  bool get_bit(int i) const { return ((uint64_t)v >> i) & 1; }
  void set_bit(int i, bool b) { v = wrap(((uint64_t)v & ~(1ULL << i)) | ((uint64_t)b << i)); }
  allo_int<N, false> get_range(int hi, int lo) const {
    uint64_t x = (uint64_t)v >> lo;
    int k = hi - lo + 1;
    return allo_int<N, false>(k >= 64 ? x : x & ((1ULL << k) - 1));
  }
  void set_range(int hi, int lo, const allo_int<N, false> &x) {
    int k = hi - lo + 1;
    uint64_t mask = (k >= 64 ? ~0ULL : (1ULL << k) - 1) << lo;
    v = wrap(((uint64_t)v & ~mask) | (((uint64_t)x.v << lo) & mask));
  }
  allo_bit_ref<allo_int> operator[](int i) { return {this, i}; }
  bool operator[](int i) const { return get_bit(i); }
  allo_range_ref<allo_int> range(int hi, int lo) { return {this, hi, lo}; }
  allo_int &reverse() {
    uint64_t r = 0;
    for (int i = 0; i < N; ++i) r |= (uint64_t)get_bit(i) << (N - 1 - i);
    v = wrap(r);
    return *this;
  }
};

// Wider than 64 bits: a multi-word raw, kept sign- or zero-extended from bit N - 1.
template <int N, bool S> struct allo_int<N, S, true> {
  static const int width = N;
  static const int NW = allo_detail::words(N);
  typedef allo_detail::wint<NW> raw_t;
  raw_t v;
  static raw_t wrap(const raw_t &x) { return allo_detail::w_wrap(x, N, S); }
  allo_int() : v(allo_detail::w_from_u64<NW>(0, false)) {}
  template <class T, typename std::enable_if<std::is_integral<T>::value && std::is_signed<T>::value, int>::type = 0>
  allo_int(T x) : v(wrap(allo_detail::w_from_i64<NW>((int64_t)x))) {}
  template <class T, typename std::enable_if<std::is_integral<T>::value && !std::is_signed<T>::value, int>::type = 0>
  allo_int(T x) : v(wrap(allo_detail::w_from_u64<NW>((uint64_t)x, false))) {}
  template <int M, bool S2> allo_int(const allo_int<M, S2, false> &o)
      : v(wrap(allo_detail::w_from_u64<NW>(o.low64(), S2 && (int64_t)o.v < 0))) {}
  template <int M, bool S2> allo_int(const allo_int<M, S2, true> &o)
      : v(wrap(allo_detail::w_resize<NW>(o.v, S2))) {}
  template <class P> allo_int(const allo_range_ref<P> &r) : allo_int(r.p->get_range(r.hi, r.lo)) {}
  // double -> integer: truncation toward zero, then wrap (fptosi)
  explicit allo_int(double x) : v(wrap(allo_detail::w_from_double<NW>(x, 0, false))) {}
  explicit allo_int(float x) : allo_int((double)x) {}
  // fixed -> integer: truncation toward zero (allo's emitter floors first), as Xilinx
  template <int W2, int I2, bool S2> explicit allo_int(const allo_fixed<W2, I2, S2> &f) {
    const int F2 = W2 - I2;
    typedef allo_detail::wint<allo_fixed<W2, I2, S2>::NW> src_t;
    src_t a = f.v;
    bool neg = S2 && allo_detail::w_top(a);
    src_t q = allo_detail::w_shr(neg ? allo_detail::w_neg(a) : a, F2, false);
    if (neg) q = allo_detail::w_neg(q);
    v = wrap(allo_detail::w_resize<NW>(q, S2));
  }
  uint64_t low64() const { return v.w[0]; }
  long long to_int64() const { return (long long)v.w[0]; }
  unsigned long long to_uint64() const { return v.w[0]; }
  double to_double() const { return allo_detail::w_to_double(v, S); }
#define ALLO_INT_CONV(T) \
  explicit operator T() const { return (T)v.w[0]; }
  ALLO_INT_CONV(signed char)
  ALLO_INT_CONV(unsigned char)
  ALLO_INT_CONV(short)
  ALLO_INT_CONV(unsigned short)
  ALLO_INT_CONV(int)
  ALLO_INT_CONV(unsigned)
  ALLO_INT_CONV(long)
  ALLO_INT_CONV(unsigned long)
  ALLO_INT_CONV(long long)
  ALLO_INT_CONV(unsigned long long)
#undef ALLO_INT_CONV
  explicit operator bool() const { return !allo_detail::w_is0(v); }
  explicit operator double() const { return to_double(); }
  explicit operator float() const { return (float)to_double(); }  // through double, as allo's LLVM cast
  bool get_bit(int i) const { return allo_detail::w_bit(v, i); }
  void set_bit(int i, bool b) {
    raw_t one = allo_detail::w_shl(allo_detail::w_from_u64<NW>(1, false), i);
    v = wrap(b ? allo_detail::w_or(v, one) : allo_detail::w_and(v, allo_detail::w_not(one)));
  }
  allo_int<N, false> get_range(int hi, int lo) const {
    allo_int<N, false> r;
    r.v = allo_detail::w_wrap(allo_detail::w_shr(v, lo, false), hi - lo + 1, false);
    return r;
  }
  void set_range(int hi, int lo, const allo_int<N, false> &x) {
    raw_t ones = allo_detail::w_wrap(allo_detail::w_not(allo_detail::w_from_u64<NW>(0, false)), hi - lo + 1, false);
    raw_t mask = allo_detail::w_shl(ones, lo);
    v = wrap(allo_detail::w_or(allo_detail::w_and(v, allo_detail::w_not(mask)),
                               allo_detail::w_and(allo_detail::w_shl(x.v, lo), mask)));
  }
  allo_bit_ref<allo_int> operator[](int i) { return {this, i}; }
  bool operator[](int i) const { return get_bit(i); }
  allo_range_ref<allo_int> range(int hi, int lo) { return {this, hi, lo}; }
  allo_int &reverse() {
    allo_int r;
    for (int i = 0; i < N; ++i)
      if (get_bit(i)) r.set_bit(N - 1 - i, true);
    v = r.v;
    return *this;
  }
};

// Operators of wide integers: both operands of one type (or an integer literal), wrapping at N bits.
template <int N, bool S> using allo_wide = allo_int<N, S, true>;
#define ALLO_WIDE_BIN(OP, EXPR)                                                                         \
  template <int N, bool S> inline allo_wide<N, S> operator OP(const allo_wide<N, S> &a, const allo_wide<N, S> &b) { \
    allo_wide<N, S> r;                                                                                  \
    r.v = allo_wide<N, S>::wrap(EXPR);                                                                  \
    return r;                                                                                           \
  }                                                                                                     \
  template <int N, bool S, class T, typename std::enable_if<std::is_integral<T>::value, int>::type = 0> \
  inline allo_wide<N, S> operator OP(const allo_wide<N, S> &a, T b) { return a OP allo_wide<N, S>(b); } \
  template <int N, bool S, class T, typename std::enable_if<std::is_integral<T>::value, int>::type = 0> \
  inline allo_wide<N, S> operator OP(T a, const allo_wide<N, S> &b) { return allo_wide<N, S>(a) OP b; }
ALLO_WIDE_BIN(+, allo_detail::w_add(a.v, b.v))
ALLO_WIDE_BIN(-, allo_detail::w_sub(a.v, b.v))
ALLO_WIDE_BIN(*, allo_detail::w_mul(a.v, b.v))
ALLO_WIDE_BIN(&, allo_detail::w_and(a.v, b.v))
ALLO_WIDE_BIN(|, allo_detail::w_or(a.v, b.v))
ALLO_WIDE_BIN(^, allo_detail::w_xor(a.v, b.v))
#undef ALLO_WIDE_BIN
template <int N, bool S> inline allo_wide<N, S> operator/(const allo_wide<N, S> &a, const allo_wide<N, S> &b) {
  allo_wide<N, S> q, r;
  allo_detail::w_divmod(a.v, b.v, S, q.v, r.v);
  q.v = allo_wide<N, S>::wrap(q.v);
  return q;
}
template <int N, bool S> inline allo_wide<N, S> operator%(const allo_wide<N, S> &a, const allo_wide<N, S> &b) {
  allo_wide<N, S> q, r;
  allo_detail::w_divmod(a.v, b.v, S, q.v, r.v);
  return r;
}
template <int N, bool S> inline allo_wide<N, S> operator-(const allo_wide<N, S> &a) {
  allo_wide<N, S> r;
  r.v = allo_wide<N, S>::wrap(allo_detail::w_neg(a.v));
  return r;
}
template <int N, bool S> inline allo_wide<N, S> operator~(const allo_wide<N, S> &a) {
  allo_wide<N, S> r;
  r.v = allo_wide<N, S>::wrap(allo_detail::w_not(a.v));
  return r;
}
template <int N, bool S> inline allo_wide<N, S> operator<<(const allo_wide<N, S> &a, int n) {
  allo_wide<N, S> r;
  r.v = n >= N ? allo_detail::w_from_u64<allo_wide<N, S>::NW>(0, false) : allo_wide<N, S>::wrap(allo_detail::w_shl(a.v, n));
  return r;
}
template <int N, bool S> inline allo_wide<N, S> operator>>(const allo_wide<N, S> &a, int n) {
  allo_wide<N, S> r;
  r.v = allo_detail::w_shr(a.v, n >= N ? N - (S ? 1 : 0) : n, S);
  if (!S && n >= N) r.v = allo_detail::w_from_u64<allo_wide<N, S>::NW>(0, false);
  return r;
}
#define ALLO_WIDE_CMP(OP)                                                                             \
  template <int N, bool S> inline bool operator OP(const allo_wide<N, S> &a, const allo_wide<N, S> &b) { \
    return allo_detail::w_cmp(a.v, b.v, S) OP 0;                                                      \
  }                                                                                                   \
  template <int N, bool S, class T, typename std::enable_if<std::is_integral<T>::value, int>::type = 0> \
  inline bool operator OP(const allo_wide<N, S> &a, T b) { return a OP allo_wide<N, S>(b); }           \
  template <int N, bool S, class T, typename std::enable_if<std::is_integral<T>::value, int>::type = 0> \
  inline bool operator OP(T a, const allo_wide<N, S> &b) { return allo_wide<N, S>(a) OP b; }
ALLO_WIDE_CMP(==)
ALLO_WIDE_CMP(!=)
ALLO_WIDE_CMP(<)
ALLO_WIDE_CMP(<=)
ALLO_WIDE_CMP(>)
ALLO_WIDE_CMP(>=)
#undef ALLO_WIDE_CMP

template <int N> struct ap_int : allo_int<N, true> {
  typedef allo_int<N, true> base;
  using base::base;
  ap_int() : base() {}
  ap_int(const base &b) : base(b) {}
};
template <int N> struct ap_uint : allo_int<N, false> {
  typedef allo_int<N, false> base;
  using base::base;
  ap_uint() : base() {}
  ap_uint(const base &b) : base(b) {}
};

// ----------------------------------------------------------------------------- fixed point
// An exact intermediate result: a raw integer of NW words with F fractional bits.
template <int F, bool S, int NW> struct allo_fx_wide {
  allo_detail::wint<NW> v;
};

// ap_fixed<W, I> (S = true) and ap_ufixed<W, I> (S = false) share one implementation.
template <int W, int I, bool S> struct allo_fixed {
  static const int F = W - I;
  static const int NW = allo_detail::words(W);
  typedef allo_detail::wint<NW> raw_t;
  raw_t v;  // value * 2^F, kept sign- or zero-extended from bit W - 1

  static raw_t wrap(const raw_t &r) { return allo_detail::w_wrap(r, W, S); }
  // raw r with `from` fractional bits (sign: r is signed) -> floor to F bits, wrap to W.
  template <int NW2> static raw_t align(const allo_detail::wint<NW2> &r, int from, bool sign) {
    if (from >= F) {
      allo_detail::wint<NW2> s = allo_detail::w_shr(r, from - F >= 64 * NW2 ? 64 * NW2 - 1 : from - F, sign);
      if (from - F >= 64 * NW2 && !sign) s = allo_detail::w_from_u64<NW2>(0, false);
      return wrap(allo_detail::w_resize<NW>(s, sign));
    }
    raw_t x = allo_detail::w_resize<NW>(r, sign);
    return wrap(F - from >= 64 * NW ? allo_detail::w_from_u64<NW>(0, false) : allo_detail::w_shl(x, F - from));
  }

  allo_fixed() : v(allo_detail::w_from_u64<NW>(0, false)) {}
  allo_fixed(double x) {
    if (W <= 64)  // through int64 (INT64_MIN out of range: allo's emitter converts such floats with allo_fptofx)
      v = wrap(allo_detail::w_from_i64<NW>(allo_detail::floor_scaled(x, F)));
    else
      v = wrap(allo_detail::w_from_double<NW>(x, F, true));
  }
  allo_fixed(float x) : allo_fixed((double)x) {}
  template <class T, typename std::enable_if<std::is_integral<T>::value, int>::type = 0>
  allo_fixed(T x) : v(align(allo_detail::w_from_u64<2>((uint64_t)x, allo_detail::negative(x)), 0, true)) {}
  template <int N, bool S2, bool Wd> allo_fixed(const allo_int<N, S2, Wd> &x)
      : v(align(allo_int<N, S2, true>(x).v, 0, S2)) {}
  template <int W2, int I2, bool S2> allo_fixed(const allo_fixed<W2, I2, S2> &o) : v(align(o.v, W2 - I2, S2)) {}
  template <int F2, bool S2, int NW2> allo_fixed(const allo_fx_wide<F2, S2, NW2> &o) : v(align(o.v, F2, S2)) {}

  double to_double() const { return std::ldexp(allo_detail::w_to_double(v, S), -F); }
  float to_float() const { return (float)to_double(); }
  // C-style (toward zero), as the Xilinx to_int64(); allo's emitter floors before calling it.
  long long to_int64() const { return (long long)allo_int<W + 1, S, true>(*this).low64(); }
  unsigned long long to_uint64() const { return (unsigned long long)to_int64(); }
};

// The quantization / overflow modes are template parameters as in the Xilinx headers; allo's IR
// already rounds and saturates explicitly before a value reaches a type with modes (the value is
// exact and in range there), so the subset converts into every mode type like the default one.
enum ap_q_mode { AP_RND, AP_RND_ZERO, AP_RND_MIN_INF, AP_RND_INF, AP_RND_CONV, AP_TRN, AP_TRN_ZERO };
enum ap_o_mode { AP_SAT, AP_SAT_ZERO, AP_SAT_SYM, AP_WRAP, AP_WRAP_SM };

template <int W, int I, ap_q_mode Q = AP_TRN, ap_o_mode O = AP_WRAP, int N = 0> struct ap_fixed : allo_fixed<W, I, true> {
  typedef allo_fixed<W, I, true> base;
  using base::base;
  ap_fixed() : base() {}
  ap_fixed(const base &b) : base(b) {}
};
template <int W, int I, ap_q_mode Q = AP_TRN, ap_o_mode O = AP_WRAP, int N = 0> struct ap_ufixed : allo_fixed<W, I, false> {
  typedef allo_fixed<W, I, false> base;
  using base::base;
  ap_ufixed() : base() {}
  ap_ufixed(const base &b) : base(b) {}
};

// Exact arithmetic between two values of one fixed type; the emitter casts the result back.
template <int W, bool S, int NW, int NW0> inline allo_detail::wint<NW> allo_fx_ext(const allo_detail::wint<NW0> &a) {
  return allo_detail::w_resize<NW>(a, S);
}
template <int W, int I, bool S>
inline allo_fx_wide<W - I, S, allo_detail::words(W + 1)> operator+(const allo_fixed<W, I, S> &a, const allo_fixed<W, I, S> &b) {
  const int NW = allo_detail::words(W + 1);
  return {allo_detail::w_add(allo_fx_ext<W, S, NW>(a.v), allo_fx_ext<W, S, NW>(b.v))};
}
template <int W, int I, bool S>
inline allo_fx_wide<W - I, true, allo_detail::words(W + 1)> operator-(const allo_fixed<W, I, S> &a, const allo_fixed<W, I, S> &b) {
  const int NW = allo_detail::words(W + 1);
  return {allo_detail::w_sub(allo_fx_ext<W, S, NW>(a.v), allo_fx_ext<W, S, NW>(b.v))};
}
template <int W, int I, bool S>
inline allo_fx_wide<2 * (W - I), S, allo_detail::words(2 * W)> operator*(const allo_fixed<W, I, S> &a, const allo_fixed<W, I, S> &b) {
  const int NW = allo_detail::words(2 * W);
  return {allo_detail::w_mul(allo_fx_ext<W, S, NW>(a.v), allo_fx_ext<W, S, NW>(b.v))};
}
// Truncating division of (a << F) by b, like Xilinx's ap_fixed; x / 0 gives 0 instead of trapping.
template <int W, int I, bool S>
inline allo_fx_wide<W - I, S, allo_detail::words(2 * W + 1)> operator/(const allo_fixed<W, I, S> &a, const allo_fixed<W, I, S> &b) {
  const int NW = allo_detail::words(2 * W + 1);
  allo_detail::wint<NW> q, r;
  allo_detail::w_divmod(allo_detail::w_shl(allo_fx_ext<W, S, NW>(a.v), W - I), allo_fx_ext<W, S, NW>(b.v), S, q, r);
  return {q};
}
template <int W, int I, bool S>
inline allo_fx_wide<W - I, true, allo_detail::words(W + 1)> operator-(const allo_fixed<W, I, S> &a) {
  const int NW = allo_detail::words(W + 1);
  return {allo_detail::w_neg(allo_fx_ext<W, S, NW>(a.v))};
}

// Bitwise operators act on the raw bits (as Xilinx's, for operands of one type).
#define ALLO_FIXED_BIT(OP, FN)                                                                       \
  template <int W, int I, bool S>                                                                    \
  inline allo_fixed<W, I, S> operator OP(const allo_fixed<W, I, S> &a, const allo_fixed<W, I, S> &b) { \
    allo_fixed<W, I, S> r;                                                                           \
    r.v = FN(a.v, b.v);                                                                              \
    return r;                                                                                        \
  }
ALLO_FIXED_BIT(&, allo_detail::w_and)
ALLO_FIXED_BIT(|, allo_detail::w_or)
ALLO_FIXED_BIT(^, allo_detail::w_xor)
#undef ALLO_FIXED_BIT
template <int W, int I, bool S> inline allo_fixed<W, I, S> operator~(const allo_fixed<W, I, S> &a) {
  allo_fixed<W, I, S> r;
  r.v = r.wrap(allo_detail::w_not(a.v));
  return r;
}

#define ALLO_FIXED_CMP(OP)                                                                           \
  template <int W, int I, bool S>                                                                    \
  inline bool operator OP(const allo_fixed<W, I, S> &a, const allo_fixed<W, I, S> &b) {               \
    return allo_detail::w_cmp(a.v, b.v, S) OP 0;                                                     \
  }
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

template <int W, int I, ap_q_mode Q, ap_o_mode O, int N> inline void allo_set_raw(ap_fixed<W, I, Q, O, N> &x, long long r) {
  x.v = x.wrap(allo_detail::w_from_i64<ap_fixed<W, I, Q, O, N>::NW>(r));
}
template <int W, int I, ap_q_mode Q, ap_o_mode O, int N> inline void allo_set_raw(ap_ufixed<W, I, Q, O, N> &x, long long r) {
  x.v = x.wrap(allo_detail::w_from_i64<ap_ufixed<W, I, Q, O, N>::NW>(r));
}
template <int W, int I, ap_q_mode Q, ap_o_mode O, int N> inline long long allo_get_raw(ap_fixed<W, I, Q, O, N> x) { return (long long)x.v.w[0]; }
template <int W, int I, ap_q_mode Q, ap_o_mode O, int N> inline long long allo_get_raw(ap_ufixed<W, I, Q, O, N> x) { return (long long)x.v.w[0]; }

#endif  // ALLO_XILINX_AP
#endif  // ALLO_AP_H
