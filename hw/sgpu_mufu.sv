// The special function unit, MUFU: rcp, sqrt, rsqrt, ex2, lg2, sin, cos and tanh, with and
// without .ftz, bit for bit what the golden model computes (sim/src/mufu.rs: `eval`). One
// unit for the core, which gives it one lane's operand at a time. The output is zero for any
// other opcode.
//
// Every function is the model's four steps (docs/mufu.md): unpack the operand; reduce it to a
// table's range and read its segment's quadratic c0 + c1·t + c2·t² from the ROM
// (sgpu_mufu_pkg, generated with the model's tables); interpolate on t in fixed point, every
// product floored; round once to f32, to nearest with ties away from zero. The special
// operands (NaN, zeros, infinities, and the ranges where a function is x itself, ±1, 0 or
// infinity) take their results from the operand alone.
//
// t is kept as 24 bits, its first bit worth half a segment: a table interpolated on k < 24
// bits has 24 - k zeros below them, so that a product floored at 2^-24 is the model's
// product floored at 2^-k; the square, floored at 2^-k in the model, drops its 24 - k low
// bits for it (`keep`).
//
// Every multiplier is unsigned (a signed coefficient's sign is a subtraction after it, as
// the ALU's is: hw/README.md), in the DSP blocks:
// - the reduction: sin's and cos's significand times a 96-bit window of 1/(2·pi) (the turn
//   fraction of the exact argument, Payne-Hanek), and ex2's times a power of two (its
//   fixed point), both from one ROM (`sgpu_mufu_pkg::reduction`) addressed by the exponent;
// - t², c1·t and c2·t² for the quadratic;
// - lg2's u·g.
//
// Eight stages, one operation a cycle: the operation given with en_i in cycle n has its
// result on d_o in cycle n + LATENCY, and d_o is zero in every cycle that holds no result.
// 1. unpack: the class and the special results; a subnormal normalised (rcp, sqrt, rsqrt
//    and lg2 index by its fraction); the other table functions' segment, t and result
//    scale; the reduction ROM's address;
// 2. the reduction's product;
// 3. the reduced argument: a turn's quadrant and position in it, ex2's integer part and
//    fraction; the coefficient ROM's address;
// 4. t² and c1·t;
// 5. c2·t², and the quadratic's value y;
// 6. the value to round: lg2's e + u·y, sin's and cos's y at least 0, y itself otherwise;
// 7. its leading one, the result's exponent and where its last place falls;
// 8. the shift to that place, the rounding, .ftz, and the special results.
// The two ROMs are block RAM, each read in the stage before its data is used (their
// address registers are the pipeline's).
module sgpu_mufu (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        en_i,     // an operation this cycle
  input  logic [63:0] instr_i,  // the MUFU word
  input  logic [31:0] a_i,      // ra
  output logic [31:0] d_o       // rd, of the operation LATENCY cycles before
);

  // Cycles from an operation to its result on d_o; an operation may come every cycle.
  localparam int unsigned LATENCY = 8;

  localparam logic [31:0] QNAN = 32'h7fff_ffff;  // the canonical NaN
  localparam logic [30:0] INF  = 31'h7f80_0000;  // magnitudes
  localparam logic [30:0] ONE  = 31'h3f80_0000;

  // The model's fixed points (sim/src/mufu.rs): the tables' values in units of 2^-UNIT,
  // lg2's sum in 2^-LG2_POINT, ex2's argument in 2^-EX2_POINT; and sin(x) is x below
  // 2^SIN_MIN_EXP.
  localparam int UNIT        = 32;
  localparam int LG2_POINT   = 56;
  localparam int EX2_POINT   = 30;
  localparam int SIN_MIN_EXP = -12;

  localparam int unsigned TW  = 24;  // t
  localparam int unsigned AW  = sgpu_mufu_pkg::ROM_AW;
  localparam int unsigned C0W = sgpu_mufu_pkg::C0_W;
  localparam int unsigned C1W = sgpu_mufu_pkg::C1_W;
  localparam int unsigned C2W = sgpu_mufu_pkg::C2_W;
  localparam int unsigned YW  = C0W + 2;  // y: c0 and two terms below c0's range
  localparam int unsigned MW  = 64;  // the magnitude rounded: lg2's |e| < 2^8 at 2^56
  // The reduction's product, sig x window: the bits kept, from EX2_LSB (ex2's 2^-30) up to
  // its top; the turn fraction's are 95 down to EX2_LSB when the argument has whole turns,
  // and higher ones, shifted down, when it is smaller.
  localparam int unsigned WINW = sgpu_mufu_pkg::WINDOW_W;
  localparam int unsigned PW   = 24 + WINW - sgpu_mufu_pkg::EX2_LSB;
  localparam int unsigned RW   = WINW - sgpu_mufu_pkg::EX2_LSB;  // the reduced argument
  localparam int unsigned TURN = 2 + sgpu_mufu_pkg::SIN_BITS + TW;  // of it, sin's bits

  logic [sgpu_isa_pkg::OP_MSB-sgpu_isa_pkg::OP_LSB:0]     op;
  logic [sgpu_isa_pkg::MUFU_MSB-sgpu_isa_pkg::MUFU_LSB:0] func;
  logic                                                   ftz, go;
  assign op   = instr_i[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB];
  assign func = instr_i[sgpu_isa_pkg::MUFU_MSB:sgpu_isa_pkg::MUFU_LSB];
  assign ftz  = instr_i[sgpu_isa_pkg::FTZ_LSB];
  assign go   = en_i && op == sgpu_isa_pkg::OP_MUFU;

  // The bits this unit does not read are the core's (guard, registers) or zero.
  logic unused_instr;
  assign unused_instr = ^instr_i;

  logic f_rcp, f_sqrt, f_rsqrt, f_ex2, f_lg2, f_sin, f_cos, f_tanh;
  assign f_rcp   = func == sgpu_isa_pkg::MUFU_RCP;
  assign f_sqrt  = func == sgpu_isa_pkg::MUFU_SQRT;
  assign f_rsqrt = func == sgpu_isa_pkg::MUFU_RSQRT;
  assign f_ex2   = func == sgpu_isa_pkg::MUFU_EX2;
  assign f_lg2   = func == sgpu_isa_pkg::MUFU_LG2;
  assign f_sin   = func == sgpu_isa_pkg::MUFU_SIN;
  assign f_cos   = func == sgpu_isa_pkg::MUFU_COS;
  assign f_tanh  = func == sgpu_isa_pkg::MUFU_TANH;

  // A table's t for `bits` index bits: the fraction's bits below them, their first at 2^-1.
  function automatic logic [TW-1:0] position(logic [22:0] fraction, int unsigned bits);
    position = {fraction, 1'b0} << bits;
  endfunction

  // The square's bits kept for a table of `bits` index bits (see the header).
  function automatic logic [TW-1:0] kept_square(int unsigned bits);
    kept_square = {TW{1'b1}} << (bits + 1);
  endfunction

  // Which stages hold an operation: bit s - 1 for the registers after stage s (the last
  // stage's, d_q, is zero without one).
  logic [LATENCY-2:0] v_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) v_q <= '0;
    else v_q <= {v_q[LATENCY-3:0], go};
  end

  ///////////////
  // Stage one //
  ///////////////

  logic        sign, nan, inf, zero;
  logic [7:0]  field;
  logic [22:0] frac;
  assign sign  = a_i[31];
  assign field = a_i[30:23];
  assign frac  = a_i[22:0];
  assign nan   = field == 8'hff && frac != '0;
  assign inf   = field == 8'hff && frac == '0;
  assign zero  = field == 8'h00 && (frac == '0 || ftz);

  // The exponent of a normal operand, and of any finite one after a subnormal is normalised
  // (its leading one moved up to bit 23).
  logic signed [9:0] e_field, e_norm;
  logic [23:0]       sig, sig_norm;
  logic [4:0]        lz;
  logic [22:0]       f;  // the normalised fraction
  assign e_field  = $signed({2'b00, field}) - 10'sd127;
  assign sig      = {field != 8'h00, frac};
  assign lz       = 5'(sgpu_core_pkg::lzc128({sig, {104{1'b1}}}));
  assign sig_norm = sig << lz;
  assign e_norm   = (field == 8'h00 ? -10'sd126 : e_field) - $signed({5'b0, lz});
  assign f        = sig_norm[22:0];

  // The special results. A subnormal with .ftz is a zero; sin and tanh are x itself below
  // 2^-12 (subnormals too), ex2 is 0 or infinity from |x| = 256, tanh ±1 from 16.
  logic        s1_special;
  logic [31:0] s1_result;
  always_comb begin
    logic small_sin, small_tanh, big_ex2, big_tanh;
    small_sin  = e_field < 10'(SIN_MIN_EXP);
    small_tanh = e_field < 10'(sgpu_mufu_pkg::TANH_MIN_EXP);
    big_ex2    = e_field >= 10'sd8;
    big_tanh   = e_field >= 10'(sgpu_mufu_pkg::TANH_END_EXP);
    s1_special = 1'b1;
    s1_result  = QNAN;
    unique case (func)
      sgpu_isa_pkg::MUFU_RCP: begin
        if (nan) s1_result = QNAN;
        else if (zero) s1_result = {sign, INF};
        else if (inf) s1_result = {sign, 31'h0};
        else s1_special = 1'b0;
      end
      sgpu_isa_pkg::MUFU_SQRT: begin
        if (nan || (sign && !zero)) s1_result = QNAN;
        else if (zero) s1_result = {sign, 31'h0};
        else if (inf) s1_result = {1'b0, INF};
        else s1_special = 1'b0;
      end
      sgpu_isa_pkg::MUFU_RSQRT: begin
        if (nan || (sign && !zero)) s1_result = QNAN;
        else if (zero) s1_result = {sign, INF};
        else if (inf) s1_result = '0;
        else s1_special = 1'b0;
      end
      sgpu_isa_pkg::MUFU_EX2: begin
        if (nan) s1_result = QNAN;
        else if (zero) s1_result = {1'b0, ONE};
        else if (inf || big_ex2) s1_result = sign ? '0 : {1'b0, INF};
        else s1_special = 1'b0;
      end
      sgpu_isa_pkg::MUFU_LG2: begin
        if (nan || (sign && !zero)) s1_result = QNAN;
        else if (zero) s1_result = {1'b1, INF};
        else if (inf) s1_result = {1'b0, INF};
        else s1_special = 1'b0;
      end
      sgpu_isa_pkg::MUFU_SIN: begin
        if (nan || inf) s1_result = QNAN;
        else if (zero) s1_result = {sign, 31'h0};
        else if (small_sin) s1_result = a_i;
        else s1_special = 1'b0;
      end
      sgpu_isa_pkg::MUFU_COS: begin
        if (nan || inf) s1_result = QNAN;
        else if (zero) s1_result = {1'b0, ONE};
        else s1_special = 1'b0;
      end
      default: begin  // MUFU_TANH
        if (nan) s1_result = QNAN;
        else if (zero) s1_result = {sign, 31'h0};
        else if (inf || big_tanh) s1_result = {sign, ONE};
        else if (small_tanh) s1_result = a_i;
        else s1_special = 1'b0;
      end
    endcase
  end

  // The segment of the functions indexed by the operand's own bits: the coefficient ROM's
  // address and t; and the scale of the value the quadratic gives (the result is
  // y·2^(scale)), which for ex2 comes in stage three.
  logic [AW-1:0]     s1_addr;
  logic [TW-1:0]     s1_t, s1_keep;
  logic signed [9:0] s1_scale;
  always_comb begin
    logic signed [9:0] binade;  // tanh's, from 0
    logic signed [9:0] half;    // a root's exponent
    binade   = e_norm - 10'(sgpu_mufu_pkg::TANH_MIN_EXP);
    half     = e_norm >>> 1;
    s1_addr  = '0;
    s1_t     = '0;
    s1_keep  = '1;
    s1_scale = -10'(UNIT);
    if (f_rcp) begin
      s1_addr  = AW'(sgpu_mufu_pkg::RCP_BASE) | AW'(f[22-:sgpu_mufu_pkg::RCP_BITS]);
      s1_t     = position(f, sgpu_mufu_pkg::RCP_BITS);
      s1_keep  = kept_square(sgpu_mufu_pkg::RCP_BITS);
      s1_scale = -10'(UNIT) - e_norm;
    end else if (f_sqrt) begin
      s1_addr  = AW'(sgpu_mufu_pkg::SQRT_BASE)
                 | AW'({e_norm[0], f[22-:sgpu_mufu_pkg::SQRT_BITS]});
      s1_t     = position(f, sgpu_mufu_pkg::SQRT_BITS);
      s1_keep  = kept_square(sgpu_mufu_pkg::SQRT_BITS);
      s1_scale = -10'(UNIT) + half;
    end else if (f_rsqrt) begin
      s1_addr  = AW'(sgpu_mufu_pkg::RSQRT_BASE)
                 | AW'({e_norm[0], f[22-:sgpu_mufu_pkg::RSQRT_BITS]});
      s1_t     = position(f, sgpu_mufu_pkg::RSQRT_BITS);
      s1_keep  = kept_square(sgpu_mufu_pkg::RSQRT_BITS);
      s1_scale = -10'(UNIT) - half;
    end else if (f_lg2) begin
      s1_addr  = AW'(sgpu_mufu_pkg::LG2_BASE) | AW'(f[22-:sgpu_mufu_pkg::LG2_BITS]);
      s1_t     = position(f, sgpu_mufu_pkg::LG2_BITS);
      s1_keep  = kept_square(sgpu_mufu_pkg::LG2_BITS);
      s1_scale = -10'(LG2_POINT);
    end else if (f_tanh) begin
      s1_addr  = AW'(sgpu_mufu_pkg::TANH_BASE)
                 | (AW'(binade) << sgpu_mufu_pkg::TANH_BITS)
                 | AW'(f[22-:sgpu_mufu_pkg::TANH_BITS]);
      s1_t     = position(f, sgpu_mufu_pkg::TANH_BITS);
      s1_keep  = kept_square(sgpu_mufu_pkg::TANH_BITS);
      s1_scale = -10'(UNIT) + e_norm;
    end
  end

  // lg2: log2(x) = e + u·g(u), the significand f taken to [0.75, 1.5) (halved from 1.5, e
  // counting it) and u = f - 1 with 24 fraction bits, as magnitudes and signs.
  logic        s1_e_neg, s1_u_neg;
  logic [7:0]  s1_e_mag;  // at most 149
  logic [22:0] s1_u_mag;
  always_comb begin
    logic signed [9:0] e;
    s1_u_neg = f[22];
    e        = s1_u_neg ? e_norm + 10'sd1 : e_norm;
    s1_e_neg = e < 10'sd0;
    s1_e_mag = 8'(s1_e_neg ? -e : e);
    s1_u_mag = s1_u_neg ? 23'(24'h80_0000 - {1'b0, f}) : {f[21:0], 1'b0};
  end

  // The reduction ROM's word: sin's and cos's window by the exponent, or ex2's power of two;
  // and how far sin's and cos's product is shifted down, for an argument without whole turns
  // in the window.
  logic [8:0] s1_raddr;
  logic [7:0] s1_drop;
  assign s1_raddr = {f_ex2, field};
  assign s1_drop  = (f_ex2 || field >= 8'(sgpu_mufu_pkg::WHOLE_FIELD)) ? 8'h0
                    : 8'(sgpu_mufu_pkg::WHOLE_FIELD) - field;

  // What every later stage reads of the operation.
  typedef struct packed {
    logic        ex2, lg2, sin, cos;
    logic        ftz;
    logic        special;
    logic [31:0] result;  // the special result
    logic        sign;
  } op_t;

  op_t s1_op;
  always_comb begin
    s1_op.ex2     = f_ex2;
    s1_op.lg2     = f_lg2;
    s1_op.sin     = f_sin;
    s1_op.cos     = f_cos;
    s1_op.ftz     = ftz;
    s1_op.special = s1_special;
    s1_op.result  = s1_result;
    s1_op.sign    = sign;
  end

  op_t               op1_q;
  logic [23:0]       sig1_q;
  logic [WINW-1:0]   window_q;
  logic [7:0]        drop1_q;
  logic [AW-1:0]     addr1_q;
  logic [TW-1:0]     t1_q, keep1_q;
  logic signed [9:0] scale1_q;
  logic              neg1_q;
  logic              e_neg1_q, u_neg1_q;
  logic [7:0]        e_mag1_q;
  logic [22:0]       u_mag1_q;
  always_ff @(posedge clk_i) begin
    if (go) begin
      op1_q    <= s1_op;
      sig1_q   <= sig;
      window_q <= sgpu_mufu_pkg::reduction(s1_raddr);
      drop1_q  <= s1_drop;
      addr1_q  <= s1_addr;
      t1_q     <= s1_t;
      keep1_q  <= s1_keep;
      scale1_q <= s1_scale;
      neg1_q   <= sign && (f_rcp || f_tanh);
      e_neg1_q <= s1_e_neg;
      u_neg1_q <= s1_u_neg;
      e_mag1_q <= s1_e_mag;
      u_mag1_q <= s1_u_mag;
    end
  end

  ///////////////
  // Stage two //
  ///////////////

  // The significand as it is: a subnormal's turn fraction and ex2 fixed point are zero
  // (shifted out, or a zero word).
  logic [24+WINW-1:0] s2_prod;
  assign s2_prod = sig1_q * window_q;

  op_t               op2_q;
  logic [PW-1:0]     prod2_q;
  logic [7:0]        drop2_q;
  logic [AW-1:0]     addr2_q;
  logic [TW-1:0]     t2_q, keep2_q;
  logic signed [9:0] scale2_q;
  logic              neg2_q;
  logic              e_neg2_q, u_neg2_q;
  logic [7:0]        e_mag2_q;
  logic [22:0]       u_mag2_q;
  always_ff @(posedge clk_i) begin
    if (v_q[0]) begin
      op2_q    <= op1_q;
      prod2_q  <= s2_prod[24+WINW-1:sgpu_mufu_pkg::EX2_LSB];
      drop2_q  <= drop1_q;
      addr2_q  <= addr1_q;
      t2_q     <= t1_q;
      keep2_q  <= keep1_q;
      scale2_q <= scale1_q;
      neg2_q   <= neg1_q;
      e_neg2_q <= e_neg1_q;
      u_neg2_q <= u_neg1_q;
      e_mag2_q <= e_mag1_q;
      u_mag2_q <= u_mag1_q;
    end
  end

  /////////////////
  // Stage three //
  /////////////////

  // The reduced argument: the product's bits 95 down to EX2_LSB, shifted down by the drop
  // (nothing left from PW places on).
  logic [RW-1:0] s3_r;
  assign s3_r = (drop2_q >= 8'(PW)) ? '0 : RW'(prod2_q >> drop2_q[6:0]);

  // sin and cos: the quadrant from the turn's top two bits (a quarter turn on for cos), the
  // position in it complemented in the odd ones (sin falls there), its leading bits the
  // segment. The sign: the quadrant's, and sin's of x.
  logic [1:0]           quadrant;
  logic [TURN-3:0]      s3_pos;
  logic                 s3_turn_neg;
  assign quadrant    = s3_r[RW-1-:2] + {1'b0, op2_q.cos};
  assign s3_pos      = s3_r[RW-3-:TURN-2] ^ {(TURN - 2) {quadrant[0]}};
  assign s3_turn_neg = quadrant[1] ^ (op2_q.sin && op2_q.sign);

  // ex2: the fixed point, negated for a negative x; its integer part scales the result and
  // its fraction is the segment.
  logic [RW:0]       s3_fixed;
  logic signed [9:0] s3_n;
  assign s3_fixed = op2_q.sign ? -{1'b0, s3_r} : {1'b0, s3_r};
  assign s3_n     = 10'($signed(s3_fixed[RW:EX2_POINT]));

  logic [AW-1:0]     s3_addr;
  logic [TW-1:0]     s3_t;
  logic signed [9:0] s3_scale;
  logic              s3_neg;
  always_comb begin
    s3_addr  = addr2_q;
    s3_t     = t2_q;
    s3_scale = scale2_q;
    s3_neg   = neg2_q;
    if (op2_q.sin || op2_q.cos) begin
      s3_addr = AW'(sgpu_mufu_pkg::SIN_BASE) | AW'(s3_pos[TURN-3-:sgpu_mufu_pkg::SIN_BITS]);
      s3_t    = s3_pos[TW-1:0];
      s3_neg  = s3_turn_neg;
    end else if (op2_q.ex2) begin
      s3_addr  = AW'(sgpu_mufu_pkg::EX2_BASE)
                 | AW'(s3_fixed[EX2_POINT-1-:sgpu_mufu_pkg::EX2_BITS]);
      s3_t     = s3_fixed[TW-1:0];
      s3_scale = -10'(UNIT) + s3_n;
    end
  end

  op_t                  op3_q;
  logic [C2W+C1W+C0W-1:0] coef_q;
  logic [TW-1:0]        t3_q, keep3_q;
  logic signed [9:0]    scale3_q;
  logic                 neg3_q;
  logic                 e_neg3_q, u_neg3_q;
  logic [7:0]           e_mag3_q;
  logic [22:0]          u_mag3_q;
  always_ff @(posedge clk_i) begin
    if (v_q[1]) begin
      op3_q    <= op2_q;
      coef_q   <= sgpu_mufu_pkg::coefficients(s3_addr);
      t3_q     <= s3_t;
      keep3_q  <= keep2_q;
      scale3_q <= s3_scale;
      neg3_q   <= s3_neg;
      e_neg3_q <= e_neg2_q;
      u_neg3_q <= u_neg2_q;
      e_mag3_q <= e_mag2_q;
      u_mag3_q <= u_mag2_q;
    end
  end

  ////////////////
  // Stage four //
  ////////////////

  logic [C0W-1:0] c0;
  logic [C1W-1:0] c1;
  logic [C2W-1:0] c2;
  assign {c2, c1, c0} = coef_q;

  // t² floored at the table's 2^-k; c1·t floored at 2^-24, less c1's sign weight times t
  // (2^C1W·t at 2^-24 is t shifted up by C1W - 24).
  logic [2*TW-1:0]  s4_square;
  logic [C1W+TW-1:0] s4_c1t_u;
  logic [C1W:0]     s4_c1t;
  assign s4_square = t3_q * t3_q;
  assign s4_c1t_u  = c1 * t3_q;
  assign s4_c1t    = {1'b0, s4_c1t_u[C1W+TW-1:TW]}
                     - (c1[C1W-1] ? (C1W + 1)'(t3_q) << (C1W - TW) : '0);

  op_t               op4_q;
  logic [C0W-1:0]    c0_4q;
  logic [C2W-1:0]    c2_4q;
  logic [TW-1:0]     square4_q;
  logic [C1W:0]      c1t4_q;
  logic signed [9:0] scale4_q;
  logic              neg4_q;
  logic              e_neg4_q, u_neg4_q;
  logic [7:0]        e_mag4_q;
  logic [22:0]       u_mag4_q;
  always_ff @(posedge clk_i) begin
    if (v_q[2]) begin
      op4_q     <= op3_q;
      c0_4q     <= c0;
      c2_4q     <= c2;
      square4_q <= s4_square[2*TW-1:TW] & keep3_q;
      c1t4_q    <= s4_c1t;
      scale4_q  <= scale3_q;
      neg4_q    <= neg3_q;
      e_neg4_q  <= e_neg3_q;
      u_neg4_q  <= u_neg3_q;
      e_mag4_q  <= e_mag3_q;
      u_mag4_q  <= u_mag3_q;
    end
  end

  ////////////////
  // Stage five //
  ////////////////

  // c2·t², less c2's sign weight (2^C2W·t², not a multiple of 2^24: subtracted before the
  // floor), floored at 2^-24; then y = c0 + c1·t + c2·t².
  logic [C2W+TW-1:0] s5_c2s_u;
  logic [C2W+TW:0]   s5_c2s;
  logic [YW-1:0]     s5_y;
  assign s5_c2s_u = c2_4q * square4_q;
  assign s5_c2s   = {1'b0, s5_c2s_u}
                    - (c2_4q[C2W-1] ? (C2W + TW + 1)'(square4_q) << C2W : '0);
  assign s5_y     = YW'($signed(c0_4q)) + YW'($signed(c1t4_q))
                    + YW'($signed(s5_c2s[C2W+TW:TW]));

  op_t               op5_q;
  logic [YW-1:0]     y5_q;
  logic signed [9:0] scale5_q;
  logic              neg5_q;
  logic              e_neg5_q, u_neg5_q;
  logic [7:0]        e_mag5_q;
  logic [22:0]       u_mag5_q;
  always_ff @(posedge clk_i) begin
    if (v_q[3]) begin
      op5_q    <= op4_q;
      y5_q     <= s5_y;
      scale5_q <= scale4_q;
      neg5_q   <= neg4_q;
      e_neg5_q <= e_neg4_q;
      u_neg5_q <= u_neg4_q;
      e_mag5_q <= e_mag4_q;
      u_mag5_q <= u_mag4_q;
    end
  end

  ///////////////
  // Stage six //
  ///////////////

  // lg2: e·2^56 + u·g with g = y. |u·g| < 2^56 <= |e|·2^56 unless e is 0, so the magnitude
  // is |e|·2^56 plus or minus |u|·g (minus when the signs differ), with e's sign; for e = 0,
  // |u|·g with u's.
  logic [22+YW-2:0] s6_ug;  // |u| < 2^23 times g < 2^(YW-2)
  logic [MW-1:0]    s6_mag;
  logic             s6_neg;
  assign s6_ug = u_mag5_q * y5_q[YW-3:0];
  always_comb begin
    logic [MW-1:0] e_part, ug;
    e_part = {e_mag5_q, (MW - 8)'(0)};
    ug     = MW'(s6_ug);
    s6_mag = MW'(y5_q);
    s6_neg = neg5_q;
    if (op5_q.lg2) begin
      s6_neg = e_neg5_q || (e_mag5_q == '0 && u_neg5_q);
      s6_mag = (e_mag5_q != '0 && (e_neg5_q != u_neg5_q)) ? e_part - ug : e_part + ug;
    end else if ((op5_q.sin || op5_q.cos) && y5_q[YW-1]) begin
      s6_mag = '0;  // the model's max(0)
    end
  end

  op_t               op6_q;
  logic [MW-1:0]     mag6_q;
  logic signed [9:0] scale6_q;
  logic              neg6_q;
  always_ff @(posedge clk_i) begin
    if (v_q[4]) begin
      op6_q    <= op5_q;
      mag6_q   <= s6_mag;
      scale6_q <= scale5_q;
      neg6_q   <= s6_neg;
    end
  end

  /////////////////
  // Stage seven //
  /////////////////

  // The result is mag·2^scale. Its exponent field with the leading one at 2^top is
  // top + scale + 127; below 1 it is subnormal, with its last place at 2^-149. `last` is
  // the right shift of mag·2^24 that puts the result's last place at bit 1 and the round
  // bit at bit 0: top for a normal result (its leading one at bit 24), -149 - scale + 23
  // for a subnormal one.
  logic [6:0]         s7_lz;
  logic signed [10:0] s7_biased, s7_last;
  logic               s7_normal;
  assign s7_lz     = sgpu_core_pkg::lzc128({mag6_q, {(128 - MW) {1'b1}}});
  assign s7_biased = 11'sd190 - $signed({4'b0, s7_lz}) + 11'(scale6_q);
  assign s7_normal = s7_biased >= 11'sd1;
  assign s7_last   = s7_normal ? 11'sd63 - $signed({4'b0, s7_lz}) : -11'sd126 - 11'(scale6_q);

  op_t         op7_q;
  logic [MW-1:0] mag7_q;
  logic [6:0]  last7_q;   // at most MW + 24: nothing is left
  logic [7:0]  field7_q;  // a normal result's exponent field less one (the leading one adds it)
  logic        inf7_q, zero7_q, neg7_q;
  always_ff @(posedge clk_i) begin
    if (v_q[5]) begin
      op7_q    <= op6_q;
      mag7_q   <= mag6_q;
      last7_q  <= s7_last > 11'(MW + 24) ? 7'(MW + 24) : s7_last[6:0];
      field7_q <= s7_normal ? 8'(s7_biased - 11'sd1) : 8'h0;
      inf7_q   <= s7_biased >= 11'sd255;
      zero7_q  <= mag6_q == '0;
      neg7_q   <= neg6_q;
    end
  end

  ////////////////
  // Stage eight //
  ////////////////

  // The 24 bits kept above the round bit, rounded half away from zero by adding it; one
  // addition encodes normals and subnormals and carries a round-up into the next binade
  // (or to infinity).
  logic [24:0] s8_cut;
  logic [30:0] s8_bits;
  logic [31:0] s8_result;
  assign s8_cut  = 25'({mag7_q, 24'h0} >> last7_q);
  assign s8_bits = {field7_q, 23'h0} + 31'(s8_cut[24:1]) + 31'(s8_cut[0]);
  always_comb begin
    if (op7_q.special) s8_result = op7_q.result;
    else if (zero7_q) s8_result = {neg7_q, 31'h0};
    else if (inf7_q) s8_result = {neg7_q, INF};
    else if (op7_q.ftz && s8_bits[30:23] == 8'h00) s8_result = {neg7_q, 31'h0};
    else s8_result = {neg7_q, s8_bits};
  end

  logic [31:0] d_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) d_q <= '0;
    else d_q <= v_q[6] ? s8_result : '0;
  end
  assign d_o = d_q;

  // The products' low bits only carry into the bits kept (floors); the last stage reads
  // only the operation's special result and .ftz.
  logic unused;
  assign unused = ^{sig_norm[23], s2_prod[sgpu_mufu_pkg::EX2_LSB-1:0], s4_square[TW-1:0],
                    s4_c1t_u[TW-1:0], s5_c2s[TW-1:0], op7_q.ex2, op7_q.lg2, op7_q.sin,
                    op7_q.cos, op7_q.sign};

endmodule
