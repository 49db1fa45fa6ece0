// allo float32 remainder of truncated division (C fmodf, LLVM frem): a - b trunc(a / b), exact.
// Format: IEEE-754 binary32. Latency: combinational here (a long division of a's significand
// shifted by the exponent difference, 301 fixed subtract-select steps of 25 bits: large in
// logic, used only by %); the
// scheduler adds the operator table's cycles (Tables.float_op("fdiv", 32), 15 at 3.33 ns).
// Rounding: none (the remainder is representable). The result has a's sign; |a| < |b| or b = inf
// gives a; a = inf or b = 0 gives the default NaN (0xffc00000); a NaN operand comes back
// quietened (a's first), as glibc's fmodf.
// needs: f32_common
function automatic logic [31:0] allo_f32_fmod(input logic [31:0] a, input logic [31:0] b);
  logic [300:0] n;
  logic [24:0] r, t;
  logic [23:0] mb;
  logic [11:0] ea, eb, d;
  logic [6:0] la, lb;
  // significands normalised to a leading one at bit 23 (subnormals shifted up, exponents down)
  la = allo_clz64({40'd0, a[30:23] != 8'd0, a[22:0]}) - 7'd40;
  lb = allo_clz64({40'd0, b[30:23] != 8'd0, b[22:0]}) - 7'd40;
  ea = {4'd0, a[30:23] == 8'd0 ? 8'd1 : a[30:23]} - {5'd0, la};
  eb = {4'd0, b[30:23] == 8'd0 ? 8'd1 : b[30:23]} - {5'd0, lb};
  mb = {b[30:23] != 8'd0, b[22:0]} << lb;
  d = ea - eb;  // in [0, 276] when |a| >= |b|
  n = {277'd0, a[30:23] != 8'd0, a[22:0]} << la << d;  // a's significand times 2^d, an integer
  // its remainder modulo mb by long division, one bit per step; leading zeros are no-ops, so the
  // chain has a fixed length (a subtract and a select per step)
  r = 25'd0;
  for (int k = 300; k >= 0; k--) begin
    t = {r[23:0], n[k]} - {1'b0, mb};
    r = t[24] ? {r[23:0], n[k]} : t;
  end
  if (allo_f32_isnan(a)) allo_f32_fmod = a | 32'h00400000;
  else if (allo_f32_isnan(b)) allo_f32_fmod = b | 32'h00400000;
  else if (a[30:23] == 8'hff || b[30:0] == 31'd0) allo_f32_fmod = 32'hffc00000;
  else if (b[30:23] == 8'hff || a[30:0] < b[30:0]) allo_f32_fmod = a;
  // r < mb, and bit 0 of r weighs 2^(eb - 150): exact as a float32 (subnormal if it must be)
  else allo_f32_fmod = allo_f32_round64(a[31], eb + 12'd40, {39'd0, r});
endfunction
