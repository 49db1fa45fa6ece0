// allo float32 natural logarithm: log(a), as a fixed sequence of the float32 units (Cephes logf):
// a = 2^e m with m in [sqrt(1/2), sqrt(2)) (subnormals scaled by 2^25 first), r = m - 1 (exact),
// log a = r - r^2 / 2 + r^3 P(r) (Horner, degree 8) + e C2 + e C1 (C1 + C2 = ln 2, C1 exact in
// 9 bits).
// Format: IEEE-754 binary32. Latency: combinational here (modules of f32_add, f32_mul,
// f32_poly); the scheduler adds the operator table's cycles (Tables.float_op("flog", 32), 17 at
// 3.33 ns) as registers. Rounding: each step to nearest even; within 1 ulp of the correctly
// rounded log (docs/rtl.md); log(1) = +0, log(+-0) = -inf, log(+inf) = +inf, log(a < 0) = the
// default NaN, a NaN is returned quietened.
// needs: f32_common f32_cmp f32_from_int f32_add f32_mul f32_poly

// The shared part of log and log2 (allo_f32_log_reduce_m): e, r, z, y with a = 2^e (1 + r), r in
// [sqrt(1/2) - 1, sqrt(2) - 1) exact, z = r^2, y = r^3 P(r) (Cephes' degree-8 polynomial), and
// q = e as a float32.
module allo_f32_log_reduce_m(input logic [31:0] a, output logic [31:0] q, output logic [31:0] r,
                             output logic [31:0] z, output logic [31:0] y);
  //@functions
  logic [31:0] as, xs, m, mm, rlo, rhi, p, pr;
  logic [11:0] e;
  logic sub, lo;
  assign sub = a[30:23] == 8'd0;
  allo_f32_mul_m s0(a, 32'h4c000000, as);
  assign xs = sub ? as : a;
  assign m = {1'b0, 8'd126, xs[22:0]};  // in [0.5, 1)
  assign lo = allo_f32_cmp(m, 32'h3f3504f3, 4'd4);
  assign e = {4'd0, xs[30:23]} - 12'd126 - (sub ? 12'd25 : 12'd0) - (lo ? 12'd1 : 12'd0);
  allo_f32_add_m s1(m, m, 1'b0, mm);
  allo_f32_add_m s2(mm, 32'h3f800000, 1'b1, rlo);
  allo_f32_add_m s3(m, 32'h3f800000, 1'b1, rhi);
  assign r = lo ? rlo : rhi;
  allo_f32_mul_m s4(r, r, z);
  allo_f32_poly_m #(8) s5(r, {32'h3d9021bb, 32'hbdebd1b8, 32'h3def251a, 32'hbdfe5d4f, 32'h3e11e9bf, 32'hbe2aae50,
                              32'h3e4cceac, 32'hbe7ffffc, 32'h3eaaaaaa}, p);
  allo_f32_mul_m s6(p, r, pr);
  allo_f32_mul_m s7(pr, z, y);
  assign q = allo_f32_from_int({{52{e[11]}}, e}, 1'b1);
endmodule

// log's and log2's special operands (allo_f32_log_special_m): a NaN quietened, log(+-0) = -inf,
// log(a < 0) = the default NaN, log(+inf) = +inf; any other a gives `res`.
module allo_f32_log_special_m(input logic [31:0] a, input logic [31:0] res, output logic [31:0] y);
  //@functions
  always_comb begin
    y = res;
    if (allo_f32_isnan(a)) y = a | 32'h00400000;
    else if (a[30:0] == 31'd0) y = 32'hff800000;
    else if (a[31]) y = 32'hffc00000;
    else if (a[30:23] == 8'hff) y = a;
  end
endmodule

module allo_f32_log_m(input logic [31:0] a, output logic [31:0] y);
  logic [31:0] q, r, z, y0, m0, y1, m1, y2, r1, m2, res;
  allo_f32_log_reduce_m s0(a, q, r, z, y0);
  allo_f32_mul_m s1(32'hb95e8083, q, m0);
  allo_f32_add_m s2(y0, m0, 1'b0, y1);
  allo_f32_mul_m s3(32'hbf000000, z, m1);
  allo_f32_add_m s4(y1, m1, 1'b0, y2);
  allo_f32_add_m s5(r, y2, 1'b0, r1);
  allo_f32_mul_m s6(32'h3f318000, q, m2);
  allo_f32_add_m s7(r1, m2, 1'b0, res);
  allo_f32_log_special_m s8(a, res, y);
endmodule
