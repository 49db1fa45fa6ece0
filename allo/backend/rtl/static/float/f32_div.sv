// allo float32 divide: a / b. Format: IEEE-754 binary32. Stages (allo_f32_div_step k): 0 special
// operands, normalise both significands (subnormals to a leading one at bit 23) and the exponent; 1
// .. 40 one quotient bit each (restoring division: a 26-bit compare and subtract of the partial
// remainder), 41 leading-zero count, 42 normalising shift, 43 denormalise (subnormal results), 44
// round. Latency: allo_f32_div (and allo_f32_div_m) is combinational; allo_f32_div_p #(LAT) is
// pipelined with LAT cycles and II = 1 (LAT = the scheduler's operator latency, from allo.qor
// Tables.float_op("fdiv", 32), 16 register stages at 3.33 ns: about 3 quotient bits per stage; LAT
// < 45 merges stages evenly, LAT > 45 adds registers at the output; LAT = 0 is combinational).
// Rounding: to nearest even of the exact quotient (remainder as sticky), subnormal inputs and
// results; x / 0 = +-inf, 0 / 0 and inf / inf = the default NaN (0xffc00000), a NaN operand is
// returned quietened.
// needs: f32_common f32_pipe
// State of the stages (136 bits): [31:0] the special result, [32] is it special; stage input 0: {b,
// a}; 1 .. 41: [33] sign, [45:34] exponent, [85:46] the quotient bits so far, [109:86] b's
// significand, [135:110] the partial remainder; 42: [116:33] allo_f32_norm_a's {x, lz, e, s}; 43:
// [72:33] the normalised {m, e, s} (allo_f32_norm_b); 44: [70:33] allo_f32_packn_a's {x, exponent
// field, zero, overflow, s}; after 44: [31:0] the result.
function automatic logic [135:0] allo_f32_div_step(input int k, input logic [135:0] s);
  logic [31:0] a, b, sres;
  logic sg, spec, az, bz, ai, bi, bit1;
  logic [6:0] la, lb;
  logic [63:0] ma, mb;
  logic [25:0] rr;
  logic [39:0] q;
  logic [11:0] e;
  logic [135:0] o;
  sres = s[31:0];
  spec = s[32];
  rr = s[135:110];
  q = s[85:46];
  if (k == 0) begin
    a = s[31:0];
    b = s[63:32];
    sg = a[31] ^ b[31];
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
    e = {4'd0, (a[30:23] == 8'd0) ? 8'd1 : a[30:23]} - {5'd0, la} - {4'd0, (b[30:23] == 8'd0) ? 8'd1 : b[30:23]}
        + {5'd0, lb} + 12'd150;
    spec = 1'b1;
    if (allo_f32_isnan(a)) sres = a | 32'h00400000;
    else if (allo_f32_isnan(b)) sres = b | 32'h00400000;
    else if ((ai && bi) || (az && bz)) sres = 32'hffc00000;
    else if (ai || bz) sres = {sg, 31'h7f800000};
    else if (az || bi) sres = {sg, 31'd0};
    else begin spec = 1'b0; sres = 32'd0; end
    // (ma << 39) / mb: ma, mb in [2^23, 2^24) (or 0), so the first 24 dividend bits are the
    // starting partial remainder and each of the 40 steps brings in one more (a 0)
    o = {2'd0, ma[23:0], mb[23:0], 40'd0, e, sg, spec, sres};
  end else if (k <= 40) begin
    if (k > 1) rr = {rr[24:0], 1'b0};
    bit1 = s[109:86] != 24'd0 && rr >= {2'd0, s[109:86]};
    if (bit1) rr = rr - {2'd0, s[109:86]};
    o = {rr, s[109:86], q[38:0], bit1, s[45:0]};
  end else if (k == 41)
    o = 136'({allo_f32_norm_a(s[33], s[45:34], {23'd0, q, rr != 26'd0}), spec, sres});
  else if (k == 42)
    o = 136'({allo_f32_norm_b(s[116:33]), spec, sres});
  else if (k == 43)
    o = 136'({allo_f32_packn_a(s[72:33]), spec, sres});
  else
    o = 136'(spec ? sres : allo_f32_pack_b(s[70:33]));
  allo_f32_div_step = o;
endfunction

function automatic logic [31:0] allo_f32_div(input logic [31:0] a, input logic [31:0] b);
  logic [135:0] s;
  s = 136'({b, a});
  for (int k = 0; k < 45; k++) s = allo_f32_div_step(k, s);
  allo_f32_div = s[31:0];
endfunction
//@module
module allo_f32_div_m(input logic [31:0] a, input logic [31:0] b, output logic [31:0] y);
  //@functions
  assign y = allo_f32_div(a, b);
endmodule
module allo_f32_div_p #(parameter int LAT = 0) (input logic clk, input logic en, input logic [31:0] a, input logic [31:0] b,
                                               output logic [31:0] y, output logic [31:0] y_early);
  //@functions
  localparam int N = 45, W = 136, M = LAT < N ? LAT : N;
  logic [W * (N + 1) - 1:0] q, d, e;  // stage k reads q[W k +: W]; d: its output, e: the early values
  assign q[W - 1:0] = W'({b, a});
  genvar k;
  generate
    for (k = 0; k < N; k = k + 1) begin : st
      assign d[W * (k + 1) +: W] = allo_f32_div_step(k, q[W * k +: W]);
      // C0, C1: the registers at stage ends 0 .. k - 1 and 0 .. k: M = min(LAT, N) spread over
      // the N ends (C = round(j M / N)), at least one at the last end, LAT - M more there
      localparam int C0 = M == 0 ? 0 : ((2 * k * M + N) / (2 * N) < M - 1 ? (2 * k * M + N) / (2 * N) : M - 1);
      localparam int C1 = k == N - 1 ? LAT : M == 0 ? 0 : (2 * (k + 1) * M + N) / (2 * N) < M - 1 ?
                          (2 * (k + 1) * M + N) / (2 * N) : M - 1;
      allo_f32_dly #(.W(W), .N(C1 - C0)) r(
          clk, en, d[W * (k + 1) +: W], q[W * (k + 1) +: W], e[W * (k + 1) +: W]);
    end
  endgenerate
  assign e[W - 1:0] = '0;
  assign d[W - 1:0] = '0;
  assign y = q[W * N +: 32];
  assign y_early = e[W * N +: 32];
endmodule
