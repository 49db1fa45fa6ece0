// allo float32 reciprocal square root: 1 / sqrt(a), the sequence MLIR's math.rsqrt lowers to in
// the LLVM build (llvm.sqrt, then fdiv), so it is bit-exact with it.
// Format: IEEE-754 binary32. Latency: combinational here; the scheduler adds the operator table's
// cycles (Tables.float_op("frsqrt", 32), 20 at 3.33 ns) as registers. Rounding: two roundings to
// nearest even (sqrt, then divide); rsqrt(+-0) = +-inf, rsqrt(+inf) = +0, rsqrt(a < 0) = NaN.
// needs: f32_sqrt f32_div
function automatic logic [31:0] allo_f32_rsqrt(input logic [31:0] a);
  allo_f32_rsqrt = allo_f32_div(32'h3f800000, allo_f32_sqrt(a));
endfunction
