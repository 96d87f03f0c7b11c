// The f32 divider: FDIV (a / b), FSQRT (sqrt a) and FRCP (1 / a), correctly rounded in every
// rounding mode the ISA encodes, with and without `.ftz`, bit for bit what the golden model
// computes (sim/src/float.rs: `div` and `sqrt`, FRCP as div(1.0, a), as sim/src/exec/float.rs
// calls them): subnormal inputs normalised, subnormal results rounded at their own last place,
// overflow to infinity or the largest finite value by mode, the canonical NaN 0x7fffffff for
// every invalid operation and NaN input, sqrt(-0) = -0, `.ftz` on the inputs and on the
// rounded result. One unit serves all the lanes of a core, one lane's operation at a time.
//
// Digit recurrence, radix 2, restoring, two steps a cycle: one datapath, a 29-bit subtractor
// twice over, finds a quotient bit or a root bit a step.
// - Division: the significands x and y (24 bits, leading one at bit 23) as the remainder
//   r = x and the divisor d = 2y; a step doubles r and takes d off where that leaves r >= 0,
//   the quotient bit being whether it did. A first step (NORM_X below) doubles x instead
//   when x < y, one binade down, so that the quotient's leading one is always its first bit.
// - Square root: the radicand x (x scaled by 2 for an odd exponent, which halves exactly) as
//   pairs of bits from the top, root q: a step brings the next pair into r and takes off
//   4q + 1 where that leaves r >= 0, the bit going into q (the integer square root).
// Rounding needs the 24 bits from the leading one, the round bit below them and whether
// anything below that is nonzero (sticky). The bits of a subnormal result's last place move
// up with its exponent, which is known before the steps: the steps shift into q only the
// bits above and at the round bit (25 for a normal result, 25 less the places below the
// smallest normal for a subnormal one, none below 2^-151), and OR the later bits into the
// sticky bit, with the final remainder's being nonzero. q then holds the result's
// significand and round bit right-aligned, normal or subnormal, and one addition of the
// exponent field encodes it and carries a round-up into the next binade (from the subnormals
// into the normals too), as sim/src/float.rs's `round` does. 26 steps find 25 bits and one
// below them: the remainder is the rest, exact, so the result is the exact one rounded.
//
// Latency, the same for every operation and operand: with start_i high in cycle t, done_o is
// high in cycle t + 18 (a cycle to normalise each operand, one for the first division step,
// thirteen of two steps, one to round into the output register). busy_o is high from t + 1
// up to the cycle before done_o, so a new start_i may come with done_o; d_o holds the result
// from done_o until the next start. start_i while busy abandons the operation under way and
// begins the new one.
module sgpu_fdiv (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        start_i,   // one cycle: take instr_i, a_i, b_i and begin (a start
                                 // while busy abandons the one under way)
  input  logic [63:0] instr_i,   // an FDIV, FSQRT or FRCP word
  input  logic [31:0] a_i,       // ra
  input  logic [31:0] b_i,       // rb (FDIV only)
  output logic        busy_o,
  output logic        done_o,    // one cycle; d_o holds the result from then until the next
                                 // start
  output logic [31:0] d_o
);

  localparam logic [31:0] ONE = 32'h3f80_0000;  // FRCP's dividend
  localparam logic [31:0] QNAN = 32'h7fff_ffff;  // the canonical NaN
  localparam logic [3:0] LAST_ITER = 4'd12;  // thirteen cycles of two steps

  typedef enum logic [2:0] {
    FD_IDLE   = 3'd0,
    FD_NORM_Y = 3'd1,  // the divisor (FDIV's b, FRCP's a) or the radicand, normalised
    FD_NORM_X = 3'd2,  // the dividend (FDIV's a, FRCP's 1.0), normalised
    FD_FIRST  = 3'd3,  // x against y: the quotient's binade
    FD_ITER   = 3'd4,  // two quotient or root bits a cycle
    FD_ROUND  = 3'd5   // the rounded result
  } fd_state_e;

  logic [sgpu_isa_pkg::OP_MSB-sgpu_isa_pkg::OP_LSB:0] op;
  assign op = instr_i[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB];

  // The guard is the core's business, and the register numbers the register file's.
  logic unused_instr;
  assign unused_instr = ^{instr_i[sgpu_isa_pkg::PGN_MSB:sgpu_isa_pkg::PGN_LSB],
                          instr_i[sgpu_isa_pkg::PG_MSB:sgpu_isa_pkg::PG_LSB],
                          instr_i[sgpu_isa_pkg::RD_MSB:sgpu_isa_pkg::RD_LSB],
                          instr_i[sgpu_isa_pkg::RA_MSB:sgpu_isa_pkg::RA_LSB],
                          instr_i[sgpu_isa_pkg::RB_MSB:sgpu_isa_pkg::RB_LSB]};

  fd_state_e         state_q;
  logic [3:0]        count_q;   // cycles of FD_ITER still to come, less one
  logic              sqrt_q;    // FSQRT (else a division: FDIV or FRCP)
  logic [1:0]        rnd_q;
  logic              ftz_q;
  // The operands as given: the dividend (1.0 for FRCP; FSQRT's a, unread) and the divisor or
  // radicand.
  logic [31:0]       x_q, y_q;
  // The operands' classes after `.ftz`: NaN, infinity, zero, and their signs.
  logic              x_nan_q, x_inf_q, x_zero_q, x_sign_q;
  logic              y_nan_q, y_inf_q, y_zero_q, y_sign_q;
  // The result's exponent field if it is normal (a subnormal's is at most 0), the bits of q
  // still to take from the steps, and the sticky bit of those after them.
  logic signed [9:0] exp_q;
  logic [4:0]        keep_q;
  logic              sticky_q;
  // The partial remainder; the quotient or root bits taken; the divisor 2y, or the
  // radicand's bits still to bring in, two a step from the top.
  logic [26:0]       rem_q;
  logic [24:0]       quo_q;
  logic [25:0]       dvs_q;
  logic              done_q;
  logic [31:0]       d_q;

  // A value's parts after `.ftz` (flush): NaN, infinity, zero, sign, the significand
  // normalised (its leading one at bit 23), and the exponent of that bit (-149 to 127). As a
  // flat vector: yosys 0.23 drops a struct a function returns.
  function automatic logic [37:0] parts(logic [31:0] v, logic flush);
    logic [7:0]        field;
    logic [22:0]       frac;
    logic [23:0]       sig;
    logic [4:0]        lz;
    logic signed [9:0] e;
    field = v[30:23];
    frac  = (flush && field == 8'h00) ? 23'h0 : v[22:0];
    sig   = {field != 8'h00, frac};
    lz    = sig == 24'h0 ? 5'd0 : 5'(sgpu_core_pkg::lzc128({sig, {104{1'b1}}}));
    e     = (field == 8'h00) ? -10'sd126 : $signed({2'b00, field}) - 10'sd127;
    parts = {field == 8'hff && frac != 23'h0, field == 8'hff && frac == 23'h0,
             field == 8'h00 && frac == 23'h0, v[31], sig << lz, e - $signed({5'b0, lz})};
  endfunction

  // One step of the recurrence: the new quotient or root bit and the partial remainder.
  // Division: r < d < 2^25, so 2r < 2^26; d is taken off when it fits. Square root: r <= 2q
  // (q the root so far, below 2^25 before the last step), so 4r + pair < 2^28; 4q + 1 is
  // taken off when it fits, and what stays is again at most twice the root, below 2^27.
  // The difference is therefore above -2^27 and, where it is kept, below 2^27: 28 bits
  // hold it with its sign.
  function automatic logic [27:0] step(logic sqrt, logic [25:0] r, logic [24:0] q,
                                       logic [24:0] d, logic [1:0] pair);
    logic [27:0] s, sub, t;
    s    = sqrt ? {r, pair} : {1'b0, r, 1'b0};
    sub  = sqrt ? {1'b0, q, 2'b01} : {3'b0, d};
    t    = s - sub;
    step = {!t[27], t[27] ? s[26:0] : t[26:0]};
  endfunction

  // The datapath of each state, resting at zero while idle (the unit waits most of the
  // time, and a simulation then skips it).
  logic [37:0]       p;                  // FD_NORM_Y, FD_NORM_X: the operand's parts
  logic              p_nan, p_inf, p_zero, p_sign;
  logic [23:0]       p_sig;
  logic signed [9:0] p_exp;
  logic [27:0]       s1, s2;             // FD_FIRST, FD_ITER: the steps' bits and remainders
  logic [24:0]       q1;                 // the root bits after the first step
  logic signed [9:0] first_exp;          // FD_FIRST: the exponent field of the quotient
  logic [4:0]        first_keep;         // and the bits to keep
  logic [4:0]        keep;               // FD_ITER: the bits the cycle keeps of two
  logic [24:0]       q2;
  logic              lost;
  always_comb begin
    {p, s1, s2, q1, first_exp, first_keep, keep, q2, lost} = '0;
    if (state_q != FD_IDLE) begin
      p = parts(state_q == FD_NORM_Y ? y_q : x_q, ftz_q);

      // FD_FIRST: 2x - 2y, from the remainder x and the divisor 2y; the quotient x / y is in
      // [1, 2) when it is not negative, else in [1/2, 1), and x is doubled. A normal result
      // keeps 25 bits (to the round bit); one in the subnormals as many fewer as its
      // exponent field is below 1.
      s1 = step(sqrt_q, rem_q[25:0], quo_q, dvs_q[24:0], dvs_q[25:24]);
      first_exp = s1[27] ? exp_q : exp_q - 10'sd1;
      if (first_exp >= 10'sd1) first_keep = 5'd25;
      else if (first_exp <= -10'sd24) first_keep = 5'd0;
      else first_keep = 5'(first_exp + 10'sd24);

      // FD_ITER: the second step on the first's remainder and (for a root) its bit, each
      // bit going into q while keep_q lasts.
      keep = keep_q > 5'd2 ? 5'd2 : keep_q;
      q1   = keep != 5'd0 ? {quo_q[23:0], s1[27]} : quo_q;
      s2   = step(sqrt_q, s1[25:0], q1, dvs_q[24:0], dvs_q[23:22]);
      q2   = keep == 5'd2 ? {q1[23:0], s2[27]} : q1;
      lost = (keep == 5'd0 && s1[27]) || (keep != 5'd2 && s2[27]);
    end
  end

  assign {p_nan, p_inf, p_zero, p_sign, p_sig, p_exp} = p;

  // The remainder after the first step of two, never the last, is below 2^26.
  logic unused_s1;
  assign unused_s1 = s1[26];

  // FD_ROUND: the bits kept, the round bit (at quo_q[0]) and the sticky rest.
  logic        r_sign, r_rest, r_up, r_to_inf;
  logic [8:0]  r_field;
  logic [31:0] r_bits, r_round, r_result;
  logic        r_nan, r_inf, r_zero;
  always_comb begin
    {r_sign, r_rest, r_up, r_to_inf, r_field, r_bits, r_round, r_result} = '0;
    {r_nan, r_inf, r_zero} = '0;
    if (state_q == FD_ROUND) begin
      // Invalid operations and NaN inputs, infinite and zero results, and their signs.
      if (sqrt_q) begin
        r_nan  = y_nan_q || (y_sign_q && !y_zero_q);
        r_inf  = y_inf_q;
        r_zero = y_zero_q;
        r_sign = y_sign_q;
      end else begin
        r_nan  = x_nan_q || y_nan_q || (x_zero_q && y_zero_q) || (x_inf_q && y_inf_q);
        r_inf  = x_inf_q || y_zero_q;
        r_zero = x_zero_q || y_inf_q;
        r_sign = x_sign_q ^ y_sign_q;
      end

      r_rest = sticky_q || rem_q != 27'h0;
      unique case (rnd_q)
        sgpu_isa_pkg::RND_RN: r_up = quo_q[0] && (r_rest || quo_q[1]);
        sgpu_isa_pkg::RND_RZ: r_up = 1'b0;
        sgpu_isa_pkg::RND_RM: r_up = r_sign && (quo_q[0] || r_rest);
        default:              r_up = !r_sign && (quo_q[0] || r_rest);  // RND_RP
      endcase
      unique case (rnd_q)
        sgpu_isa_pkg::RND_RN: r_to_inf = 1'b1;
        sgpu_isa_pkg::RND_RZ: r_to_inf = 1'b0;
        sgpu_isa_pkg::RND_RM: r_to_inf = r_sign;
        default:              r_to_inf = !r_sign;  // RND_RP
      endcase

      // The exponent field above the fraction, less one: a normal's leading one in q adds
      // it back, and a round-up past the fraction carries into the next binade. At most 402.
      r_field = exp_q >= 10'sd1 ? 9'(exp_q - 10'sd1) : 9'h0;
      r_bits  = {r_field, 23'h0} + {8'h0, quo_q[24:1]} + {31'h0, r_up};
      if (r_nan) r_round = QNAN;
      else if (r_inf) r_round = {r_sign, 31'h7f80_0000};
      else if (r_zero) r_round = {r_sign, 31'h0};
      else if (r_bits >= 32'h7f80_0000) r_round = {r_sign, r_to_inf ? 31'h7f80_0000
                                                                       : 31'h7f7f_ffff};
      else r_round = {r_sign, r_bits[30:0]};
      // `.ftz`: a subnormal result to a zero of its sign.
      r_result = r_round;
      if (ftz_q && r_round[30:23] == 8'h00) r_result[22:0] = 23'h0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q  <= FD_IDLE;
      count_q  <= 4'd0;
      sqrt_q   <= 1'b0;
      rnd_q    <= 2'd0;
      ftz_q    <= 1'b0;
      x_q      <= 32'h0;
      y_q      <= 32'h0;
      {x_nan_q, x_inf_q, x_zero_q, x_sign_q} <= 4'h0;
      {y_nan_q, y_inf_q, y_zero_q, y_sign_q} <= 4'h0;
      exp_q    <= 10'sd0;
      keep_q   <= 5'd0;
      sticky_q <= 1'b0;
      rem_q    <= 27'h0;
      quo_q    <= 25'h0;
      dvs_q    <= 26'h0;
      done_q   <= 1'b0;
      d_q      <= 32'h0;
    end else begin
      done_q <= 1'b0;
      if (start_i) begin
        state_q <= FD_NORM_Y;
        sqrt_q  <= op == sgpu_isa_pkg::OP_FSQRT;
        rnd_q   <= instr_i[sgpu_isa_pkg::RND_MSB:sgpu_isa_pkg::RND_LSB];
        ftz_q   <= instr_i[sgpu_isa_pkg::FTZ_LSB];
        x_q     <= op == sgpu_isa_pkg::OP_FRCP ? ONE : a_i;
        y_q     <= op == sgpu_isa_pkg::OP_FDIV ? b_i : a_i;
      end else begin
        unique case (state_q)
          FD_IDLE: ;
          FD_NORM_Y: begin
            state_q <= FD_NORM_X;
            {y_nan_q, y_inf_q, y_zero_q, y_sign_q} <= {p_nan, p_inf, p_zero, p_sign};
            if (sqrt_q) begin
              // The root's leading one comes from the radicand's first pair, and its place
              // is half the (even) exponent's.
              exp_q <= (p_exp >>> 1) + 10'sd127;
              dvs_q <= p_exp[0] ? {p_sig, 2'b00} : {1'b0, p_sig, 1'b0};
              rem_q <= 27'h0;
            end else begin
              exp_q <= 10'sd127 - p_exp;
              dvs_q <= {1'b0, p_sig, 1'b0};
            end
          end
          FD_NORM_X: begin
            state_q <= FD_FIRST;
            {x_nan_q, x_inf_q, x_zero_q, x_sign_q} <= {p_nan, p_inf, p_zero, p_sign};
            if (!sqrt_q) begin
              exp_q <= exp_q + p_exp;
              rem_q <= {3'b0, p_sig};
            end
          end
          FD_FIRST: begin
            state_q  <= FD_ITER;
            count_q  <= LAST_ITER;
            quo_q    <= 25'h0;
            sticky_q <= 1'b0;
            if (sqrt_q) begin
              keep_q <= 5'd25;
            end else begin
              exp_q  <= first_exp;
              keep_q <= first_keep;
              if (!s1[27]) rem_q <= {rem_q[25:0], 1'b0};
            end
          end
          FD_ITER: begin
            rem_q    <= s2[26:0];
            quo_q    <= q2;
            keep_q   <= keep_q - keep;
            sticky_q <= sticky_q || lost;
            if (sqrt_q) dvs_q <= {dvs_q[21:0], 4'h0};
            count_q  <= count_q - 4'd1;
            if (count_q == 4'd0) state_q <= FD_ROUND;
          end
          FD_ROUND: begin
            state_q <= FD_IDLE;
            done_q  <= 1'b1;
            d_q     <= r_result;
          end
          default: state_q <= FD_IDLE;
        endcase
      end
    end
  end

  assign busy_o = state_q != FD_IDLE;
  assign done_o = done_q;
  assign d_o    = d_q;

endmodule
