// The interface between allo's design-independent Verilator driver (allo_rtl_driver.cpp,
// compiled once) and the small generated glue of one design (glue.cpp): every port of the
// Verilated top is seen as little-endian bytes with its bit width.
#ifndef ALLO_RTL_H
#define ALLO_RTL_H

#include <vector>

class VerilatedContext;

struct AlloPort {
  unsigned char* data;  // the Verilator member (CData/SData/IData/QData/VlWide), nullptr if absent
  int bytes;            // sizeof the member
  int width;            // bits that matter (the rest must stay zero)
};

struct AlloLoadPort { AlloPort addr, addr_valid, addr_ready, data, data_valid, data_ready; };
struct AlloStorePort { AlloPort st, valid, ready, done_valid, done_ready; };

struct AlloMemory {
  int arg;        // handshake argument number: data files m<arg>.bin / m<arg>.out
  long size;      // words
  int elem_bits;  // word width
  int addr_bits;
  std::vector<AlloLoadPort> loads;
  std::vector<AlloStorePort> stores;
};

struct AlloScalar { int arg; int bits; AlloPort data, valid, ready; };  // data absent for tokens
struct AlloResult { int index; int bits; AlloPort data, valid, ready; };

struct AlloDesign {
  AlloPort clock, reset, start_valid, start_ready, done_valid, done_ready;
  std::vector<AlloMemory> memories;
  std::vector<AlloScalar> scalars;
  std::vector<AlloResult> results;
  void* top;
  void (*eval)(void* top);
  void (*final)(void* top);
};

// Defined by the generated glue of each design.
AlloDesign* allo_make_design(VerilatedContext* ctx);

#endif
