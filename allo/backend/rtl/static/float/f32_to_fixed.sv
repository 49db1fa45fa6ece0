// allo float32 -> integer / Fixed / UFixed (allo's casts, docs/language.md section 4): the value
// times 2^frac, truncated toward zero (flr = 0: float -> int, as C) or floored (flr = 1: float ->
// fixed), wrapped to 64 bits (two's complement; the caller keeps the low bits of the target
// width, so every width wraps); NaN and +-inf give 0.
// Format: IEEE-754 binary32 in, 64-bit raw integer out. Latency: combinational here; the
// scheduler adds the operator table's cycles (Tables.float_op("fptoi", 32), 3 at 3.33 ns).
// Rounding: toward zero / toward -inf, exact (no overflow saturation: values wrap).
// needs:
function automatic logic [63:0] allo_f32_to_fixed(input logic [31:0] a, input logic [11:0] frac, input logic flr);
  logic [63:0] m, mag;
  logic [11:0] sh, nsh;
  logic fr;
  m = {40'd0, a[30:23] != 8'd0, a[22:0]};
  sh = {4'd0, (a[30:23] == 8'd0) ? 8'd1 : a[30:23]} - 12'd150 + frac;  // the value is m * 2^sh
  nsh = 12'd0 - sh;
  mag = 64'd0;
  fr = 1'b0;
  if (!sh[11]) mag = (sh >= 12'd64) ? 64'd0 : (m << sh);
  else if (nsh >= 12'd25) fr = m != 64'd0;
  else begin
    mag = m >> nsh;
    fr = (m & ~(64'hffffffffffffffff << nsh)) != 64'd0;
  end
  if (a[30:23] == 8'hff) allo_f32_to_fixed = 64'd0;
  else if (a[31]) allo_f32_to_fixed = 64'd0 - (mag + {63'd0, flr & fr});
  else allo_f32_to_fixed = mag;
endfunction
