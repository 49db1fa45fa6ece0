// allo float32 power: pow(a, b), as a fixed sequence of the float32 units: |a| = 2^e m with
// m in [sqrt(1/2), sqrt(2)), l = log2(m) (f32_log2), b log2|a| = b e + b l with b e exact as
// bh e + bl e (b split into two 12-bit halves), n = round(b log2|a|), the fraction
// f = ((bh e - n) + b l) + bl e (small terms, the big one exact), result exp(f ln 2) 2^n rounded
// once; the sign of a for odd integer b, and the special cases of C99 / glibc powf (pow(a, +-0)
// = 1, pow(1, b) = 1, pow(-1, +-inf) = 1, zeros and infinities of a by the parity of b, a < 0
// with non-integer b the default NaN, NaNs as glibc: quietened, a's first).
// Format: IEEE-754 binary32. Latency: combinational here (a module of
// f32_log2, f32_exp, f32_add, f32_mul, f32_div); the scheduler adds the operator table's
// cycles (Tables.float_op("fpow", 32), 40 at 3.33 ns) as registers. Rounding: each step to
// nearest even; b l is rounded to float32, so the error grows with |b| (docs/rtl.md:
// 3 + |b| ulp); the specials are exact.
// needs: f32_common f32_cmp f32_from_int f32_log2 f32_exp f32_mul f32_add f32_div
module allo_f32_pow_m(input logic [31:0] a, input logic [31:0] b, output logic [31:0] y);
  //@functions
  logic [31:0] ax, sq0, sq, rq, res, as, xs, m, l, ef, bh, bl, p1, p2, q, pp, sv, tn, nf, f1, f2, f, fl, ey, sc;
  logic [11:0] e;
  logic sub, lo;
  logic [7:0] eb;
  logic [23:0] below;
  logic bint, bodd, anan, bnan, neg;
  assign eb = b[30:23];
  assign below = eb >= 8'd150 ? 24'd0 : (24'hffffff >> (eb - 8'd126));  // the fraction bits of b's significand
  assign bint = eb >= 8'd127 && ({1'b1, b[22:0]} & below) == 24'd0;
  assign bodd = bint && eb <= 8'd150 && |({1'b1, b[22:0]} & (24'd1 << (8'd150 - eb)));  // its units bit
  assign anan = allo_f32_isnan(a);
  assign bnan = allo_f32_isnan(b);
  assign neg = a[31] && bodd;
  assign ax = {1'b0, a[30:0]};
  // a is 0, inf or NaN: a * a (signed by the parity of b), or its reciprocal for b < 0
  allo_f32_mul_m s0(a, a, sq0);
  assign sq = neg ? sq0 ^ 32'h80000000 : sq0;
  allo_f32_div_m s1(32'h3f800000, sq, rq);
  // the general case
  assign sub = ax[30:23] == 8'd0;
  allo_f32_mul_m s2(ax, 32'h4c000000, as);
  assign xs = sub ? as : ax;  // subnormals scaled by 2^25
  assign lo = allo_f32_cmp({1'b0, 8'd126, xs[22:0]}, 32'h3f3504f3, 4'd4);
  assign m = lo ? {1'b0, 8'd127, xs[22:0]} : {1'b0, 8'd126, xs[22:0]};  // in [sqrt(1/2), sqrt(2))
  assign e = {4'd0, xs[30:23]} - 12'd126 - (sub ? 12'd25 : 12'd0) - (lo ? 12'd1 : 12'd0);
  allo_f32_log2_m s3(m, l);
  assign ef = allo_f32_from_int({{52{e[11]}}, e}, 1'b1);
  assign bh = {b[31:12], 12'd0};
  allo_f32_add_m s4(b, bh, 1'b1, bl);
  allo_f32_mul_m s5(bh, ef, p1);  // exact: 12 x 9 significant bits
  allo_f32_mul_m s6(bl, ef, p2);
  allo_f32_mul_m s7(b, l, q);
  allo_f32_add_m s8(p1, p2, 1'b0, pp);
  allo_f32_add_m s9(pp, q, 1'b0, sv);  // b log2|a|, approximately
  allo_f32_add_m s10(sv, 32'h4b400000, 1'b0, tn);  // round to an integer n (in tn's low bits)
  allo_f32_add_m s11(tn, 32'h4b400000, 1'b1, nf);
  allo_f32_add_m s12(p1, nf, 1'b1, f1);
  allo_f32_add_m s13(f1, q, 1'b0, f2);
  allo_f32_add_m s14(f2, p2, 1'b0, f);  // |f| <= ~0.5
  allo_f32_mul_m s15(f, 32'h3f317218, fl);
  allo_f32_exp_m s16(fl, ey);
  always_comb begin
    sc = allo_f32_round64(1'b0, {4'd0, ey[30:23]} + tn[11:0], {1'b1, ey[22:0], 40'd0});
    if (allo_f32_cmp(sv, 32'h43480000, 4'd2)) sc = 32'h7f800000;  // b log2|a| > 200
    else if (allo_f32_cmp(sv, 32'hc3480000, 4'd4)) sc = 32'h00000000;  // < -200
    if (neg) sc = sc ^ 32'h80000000;
    if (b[30:0] == 31'd0) res = (anan && !a[22]) ? a | 32'h00400000 : 32'h3f800000;
    else if (b[30:23] == 8'hff || bnan) begin  // b is +-inf or NaN
      if (a == 32'h3f800000) res = (bnan && !b[22]) ? b | 32'h00400000 : 32'h3f800000;
      else if (anan) res = a | 32'h00400000;
      else if (bnan) res = b | 32'h00400000;
      else if (ax == 32'h3f800000) res = 32'h3f800000;
      else if ((ax < 32'h3f800000) == !b[31]) res = 32'h00000000;
      else res = 32'h7f800000;
    end else if (anan || a[30:0] == 31'd0 || a[30:23] == 8'hff) res = b[31] ? rq : sq;  // a is 0, inf or NaN
    else if (a[31] && !bint) res = 32'hffc00000;
    else res = sc;
  end
  assign y = res;
endmodule
