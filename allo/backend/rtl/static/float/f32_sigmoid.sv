// allo float32 logistic sigmoid: 1 / (1 + exp(-a)), the sequence the LLVM build uses (negf, exp,
// addf, divf) with f32_exp for exp.
// Format: IEEE-754 binary32. Latency: combinational here (a module of f32_exp, f32_add,
// f32_div); the scheduler adds the operator table's cycles (Tables.float_op("fmath", 32), 30 at
// 3.33 ns) as registers. Rounding: each step to nearest even; within the ulp bound of
// docs/rtl.md of the LLVM build (whose exp is libm's); sigmoid(+inf) = 1, sigmoid(-inf) = +0, a
// NaN is returned quietened.
// needs: f32_exp f32_add f32_div
module allo_f32_sigmoid_m(input logic [31:0] a, output logic [31:0] y);
  logic [31:0] e, d;
  allo_f32_exp_m s0({~a[31], a[30:0]}, e);
  allo_f32_add_m s1(32'h3f800000, e, 1'b0, d);
  allo_f32_div_m s2(32'h3f800000, d, y);
endmodule
