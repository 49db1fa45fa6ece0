// allo float32 hyperbolic tangent: tanh(a), as a fixed sequence of the float32 units (Cephes
// tanhf): |a| > 9 gives +-1; |a| > 0.625 gives +-(1 - 2 / (exp(2|a|) + 1)) with f32_exp; else
// a + a s Q(s), s = a^2 (Horner, degree 4), which keeps +-0 and small a exact.
// Format: IEEE-754 binary32. Latency: combinational here (a module of f32_exp, f32_add, f32_mul,
// f32_div, f32_poly); the scheduler adds the operator table's cycles (Tables.float_op("fmath",
// 32), 30 at 3.33 ns) as registers. Rounding: each step to nearest even; within 1 ulp of the
// correctly rounded tanh (docs/rtl.md); tanh(+-inf) = +-1, a NaN is returned quietened.
// needs: f32_common f32_cmp f32_exp f32_add f32_mul f32_div f32_poly
module allo_f32_tanh_m(input logic [31:0] a, output logic [31:0] y);
  //@functions
  logic [31:0] ax, a2, e, e1, q, far, s, p, ps, psa, near0, res;
  assign ax = {1'b0, a[30:0]};
  allo_f32_add_m s0(ax, ax, 1'b0, a2);
  allo_f32_exp_m s1(a2, e);
  allo_f32_add_m s2(e, 32'h3f800000, 1'b0, e1);
  allo_f32_div_m s3(32'h40000000, e1, q);
  allo_f32_add_m s4(32'h3f800000, q, 1'b1, far);
  allo_f32_mul_m s5(a, a, s);
  allo_f32_poly_m #(4) s6(s, {32'hbbbaf0ea, 32'h3ca9134e, 32'hbd5c1e2d, 32'h3e088393, 32'hbeaaaa99}, p);
  allo_f32_mul_m s7(p, s, ps);
  allo_f32_mul_m s8(ps, a, psa);
  allo_f32_add_m s9(psa, a, 1'b0, near0);
  always_comb begin
    if (allo_f32_isnan(a)) res = a | 32'h00400000;
    else if (a[30:0] == 31'd0) res = a;
    else if (allo_f32_cmp(ax, 32'h41100000, 4'd2)) res = {a[31], 31'h3f800000};
    else if (allo_f32_cmp(ax, 32'h3f200000, 4'd2)) res = {a[31], far[30:0]};
    else res = near0;
  end
  assign y = res;
endmodule
