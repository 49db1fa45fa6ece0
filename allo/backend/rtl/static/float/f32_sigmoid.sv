// allo float32 logistic sigmoid: 1 / (1 + exp(-a)), the sequence the LLVM build uses (negf, exp,
// addf, divf) with f32_exp for exp.
// Format: IEEE-754 binary32. Latency: combinational here; the scheduler adds the operator table's
// cycles (Tables.float_op("fmath", 32), 30 at 3.33 ns) as registers. Rounding: each step to
// nearest even; within the ulp bound of docs/rtl.md of the LLVM build (whose exp is libm's);
// sigmoid(+inf) = 1, sigmoid(-inf) = +0, a NaN is returned quietened.
// needs: f32_exp f32_add f32_div
function automatic logic [31:0] allo_f32_sigmoid(input logic [31:0] a);
  allo_f32_sigmoid = allo_f32_div(32'h3f800000,
                                  allo_f32_add(32'h3f800000, allo_f32_exp({~a[31], a[30:0]}), 1'b0));
endfunction
