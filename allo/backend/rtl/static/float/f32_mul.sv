// allo float32 multiply: a * b.
// Format: IEEE-754 binary32. Latency: combinational here; the scheduler adds the operator table's
// cycles (Tables.float_op("fmul", 32), 3 at 3.33 ns) as registers. Rounding: to nearest even
// (one rounding of the exact 48-bit product), subnormal inputs and results, the sign of zero and
// infinity is the XOR of the signs, inf * 0 = the default NaN (0xffc00000), a NaN operand is
// returned quietened.
// needs: f32_common
function automatic logic [31:0] allo_f32_mul(input logic [31:0] a, input logic [31:0] b);
  logic s;
  logic [47:0] p;
  logic [11:0] e;
  logic [31:0] res;
  logic az, bz, ai, bi;
  s = a[31] ^ b[31];
  az = a[30:0] == 31'd0;
  bz = b[30:0] == 31'd0;
  ai = a[30:0] == 31'h7f800000;
  bi = b[30:0] == 31'h7f800000;
  p = {24'd0, a[30:23] != 8'd0, a[22:0]} * {24'd0, b[30:23] != 8'd0, b[22:0]};
  e = {4'd0, (a[30:23] == 8'd0) ? 8'd1 : a[30:23]} + {4'd0, (b[30:23] == 8'd0) ? 8'd1 : b[30:23]} - 12'd126;
  if (allo_f32_isnan(a)) res = a | 32'h00400000;
  else if (allo_f32_isnan(b)) res = b | 32'h00400000;
  else if (ai || bi) res = (az || bz) ? 32'hffc00000 : {s, 31'h7f800000};
  else if (az || bz) res = {s, 31'd0};
  else res = allo_f32_round64(s, e, {p, 16'd0});
  allo_f32_mul = res;
endfunction
