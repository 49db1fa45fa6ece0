// allo pipeline register line of the pipelined float units: N >= 0 registers of W bits from d to
// q, each loading when en is 1 (the static circuit's stall: every register holds while en is 0);
// dl is the D input of the last register (d when N <= 1), the value one cycle before q.
// Format: W bits. Latency: N cycles (N = 0: q = d, a wire). Rounding: none.
// needs:
module allo_f32_dly #(parameter int W = 1, parameter int N = 0) (input logic clk, input logic en,
                                                              input logic [W - 1:0] d,
                                                              output logic [W - 1:0] q, output logic [W - 1:0] dl);
  generate
    if (N == 0) begin : none
      assign q = d;
      assign dl = d;
    end else if (N == 1) begin : one
      logic [W - 1:0] r;
      always_ff @(posedge clk) if (en) r <= d;
      assign q = r;
      assign dl = d;
    end else begin : line
      logic [W * N - 1:0] r;  // r[W k +: W]: the value k + 1 cycles old
      always_ff @(posedge clk) if (en) r <= {r[W * (N - 1) - 1:0], d};
      assign q = r[W * (N - 1) +: W];
      assign dl = r[W * (N - 2) +: W];
    end
  endgenerate
endmodule
