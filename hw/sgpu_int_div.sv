// Integer divider of one lane, for IDIV (OP_IDIV): the quotient, or with rem the remainder,
// of a / b, unsigned or signed (sgn), of 32 bits or of 64 (w64, register pairs), bit-exactly
// as the golden model (the Op::Idiv arm of sim/src/exec/int.rs and lane::divide64):
// - the quotient is truncated toward zero, and a remainder has the sign of the dividend;
// - division by zero gives all ones (quotient) and the dividend (remainder), signed or not;
// - the most negative value divided by -1 wraps to itself, with a remainder of zero.
// A 32-bit result comes in the low word, the high word zero.
//
// Radix 2, restoring: it divides the operands' magnitudes, one quotient bit a cycle with one
// 65-bit subtractor, then gives the result its sign. Latency, whatever the operands: with
// start_i high in cycle t, done_o is high in cycle t + 35 for 32 bits and t + 67 for 64 (a
// cycle to take the magnitudes, one a quotient bit, one to sign the result into the output
// register). busy_o is high from t + 1 up to the cycle before done_o, so a new start_i may
// come with done_o. start_i while busy abandons the division under way and begins the new one.
module sgpu_int_div (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        start_i,   // one cycle: take the operands and begin
  input  logic        sgn_i,     // signed
  input  logic        rem_i,     // remainder rather than quotient
  input  logic        w64_i,     // 64-bit operands and result (register pairs); else 32-bit
  input  logic [63:0] a_i,       // dividend (32-bit: low word meaningful, high ignored)
  input  logic [63:0] b_i,       // divisor (likewise)
  output logic        busy_o,
  output logic        done_o,    // one cycle, result valid in that cycle (and held until the
                                 // next start)
  output logic [63:0] result_o   // 32-bit forms: the 32-bit result in the low word, high word
                                 // zero
);

  typedef enum logic [1:0] {
    DIV_IDLE = 2'd0,
    DIV_PREP = 2'd1,  // the operands' magnitudes and signs
    DIV_ITER = 2'd2,  // one quotient bit a cycle
    DIV_SIGN = 2'd3   // the result's sign
  } div_state_e;

  div_state_e  state_q;
  logic [5:0]  count_q;      // quotient bits still to find, less one
  logic        sgn_q;
  logic        rem_q;
  logic        w64_q;
  logic        neg_a_q;      // the dividend is negative (signed only)
  logic        neg_b_q;      // the divisor is negative (signed only)
  // The partial remainder; the dividend, shifted out at the top as the quotient shifts in at
  // the bottom (a 32-bit dividend starts in the high word); the divisor. The operands are
  // loaded raw on start_i and replaced by their magnitudes in DIV_PREP.
  logic [63:0] part_q;
  logic [63:0] quo_q;
  logic [63:0] dvs_q;
  logic        done_q;
  logic [63:0] result_q;

  // The datapath of each state, resting at zero while idle (operand isolation: a
  // simulation by Verilator skips it in the idle lanes' dividers, nearly all of them nearly
  // always).
  logic [63:0] a_ext, b_ext, a_mag, b_mag;
  logic        a_neg, b_neg;
  logic [64:0] shifted, trial;
  logic        quo_bit;
  logic [63:0] mag, signed_mag;
  logic        negate;
  always_comb begin
    {a_ext, b_ext, a_mag, b_mag, a_neg, b_neg} = '0;
    {shifted, trial, quo_bit, mag, signed_mag, negate} = '0;
    if (state_q != DIV_IDLE) begin
      // DIV_PREP: the operands, extended to 64 bits as their width and signedness say.
      a_ext = w64_q ? quo_q : {{32{sgn_q & quo_q[31]}}, quo_q[31:0]};
      b_ext = w64_q ? dvs_q : {{32{sgn_q & dvs_q[31]}}, dvs_q[31:0]};
      a_neg = sgn_q & a_ext[63];
      b_neg = sgn_q & b_ext[63];
      // A 32-bit magnitude is at most 2^31, so its high word is zero.
      a_mag = a_neg ? 64'd0 - a_ext : a_ext;
      b_mag = b_neg ? 64'd0 - b_ext : b_ext;

      // DIV_ITER: the partial remainder shifted left, taking the dividend's next bit, less
      // the divisor. The partial remainder stays below the divisor (or, dividing by zero,
      // within the dividend's bits), so the shifted one is below twice the divisor and the
      // difference is negative exactly when bit 64 is set.
      shifted = {part_q, quo_q[63]};
      trial   = shifted - {1'b0, dvs_q};
      quo_bit = ~trial[64];

      // DIV_SIGN: the quotient is negative when exactly one operand is, except that
      // division by zero gives all ones whatever the signs; the remainder takes the
      // dividend's sign (and so, dividing by zero, is the dividend).
      mag        = rem_q ? part_q : quo_q;
      negate     = rem_q ? neg_a_q : (neg_a_q ^ neg_b_q) & (dvs_q != 64'd0);
      signed_mag = negate ? 64'd0 - mag : mag;
    end
  end

  // One process rather than a next-state block and registers: idle, a lane's divider does
  // nothing but keep done_o low, which spares a simulation the idle lanes' register copies.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q  <= DIV_IDLE;
      count_q  <= 6'd0;
      sgn_q    <= 1'b0;
      rem_q    <= 1'b0;
      w64_q    <= 1'b0;
      neg_a_q  <= 1'b0;
      neg_b_q  <= 1'b0;
      part_q   <= 64'd0;
      quo_q    <= 64'd0;
      dvs_q    <= 64'd0;
      done_q   <= 1'b0;
      result_q <= 64'd0;
    end else begin
      done_q <= 1'b0;
      if (start_i) begin
        state_q <= DIV_PREP;
        sgn_q   <= sgn_i;
        rem_q   <= rem_i;
        w64_q   <= w64_i;
        quo_q   <= a_i;
        dvs_q   <= b_i;
      end else begin
        unique case (state_q)
          DIV_IDLE: ;
          DIV_PREP: begin
            state_q <= DIV_ITER;
            count_q <= w64_q ? 6'd63 : 6'd31;
            neg_a_q <= a_neg;
            neg_b_q <= b_neg;
            part_q  <= 64'd0;
            quo_q   <= w64_q ? a_mag : {a_mag[31:0], 32'd0};
            dvs_q   <= b_mag;
          end
          DIV_ITER: begin
            part_q  <= quo_bit ? trial[63:0] : shifted[63:0];
            quo_q   <= {quo_q[62:0], quo_bit};
            count_q <= count_q - 6'd1;
            if (count_q == 6'd0) begin
              state_q <= DIV_SIGN;
            end
          end
          DIV_SIGN: begin
            state_q  <= DIV_IDLE;
            done_q   <= 1'b1;
            result_q <= w64_q ? signed_mag : {32'd0, signed_mag[31:0]};
          end
          default: state_q <= DIV_IDLE;
        endcase
      end
    end
  end

  assign busy_o   = state_q != DIV_IDLE;
  assign done_o   = done_q;
  assign result_o = result_q;

endmodule
