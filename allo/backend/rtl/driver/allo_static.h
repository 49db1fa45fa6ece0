// The interface between allo's design-independent Verilator driver for statically scheduled
// designs (allo_static_driver.cpp, compiled once; its header comment states the protocol) and
// the small generated glue of one design (glue.cpp, see allo/backend/rtl/static/harness.py):
// every port of the Verilated top is seen as little-endian bytes with its bit width.
#ifndef ALLO_STATIC_H
#define ALLO_STATIC_H

#include <vector>

class VerilatedContext;

struct AlloSig {
  unsigned char* data;  // the Verilator member (CData/SData/IData/QData/VlWide), nullptr if absent
  int bytes;            // sizeof the member
  int width;            // bits that matter (inputs: the rest is kept zero, as Verilator needs)
};

// One ap_memory port j of a memory: address/ce outputs always, we/d if it writes, q if it reads.
struct AlloMemPort { int j; AlloSig address, ce, we, d, q; };

struct AlloStaticMemory {
  int index;   // data files m<index>.bin / m<index>.out
  long words;  // words of the memory
  int bits;    // word width
  std::vector<AlloMemPort> ports;
};

struct AlloStaticScalar { int index; int bits; AlloSig data; };  // input, s<index>.bin
struct AlloStaticResult { int index; int bits; AlloSig data; };  // ap_return_<index>, o<index>.bin
struct AlloCounter { const char* name; AlloSig sig; };           // 1-bit output

struct AlloStaticDesign {
  AlloSig clock, reset, ap_start, ap_done;
  std::vector<AlloStaticMemory> memories;
  std::vector<AlloStaticScalar> scalars;
  std::vector<AlloStaticResult> results;
  std::vector<AlloCounter> counters;
  void* top;
  void (*eval)(void* top);
  void (*final)(void* top);
};

// Defined by the generated glue of each design.
AlloStaticDesign* allo_make_static_design(VerilatedContext* ctx);

#endif
