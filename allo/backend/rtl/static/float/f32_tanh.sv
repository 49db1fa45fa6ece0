// allo float32 hyperbolic tangent: tanh(a), as a fixed sequence of the float32 units (Cephes
// tanhf): |a| > 9 gives +-1; |a| > 0.625 gives +-(1 - 2 / (exp(2|a|) + 1)) with f32_exp; else
// a + a s Q(s), s = a^2 (Horner, degree 4), which keeps +-0 and small a exact.
// Format: IEEE-754 binary32. Latency: combinational here; the scheduler adds the operator table's
// cycles (Tables.float_op("fmath", 32), 30 at 3.33 ns) as registers. Rounding: each step to
// nearest even; within 1 ulp of the correctly rounded tanh (docs/rtl.md); tanh(+-inf) = +-1, a
// NaN is returned quietened.
// needs: f32_exp f32_add f32_mul f32_div f32_cmp
function automatic logic [31:0] allo_f32_tanh(input logic [31:0] a);
  logic [31:0] ax, e, far, s, p, near0, res;
  ax = {1'b0, a[30:0]};
  e = allo_f32_exp(allo_f32_add(ax, ax, 1'b0));
  far = allo_f32_add(32'h3f800000, allo_f32_div(32'h40000000, allo_f32_add(e, 32'h3f800000, 1'b0)), 1'b1);
  s = allo_f32_mul(a, a);
  p = 32'hbbbaf0ea;
  p = allo_f32_add(allo_f32_mul(p, s), 32'h3ca9134e, 1'b0);
  p = allo_f32_add(allo_f32_mul(p, s), 32'hbd5c1e2d, 1'b0);
  p = allo_f32_add(allo_f32_mul(p, s), 32'h3e088393, 1'b0);
  p = allo_f32_add(allo_f32_mul(p, s), 32'hbeaaaa99, 1'b0);
  near0 = allo_f32_add(allo_f32_mul(allo_f32_mul(p, s), a), a, 1'b0);
  if (allo_f32_isnan(a)) res = a | 32'h00400000;
  else if (a[30:0] == 31'd0) res = a;
  else if (allo_f32_cmp(ax, 32'h41100000, 4'd2)) res = {a[31], 31'h3f800000};
  else if (allo_f32_cmp(ax, 32'h3f200000, 4'd2)) res = {a[31], far[30:0]};
  else res = near0;
  allo_f32_tanh = res;
endfunction
