// allo float32 modulo, a % b (numpy's floor modulo, the LLVM build's sequence): r = fmod(a, b),
// then r + b when r is nonzero and its sign differs from b's, so the result takes b's sign.
// Format: IEEE-754 binary32. Latency: combinational here; the scheduler adds the operator table's
// cycles (Tables.float_op("fdiv", 32), 15 at 3.33 ns). Rounding: fmod is exact, the fix-up
// addition rounds to nearest even (as on the CPU). NaN / inf / zero divisor as fmodf.
// needs: f32_fmod f32_add f32_cmp
function automatic logic [31:0] allo_f32_mod(input logic [31:0] a, input logic [31:0] b);
  logic [31:0] r;
  logic fix;
  r = allo_f32_fmod(a, b);
  fix = allo_f32_cmp(r, 32'h0, 4'd14) & (allo_f32_cmp(r, 32'h0, 4'd4) ^ allo_f32_cmp(b, 32'h0, 4'd4));
  allo_f32_mod = fix ? allo_f32_add(r, b, 1'b0) : r;
endfunction
