// The load/store unit (sgpu_lsu: the beat stage, then the halves for shared memory on chip and
// for the memory port, their write-backs joined) before a memory model: 16-byte
// blocks that start as a hash of their address (lsu.rs computes the same), a request taken
// when `mem_ready_i` says and answered in order `mem_delay_i` cycles later (a block whose
// address has bit 63 set answers with an error), a write applied as it is taken. Each
// cycle's taken request is an output, for the test to replay and check.
module lsu_top #(
  parameter int unsigned LANES = 8,
  parameter int unsigned WARPS = 4,
  parameter int unsigned TW = 8,
  parameter int unsigned QD = 8,
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
  input  logic                 mem_ready_i,
  input  logic [4:0]           mem_delay_i,
  input  logic                 wb_ready_i,

  output logic                 fault_o,
  output logic [7:0]           fault_cause_o,
  output logic [4:0]           fault_lane_o,
  output logic                 taken_o,       // a request taken this cycle
  output logic                 taken_write_o,
  output logic [63:0]          taken_addr_o,
  output logic [15:0]          taken_be_o,
  output logic [127:0]         taken_wdata_o,
  output logic                 wb_valid_o,
  output logic [SW-1:0]        wb_slot_o,
  output logic [BW-1:0]        wb_beat_o,
  output logic [1:0]           wb_word_o,
  output logic [TW-1:0]        wb_tag_o,
  output logic [LANES-1:0]     wb_lanes_o,
  output logic [32*LANES-1:0]  wb_data_o,
  output logic                 wb_last_o,
  output logic                 wb_err_o,
  output logic [4:0]           wb_err_lane_o,
  output logic [31:0]          conflicts_o
);

  logic         req_valid, req_write, rsp_valid, rsp_err;
  logic [63:0]  req_addr;
  logic [15:0]  req_be;
  logic [127:0] req_wdata, rsp_data;
  sgpu_lsu #(.LANES(LANES), .WARPS(WARPS), .TW(TW), .QD(QD)) u_lsu (
    .clk_i, .rst_ni, .local_size_i, .shared_size_i, .param_size_i, .const_size_i,
    .local_base_i, .param_base_i, .const_base_i, .reserve_i, .room_o,
    .issue_valid_i, .issue_slot_i, .issue_beat_i, .issue_pass_i, .issue_last_i,
    .issue_instr_i, .issue_lanes_i, .issue_tag_i, .pred_row_i, .a_i, .b_i, .c_i,
    .fault_o, .fault_cause_o, .fault_lane_o,
    .mem_req_valid_o(req_valid),
    .mem_req_ready_i(mem_ready_i),
    .mem_req_write_o(req_write),
    .mem_req_addr_o (req_addr),
    .mem_req_be_o   (req_be),
    .mem_req_wdata_o(req_wdata),
    .mem_rsp_valid_i(rsp_valid),
    .mem_rsp_err_i  (rsp_err),
    .mem_rsp_data_i (rsp_data),
    .wb_valid_o, .wb_ready_i, .wb_slot_o, .wb_beat_o, .wb_word_o, .wb_tag_o, .wb_lanes_o,
    .wb_data_o, .wb_last_o, .wb_err_o, .wb_err_lane_o, .conflicts_o
  );

  // ---- the memory ----
  function automatic logic [63:0] mix(logic [63:0] x);
    logic [63:0] z;
    z = x + 64'h9e3779b97f4a7c15;
    z = (z ^ (z >> 30)) * 64'hbf58476d1ce4e5b9;
    z = (z ^ (z >> 27)) * 64'h94d049bb133111eb;
    return z ^ (z >> 31);
  endfunction

  logic [127:0] blocks [logic [59:0]];
  function automatic logic [127:0] block_at(logic [59:0] b);
    if (blocks.exists(b) != 0) return blocks[b];
    return {mix({b, 4'd1}), mix({b, 4'd0})};
  endfunction

  typedef struct packed {
    logic [31:0]  due;
    logic         err;
    logic [127:0] data;
  } answer_t;
  answer_t     answers [$];
  logic [31:0] cycle_q, last_due_q;

  assign taken_o       = req_valid && mem_ready_i;
  assign taken_write_o = req_write;
  assign taken_addr_o  = req_addr;
  assign taken_be_o    = req_be;
  assign taken_wdata_o = req_wdata;
  assign rsp_valid = answers.size() != 0 && answers[0].due <= cycle_q;
  assign rsp_err   = rsp_valid && answers[0].err;
  assign rsp_data  = rsp_valid ? answers[0].data : '0;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      cycle_q    <= '0;
      last_due_q <= '0;
    end else begin
      cycle_q <= cycle_q + 1;
      if (rsp_valid) void'(answers.pop_front());
      if (taken_o) begin
        logic [127:0] old, now;
        logic [31:0]  due;
        old = block_at(req_addr[63:4]);
        now = old;
        for (int j = 0; j < 16; j++) begin
          if (req_write && req_be[j]) now[8*j +: 8] = req_wdata[8*j +: 8];
        end
        if (req_write && !req_addr[63]) blocks[req_addr[63:4]] = now;
        // In order: never before the answer ahead of it.
        due = cycle_q + 1 + 32'(mem_delay_i);
        if (due <= last_due_q) due = last_due_q + 1;
        last_due_q <= due;
        answers.push_back({due, req_addr[63], req_write ? 128'd0 : old});
      end
    end
  end

endmodule
