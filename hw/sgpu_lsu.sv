// Core v2's load/store unit (docs/adr/0008-core-v2-pipeline.md, "Memory"; docs/hw.md): LD,
// ST and LDC beats in as the lanes' come, each lane's access made and checked by
// `sgpu_lsu_beat`; its lanes in shared memory go to `sgpu_lsu_shared` and the on-chip
// `sgpu_shared_mem`, the others to `sgpu_lsu_port` and the memory port; the two halves'
// write-back beats meet in `sgpu_lsu_join`, which ends each instruction once. The issue
// books room for an instruction's beats in both halves as its first beat issues.
module sgpu_lsu #(
  parameter int unsigned LANES = 8,
  parameter int unsigned WARPS = 8,
  parameter int unsigned TW = 1,            // what the issue hands on with a beat
  parameter int unsigned QD = 8,            // beats queued in each half
  parameter int unsigned OD = 8,            // requests in flight in each half
  parameter int unsigned SHARED_BYTES = 49152,
  localparam int unsigned BEATS = 32 / LANES,
  localparam int unsigned BW    = (BEATS > 1) ? $clog2(BEATS) : 1,
  localparam int unsigned SW    = (WARPS > 1) ? $clog2(WARPS) : 1
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic [31:0]          local_size_i,
  input  logic [31:0]          shared_size_i,
  input  logic [31:0]          param_size_i,
  input  logic [31:0]          const_size_i,
  input  logic [63:0]          local_base_i,
  input  logic [63:0]          param_base_i,
  input  logic [63:0]          const_base_i,

  input  logic                 reserve_i,
  output logic                 room_o,
  input  logic                 issue_valid_i,
  input  logic [SW-1:0]        issue_slot_i,
  input  logic [BW-1:0]        issue_beat_i,
  input  logic [1:0]           issue_pass_i,
  input  logic                 issue_last_i,
  input  logic [63:0]          issue_instr_i,
  input  logic [LANES-1:0]     issue_lanes_i,
  input  logic [TW-1:0]        issue_tag_i,
  input  logic [8*LANES-1:0]   pred_row_i,
  input  logic [32*LANES-1:0]  a_i,
  input  logic [32*LANES-1:0]  b_i,
  input  logic [32*LANES-1:0]  c_i,

  output logic                 fault_o,
  output logic [7:0]           fault_cause_o,
  output logic [4:0]           fault_lane_o,

  output logic                 mem_req_valid_o,
  input  logic                 mem_req_ready_i,
  output logic                 mem_req_write_o,
  output logic [63:0]          mem_req_addr_o,
  output logic [15:0]          mem_req_be_o,
  output logic [127:0]         mem_req_wdata_o,
  input  logic                 mem_rsp_valid_i,
  input  logic                 mem_rsp_err_i,
  input  logic [127:0]         mem_rsp_data_i,

  output logic                 wb_valid_o,
  input  logic                 wb_ready_i,
  output logic [SW-1:0]        wb_slot_o,
  output logic [BW-1:0]        wb_beat_o,
  output logic [1:0]           wb_word_o,
  output logic [TW-1:0]        wb_tag_o,
  output logic [LANES-1:0]     wb_lanes_o,
  output logic [32*LANES-1:0]  wb_data_o,
  output logic                 wb_last_o,
  output logic                 wb_err_o,
  output logic [4:0]           wb_err_lane_o,
  output logic [31:0]          conflicts_o    // shared memory's bank conflicts, since reset
);

  localparam int unsigned WW = $clog2(SHARED_BYTES / 4);

  logic                 acc_valid, acc_last, acc_write, acc_signed;
  logic [SW-1:0]        acc_slot;
  logic [BW-1:0]        acc_beat;
  logic [TW-1:0]        acc_tag;
  logic [2:0]           acc_size;
  logic [LANES-1:0]     acc_lanes, port_lanes, shared_lanes;
  logic [3*LANES-1:0]   acc_space;
  logic [64*LANES-1:0]  acc_at;
  logic [128*LANES-1:0] acc_data;
  sgpu_lsu_beat #(.LANES(LANES), .WARPS(WARPS), .TW(TW)) u_beat (
    .clk_i, .rst_ni, .local_size_i, .shared_size_i, .param_size_i, .const_size_i,
    .issue_valid_i, .issue_slot_i, .issue_beat_i, .issue_pass_i, .issue_last_i,
    .issue_instr_i, .issue_lanes_i, .issue_tag_i, .pred_row_i, .a_i, .b_i, .c_i,
    .acc_valid_o (acc_valid),
    .acc_slot_o  (acc_slot),
    .acc_beat_o  (acc_beat),
    .acc_last_o  (acc_last),
    .acc_tag_o   (acc_tag),
    .acc_write_o (acc_write),
    .acc_size_o  (acc_size),
    .acc_signed_o(acc_signed),
    .acc_lanes_o (acc_lanes),
    .acc_space_o (acc_space),
    .acc_at_o    (acc_at),
    .acc_data_o  (acc_data),
    .fault_o, .fault_cause_o, .fault_lane_o
  );
  for (genvar k = 0; k < LANES; k++) begin : g_split
    assign shared_lanes[k] = acc_lanes[k]
                             && acc_space[3*k +: 3] == 3'(sgpu_isa_pkg::PORT_SHARED);
    assign port_lanes[k]   = acc_lanes[k] && !shared_lanes[k];
  end

  // ---- the memory port's half ----
  logic                p_valid, p_ready, p_last, p_err;
  logic [SW-1:0]       p_slot;
  logic [BW-1:0]       p_beat;
  logic [1:0]          p_word;
  logic [TW-1:0]       p_tag;
  logic [LANES-1:0]    p_lanes;
  logic [32*LANES-1:0] p_data;
  logic [4:0]          p_err_lane;
  logic                p_room;
  sgpu_lsu_port #(.LANES(LANES), .WARPS(WARPS), .TW(TW), .QD(QD), .OD(OD)) u_port (
    .clk_i, .rst_ni, .local_base_i, .param_base_i, .const_base_i, .reserve_i,
    .room_o      (p_room),
    .acc_valid_i (acc_valid),
    .acc_slot_i  (acc_slot),
    .acc_beat_i  (acc_beat),
    .acc_last_i  (acc_last),
    .acc_tag_i   (acc_tag),
    .acc_write_i (acc_write),
    .acc_size_i  (acc_size),
    .acc_signed_i(acc_signed),
    .acc_lanes_i (port_lanes),
    .acc_space_i (acc_space),
    .acc_at_i    (acc_at),
    .acc_data_i  (acc_data),
    .mem_req_valid_o, .mem_req_ready_i, .mem_req_write_o, .mem_req_addr_o, .mem_req_be_o,
    .mem_req_wdata_o, .mem_rsp_valid_i, .mem_rsp_err_i, .mem_rsp_data_i,
    .wb_valid_o   (p_valid),
    .wb_ready_i   (p_ready),
    .wb_slot_o    (p_slot),
    .wb_beat_o    (p_beat),
    .wb_word_o    (p_word),
    .wb_tag_o     (p_tag),
    .wb_lanes_o   (p_lanes),
    .wb_data_o    (p_data),
    .wb_last_o    (p_last),
    .wb_err_o     (p_err),
    .wb_err_lane_o(p_err_lane)
  );

  // ---- shared memory's half ----
  logic                s_valid, s_ready, s_last, s_room;
  logic [SW-1:0]       s_slot;
  logic [BW-1:0]       s_beat;
  logic [1:0]          s_word;
  logic [TW-1:0]       s_tag;
  logic [LANES-1:0]    s_lanes;
  logic [32*LANES-1:0] s_data;
  logic                m_valid, m_ready, m_write, m_rsp_valid;
  logic [LANES-1:0]    m_lanes;
  logic [LANES*WW-1:0] m_word;
  logic [LANES*4-1:0]  m_bytes;
  logic [LANES*32-1:0] m_wdata, m_rsp_rdata;
  sgpu_lsu_shared #(.LANES(LANES), .WARPS(WARPS), .TW(TW), .QD(QD), .OD(OD),
                    .BYTES(SHARED_BYTES)) u_shared (
    .clk_i, .rst_ni, .reserve_i,
    .room_o      (s_room),
    .acc_valid_i (acc_valid),
    .acc_slot_i  (acc_slot),
    .acc_beat_i  (acc_beat),
    .acc_last_i  (acc_last),
    .acc_tag_i   (acc_tag),
    .acc_write_i (acc_write),
    .acc_size_i  (acc_size),
    .acc_signed_i(acc_signed),
    .acc_lanes_i (shared_lanes),
    .acc_at_i    (acc_at),
    .acc_data_i  (acc_data),
    .m_valid_o   (m_valid),
    .m_ready_i   (m_ready),
    .m_write_o   (m_write),
    .m_lanes_o   (m_lanes),
    .m_word_o    (m_word),
    .m_bytes_o   (m_bytes),
    .m_wdata_o   (m_wdata),
    .m_rsp_valid_i(m_rsp_valid),
    .m_rsp_rdata_i(m_rsp_rdata),
    .wb_valid_o  (s_valid),
    .wb_ready_i  (s_ready),
    .wb_slot_o   (s_slot),
    .wb_beat_o   (s_beat),
    .wb_word_o   (s_word),
    .wb_tag_o    (s_tag),
    .wb_lanes_o  (s_lanes),
    .wb_data_o   (s_data),
    .wb_last_o   (s_last)
  );
  logic unused_tag;
  sgpu_shared_mem #(.LANES(LANES), .BYTES(SHARED_BYTES), .TW(1)) u_shared_mem (
    .clk_i, .rst_ni,
    .req_valid_i(m_valid),
    .req_ready_o(m_ready),
    .req_write_i(m_write),
    .req_lanes_i(m_lanes),
    .req_word_i (m_word),
    .req_bytes_i(m_bytes),
    .req_wdata_i(m_wdata),
    .req_tag_i  (1'b0),
    .rsp_valid_o(m_rsp_valid),
    .rsp_tag_o  (unused_tag),
    .rsp_rdata_o(m_rsp_rdata),
    .conflicts_o
  );

  assign room_o = p_room && s_room;

  sgpu_lsu_join #(.LANES(LANES), .WARPS(WARPS), .TW(TW), .LEAD(2 * QD + OD)) u_join (
    .clk_i, .rst_ni,
    .p_valid_i   (p_valid),
    .p_ready_o   (p_ready),
    .p_slot_i    (p_slot),
    .p_beat_i    (p_beat),
    .p_word_i    (p_word),
    .p_tag_i     (p_tag),
    .p_lanes_i   (p_lanes),
    .p_data_i    (p_data),
    .p_last_i    (p_last),
    .p_err_i     (p_err),
    .p_err_lane_i(p_err_lane),
    .s_valid_i   (s_valid),
    .s_ready_o   (s_ready),
    .s_slot_i    (s_slot),
    .s_beat_i    (s_beat),
    .s_word_i    (s_word),
    .s_tag_i     (s_tag),
    .s_lanes_i   (s_lanes),
    .s_data_i    (s_data),
    .s_last_i    (s_last),
    .wb_valid_o, .wb_ready_i, .wb_slot_o, .wb_beat_o, .wb_word_o, .wb_tag_o, .wb_lanes_o,
    .wb_data_o, .wb_last_o, .wb_err_o, .wb_err_lane_o
  );

endmodule
