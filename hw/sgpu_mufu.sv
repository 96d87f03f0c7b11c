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
// Eleven stages, one operation a cycle: the operation given with en_i in cycle n has its
// result on d_o in cycle n + LATENCY, and d_o is zero in every cycle that holds no result.
// 1. unpack: the class, the special results, a subnormal's leading zeros; the reduction
//    ROM's address;
// 2. the ROM's word into flip-flops; the table functions indexed by the operand's own bits
//    (rcp, sqrt, rsqrt, lg2, tanh) find their segment, t and the result's scale;
// 3. the reduction's product;
// 4. the reduced argument (a turn's quadrant and position in it, ex2's integer part and
//    fraction); the coefficient ROM's address;
// 5. the ROM's word into flip-flops; t²;
// 6. c1·t and c2·t²;
// 7. the quadratic's value y; lg2's e and u;
// 8. the value to round: lg2's e + u·y, sin's and cos's y at least 0, y itself otherwise;
// 9. its leading one, the result's exponent and where its last place falls;
// 10. the shift to that place;
// 11. the rounding, .ftz, and the special results.
// The two ROMs are block RAM, each with its address registered in the stage before its
// word is wanted, and the word registered again as it comes (a DP16KD's output comes late
// in the cycle). The stages that end in a product (3, 5, 6, 8) hold little else, and they
// set the clock; the shift has a stage of its own for area: ABC maps logic on its deepest
// paths into wide LUTs, and the shift with the rounding after it was the deepest. The
// figures, and those of fewer stages, are in docs/mufu.md.
module sgpu_mufu (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        en_i,     // an operation this cycle
  input  logic [63:0] instr_i,  // the MUFU word
  input  logic [31:0] a_i,      // ra
  output logic [31:0] d_o       // rd, of the operation LATENCY cycles before
);

  // Cycles from an operation to its result on d_o (the stages above); an operation may
  // come every cycle.
  localparam int unsigned LATENCY = sgpu_core_pkg::MUFU_LATENCY;

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
  // The scales of the tables' values and of lg2's sum, and tanh's first binade, as the
  // stages compute with them. (yosys 0.23 misreads a cast right after a unary minus.)
  localparam logic signed [9:0] UNIT_SCALE = 10'(0 - UNIT);
  localparam logic signed [9:0] LG2_SCALE  = 10'(0 - LG2_POINT);
  localparam logic signed [9:0] TANH_MIN   = 10'(sgpu_mufu_pkg::TANH_MIN_EXP);

  localparam int unsigned TW  = 24;  // t
  localparam int unsigned AW  = sgpu_mufu_pkg::ROM_AW;
  localparam int unsigned C0W = sgpu_mufu_pkg::C0_W;
  localparam int unsigned C1W = sgpu_mufu_pkg::C1_W;
  localparam int unsigned C2W = sgpu_mufu_pkg::C2_W;
  localparam int unsigned CW  = C2W + C1W + C0W;  // a ROM word
  localparam int unsigned YW  = C0W + 2;  // y: c0 and two terms below c0's range
  localparam int unsigned MW  = 64;  // the magnitude rounded: lg2's |e| < 2^8 at 2^56
  // The reduction's product, sig x window: the bits kept (PW), from EX2_LSB (ex2's 2^-30)
  // up to its top. The reduced argument (RW) is its bits 95 down to EX2_LSB: ex2's fixed
  // point as they are, the turn fraction's when the argument has whole turns in the window,
  // else higher bits shifted down; of the turn, sin and cos read the quadrant, the index and
  // t (TURN).
  localparam int unsigned WINW = sgpu_mufu_pkg::WINDOW_W;
  localparam int unsigned PW   = 24 + WINW - sgpu_mufu_pkg::EX2_LSB;
  localparam int unsigned RW   = WINW - sgpu_mufu_pkg::EX2_LSB;
  localparam int unsigned TURN = 2 + sgpu_mufu_pkg::SIN_BITS + TW;

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

  // The exponent field of 2^e.
  function automatic logic [7:0] biased(int e);
    biased = 8'(127 + e);
  endfunction

  // Which stages hold an operation: bit s - 1 for the registers after stage s (the last
  // stage's, d_q, is zero without one).
  logic [LATENCY-2:0] v_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) v_q <= '0;
    else v_q <= {v_q[LATENCY-3:0], go};
  end

  // What the stages pass on: the operation; the segment of a table function and the scale
  // and sign of the quadratic's value y (the result is ±y·2^scale); lg2's operand,
  // normalised (its e and u come in stage seven).
  typedef struct packed {
    logic        rcp, sqrt, rsqrt, ex2, lg2, sin, cos, tanh;
    logic        ftz;
    logic        special;
    logic [31:0] result;  // the special result
    logic        sign;
  } op_t;
  typedef struct packed {
    logic [AW-1:0]     addr;
    logic [TW-1:0]     t;
    logic [TW-1:0]     keep;
    logic signed [9:0] scale;
    logic              neg;
  } seg_t;
  typedef struct packed {
    logic [22:0]       f;  // the normalised fraction
    logic signed [9:0] e;  // the normalised exponent
  } lg2_t;

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

  // The special results. A subnormal with .ftz is a zero; sin and tanh are x itself below
  // 2^-12 (subnormals too), ex2 is 0 or infinity from |x| = 256, tanh ±1 from 16. Each is
  // the canonical NaN, x, or a sign with zero, infinity or one: a few bits decided first, so
  // that the result's bits are one choice among them.
  localparam logic [1:0] ZERO_MAG = 2'd0, INF_MAG = 2'd1, ONE_MAG = 2'd2;
  logic        s1_special, s1_nan, s1_itself, s1_neg;
  logic [1:0]  s1_mag;
  logic [31:0] s1_result;
  always_comb begin
    logic small_sin, small_tanh, big_ex2, big_tanh, invalid;
    small_sin  = field < biased(SIN_MIN_EXP);
    small_tanh = field < biased(sgpu_mufu_pkg::TANH_MIN_EXP);
    big_ex2    = field >= biased(8);
    big_tanh   = field >= biased(sgpu_mufu_pkg::TANH_END_EXP);
    invalid    = nan || (sign && !zero);  // the roots' and lg2's
    s1_special = 1'b1;
    s1_nan     = 1'b0;
    s1_itself  = 1'b0;
    s1_neg     = sign;
    s1_mag     = ZERO_MAG;
    unique case (func)
      sgpu_isa_pkg::MUFU_RCP: begin
        s1_nan     = nan;
        s1_mag     = zero ? INF_MAG : ZERO_MAG;
        s1_special = nan || zero || inf;
      end
      sgpu_isa_pkg::MUFU_SQRT: begin
        s1_nan     = invalid;
        s1_mag     = zero ? ZERO_MAG : INF_MAG;
        s1_special = invalid || zero || inf;
      end
      sgpu_isa_pkg::MUFU_RSQRT: begin
        s1_nan     = invalid;
        s1_mag     = zero ? INF_MAG : ZERO_MAG;
        s1_special = invalid || zero || inf;
      end
      sgpu_isa_pkg::MUFU_EX2: begin
        s1_nan     = nan;
        s1_neg     = 1'b0;
        s1_mag     = zero ? ONE_MAG : sign ? ZERO_MAG : INF_MAG;
        s1_special = nan || zero || inf || big_ex2;
      end
      sgpu_isa_pkg::MUFU_LG2: begin
        s1_nan     = invalid;
        s1_neg     = zero;
        s1_mag     = INF_MAG;
        s1_special = invalid || zero || inf;
      end
      sgpu_isa_pkg::MUFU_SIN: begin
        s1_nan     = nan || inf;
        s1_itself  = !zero && small_sin;
        s1_special = nan || inf || zero || small_sin;
      end
      sgpu_isa_pkg::MUFU_COS: begin
        s1_nan     = nan || inf;
        s1_neg     = 1'b0;
        s1_mag     = ONE_MAG;
        s1_special = nan || inf || zero;
      end
      default: begin  // MUFU_TANH
        s1_nan     = nan;
        s1_itself  = !zero && !inf && small_tanh;
        s1_mag     = zero ? ZERO_MAG : ONE_MAG;
        s1_special = nan || zero || inf || big_tanh || small_tanh;
      end
    endcase
    if (s1_nan) s1_result = QNAN;
    else if (s1_itself) s1_result = a_i;
    else if (s1_mag == INF_MAG) s1_result = {s1_neg, INF};
    else if (s1_mag == ONE_MAG) s1_result = {s1_neg, ONE};
    else s1_result = {s1_neg, 31'h0};
  end

  // The reduction ROM's word: sin's and cos's window by the exponent, or ex2's power of two;
  // and how far sin's and cos's product is shifted down, for an argument without whole turns
  // in the window.
  logic [8:0] s1_raddr;
  logic [7:0] s1_drop;
  assign s1_raddr = {f_ex2, field};
  assign s1_drop  = (f_ex2 || field >= 8'(sgpu_mufu_pkg::WHOLE_FIELD)) ? 8'h0
                    : 8'(sgpu_mufu_pkg::WHOLE_FIELD) - field;

  // A subnormal's leading zeros (its significand's, in 24 bits), for stage two's
  // normalisation.
  logic [4:0] s1_lz;
  assign s1_lz = 5'(sgpu_core_pkg::lzc128({field != 8'h00, frac, {104{1'b1}}}));

  op_t s1_op;
  always_comb begin
    s1_op.rcp     = f_rcp;
    s1_op.sqrt    = f_sqrt;
    s1_op.rsqrt   = f_rsqrt;
    s1_op.ex2     = f_ex2;
    s1_op.lg2     = f_lg2;
    s1_op.sin     = f_sin;
    s1_op.cos     = f_cos;
    s1_op.tanh    = f_tanh;
    s1_op.ftz     = ftz;
    s1_op.special = s1_special;
    s1_op.result  = s1_result;
    s1_op.sign    = sign;
  end

  // The reduction ROM's word is read here (its address register is this stage's).
  op_t             op1_q;
  logic [30:0]     abs1_q;
  logic [4:0]      lz1_q;
  logic [7:0]      drop1_q;
  logic [WINW-1:0] window_q;
  always_ff @(posedge clk_i) begin
    if (go) begin
      op1_q    <= s1_op;
      abs1_q   <= a_i[30:0];
      lz1_q    <= s1_lz;
      drop1_q  <= s1_drop;
      window_q <= sgpu_mufu_pkg::reduction(s1_raddr);
    end
  end

  ///////////////
  // Stage two //
  ///////////////

  // The block RAM's word goes into flip-flops (it comes late in the cycle), while the table
  // functions find their segment.

  // The operand's significand and exponent, and the same after a subnormal is normalised
  // (its leading one moved up to bit 23).
  logic [23:0]       sig, sig_norm;
  logic signed [9:0] e_norm;
  logic [22:0]       f;  // the normalised fraction
  assign sig      = {abs1_q[30:23] != 8'h00, abs1_q[22:0]};
  assign sig_norm = sig << lz1_q;
  assign e_norm   = (sig[23] ? $signed({2'b00, abs1_q[30:23]}) - 10'sd127 : -10'sd126)
                    - $signed({5'b0, lz1_q});
  assign f        = sig_norm[22:0];

  // The segment of the functions indexed by the operand's own bits: the coefficient ROM's
  // address and t; and the scale of the value the quadratic gives (the result is
  // y·2^(scale)), which for ex2 comes in stage four.
  logic [AW-1:0]     s2_addr;
  logic [TW-1:0]     s2_t, s2_keep;
  logic signed [9:0] s2_scale;
  always_comb begin
    logic signed [9:0] binade;  // tanh's, from 0
    logic signed [9:0] half;    // a root's exponent
    binade   = e_norm - TANH_MIN;
    half     = e_norm >>> 1;
    s2_addr  = '0;
    s2_t     = '0;
    s2_keep  = '1;
    s2_scale = UNIT_SCALE;
    if (op1_q.rcp) begin
      s2_addr  = AW'(sgpu_mufu_pkg::RCP_BASE) | AW'(f[22-:sgpu_mufu_pkg::RCP_BITS]);
      s2_t     = position(f, sgpu_mufu_pkg::RCP_BITS);
      s2_keep  = kept_square(sgpu_mufu_pkg::RCP_BITS);
      s2_scale = UNIT_SCALE - e_norm;
    end else if (op1_q.sqrt) begin
      s2_addr  = AW'(sgpu_mufu_pkg::SQRT_BASE)
                 | AW'({e_norm[0], f[22-:sgpu_mufu_pkg::SQRT_BITS]});
      s2_t     = position(f, sgpu_mufu_pkg::SQRT_BITS);
      s2_keep  = kept_square(sgpu_mufu_pkg::SQRT_BITS);
      s2_scale = UNIT_SCALE + half;
    end else if (op1_q.rsqrt) begin
      s2_addr  = AW'(sgpu_mufu_pkg::RSQRT_BASE)
                 | AW'({e_norm[0], f[22-:sgpu_mufu_pkg::RSQRT_BITS]});
      s2_t     = position(f, sgpu_mufu_pkg::RSQRT_BITS);
      s2_keep  = kept_square(sgpu_mufu_pkg::RSQRT_BITS);
      s2_scale = UNIT_SCALE - half;
    end else if (op1_q.lg2) begin
      s2_addr  = AW'(sgpu_mufu_pkg::LG2_BASE) | AW'(f[22-:sgpu_mufu_pkg::LG2_BITS]);
      s2_t     = position(f, sgpu_mufu_pkg::LG2_BITS);
      s2_keep  = kept_square(sgpu_mufu_pkg::LG2_BITS);
      s2_scale = LG2_SCALE;
    end else if (op1_q.tanh) begin
      s2_addr  = AW'(sgpu_mufu_pkg::TANH_BASE)
                 | (AW'(binade) << sgpu_mufu_pkg::TANH_BITS)
                 | AW'(f[22-:sgpu_mufu_pkg::TANH_BITS]);
      s2_t     = position(f, sgpu_mufu_pkg::TANH_BITS);
      s2_keep  = kept_square(sgpu_mufu_pkg::TANH_BITS);
      s2_scale = UNIT_SCALE + e_norm;
    end
  end

  seg_t s2_seg;
  lg2_t s2_lg2;
  always_comb begin
    s2_seg.addr  = s2_addr;
    s2_seg.t     = s2_t;
    s2_seg.keep  = s2_keep;
    s2_seg.scale = s2_scale;
    s2_seg.neg   = op1_q.sign && (op1_q.rcp || op1_q.tanh);
    s2_lg2.f     = f;
    s2_lg2.e     = e_norm;
  end

  op_t             op2_q;
  seg_t            seg2_q;
  lg2_t            lg2_q;
  logic [23:0]     sig2_q;
  logic [7:0]      drop2_q;
  logic [WINW-1:0] window2_q;
  always_ff @(posedge clk_i) begin
    if (v_q[0]) begin
      op2_q     <= op1_q;
      seg2_q    <= s2_seg;
      lg2_q     <= s2_lg2;
      sig2_q    <= sig;
      drop2_q   <= drop1_q;
      window2_q <= window_q;
    end
  end

  /////////////////
  // Stage three //
  /////////////////

  // The significand as it is: a subnormal's turn fraction and ex2 fixed point are zero
  // (shifted out, or a zero word).
  logic [24+WINW-1:0] s3_prod;
  assign s3_prod = sig2_q * window2_q;

  op_t           op3_q;
  seg_t          seg3_q;
  lg2_t          lg3_q;
  logic [7:0]    drop3_q;
  logic [PW-1:0] prod3_q;
  always_ff @(posedge clk_i) begin
    if (v_q[1]) begin
      op3_q   <= op2_q;
      seg3_q  <= seg2_q;
      lg3_q   <= lg2_q;
      drop3_q <= drop2_q;
      prod3_q <= s3_prod[24+WINW-1:sgpu_mufu_pkg::EX2_LSB];
    end
  end

  ////////////////
  // Stage four //
  ////////////////

  // The turn: the product's bits 95 down to 95 - TURN + 1 (those sin reads), shifted down
  // by the drop (nothing left from PW places on, so six bits of it shift).
  logic [PW-1:0]   s4_dropped;
  logic [TURN-1:0] s4_turn;
  assign s4_dropped = prod3_q >> drop3_q[5:0];
  assign s4_turn    = (drop3_q >= 8'(PW)) ? '0 : s4_dropped[RW-1-:TURN];

  // sin and cos: the quadrant from the turn's top two bits (a quarter turn on for cos), the
  // position in it complemented in the odd ones (sin falls there), its leading bits the
  // segment. The sign: the quadrant's, and sin's of x.
  logic [1:0]      quadrant;
  logic [TURN-3:0] s4_pos;
  assign quadrant = s4_turn[TURN-1-:2] + {1'b0, op3_q.cos};
  assign s4_pos   = s4_turn[TURN-3:0] ^ {(TURN - 2) {quadrant[0]}};

  // ex2: the fixed point (the product's bits as they are: ex2 drops none), negated for a
  // negative x; its integer part scales the result and its fraction is the segment.
  logic [RW:0] s4_fixed;
  assign s4_fixed = op3_q.sign ? -{1'b0, prod3_q[RW-1:0]} : {1'b0, prod3_q[RW-1:0]};

  seg_t s4_seg;
  always_comb begin
    s4_seg = seg3_q;
    if (op3_q.sin || op3_q.cos) begin
      s4_seg.addr = AW'(sgpu_mufu_pkg::SIN_BASE)
                    | AW'(s4_pos[TURN-3-:sgpu_mufu_pkg::SIN_BITS]);
      s4_seg.t    = s4_pos[TW-1:0];
      s4_seg.neg  = quadrant[1] ^ (op3_q.sin && op3_q.sign);
    end else if (op3_q.ex2) begin
      s4_seg.addr  = AW'(sgpu_mufu_pkg::EX2_BASE)
                     | AW'(s4_fixed[EX2_POINT-1-:sgpu_mufu_pkg::EX2_BITS]);
      s4_seg.t     = s4_fixed[TW-1:0];
      s4_seg.scale = UNIT_SCALE + 10'($signed(s4_fixed[RW:EX2_POINT]));
    end
  end

  // The coefficient ROM's word is read here.
  op_t               op4_q;
  lg2_t              lg4_q;
  logic [TW-1:0]     t4_q, keep4_q;
  logic signed [9:0] scale4_q;
  logic              neg4_q;
  logic [CW-1:0]     coef_q;
  always_ff @(posedge clk_i) begin
    if (v_q[2]) begin
      op4_q    <= op3_q;
      lg4_q    <= lg3_q;
      t4_q     <= s4_seg.t;
      keep4_q  <= s4_seg.keep;
      scale4_q <= s4_seg.scale;
      neg4_q   <= s4_seg.neg;
      coef_q   <= sgpu_mufu_pkg::coefficients(s4_seg.addr);
    end
  end

  ////////////////
  // Stage five //
  ////////////////

  // The block RAM's word into flip-flops; t², its bits below the table's 2^-k dropped.
  logic [2*TW-1:0] s5_square;
  assign s5_square = t4_q * t4_q;

  op_t               op5_q;
  lg2_t              lg5_q;
  logic [TW-1:0]     t5_q, square5_q;
  logic signed [9:0] scale5_q;
  logic              neg5_q;
  logic [CW-1:0]     coef5_q;
  always_ff @(posedge clk_i) begin
    if (v_q[3]) begin
      op5_q     <= op4_q;
      lg5_q     <= lg4_q;
      t5_q      <= t4_q;
      square5_q <= s5_square[2*TW-1:TW] & keep4_q;
      scale5_q  <= scale4_q;
      neg5_q    <= neg4_q;
      coef5_q   <= coef_q;
    end
  end

  ///////////////
  // Stage six //
  ///////////////

  logic [C0W-1:0] c0;
  logic [C1W-1:0] c1;
  logic [C2W-1:0] c2;
  assign {c2, c1, c0} = coef5_q;

  // c1·t floored at 2^-24, less c1's sign weight times t (2^C1W·t at 2^-24 is t shifted up
  // by C1W - 24); c2·t², less c2's sign weight (2^C2W·t², not a multiple of 2^24: subtracted
  // before the floor), floored at 2^-24.
  logic [C1W+TW-1:0] s6_c1t_u;
  logic [C1W:0]      s6_c1t;
  logic [C2W+TW-1:0] s6_c2s_u;
  logic [C2W+TW:0]   s6_c2s;
  assign s6_c1t_u = c1 * t5_q;
  assign s6_c1t   = {1'b0, s6_c1t_u[C1W+TW-1:TW]}
                    - (c1[C1W-1] ? (C1W + 1)'(t5_q) << (C1W - TW) : '0);
  assign s6_c2s_u = c2 * square5_q;
  assign s6_c2s   = {1'b0, s6_c2s_u}
                    - (c2[C2W-1] ? (C2W + TW + 1)'(square5_q) << C2W : '0);

  op_t               op6_q;
  lg2_t              lg6_q;
  logic [C0W-1:0]    c0_6q;
  logic [C1W:0]      c1t6_q;
  logic [C2W:0]      c2s6_q;
  logic signed [9:0] scale6_q;
  logic              neg6_q;
  always_ff @(posedge clk_i) begin
    if (v_q[4]) begin
      op6_q    <= op5_q;
      lg6_q    <= lg5_q;
      c0_6q    <= c0;
      c1t6_q   <= s6_c1t;
      c2s6_q   <= s6_c2s[C2W+TW:TW];
      scale6_q <= scale5_q;
      neg6_q   <= neg5_q;
    end
  end

  /////////////////
  // Stage seven //
  /////////////////

  // y = c0 + c1·t + c2·t².
  logic [YW-1:0] s7_y;
  assign s7_y = YW'($signed(c0_6q)) + YW'($signed(c1t6_q)) + YW'($signed(c2s6_q));

  // lg2: log2(x) = e + u·g(u), the significand f taken to [0.75, 1.5) (halved from 1.5, e
  // counting it) and u = f - 1 with 24 fraction bits, as magnitudes and signs.
  logic        s7_e_neg, s7_u_neg;
  logic [7:0]  s7_e_mag;  // at most 149
  logic [22:0] s7_u_mag;
  always_comb begin
    logic signed [9:0] e;
    s7_u_neg = lg6_q.f[22];
    e        = s7_u_neg ? lg6_q.e + 10'sd1 : lg6_q.e;
    s7_e_neg = e < 10'sd0;
    s7_e_mag = 8'(s7_e_neg ? -e : e);
    s7_u_mag = s7_u_neg ? 23'(24'h80_0000 - {1'b0, lg6_q.f}) : {lg6_q.f[21:0], 1'b0};
  end

  op_t               op7_q;
  logic              e_neg7_q, u_neg7_q;
  logic [7:0]        e_mag7_q;
  logic [22:0]       u_mag7_q;
  logic [YW-1:0]     y7_q;
  logic signed [9:0] scale7_q;
  logic              neg7_q;
  always_ff @(posedge clk_i) begin
    if (v_q[5]) begin
      op7_q    <= op6_q;
      e_neg7_q <= s7_e_neg;
      u_neg7_q <= s7_u_neg;
      e_mag7_q <= s7_e_mag;
      u_mag7_q <= s7_u_mag;
      y7_q     <= s7_y;
      scale7_q <= scale6_q;
      neg7_q   <= neg6_q;
    end
  end

  /////////////////
  // Stage eight //
  /////////////////

  // lg2: e·2^56 + u·g with g = y. |u·g| < 2^56 <= |e|·2^56 unless e is 0, so the magnitude
  // is |e|·2^56 plus or minus |u|·g (minus when the signs differ), with e's sign; for e = 0,
  // |u|·g with u's.
  logic [22+YW-2:0] s8_ug;  // |u| < 2^23 times g < 2^(YW-2)
  logic [MW-1:0]    s8_mag;
  logic             s8_neg;
  assign s8_ug = u_mag7_q * y7_q[YW-3:0];
  always_comb begin
    logic [MW-1:0] e_part, ug;
    e_part = {e_mag7_q, (MW - 8)'(0)};
    ug     = MW'(s8_ug);
    s8_mag = MW'(y7_q);
    s8_neg = neg7_q;
    if (op7_q.lg2) begin
      s8_neg = e_neg7_q || (e_mag7_q == '0 && u_neg7_q);
      s8_mag = (e_mag7_q != '0 && (e_neg7_q != u_neg7_q)) ? e_part - ug : e_part + ug;
    end else if ((op7_q.sin || op7_q.cos) && y7_q[YW-1]) begin
      s8_mag = '0;  // the model's max(0)
    end
  end

  // What stage nine needs of the scale alone, worked out here: the result is mag·2^scale,
  // and its exponent field with the leading one at 2^top is top + scale + 127, which is at
  // least 1 (a normal result) when mag's leading zeros are at most 189 + scale; a subnormal
  // result's last place is 2^-149. Only rcp and ex2 give subnormals (lg2's, sin's and cos's
  // scales are too large), with y below 2^34: shifted down by top + 25 or more nothing is
  // left of mag·2^24, so any shift from 63 on is one of 63.
  logic signed [10:0] s8_scale, s8_normal_lz, s8_tiny_last;
  assign s8_scale     = 11'(scale7_q);
  assign s8_normal_lz = 11'sd189 + s8_scale;
  assign s8_tiny_last = -11'sd126 - s8_scale;

  op_t                op8_q;
  logic [MW-1:0]      mag8_q;
  logic signed [10:0] normal_lz8_q;
  logic [5:0]         tiny_last8_q;
  logic               neg8_q;
  always_ff @(posedge clk_i) begin
    if (v_q[6]) begin
      op8_q        <= op7_q;
      mag8_q       <= s8_mag;
      normal_lz8_q <= s8_normal_lz;
      tiny_last8_q <= s8_tiny_last > 11'sd63 ? 6'd63 : s8_tiny_last[5:0];
      neg8_q       <= s8_neg;
    end
  end

  ////////////////
  // Stage nine //
  ////////////////

  // `last` is the right shift of mag·2^24 that puts the result's last place at bit 1 and the
  // round bit at bit 0: top (63 less the leading zeros) for a normal result, its leading one
  // then at bit 24; -149 - scale + 23 for a subnormal one. The exponent field of a normal
  // one, less the one its leading one adds, is 189 + scale less the leading zeros.
  logic [6:0]         s9_lz;
  logic               s9_normal;
  logic signed [10:0] s9_field;
  assign s9_lz     = sgpu_core_pkg::lzc128({mag8_q, {(128 - MW) {1'b1}}});
  assign s9_normal = $signed({4'b0, s9_lz}) <= normal_lz8_q;
  assign s9_field  = normal_lz8_q - $signed({4'b0, s9_lz});

  op_t           op9_q;
  logic [MW-1:0] mag9_q;
  logic [5:0]    last9_q;
  logic [7:0]    field9_q;
  logic          tiny9_q, inf9_q, zero9_q, neg9_q;
  always_ff @(posedge clk_i) begin
    if (v_q[7]) begin
      op9_q    <= op8_q;
      mag9_q   <= mag8_q;
      last9_q  <= s9_normal ? ~s9_lz[5:0] : tiny_last8_q;  // 63 - lz
      field9_q <= s9_normal ? s9_field[7:0] : 8'h0;
      tiny9_q  <= !s9_normal;
      inf9_q   <= s9_field >= 11'sd254;
      zero9_q  <= mag8_q == '0;
      neg9_q   <= neg8_q;
    end
  end

  ///////////////
  // Stage ten //
  ///////////////

  // The 24 bits kept above the round bit.
  logic [24:0] s10_cut;
  assign s10_cut = 25'({mag9_q, 24'h0} >> last9_q);

  op_t         op10_q;
  logic [24:0] cut10_q;
  logic [7:0]  field10_q;
  logic        tiny10_q, inf10_q, zero10_q, neg10_q;
  always_ff @(posedge clk_i) begin
    if (v_q[8]) begin
      op10_q    <= op9_q;
      cut10_q   <= s10_cut;
      field10_q <= field9_q;
      tiny10_q  <= tiny9_q;
      inf10_q   <= inf9_q;
      zero10_q  <= zero9_q;
      neg10_q   <= neg9_q;
    end
  end

  //////////////////
  // Stage eleven //
  //////////////////

  // Rounded half away from zero by adding the round bit; one addition encodes normals and
  // subnormals and carries a round-up into the next binade (or to infinity). A subnormal
  // stays one unless it rounds up to the smallest normal (.ftz flushes it), decided beside
  // the addition.
  logic [30:0] s11_bits;
  logic        s11_flush;
  logic [31:0] s11_result;
  assign s11_bits  = {field10_q, 23'h0} + 31'(cut10_q[24:1]) + 31'(cut10_q[0]);
  assign s11_flush = op10_q.ftz && tiny10_q && cut10_q != {1'b0, {24{1'b1}}};
  always_comb begin
    if (op10_q.special) s11_result = op10_q.result;
    else if (zero10_q || s11_flush) s11_result = {neg10_q, 31'h0};
    else if (inf10_q) s11_result = {neg10_q, INF};
    else s11_result = {neg10_q, s11_bits};
  end

  logic [31:0] d_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) d_q <= '0;
    else d_q <= v_q[9] ? s11_result : '0;
  end
  assign d_o = d_q;

  // The products' low bits only carry into the bits kept (floors), and the turn's bits
  // above 95 are whole turns; the last stage reads only the operation's special result and
  // .ftz.
  logic unused;
  assign unused = ^{sig_norm[23], s3_prod[sgpu_mufu_pkg::EX2_LSB-1:0], s4_dropped[PW-1:RW],
                    s4_dropped[RW-TURN-1:0], s5_square[TW-1:0], s6_c1t_u[TW-1:0],
                    s6_c2s[TW-1:0], op10_q.rcp, op10_q.sqrt, op10_q.rsqrt, op10_q.ex2,
                    op10_q.lg2, op10_q.sin, op10_q.cos, op10_q.tanh, op10_q.sign};

endmodule
