// allo float32 modulo, a % b (numpy's floor modulo, the LLVM build's sequence): r = fmod(a, b),
// then r + b when r is nonzero and its sign differs from b's, so the result takes b's sign.
// Format: IEEE-754 binary32. Latency: combinational here (a module of f32_fmod,
// f32_add); the scheduler adds the operator table's
// cycles (Tables.float_op("fdiv", 32), 15 at 3.33 ns). Rounding: fmod is exact, the fix-up
// addition rounds to nearest even (as on the CPU). NaN / inf / zero divisor as fmodf.
// needs: f32_common f32_cmp f32_fmod f32_add
module allo_f32_mod_m(input logic [31:0] a, input logic [31:0] b, output logic [31:0] y);
  //@functions
  logic [31:0] r, rb;
  logic fix;
  allo_f32_fmod_m s0(a, b, r);
  allo_f32_add_m s1(r, b, 1'b0, rb);
  assign fix = allo_f32_cmp(r, 32'h0, 4'd14) & (allo_f32_cmp(r, 32'h0, 4'd4) ^ allo_f32_cmp(b, 32'h0, 4'd4));
  assign y = fix ? rb : r;
endmodule
