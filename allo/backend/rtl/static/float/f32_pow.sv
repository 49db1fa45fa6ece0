// allo float32 power: pow(a, b), as a fixed sequence of the float32 units: exp(b log |a|) with
// f32_log and f32_exp, the sign of a for odd integer b, and the special cases of C99 / glibc powf
// (pow(a, +-0) = 1, pow(1, b) = 1, pow(-1, +-inf) = 1, zeros and infinities of a by the parity of
// b, a < 0 with non-integer b the default NaN, NaNs as glibc: quietened, a's first).
// Format: IEEE-754 binary32. Latency: combinational here; the scheduler adds the operator table's
// cycles (Tables.float_op("fpow", 32), 40 at 3.33 ns) as registers. Rounding: each step to
// nearest even; b log |a| is rounded to float32 before exp, so the error grows with |b log a|
// (the bound of docs/rtl.md: 3 + 2 |b log a| ulp); the specials are exact.
// needs: f32_log f32_exp f32_mul f32_div
function automatic logic [31:0] allo_f32_pow(input logic [31:0] a, input logic [31:0] b);
  logic [31:0] ax, sq, res;
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
    res = allo_f32_exp(allo_f32_mul(b, allo_f32_log(ax)));
    if (neg) res = res ^ 32'h80000000;
  end
  allo_f32_pow = res;
endfunction
