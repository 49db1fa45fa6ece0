// allo float32 square root: sqrt(a). Format: IEEE-754 binary32. Stages (allo_f32_sqrt_step k): 0
// special operands, normalise the significand (subnormals) and halve the exponent; 1 .. 26 one root
// bit each (digit-by-digit integer square root: a compare and subtract of the remainder), 27
// leading-zero count, 28 normalising shift, 29 denormalise (subnormal results), 30 round. Latency:
// allo_f32_sqrt (and allo_f32_sqrt_m) is combinational; allo_f32_sqrt_p #(LAT) is pipelined with
// LAT cycles and II = 1 (LAT = the scheduler's operator latency, from allo.qor
// Tables.float_op("fsqrt", 32), 16 register stages at 3.33 ns: about 2 root bits per stage; LAT <
// 31 merges stages evenly, LAT > 31 adds registers at the output; LAT = 0 is combinational).
// Rounding: to nearest even of the exact root (remainder as sticky), subnormal inputs; sqrt(-0) =
// -0, sqrt(+inf) = +inf, sqrt(x < 0) = the default NaN (0xffc00000), a NaN is returned quietened.
// needs: f32_common f32_pipe
// State of the stages (155 bits): [31:0] the special result, [32] is it special; stage input 0: a;
// 1 .. 27: [44:33] the result's exponent, [70:45] the root bits so far, [102:71] the remainder,
// [154:103] the radicand bits not yet used (two per step, from the top); 28: [116:33]
// allo_f32_norm_a's {x, lz, e, s}; 29: [72:33] the normalised {m, e, s} (allo_f32_norm_b); 30:
// [70:33] allo_f32_packn_a's {x, exponent field, zero, overflow, s}; after 30: [31:0] the result.
function automatic logic [154:0] allo_f32_sqrt_step(input int k, input logic [154:0] s);
  logic [31:0] a, sres;
  logic spec;
  logic [6:0] lz;
  logic [63:0] m, v;
  logic [31:0] rem, trial;
  logic [25:0] root;
  logic [11:0] e;
  logic [154:0] o;
  sres = s[31:0];
  spec = s[32];
  root = s[70:45];
  rem = s[102:71];
  if (k == 0) begin
    a = s[31:0];
    m = {40'd0, a[30:23] != 8'd0, a[22:0]};
    lz = allo_clz64(m) - 7'd40;
    m = m << lz;  // leading one at bit 23; the value is m * 2^(e - 127 - 23)
    e = {4'd0, (a[30:23] == 8'd0) ? 8'd1 : a[30:23]} - {5'd0, lz};
    v = e[0] ? (m << 27) : (m << 28);  // an even unbiased exponent: m / 2^23 in [1, 4)
    e = 12'($signed(e + 12'd127) >>> 1);
    spec = 1'b1;
    if (allo_f32_isnan(a)) sres = a | 32'h00400000;
    else if (a[30:0] == 31'd0) sres = a;
    else if (a[31]) sres = 32'hffc00000;
    else if (a[30:23] == 8'hff) sres = a;
    else begin spec = 1'b0; sres = 32'd0; end
    o = {v[51:0], 32'd0, 26'd0, e, spec, sres};
  end else if (k <= 26) begin
    rem = {rem[29:0], s[154:153]};
    trial = {4'd0, root, 2'b01};
    if (rem >= trial) begin
      rem = rem - trial;
      root = {root[24:0], 1'b1};
    end else root = {root[24:0], 1'b0};
    o = {s[152:103], 2'd0, rem, root, s[44:0]};
  end else if (k == 27)
    o = 155'({allo_f32_norm_a(1'b0, s[44:33], {root, rem != 32'd0, 37'd0}), spec, sres});
  else if (k == 28)
    o = 155'({allo_f32_norm_b(s[116:33]), spec, sres});
  else if (k == 29)
    o = 155'({allo_f32_packn_a(s[72:33]), spec, sres});
  else
    o = 155'(spec ? sres : allo_f32_pack_b(s[70:33]));
  allo_f32_sqrt_step = o;
endfunction

function automatic logic [31:0] allo_f32_sqrt(input logic [31:0] a);
  logic [154:0] s;
  s = 155'(a);
  for (int k = 0; k < 31; k++) s = allo_f32_sqrt_step(k, s);
  allo_f32_sqrt = s[31:0];
endfunction
//@module
module allo_f32_sqrt_m(input logic [31:0] a, output logic [31:0] y);
  //@functions
  assign y = allo_f32_sqrt(a);
endmodule
module allo_f32_sqrt_p #(parameter int LAT = 0) (input logic clk, input logic en, input logic [31:0] a,
                                               output logic [31:0] y, output logic [31:0] y_early);
  //@functions
  localparam int N = 31, W = 155, M = LAT < N ? LAT : N;
  logic [W * (N + 1) - 1:0] q, d, e;  // stage k reads q[W k +: W]; d: its output, e: the early values
  assign q[W - 1:0] = W'(a);
  genvar k;
  generate
    for (k = 0; k < N; k = k + 1) begin : st
      assign d[W * (k + 1) +: W] = allo_f32_sqrt_step(k, q[W * k +: W]);
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
