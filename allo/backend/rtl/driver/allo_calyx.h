// The interface between allo's design-independent Verilator driver for Calyx designs
// (allo_calyx_driver.cpp, compiled once; its header comment states the protocol) and the small
// generated glue of one design (see allo/backend/rtl/calyx/harness.py): every port of the
// Verilated top is seen as little-endian bytes with its bit width.
#ifndef ALLO_CALYX_H
#define ALLO_CALYX_H

#include <vector>

class VerilatedContext;

struct AlloCxSig {
  unsigned char* data;  // the Verilator member (CData/SData/IData/QData/VlWide), nullptr if absent
  int bytes;            // sizeof the member
  int width;            // bits that matter (inputs: the rest is kept zero, as Verilator needs)
};

// One external memory (Calyx std_mem / comb_mem_d1): addr0, write_data, write_en out; read_data, done in.
struct AlloCxMemory {
  int index;   // data files m<index>.bin / m<index>.out
  long words;  // words of the memory
  int bits;    // word width
  AlloCxSig addr, write_data, write_en, read_data, done;
};

struct AlloCxScalar { int index; int bits; AlloCxSig data; };  // input, s<index>.bin
struct AlloCxResult { int index; int bits; AlloCxSig data; };  // output, o<index>.bin

struct AlloCxDesign {
  AlloCxSig clk, reset, go, done;
  std::vector<AlloCxMemory> memories;
  std::vector<AlloCxScalar> scalars;
  std::vector<AlloCxResult> results;
  void* top;
  void (*eval)(void* top);
  void (*final)(void* top);
};

// Defined by the generated glue of each design.
AlloCxDesign* allo_make_calyx_design(VerilatedContext* ctx);

#endif
