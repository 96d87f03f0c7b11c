// The f32 divider: FDIV (a / b), FSQRT (sqrt a) and FRCP (1 / a), correctly rounded in every
// rounding mode the ISA encodes, with and without `.ftz`, bit for bit what the golden model
// computes (sim/src/float.rs: `div` and `sqrt`, FRCP as div(1.0, a), as sim/src/exec/float.rs
// calls them): subnormal inputs normalised, subnormal results rounded at their own last place,
// overflow to infinity or the largest finite value by mode, the canonical NaN 0x7fffffff for
// every invalid operation and NaN input, sqrt(-0) = -0, `.ftz` on the inputs and on the
// rounded result. One unit serves all the lanes of a core, one lane's operation at a time.
//
// Digit recurrence, radix 2, restoring, two steps a cycle through one datapath (a 28-bit
// subtractor twice over) that finds a quotient bit or a root bit a step:
// - Division: the significands x and y (24 bits, leading one at bit 23) as the remainder
//   r = x and the divisor d = 2y; a step doubles r and takes d off where that leaves r >= 0,
//   the quotient bit being whether it did. A first step (FD_FIRST) doubles x instead when
//   x < y, one binade down, so that the quotient's leading one is always its first bit.
// - Square root: the radicand x (doubled for an odd exponent, which then halves exactly) as
//   pairs of bits from the top, and the root q so far: a step brings the next pair into r
//   and takes off 4q + 1 where that leaves r >= 0, the bit going into q (the integer root).
//   The first pair is not zero, so the first bit is the root's leading one.
// Rounding needs the 24 bits from the leading one, the round bit below them and whether
// anything below that is nonzero (the sticky bit). A subnormal result's last place moves up
// with its exponent, which is known before the steps: so the steps shift into q only the
// bits down to the round bit (25 for a normal result, as many fewer for a subnormal one as
// its exponent is below the smallest normal's, none below 2^-151) and OR the later ones into
// the sticky bit, with the final remainder's being nonzero. q then holds the result's
// significand and round bit right-aligned, normal or subnormal, with no shifter after the
// steps, and one addition of the exponent field encodes it and carries a round-up into the
// next binade (from the subnormals into the normals too), as sim/src/float.rs's `round`
// does. 26 steps find the 25 bits and one more; the remainder stands for the rest exactly,
// so the result is the exact value rounded once.
//
// Subnormal operands are normalised by one normaliser in two halves, a cycle apart, so that
// the count of leading zeros and the shift by it are not one path: the divisor's (or
// radicand's) zeros are counted, then its significand shifted while the dividend's zeros
// are counted, then the dividend shifted. The exponent is summed on the way from the fields
// and the counts registered the cycle before.
//
// Latency, the same for every operation and operand: with start_i high in cycle t, done_o is
// high in cycle t + 19 (three cycles of the normaliser, one for the first division step,
// thirteen of two steps, one to round into the output register). busy_o is high from t + 1
// up to the cycle before done_o, so a new start_i may come with done_o; d_o holds the result
// from done_o until the next start. start_i while busy abandons the operation under way and
// begins the new one.
//
// The datapath is not held at zero while idle (operand isolation, hw/README.md): there is
// one divider a core, so a simulation loses little by evaluating it, and gating it cost 70
// to 150 LUT4 on the ECP5.
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
  localparam logic [3:0] LAST_ITER = 4'd12;  // thirteen cycles of two steps

  typedef enum logic [2:0] {
    FD_IDLE   = 3'd0,
    FD_LEAD_Y = 3'd1,  // the leading zeros of the divisor (FDIV's b, FRCP's a) or radicand
    FD_LEAD_X = 3'd2,  // y normalised; the leading zeros of the dividend (FDIV's a, FRCP's 1)
    FD_NORM_X = 3'd3,  // x normalised
    FD_FIRST  = 3'd4,  // x against y: the quotient's binade
    FD_ITER   = 3'd5,  // two quotient or root bits a cycle
    FD_ROUND  = 3'd6   // the rounded result
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
  logic              sqrt_q;    // FSQRT
  logic              rcp_q;     // FRCP (neither: FDIV)
  logic [1:0]        rnd_q;
  logic              ftz_q;
  logic [31:0]       a_q, b_q;
  // The operands' classes after `.ftz`: NaN, infinity, zero, and their signs. x is the
  // dividend, y the divisor or the radicand.
  logic              x_nan_q, x_inf_q, x_zero_q, x_sign_q;
  logic              y_nan_q, y_inf_q, y_zero_q, y_sign_q;
  // The exponent, summed over the normaliser's cycles (see the states). From FD_ITER on, the
  // result's exponent field less one if it is normal (q's leading one adds the one back),
  // negative for a subnormal: -152 to 403.
  logic signed [9:0] exp_q;
  logic [4:0]        lz_q;      // the leading zeros counted the cycle before
  // The bits of q still to take from the steps, and the sticky bit of those after them.
  logic [4:0]        keep_q;
  logic              sticky_q;
  // The partial remainder; the quotient or root bits taken; the divisor 2y, or the
  // radicand's bits still to bring in, two a step from the top.
  logic [26:0]       rem_q;
  logic [24:0]       quo_q;
  logic [25:0]       dvs_q;
  logic              done_q;
  logic [31:0]       d_q;

  // A value's parts after `.ftz` (flush): NaN, infinity, zero, sign, the significand, and
  // the exponent field (1 for a subnormal, whose exponent is the smallest normal's). As a
  // flat vector: yosys 0.23 drops a struct a function returns.
  function automatic logic [35:0] parts(logic [31:0] v, logic flush);
    logic [7:0]  field;
    logic [22:0] frac;
    field = v[30:23];
    frac  = (flush && field == 8'h00) ? 23'h0 : v[22:0];
    parts = {field == 8'hff && frac != 23'h0, field == 8'hff && frac == 23'h0,
             field == 8'h00 && frac == 23'h0, v[31], field != 8'h00, frac,
             field == 8'h00 ? 8'd1 : field};
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

  // The bits q takes for a result whose exponent field less one is e: 25 (to the round bit)
  // for a normal result, as many fewer for a subnormal one as its place is below the
  // smallest normal's, none from 2^-151 down.
  function automatic logic [4:0] keep_of(logic signed [9:0] e);
    if (e >= 10'sd0) keep_of = 5'd25;
    else if (e <= -10'sd25) keep_of = 5'd0;
    else keep_of = 5'(e + 10'sd25);
  endfunction

  // The datapath of the states before rounding.
  logic [31:0]       y_in, x_in;         // the operands
  logic [35:0]       p;                  // FD_LEAD_Y, FD_LEAD_X: an operand's parts
  logic              p_nan, p_inf, p_zero, p_sign;
  logic [23:0]       p_sig;
  logic [7:0]        p_field;
  logic [4:0]        p_lz;               // and its leading zeros
  logic [35:0]       n;                  // FD_LEAD_X, FD_NORM_X: an operand's parts
  logic [23:0]       n_sig;              // and its significand, normalised by lz_q
  logic [27:0]       s1, s2;             // FD_FIRST, FD_ITER: the steps' bits and remainders
  logic signed [9:0] first_exp1, first_exp0;  // FD_FIRST: the exponent, x >= y or x < y
  logic [4:0]        keep;               // FD_ITER: the bits the cycle keeps of two
  logic [24:0]       q1, q2;             // the bits taken after each step
  logic              lost;
  always_comb begin
    // One normaliser for both operands, in two halves a cycle apart: it counts one's
    // leading zeros while it shifts the other's significand by the count of the cycle
    // before.
    y_in  = sqrt_q || rcp_q ? a_q : b_q;
    x_in  = rcp_q ? ONE : a_q;
    p     = parts(state_q == FD_LEAD_Y ? y_in : x_in, ftz_q);
    p_lz  = p_sig == 24'h0 ? 5'd0 : 5'(sgpu_core_pkg::lzc128({p_sig, {104{1'b1}}}));
    n     = parts(state_q == FD_LEAD_X ? y_in : x_in, ftz_q);
    n_sig = n[31:8] << lz_q;

    // FD_FIRST: 2x - 2y, from the remainder x and the divisor 2y; the quotient x / y is in
    // [1, 2) when it is not negative, else in [1/2, 1), and x is doubled. (A root's first
    // step, from the radicand's first pair, which is not zero, finds its leading one.)
    s1 = step(sqrt_q, rem_q[25:0], quo_q, dvs_q[24:0], dvs_q[25:24]);
    first_exp1 = exp_q - 10'(lz_q);
    first_exp0 = exp_q - 10'(lz_q) - 10'sd1;

    // FD_ITER: the second step on the first's remainder and (for a root) its bit, each
    // bit going into q while keep_q lasts.
    keep = keep_q > 5'd2 ? 5'd2 : keep_q;
    q1   = keep != 5'd0 ? {quo_q[23:0], s1[27]} : quo_q;
    s2   = step(sqrt_q, s1[25:0], q1, dvs_q[24:0], dvs_q[23:22]);
    q2   = keep == 5'd2 ? {q1[23:0], s2[27]} : q1;
    lost = (keep == 5'd0 && s1[27]) || (keep != 5'd2 && s2[27]);
  end

  assign {p_nan, p_inf, p_zero, p_sign, p_sig, p_field} = p;

  // The parts of the operand shifted that the other cycle took already.
  logic unused_n;
  assign unused_n = ^{n[35:32], n[7:0]};

  // The remainder after the first step of two, never the last, is below 2^26.
  logic unused_s1;
  assign unused_s1 = s1[26];

  // FD_ROUND: the bits kept (quo_q[24:1]), the round bit (quo_q[0]) and the sticky rest.
  logic        r_sign, r_rest, r_up, r_to_inf;
  logic [31:0] r_bits, r_result;
  logic        r_nan, r_inf, r_zero, r_over, r_big, f_inf, f_max, f_zero, f_flush;
  logic [30:0] r_ones, r_zeros;
  always_comb begin
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
    r_up     = sgpu_core_pkg::round_up(rnd_q, r_sign, quo_q[1], quo_q[0], r_rest);
    r_to_inf = sgpu_core_pkg::to_infinity(rnd_q, r_sign);

    // The exponent field above the fraction (at most 403 + 1 with q's leading one, so the
    // sum stays below 2^32), zero for a subnormal; a round-up past the fraction carries
    // into the next binade.
    r_bits = {exp_q[9] ? 9'h0 : exp_q[8:0], 23'h0} + {8'h0, quo_q[24:1]}
             + {31'h0, r_up};
    // The result is NaN, infinity, the largest finite value or zero, or else the rounded
    // bits (past the largest finite value, infinity or that by mode, as with r_over), with
    // `.ftz` flushing a subnormal: each bit the rounded one, a one or a zero. A subnormal
    // stays one unless all its fraction rounds up, which the flush sees beside the addition
    // rather than after it.
    r_over = r_bits[31] || r_bits[30:23] == 8'hff;
    r_big  = !r_inf && !r_zero && r_over;
    f_inf  = !r_nan && (r_inf || (r_big && r_to_inf));
    f_max  = !r_nan && r_big && !r_to_inf;
    f_zero = !r_nan && !r_inf && r_zero;
    f_flush = ftz_q && exp_q[9] && !(quo_q[23:1] == 23'h7f_ffff && r_up) && !r_nan;
    r_ones  = {{7{r_nan || f_inf || f_max}}, r_nan || f_inf, {23{r_nan || f_max}}};
    r_zeros = {{7{f_zero}}, f_zero || f_max, {23{f_inf || f_zero || f_flush}}};
    r_result = {r_sign && !r_nan, (r_bits[30:0] | r_ones) & ~r_zeros};
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q  <= FD_IDLE;
      count_q  <= 4'd0;
      sqrt_q   <= 1'b0;
      rcp_q    <= 1'b0;
      rnd_q    <= 2'd0;
      ftz_q    <= 1'b0;
      a_q      <= 32'h0;
      b_q      <= 32'h0;
      {x_nan_q, x_inf_q, x_zero_q, x_sign_q} <= 4'h0;
      {y_nan_q, y_inf_q, y_zero_q, y_sign_q} <= 4'h0;
      exp_q    <= 10'sd0;
      lz_q     <= 5'd0;
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
        state_q <= FD_LEAD_Y;
        sqrt_q  <= op == sgpu_isa_pkg::OP_FSQRT;
        rcp_q   <= op == sgpu_isa_pkg::OP_FRCP;
        rnd_q   <= instr_i[sgpu_isa_pkg::RND_MSB:sgpu_isa_pkg::RND_LSB];
        ftz_q   <= instr_i[sgpu_isa_pkg::FTZ_LSB];
        a_q     <= a_i;
        b_q     <= b_i;
      end else begin
        unique case (state_q)
          FD_IDLE: ;
          FD_LEAD_Y: begin
            // exp_q: y's exponent field.
            state_q <= FD_LEAD_X;
            {y_nan_q, y_inf_q, y_zero_q, y_sign_q} <= {p_nan, p_inf, p_zero, p_sign};
            exp_q <= 10'(p_field);
            lz_q  <= p_lz;
            // A root's first step (FD_FIRST) starts from no remainder and no root bits.
            rem_q <= 27'h0;
            quo_q <= 25'h0;
          end
          FD_LEAD_X: begin
            // exp_q: the result's exponent field less one, but for x's leading zeros (a
            // quotient: 127 + (x's field - 127 - x's zeros) - (y's field - 127 - y's
            // zeros), less one). A root's: half y's exponent, plus 127, less one.
            state_q <= FD_NORM_X;
            {x_nan_q, x_inf_q, x_zero_q, x_sign_q} <= {p_nan, p_inf, p_zero, p_sign};
            if (sqrt_q) begin
              exp_q <= ($signed(exp_q - 10'(lz_q) + 10'sd1) >>> 1) + 10'sd62;
              lz_q  <= 5'd0;
            end else begin
              exp_q <= 10'(p_field) - exp_q + 10'(lz_q) + 10'sd126;
              lz_q  <= p_lz;
            end
            // A radicand whose exponent (its field - 127 - its zeros) is odd is doubled, so
            // that its root's exponent is half an even one.
            if (sqrt_q && exp_q[0] == lz_q[0]) dvs_q <= {n_sig, 2'b00};
            else dvs_q <= {1'b0, n_sig, 1'b0};
          end
          FD_NORM_X: begin
            state_q <= FD_FIRST;
            if (!sqrt_q) rem_q <= {3'b0, n_sig};
          end
          FD_FIRST: begin
            state_q  <= FD_ITER;
            count_q  <= LAST_ITER;
            sticky_q <= 1'b0;
            if (s1[27]) begin
              exp_q  <= first_exp1;
              keep_q <= keep_of(first_exp1);
            end else begin
              exp_q  <= first_exp0;
              keep_q <= keep_of(first_exp0);
              rem_q  <= {rem_q[25:0], 1'b0};
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
