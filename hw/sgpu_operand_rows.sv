// Core v2's operand addresses (docs/adr/0008-core-v2-pipeline.md, "Operands" and "Pairs"):
// for a beat of a pass of an instruction, the register file rows of the registers it reads
// (ra, rb, rc) and writes (rd). Combinational.
//
// A warp slot's registers are rows base .. base + count - 1 of every lane's file (the caller
// keeps each slot's base; register r is row base + r). Pass p of an instruction reads word
// p of each register tuple it reads, or the tuple's last word when it is shorter (IMADW's
// second pass reads ra and rb again, and rc + 1), and writes word p of rd's. A field that
// names RZ, that is an immediate (bi, ci), or that the instruction does not read, reads
// zero (`zero_o`); a tuple's words past R254 are RZ, as the golden model's `reg_at` says.
module sgpu_operand_rows #(
  parameter int unsigned RW = 9  // a row number's bits
) (
  input  logic [63:0]   instr_i,
  input  logic [1:0]    pass_i,
  input  logic [RW-1:0] base_i,
  output logic [3*RW-1:0] rows_o,  // ra at [0 +: RW], rb next, rc last
  output logic [2:0]    zero_o,    // ra, rb, rc
  output logic [RW-1:0] wr_row_o,
  output logic          wr_rz_o    // the pass writes RZ: nothing
);

  localparam logic [7:0] RZ = 8'd255;

  // Word `pass` of the tuple of `count` registers from `r` (its last when it is shorter),
  // RZ past R254.
  function automatic logic [7:0] word_of(logic [7:0] r, logic [3:0] count, logic [1:0] pass);
    logic [8:0] at;
    at = 9'(r) + ((4'(pass) < count) ? 9'(pass) : 9'(count) - 9'd1);
    word_of = (r == RZ || at > 9'(RZ)) ? RZ : at[7:0];
  endfunction

  logic [7:0] ra, rb, rc, rd;
  assign ra = word_of(instr_i[sgpu_isa_pkg::RA_MSB:sgpu_isa_pkg::RA_LSB],
                      sgpu_isa_pkg::regs_ra(instr_i), pass_i);
  assign rb = word_of(instr_i[sgpu_isa_pkg::RB_MSB:sgpu_isa_pkg::RB_LSB],
                      sgpu_isa_pkg::regs_rb(instr_i), pass_i);
  assign rc = word_of(instr_i[sgpu_isa_pkg::RC_MSB:sgpu_isa_pkg::RC_LSB],
                      sgpu_isa_pkg::regs_rc(instr_i), pass_i);
  assign rd = word_of(instr_i[sgpu_isa_pkg::RD_MSB:sgpu_isa_pkg::RD_LSB], 4'd4, pass_i);

  assign rows_o = {base_i + RW'(rc), base_i + RW'(rb), base_i + RW'(ra)};
  assign zero_o = {sgpu_isa_pkg::regs_rc(instr_i) == '0 || rc == RZ,
                   sgpu_isa_pkg::regs_rb(instr_i) == '0 || rb == RZ,
                   sgpu_isa_pkg::regs_ra(instr_i) == '0 || ra == RZ};
  assign wr_row_o = base_i + RW'(rd);
  assign wr_rz_o  = rd == RZ;

endmodule
