// allo float32 natural logarithm: log(a), as a fixed sequence of the float32 units (Cephes logf):
// a = 2^e m with m in [sqrt(1/2), sqrt(2)) (subnormals scaled by 2^25 first), r = m - 1 (exact),
// log a = r - r^2 / 2 + r^3 P(r) (Horner, degree 8) + e C2 + e C1 (C1 + C2 = ln 2, C1 exact in
// 9 bits).
// Format: IEEE-754 binary32. Latency: combinational here; the scheduler adds the operator table's
// cycles (Tables.float_op("flog", 32), 17 at 3.33 ns) as registers. Rounding: each step to
// nearest even; within 1 ulp of the correctly rounded log (docs/rtl.md); log(1) = +0,
// log(+-0) = -inf, log(+inf) = +inf, log(a < 0) = the default NaN, a NaN is returned quietened.
// needs: f32_add f32_mul f32_cmp f32_from_int
// The shared part of log and log2: {e, r, z, y} with a = 2^e (1 + r), r in [sqrt(1/2) - 1,
// sqrt(2) - 1) exact, z = r^2, y = r^3 P(r) (Cephes' degree-8 polynomial, Horner).
function automatic logic [107:0] allo_f32_log_reduce(input logic [31:0] a);
  logic [31:0] xs, m, r, z, y;
  logic [11:0] e;
  logic sub, lo;
  sub = a[30:23] == 8'd0;
  xs = sub ? allo_f32_mul(a, 32'h4c000000) : a;
  e = {4'd0, xs[30:23]} - 12'd126 - (sub ? 12'd25 : 12'd0);
  m = {1'b0, 8'd126, xs[22:0]};  // in [0.5, 1)
  lo = allo_f32_cmp(m, 32'h3f3504f3, 4'd4);
  if (lo) e = e - 12'd1;
  r = lo ? allo_f32_add(allo_f32_add(m, m, 1'b0), 32'h3f800000, 1'b1) : allo_f32_add(m, 32'h3f800000, 1'b1);
  z = allo_f32_mul(r, r);
  y = 32'h3d9021bb;
  y = allo_f32_add(allo_f32_mul(y, r), 32'hbdebd1b8, 1'b0);
  y = allo_f32_add(allo_f32_mul(y, r), 32'h3def251a, 1'b0);
  y = allo_f32_add(allo_f32_mul(y, r), 32'hbdfe5d4f, 1'b0);
  y = allo_f32_add(allo_f32_mul(y, r), 32'h3e11e9bf, 1'b0);
  y = allo_f32_add(allo_f32_mul(y, r), 32'hbe2aae50, 1'b0);
  y = allo_f32_add(allo_f32_mul(y, r), 32'h3e4cceac, 1'b0);
  y = allo_f32_add(allo_f32_mul(y, r), 32'hbe7ffffc, 1'b0);
  y = allo_f32_add(allo_f32_mul(y, r), 32'h3eaaaaaa, 1'b0);
  y = allo_f32_mul(allo_f32_mul(y, r), z);
  allo_f32_log_reduce = {e, r, z, y};
endfunction
// log's and log2's special operands: a NaN quietened, log(+-0) = -inf, log(a < 0) = the default
// NaN, log(+inf) = +inf; any other a keeps `res`.
function automatic logic [31:0] allo_f32_log_special(input logic [31:0] a, input logic [31:0] res);
  allo_f32_log_special = res;
  if (allo_f32_isnan(a)) allo_f32_log_special = a | 32'h00400000;
  else if (a[30:0] == 31'd0) allo_f32_log_special = 32'hff800000;
  else if (a[31]) allo_f32_log_special = 32'hffc00000;
  else if (a[30:23] == 8'hff) allo_f32_log_special = a;
endfunction
function automatic logic [31:0] allo_f32_log(input logic [31:0] a);
  logic [31:0] r, z, y, q, res;
  logic [11:0] e;
  {e, r, z, y} = allo_f32_log_reduce(a);
  q = allo_f32_from_int({{52{e[11]}}, e}, 1'b1);
  y = allo_f32_add(y, allo_f32_mul(32'hb95e8083, q), 1'b0);
  y = allo_f32_add(y, allo_f32_mul(32'hbf000000, z), 1'b0);
  r = allo_f32_add(r, y, 1'b0);
  res = allo_f32_add(r, allo_f32_mul(32'h3f318000, q), 1'b0);
  res = allo_f32_log_special(a, res);
  allo_f32_log = res;
endfunction
