// allo integer -> float32 (LLVM sitofp / uitofp, allo's int -> float cast): x is the integer
// sign- (sgn = 1) or zero-extended (sgn = 0) to 64 bits; int8..int64 and uint8..uint64 share it.
// Format: two's complement / unsigned in, IEEE-754 binary32 out. Latency: combinational here;
// the scheduler adds the operator table's cycles (Tables.float_op("itofp", 32), 5 at 3.33 ns).
// Rounding: to nearest even, once (as a C cast of int64 to float).
// needs: f32_common
function automatic logic [31:0] allo_f32_from_int(input logic [63:0] x, input logic sgn);
  logic s;
  s = sgn & x[63];
  allo_f32_from_int = allo_f32_round64(s, 12'd190, s ? 64'd0 - x : x);
endfunction
