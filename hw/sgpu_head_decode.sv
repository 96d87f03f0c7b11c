// Core v2's decode of a warp's new head (docs/adr/0008-core-v2-pipeline.md, "Decode"): what
// the scoreboard checks it against (`sgpu_scoreboard`'s head ports), from the instruction
// word alone, as the table's `role` lines say (sgpu_isa_pkg's register spans,
// sgpu_decode_pkg's predicates and carry). Combinational.
//
// Registers: the fields an instruction reads (at most three: rd, ra, rb, rc in that order
// fill the read ranges) and the one it writes (only rd is ever written: checked); a field
// naming RZ is no register. Predicates: those its role reads, and its guard unless PT; those
// it writes; carry in bit 7 of each.
module sgpu_head_decode (
  input  logic [63:0]   instr_i,
  output logic [3*11-1:0] reads_o,   // range k at [11*k +: 11]: [7:0] first, [10:8] count
  output logic [7:0]    pred_reads_o,
  output logic [10:0]   writes_o,
  output logic [7:0]    pred_writes_o
);

  localparam logic [7:0] RZ = 8'd255;

  logic [7:0]  op;
  logic [3:0]  read_fields, write_fields;  // rc, rb, ra, rd (rd lowest)
  logic [31:0] regs;                       // field f's register at [8*f +: 8]
  logic [15:0] counts;                     // and its count at [4*f +: 4]
  assign op           = instr_i[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB];
  assign read_fields  = sgpu_isa_pkg::reg_reads(op);
  assign write_fields = sgpu_isa_pkg::reg_writes(op);
  assign regs   = {instr_i[sgpu_isa_pkg::RC_MSB:sgpu_isa_pkg::RC_LSB],
                   instr_i[sgpu_isa_pkg::RB_MSB:sgpu_isa_pkg::RB_LSB],
                   instr_i[sgpu_isa_pkg::RA_MSB:sgpu_isa_pkg::RA_LSB],
                   instr_i[sgpu_isa_pkg::RD_MSB:sgpu_isa_pkg::RD_LSB]};
  assign counts = {sgpu_isa_pkg::regs_rc(instr_i), sgpu_isa_pkg::regs_rb(instr_i),
                   sgpu_isa_pkg::regs_ra(instr_i), sgpu_isa_pkg::regs_rd(instr_i)};

  // A field's range: none for RZ or a field that names no register.
  function automatic logic [10:0] range(logic [7:0] r, logic [3:0] count);
    range = (r == RZ || count == 4'd0) ? 11'd0 : {count[2:0], r};
  endfunction

  // The ranges read, in field order, into the first free of the three.
  logic [10:0] read0, read1, read2, ranged;
  always_comb begin
    {read0, read1, read2} = '0;
    for (int unsigned f = 0; f < 4; f++) begin
      ranged = read_fields[f] ? range(regs[8*f +: 8], counts[4*f +: 4]) : 11'd0;
      if (ranged != 11'd0) begin
        if (read0 == 11'd0)      read0 = ranged;
        else if (read1 == 11'd0) read1 = ranged;
        else                     read2 = ranged;
      end
    end
  end
  assign reads_o  = {read2, read1, read0};
  assign writes_o = write_fields[0] ? range(regs[7:0], counts[3:0]) : 11'd0;
  // Only rd is ever written (the table's roles; its test checks that);
  // the scoreboard has one written range.
  logic unused_writes;
  assign unused_writes = ^write_fields[3:1];

  logic [2:0] guard;
  assign guard         = instr_i[sgpu_isa_pkg::PG_MSB:sgpu_isa_pkg::PG_LSB];
  assign pred_reads_o  = sgpu_decode_pkg::pred_reads(instr_i) | sgpu_decode_pkg::pred_bit(guard);
  assign pred_writes_o = sgpu_decode_pkg::pred_writes(instr_i);

endmodule
