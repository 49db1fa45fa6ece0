// allo float32 compare: the LLVM fcmp predicate p (bit 0: equal, bit 1: greater, bit 2: less,
// bit 3: unordered; oeq = 1, ogt = 2, oge = 3, olt = 4, ole = 5, one = 6, ord = 7, uno = 8,
// ueq = 9, ugt = 10, uge = 11, ult = 12, ule = 13, une = 14) of a and b -> 1 bit.
// Format: IEEE-754 binary32. Latency: combinational here; the scheduler adds the operator
// table's cycles (Tables.float_op("fcmp", 32), 1 at 3.33 ns). Rounding: none. -0 == +0; any NaN
// is unordered with everything, itself included.
// needs: f32_common
function automatic logic allo_f32_cmp(input logic [31:0] a, input logic [31:0] b, input logic [3:0] p);
  logic un, eq, lt;
  un = allo_f32_isnan(a) || allo_f32_isnan(b);
  eq = (a == b) || ((a[30:0] | b[30:0]) == 31'd0);
  if (a[31] != b[31]) lt = a[31];
  else if (!a[31]) lt = a[30:0] < b[30:0];
  else lt = a[30:0] > b[30:0];
  if (un) allo_f32_cmp = p[3];
  else if (eq) allo_f32_cmp = p[0];
  else if (lt) allo_f32_cmp = p[2];
  else allo_f32_cmp = p[1];
endfunction
