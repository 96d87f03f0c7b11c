// A delay line of DEPTH stages for a word that travels beside a pipeline: what goes in with
// valid_i comes out DEPTH cycles later with valid_o. A stage loads only when the stage
// before it holds something, so an idle pipeline's words do not toggle (nor does Verilator
// evaluate them); every stage is reset to zero, which costs nothing in an ECP5 flip-flop.
module sgpu_pipe #(
  parameter int unsigned W     = 1,
  parameter int unsigned DEPTH = 1
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic         valid_i,
  input  logic [W-1:0] data_i,
  output logic         valid_o,
  output logic [W-1:0] data_o
);

  // Stage k's valid bit and word; stage 0 is the input.
  logic [DEPTH:0]     valid;
  logic [(DEPTH+1)*W-1:0] data;
  assign valid[0]      = valid_i;
  assign data[0 +: W]  = data_i;
  assign valid_o       = valid[DEPTH];
  assign data_o        = data[DEPTH*W +: W];

  for (genvar k = 1; k <= DEPTH; k++) begin : g_stage
    logic         valid_q;
    logic [W-1:0] data_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        valid_q <= 1'b0;
        data_q  <= '0;
      end else begin
        valid_q <= valid[k-1];
        if (valid[k-1]) data_q <= data[(k-1)*W +: W];
      end
    end
    assign valid[k]         = valid_q;
    assign data[k*W +: W]   = data_q;
  end

endmodule
