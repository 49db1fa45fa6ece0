// allo float32 multiply: a * b. Format: IEEE-754 binary32. Stages (allo_f32_mul_step k): 0 the
// exact 24 x 24-bit product, the exponent sum and special operands, 1 leading-zero count, 2
// normalising shift, 3 denormalise (subnormal results), 4 round. Latency: allo_f32_mul (and
// allo_f32_mul_m) is combinational; allo_f32_mul_p #(LAT) is pipelined with LAT cycles and II = 1
// (LAT = the scheduler's operator latency, from allo.qor Tables.float_op("fmul", 32), 4 register
// stages at 3.33 ns; LAT < 5 merges stages, LAT > 5 adds registers at the output; LAT = 0 is
// combinational). Rounding: to nearest even (one rounding of the exact 48-bit product), subnormal
// inputs and results, the sign of zero and infinity is the XOR of the signs, inf * 0 = the default
// NaN (0xffc00000), a NaN operand is returned quietened.
// needs: f32_common f32_pipe
// State of the stages (117 bits): [31:0] the special result, [32] is it special; stage input 0: {b,
// a}; 1: [33] sign, [45:34] exponent, [93:46] the product; 2: [116:33] allo_f32_norm_a's {x, lz, e,
// s}; 3: [72:33] the normalised {m, e, s} (allo_f32_norm_b); 4: [70:33] allo_f32_packn_a's {x,
// exponent field, zero, overflow, s}; after 4: [31:0] the result.
function automatic logic [116:0] allo_f32_mul_step(input int k, input logic [116:0] s);
  logic [31:0] a, b, sres;
  logic sg, spec, az, bz, ai, bi;
  logic [47:0] p;
  logic [11:0] e;
  logic [116:0] o;
  sres = s[31:0];
  spec = s[32];
  if (k == 0) begin
    a = s[31:0];
    b = s[63:32];
    sg = a[31] ^ b[31];
    az = a[30:0] == 31'd0;
    bz = b[30:0] == 31'd0;
    ai = a[30:0] == 31'h7f800000;
    bi = b[30:0] == 31'h7f800000;
    p = {24'd0, a[30:23] != 8'd0, a[22:0]} * {24'd0, b[30:23] != 8'd0, b[22:0]};
    e = {4'd0, (a[30:23] == 8'd0) ? 8'd1 : a[30:23]} + {4'd0, (b[30:23] == 8'd0) ? 8'd1 : b[30:23]} - 12'd126;
    spec = 1'b1;
    if (allo_f32_isnan(a)) sres = a | 32'h00400000;
    else if (allo_f32_isnan(b)) sres = b | 32'h00400000;
    else if (ai || bi) sres = (az || bz) ? 32'hffc00000 : {sg, 31'h7f800000};
    else if (az || bz) sres = {sg, 31'd0};
    else begin spec = 1'b0; sres = 32'd0; end
    o = {p, e, sg, spec, sres};
  end else if (k == 1)
    o = 117'({allo_f32_norm_a(s[33], s[45:34], {s[93:46], 16'd0}), spec, sres});
  else if (k == 2)
    o = 117'({allo_f32_norm_b(s[116:33]), spec, sres});
  else if (k == 3)
    o = 117'({allo_f32_packn_a(s[72:33]), spec, sres});
  else
    o = 117'(spec ? sres : allo_f32_pack_b(s[70:33]));
  allo_f32_mul_step = o;
endfunction

function automatic logic [31:0] allo_f32_mul(input logic [31:0] a, input logic [31:0] b);
  logic [116:0] s;
  s = 117'({b, a});
  for (int k = 0; k < 5; k++) s = allo_f32_mul_step(k, s);
  allo_f32_mul = s[31:0];
endfunction
//@module
module allo_f32_mul_m(input logic [31:0] a, input logic [31:0] b, output logic [31:0] y);
  //@functions
  assign y = allo_f32_mul(a, b);
endmodule
module allo_f32_mul_p #(parameter int LAT = 0) (input logic clk, input logic en, input logic [31:0] a,
                                               input logic [31:0] b, output logic [31:0] y,
                                               output logic [31:0] y_early);
  //@functions
  localparam int N = 5, W = 117, M = LAT < N ? LAT : N;
  logic [W * (N + 1) - 1:0] q, d, e;  // stage k reads q[W k +: W]; d: its output, e: the early values
  assign q[W - 1:0] = W'({b, a});
  genvar k;
  generate
    for (k = 0; k < N; k = k + 1) begin : st
      assign d[W * (k + 1) +: W] = allo_f32_mul_step(k, q[W * k +: W]);
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
