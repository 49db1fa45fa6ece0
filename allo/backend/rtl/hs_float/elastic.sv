// allo float unit on the handshake route: the extern module `@NAME@` that CIRCT 1.62's
// lower-handshake-to-hw instantiates for a `handshake.instance` of the external function of the
// same name (allo/backend/rtl/hs_float/). Ports (CIRCT's naming): the data operands in0.. with
// valid/ready, the control token (in@CTRL@_valid/_ready, no data), clock, reset; the result out0
// and the done token out1 (valid/ready, no data).
// Join: the unit fires when every operand and the control token are valid and its output slot
// is free (or being emptied this cycle). The result is computed by the combinational float32
// function units (allo/backend/rtl/static/float/) and held in one output register until both
// outputs have been taken (each output is handed over once, like CIRCT's eager fork).
// Latency: 1 cycle (input to registered output). Throughput: one operation per cycle.
module @NAME@(
@PORTS@
  input  logic clock,
  input  logic reset,
  input  logic out0_ready,
  input  logic out1_ready,
  output logic [@WO@:0] out0,
  output logic out0_valid,
  output logic out1_valid
);
@FUNCTIONS@
  logic [@WO@:0] y;
  logic full, sent0, sent1;
  logic [@WO@:0] r;
  wire all_valid = @ALL_VALID@;
  wire drain = full & (sent0 | out0_ready) & (sent1 | out1_ready);
  wire take = all_valid & (~full | drain);
@READY@
@BODY@
  assign out0 = r;
  assign out0_valid = full & ~sent0;
  assign out1_valid = full & ~sent1;
  always_ff @(posedge clock) begin
    if (reset) begin
      full <= 1'b0;
      sent0 <= 1'b0;
      sent1 <= 1'b0;
    end else if (take) begin
      r <= y;
      full <= 1'b1;
      sent0 <= 1'b0;
      sent1 <= 1'b0;
    end else if (drain) begin
      full <= 1'b0;
    end else begin
      sent0 <= sent0 | (full & out0_ready);
      sent1 <= sent1 | (full & out1_ready);
    end
  end
endmodule
