// allo float32 divide: a / b.
// Format: IEEE-754 binary32. Latency: combinational here (a 40-step restoring division of 24-bit significands); the
// scheduler adds the operator table's cycles (Tables.float_op("fdiv", 32), 15 at 3.33 ns) as
// registers. Rounding: to nearest even of the exact quotient (remainder as sticky), subnormal
// inputs and results; x / 0 = +-inf, 0 / 0 and inf / inf = the default NaN (0xffc00000), a NaN
// operand is returned quietened.
// needs: f32_common
function automatic logic [31:0] allo_f32_div(input logic [31:0] a, input logic [31:0] b);
  logic s, az, bz, ai, bi;
  logic [6:0] la, lb;
  logic [63:0] ma, mb, q, r;
  logic [25:0] rr;
  logic [11:0] e;
  logic [31:0] res;
  s = a[31] ^ b[31];
  az = a[30:0] == 31'd0;
  bz = b[30:0] == 31'd0;
  ai = a[30:0] == 31'h7f800000;
  bi = b[30:0] == 31'h7f800000;
  ma = {40'd0, a[30:23] != 8'd0, a[22:0]};
  mb = {40'd0, b[30:23] != 8'd0, b[22:0]};
  la = allo_clz64(ma) - 7'd40;  // subnormals: normalise to a leading one at bit 23
  lb = allo_clz64(mb) - 7'd40;
  ma = ma << la;
  mb = mb << lb;
  // (ma << 39) / mb and its remainder by restoring division: ma, mb in [2^23, 2^24) (or 0), so
  // the first 23 dividend bits (ma's top ones) are below mb and the quotient has 40 bits; the
  // partial remainder stays below 2 mb (26 bits), so each step is a 26-bit compare and subtract
  // (Yosys' generic 64-bit / and % would be two 64-step, 128-bit-wide arrays)
  q = 64'd0;
  rr = {3'd0, ma[23:1]};
  for (int k = 39; k >= 0; k--) begin
    rr = {rr[24:0], k == 39 ? ma[0] : 1'b0};
    if (mb != 64'd0 && rr >= mb[25:0]) begin
      rr = rr - mb[25:0];
      q[k] = 1'b1;
    end
  end
  r = {38'd0, rr};
  e = {4'd0, (a[30:23] == 8'd0) ? 8'd1 : a[30:23]} - {5'd0, la} - {4'd0, (b[30:23] == 8'd0) ? 8'd1 : b[30:23]}
      + {5'd0, lb} + 12'd150;
  if (allo_f32_isnan(a)) res = a | 32'h00400000;
  else if (allo_f32_isnan(b)) res = b | 32'h00400000;
  else if ((ai && bi) || (az && bz)) res = 32'hffc00000;
  else if (ai || bz) res = {s, 31'h7f800000};
  else if (az || bi) res = {s, 31'd0};
  else res = allo_f32_round64(s, e, {q[62:0], r != 64'd0});
  allo_f32_div = res;
endfunction
