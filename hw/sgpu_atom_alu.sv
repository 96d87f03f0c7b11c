// The new value of an integer atomic (ATOM, RED) in one lane, from the old value in memory
// and the operands, as the golden model's `lane::atom` computes it: add, min, max (signed for
// .s32 and .s64), inc and dec (wrapping at b), and, or, xor, exch and cas, on `n` bytes (4
// or 8). The float forms (add on f32, add, min and max on the 16-bit floats and their pairs)
// are sgpu_atom_float's.
//
// Every operation is one choice, cond ? yes : no (min: b below the old value ? b : old; inc:
// old at or above b ? 0 : old + 1; add: always the sum), so the unit is two halves: the
// comparisons, sums and both candidates, then that choice. Combinational when REGISTERED is
// 0 (the first core, which reads new_o in the cycle it gives the operands); with 1 the
// halves have a register between them, new_o following the operands a cycle later, which
// leaves one 64-bit carry chain a cycle (core v2's shared-memory atomics).
//
// Package names are written out in full (sgpu_isa_pkg::) rather than imported, so that yosys
// reads the module as Verilator does.
module sgpu_atom_alu #(
  parameter bit REGISTERED = 1'b0
) (
  input  logic               clk_i,    // used when REGISTERED
  input  sgpu_isa_pkg::aop_e aop_i,
  input  sgpu_isa_pkg::aty_e aty_i,
  input  logic               wide_i,   // 8 bytes, else 4
  input  logic [63:0]        old_i,
  input  logic [63:0]        b_i,
  input  logic [63:0]        c_i,
  output logic [63:0]        new_o
);

  logic [63:0] mask, old, b, c, flip;
  logic        signed_cmp, b_less, b_more;

  assign mask = wide_i ? '1 : 64'h0000_0000_ffff_ffff;
  assign old  = old_i & mask;
  assign b    = b_i & mask;
  assign c    = c_i & mask;
  // Only min and max compare signed (on .s32 and .s64); inc and dec wrap unsigned whatever
  // the type.
  assign signed_cmp = (aty_i == sgpu_isa_pkg::ATY_S32 || aty_i == sgpu_isa_pkg::ATY_S64)
                      && (aop_i == sgpu_isa_pkg::AOP_MIN || aop_i == sgpu_isa_pkg::AOP_MAX);

  // Comparisons of b with the old value, on the value's width: signed as unsigned with the
  // sign bits flipped, so that one carry chain serves both.
  assign flip   = !signed_cmp ? '0 : wide_i ? 64'h8000_0000_0000_0000 : 64'h0000_0000_8000_0000;
  assign b_less = (b ^ flip) < (old ^ flip);
  assign b_more = (b ^ flip) > (old ^ flip);

  // The choice and its candidates, on the value's bytes.
  logic        cond;
  logic [63:0] yes, no;
  always_comb begin
    cond = 1'b1;
    no   = old;
    unique case (aop_i)
      sgpu_isa_pkg::AOP_ADD:  yes = old + b;
      sgpu_isa_pkg::AOP_MIN: begin
        cond = b_less;
        yes  = b;
      end
      sgpu_isa_pkg::AOP_MAX: begin
        cond = b_more;
        yes  = b;
      end
      sgpu_isa_pkg::AOP_INC: begin
        cond = !b_more;  // old at or above b
        yes  = '0;
        no   = (old + 64'd1) & mask;
      end
      sgpu_isa_pkg::AOP_DEC: begin
        cond = old == '0 || b_less;
        yes  = b;
        no   = (old - 64'd1) & mask;
      end
      sgpu_isa_pkg::AOP_AND:  yes = old & b;
      sgpu_isa_pkg::AOP_OR:   yes = old | b;
      sgpu_isa_pkg::AOP_XOR:  yes = old ^ b;
      sgpu_isa_pkg::AOP_EXCH: yes = b;
      sgpu_isa_pkg::AOP_CAS: begin
        cond = old == b;
        yes  = c;
      end
      default: begin
        cond = 1'b0;
        yes  = old;
      end
    endcase
    yes = yes & mask;
  end

  if (REGISTERED) begin : g_registered
    logic        cond_q;
    logic [63:0] yes_q, no_q;
    always_ff @(posedge clk_i) begin
      cond_q <= cond;
      yes_q  <= yes;
      no_q   <= no;
    end
    assign new_o = cond_q ? yes_q : no_q;
  end else begin : g_combinational
    logic unused_clk;
    assign unused_clk = clk_i;
    assign new_o = cond ? yes : no;
  end

endmodule
