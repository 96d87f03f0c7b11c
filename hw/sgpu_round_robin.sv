// A round-robin choice among N requesters: the lowest requester above `last_i` (the one
// chosen last), else the lowest requester, `last_i` itself included. So a requester that
// keeps asking waits for at most one choice of each other. Combinational; the caller keeps
// `last_i`. Core v2's issue scheduler and instruction cache use it.
module sgpu_round_robin #(
  parameter int unsigned N = 8,
  localparam int unsigned W = (N > 1) ? $clog2(N) : 1
) (
  input  logic [N-1:0] req_i,
  input  logic [W-1:0] last_i,
  output logic         any_o,
  output logic [W-1:0] pick_o
);

  always_comb begin
    any_o  = 1'b0;
    pick_o = '0;
    for (int unsigned k = N; k > 0; k--) begin
      if (req_i[k-1]) begin
        any_o  = 1'b1;
        pick_o = W'(k - 1);
      end
    end
    for (int unsigned k = N; k > 0; k--) begin
      if (req_i[k-1] && W'(k - 1) > last_i) pick_o = W'(k - 1);
    end
  end

endmodule
