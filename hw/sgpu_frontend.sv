// Core v2's front end (docs/adr/0008-core-v2-pipeline.md, "Fetch" and "Decode"): the fetch
// stage, the instruction cache and the instruction buffers, with the decode of each new head
// for the scoreboard. In: redirects and halts of warps (the warp table), pops (the issue).
// Out: per warp its next instructions, in program order, each head announced once with what
// it reads and writes; the cache's fills through a memory port.
//
//   sgpu_fetch --lookup--> sgpu_icache --answer--> sgpu_fetch --push--> sgpu_ibuffer
//        ^ room (count)                                                   | head
//        +----------------------------------------------------------------+--> sgpu_head_decode
//
// `halt_i` also empties the warp's buffer (its instructions are not to run); a redirect does
// not (a warp fetches nothing past a control instruction or its stop pc, so its buffer holds
// only instructions that run before the redirect's).
module sgpu_frontend #(
  parameter int unsigned WARPS = 8,
  parameter int unsigned LINES = 64,
  localparam int unsigned SW = (WARPS > 1) ? $clog2(WARPS) : 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,

  input  logic             flush_i,       // a launch with other code: no fill in flight
  input  logic [63:0]      code_base_i,
  input  logic [31:0]      code_bytes_i,

  input  logic             redirect_i,
  input  logic [SW-1:0]    redirect_warp_i,
  input  logic [31:0]      redirect_pc_i,
  input  logic [31:0]      redirect_stop_pc_i,
  input  logic             halt_i,
  input  logic [SW-1:0]    halt_warp_i,
  output logic [WARPS-1:0] stopped_o,
  output logic [WARPS-1:0] at_stop_o,       // stopped at its stop pc
  output logic [WARPS-1:0] fault_o,
  output logic [WARPS-1:0] fault_mem_o,

  input  logic             pop_i,
  input  logic [SW-1:0]    pop_warp_i,
  output logic [31:0]      pop_pc_o,
  output logic [63:0]      pop_word_o,
  output logic [2*WARPS-1:0] count_o,

  output logic             head_o,
  output logic [SW-1:0]    head_warp_o,
  output logic [31:0]      head_pc_o,
  output logic [3*11-1:0]  head_reads_o,
  output logic [7:0]       head_pred_reads_o,
  output logic [10:0]      head_writes_o,
  output logic [7:0]       head_pred_writes_o,

  output logic             mem_req_valid_o,
  input  logic             mem_req_ready_i,
  output logic [63:0]      mem_req_addr_o,
  input  logic             mem_rsp_valid_i,
  input  logic             mem_rsp_err_i,
  input  logic [127:0]     mem_rsp_data_i
);

  logic          lookup_valid, rsp_valid, rsp_hit, rsp_err, push;
  logic [SW-1:0] lookup_warp, rsp_warp, push_warp;
  logic [31:0]   lookup_pc, rsp_pc, push_pc;
  logic [63:0]   rsp_word, push_word;

  sgpu_fetch #(.WARPS(WARPS)) u_fetch (
    .clk_i, .rst_ni, .code_bytes_i,
    .redirect_i, .redirect_warp_i, .redirect_pc_i, .redirect_stop_pc_i,
    .halt_i, .halt_warp_i,
    .count_i       (count_o),
    .lookup_valid_o(lookup_valid),
    .lookup_warp_o (lookup_warp),
    .lookup_pc_o   (lookup_pc),
    .rsp_valid_i   (rsp_valid),
    .rsp_warp_i    (rsp_warp),
    .rsp_pc_i      (rsp_pc),
    .rsp_hit_i     (rsp_hit),
    .rsp_err_i     (rsp_err),
    .rsp_word_i    (rsp_word),
    .push_o        (push),
    .push_warp_o   (push_warp),
    .push_pc_o     (push_pc),
    .push_word_o   (push_word),
    .stopped_o, .at_stop_o, .fault_o, .fault_mem_o
  );

  sgpu_icache #(.WARPS(WARPS), .LINES(LINES)) u_icache (
    .clk_i, .rst_ni, .flush_i, .code_base_i,
    .lookup_valid_i(lookup_valid),
    .lookup_warp_i (lookup_warp),
    .lookup_pc_i   (lookup_pc),
    .rsp_valid_o   (rsp_valid),
    .rsp_warp_o    (rsp_warp),
    .rsp_pc_o      (rsp_pc),
    .rsp_hit_o     (rsp_hit),
    .rsp_err_o     (rsp_err),
    .rsp_word_o    (rsp_word),
    .mem_req_valid_o, .mem_req_ready_i, .mem_req_addr_o,
    .mem_rsp_valid_i, .mem_rsp_err_i, .mem_rsp_data_i
  );

  logic [63:0] head_word;
  sgpu_ibuffer #(.WARPS(WARPS)) u_ibuffer (
    .clk_i, .rst_ni,
    .push_i      (push),
    .push_warp_i (push_warp),
    .push_pc_i   (push_pc),
    .push_word_i (push_word),
    .pop_i, .pop_warp_i, .pop_pc_o, .pop_word_o,
    .clear_i     (halt_i),
    .clear_warp_i(halt_warp_i),
    .count_o,
    .head_o, .head_warp_o,
    .head_pc_o,
    .head_word_o (head_word)
  );

  sgpu_head_decode u_head_decode (
    .instr_i      (head_word),
    .reads_o      (head_reads_o),
    .pred_reads_o (head_pred_reads_o),
    .writes_o     (head_writes_o),
    .pred_writes_o(head_pred_writes_o)
  );

endmodule
