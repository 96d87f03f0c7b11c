// The test's harness for hw/sgpu_warp_table.sv (rtl-tests/tests/warp_table.rs): the warp
// table steering the real front end (hw/sgpu_frontend.sv), as the core will join them:
// redirects and halts from the table to the fetch, each warp's fetch state and buffer count
// back, a pop's pc from the buffer to the table. The testbench is the rest of the core: the
// memory behind the instruction cache, the launch, the issue and the control unit.
module warp_table_top #(
  parameter int unsigned WARPS = 8,
  parameter int unsigned CTAS = 2,
  localparam int unsigned SW = (WARPS > 1) ? $clog2(WARPS) : 1,
  localparam int unsigned CW = (CTAS > 1) ? $clog2(CTAS) : 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,

  input  logic [63:0]      code_base_i,
  input  logic [31:0]      code_bytes_i,
  output logic             mem_req_valid_o,
  input  logic             mem_req_ready_i,
  output logic [63:0]      mem_req_addr_o,
  input  logic             mem_rsp_valid_i,
  input  logic             mem_rsp_err_i,
  input  logic [127:0]     mem_rsp_data_i,

  input  logic             cta_start_i,
  input  logic [CW-1:0]    cta_start_cta_i,
  input  logic [WARPS-1:0] cta_start_warps_i,
  input  logic             start_i,
  output logic             start_ready_o,
  input  logic [SW-1:0]    start_warp_i,
  input  logic [31:0]      start_pc_i,
  input  logic [31:0]      start_lanes_i,

  output logic             head_o,
  output logic [SW-1:0]    head_warp_o,
  output logic [2*WARPS-1:0] count_o,
  output logic [WARPS-1:0] issuable_o,
  input  logic             pop_i,
  input  logic [SW-1:0]    pop_warp_i,
  output logic [31:0]      pop_pc_o,
  output logic [63:0]      pop_word_o,
  output logic [31:0]      pop_mask_o,

  input  logic             ctl_valid_i,
  output logic             ctl_ready_o,
  input  logic [SW-1:0]    ctl_warp_i,
  input  logic [2:0]       ctl_kind_i,
  input  logic [31:0]      ctl_next_i,
  input  logic [31:0]      ctl_target_i,
  input  logic [31:0]      ctl_mask_i,
  input  logic             ctl_bar_i,
  input  logic [31:0]      ctl_bar_id_i,
  input  logic             ctl_bar_waits_i,
  input  logic [7:0]       ctl_trap_i,
  input  logic             ctl_frame_fault_i,

  output logic             rel_o,
  output logic [WARPS-1:0] rel_warps_o,
  output logic             exit_o,
  output logic [SW-1:0]    exit_warp_o,
  output logic             exit_last_o,
  output logic             trap_o,
  output logic [SW-1:0]    trap_warp_o,
  output logic [7:0]       trap_cause_o,
  output logic [31:0]      trap_pc_o
);

  logic             redirect, halt;
  logic [SW-1:0]    redirect_warp, halt_warp;
  logic [31:0]      redirect_pc, redirect_stop_pc;
  logic [WARPS-1:0] stopped, at_stop, fault, fault_mem;

  /* verilator lint_off PINCONNECTEMPTY */
  sgpu_frontend #(.WARPS(WARPS), .LINES(8)) u_frontend (
    .clk_i, .rst_ni,
    .flush_i           (1'b0),
    .code_base_i, .code_bytes_i,
    .redirect_i        (redirect),
    .redirect_warp_i   (redirect_warp),
    .redirect_pc_i     (redirect_pc),
    .redirect_stop_pc_i(redirect_stop_pc),
    .halt_i            (halt),
    .halt_warp_i       (halt_warp),
    .stopped_o         (stopped),
    .at_stop_o         (at_stop),
    .fault_o           (fault),
    .fault_mem_o       (fault_mem),
    .pop_i, .pop_warp_i, .pop_pc_o, .pop_word_o, .count_o,
    .head_o, .head_warp_o,
    .head_pc_o         (),
    .head_reads_o      (),
    .head_pred_reads_o (),
    .head_writes_o     (),
    .head_pred_writes_o(),
    .mem_req_valid_o, .mem_req_ready_i, .mem_req_addr_o,
    .mem_rsp_valid_i, .mem_rsp_err_i, .mem_rsp_data_i
  );

  // The control unit's CALLs here have no frame and no waiting lanes; BAR counts every
  // thread and reduces nothing.
  sgpu_warp_table #(.WARPS(WARPS), .CTAS(CTAS)) u_table (
    .clk_i, .rst_ni,
    .cta_start_i, .cta_start_cta_i, .cta_start_warps_i,
    .start_i, .start_ready_o, .start_warp_i, .start_pc_i, .start_lanes_i,
    .redirect_o        (redirect),
    .redirect_warp_o   (redirect_warp),
    .redirect_pc_o     (redirect_pc),
    .redirect_stop_pc_o(redirect_stop_pc),
    .halt_o            (halt),
    .halt_warp_o       (halt_warp),
    .stopped_i         (stopped),
    .at_stop_i         (at_stop),
    .fault_i           (fault),
    .fault_mem_i       (fault_mem),
    .count_i           (count_o),
    .issuable_o,
    .pop_i, .pop_warp_i,
    .pop_pc_i          (pop_pc_o),
    .pop_mask_o,
    .ctl_valid_i, .ctl_ready_o, .ctl_warp_i, .ctl_kind_i, .ctl_next_i, .ctl_target_i,
    .ctl_mask_i,
    .ctl_waiting_i     ('0),
    .ctl_frame_i       ('0),
    .ctl_bar_i, .ctl_bar_id_i,
    .ctl_bar_counted_i (1'b0),
    .ctl_bar_threads_i ('0),
    .ctl_bar_waits_i,
    .ctl_bar_red_i     (1'b0),
    .ctl_bar_bred_i    ('0),
    .ctl_bar_set_i     ('0),
    .ctl_trap_i, .ctl_frame_fault_i,
    .ret_o             (),
    .ret_warp_o        (),
    .ret_lanes_o       (),
    .ret_frame_o       (),
    .rel_o, .rel_warps_o,
    .rel_id_o          (),
    .rel_red_o         (),
    .rel_bred_o        (),
    .rel_value_o       (),
    .exit_o, .exit_warp_o,
    .exit_cta_o        (),
    .exit_last_o,
    .trap_o, .trap_warp_o, .trap_cause_o, .trap_pc_o
  );
  /* verilator lint_on PINCONNECTEMPTY */

endmodule
