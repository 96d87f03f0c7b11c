// First stage of instruction decode: slices the fixed fields of an instruction word and
// flags words that are no instruction (an unknown opcode, a reserved bit set, an enumerated
// field past its values, a branch target that is not a multiple of 8), which the core turns
// into a trap. Combinational: every field sits at a place the ISA table fixes, and the
// checks, generated from the table into sgpu_isa_pkg::illegal_word, are exactly those of the
// Rust decoder (rtl-tests/ feeds both the same words). It also says, from the table's operand
// roles, which unit executes the instruction, which register fields it writes, and how many
// registers each register field spans, for the scoreboard.
//
// Package names are written out in full (sgpu_isa_pkg::) rather than imported, so that yosys
// reads the module as Verilator does.
module sgpu_predecode (
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
  output logic        illegal_o,
  output sgpu_isa_pkg::unit_e unit_o,
  // Register fields written, one bit each: rc, rb, ra, rd (rd lowest).
  output logic [3:0]  writes_o,
  // Registers each field spans (0: it names none, or holds an immediate or a slot).
  output logic [3:0]  rd_regs_o,
  output logic [3:0]  ra_regs_o,
  output logic [3:0]  rb_regs_o,
  output logic [3:0]  rc_regs_o
);

  assign opcode_o     = instr_i[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB];
  assign guard_pred_o = instr_i[sgpu_isa_pkg::PG_MSB:sgpu_isa_pkg::PG_LSB];
  assign guard_neg_o  = instr_i[sgpu_isa_pkg::PGN_LSB];
  assign rd_o         = instr_i[sgpu_isa_pkg::RD_MSB:sgpu_isa_pkg::RD_LSB];
  assign ra_o         = instr_i[sgpu_isa_pkg::RA_MSB:sgpu_isa_pkg::RA_LSB];
  assign rb_o         = instr_i[sgpu_isa_pkg::RB_MSB:sgpu_isa_pkg::RB_LSB];
  assign rc_o         = instr_i[sgpu_isa_pkg::RC_MSB:sgpu_isa_pkg::RC_LSB];
  assign b_imm_o      = instr_i[sgpu_isa_pkg::BI_LSB];
  assign c_imm_o      = instr_i[sgpu_isa_pkg::CI_LSB];

  assign illegal_o    = sgpu_isa_pkg::illegal_word(instr_i);
  assign unit_o       = sgpu_isa_pkg::unit_of(opcode_o);
  assign writes_o     = sgpu_isa_pkg::reg_writes(opcode_o);
  assign rd_regs_o    = sgpu_isa_pkg::regs_rd(instr_i);
  assign ra_regs_o    = sgpu_isa_pkg::regs_ra(instr_i);
  assign rb_regs_o    = sgpu_isa_pkg::regs_rb(instr_i);
  assign rc_regs_o    = sgpu_isa_pkg::regs_rc(instr_i);

endmodule
