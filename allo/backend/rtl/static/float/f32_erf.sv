// allo float32 erf(a), the Gauss error integral, as a fixed sequence of the float32 units:
// |a| < 1 gives a + a R(a^2) (R degree 6); 1 <= |a| < 4 gives +-(1 - Q(|a| - c)), Q a degree-10 fit of erfc
// on [1, 2.25) (c = 1.625) or [2.25, 4) (c = 3.125), Horner with the piece's coefficients muxed;
// |a| >= 4 gives +-1. Coefficients: least-squares fits on Chebyshev nodes, rounded to float32.
// Format: IEEE-754 binary32. Latency: combinational here; the scheduler adds the operator table's
// cycles (Tables.float_op("fmath", 32), 30 at 3.33 ns) as registers. Rounding: each step to
// nearest even; within 1 ulp of the correctly rounded erf (docs/rtl.md); erf(+-0) = +-0,
// erf(+-inf) = +-1, a NaN is returned quietened.
// needs: f32_add f32_mul f32_cmp

// Coefficient k of the erfc piece (hi: the [2.25, 4) piece).
function automatic logic [31:0] allo_f32_erf_q(input logic hi, input logic [3:0] k);
  logic [31:0] c;
  case ({hi, k})
    5'd0: c = 32'h3cb096c5;  5'd1: c = 32'hbda4cea2;  5'd2: c = 32'h3e05e7e3;  5'd3: c = 32'hbdeb31e5;
    5'd4: c = 32'h3d4ba6c5;  5'd5: c = 32'h3b0c8469;  5'd6: c = 32'hbc6c4d8a;  5'd7: c = 32'h3bc8e28b;
    5'd8: c = 32'h3a21a791;  5'd9: c = 32'hbaa6efc6;  5'd10: c = 32'h39893b48;
    5'd16: c = 32'h37260b15; 5'd17: c = 32'hb887c490; 5'd18: c = 32'h39542e02; 5'd19: c = 32'hb9d1fe25;
    5'd20: c = 32'h3a123f5d; 5'd21: c = 32'hba1645d3; 5'd22: c = 32'h39ec34da; 5'd23: c = 32'hb9917f04;
    5'd24: c = 32'h38f30043; 5'd25: c = 32'hb73cb441; 5'd26: c = 32'hb71ec52f;
    default: c = 32'd0;
  endcase
  allo_f32_erf_q = c;
endfunction

function automatic logic [31:0] allo_f32_erf(input logic [31:0] a);
  logic [31:0] ax, z, r, near0, u, q, far, res;
  logic hi;
  ax = {1'b0, a[30:0]};
  z = allo_f32_mul(a, a);
  r = 32'h38a54ed6;
  r = allo_f32_add(allo_f32_mul(r, z), 32'hba5235a0, 1'b0);
  r = allo_f32_add(allo_f32_mul(r, z), 32'h3baa0b1b, 1'b0);
  r = allo_f32_add(allo_f32_mul(r, z), 32'hbcdbfd9c, 1'b0);
  r = allo_f32_add(allo_f32_mul(r, z), 32'h3de7168c, 1'b0);
  r = allo_f32_add(allo_f32_mul(r, z), 32'hbec0939f, 1'b0);
  r = allo_f32_add(allo_f32_mul(r, z), 32'h3e0375d4, 1'b0);
  near0 = allo_f32_add(a, allo_f32_mul(a, r), 1'b0);
  hi = allo_f32_cmp(ax, 32'h40100000, 4'd3);
  u = allo_f32_add(ax, hi ? 32'h40480000 : 32'h3fd00000, 1'b1);
  q = allo_f32_erf_q(hi, 4'd10);
  for (int k = 9; k >= 0; k--) q = allo_f32_add(allo_f32_mul(q, u), allo_f32_erf_q(hi, 4'(k)), 1'b0);
  far = allo_f32_add(32'h3f800000, q, 1'b1);
  if (allo_f32_isnan(a)) res = a | 32'h00400000;
  else if (allo_f32_cmp(ax, 32'h3f800000, 4'd4)) res = near0;
  else if (allo_f32_cmp(ax, 32'h40800000, 4'd3)) res = {a[31], 31'h3f800000};
  else res = {a[31], far[30:0]};
  allo_f32_erf = res;
endfunction
