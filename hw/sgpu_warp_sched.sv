// Core v2's issue scheduler (docs/adr/0008-core-v2-pipeline.md, "Issue"): which warp's beat
// issues each cycle.
//
// A warp instruction issues as BEATS = 32 / LANES beats in consecutive cycles (the register
// file's skewed reads need them consecutive: the reads of one cycle are of three consecutive
// beats), once for each of its passes (1 to 4: one a word of its widest register tuple,
// docs/adr/0008 "Pairs"), pass after pass. In the cycle after an instruction's last beat (or in any cycle while nothing
// issues) the scheduler picks a warp among those whose head may issue (`ready_i`: the
// scoreboard's readiness, and whatever else the core requires of the head, its unit free):
// the next ready one after the last warp that issued, in round-robin order (loose round
// robin), the last one again only when no other is ready. So a ready warp waits at most for
// one instruction of each other warp, which bounds how long a warp at a barrier keeps the
// others waiting; a greedy pick (the last warp while it stays ready) would keep a warp's
// data in a cache, but the core has no data cache, and its warps share one code.
module sgpu_warp_sched #(
  parameter int unsigned WARPS = 8,
  parameter int unsigned LANES = 8,
  localparam int unsigned BEATS = 32 / LANES,
  localparam int unsigned BW    = (BEATS > 1) ? $clog2(BEATS) : 1,
  localparam int unsigned SW    = (WARPS > 1) ? $clog2(WARPS) : 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,

  input  logic [WARPS-1:0] ready_i,
  // Each warp's head's passes less one (warp w's at [2*w +: 2]).
  input  logic [2*WARPS-1:0] passes_i,

  // A beat issues (`beat_valid_o`): beat `beat_o` of pass `pass_o` of warp `warp_o`'s head;
  // `issue_o` with its first beat, the cycle the head leaves the warp's buffer; `last_o`
  // with its last.
  output logic             issue_o,
  output logic             beat_valid_o,
  output logic [SW-1:0]    warp_o,
  output logic [BW-1:0]    beat_o,
  output logic [1:0]       pass_o,
  output logic             last_o
);

  logic [SW-1:0] last_q;            // the warp that issued last
  logic [BW-1:0] beat_q, beat_d;    // the next beat of its instruction, 0 when none is left
  logic [1:0]    pass_q, pass_d;    // and its pass
  logic [1:0]    passes_q;          // its last pass

  logic          found;
  logic [SW-1:0] pick;
  sgpu_round_robin #(.N(WARPS)) u_pick (
    .req_i (ready_i),
    .last_i(last_q),
    .any_o (found),
    .pick_o(pick)
  );

  // The picked warp's last pass (a choice a warp, not a computed index).
  logic [1:0] pick_passes;
  always_comb begin
    pick_passes = '0;
    for (int unsigned w = 0; w < WARPS; w++) begin
      if (pick == SW'(w)) pick_passes = passes_i[2*w +: 2];
    end
  end

  logic continuing;  // a later beat of the last instruction
  logic [1:0] passes;
  logic end_of_pass;
  assign continuing   = beat_q != '0 || pass_q != '0;
  assign issue_o      = !continuing && found;
  assign beat_valid_o = continuing || found;
  assign warp_o       = continuing ? last_q : pick;
  assign beat_o       = beat_q;
  assign pass_o       = pass_q;
  assign passes       = continuing ? passes_q : pick_passes;
  assign end_of_pass  = 32'(beat_q) == BEATS - 1;
  assign last_o       = beat_valid_o && end_of_pass && pass_q == passes;

  always_comb begin
    beat_d = beat_q;
    pass_d = pass_q;
    if (beat_valid_o) begin
      beat_d = end_of_pass ? '0 : beat_q + BW'(1);
      if (end_of_pass) pass_d = (pass_q == passes) ? '0 : pass_q + 2'd1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      last_q   <= '0;
      beat_q   <= '0;
      pass_q   <= '0;
      passes_q <= '0;
    end else begin
      beat_q <= beat_d;
      pass_q <= pass_d;
      if (issue_o) begin
        last_q   <= pick;
        passes_q <= pick_passes;
      end
    end
  end

`ifndef SYNTHESIS
  // Only a ready warp is picked, and once picked its beats follow one a cycle.
  a_pick_ready: assert property (@(posedge clk_i) disable iff (!rst_ni)
      issue_o |-> ready_i[warp_o]);
  a_beats_follow: assert property (@(posedge clk_i) disable iff (!rst_ni)
      beat_valid_o && !last_o |=> beat_valid_o && !issue_o && warp_o == $past(warp_o));
`endif

endmodule
