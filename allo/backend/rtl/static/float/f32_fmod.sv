// allo float32 remainder of truncated division (C fmodf, LLVM frem): a - b trunc(a / b), exact.
// Format: IEEE-754 binary32. Latency: combinational here (a's significand shifted by the exponent
// difference, reduced by a 301-step radix-2 SRT division with a carry-save remainder: large in
// logic, used only by %; the steps are 43 instances of a 7-step module, so no module Yosys
// maps is deeper than 7 steps); the scheduler adds the operator table's cycles (Tables.float_op("fdiv", 32), 15 at 3.33 ns).
// Rounding: none (the remainder is representable). The result has a's sign; |a| < |b| or b = inf
// gives a; a = inf or b = 0 gives the default NaN (0xffc00000); a NaN operand comes back
// quietened (a's first), as glibc's fmodf.
// needs: f32_common

// S steps of the reduction (allo_f32_fmod_steps_m): the partial remainder w = sc + cc (mod 2^27)
// stays in [-mb, mb) in carry-save form, so a step is a 5-bit estimate and one carry-save
// addition (no carry chain per step); digits q in {-1, 0, 1} from the estimate of 2w + bit, the
// bits taken from bits[S - 1] down.
module allo_f32_fmod_steps_m #(parameter int S = 7) (input logic [26:0] sc0, input logic [26:0] cc0,
                                                    input logic [S - 1:0] bits, input logic [23:0] mb,
                                                    output logic [26:0] sc1, output logic [26:0] cc1);
  logic [26:0] sc, cc, vs, vc, x;
  logic [4:0] est;
  always_comb begin
    sc = sc0;
    cc = cc0;
    for (int k = S - 1; k >= 0; k--) begin
      vs = {sc[25:0], bits[k]};
      vc = {cc[25:0], 1'b0};
      est = vs[26:22] + vc[26:22];  // <= 2w + bit < est + 2^23
      if (!est[4]) x = ~{3'd0, mb};  // q = 1: add -mb (the +1 goes into the carry vector)
      else if (est != 5'h1f && est != 5'h1e) x = {3'd0, mb};  // est < -2^23: q = -1, add mb
      else x = 27'd0;
      sc = vs ^ vc ^ x;
      cc = {((vs & vc) | (vs & x) | (vc & x)), 1'b0} | {26'd0, !est[4]};
    end
    sc1 = sc;
    cc1 = cc;
  end
endmodule

module allo_f32_fmod_m(input logic [31:0] a, input logic [31:0] b, output logic [31:0] y);
  //@functions
  logic [300:0] n;
  logic [24:0] r;
  logic [26:0] w;
  logic [27 * 44 - 1:0] scs, ccs;  // the partial remainder before block j at bits 27 j
  logic [23:0] mb;
  logic [11:0] ea, eb, d;
  logic [6:0] la, lb;
  genvar j;
  always_comb begin
    // significands normalised to a leading one at bit 23 (subnormals shifted up, exponents down)
    la = allo_clz64({40'd0, a[30:23] != 8'd0, a[22:0]}) - 7'd40;
    lb = allo_clz64({40'd0, b[30:23] != 8'd0, b[22:0]}) - 7'd40;
    ea = {4'd0, a[30:23] == 8'd0 ? 8'd1 : a[30:23]} - {5'd0, la};
    eb = {4'd0, b[30:23] == 8'd0 ? 8'd1 : b[30:23]} - {5'd0, lb};
    mb = {b[30:23] != 8'd0, b[22:0]} << lb;
    d = ea - eb;  // in [0, 276] when |a| >= |b|
    n = {277'd0, a[30:23] != 8'd0, a[22:0]} << la << d;  // a's significand times 2^d, an integer
  end
  // its remainder modulo mb: 301 steps, 7 per block, from n's top bit down
  assign scs[26:0] = 27'd0;
  assign ccs[26:0] = 27'd0;
  generate
    for (j = 0; j < 43; j = j + 1) begin : block
      allo_f32_fmod_steps_m #(7) st(scs[27 * j +: 27], ccs[27 * j +: 27], n[300 - 7 * j -: 7], mb,
                                   scs[27 * (j + 1) +: 27], ccs[27 * (j + 1) +: 27]);
    end
  endgenerate
  always_comb begin
    w = scs[27 * 43 +: 27] + ccs[27 * 43 +: 27];
    if (w[26]) w = w + {3'd0, mb};
    r = w[24:0];
    if (allo_f32_isnan(a)) y = a | 32'h00400000;
    else if (allo_f32_isnan(b)) y = b | 32'h00400000;
    else if (a[30:23] == 8'hff || b[30:0] == 31'd0) y = 32'hffc00000;
    else if (b[30:23] == 8'hff || a[30:0] < b[30:0]) y = a;
    // r < mb, and bit 0 of r weighs 2^(eb - 150): exact as a float32 (subnormal if it must be)
    else y = allo_f32_round64(a[31], eb + 12'd40, {39'd0, r});
  end
endmodule
