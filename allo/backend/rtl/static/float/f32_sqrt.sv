// allo float32 square root: sqrt(a).
// Format: IEEE-754 binary32. Latency: combinational here (a 26-step digit-by-digit integer square
// root); the scheduler adds the operator table's cycles (Tables.float_op("fsqrt", 32), 15 at
// 3.33 ns) as registers. Rounding: to nearest even of the exact root (remainder as sticky),
// subnormal inputs; sqrt(-0) = -0, sqrt(+inf) = +inf, sqrt(x < 0) = the default NaN (0xffc00000),
// a NaN is returned quietened.
// needs: f32_common
function automatic logic [31:0] allo_f32_sqrt(input logic [31:0] a);
  logic [6:0] lz;
  logic [63:0] m, v, rem, root, trial;
  logic [11:0] e;
  logic [31:0] res;
  m = {40'd0, a[30:23] != 8'd0, a[22:0]};
  lz = allo_clz64(m) - 7'd40;
  m = m << lz;  // leading one at bit 23; the value is m * 2^(e - 127 - 23)
  e = {4'd0, (a[30:23] == 8'd0) ? 8'd1 : a[30:23]} - {5'd0, lz};
  v = e[0] ? (m << 27) : (m << 28);  // an even unbiased exponent: m / 2^23 in [1, 4)
  rem = 64'd0;
  root = 64'd0;
  for (int k = 0; k < 26; k++) begin
    rem = (rem << 2) | ((v >> (2 * (25 - k))) & 64'd3);
    trial = (root << 2) | 64'd1;
    if (rem >= trial) begin
      rem = rem - trial;
      root = (root << 1) | 64'd1;
    end else root = root << 1;
  end
  e = 12'($signed(e + 12'd127) >>> 1);
  if (allo_f32_isnan(a)) res = a | 32'h00400000;
  else if (a[30:0] == 31'd0) res = a;
  else if (a[31]) res = 32'hffc00000;
  else if (a[30:23] == 8'hff) res = a;
  else res = allo_f32_round64(1'b0, e, {root[25:0], rem != 64'd0, 37'd0});
  allo_f32_sqrt = res;
endfunction
