// allo Fixed / UFixed -> float32 (allo's cast: the raw value to float64, times 2^-frac, rounded
// to float32): x is the raw value sign- (sgn = 1) or zero-extended (sgn = 0) to 64 bits, frac its
// fraction bits. Format: fixed point in, IEEE-754 binary32 out. Latency: combinational here; the
// scheduler adds the operator table's cycles (Tables.float_op("itofp", 32), 5 at 3.33 ns).
// Rounding: to nearest even at 53 bits (the float64 step; exact for raw values of <= 53
// significant bits), then to nearest even at 24 bits, exactly like the LLVM build.
// needs: f32_common
function automatic logic [31:0] allo_f32_from_fixed(input logic [63:0] x, input logic sgn, input logic [11:0] frac);
  logic s, inc;
  logic [6:0] lz;
  logic [63:0] mag, y;
  logic [53:0] r;
  logic [11:0] e;
  s = sgn & x[63];
  mag = s ? 64'd0 - x : x;
  lz = allo_clz64(mag);
  y = mag << lz;
  inc = y[10] & (y[11] | (y[9:0] != 10'd0));
  r = {1'b0, y[63:11]} + {53'd0, inc};
  e = 12'd190 - frac - {5'd0, lz};
  if (r[53]) begin  // the float64 rounding carried into a new leading bit
    y = {r[53:1], 11'd0};
    e = e + 12'd1;
  end else y = {r[52:0], 11'd0};
  allo_f32_from_fixed = (mag == 64'd0) ? 32'd0 : allo_f32_round64(s, e, y);
endfunction
