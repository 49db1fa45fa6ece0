// allo float32 add / subtract: a + b, or a - b when sub = 1.
// Format: IEEE-754 binary32 in, binary32 out. Latency: combinational here; the scheduler adds the
// operator table's cycles (allo.qor Tables.float_op("fadd", 32), 6 at 3.33 ns) as registers.
// Rounding: to nearest even, subnormal inputs and results, x - x = +0, (-0) + (-0) = -0,
// inf - inf = the default NaN (0xffc00000, as x86), a NaN operand is returned quietened.
// needs: f32_common
function automatic logic [31:0] allo_f32_add(input logic [31:0] a, input logic [31:0] b0, input logic sub);
  logic [31:0] b, x, y, res;
  logic [7:0] ex, ey, d;
  logic [63:0] fx, fy, fy2, sum;
  b = {b0[31] ^ sub, b0[30:0]};
  if (a[30:0] >= b[30:0]) begin x = a; y = b; end
  else begin x = b; y = a; end
  ex = (x[30:23] == 8'd0) ? 8'd1 : x[30:23];
  ey = (y[30:23] == 8'd0) ? 8'd1 : y[30:23];
  fx = {1'b0, x[30:23] != 8'd0, x[22:0], 39'd0};
  fy = {1'b0, y[30:23] != 8'd0, y[22:0], 39'd0};
  d = ex - ey;
  if (d >= 8'd64) fy2 = {63'd0, |fy};
  else fy2 = (fy >> d) | {63'd0, |(fy & ~(64'hffffffffffffffff << d))};
  sum = (x[31] == y[31]) ? fx + fy2 : fx - fy2;
  if (allo_f32_isnan(a)) res = a | 32'h00400000;
  else if (allo_f32_isnan(b0)) res = b0 | 32'h00400000;
  else if (a[30:0] == 31'h7f800000) res = (b[30:0] == 31'h7f800000 && a[31] != b[31]) ? 32'hffc00000 : a;
  else if (b[30:0] == 31'h7f800000) res = b;
  else if (sum == 64'd0) res = (x[31] == y[31]) ? {x[31], 31'd0} : 32'd0;
  else res = allo_f32_round64(x[31], {4'd0, ex} + 12'd1, sum);
  allo_f32_add = res;
endfunction
