// allo float32 power: pow(a, b), as a fixed sequence of the float32 units: |a| = 2^e m with
// m in [sqrt(1/2), sqrt(2)), l = log2(m) (f32_log2), b log2|a| = b e + b l with b e exact as
// bh e + bl e (b split into two 12-bit halves), n = round(b log2|a|), the fraction
// f = ((bh e - n) + b l) + bl e (small terms, the big one exact), result exp(f ln 2) 2^n rounded
// once; the sign of a for odd integer b, and the special cases of C99 / glibc powf (pow(a, +-0)
// = 1, pow(1, b) = 1, pow(-1, +-inf) = 1, zeros and infinities of a by the parity of b, a < 0
// with non-integer b the default NaN, NaNs as glibc: quietened, a's first).
// Format: IEEE-754 binary32. Latency: combinational here; the scheduler adds the operator table's
// cycles (Tables.float_op("fpow", 32), 40 at 3.33 ns) as registers. Rounding: each step to
// nearest even; b l is rounded to float32, so the error grows with |b| (docs/rtl.md:
// 3 + |b| ulp); the specials are exact.
// needs: f32_log2 f32_exp f32_mul f32_add f32_div f32_cmp f32_from_int
function automatic logic [31:0] allo_f32_pow(input logic [31:0] a, input logic [31:0] b);
  logic [31:0] ax, sq, res, xs, m, l, ef, bh, bl, p1, p2, q, sv, tn, nf, f, y;
  logic [11:0] e;
  logic sub;
  logic [7:0] eb;
  logic [23:0] below;
  logic bint, bodd, anan, bnan, neg;
  eb = b[30:23];
  below = eb >= 8'd150 ? 24'd0 : (24'hffffff >> (eb - 8'd126));  // the fraction bits of b's significand
  bint = eb >= 8'd127 && ({1'b1, b[22:0]} & below) == 24'd0;
  bodd = bint && eb <= 8'd150 && |({1'b1, b[22:0]} & (24'd1 << (8'd150 - eb)));  // its units bit
  anan = allo_f32_isnan(a);
  bnan = allo_f32_isnan(b);
  neg = a[31] && bodd;
  ax = {1'b0, a[30:0]};
  if (b[30:0] == 31'd0) res = (anan && !a[22]) ? a | 32'h00400000 : 32'h3f800000;
  else if (b[30:23] == 8'hff || bnan) begin  // b is +-inf or NaN
    if (a == 32'h3f800000) res = (bnan && !b[22]) ? b | 32'h00400000 : 32'h3f800000;
    else if (anan) res = a | 32'h00400000;
    else if (bnan) res = b | 32'h00400000;
    else if (ax == 32'h3f800000) res = 32'h3f800000;
    else if ((ax < 32'h3f800000) == !b[31]) res = 32'h00000000;
    else res = 32'h7f800000;
  end else if (anan || a[30:0] == 31'd0 || a[30:23] == 8'hff) begin  // a is 0, inf or NaN
    sq = allo_f32_mul(a, a);
    if (neg) sq = sq ^ 32'h80000000;
    res = b[31] ? allo_f32_div(32'h3f800000, sq) : sq;
  end else if (a[31] && !bint) res = 32'hffc00000;
  else begin
    sub = ax[30:23] == 8'd0;
    xs = sub ? allo_f32_mul(ax, 32'h4c000000) : ax;  // subnormals scaled by 2^25
    e = {4'd0, xs[30:23]} - 12'd126 - (sub ? 12'd25 : 12'd0);
    m = {1'b0, 8'd126, xs[22:0]};  // in [0.5, 1)
    if (allo_f32_cmp(m, 32'h3f3504f3, 4'd4)) begin
      m = {1'b0, 8'd127, xs[22:0]};
      e = e - 12'd1;
    end
    l = allo_f32_log2(m);
    ef = allo_f32_from_int({{52{e[11]}}, e}, 1'b1);
    bh = {b[31:12], 12'd0};
    bl = allo_f32_add(b, bh, 1'b1);
    p1 = allo_f32_mul(bh, ef);  // exact: 12 x 9 significant bits
    p2 = allo_f32_mul(bl, ef);
    q = allo_f32_mul(b, l);
    sv = allo_f32_add(allo_f32_add(p1, p2, 1'b0), q, 1'b0);  // b log2|a|, approximately
    tn = allo_f32_add(sv, 32'h4b400000, 1'b0);  // round to an integer n (in tn's low bits)
    nf = allo_f32_add(tn, 32'h4b400000, 1'b1);
    f = allo_f32_add(allo_f32_add(allo_f32_add(p1, nf, 1'b1), q, 1'b0), p2, 1'b0);  // |f| <= ~0.5
    y = allo_f32_exp(allo_f32_mul(f, 32'h3f317218));
    res = allo_f32_round64(1'b0, {4'd0, y[30:23]} + tn[11:0], {1'b1, y[22:0], 40'd0});
    if (allo_f32_cmp(sv, 32'h43480000, 4'd2)) res = 32'h7f800000;  // b log2|a| > 200
    else if (allo_f32_cmp(sv, 32'hc3480000, 4'd4)) res = 32'h00000000;  // < -200
    if (neg) res = res ^ 32'h80000000;
  end
  allo_f32_pow = res;
endfunction
