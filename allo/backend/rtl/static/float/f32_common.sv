// allo float32 common helpers: leading-zero count and round-and-pack.
// Format: IEEE-754 binary32. Latency: combinational (the pipelined units call them inside
// their stages). Rounding: to nearest, ties to even; results below the
// normal range are rounded once, as subnormals (gradual underflow); overflow gives infinity.
// needs:

// Number of leading zeros of x (64 when x == 0).
function automatic logic [6:0] allo_clz64(input logic [63:0] x);
  logic [6:0] n;
  n = 7'd64;
  for (int k = 0; k < 64; k++)
    if (x[k]) n = 7'(63 - k);
  allo_clz64 = n;
endfunction

// Sign s, biased exponent e (signed) of m[26], significand m: m[26] the leading one, m[25:3] the
// fraction, m[2] the guard bit, m[1:0] round and sticky -> float32 rounded to nearest even, in two
// steps (separate stages of the pipelined units): allo_f32_pack_a denormalises a subnormal
// result ({x, its exponent field, m == 0, overflow, s}), allo_f32_pack_b rounds and packs.
function automatic logic [37:0] allo_f32_pack_a(input logic s, input logic [11:0] e, input logic [26:0] m);
  logic [26:0] x;
  logic [11:0] sh;
  logic [7:0] ef;
  x = m;
  ef = e[7:0];
  sh = 12'd0;
  if ($signed(e) <= 12'sd0) begin  // subnormal: denormalise first, so the value is rounded once
    sh = 12'd1 - e;
    if (sh > 12'd26) x = {26'd0, |m};
    else x = (m >> sh) | {26'd0, |(m & ~(27'h7ffffff << sh))};
    ef = 8'd0;
  end
  allo_f32_pack_a = {x, ef, m == 27'd0, $signed(e) >= 12'sd255, s};
endfunction

function automatic logic [31:0] allo_f32_pack_b(input logic [37:0] p);
  logic [26:0] x;
  logic [30:0] r;
  logic inc;
  x = p[37:11];
  inc = x[2] & (x[1] | x[0] | x[3]);
  r = {p[10:3], x[25:3]} + {30'd0, inc};  // a carry out of the fraction moves into the exponent
  if (p[2]) allo_f32_pack_b = {p[0], 31'd0};
  else if (p[1]) allo_f32_pack_b = {p[0], 8'hff, 23'd0};
  else allo_f32_pack_b = {p[0], r};
endfunction

function automatic logic [31:0] allo_f32_pack(input logic s, input logic [11:0] e, input logic [26:0] m);
  allo_f32_pack = allo_f32_pack_b(allo_f32_pack_a(s, e, m));
endfunction

// Sign s and magnitude x whose bit 63 weighs 2^(e - 127) -> float32 (RNE; +-0 when x == 0), in
// three steps that the pipelined units put in separate stages: the leading-zero count
// (allo_f32_norm_a: {x, lz, e, s}), the normalising shift (allo_f32_norm_b: {m, e, s} with m the
// 27-bit significand of allo_f32_pack) and the rounding (allo_f32_packn_a, allo_f32_pack_b).
function automatic logic [83:0] allo_f32_norm_a(input logic s, input logic [11:0] e, input logic [63:0] x);
  allo_f32_norm_a = {x, allo_clz64(x), e, s};
endfunction

function automatic logic [39:0] allo_f32_norm_b(input logic [83:0] n);
  logic [63:0] y;
  y = n[83:20] << n[19:13];  // x == 0: m = 0, which allo_f32_pack returns as +-0
  allo_f32_norm_b = {y[63:38], |y[37:0], 12'(n[12:1] - {5'd0, n[19:13]}), n[0]};
endfunction

function automatic logic [39:0] allo_f32_norm(input logic s, input logic [11:0] e, input logic [63:0] x);
  allo_f32_norm = allo_f32_norm_b(allo_f32_norm_a(s, e, x));
endfunction

function automatic logic [37:0] allo_f32_packn_a(input logic [39:0] n);
  allo_f32_packn_a = allo_f32_pack_a(n[0], n[12:1], n[39:13]);
endfunction

function automatic logic [31:0] allo_f32_packn(input logic [39:0] n);
  allo_f32_packn = allo_f32_pack_b(allo_f32_packn_a(n));
endfunction

function automatic logic [31:0] allo_f32_round64(input logic s, input logic [11:0] e, input logic [63:0] x);
  allo_f32_round64 = allo_f32_packn(allo_f32_norm(s, e, x));
endfunction

// Is x a NaN?
function automatic logic allo_f32_isnan(input logic [31:0] x);
  allo_f32_isnan = (x[30:23] == 8'hff) && (x[22:0] != 23'd0);
endfunction
