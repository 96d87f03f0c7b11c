// The new value of an integer atomic (ATOM, RED) in one lane, from the old value in memory
// and the operands, as the golden model's `lane::atom` computes it: add, min, max (signed for
// .s32 and .s64), inc and dec (wrapping at b), and, or, xor, exch and cas, on `n` bytes (4
// or 8). The float forms (add on f32, add, min and max on the 16-bit floats and their pairs)
// are sgpu_atom_float's. Combinational.
//
// Package names are written out in full (sgpu_isa_pkg::) rather than imported, so that yosys
// reads the module as Verilator does.
module sgpu_atom_alu (
  input  sgpu_isa_pkg::aop_e aop_i,
  input  sgpu_isa_pkg::aty_e aty_i,
  input  logic               wide_i,   // 8 bytes, else 4
  input  logic [63:0]        old_i,
  input  logic [63:0]        b_i,
  input  logic [63:0]        c_i,
  output logic [63:0]        new_o
);

  logic [63:0] mask, old, b, c;
  logic        signed_cmp, b_less, b_more;

  assign mask = wide_i ? '1 : 64'h0000_0000_ffff_ffff;
  assign old  = old_i & mask;
  assign b    = b_i & mask;
  assign c    = c_i & mask;
  assign signed_cmp = aty_i == sgpu_isa_pkg::ATY_S32 || aty_i == sgpu_isa_pkg::ATY_S64;

  // Comparisons of b with the old value: on the value's width, signed for .s32 and .s64.
  always_comb begin
    if (!signed_cmp) begin
      b_less = b < old;
      b_more = b > old;
    end else if (wide_i) begin
      b_less = $signed(b) < $signed(old);
      b_more = $signed(b) > $signed(old);
    end else begin
      b_less = $signed(b[31:0]) < $signed(old[31:0]);
      b_more = $signed(b[31:0]) > $signed(old[31:0]);
    end
  end

  logic [63:0] result;
  always_comb begin
    unique case (aop_i)
      sgpu_isa_pkg::AOP_ADD:  result = old + b;
      sgpu_isa_pkg::AOP_MIN:  result = b_less ? b : old;
      sgpu_isa_pkg::AOP_MAX:  result = b_more ? b : old;
      sgpu_isa_pkg::AOP_INC:  result = (old >= b) ? '0 : old + 64'd1;
      sgpu_isa_pkg::AOP_DEC:  result = (old == '0 || old > b) ? b : old - 64'd1;
      sgpu_isa_pkg::AOP_AND:  result = old & b;
      sgpu_isa_pkg::AOP_OR:   result = old | b;
      sgpu_isa_pkg::AOP_XOR:  result = old ^ b;
      sgpu_isa_pkg::AOP_EXCH: result = b;
      sgpu_isa_pkg::AOP_CAS:  result = (old == b) ? c : old;
      default:                result = old;
    endcase
  end
  assign new_o = result & mask;

endmodule
