// allo float32 base-2 logarithm: log2(a), as a fixed sequence of the float32 units (Cephes
// log2f): the reduction and polynomial of f32_log (a = 2^e m, m in [sqrt(1/2), sqrt(2)),
// r = m - 1 exact, ln m = r + y with y = r^3 P(r) - r^2 / 2), then
// log2 a = y L + r L + y + r + e with L = log2(e) - 1, so the large terms are added last.
// Format: IEEE-754 binary32. Latency: combinational here; the scheduler adds the operator table's
// cycles (Tables.float_op("flog", 32), 17 at 3.33 ns) as registers. Rounding: each step to
// nearest even; within the ulp bound of docs/rtl.md; log2(2^k) = k exactly, log2(+-0) = -inf,
// log2(+inf) = +inf, log2(a < 0) = the default NaN, a NaN is returned quietened.
// needs: f32_log f32_add f32_mul f32_from_int
function automatic logic [31:0] allo_f32_log2(input logic [31:0] a);
  logic [31:0] r, z, y, q, res;
  logic [11:0] e;
  {e, r, z, y} = allo_f32_log_reduce(a);
  y = allo_f32_add(y, allo_f32_mul(32'hbf000000, z), 1'b0);
  q = allo_f32_from_int({{52{e[11]}}, e}, 1'b1);
  z = allo_f32_mul(y, 32'h3ee2a8ed);
  z = allo_f32_add(z, allo_f32_mul(r, 32'h3ee2a8ed), 1'b0);
  z = allo_f32_add(z, y, 1'b0);
  z = allo_f32_add(z, r, 1'b0);
  res = allo_f32_add(z, q, 1'b0);
  res = allo_f32_log_special(a, res);
  allo_f32_log2 = res;
endfunction
