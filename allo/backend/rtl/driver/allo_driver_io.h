// Shared by allo's Verilator drivers of static and Calyx designs: data files and port bits.
// A port is any struct with `data` (the Verilator member as bytes, nullptr if absent), `bytes`
// (its sizeof) and `width` (the bits that matter).
#ifndef ALLO_DRIVER_IO_H
#define ALLO_DRIVER_IO_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

typedef std::vector<unsigned char> Bytes;

static Bytes read_file(const std::string& path, size_t expect) {
  Bytes b(expect, 0);
  FILE* f = fopen(path.c_str(), "rb");
  if (!f) { fprintf(stderr, "cannot open %s\n", path.c_str()); exit(2); }
  size_t got = fread(b.data(), 1, expect, f);
  fclose(f);
  if (got != expect) { fprintf(stderr, "%s: %zu bytes, expected %zu\n", path.c_str(), got, expect); exit(2); }
  return b;
}

static void write_file(const std::string& path, const unsigned char* p, size_t n) {
  FILE* f = fopen(path.c_str(), "wb");
  if (!f || fwrite(p, 1, n, f) != n) { fprintf(stderr, "cannot write %s\n", path.c_str()); exit(2); }
  fclose(f);
}

// Copy the low `width` bits of a port into dst (cleared first).
template <typename Sig>
static void get(const Sig& p, int width, unsigned char* dst, size_t dst_len) {
  memset(dst, 0, dst_len);
  if (!p.data) return;
  for (int i = 0; i < width && i < 8 * p.bytes && (size_t)(i / 8) < dst_len; ++i)
    if ((p.data[i / 8] >> (i % 8)) & 1) dst[i / 8] |= (unsigned char)(1u << (i % 8));
}

// Drive a port from src: its low `width` bits, every bit above cleared (Verilator needs that).
template <typename Sig>
static void put(const Sig& p, const unsigned char* src, size_t src_len) {
  if (!p.data) return;
  memset(p.data, 0, p.bytes);
  for (int i = 0; i < p.width && i < 8 * p.bytes; ++i)
    if ((size_t)(i / 8) < src_len && ((src[i / 8] >> (i % 8)) & 1)) p.data[i / 8] |= (unsigned char)(1u << (i % 8));
}

template <typename Sig>
static void set(const Sig& p, bool v) {
  unsigned char b = v ? 1 : 0;
  put(p, &b, 1);
}

template <typename Sig>
static bool high(const Sig& p) { return p.data && (p.data[0] & 1); }

static size_t scalar_bytes(int bits) { return bits > 64 ? (size_t)((bits + 63) / 64 * 8) : 8; }

#endif
