// One lane of the f32 unit's arithmetic: FADD, FADD32I, FMUL, FMUL32I, FFMA and FFMA32I,
// bit for bit what the golden model computes (sim/src/float.rs: `add`, `mul` and `fma`, with
// the operand modifiers and `.sat` of sim/src/lane.rs). The output is zero for any other
// opcode.
//
// One datapath, rounded once: every form is a x b + c. FADD is a x 1.0 + b, FMUL a x b with
// no addend (not + -0.0, which would turn a +0 product into -0 when rounding down). Every
// rounding mode the ISA encodes, `.ftz` on the inputs and on the rounded result, `.sat`,
// negation and absolute value, and denormals kept: a subnormal a or b is normalised before
// the multiply, so that the product's leading one is at bit 46 or 47 and the sum's round bit
// never falls below the bits kept exactly.
//
// The sum is exact in a 77-bit window, the product at bits 49..2 (two spare bits below it),
// the addend c placed by its exponent:
// - c at or below the window's bottom: the bits shifted out are ORed into bit 0 (a sticky
//   bit). The product then leads by more than 25 bits, so the result's round bit is far
//   above bit 0 and the sticky bit gives the same rounding as the exact value.
// - c more than 52 places above the product's last bit (or the product zero): the window
//   moves up to put c's last bit at 52, and a nonzero product becomes a 1 at bit 0: it is
//   below a quarter of c's last place, where again only its being nonzero matters (a borrow
//   into the round bit when it is subtracted).
// - otherwise both whole.
// Then the magnitude, the leading one, one shift that puts the result's last place at bit
// 53 (the leading one at 76 for a normal result; a subnormal's place is fixed by the
// exponent), the round-up by mode, and one addition that encodes normals and subnormals and
// carries a round-up into the next binade, as sim/src/float.rs's `round` does.
//
// Five stages, one instruction a cycle: the instruction given with en_i in cycle t has its
// result on d_o in cycle t + 4 (sgpu_core_pkg::FLOAT_LATENCY, which the core and the other
// f32 units follow), and d_o is zero in every cycle that holds no result.
// 1. the operands chosen and unpacked, a and b normalised, c aligned, the special cases
//    (NaN, infinities) decided;
// 2. the product (the multiplier);
// 3. the sum or difference in the window and its sign;
// 4. the leading one and the normalising shift: the result's bits, round and sticky bits;
// 5. rounding, the exponent, `.ftz` and `.sat` on the result.
// Leading zeros are counted by a tree (sgpu_core_pkg::lzc128). (With the product in stage
// one and the last two stages as one, the unit closed at half the integer ALU's clock on
// the ECP5: docs/PERFORMANCE.md.)
// The word is one the decoder accepts (bits a form does not use are zero): modifiers are
// read only for the forms that have them, as the 32I forms keep their immediate there.
module sgpu_fma (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        en_i,     // an instruction for the lane this cycle
  input  logic [63:0] instr_i,
  input  logic [31:0] a_i,      // ra
  input  logic [31:0] b_i,      // rb
  input  logic [31:0] c_i,      // rc
  output logic [31:0] d_o       // rd, of the instruction four cycles before
);

  localparam logic [31:0] ONE = 32'h3f80_0000;
  localparam logic [31:0] QNAN = 32'h7fff_ffff;  // the canonical NaN
  localparam int unsigned WW = 77;  // the window
  localparam int unsigned TOP = 52;  // the highest place of c's last bit in the window (and
                                    // s1_high's bound)

  logic [sgpu_isa_pkg::OP_MSB-sgpu_isa_pkg::OP_LSB:0] op;
  assign op = instr_i[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB];

  // The guard is the core's business, and the register numbers the register file's.
  logic unused_instr;
  assign unused_instr = ^{instr_i[sgpu_isa_pkg::PGN_MSB:sgpu_isa_pkg::PGN_LSB],
                          instr_i[sgpu_isa_pkg::PG_MSB:sgpu_isa_pkg::PG_LSB],
                          instr_i[sgpu_isa_pkg::RD_MSB:sgpu_isa_pkg::RD_LSB],
                          instr_i[sgpu_isa_pkg::RA_MSB:sgpu_isa_pkg::RA_LSB],
                          instr_i[sgpu_isa_pkg::RB_MSB:sgpu_isa_pkg::RB_LSB],
                          instr_i[sgpu_isa_pkg::RC_MSB:sgpu_isa_pkg::RC_LSB]};

  logic fadd, fadd32i, fmul, fmul32i, ffma, ffma32i, mine, full;
  assign fadd    = op == sgpu_isa_pkg::OP_FADD;
  assign fadd32i = op == sgpu_isa_pkg::OP_FADD32I;
  assign fmul    = op == sgpu_isa_pkg::OP_FMUL;
  assign fmul32i = op == sgpu_isa_pkg::OP_FMUL32I;
  assign ffma    = op == sgpu_isa_pkg::OP_FFMA;
  assign ffma32i = op == sgpu_isa_pkg::OP_FFMA32I;
  assign mine    = fadd || fadd32i || fmul || fmul32i || ffma || ffma32i;
  // The forms with modifiers; the 32I ones round to nearest, without .ftz or .sat.
  assign full    = fadd || fmul || ffma;

  logic [1:0] rnd;
  logic       ftz, sat, na, nb, absa, absb, nc;
  assign rnd  = full ? instr_i[sgpu_isa_pkg::RND_MSB:sgpu_isa_pkg::RND_LSB]
                     : sgpu_isa_pkg::RND_RN;
  assign ftz  = full && instr_i[sgpu_isa_pkg::FTZ_LSB];
  assign sat  = full && instr_i[sgpu_isa_pkg::SAT_LSB];
  assign na   = full && instr_i[sgpu_isa_pkg::NA_LSB];
  assign nb   = fadd && instr_i[sgpu_isa_pkg::NB_LSB];
  assign absa = (fadd || fmul) && instr_i[sgpu_isa_pkg::ABSA_LSB];
  assign absb = (fadd || fmul) && instr_i[sgpu_isa_pkg::ABSB_LSB];
  assign nc   = ffma && instr_i[sgpu_isa_pkg::NC_LSB];

  logic [31:0] imm32, fimm;
  assign imm32 = instr_i[sgpu_isa_pkg::IMM32_MSB:sgpu_isa_pkg::IMM32_LSB];
  assign fimm  = {instr_i[sgpu_isa_pkg::FIMM20_MSB:sgpu_isa_pkg::FIMM20_LSB], 12'h000};

  // x x y + z, with z absent (no addend) for the multiplies.
  logic [31:0] x, y, z;
  logic        z_absent;
  logic        go;  // an instruction of this unit enters
  assign go = en_i && mine;
  // Each stage's logic computes under its stage's valid bit and leaves its values undefined
  // otherwise: yosys takes the x as a don't-care (no logic), and the Verilated core does not
  // evaluate an idle unit in every cycle (hw/README.md).
  always_comb begin
    {x, y, z, z_absent} = 'x;
    if (go) begin
      x = {a_i[31] & !absa ^ na, a_i[30:0]};
      y = ONE;
      z = '0;
      z_absent = 1'b0;
      if (fadd) begin
        z = {b_i[31] & !absb ^ nb, b_i[30:0]};
      end else if (fadd32i) begin
        z = imm32;
      end else if (fmul) begin
        y = {b_i[31] & !absb, b_i[30:0]};
        z_absent = 1'b1;
      end else if (fmul32i) begin
        y = imm32;
        z_absent = 1'b1;
      end else if (ffma) begin
        y = b_i;
        z = {c_i[31] ^ nc, c_i[30:0]};
      end else begin  // FFMA32I, or no instruction of this unit
        y = b_i;
        z = fimm;
      end
    end
  end

  ///////////////
  // Stage one //
  ///////////////

  // A value's parts: its class, its significand with the leading one where the format keeps
  // it, and the exponent of its leading place (subnormals at -126), after `.ftz`. (The
  // functions below give plain vectors: yosys 0.23 drops a struct a function returns.)
  typedef struct packed {
    logic              sign;
    logic              nan;
    logic              inf;
    logic              zero;
    logic [23:0]       sig;
    logic signed [9:0] exp;
  } parts_t;
  localparam int unsigned PW = 38;  // the bits of parts_t

  function automatic logic [PW-1:0] unpack(logic [31:0] v, logic flush);
    logic [7:0]        field;
    logic [22:0]       frac;
    logic signed [9:0] e;
    field = v[30:23];
    frac  = (flush && field == 8'h00) ? 23'h0 : v[22:0];
    e     = (field == 8'h00) ? -10'sd126 : $signed({2'b00, field}) - 10'sd127;
    unpack = {v[31], field == 8'hff && frac != 23'h0, field == 8'hff && frac == 23'h0,
              field == 8'h00 && frac == 23'h0, field != 8'h00, frac, e};
  endfunction

  // A subnormal's significand shifted up to its leading one, its exponent down as far.
  function automatic logic [PW-1:0] normalised(logic [PW-1:0] p);
    logic [23:0]       sig;
    logic signed [9:0] e;
    logic [4:0]        n;
    sig = p[33:10];
    e   = p[9:0];
    n   = sig == 24'h0 ? 5'd0 : 5'(sgpu_core_pkg::lzc128({sig, {104{1'b1}}}));
    normalised = {p[37:34], sig << n, e - $signed({5'b0, n})};
  endfunction

  parts_t px, py, pz;
  logic              s1_sign_p, s1_zero_c, s1_prod_zero;
  logic signed [11:0] s1_w0_mul, s1_pos_c;
  always_comb begin
    {px, py, pz, s1_sign_p, s1_zero_c, s1_prod_zero, s1_w0_mul, s1_pos_c} = 'x;
    if (go) begin
      px = normalised(unpack(x, ftz));
      py = normalised(unpack(y, ftz));
      pz = unpack(z, ftz);
      s1_sign_p    = px.sign ^ py.sign;
      // Normalised, a nonzero operand's significand has its leading one at bit 23.
      s1_prod_zero = px.zero || py.zero;
      s1_zero_c    = z_absent || pz.zero;
      // The exponent of the window's bit 0 with the product at bits 49..2, and where c's
      // last place falls in that window.
      s1_w0_mul = 12'(px.exp) + 12'(py.exp) - 12'sd48;
      s1_pos_c  = 12'(pz.exp) - 12'sd23 - s1_w0_mul;
    end
  end

  // The window, with c too high (or the product zero) as the top case of the comment above;
  // the product takes its place in stage two.
  logic              s1_high;
  logic [WW-1:0]     s1_cw;
  logic signed [11:0] s1_w0;
  always_comb begin
    logic [WW-1:0] wide_c;
    logic [11:0]   down;
    {s1_high, s1_cw, s1_w0, wide_c, down} = 'x;
    if (go) begin
      s1_high = !s1_zero_c && (s1_pos_c > 12'sd52 || s1_prod_zero);
      wide_c = {{(WW - 24) {1'b0}}, s1_zero_c ? 24'h0 : pz.sig};
      down = 12'(-s1_pos_c);
      if (s1_high) begin
        s1_w0 = 12'(pz.exp) - 12'sd23 - 12'(TOP);
        s1_cw = wide_c << TOP;
      end else begin
        s1_w0 = s1_w0_mul;
        if (s1_pos_c >= 12'sd0) begin
          s1_cw = wide_c << s1_pos_c[5:0];
        end else if (down >= 12'd24) begin
          s1_cw = {{(WW - 1) {1'b0}}, wide_c != '0};
        end else begin
          s1_cw = (wide_c >> down[4:0])
                  | {{(WW - 1) {1'b0}}, (wide_c & ~({WW{1'b1}} << down[4:0])) != '0};
        end
      end
    end
  end

  // What the operands alone decide: a NaN result (a NaN operand, 0 x infinity, or an
  // infinite product plus the opposite infinity), or an infinite one.
  logic s1_nan, s1_inf, s1_inf_sign, s1_sign_c;
  always_comb begin
    {s1_nan, s1_inf, s1_inf_sign, s1_sign_c} = 'x;
    if (go) begin
      s1_sign_c   = z_absent ? s1_sign_p : pz.sign;
      s1_nan      = px.nan || py.nan || (!z_absent && pz.nan)
                    || (px.inf && py.zero) || (px.zero && py.inf)
                    || ((px.inf || py.inf) && !z_absent && pz.inf && pz.sign != s1_sign_p);
      s1_inf      = px.inf || py.inf || (!z_absent && pz.inf);
      s1_inf_sign = (px.inf || py.inf) ? s1_sign_p : pz.sign;
    end
  end

  typedef struct packed {
    logic              nan;
    logic              inf;
    logic              inf_sign;
    logic [1:0]        rnd;
    logic              ftz;
    logic              sat;
    logic signed [11:0] w0;
  } ctl_t;

  logic          v0_q;
  ctl_t          ctl0_q;
  logic          sign_p0_q, sign_c0_q, high0_q, prod_zero0_q;
  logic [23:0]   sig_x0_q, sig_y0_q;
  logic [WW-1:0] cw0_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) v0_q <= 1'b0;
    else v0_q <= go;
  end
  always_ff @(posedge clk_i) begin
    if (go) begin
      ctl0_q.nan      <= s1_nan;
      ctl0_q.inf      <= s1_inf;
      ctl0_q.inf_sign <= s1_inf_sign;
      ctl0_q.rnd      <= rnd;
      ctl0_q.ftz      <= ftz;
      ctl0_q.sat      <= sat;
      ctl0_q.w0       <= s1_w0;
      sign_p0_q    <= s1_sign_p;
      sign_c0_q    <= s1_sign_c;
      high0_q      <= s1_high;
      prod_zero0_q <= s1_prod_zero;
      sig_x0_q     <= px.sig;
      sig_y0_q     <= py.sig;
      cw0_q        <= s1_cw;
    end
  end

  ///////////////
  // Stage two //
  ///////////////

  // The product (in the DSP blocks), at bits 49..2 of the window, or below c as a sticky
  // bit.
  logic [47:0]   s2_prod;
  logic [WW-1:0] s2_pw;
  always_comb begin
    {s2_prod, s2_pw} = 'x;
    if (v0_q) begin
      s2_prod = sig_x0_q * sig_y0_q;
      s2_pw   = high0_q ? {{(WW - 1) {1'b0}}, !prod_zero0_q}
                        : {{(WW - 50) {1'b0}}, s2_prod, 2'b00};
    end
  end

  logic          v1_q;
  ctl_t          ctl1_q;
  logic          sign_p_q, sign_c_q;
  logic [WW-1:0] pw_q, cw_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) v1_q <= 1'b0;
    else v1_q <= v0_q;
  end
  always_ff @(posedge clk_i) begin
    if (v0_q) begin
      ctl1_q   <= ctl0_q;
      sign_p_q <= sign_p0_q;
      sign_c_q <= sign_c0_q;
      pw_q     <= s2_pw;
      cw_q     <= cw0_q;
    end
  end

  /////////////////
  // Stage three //
  /////////////////

  // The magnitude of the sum and its sign. A zero sum takes the terms' sign when they
  // agree, else -0 only when rounding down.
  logic [WW:0]   s3_diff;
  logic [WW-1:0] s3_mag;
  logic          s3_sign;
  always_comb begin
    {s3_diff, s3_mag, s3_sign} = 'x;
    if (v1_q) begin
      s3_diff = {1'b0, pw_q} - {1'b0, cw_q};
      if (sign_p_q == sign_c_q) begin
        s3_mag  = pw_q + cw_q;
        s3_sign = sign_p_q;
      end else if (s3_diff[WW]) begin
        s3_mag  = cw_q - pw_q;
        s3_sign = sign_c_q;
      end else begin
        s3_mag  = s3_diff[WW-1:0];
        s3_sign = sign_p_q;
      end
      if (s3_mag == '0) begin
        s3_sign = sign_p_q == sign_c_q ? sign_p_q : ctl1_q.rnd == sgpu_isa_pkg::RND_RM;
      end
    end
  end

  logic          v2_q;
  ctl_t          ctl2_q;
  logic          sign2_q;
  logic [WW-1:0] mag_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) v2_q <= 1'b0;
    else v2_q <= v1_q;
  end
  always_ff @(posedge clk_i) begin
    if (v1_q) begin
      ctl2_q  <= ctl1_q;
      sign2_q <= s3_sign;
      mag_q   <= s3_mag;
    end
  end

  ////////////////
  // Stage four //
  ////////////////

  logic [6:0]         s4_lz;
  logic signed [11:0] s4_lead, s4_left;
  logic               s4_subnormal;
  // The result's 24 bits at 76..53, the round bit at 52, the sticky bit below.
  logic [WW-1:0] s4_norm;
  logic          s4_lost;
  always_comb begin
    logic [11:0] right;
    {s4_lz, s4_lead, s4_left, s4_subnormal, s4_norm, s4_lost, right} = 'x;
    if (v2_q) begin
      // The count of leading zeros of the window (WW when zero).
      s4_lz = sgpu_core_pkg::lzc128({mag_q, {(128 - WW){1'b1}}});
      // The exponent of the leading one; a result below the normals has its last place at
      // 2^-149, which is bit 53 after a shift of 202 + w0 (a right shift when negative).
      s4_lead      = ctl2_q.w0 + 12'sd76 - 12'($signed({1'b0, s4_lz}));
      s4_subnormal = s4_lead < -12'sd126;
      s4_left      = s4_subnormal ? ctl2_q.w0 + 12'sd202 : 12'($signed({1'b0, s4_lz}));
      right   = 12'(-s4_left);
      s4_lost = 1'b0;
      if (s4_left >= 12'sd0) begin
        s4_norm = mag_q << s4_left[6:0];
      end else if (right >= 12'(WW)) begin
        s4_norm = '0;
        s4_lost = mag_q != '0;
      end else begin
        s4_norm = mag_q >> right[6:0];
        s4_lost = (mag_q & ~({WW{1'b1}} << right[6:0])) != '0;
      end
    end
  end

  // What stage four rounds: the result's 24 bits, the round bit and the sticky rest, and
  // the exponent field of a normal result (the leading one's exponent + 126, as the leading
  // one adds one), zero for a subnormal: at most 282 + 126, 11 bits.
  logic          v3_q;
  ctl_t          ctl3_q;
  logic          sign3_q, zero3_q, half3_q, rest3_q;
  logic [23:0]   kept3_q;
  logic [10:0]   field3_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) v3_q <= 1'b0;
    else v3_q <= v2_q;
  end
  always_ff @(posedge clk_i) begin
    if (v2_q) begin
      ctl3_q   <= ctl2_q;
      sign3_q  <= sign2_q;
      zero3_q  <= mag_q == '0;
      kept3_q  <= s4_norm[WW-1:WW-24];
      half3_q  <= s4_norm[WW-25];
      rest3_q  <= s4_norm[WW-26:0] != '0 || s4_lost;
      field3_q <= s4_subnormal ? 11'h0 : 11'(s4_lead + 12'sd126);
    end
  end

  ////////////////
  // Stage five //
  ////////////////

  logic s5_up;
  // The exponent field above the fraction, the leading one added into it (so a normal's
  // field comes out one more, and a round-up past the fraction carries into the next
  // binade); past the largest finite value, infinity or the largest by mode.
  logic [33:0] s5_bits;
  logic [30:0] s5_mag;
  logic [31:0] s5_round, s5_flushed, s5_result;
  always_comb begin
    {s5_up, s5_bits, s5_mag, s5_round, s5_flushed, s5_result} = 'x;
    if (v3_q) begin
      s5_up   = sgpu_core_pkg::round_up(ctl3_q.rnd, sign3_q, kept3_q[0], half3_q, rest3_q);
      s5_bits = {field3_q, 23'h0} + {10'h0, kept3_q} + {33'h0, s5_up};
      if (zero3_q) s5_mag = '0;
      else if (s5_bits >= 34'h7f80_0000) begin
        s5_mag = sgpu_core_pkg::to_infinity(ctl3_q.rnd, sign3_q) ? 31'h7f80_0000 : 31'h7f7f_ffff;
      end
      else s5_mag = s5_bits[30:0];

      // The result, then `.ftz` (a subnormal result to a zero of its sign) and `.sat` (NaN and
      // everything up to +0 to +0, above 1.0 to 1.0).
      if (ctl3_q.nan) s5_round = QNAN;
      else if (ctl3_q.inf) s5_round = {ctl3_q.inf_sign, 31'h7f80_0000};
      else s5_round = {sign3_q, s5_mag};
      s5_flushed = s5_round;
      if (ctl3_q.ftz && s5_round[30:23] == 8'h00) s5_flushed[22:0] = 23'h0;
      s5_result = s5_flushed;
      if (ctl3_q.sat) begin
        if (ctl3_q.nan || s5_flushed[31]) s5_result = 32'h0;
        else if (s5_flushed > ONE) s5_result = ONE;
      end
    end
  end

  assign d_o = v3_q ? s5_result : 32'h0;

  logic unused_bits;
  assign unused_bits = ^{s5_bits[33:31], ctl3_q.w0};  // w0 placed the result in stage three

endmodule
