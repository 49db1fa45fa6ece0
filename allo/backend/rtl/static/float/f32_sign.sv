// allo float32 negate / absolute value (LLVM negf / absf): sign-bit operations, NaNs included.
// op = 0: -a (the sign flipped), op = 1: |a| (the sign cleared).
// Format: IEEE-754 binary32. Latency: 0 (wires; Tables.float_op("fabs", 32) is 0). Rounding: none.
// needs:
function automatic logic [31:0] allo_f32_sign(input logic [31:0] a, input logic op);
  allo_f32_sign = {op ? 1'b0 : ~a[31], a[30:0]};
endfunction
