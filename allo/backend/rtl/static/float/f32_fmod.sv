// allo float32 remainder of truncated division (C fmodf, LLVM frem): a - b trunc(a / b), exact.
// Format: IEEE-754 binary32. Latency: combinational here (a restoring shift-subtract over the
// exponent difference, at most 277 steps of 25 bits: large in logic, used only by %); the
// scheduler adds the operator table's cycles (Tables.float_op("fdiv", 32), 15 at 3.33 ns).
// Rounding: none (the remainder is representable). The result has a's sign; |a| < |b| or b = inf
// gives a; a = inf or b = 0 gives the default NaN (0xffc00000); a NaN operand comes back
// quietened (a's first), as glibc's fmodf.
// needs: f32_common
function automatic logic [31:0] allo_f32_fmod(input logic [31:0] a, input logic [31:0] b);
  logic [24:0] r, mb;
  logic [11:0] ea, eb, d;
  logic [6:0] la, lb;
  // significands normalised to a leading one at bit 23 (subnormals shifted up, exponents down)
  la = allo_clz64({40'd0, a[30:23] != 8'd0, a[22:0]}) - 7'd40;
  lb = allo_clz64({40'd0, b[30:23] != 8'd0, b[22:0]}) - 7'd40;
  ea = {4'd0, a[30:23] == 8'd0 ? 8'd1 : a[30:23]} - {5'd0, la};
  eb = {4'd0, b[30:23] == 8'd0 ? 8'd1 : b[30:23]} - {5'd0, lb};
  r = {1'b0, a[30:23] != 8'd0, a[22:0]} << la;
  mb = {1'b0, b[30:23] != 8'd0, b[22:0]} << lb;
  if (allo_f32_isnan(a)) allo_f32_fmod = a | 32'h00400000;
  else if (allo_f32_isnan(b)) allo_f32_fmod = b | 32'h00400000;
  else if (a[30:23] == 8'hff || b[30:0] == 31'd0) allo_f32_fmod = 32'hffc00000;
  else if (b[30:23] == 8'hff || a[30:0] < b[30:0]) allo_f32_fmod = a;
  else begin
    d = ea - eb;  // in [0, 276]: one compare-subtract per exponent step, r < 2 mb throughout
    for (int k = 0; k < 277; k++)
      if (k <= int'(d)) begin
        if (r >= mb) r = r - mb;
        if (k < int'(d)) r = r << 1;
      end
    // r < mb, and bit 0 of r weighs 2^(eb - 150): exact as a float32 (subnormal if it must be)
    allo_f32_fmod = allo_f32_round64(a[31], eb + 12'd40, {39'd0, r});
  end
endfunction
