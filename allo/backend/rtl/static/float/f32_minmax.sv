// allo float32 minimum / maximum (LLVM minimumf / maximumf, allo's min and max on floats):
// mx = 0 gives min(a, b), mx = 1 gives max(a, b).
// Format: IEEE-754 binary32. Latency: combinational here; the scheduler adds the operator
// table's cycles (Tables.float_op("fcmp", 32), 1 at 3.33 ns). Rounding: none. A NaN operand
// gives a (quiet) NaN; -0 is less than +0.
// needs: f32_common
function automatic logic [31:0] allo_f32_minmax(input logic [31:0] a, input logic [31:0] b, input logic mx);
  logic lt;
  if (a[31] != b[31]) lt = a[31];
  else if (!a[31]) lt = a[30:0] < b[30:0];
  else lt = a[30:0] > b[30:0];
  if (allo_f32_isnan(a)) allo_f32_minmax = a | 32'h00400000;
  else if (allo_f32_isnan(b)) allo_f32_minmax = b | 32'h00400000;
  else allo_f32_minmax = (lt ^ mx) ? a : b;
endfunction
