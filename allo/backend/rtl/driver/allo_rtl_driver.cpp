// allo's Verilator testbench for handshake designs (design-independent; compiled once and linked
// with the generated glue of each design, see allo_rtl.h).
//
//   ./sim DATA_DIR MAX_CYCLES
//
// Reads every memory from DATA_DIR/m<k>.bin (raw little-endian words) and every scalar from
// DATA_DIR/s<k>.bin, resets the design, raises the start token and the scalar inputs, then clocks
// the design while answering its memory ports: an accepted load address is answered with data
// from the next cycle on (one word per cycle per port, in order, like a synchronous RAM); a store
// is written when accepted (loads accepted in the same cycle see it) and acknowledged with a done
// token. When the done token and every result have arrived it writes o<r>.bin (raw result bits),
// m<k>.out (contents of written memories) and cycles.txt (cycles from the start to done).
#include "allo_rtl.h"

#include "verilated.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
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

// Copy `width` bits of src starting at bit `lo` into dst (cleared first).
static void get_bits(const unsigned char* src, int lo, int width, unsigned char* dst, size_t dst_len) {
  memset(dst, 0, dst_len);
  for (int i = 0; i < width && (size_t)(i / 8) < dst_len; ++i) {
    int b = lo + i;
    if ((src[b / 8] >> (b % 8)) & 1) dst[i / 8] |= (unsigned char)(1u << (i % 8));
  }
}

// Drive a port from src: its low `width` bits, every bit above cleared (Verilator needs that).
static void put(const AlloPort& p, const unsigned char* src, size_t src_len) {
  if (!p.data) return;
  memset(p.data, 0, p.bytes);
  for (int i = 0; i < p.width; ++i)
    if ((size_t)(i / 8) < src_len && ((src[i / 8] >> (i % 8)) & 1)) p.data[i / 8] |= (unsigned char)(1u << (i % 8));
}

static void set(const AlloPort& p, bool v) {
  unsigned char b = v ? 1 : 0;
  put(p, &b, 1);
}

static bool high(const AlloPort& p) { return p.data && (p.data[0] & 1); }

static uint64_t value(const AlloPort& p, int lo, int width) {
  uint64_t v = 0;
  if (p.data && width > 0) get_bits(p.data, lo, width < 64 ? width : 64, reinterpret_cast<unsigned char*>(&v), 8);
  return v;
}

static size_t scalar_bytes(int bits) { return bits > 64 ? (size_t)((bits + 63) / 64 * 8) : 8; }

struct MemState {
  Bytes words;
  size_t word_bytes;
  std::vector<std::deque<Bytes> > pending;    // per load port: data owed, oldest first
  std::vector<unsigned long long> done_owed;  // per store port: done tokens owed
};

// One simulation run: the design, its memories and what has been exchanged so far.
struct Bench {
  AlloDesign* d;
  std::string dir;
  std::vector<MemState> mems;
  std::vector<Bytes> scalars, results;
  std::vector<bool> sent, got;
  bool start_sent = false, done_seen = false;

  void tick(bool clock) {
    set(d->clock, clock);
    d->eval(d->top);
  }

  void load_inputs() {
    mems.resize(d->memories.size());
    for (size_t k = 0; k < mems.size(); ++k) {
      const AlloMemory& m = d->memories[k];
      mems[k].word_bytes = (size_t)(m.elem_bits + 7) / 8;
      mems[k].words = read_file(dir + "/m" + std::to_string(m.arg) + ".bin", (size_t)m.size * mems[k].word_bytes);
      mems[k].pending.resize(m.loads.size());
      mems[k].done_owed.assign(m.stores.size(), 0);
    }
    for (const AlloScalar& s : d->scalars)
      scalars.push_back(read_file(dir + "/s" + std::to_string(s.arg) + ".bin", scalar_bytes(s.bits)));
    sent.assign(scalars.size(), false);
    for (const AlloResult& r : d->results) results.push_back(Bytes(scalar_bytes(r.bits), 0));
    got.assign(results.size(), false);
  }

  void reset() {
    set(d->reset, true);
    for (int i = 0; i < 4; ++i) { tick(false); tick(true); }
    set(d->reset, false);
    tick(false);
  }

  // The inputs of this cycle: owed load data and done tokens, scalars, start, readiness.
  void drive() {
    for (size_t k = 0; k < mems.size(); ++k) {
      const AlloMemory& m = d->memories[k];
      for (size_t j = 0; j < m.loads.size(); ++j) {
        const AlloLoadPort& p = m.loads[j];
        set(p.addr_ready, true);
        bool owed = !mems[k].pending[j].empty();
        set(p.data_valid, owed);
        if (owed) put(p.data, mems[k].pending[j].front().data(), mems[k].word_bytes);
      }
      for (size_t j = 0; j < m.stores.size(); ++j) {
        set(m.stores[j].ready, true);
        set(m.stores[j].done_valid, mems[k].done_owed[j] > 0);
      }
    }
    for (size_t k = 0; k < scalars.size(); ++k) {
      put(d->scalars[k].data, scalars[k].data(), scalars[k].size());
      set(d->scalars[k].valid, !sent[k]);
    }
    set(d->start_valid, !start_sent);
    for (size_t r = 0; r < results.size(); ++r) set(d->results[r].ready, !got[r]);
    set(d->done_ready, true);
  }

  // The transfers of this cycle (valid and ready both high at the coming rising edge).
  void sample_memory(size_t k) {
    const AlloMemory& m = d->memories[k];
    MemState& s = mems[k];
    for (size_t j = 0; j < m.loads.size(); ++j)
      if (high(m.loads[j].data_valid) && high(m.loads[j].data_ready)) s.pending[j].pop_front();
    for (size_t j = 0; j < m.stores.size(); ++j) {
      const AlloStorePort& p = m.stores[j];
      if (high(p.done_valid) && high(p.done_ready)) --s.done_owed[j];
      if (high(p.valid) && high(p.ready)) {
        uint64_t a = value(p.st, m.elem_bits, m.addr_bits);
        if (a < (uint64_t)m.size) get_bits(p.st.data, 0, m.elem_bits, &s.words[a * s.word_bytes], s.word_bytes);
        ++s.done_owed[j];
      }
    }
    for (size_t j = 0; j < m.loads.size(); ++j) {  // after the stores: a write-first memory
      const AlloLoadPort& p = m.loads[j];
      if (high(p.addr_valid) && high(p.addr_ready)) {
        uint64_t a = value(p.addr, 0, m.addr_bits);
        Bytes w(s.word_bytes, 0);
        if (a < (uint64_t)m.size) memcpy(w.data(), &s.words[a * s.word_bytes], s.word_bytes);
        s.pending[j].push_back(w);
      }
    }
  }

  bool sample() {
    for (size_t k = 0; k < mems.size(); ++k) sample_memory(k);
    for (size_t k = 0; k < scalars.size(); ++k)
      if (high(d->scalars[k].valid) && high(d->scalars[k].ready)) sent[k] = true;
    if (high(d->start_valid) && high(d->start_ready)) start_sent = true;
    for (size_t r = 0; r < results.size(); ++r) {
      const AlloResult& res = d->results[r];
      if (!got[r] && high(res.valid)) {
        if (res.data.data) get_bits(res.data.data, 0, res.bits, results[r].data(), results[r].size());
        got[r] = true;
      }
    }
    if (high(d->done_valid)) done_seen = true;
    bool finished = done_seen;
    for (size_t r = 0; r < results.size(); ++r) finished = finished && got[r];
    return finished;
  }

  void write_outputs(unsigned long long cycles) {
    for (size_t k = 0; k < mems.size(); ++k)
      if (!d->memories[k].stores.empty())
        write_file(dir + "/m" + std::to_string(d->memories[k].arg) + ".out", mems[k].words.data(), mems[k].words.size());
    for (size_t r = 0; r < results.size(); ++r)
      write_file(dir + "/o" + std::to_string(d->results[r].index) + ".bin", results[r].data(), results[r].size());
    FILE* f = fopen((dir + "/cycles.txt").c_str(), "w");
    if (!f) { fprintf(stderr, "cannot write %s/cycles.txt\n", dir.c_str()); exit(2); }
    fprintf(f, "%llu\n", cycles);
    fclose(f);
  }
};

int main(int argc, char** argv) {
  if (argc < 3) { fprintf(stderr, "usage: %s DATA_DIR MAX_CYCLES\n", argv[0]); return 2; }
  unsigned long long max_cycles = strtoull(argv[2], nullptr, 10);
  VerilatedContext* ctx = new VerilatedContext;
  Bench b;
  b.d = allo_make_design(ctx);
  b.dir = argv[1];
  b.load_inputs();
  b.reset();
  unsigned long long cycles = 0;
  bool finished = false;
  while (!finished) {
    if (cycles >= max_cycles) {
      fprintf(stderr, "the design did not finish within %llu cycles\n", max_cycles);
      return 3;
    }
    b.drive();
    b.tick(false);
    finished = b.sample();
    b.tick(true);
    ++cycles;
  }
  b.write_outputs(cycles);
  b.d->final(b.d->top);
  return 0;
}
