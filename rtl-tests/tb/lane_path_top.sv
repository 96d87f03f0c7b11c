// The test's harness for hw/sgpu_lanes.sv (rtl-tests/tests/lanes.rs): a beat's way from its
// issue to its write-back as the core will make it: sgpu_operand_rows gives its rows,
// sgpu_regfile its operands, sgpu_pred_file its predicate row, sgpu_lanes computes, and the
// write-back goes to both files through the write port of the beat's bank. Each warp slot
// holds REGS registers from row slot * REGS. A new warp in a slot (next_i) starts both
// files' generations of it.
module lane_path_top #(
  parameter int unsigned LANES = 8,
  parameter int unsigned WARPS = 4,
  parameter int unsigned BANKS = 2,
  parameter int unsigned REGS  = 16,  // a warp's registers (a power of two)
  localparam int unsigned BEATS = 32 / LANES,
  localparam int unsigned BW    = (BEATS > 1) ? $clog2(BEATS) : 1,
  localparam int unsigned SW    = (WARPS > 1) ? $clog2(WARPS) : 1,
  localparam int unsigned REGS_PER_LANE = WARPS * REGS * BEATS,
  localparam int unsigned RW    = $clog2(WARPS * REGS),
  localparam int unsigned PW    = 8 * LANES
) (
  input  logic                clk_i,
  input  logic                rst_ni,

  input  logic                issue_valid_i,
  input  logic [SW-1:0]       issue_slot_i,
  input  logic [BW-1:0]       issue_beat_i,
  input  logic                issue_hi_pass_i,
  input  logic [63:0]         issue_instr_i,
  input  logic [LANES-1:0]    issue_lanes_i,
  input  logic                issue_last_i,
  input  logic                next_i,
  input  logic [SW-1:0]       next_slot_i,

  output logic                busy_o,
  output logic                wr_valid_o,
  output logic [SW-1:0]       wr_slot_o,
  output logic [BW-1:0]       wr_beat_o,
  output logic [RW-1:0]       wr_row_o,
  output logic [LANES-1:0]    wr_lanes_o,
  output logic [32*LANES-1:0] wr_data_o,
  output logic                pwr_valid_o,
  output logic [PW-1:0]       pwr_old_o,
  output logic [7:0]          pwr_mask_o,
  output logic [LANES-1:0]    pwr_lanes_o,
  output logic [PW-1:0]       pwr_bits_o,
  output logic                done_o,
  output logic [SW-1:0]       done_slot_o
);

  logic [3*RW-1:0] rows;
  logic [2:0]      zero;
  logic [RW-1:0]   wr_row;
  logic            wr_rz;
  sgpu_operand_rows #(.RW(RW)) u_rows (
    .instr_i (issue_instr_i),
    .pass_i  ({1'b0, issue_hi_pass_i}),
    .base_i  (RW'(32'(issue_slot_i) * REGS)),
    .rows_o  (rows),
    .zero_o  (zero),
    .wr_row_o(wr_row),
    .wr_rz_o (wr_rz)
  );

  logic               opnd_valid;
  logic [32*LANES-1:0] a, b, c;
  logic [PW-1:0]      pred_row;
  logic               pred_valid;
  logic [BANKS-1:0]   port;  // the write-back's port: its beat's bank
  assign port = BANKS'(1) << (32'(wr_beat_o) % BANKS);

  sgpu_regfile #(
    .LANES(LANES), .WARPS(WARPS), .REGS_PER_LANE(REGS_PER_LANE), .BANKS(BANKS)
  ) u_regfile (
    .clk_i, .rst_ni,
    .rd_valid_i  (issue_valid_i),
    .rd_slot_i   (issue_slot_i),
    .rd_beat_i   (issue_beat_i),
    .rd_rows_i   (rows),
    .rd_zero_i   (zero),
    .rd_valid_o  (opnd_valid),
    .a_o         (a),
    .b_o         (b),
    .c_o         (c),
    .wr_valid_i  (port & {BANKS{wr_valid_o}}),
    .wr_slot_i   ({BANKS{wr_slot_o}}),
    .wr_beat_i   ({BANKS{wr_beat_o}}),
    .wr_row_i    ({BANKS{wr_row_o}}),
    .wr_lanes_i  ({BANKS{wr_lanes_o}}),
    .wr_data_i   ({BANKS{wr_data_o}}),
    .next_i,
    .next_slot_i,
    .next_first_i(RW'(32'(next_slot_i) * REGS)),
    .next_rows_i ((RW + 1)'(REGS)),
    .clear_i     (1'b0),
    .busy_o
  );

  sgpu_pred_file #(.LANES(LANES), .WARPS(WARPS), .BANKS(BANKS)) u_preds (
    .clk_i, .rst_ni,
    .rd_valid_i (issue_valid_i),
    .rd_slot_i  (issue_slot_i),
    .rd_beat_i  (issue_beat_i),
    .rd_valid_o (pred_valid),
    .rd_row_o   (pred_row),
    .wr_valid_i (port & {BANKS{pwr_valid_o}}),
    .wr_slot_i  ({BANKS{wr_slot_o}}),
    .wr_beat_i  ({BANKS{wr_beat_o}}),
    .wr_old_i   ({BANKS{pwr_old_o}}),
    .wr_mask_i  ({BANKS{pwr_mask_o}}),
    .wr_lanes_i ({BANKS{pwr_lanes_o}}),
    .wr_bits_i  ({BANKS{pwr_bits_o}}),
    .next_i,
    .next_slot_i
  );

  logic unused;
  logic done_entry_valid;
  logic [1:0] done_entry;
  assign unused = ^{pred_valid, done_entry_valid, done_entry};

  sgpu_lanes #(.LANES(LANES), .WARPS(WARPS), .REGS_PER_LANE(REGS_PER_LANE)) u_lanes (
    .clk_i, .rst_ni,
    .issue_valid_i,
    .issue_slot_i,
    .issue_beat_i,
    .issue_hi_pass_i,
    .issue_instr_i,
    .issue_lanes_i,
    .issue_row_i        (wr_row),
    .issue_rz_i         (wr_rz),
    .issue_last_i,
    .issue_entry_valid_i(1'b0),
    .issue_entry_i      ('0),
    .pred_row_i         (pred_row),
    .opnd_valid_i       (opnd_valid),
    .a_i                (a),
    .b_i                (b),
    .c_i                (c),
    .wr_valid_o,
    .wr_slot_o,
    .wr_beat_o,
    .wr_row_o,
    .wr_lanes_o,
    .wr_data_o,
    .pwr_valid_o,
    .pwr_old_o,
    .pwr_mask_o,
    .pwr_lanes_o,
    .pwr_bits_o,
    .done_o,
    .done_slot_o,
    .done_entry_valid_o (done_entry_valid),
    .done_entry_o       (done_entry)
  );

endmodule
