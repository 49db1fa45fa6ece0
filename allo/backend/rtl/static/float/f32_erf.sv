// allo float32 erf(a), the Gauss error integral, as a fixed sequence of the float32 units:
// |a| < 1 gives a + a R(a^2) (R degree 6); 1 <= |a| < 4 gives +-(1 - Q(|a| - c)), Q a degree-10 fit of erfc
// on [1, 2.25) (c = 1.625) or [2.25, 4) (c = 3.125), Horner with the piece's coefficients muxed;
// |a| >= 4 gives +-1. Coefficients: least-squares fits on Chebyshev nodes, rounded to float32.
// Format: IEEE-754 binary32. Latency: combinational here (a module of f32_add, f32_mul,
// f32_poly); the scheduler adds the operator table's cycles (Tables.float_op("fmath", 32), 30 at
// 3.33 ns) as registers. Rounding: each step to nearest even; within 1 ulp of the correctly
// rounded erf (docs/rtl.md); erf(+-0) = +-0, erf(+-inf) = +-1, a NaN is returned quietened.
// needs: f32_common f32_cmp f32_add f32_mul f32_poly
module allo_f32_erf_m(input logic [31:0] a, output logic [31:0] y);
  //@functions
  // the erfc pieces' coefficients, c[k] at bits 32 k (lo: [1, 2.25), hi: [2.25, 4))
  localparam logic [351:0] QLO = {32'h39893b48, 32'hbaa6efc6, 32'h3a21a791, 32'h3bc8e28b, 32'hbc6c4d8a,
                                  32'h3b0c8469, 32'h3d4ba6c5, 32'hbdeb31e5, 32'h3e05e7e3, 32'hbda4cea2,
                                  32'h3cb096c5};
  localparam logic [351:0] QHI = {32'hb71ec52f, 32'hb73cb441, 32'h38f30043, 32'hb9917f04, 32'h39ec34da,
                                  32'hba1645d3, 32'h3a123f5d, 32'hb9d1fe25, 32'h39542e02, 32'hb887c490,
                                  32'h37260b15};
  logic [31:0] ax, z, r, ar, near0, u, q, far, res;
  logic hi;
  assign ax = {1'b0, a[30:0]};
  allo_f32_mul_m s0(a, a, z);
  allo_f32_poly_m #(6) s1(z, {32'h38a54ed6, 32'hba5235a0, 32'h3baa0b1b, 32'hbcdbfd9c, 32'h3de7168c, 32'hbec0939f,
                              32'h3e0375d4}, r);
  allo_f32_mul_m s2(a, r, ar);
  allo_f32_add_m s3(a, ar, 1'b0, near0);
  assign hi = allo_f32_cmp(ax, 32'h40100000, 4'd3);
  allo_f32_add_m s4(ax, hi ? 32'h40480000 : 32'h3fd00000, 1'b1, u);
  allo_f32_poly_m #(10) s5(u, hi ? QHI : QLO, q);
  allo_f32_add_m s6(32'h3f800000, q, 1'b1, far);
  always_comb begin
    if (allo_f32_isnan(a)) res = a | 32'h00400000;
    else if (allo_f32_cmp(ax, 32'h3f800000, 4'd4)) res = near0;
    else if (allo_f32_cmp(ax, 32'h40800000, 4'd3)) res = {a[31], 31'h3f800000};
    else res = {a[31], far[30:0]};
  end
  assign y = res;
endmodule
