// allo's Verilator testbench for designs from the Calyx route (go/done control, Calyx's
// combinational-read memories); design-independent, compiled once and linked with the generated
// glue of each design (see allo_calyx.h).
//
//   ./sim DATA_DIR MAX_CYCLES
//
// Protocol (the same text is PROTOCOL in allo/backend/rtl/calyx/harness.py):
// - Top ports: `clk`, `reset` (active high: held high for 4 cycles before the run), `go` (input),
//   `done` (output).
// - Scalar parameter: an input port `in<k>`, driven from DATA_DIR/s<k>.bin (8 bytes per started
//   64 bits, little endian) and held constant from before reset to the end.
// - Scalar result r: output `out<r>`, read in the cycle `done` is high, written to DATA_DIR/o<r>.bin.
// - Memory k with prefix P (`ext_mem<k>`, Calyx's std_mem): outputs `P_addr0`, `P_write_data`,
//   `P_write_en`; inputs `P_read_data` and `P_done`. Reads are combinational: read_data =
//   mem[addr0] in the same cycle (0 out of range). A write happens at the rising edge when
//   write_en is high (ignored out of range); `done` is write_en registered (high in the cycle after
//   the write). Contents come from DATA_DIR/m<k>.bin (raw little-endian words of ceil(bits/8)
//   bytes) and go to DATA_DIR/m<k>.out after the run.
// Run: after reset, go=1 from the first cycle until done=1 is seen. Each cycle: drive the inputs,
// evaluate at clock low, answer the memory reads (re-evaluating until the addresses settle), sample
// done, results and writes, rising edge. cycles = the clock cycles from the first cycle with go=1
// up to and including the cycle in which done is high, written to DATA_DIR/cycles.txt. No done
// within MAX_CYCLES: exit code 3 and "did not finish within N cycles".
#include "allo_calyx.h"

#include "verilated.h"

#include "allo_driver_io.h"

static uint64_t address(const AlloCxSig& p) {
  uint64_t v = 0;
  if (!p.data) return 0;
  get(p, p.width < 64 ? p.width : 64, reinterpret_cast<unsigned char*>(&v), 8);
  return v;
}

struct MemState {
  Bytes words;
  size_t word_bytes;
  bool done = false;  // write_en of the previous cycle
};

struct Bench {
  AlloCxDesign* d;
  std::string dir;
  std::vector<MemState> mems;
  std::vector<Bytes> scalars, results;

  void load_inputs() {
    mems.resize(d->memories.size());
    for (size_t k = 0; k < mems.size(); ++k) {
      const AlloCxMemory& m = d->memories[k];
      mems[k].word_bytes = (size_t)(m.bits + 7) / 8;
      mems[k].words = read_file(dir + "/m" + std::to_string(m.index) + ".bin", (size_t)m.words * mems[k].word_bytes);
    }
    for (const AlloCxScalar& s : d->scalars)
      scalars.push_back(read_file(dir + "/s" + std::to_string(s.index) + ".bin", scalar_bytes(s.bits)));
    for (const AlloCxResult& r : d->results) results.push_back(Bytes(scalar_bytes(r.bits), 0));
  }

  // Combinational reads: read_data follows addr0; returns true if some read_data changed.
  bool answer_reads() {
    bool changed = false;
    for (size_t k = 0; k < mems.size(); ++k) {
      const AlloCxMemory& m = d->memories[k];
      if (!m.read_data.data) continue;
      Bytes before(m.read_data.data, m.read_data.data + m.read_data.bytes);
      uint64_t a = address(m.addr);
      if (a < (uint64_t)m.words) put(m.read_data, &mems[k].words[a * mems[k].word_bytes], mems[k].word_bytes);
      else { unsigned char z = 0; put(m.read_data, &z, 1); }
      changed = changed || memcmp(before.data(), m.read_data.data, m.read_data.bytes) != 0;
    }
    return changed;
  }

  void drive(bool go) {
    set(d->go, go);
    for (size_t k = 0; k < scalars.size(); ++k) put(d->scalars[k].data, scalars[k].data(), scalars[k].size());
    for (size_t k = 0; k < mems.size(); ++k) set(d->memories[k].done, mems[k].done);
  }

  void settle() {
    set(d->clk, false);
    d->eval(d->top);
    for (int i = 0; i < 8 && answer_reads(); ++i) d->eval(d->top);
  }

  void edge() {
    std::vector<bool> we(mems.size());
    std::vector<uint64_t> wa(mems.size());
    std::vector<Bytes> wd(mems.size());
    for (size_t k = 0; k < mems.size(); ++k) {
      const AlloCxMemory& m = d->memories[k];
      we[k] = high(m.write_en);
      wa[k] = address(m.addr);
      wd[k].assign(mems[k].word_bytes, 0);
      get(m.write_data, m.bits, wd[k].data(), wd[k].size());
    }
    set(d->clk, true);
    d->eval(d->top);
    for (size_t k = 0; k < mems.size(); ++k) {
      if (we[k] && wa[k] < (uint64_t)d->memories[k].words)
        memcpy(&mems[k].words[wa[k] * mems[k].word_bytes], wd[k].data(), mems[k].word_bytes);
      mems[k].done = we[k];
    }
  }

  void reset() {
    set(d->reset, true);
    for (int i = 0; i < 4; ++i) {
      drive(false);
      set(d->clk, false);
      d->eval(d->top);
      set(d->clk, true);
      d->eval(d->top);
    }
    set(d->reset, false);
    for (MemState& m : mems) m.done = false;
  }

  void write_outputs(unsigned long long cycles) {
    for (size_t k = 0; k < mems.size(); ++k)
      write_file(dir + "/m" + std::to_string(d->memories[k].index) + ".out", mems[k].words.data(),
                 mems[k].words.size());
    for (size_t r = 0; r < results.size(); ++r)
      write_file(dir + "/o" + std::to_string(d->results[r].index) + ".bin", results[r].data(), results[r].size());
    std::string n = std::to_string(cycles) + "\n";
    write_file(dir + "/cycles.txt", reinterpret_cast<const unsigned char*>(n.data()), n.size());
  }
};

int main(int argc, char** argv) {
  if (argc < 3) { fprintf(stderr, "usage: %s DATA_DIR MAX_CYCLES\n", argv[0]); return 2; }
  unsigned long long max_cycles = strtoull(argv[2], nullptr, 10);
  VerilatedContext* ctx = new VerilatedContext;
  Bench b;
  b.d = allo_make_calyx_design(ctx);
  b.dir = argv[1];
  b.load_inputs();
  b.reset();
  unsigned long long cycles = 0;
  for (bool done = false; !done;) {
    if (cycles >= max_cycles) {
      fprintf(stderr, "the design did not finish within %llu cycles (done never rose)\n", max_cycles);
      return 3;
    }
    b.drive(true);
    b.settle();
    ++cycles;
    done = high(b.d->done);
    if (done)
      for (size_t r = 0; r < b.results.size(); ++r)
        get(b.d->results[r].data, b.d->results[r].bits, b.results[r].data(), b.results[r].size());
    b.edge();
  }
  b.write_outputs(cycles);
  b.d->final(b.d->top);
  return 0;
}
