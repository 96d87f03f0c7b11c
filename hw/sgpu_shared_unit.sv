// Core v2's units that the lanes share (docs/adr/0008-core-v2-pipeline.md, "Units and their
// rates"), one lane a cycle for the whole core, as NVIDIA's SM runs its special functions:
// beats come and go through sgpu_lane_serial, and the operation between its registers is
// a unit of the KIND:
//
//   KIND_INT (0):   the integer operations the lanes' ALUs leave out (sgpu_core_pkg::
//                   shared_op: bit fields, byte permutes, I2I, POPC, CLZ, FLO, BREV), with
//                   sgpu_shared_int (two stages); a lane's result back three cycles after it
//                   went
//   KIND_VIDEO (1): the video instructions (VADD ... VSET4), with sgpu_video_pipe (four
//                   stages); a lane's result back five cycles after it went
module sgpu_shared_unit #(
  parameter int unsigned KIND = 0,
  parameter int unsigned LANES = 8,
  parameter int unsigned WARPS = 8,
  parameter int unsigned REGS_PER_LANE = 2048,
  parameter int unsigned ENTRIES = 4,
  parameter int unsigned DEPTH = (64 / LANES > 16) ? 64 / LANES : 16,
  localparam int unsigned BEATS = 32 / LANES,
  localparam int unsigned BW    = (BEATS > 1) ? $clog2(BEATS) : 1,
  localparam int unsigned SW    = (WARPS > 1) ? $clog2(WARPS) : 1,
  localparam int unsigned RW    = $clog2(REGS_PER_LANE / BEATS),
  localparam int unsigned EW    = (ENTRIES > 1) ? $clog2(ENTRIES) : 1,
  localparam int unsigned TW    = $clog2(DEPTH) + ((LANES > 1) ? $clog2(LANES) : 1) + 1,
  localparam int unsigned PW    = 8 * LANES,
  localparam int unsigned KIND_INT = 0,
  localparam int unsigned KIND_VIDEO = 1
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,

  // As sgpu_lane_serial's.
  input  logic                  issue_valid_i,
  input  logic [SW-1:0]         issue_slot_i,
  input  logic [BW-1:0]         issue_beat_i,
  input  logic [63:0]           issue_instr_i,
  input  logic [LANES-1:0]      issue_lanes_i,
  input  logic [RW-1:0]         issue_row_i,
  input  logic                  issue_rz_i,
  input  logic                  issue_last_i,
  input  logic                  issue_entry_valid_i,
  input  logic [EW-1:0]         issue_entry_i,
  output logic                  room_o,
  input  logic [PW-1:0]         pred_row_i,
  input  logic [32*LANES-1:0]   a_i,
  input  logic [32*LANES-1:0]   b_i,
  input  logic [32*LANES-1:0]   c_i,
  output logic                  wb_valid_o,
  input  logic                  wb_ready_i,
  output logic [SW-1:0]         wb_slot_o,
  output logic [BW-1:0]         wb_beat_o,
  output logic [RW-1:0]         wb_row_o,
  output logic                  wb_rvalid_o,
  output logic [LANES-1:0]      wb_lanes_o,
  output logic [32*LANES-1:0]   wb_data_o,
  output logic                  wb_last_o,
  output logic                  wb_entry_valid_o,
  output logic [EW-1:0]         wb_entry_o
);

  logic          fn_valid, res_valid_q;
  logic [63:0]   fn_instr;
  logic [31:0]   fn_a, fn_b, fn_c, d, res_d_q;
  logic [TW-1:0] fn_tag, res_tag_q;

  sgpu_lane_serial #(
    .LANES(LANES), .WARPS(WARPS), .REGS_PER_LANE(REGS_PER_LANE), .ENTRIES(ENTRIES),
    .DEPTH(DEPTH)
  ) u_serial (
    .clk_i, .rst_ni,
    .issue_valid_i, .issue_slot_i, .issue_beat_i, .issue_instr_i, .issue_lanes_i,
    .issue_row_i, .issue_rz_i, .issue_last_i, .issue_entry_valid_i, .issue_entry_i, .room_o,
    .pred_row_i, .a_i, .b_i, .c_i,
    .fn_valid_o(fn_valid), .fn_instr_o(fn_instr), .fn_a_o(fn_a), .fn_b_o(fn_b),
    .fn_c_o(fn_c), .fn_tag_o(fn_tag),
    .res_valid_i(res_valid_q), .res_tag_i(res_tag_q), .res_d_i(res_d_q),
    .wb_valid_o, .wb_ready_i, .wb_slot_o, .wb_beat_o, .wb_row_o, .wb_rvalid_o, .wb_lanes_o,
    .wb_data_o, .wb_last_o, .wb_entry_valid_o, .wb_entry_o
  );

  // The unit's result, FN_LAT cycles after its lane went, then registered with the lane's
  // tag into the result port.
  localparam int unsigned FN_LAT = (KIND == KIND_VIDEO) ? 4 : 2;
  logic          fn_done;
  logic [TW-1:0] fn_done_tag;
  if (KIND == KIND_VIDEO) begin : g_video
    sgpu_video_pipe u_video (
      .clk_i, .rst_ni,
      .en_i   (fn_valid),
      .instr_i(fn_instr),
      .a_i    (fn_a),
      .b_i    (fn_b),
      .c_i    (fn_c),
      .d_o    (d)
    );
  end else begin : g_int
    sgpu_shared_int u_int (
      .clk_i, .rst_ni,
      .valid_i(fn_valid),
      .instr_i(fn_instr),
      .a_i    (fn_a),
      .b_i    (fn_b),
      .c_i    (fn_c),
      .d_o    (d)
    );
  end
  sgpu_pipe #(.W(TW), .DEPTH(FN_LAT)) u_tag (
    .clk_i, .rst_ni,
    .valid_i(fn_valid),
    .data_i (fn_tag),
    .valid_o(fn_done),
    .data_o (fn_done_tag)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {res_valid_q, res_tag_q, res_d_q} <= '0;
    end else begin
      res_valid_q <= fn_done;
      if (fn_done) {res_tag_q, res_d_q} <= {fn_done_tag, d};
    end
  end

`ifndef SYNTHESIS
  initial begin
    if (KIND != KIND_INT && KIND != KIND_VIDEO) $fatal(1, "sgpu_shared_unit: no KIND %0d", KIND);
  end
  // Only the KIND's operations come here.
  logic [7:0] issue_op;
  assign issue_op = issue_instr_i[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB];
  a_kinds_op: assert property (@(posedge clk_i) disable iff (!rst_ni)
      issue_valid_i |-> (KIND == KIND_VIDEO ? sgpu_isa_pkg::unit_of(issue_op) == sgpu_isa_pkg::UNIT_VIDEO
                                            : sgpu_core_pkg::shared_op(issue_op)))
    else $error("sgpu_shared_unit: an operation of another unit");
`endif

endmodule
