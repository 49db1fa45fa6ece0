// Random-stall test of an allo handshake float unit (two i32 operands, an i32 result; VTOP is
// replaced by the Verilated model of the unit): tests/test_rtl_float_handshake.py.
#include "VTOP.h"
#include "verilated.h"
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <vector>
int main(int argc, char** argv) {
  Verilated::commandArgs(argc, argv);
  FILE* f = fopen(argv[1], "rb");
  std::vector<uint32_t> a, b; uint32_t x, y;
  while (fread(&x, 4, 1, f) == 1 && fread(&y, 4, 1, f) == 1) { a.push_back(x); b.push_back(y); }
  fclose(f);
  size_t n = a.size(), i0 = 0, i1 = 0, ic = 0, n1 = 0;
  std::vector<uint32_t> out;
  VTOP* m = new VTOP;
  srand(7);
  m->clock = 0; m->reset = 1; m->eval(); m->clock = 1; m->eval(); m->clock = 0; m->reset = 0; m->eval();
  long cycles = 0;
  bool v0 = false, v1 = false, vc = false;
  while ((out.size() < n || n1 < n) && cycles < 100000000) {
    // valid raised at random, held until taken (the handshake rule)
    if (!v0 && i0 < n && rand() % 3) v0 = true;
    if (!v1 && i1 < n && rand() % 3) v1 = true;
    if (!vc && ic < n && rand() % 3) vc = true;
    m->in0 = a[i0 < n ? i0 : 0]; m->in0_valid = v0;
    m->in1 = b[i1 < n ? i1 : 0]; m->in1_valid = v1;
    m->in2_valid = vc;
    m->out0_ready = rand() % 2; m->out1_ready = rand() % 2;
    m->eval();
    bool t0 = v0 && m->in0_ready, t1 = v1 && m->in1_ready, tc = vc && m->in2_ready;
    bool o0 = m->out0_valid && m->out0_ready, o1 = m->out1_valid && m->out1_ready;
    if (o0) out.push_back(m->out0);
    if (o1) n1++;
    m->clock = 1; m->eval(); m->clock = 0; m->eval();
    if (t0) { v0 = false; i0++; }
    if (t1) { v1 = false; i1++; }
    if (tc) { vc = false; ic++; }
    cycles++;
  }
  for (uint32_t r : out) printf("%08x\n", r);
  fprintf(stderr, "tokens %zu cycles %ld\n", n1, cycles);
  delete m;
  return 0;
}
