// allo float32 floor / ceil (LLVM math.floor / math.ceil, libm floorf / ceilf): up = 0 gives
// floor(a), up = 1 gives ceil(a).
// Format: IEEE-754 binary32. Latency: combinational here; the scheduler adds the operator table's
// cycles (Tables.float_op("fround", 32), 1 at 3.33 ns). Rounding: exact (the fraction bits are
// cleared, one unit added on the magnitude when the value moves away from zero). Signed zeros
// kept (floor(-0.5) = -1, ceil(-0.5) = -0), integers, infinities unchanged, a NaN is returned
// quietened.
// needs:
function automatic logic [31:0] allo_f32_round(input logic [31:0] a, input logic up);
  logic [30:0] mag, mask;
  logic [7:0] e;
  logic away;
  e = a[30:23];
  away = up ? ~a[31] : a[31];  // rounding direction moves the magnitude up
  mask = 31'h7fffffff;
  if (e >= 8'd150) allo_f32_round = (e == 8'hff && a[22:0] != 23'd0) ? a | 32'h00400000 : a;
  else if (e < 8'd127) begin  // |a| < 1
    if (a[30:0] == 31'd0 || !away) allo_f32_round = {a[31], 31'd0};
    else allo_f32_round = {a[31], 31'h3f800000};
  end else begin
    mask = 31'h7fffffff << (8'd150 - e);  // keeps the integer bits
    mag = a[30:0] & mask;
    if (away && (a[30:0] & ~mask) != 31'd0) mag = mag + (31'd1 << (8'd150 - e));
    allo_f32_round = {a[31], mag};
  end
endfunction
