// allo float32 reciprocal square root: 1 / sqrt(a), the sequence MLIR's math.rsqrt lowers to in
// the LLVM build (llvm.sqrt, then fdiv), so it is bit-exact with it.
// Format: IEEE-754 binary32. Latency: combinational here (a module of f32_sqrt, f32_div); the
// scheduler adds the operator table's cycles (Tables.float_op("frsqrt", 32), 20 at 3.33 ns) as
// registers. Rounding: two roundings to nearest even (sqrt, then divide); rsqrt(+-0) = +-inf,
// rsqrt(+inf) = +0, rsqrt(a < 0) = NaN.
// needs: f32_sqrt f32_div
module allo_f32_rsqrt_m(input logic [31:0] a, output logic [31:0] y);
  logic [31:0] s;
  allo_f32_sqrt_m s0(a, s);
  allo_f32_div_m s1(32'h3f800000, s, y);
endmodule
