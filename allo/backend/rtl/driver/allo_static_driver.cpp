// allo's Verilator testbench for statically scheduled designs (ap_ctrl_hs control, ap_memory
// memories); design-independent, compiled once and linked with the generated glue of each design
// (see allo_static.h).
//
//   ./sim DATA_DIR MAX_CYCLES
//
// Protocol (the same text is PROTOCOL in allo/backend/rtl/static/harness.py):
// - Top ports: `clock`, `reset` (active high, synchronous: held high for 4 cycles before the run),
//   `ap_start` (input), `ap_done` (output), `ap_idle` (output, may be absent; the driver ignores it).
// - Scalar parameter: an input port named by the interface, driven from DATA_DIR/s<k>.bin
//   (8 bytes per started 64 bits, little endian) and held constant from before reset to the end.
// - Scalar result r: output `ap_return_<r>`, read in the cycle `ap_done` is high, written to
//   DATA_DIR/o<r>.bin (8 bytes per started 64 bits).
// - Memory k (one bank) with prefix P and ports j = 0..n-1: outputs `P_address<j>`, `P_ce<j>`,
//   and for a writing port `P_we<j>`, `P_d<j>`; input `P_q<j>` for a reading port. Its contents
//   come from DATA_DIR/m<k>.bin (raw little-endian words of ceil(bits/8) bytes) and, if a port
//   writes, go to DATA_DIR/m<k>.out after the run. At every rising edge of the run, per port with
//   ce=1: we=1 writes d at address, otherwise q_j <= mem[address] (q holds its value until the
//   next read on that port; 0 before the first). All reads of an edge happen before all its
//   writes (read-first); writes of one edge to one address: the highest port j wins. Out-of-range
//   reads give 0, out-of-range writes are ignored. The memories do nothing during reset.
// - Counters: 1-bit outputs named by the interface; for each, the cycles it is high and its rising
//   transitions (0->1, a 1 in the first cycle counts as one) over the counted cycles go to
//   DATA_DIR/counters.txt, one line `name high_cycles entries` per counter.
// Run: after reset, ap_start=1 from the first cycle until ap_done=1 is seen (then ap_start=0).
// Each cycle: drive the inputs (ap_start, scalars, q), evaluate at clock low, sample the outputs
// (ap_done, results, counters, memory requests), rising edge. cycles = the clock cycles from the
// first cycle with ap_start=1 up to and including the cycle in which ap_done is high, written to
// DATA_DIR/cycles.txt. No ap_done within MAX_CYCLES: exit code 3 and "did not finish within N cycles".
#include "allo_static.h"

#include "verilated.h"

#include "allo_driver_io.h"

// An address port as a number; any set bit above 64 makes it out of range.
static uint64_t address(const AlloSig& p) {
  uint64_t v = 0;
  if (!p.data) return 0;
  get(p, 64, reinterpret_cast<unsigned char*>(&v), 8);
  for (int i = 8; i < p.bytes; ++i)
    if (p.data[i]) return UINT64_MAX;
  return v;
}

struct MemState {
  Bytes words;
  size_t word_bytes;
  std::vector<Bytes> q;  // per port: the registered read data it drives
  bool written_by_a_port = false;
};

struct CounterState { unsigned long long high_cycles = 0, entries = 0; bool last = false; };

// One simulation run: the design, its memories and what has been counted so far.
struct Bench {
  AlloStaticDesign* d;
  std::string dir;
  std::vector<MemState> mems;
  std::vector<Bytes> scalars, results;
  std::vector<CounterState> counters;

  void tick(bool clock) {
    set(d->clock, clock);
    d->eval(d->top);
  }

  void load_inputs() {
    mems.resize(d->memories.size());
    for (size_t k = 0; k < mems.size(); ++k) {
      const AlloStaticMemory& m = d->memories[k];
      MemState& s = mems[k];
      s.word_bytes = (size_t)(m.bits + 7) / 8;
      s.words = read_file(dir + "/m" + std::to_string(m.index) + ".bin", (size_t)m.words * s.word_bytes);
      s.q.assign(m.ports.size(), Bytes(s.word_bytes, 0));
      for (const AlloMemPort& p : m.ports) s.written_by_a_port = s.written_by_a_port || p.we.data != nullptr;
    }
    for (const AlloStaticScalar& s : d->scalars)
      scalars.push_back(read_file(dir + "/s" + std::to_string(s.index) + ".bin", scalar_bytes(s.bits)));
    for (const AlloStaticResult& r : d->results) results.push_back(Bytes(scalar_bytes(r.bits), 0));
    counters.resize(d->counters.size());
  }

  void drive(bool start) {
    set(d->ap_start, start);
    for (size_t k = 0; k < scalars.size(); ++k) put(d->scalars[k].data, scalars[k].data(), scalars[k].size());
    for (size_t k = 0; k < mems.size(); ++k)
      for (size_t j = 0; j < d->memories[k].ports.size(); ++j)
        put(d->memories[k].ports[j].q, mems[k].q[j].data(), mems[k].word_bytes);
  }

  void reset() {
    set(d->reset, true);
    for (int i = 0; i < 4; ++i) {
      drive(false);
      tick(false);
      tick(true);
    }
    set(d->reset, false);
    tick(false);
  }

  // The rising edge of memory k: every read of the edge, then every write.
  void memory_edge(size_t k) {
    const AlloStaticMemory& m = d->memories[k];
    MemState& s = mems[k];
    for (size_t j = 0; j < m.ports.size(); ++j) {
      const AlloMemPort& p = m.ports[j];
      if (!high(p.ce) || high(p.we) || !p.q.data) continue;
      uint64_t a = address(p.address);
      if (a < (uint64_t)m.words) memcpy(s.q[j].data(), &s.words[a * s.word_bytes], s.word_bytes);
      else memset(s.q[j].data(), 0, s.word_bytes);
    }
    for (size_t j = 0; j < m.ports.size(); ++j) {
      const AlloMemPort& p = m.ports[j];
      if (!high(p.ce) || !high(p.we)) continue;
      uint64_t a = address(p.address);
      if (a < (uint64_t)m.words) get(p.d, m.bits, &s.words[a * s.word_bytes], s.word_bytes);
    }
  }

  // The outputs of one counted cycle (clock low, before its rising edge); true once ap_done is high.
  bool sample() {
    for (size_t c = 0; c < counters.size(); ++c) {
      bool v = high(d->counters[c].sig);
      counters[c].high_cycles += v;
      counters[c].entries += v && !counters[c].last;
      counters[c].last = v;
    }
    for (size_t k = 0; k < mems.size(); ++k) memory_edge(k);
    if (!high(d->ap_done)) return false;
    for (size_t r = 0; r < results.size(); ++r)
      get(d->results[r].data, d->results[r].bits, results[r].data(), results[r].size());
    return true;
  }

  void write_outputs(unsigned long long cycles) {
    for (size_t k = 0; k < mems.size(); ++k)
      if (mems[k].written_by_a_port)
        write_file(dir + "/m" + std::to_string(d->memories[k].index) + ".out", mems[k].words.data(),
                   mems[k].words.size());
    for (size_t r = 0; r < results.size(); ++r)
      write_file(dir + "/o" + std::to_string(d->results[r].index) + ".bin", results[r].data(), results[r].size());
    std::string text;
    for (size_t c = 0; c < counters.size(); ++c)
      text += std::string(d->counters[c].name) + " " + std::to_string(counters[c].high_cycles) + " " +
              std::to_string(counters[c].entries) + "\n";
    write_file(dir + "/counters.txt", reinterpret_cast<const unsigned char*>(text.data()), text.size());
    std::string n = std::to_string(cycles) + "\n";
    write_file(dir + "/cycles.txt", reinterpret_cast<const unsigned char*>(n.data()), n.size());
  }
};

int main(int argc, char** argv) {
  if (argc < 3) { fprintf(stderr, "usage: %s DATA_DIR MAX_CYCLES\n", argv[0]); return 2; }
  unsigned long long max_cycles = strtoull(argv[2], nullptr, 10);
  VerilatedContext* ctx = new VerilatedContext;
  Bench b;
  b.d = allo_make_static_design(ctx);
  b.dir = argv[1];
  b.load_inputs();
  b.reset();
  unsigned long long cycles = 0;
  for (bool done = false; !done; ++cycles) {
    if (cycles >= max_cycles) {
      fprintf(stderr, "the design did not finish within %llu cycles (ap_done never rose)\n", max_cycles);
      return 3;
    }
    b.drive(true);
    b.tick(false);
    done = b.sample();
    b.tick(true);
  }
  b.drive(false);
  b.tick(false);
  b.write_outputs(cycles);
  b.d->final(b.d->top);
  return 0;
}
