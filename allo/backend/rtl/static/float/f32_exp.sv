// allo float32 exponential: exp(a), as a fixed sequence of the float32 units (Cephes expf):
// n = round(a log2 e) (by adding 1.5 * 2^23), r = a - n C1 - n C2 (C1 + C2 = ln 2, C1 exact in
// 9 bits so n C1 is exact), y = 1 + r + r^2 P(r) (Horner, degree 5), result y * 2^n rounded once.
// Format: IEEE-754 binary32. Latency: combinational here (a module instantiating f32_add /
// f32_mul / f32_poly); the scheduler adds the operator table's cycles (Tables.float_op("fexp",
// 32), 15 at 3.33 ns) as registers. Rounding: each step to nearest even; the result is within
// 1 ulp of the correctly rounded exp over the finite range (docs/rtl.md), subnormal results
// rounded once; exp(+-0) = 1, exp(-inf) = +0, exp(+inf) and a > 89 give +inf, a < -104 gives +0,
// a NaN is returned quietened.
// needs: f32_common f32_cmp f32_add f32_mul f32_poly
module allo_f32_exp_m(input logic [31:0] a, output logic [31:0] y);
  //@functions
  logic [31:0] m0, t, nf, m1, r1, m2, r, z, p, pz, q, e, res;
  allo_f32_mul_m s0(a, 32'h3fb8aa3b, m0);
  allo_f32_add_m s1(m0, 32'h4b400000, 1'b0, t);
  allo_f32_add_m s2(t, 32'h4b400000, 1'b1, nf);
  allo_f32_mul_m s3(nf, 32'h3f318000, m1);
  allo_f32_add_m s4(a, m1, 1'b1, r1);
  allo_f32_mul_m s5(nf, 32'hb95e8083, m2);
  allo_f32_add_m s6(r1, m2, 1'b1, r);
  allo_f32_mul_m s7(r, r, z);
  allo_f32_poly_m #(5) s8(r, {32'h39506967, 32'h3ab743ce, 32'h3c088908, 32'h3d2aa9c1, 32'h3e2aaaaa, 32'h3f000000}, p);
  allo_f32_mul_m s9(p, z, pz);
  allo_f32_add_m s10(pz, r, 1'b0, q);
  allo_f32_add_m s11(q, 32'h3f800000, 1'b0, e);
  always_comb begin
    // e is a positive normal near 1; its exponent plus n (t's low bits, in [-151, 129]) scales it
    res = allo_f32_round64(1'b0, {4'd0, e[30:23]} + t[11:0], {1'b1, e[22:0], 40'd0});
    if (allo_f32_isnan(a)) res = a | 32'h00400000;
    else if (allo_f32_cmp(a, 32'h42b20000, 4'd2)) res = 32'h7f800000;
    else if (allo_f32_cmp(a, 32'hc2d00000, 4'd4)) res = 32'h00000000;
  end
  assign y = res;
endmodule
