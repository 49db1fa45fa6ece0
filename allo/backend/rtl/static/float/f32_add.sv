// allo float32 add / subtract: a + b, or a - b when sub = 1. Format: IEEE-754 binary32 in, binary32
// out. Stages (allo_f32_add_step k): 0 swap (the larger magnitude first) and special operands, 1
// align (shift the smaller significand, sticky bit), 2 add / subtract the 64-bit significands, 3
// leading-zero count, 4 normalising shift, 5 denormalise (subnormal results), 6 round. Latency:
// allo_f32_add (and allo_f32_add_m) is combinational; allo_f32_add_p #(LAT) is pipelined with LAT
// cycles and II = 1 (LAT = the scheduler's operator latency, from allo.qor Tables.float_op("fadd",
// 32), 7 register stages at 3.33 ns; LAT < 7 merges stages, LAT > 7 adds registers at the output;
// LAT = 0 is combinational). Rounding: to nearest even, subnormal inputs and results, x - x = +0,
// (-0) + (-0) = -0, inf - inf = the default NaN (0xffc00000, as x86), a NaN operand is returned
// quietened.
// needs: f32_common f32_pipe
// State of the stages (131 bits): [31:0] the special result, [32] is it special; then per stage
// input k: 0: {sub, b, a}; 1: [64:33] x, [96:65] y; 2, 3: [33] sign, [34] subtract, [42:35]
// exponent, 2: [66:43] x's significand, [130:67] y's aligned; 3: [106:43] the sum; 4: [116:33]
// allo_f32_norm_a's {x, lz, e, s}; 5: [72:33] the normalised {m, e, s} (allo_f32_norm_b); 6:
// [70:33] allo_f32_packn_a's {x, exponent field, zero, overflow, s}; after 6: [31:0] the result.
function automatic logic [130:0] allo_f32_add_step(input int k, input logic [130:0] s);
  logic [31:0] a, b0, b, x, y, sres;
  logic spec, op;
  logic [7:0] ex, ey, d;
  logic [63:0] fx, fy, fy2, sum;
  logic [130:0] o;
  o = '0;
  sres = s[31:0];
  spec = s[32];
  if (k == 0) begin
    a = s[31:0];
    b0 = s[63:32];
    b = {b0[31] ^ s[64], b0[30:0]};
    if (a[30:0] >= b[30:0]) begin x = a; y = b; end
    else begin x = b; y = a; end
    spec = 1'b1;
    if (allo_f32_isnan(a)) sres = a | 32'h00400000;
    else if (allo_f32_isnan(b0)) sres = b0 | 32'h00400000;
    else if (a[30:0] == 31'h7f800000) sres = (b[30:0] == 31'h7f800000 && a[31] != b[31]) ? 32'hffc00000 : a;
    else if (b[30:0] == 31'h7f800000) sres = b;
    else begin spec = 1'b0; sres = 32'd0; end
    o = 131'({y, x, spec, sres});
  end else if (k == 1) begin
    x = s[64:33];
    y = s[96:65];
    ex = (x[30:23] == 8'd0) ? 8'd1 : x[30:23];
    ey = (y[30:23] == 8'd0) ? 8'd1 : y[30:23];
    fy = {1'b0, y[30:23] != 8'd0, y[22:0], 39'd0};
    d = ex - ey;
    if (d >= 8'd64) fy2 = {63'd0, |fy};
    else fy2 = (fy >> d) | {63'd0, |(fy & ~(64'hffffffffffffffff << d))};
    o = {fy2, x[30:23] != 8'd0, x[22:0], ex, x[31] != y[31], x[31], spec, sres};
  end else if (k == 2) begin
    fx = {1'b0, s[66:43], 39'd0};
    sum = s[34] ? fx - s[130:67] : fx + s[130:67];
    o = 131'({sum, s[42:0]});
  end else if (k == 3) begin
    sum = s[106:43];
    if (!spec && sum == 64'd0) begin spec = 1'b1; sres = s[34] ? 32'd0 : {s[33], 31'd0}; end
    o = 131'({allo_f32_norm_a(s[33], {4'd0, s[42:35]} + 12'd1, sum), spec, sres});
  end else if (k == 4)
    o = 131'({allo_f32_norm_b(s[116:33]), spec, sres});
  else if (k == 5)
    o = 131'({allo_f32_packn_a(s[72:33]), spec, sres});
  else
    o = 131'(spec ? sres : allo_f32_pack_b(s[70:33]));
  allo_f32_add_step = o;
endfunction

function automatic logic [31:0] allo_f32_add(input logic [31:0] a, input logic [31:0] b0, input logic sub);
  logic [130:0] s;
  s = 131'({sub, b0, a});
  for (int k = 0; k < 7; k++) s = allo_f32_add_step(k, s);
  allo_f32_add = s[31:0];
endfunction
//@module
module allo_f32_add_m(input logic [31:0] a, input logic [31:0] b, input logic sub, output logic [31:0] y);
  //@functions
  assign y = allo_f32_add(a, b, sub);
endmodule
module allo_f32_add_p #(parameter int LAT = 0) (input logic clk, input logic en, input logic [31:0] a,
                                               input logic [31:0] b, input logic sub,
                                               output logic [31:0] y, output logic [31:0] y_early);
  //@functions
  localparam int N = 7, W = 131, M = LAT < N ? LAT : N;
  logic [W * (N + 1) - 1:0] q, d, e;  // stage k reads q[W k +: W]; d: its output, e: the early values
  assign q[W - 1:0] = W'({sub, b, a});
  genvar k;
  generate
    for (k = 0; k < N; k = k + 1) begin : st
      assign d[W * (k + 1) +: W] = allo_f32_add_step(k, q[W * k +: W]);
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
