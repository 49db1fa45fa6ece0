// allo float32 base-2 logarithm: log2(a), as a fixed sequence of the float32 units (Cephes
// log2f): the reduction and polynomial of f32_log (a = 2^e m, m in [sqrt(1/2), sqrt(2)),
// r = m - 1 exact, ln m = r + y with y = r^3 P(r) - r^2 / 2), then
// log2 a = y L + r L + y + r + e with L = log2(e) - 1, so the large terms are added last.
// Format: IEEE-754 binary32. Latency: combinational here (modules of f32_log's reduction,
// f32_add, f32_mul); the scheduler adds the operator table's cycles (Tables.float_op("flog",
// 32), 17 at 3.33 ns) as registers. Rounding: each step to nearest even; within the ulp bound
// of docs/rtl.md; log2(2^k) = k exactly, log2(+-0) = -inf, log2(+inf) = +inf, log2(a < 0) = the
// default NaN, a NaN is returned quietened.
// needs: f32_log f32_add f32_mul
module allo_f32_log2_m(input logic [31:0] a, output logic [31:0] y);
  logic [31:0] q, r, z, y0, m0, y1, z1, m1, z2, z3, z4, res;
  allo_f32_log_reduce_m s0(a, q, r, z, y0);
  allo_f32_mul_m s1(32'hbf000000, z, m0);
  allo_f32_add_m s2(y0, m0, 1'b0, y1);
  allo_f32_mul_m s3(y1, 32'h3ee2a8ed, z1);
  allo_f32_mul_m s4(r, 32'h3ee2a8ed, m1);
  allo_f32_add_m s5(z1, m1, 1'b0, z2);
  allo_f32_add_m s6(z2, y1, 1'b0, z3);
  allo_f32_add_m s7(z3, r, 1'b0, z4);
  allo_f32_add_m s8(z4, q, 1'b0, res);
  allo_f32_log_special_m s9(a, res, y);
endmodule
