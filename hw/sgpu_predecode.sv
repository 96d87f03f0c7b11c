// First stage of instruction decode: slices the fixed fields of an instruction word and
// flags words that are no instruction (an unknown opcode, or a reserved bit set), which the
// core turns into a trap. Combinational: every field sits at a place the ISA table fixes.
module sgpu_predecode
  import sgpu_isa_pkg::*;
(
  input  logic [63:0] instr_i,
  output logic [7:0]  opcode_o,
  output logic [2:0]  guard_pred_o,
  output logic        guard_neg_o,
  output logic [7:0]  rd_o,
  output logic [7:0]  ra_o,
  output logic [7:0]  rb_o,
  output logic [7:0]  rc_o,
  output logic        b_imm_o,
  output logic        c_imm_o,
  output logic        illegal_o
);

  logic [63:0] used;

  assign opcode_o     = instr_i[OP_MSB:OP_LSB];
  assign guard_pred_o = instr_i[PG_MSB:PG_LSB];
  assign guard_neg_o  = instr_i[PGN_LSB];
  assign rd_o         = instr_i[RD_MSB:RD_LSB];
  assign ra_o         = instr_i[RA_MSB:RA_LSB];
  assign rb_o         = instr_i[RB_MSB:RB_LSB];
  assign rc_o         = instr_i[RC_MSB:RC_LSB];
  assign b_imm_o      = instr_i[BI_LSB];
  assign c_imm_o      = instr_i[CI_LSB];

  assign used      = used_bits(opcode_o);
  // No instruction uses no bits, so `used == 0` means an unknown opcode.
  assign illegal_o = (used == 64'h0) || ((instr_i & ~used) != 64'h0);

endmodule
