// Core v2's load/store unit, where its two halves' write-backs meet (docs/adr/0008,
// "Memory"): a beat's lanes in shared memory come back through sgpu_lsu_shared, the others
// through sgpu_lsu_port, each half's beats in instruction order and each instruction's end
// marked once by each half. The unit's write-back takes both halves' beats, one a cycle
// (in turn when both wait), and marks an instruction's end once, on the second half's end:
// a count says how many instructions one half has ended ahead of the other, so neither
// waits for the other except at the end itself, and a half may run that many instructions
// ahead (its own queue bounds how many). A beat that writes nothing, carries no error and
// ends nothing is dropped.
module sgpu_lsu_join #(
  parameter int unsigned LANES = 8,
  parameter int unsigned WARPS = 8,
  parameter int unsigned TW = 1,
  parameter int unsigned LEAD = 64,  // more than either half can run ahead: its queues' beats
  localparam int unsigned BEATS = 32 / LANES,
  localparam int unsigned BW    = (BEATS > 1) ? $clog2(BEATS) : 1,
  localparam int unsigned SW    = (WARPS > 1) ? $clog2(WARPS) : 1,
  localparam int unsigned CW    = $clog2(LEAD + 1)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,

  // Each half's write-back (p: the memory port's, s: shared memory's), held until taken.
  input  logic                 p_valid_i,
  output logic                 p_ready_o,
  input  logic [SW-1:0]        p_slot_i,
  input  logic [BW-1:0]        p_beat_i,
  input  logic [1:0]           p_word_i,
  input  logic [TW-1:0]        p_tag_i,
  input  logic [LANES-1:0]     p_lanes_i,
  input  logic [32*LANES-1:0]  p_data_i,
  input  logic                 p_last_i,
  input  logic                 p_err_i,
  input  logic [4:0]           p_err_lane_i,
  input  logic                 s_valid_i,
  output logic                 s_ready_o,
  input  logic [SW-1:0]        s_slot_i,
  input  logic [BW-1:0]        s_beat_i,
  input  logic [1:0]           s_word_i,
  input  logic [TW-1:0]        s_tag_i,
  input  logic [LANES-1:0]     s_lanes_i,
  input  logic [32*LANES-1:0]  s_data_i,
  input  logic                 s_last_i,

  output logic                 wb_valid_o,
  input  logic                 wb_ready_i,
  output logic [SW-1:0]        wb_slot_o,
  output logic [BW-1:0]        wb_beat_o,
  output logic [1:0]           wb_word_o,
  output logic [TW-1:0]        wb_tag_o,
  output logic [LANES-1:0]     wb_lanes_o,
  output logic [32*LANES-1:0]  wb_data_o,
  output logic                 wb_last_o,     // the instruction's end
  output logic                 wb_err_o,
  output logic [4:0]           wb_err_lane_o
);

  logic [CW-1:0] p_ahead_q, s_ahead_q;  // ends of one half the other has not yet made
  logic          turn_q;                // 1: the shared half's beat goes first
  logic          can, take_p, take_s, last_in, ends, keep;
  assign can    = !wb_valid_o || wb_ready_i;
  assign take_p = can && p_valid_i && (!s_valid_i || !turn_q);
  assign take_s = can && s_valid_i && !take_p;
  assign p_ready_o = take_p;
  assign s_ready_o = take_s;
  assign last_in = (take_p && p_last_i) || (take_s && s_last_i);
  // The instruction ends with this half's end if the other half's came before.
  assign ends = last_in && (take_p ? s_ahead_q != '0 : p_ahead_q != '0);
  assign keep = (take_p && (p_lanes_i != '0 || p_err_i)) || (take_s && s_lanes_i != '0) || ends;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wb_valid_o <= 1'b0;
      turn_q     <= 1'b0;
      {p_ahead_q, s_ahead_q} <= '0;
    end else begin
      if (wb_ready_i) wb_valid_o <= 1'b0;
      if (keep) wb_valid_o <= 1'b1;
      if (take_p || take_s) turn_q <= take_p;
      if (take_p && p_last_i) begin
        if (ends) s_ahead_q <= s_ahead_q - 1'b1;
        else      p_ahead_q <= p_ahead_q + 1'b1;
      end
      if (take_s && s_last_i) begin
        if (ends) p_ahead_q <= p_ahead_q - 1'b1;
        else      s_ahead_q <= s_ahead_q + 1'b1;
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (keep) begin
      wb_slot_o     <= take_p ? p_slot_i : s_slot_i;
      wb_beat_o     <= take_p ? p_beat_i : s_beat_i;
      wb_word_o     <= take_p ? p_word_i : s_word_i;
      wb_tag_o      <= take_p ? p_tag_i : s_tag_i;
      wb_lanes_o    <= take_p ? p_lanes_i : s_lanes_i;
      wb_data_o     <= take_p ? p_data_i : s_data_i;
      wb_last_o     <= ends;
      wb_err_o      <= take_p && p_err_i;
      wb_err_lane_o <= p_err_lane_i;
    end
  end

`ifndef SYNTHESIS
  a_one_ahead: assert property (@(posedge clk_i) disable iff (!rst_ni)
      p_ahead_q == '0 || s_ahead_q == '0);
  a_lead: assert property (@(posedge clk_i) disable iff (!rst_ni)
      p_ahead_q < CW'(LEAD) && s_ahead_q < CW'(LEAD));
`endif

endmodule
