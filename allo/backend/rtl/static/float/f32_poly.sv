// allo float32 polynomial by Horner's rule, the step the math units' polynomials share:
// y = (...((c[N] x + c[N-1]) x + c[N-2]) ...) x + c[0], each step a float32 multiply, then an
// add (f32_mul then f32_add, two roundings), N >= 1 steps; the N + 1 coefficients in c, c[k] at
// bits 32 k .. 32 k + 31.
// Format: IEEE-754 binary32. Latency: combinational (inside a math unit; the scheduler adds the
// math unit's cycles). Rounding: each step to nearest even.
// needs: f32_add f32_mul
module allo_f32_poly_m #(parameter int N = 1) (input logic [31:0] x, input logic [32 * N + 31:0] c,
                                              output logic [31:0] y);
  logic [32 * N + 31:0] p;  // p[32 k +: 32]: the value after the step that adds c[k]
  logic [32 * N - 1:0] m;
  genvar k;
  assign p[32 * N +: 32] = c[32 * N +: 32];
  generate
    for (k = 0; k < N; k = k + 1) begin : step
      allo_f32_mul_m mu(p[32 * (k + 1) +: 32], x, m[32 * k +: 32]);
      allo_f32_add_m ad(m[32 * k +: 32], c[32 * k +: 32], 1'b0, p[32 * k +: 32]);
    end
  endgenerate
  assign y = p[31:0];
endmodule
