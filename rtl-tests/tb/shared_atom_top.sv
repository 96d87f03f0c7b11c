// The test's harness for hw/sgpu_shared_atom.sv (rtl-tests/tests/shared_atom.rs): the atomic
// unit and plain beats in front of one hw/sgpu_shared_mem.sv, joined as the core's
// load/store unit will join them: while the atomic unit works it owns the memory (plain
// beats wait until it is idle), its requests go in lane 0 of a beat, and the memory's
// answers go back by their tag ({atomic, read}): plain beats' out, the atomic unit's reads
// to it, its writes' dropped.
module shared_atom_top #(
  parameter int unsigned LANES = 8,
  localparam int unsigned BYTES = 49152,
  localparam int unsigned WW = $clog2(BYTES / 4),
  localparam int unsigned AW = WW + 2
) (
  input  logic                clk_i,
  input  logic                rst_ni,

  input  logic                p_valid_i,
  output logic                p_ready_o,
  input  logic                p_write_i,
  input  logic [LANES-1:0]    p_lanes_i,
  input  logic [LANES*WW-1:0] p_word_i,
  input  logic [LANES*4-1:0]  p_bytes_i,
  input  logic [LANES*32-1:0] p_wdata_i,
  output logic                p_rsp_valid_o,
  output logic [LANES*32-1:0] p_rsp_rdata_o,

  input  logic                a_valid_i,
  output logic                a_ready_o,
  input  logic [3:0]          a_aop_i,
  input  logic [3:0]          a_aty_i,
  input  logic [LANES-1:0]    a_lanes_i,
  input  logic [LANES*AW-1:0] a_addr_i,
  input  logic [LANES*64-1:0] a_b_i,
  input  logic [LANES*64-1:0] a_c_i,
  output logic                a_rsp_valid_o,
  output logic [LANES*64-1:0] a_rsp_old_o
);

  logic        m_valid, m_ready, m_write, m_read, rsp_valid;
  logic [WW-1:0] m_word;
  logic [3:0]  m_bytes;
  logic [31:0] m_wdata;
  logic [1:0]  rsp_tag;
  logic [LANES*32-1:0] rsp_rdata;
  logic [31:0] unused_conflicts;

  sgpu_shared_atom #(.LANES(LANES), .BYTES(BYTES)) u_atom (
    .clk_i, .rst_ni,
    .req_valid_i  (a_valid_i),
    .req_ready_o  (a_ready_o),
    .req_aop_i    (sgpu_isa_pkg::aop_e'(a_aop_i)),
    .req_aty_i    (sgpu_isa_pkg::aty_e'(a_aty_i)),
    .req_lanes_i  (a_lanes_i),
    .req_addr_i   (a_addr_i),
    .req_b_i      (a_b_i),
    .req_c_i      (a_c_i),
    .rsp_valid_o  (a_rsp_valid_o),
    .rsp_old_o    (a_rsp_old_o),
    .m_valid_o    (m_valid),
    .m_ready_i    (m_ready),
    .m_write_o    (m_write),
    .m_read_o     (m_read),
    .m_word_o     (m_word),
    .m_bytes_o    (m_bytes),
    .m_wdata_o    (m_wdata),
    .m_rsp_valid_i(rsp_valid && rsp_tag == 2'b11),
    .m_rsp_rdata_i(rsp_rdata[31:0])
  );

  logic atom_idle;
  assign atom_idle = a_ready_o && !a_valid_i;
  assign p_ready_o = m_ready && atom_idle;

  sgpu_shared_mem #(.LANES(LANES), .BYTES(BYTES), .TW(2)) u_mem (
    .clk_i, .rst_ni,
    .req_valid_i(m_valid || (p_valid_i && atom_idle)),
    .req_ready_o(m_ready),
    .req_write_i(m_valid ? m_write : p_write_i),
    .req_lanes_i(m_valid ? LANES'(1) : p_lanes_i),
    .req_word_i (m_valid ? (LANES*WW)'(m_word) : p_word_i),
    .req_bytes_i(m_valid ? (LANES*4)'(m_bytes) : p_bytes_i),
    .req_wdata_i(m_valid ? (LANES*32)'(m_wdata) : p_wdata_i),
    .req_tag_i  ({m_valid, m_valid ? m_read : 1'b0}),
    .rsp_valid_o(rsp_valid),
    .rsp_tag_o  (rsp_tag),
    .rsp_rdata_o(rsp_rdata),
    .conflicts_o(unused_conflicts)
  );
  assign p_rsp_valid_o = rsp_valid && !rsp_tag[1];
  assign p_rsp_rdata_o = rsp_rdata;

endmodule
