// One lane of the f32 unit's conversions between f32 and integers: F2I and I2F, bit for bit
// what the golden model computes (sim/src/lane.rs: `float_to_int` and `int_to_float`, with
// `ftz_in` and `convert_int` as sim/src/exec/float.rs uses them). The outputs are zero for
// any other opcode.
//
// - F2I: a (flushed by `.ftz`) rounded to an integral value by the mode, then clamped to the
//   range of `ito` (8, 16, 32 or 64 bits, signed or not); NaN gives 0. A result narrower than
//   32 bits is extended to 32 by its sign; a 64-bit one is d_hi:d.
// - I2F: the integer (8 or 16 bits from a's low bits, 32 from a, 64 from a_hi:a; signed or
//   not) rounded to f32 by the mode. Every integer is in f32's range, and zero is +0.
//
// Both are an exact value cut at its last kept place, then rounded there: F2I keeps the
// integer part (the bits from 2^0 up) of a fixed-point a, I2F the 24 bits from the integer's
// leading one. The cut in the first stage, the rounding, clamp and packing in the second, and
// the result registered and held two cycles more: the instruction given with en_i in cycle
// t has its result on d_o and d_hi_o in cycle t + 4, as the FMA's, and they are zero in
// every cycle that holds no result.
module sgpu_cvt (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        en_i,     // an instruction for the lane this cycle
  input  logic [63:0] instr_i,
  input  logic [31:0] a_i,      // ra
  input  logic [31:0] a_hi_i,   // ra + 1: the high word of I2F's 64-bit integer
  output logic [31:0] d_o,      // rd, of the instruction four cycles before
  output logic [31:0] d_hi_o    // rd + 1, of F2I's 64-bit integer
);

  localparam int unsigned FW = 26;  // F2I's fraction bits: a value below 2^-2 is sticky

  typedef logic [sgpu_isa_pkg::ITO_MSB-sgpu_isa_pkg::ITO_LSB:0] ity_t;

  logic [sgpu_isa_pkg::OP_MSB-sgpu_isa_pkg::OP_LSB:0] op;
  assign op = instr_i[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB];

  logic f2i, i2f;
  assign f2i = op == sgpu_isa_pkg::OP_F2I;
  assign i2f = op == sgpu_isa_pkg::OP_I2F;

  // F2I's ito and I2F's ity are one field.
  ity_t ity;
  logic [1:0] rnd;
  logic       ftz;
  assign ity = instr_i[sgpu_isa_pkg::ITO_MSB:sgpu_isa_pkg::ITO_LSB];
  assign rnd = instr_i[sgpu_isa_pkg::RND_MSB:sgpu_isa_pkg::RND_LSB];
  assign ftz = f2i && instr_i[sgpu_isa_pkg::FTZ_LSB];

  // The bits this unit does not read are the core's (guard, registers) or other forms'.
  logic unused_instr;
  assign unused_instr = ^instr_i;

  // An integer type's signedness and width, as log2 of its bytes.
  function automatic logic is_signed(ity_t t);
    is_signed = t == sgpu_isa_pkg::ITY_S8 || t == sgpu_isa_pkg::ITY_S16
                || t == sgpu_isa_pkg::ITY_S32 || t == sgpu_isa_pkg::ITY_S64;
  endfunction
  function automatic logic [1:0] width_log(ity_t t);
    unique case (t)
      sgpu_isa_pkg::ITY_U8, sgpu_isa_pkg::ITY_S8:   width_log = 2'd0;
      sgpu_isa_pkg::ITY_U16, sgpu_isa_pkg::ITY_S16: width_log = 2'd1;
      sgpu_isa_pkg::ITY_U32, sgpu_isa_pkg::ITY_S32: width_log = 2'd2;
      default:                                      width_log = 2'd3;
    endcase
  endfunction

  ///////////////////
  // Stage one     //
  ///////////////////

  // F2I: a as fixed point, 64 integer bits over FW fraction bits.
  logic [31:0]       x;
  logic              x_nan, x_big;
  logic [23:0]       x_sig;
  logic signed [9:0] x_place;  // where the significand's bit 0 falls: FW + exponent - 23
  logic [63+FW:0]    x_fixed;
  always_comb begin
    x = (ftz && a_i[30:23] == 8'h00) ? {a_i[31], 31'h0} : a_i;
    x_nan = x[30:23] == 8'hff && x[22:0] != '0;
    // 2^64 and above (infinities too) clamp whatever the type.
    x_big = x[30:23] >= 8'd191;
    x_sig = {x[30:23] != 8'h00, x[22:0]};
    // A subnormal's exponent is the smallest normal's: field 1.
    x_place = 10'(FW) + $signed({2'b00, x[30:23]}) + 10'(x[30:23] == 8'h00) - 10'sd150;
    x_fixed = '0;
    if (x_place >= 10'sd0 && !x_big) x_fixed = (64 + FW)'(x_sig) << x_place[6:0];
  end

  // I2F: the integer, its magnitude, and that normalised to its leading one at bit 63.
  logic [63:0] v, v_mag, v_norm;
  logic        v_neg;
  logic [6:0]  v_lz;  // leading zeros of v_mag (64 when zero)
  always_comb begin
    unique case (width_log(ity))
      2'd0: v = is_signed(ity) ? 64'($signed(a_i[7:0])) : 64'(a_i[7:0]);
      2'd1: v = is_signed(ity) ? 64'($signed(a_i[15:0])) : 64'(a_i[15:0]);
      2'd2: v = is_signed(ity) ? 64'($signed(a_i)) : 64'(a_i);
      default: v = {a_hi_i, a_i};
    endcase
    v_neg = is_signed(ity) && v[63];
    v_mag = v_neg ? -v : v;
    v_lz = sgpu_core_pkg::lzc128({v_mag, 64'hffff_ffff_ffff_ffff});
    v_norm = v_mag << v_lz[5:0];
  end

  // What stage two rounds: the bits kept, the round (half) bit and the sticky rest.
  typedef struct packed {
    logic        f2i, i2f;
    ity_t        ity;
    logic [1:0]  rnd;
    logic        neg;
    logic        nan;   // F2I of a NaN
    logic        big;   // F2I of 2^64 or more
    logic [63:0] kept;
    logic        half;
    logic        rest;
    logic [7:0]  exp;   // I2F: the result's exponent field, less one (the leading one adds it)
    logic        zero;  // I2F of zero
  } cut_t;

  cut_t cut, cut_q;
  logic v1_q;
  always_comb begin
    cut.f2i  = f2i;
    cut.i2f  = i2f;
    cut.ity  = ity;
    cut.rnd  = rnd;
    cut.nan  = x_nan;
    cut.big  = x_big;
    cut.exp  = 8'(8'd189 - 8'(v_lz));
    cut.zero = v_mag == '0;
    if (f2i) begin
      cut.neg  = x[31];
      cut.kept = x_fixed[63+FW:FW];
      cut.half = x_fixed[FW-1];
      // Below the window (x_place < 0) every bit of a nonzero significand is sticky.
      cut.rest = (x_place < 10'sd0) ? x_sig != '0 : x_fixed[FW-2:0] != '0;
    end else begin
      cut.neg  = v_neg;
      cut.kept = 64'(v_norm[63:40]);
      cut.half = v_norm[39];
      cut.rest = v_norm[38:0] != '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) v1_q <= 1'b0;
    else v1_q <= en_i && (f2i || i2f);
  end
  always_ff @(posedge clk_i) begin
    if (en_i && (f2i || i2f)) cut_q <= cut;
  end

  ///////////////////
  // Stage two     //
  ///////////////////

  logic up;
  assign up = sgpu_core_pkg::round_up(cut_q.rnd, cut_q.neg, cut_q.kept[0], cut_q.half,
                                      cut_q.rest);

  // F2I: the rounded magnitude (65 bits: 2^64 - 1 may round up) clamped to the type's range:
  // [0, 2^n - 1] unsigned, [-2^(n-1), 2^(n-1) - 1] signed.
  logic [64:0] mag, limit;
  logic [63:0] int_result;
  always_comb begin
    mag = 65'(cut_q.kept) + 65'(up);
    limit = 65'(1) << (7'd8 << width_log(cut_q.ity));
    if (is_signed(cut_q.ity)) limit = limit >> 1;
    if (cut_q.nan) begin
      int_result = '0;
    end else if (!is_signed(cut_q.ity)) begin
      // A negative value is below the range unless it rounded to zero; either way 0.
      int_result = cut_q.neg ? '0 : (cut_q.big || mag >= limit) ? 64'(limit - 65'd1)
                                                                 : mag[63:0];
    end else if (cut_q.neg) begin
      int_result = (cut_q.big || mag >= limit) ? -(64'(limit)) : -mag[63:0];
    end else begin
      int_result = (cut_q.big || mag >= limit) ? 64'(limit - 65'd1) : mag[63:0];
    end
  end

  // I2F: one addition encodes the exponent and significand, and carries a round-up into the
  // next binade.
  logic [30:0] f_bits;
  assign f_bits = {cut_q.exp, 23'h0} + 31'(cut_q.kept[23:0]) + 31'(up);

  logic [31:0] d_q, d_hi_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      d_q    <= '0;
      d_hi_q <= '0;
    end else begin
      d_q    <= '0;
      d_hi_q <= '0;
      if (v1_q && cut_q.f2i) begin
        d_q    <= int_result[31:0];
        d_hi_q <= (width_log(cut_q.ity) == 2'd3) ? int_result[63:32] : '0;
      end else if (v1_q && cut_q.i2f) begin
        d_q <= cut_q.zero ? '0 : {cut_q.neg, f_bits};
      end
    end
  end
  // Held to the FMA's latency (two stages above, FLOAT_LATENCY - 2 held): the last results,
  // the newest in the low bits.
  localparam int unsigned HELD = sgpu_core_pkg::FLOAT_LATENCY - 2;
  logic [64*HELD-1:0] held_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) held_q <= '0;
    else held_q <= (64*HELD)'({held_q, d_hi_q, d_q});
  end
  assign {d_hi_o, d_o} = held_q[64*HELD-1 -: 64];

endmodule
