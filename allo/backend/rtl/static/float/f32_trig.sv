// allo float32 sine / cosine: c = 0 gives sin(a), c = 1 gives cos(a). Range reduction in exact
// integer arithmetic (Payne-Hanek): |a| = M 2^E times a 96-bit window of 2/pi (from 256 bits,
// chosen by E) gives the quadrant q and a 64-bit fraction f in [-1/2, 1/2), r = f pi/2 rounded
// once to float32 (|a| <= pi/4 is taken as r = a); then the Cephes sinf / cosf polynomials on r
// in the float32 units, the quadrant picking sin or cos and the sign.
// Format: IEEE-754 binary32. Latency: combinational here (a module of
// f32_add, f32_mul, f32_poly); the scheduler adds the operator table's
// cycles (Tables.float_op("fmath", 32), 30 at 3.33 ns) as registers. Rounding: each polynomial
// step to nearest even; within the ulp bound of docs/rtl.md of libm's sinf / cosf over the whole
// float32 range; sin(+-0) = +-0, cos(+-0) = 1, +-inf gives the default NaN, a NaN is returned
// quietened.
// needs: f32_common f32_add f32_mul f32_poly
module allo_f32_trig_m(input logic [31:0] a, input logic c, output logic [31:0] y);
  //@functions
  localparam logic [255:0] TWO_OVER_PI = 256'ha2f9836e4e441529fc2757d1f534ddc0db6295993c439041fe5163abdebbc561;
  localparam logic [62:0] HALF_PI = 63'h6487ed5110b4611a;  // pi / 2 * 2^62
  logic [31:0] r, z, ps, psz, pszr, s, pc, pcz, pczz, hz, k0, k, res;
  logic [23:0] m;
  logic [11:0] e;
  logic [95:0] g;
  logic [119:0] p;
  logic [65:0] x;
  logic [63:0] f;
  logic [126:0] rp;
  logic [1:0] q0, q;
  logic fneg, big;
  always_comb begin
    m = {a[30:23] != 8'd0, a[22:0]};
    e = {4'd0, a[30:23]} - 12'd150;  // |a| = m 2^e (>= -24 where a reduction is needed)
    g = 96'(TWO_OVER_PI >> (12'd162 - e));  // 2/pi bits weighing 2^(e - 222) .. 2^(e - 127)
    p = m * g;  // |a| 2/pi in units of 2^-94, mod 2^26 (the dropped bits add multiples of 4)
    x = p[95:30];  // two integer bits (mod 4) and 64 fraction bits
    q0 = x[65:64];
    f = x[63:0];
    fneg = f[63];  // f >= 1/2: the next quadrant, r negative
    if (fneg) begin
      q0 = q0 + 2'd1;
      f = -f;
    end
    rp = f * HALF_PI;  // |r| in units of 2^-126 (the product at rp's width)
    big = a[30:0] > 31'h3f490fdb;  // |a| > pi/4 (as a float32): reduce
    r = big ? allo_f32_round64(fneg, 12'd127, rp[126:63]) : {1'b0, a[30:0]};
    if (!big) q0 = 2'd0;
  end
  allo_f32_mul_m s0(r, r, z);
  allo_f32_poly_m #(2) s1(z, {32'hb94ca1f9, 32'h3c08839e, 32'hbe2aaaa3}, ps);
  allo_f32_mul_m s2(ps, z, psz);
  allo_f32_mul_m s3(psz, r, pszr);
  allo_f32_add_m s4(pszr, r, 1'b0, s);  // sin r
  allo_f32_poly_m #(2) s5(z, {32'h37ccf5ce, 32'hbab6061a, 32'h3d2aaaa5}, pc);
  allo_f32_mul_m s6(pc, z, pcz);
  allo_f32_mul_m s7(pcz, z, pczz);
  allo_f32_mul_m s8(32'h3f000000, z, hz);
  allo_f32_add_m s9(pczz, hz, 1'b1, k0);
  allo_f32_add_m s10(k0, 32'h3f800000, 1'b0, k);  // cos r
  always_comb begin
    q = q0 + {1'b0, c};  // cos x = sin(x + pi/2)
    res = q[0] ? k : s;
    if (q[1]) res = res ^ 32'h80000000;
    if (!c && a[31]) res = res ^ 32'h80000000;  // sin is odd, cos even
    if (a[30:23] == 8'hff) res = a[22:0] != 23'd0 ? a | 32'h00400000 : 32'hffc00000;
    else if (a[30:0] == 31'd0) res = c ? 32'h3f800000 : a;
  end
  assign y = res;
endmodule
