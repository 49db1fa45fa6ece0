// allo float32 base-2 logarithm: log2(a), as a fixed sequence of the float32 units (Cephes
// log2f): the reduction and polynomial of f32_log (a = 2^e m, m in [sqrt(1/2), sqrt(2)),
// r = m - 1 exact, ln m = r + y with y = r^3 P(r) - r^2 / 2), then
// log2 a = y L + r L + y + r + e with L = log2(e) - 1, so the large terms are added last.
// Format: IEEE-754 binary32. Latency: combinational here; the scheduler adds the operator table's
// cycles (Tables.float_op("flog", 32), 17 at 3.33 ns) as registers. Rounding: each step to
// nearest even; within the ulp bound of docs/rtl.md; log2(2^k) = k exactly, log2(+-0) = -inf,
// log2(+inf) = +inf, log2(a < 0) = the default NaN, a NaN is returned quietened.
// needs: f32_add f32_mul f32_cmp f32_from_int
function automatic logic [31:0] allo_f32_log2(input logic [31:0] a);
  logic [31:0] xs, m, r, z, y, q, res;
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
  y = allo_f32_add(y, allo_f32_mul(32'hbf000000, z), 1'b0);
  q = allo_f32_from_int({{52{e[11]}}, e}, 1'b1);
  z = allo_f32_mul(y, 32'h3ee2a8ed);
  z = allo_f32_add(z, allo_f32_mul(r, 32'h3ee2a8ed), 1'b0);
  z = allo_f32_add(z, y, 1'b0);
  z = allo_f32_add(z, r, 1'b0);
  res = allo_f32_add(z, q, 1'b0);
  if (allo_f32_isnan(a)) res = a | 32'h00400000;
  else if (a[30:0] == 31'd0) res = 32'hff800000;
  else if (a[31]) res = 32'hffc00000;
  else if (a[30:23] == 8'hff) res = a;
  allo_f32_log2 = res;
endfunction
