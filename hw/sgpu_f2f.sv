// The conversions between float formats (F2F), bit for bit what the golden model computes
// (sim/src/lane.rs: `convert_float`, with `round_integral`, `saturate` and the clamps, and
// sim/src/float.rs: `narrow`, `widen` and their rounder): f32 to f32 made integral (`rint`),
// f32 to f16, bf16, e4m3 or e5m2 rounded by the mode, and each of those to f32 exactly. The
// output is zero for any other opcode.
//
// Every form is one path on f32 values:
// 1. the source as f32: a, flushed by `.ftz`, or a narrower value widened (exactly: every
//    f16, e4m3 and e5m2 value is an f32 normal, and bf16 is the upper half of f32);
// 2. made integral by the mode when `rint` says (the bits below 2^0 cut off and rounded, the
//    integer normalised back to f32);
// 3. clamped (`.sat` to [0, 1], `.relu` to 0 if negative, `.satfinite` to the destination's
//    largest finite magnitude), which commutes with the rounding after it;
// 4. rounded to the narrower format at its last place (its subnormals' fixed place below its
//    smallest normal), overflowing to infinity or the largest finite value by the mode (to
//    NaN in e4m3, which has no infinity), or, for an f32 result, flushed by `.ftz`.
// A NaN gives the destination's canonical NaN (its every bit but the sign), and never takes
// part in the arithmetic: only whether a value is NaN travels down the stages.
//
// One conversion a cycle in four stages (the steps above, the last split at the rounding):
// the instruction given with en_i in cycle t has its result on d_o in cycle t + 4
// (sgpu_core_pkg::FLOAT_LATENCY), and d_o is zero in every cycle that holds no result. The
// core has one for its lanes, fed a lane a cycle: conversions between float formats are rare
// beside the f32 arithmetic.
module sgpu_f2f (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        en_i,     // a conversion this cycle
  input  logic [63:0] instr_i,
  input  logic [31:0] a_i,      // ra
  output logic [31:0] d_o       // rd, of the conversion four cycles before
);

  typedef logic [sgpu_isa_pkg::FCVT_MSB-sgpu_isa_pkg::FCVT_LSB:0] fcvt_t;

  logic [sgpu_isa_pkg::OP_MSB-sgpu_isa_pkg::OP_LSB:0] op;
  assign op = instr_i[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB];

  logic  mine, rint, ftz, sat, relu, satf;
  fcvt_t fcvt;
  logic [1:0] rnd;
  assign mine = en_i && op == sgpu_isa_pkg::OP_F2F;
  assign fcvt = instr_i[sgpu_isa_pkg::FCVT_MSB:sgpu_isa_pkg::FCVT_LSB];
  assign rnd  = instr_i[sgpu_isa_pkg::RND_MSB:sgpu_isa_pkg::RND_LSB];
  assign rint = instr_i[sgpu_isa_pkg::RINT_LSB];
  assign ftz  = instr_i[sgpu_isa_pkg::FTZ_LSB];
  assign sat  = instr_i[sgpu_isa_pkg::SAT_LSB];
  assign relu = instr_i[sgpu_isa_pkg::RELU_LSB];
  assign satf = instr_i[sgpu_isa_pkg::SATF_LSB];

  // The guard, the registers and the other forms' fields are not this unit's.
  logic unused_instr;
  assign unused_instr = ^instr_i;

  // The destination format, when narrower than f32 (fcvt's f16, bf16, e4m3, e5m2).
  typedef enum logic [2:0] {
    TO_F32,
    TO_F16,
    TO_BF16,
    TO_E4M3,
    TO_E5M2
  } to_e;

  function automatic to_e dest(fcvt_t f);
    unique case (f)
      sgpu_isa_pkg::FCVT_F16:  dest = TO_F16;
      sgpu_isa_pkg::FCVT_BF16: dest = TO_BF16;
      sgpu_isa_pkg::FCVT_E4M3: dest = TO_E4M3;
      sgpu_isa_pkg::FCVT_E5M2: dest = TO_E5M2;
      default:                 dest = TO_F32;
    endcase
  endfunction

  // A narrow format's fraction bits, and the f32 exponent field of its smallest normal.
  function automatic logic [3:0] frac_bits(to_e t);
    unique case (t)
      TO_F16:  frac_bits = 4'd10;
      TO_BF16: frac_bits = 4'd7;
      TO_E4M3: frac_bits = 4'd3;
      TO_E5M2: frac_bits = 4'd2;
      default: frac_bits = 4'd0;  // f32: no narrowing
    endcase
  endfunction
  function automatic logic [7:0] min_field(to_e t);
    unique case (t)
      TO_F16, TO_E5M2: min_field = 8'd113;  // 2^-14
      TO_E4M3:         min_field = 8'd121;  // 2^-6
      default:         min_field = 8'd1;    // bf16's and f32's 2^-126
    endcase
  endfunction

  // A narrow format's largest finite value: its own bits, and as f32 (`.satfinite`'s bound).
  function automatic logic [15:0] max_bits(to_e t);
    unique case (t)
      TO_F16, TO_BF16: max_bits = (t == TO_F16) ? 16'h7bff : 16'h7f7f;
      TO_E4M3:         max_bits = 16'h007e;  // 448: 0x7f is NaN, and no infinity
      default:         max_bits = 16'h007b;  // e5m2's 57344
    endcase
  endfunction
  function automatic logic [30:0] max_f32(to_e t);
    unique case (t)
      TO_F16:  max_f32 = 31'h477f_e000;
      TO_BF16: max_f32 = 31'h7f7f_0000;
      TO_E4M3: max_f32 = 31'h43e0_0000;
      TO_E5M2: max_f32 = 31'h4760_0000;
      default: max_f32 = 31'h7f7f_ffff;
    endcase
  endfunction

  // A narrow format's infinity (e4m3 has none) and canonical NaN, and its sign bit.
  function automatic logic [15:0] inf_bits(to_e t);
    inf_bits = (t == TO_F16) ? 16'h7c00 : (t == TO_BF16) ? 16'h7f80 : 16'h007c;
  endfunction
  function automatic logic [15:0] nan_bits(to_e t);
    nan_bits = (t == TO_F16 || t == TO_BF16) ? 16'h7fff : 16'h007f;
  endfunction
  function automatic logic [15:0] sign_bit(to_e t);
    sign_bit = (t == TO_F16 || t == TO_BF16) ? 16'h8000 : 16'h0080;
  endfunction

  ///////////////
  // Stage one //
  ///////////////

  // A value of a format of `e` exponent and `f` fraction bits with bias 2^(e-1) - 1 (its
  // bits at the bottom of `v`), as f32: its exponent rebiased, its fraction moved up; a
  // subnormal normalised (its leading one to the hidden place). For f16, e4m3 and e5m2,
  // whose every value is an f32 normal; bf16 is f32's upper half. `finite`: e4m3, whose
  // all-ones exponent holds normals and only 0x7f is NaN. Returns {nan, f32 bits}.
  function automatic logic [32:0] widen(logic [15:0] v, int unsigned e, int unsigned f,
                                        logic finite);
    logic        sign;
    logic [7:0]  field, bias_up;
    logic [9:0]  frac;
    logic [3:0]  lz;
    logic        top;
    sign    = v[e + f];
    field   = 8'(v >> f) & ((8'd1 << e) - 8'd1);
    frac    = 10'(v[9:0] & ((10'd1 << f) - 10'd1));
    bias_up = 8'(128 - (1 << (e - 1)));  // 127 less the format's bias
    top     = field == 8'((1 << e) - 1);
    lz      = 4'(sgpu_core_pkg::lzc128({frac << (10 - f), {118{1'b1}}}));
    if (finite ? top && frac == 10'((1 << f) - 1) : top && frac != '0) begin
      widen = {1'b1, 32'h7fff_ffff};
    end else if (!finite && top) begin
      widen = {1'b0, sign, 8'hff, 23'h0};
    end else if (field == '0 && frac == '0) begin
      widen = {1'b0, sign, 31'h0};
    end else if (field == '0) begin
      // 0.frac x 2^(1 - bias): the leading one, lz + 1 places below the point, is hidden.
      widen = {1'b0, sign, bias_up - 8'(lz), 23'({frac << (10 - f), 13'h0} << (lz + 4'd1))};
    end else begin
      widen = {1'b0, sign, field + bias_up, 23'({frac, 13'h0} << (10 - f))};
    end
  endfunction

  // The source as f32, and whether it is NaN.
  logic [31:0] s1_x;
  logic        s1_nan;
  // Each stage's logic computes only when the stage holds a conversion and leaves its values
  // undefined otherwise: yosys takes the x as a don't-care (no logic), and the Verilated core
  // does not evaluate an idle unit in every cycle (hw/README.md).
  always_comb begin
    logic [31:0] flushed;
    {s1_x, s1_nan, flushed} = 'x;
    if (mine) begin
      flushed = (ftz && a_i[30:23] == 8'h00) ? {a_i[31], 31'h0} : a_i;
      unique case (fcvt)
        sgpu_isa_pkg::FCVT_FROM_F16:  {s1_nan, s1_x} = widen(a_i[15:0], 5, 10, 1'b0);
        sgpu_isa_pkg::FCVT_FROM_BF16: begin
          s1_nan = a_i[14:7] == 8'hff && a_i[6:0] != '0;
          s1_x   = s1_nan ? 32'h7fff_ffff : {a_i[15:0], 16'h0};
        end
        sgpu_isa_pkg::FCVT_FROM_E4M3: {s1_nan, s1_x} = widen(a_i[15:0], 4, 3, 1'b1);
        sgpu_isa_pkg::FCVT_FROM_E5M2: {s1_nan, s1_x} = widen(a_i[15:0], 5, 2, 1'b0);
        default: begin
          s1_x   = flushed;
          s1_nan = flushed[30:23] == 8'hff && flushed[22:0] != '0;
        end
      endcase
    end
  end

  // What every stage carries: the instruction's modifiers and the value so far.
  typedef struct packed {
    to_e         to;
    logic [1:0]  rnd;
    logic        rint, ftz, sat, relu, satf;
    logic        nan;
    logic [31:0] x;
  } val_t;

  logic v1_q;
  val_t s1_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) v1_q <= 1'b0;
    else v1_q <= mine;
  end
  always_ff @(posedge clk_i) begin
    if (mine) begin
      s1_q.to   <= dest(fcvt);
      s1_q.rnd  <= rnd;
      s1_q.rint <= rint;
      s1_q.ftz  <= ftz;  // an f32 source's is applied already, a narrower one's to the result
      s1_q.sat  <= sat;
      s1_q.relu <= relu;
      s1_q.satf <= satf;
      s1_q.nan  <= s1_nan;
      s1_q.x    <= s1_x;
    end
  end

  ///////////////
  // Stage two //
  ///////////////

  // `rint`: x rounded to an integral value by the mode (round_integral: to nearest even,
  // toward zero, down, up). From 2^23 up every f32 (and infinity and NaN) is integral; below,
  // the bits under 2^0 are cut off (below 2^-1 all of them sticky), the integer part rounded,
  // and the integer (at most 2^23) normalised back, keeping x's sign when it is zero.
  function automatic logic [31:0] integral(logic [31:0] x, logic [1:0] mode);
    logic [23:0] sig, kept;
    logic [7:0]  cut;  // fraction bits of x: 150 less its exponent field
    logic        half, rest;
    logic [23:0] n;
    logic [4:0]  lz;
    sig = {x[30:23] != 8'h00, x[22:0]};
    cut = 8'd150 - ((x[30:23] == 8'h00) ? 8'd1 : x[30:23]);
    if (x[30:23] >= 8'd150) begin
      integral = x;
    end else begin
      if (cut >= 8'd25) begin
        kept = '0;
        half = 1'b0;
        rest = sig != '0;
      end else begin
        kept = sig >> cut[4:0];
        half = sig[cut[4:0] - 5'd1];
        rest = (sig & ~({24{1'b1}} << (cut[4:0] - 5'd1))) != '0;
      end
      // At most 2^23: the leading one at bit 23 - lz, an exponent of 23 - lz.
      n  = kept + 24'(sgpu_core_pkg::round_up(mode, x[31], kept[0], half, rest));
      lz = 5'(sgpu_core_pkg::lzc128({n, {104{1'b1}}}));
      if (n == '0) integral = {x[31], 31'h0};
      else integral = {x[31], 8'd150 - 8'(lz), 23'(n << lz)};
    end
  endfunction

  logic v2_q;
  val_t s2_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) v2_q <= 1'b0;
    else v2_q <= v1_q;
  end
  always_ff @(posedge clk_i) begin
    if (v1_q) begin
      s2_q <= s1_q;
      if (s1_q.rint && !s1_q.nan) s2_q.x <= integral(s1_q.x, s1_q.rnd);
    end
  end

  /////////////////
  // Stage three //
  /////////////////

  // The clamps, on a value that is not NaN (a NaN passes them as NaN, but for `.sat`, which
  // gives +0): `.sat` to [+0, 1] (-0 too to +0), `.relu` a negative to +0, `.satfinite` a
  // magnitude past the destination's largest finite one (an infinity too) to that one.
  logic [31:0] s3_x;
  logic        s3_nan;
  always_comb begin
    {s3_x, s3_nan} = 'x;
    if (v2_q) begin
      s3_x   = s2_q.x;
      s3_nan = s2_q.nan;
      if (s2_q.sat) begin
        if (s2_q.nan || s3_x[31] || s3_x[30:0] == '0) s3_x = 32'h0;
        else if (s3_x[30:0] > 31'h3f80_0000) s3_x = 32'h3f80_0000;
        s3_nan = 1'b0;
      end
      if (s2_q.relu && !s3_nan && s3_x[31]) s3_x = 32'h0;
      if (s2_q.satf && !s3_nan && s3_x[30:0] > max_f32(s2_q.to)) begin
        s3_x[30:0] = max_f32(s2_q.to);
      end
    end
  end

  // The narrowing's cut: the f32 significand below the destination's last place, which is
  // its fraction's last bit for a result from its smallest normal up, and the smallest
  // normal's below it (its subnormals). `field` is the result's exponent field less one
  // (the significand's leading one, kept, adds the one), 0 for a subnormal.
  logic [23:0] s3_sig, s3_kept;
  logic        s3_half, s3_rest;
  logic [7:0]  s3_field;
  always_comb begin
    logic [7:0] e, cut;  // x's exponent field (a subnormal's 1), and the bits cut off
    {s3_sig, s3_kept, s3_half, s3_rest, s3_field, e, cut} = 'x;
    if (v2_q) begin
      e      = (s3_x[30:23] == 8'h00) ? 8'd1 : s3_x[30:23];
      s3_sig = {s3_x[30:23] != 8'h00, s3_x[22:0]};
      if (e >= min_field(s2_q.to)) begin
        cut      = 8'd23 - 8'(frac_bits(s2_q.to));
        s3_field = e - min_field(s2_q.to);
      end else begin
        cut      = 8'd23 - 8'(frac_bits(s2_q.to)) + min_field(s2_q.to) - e;
        s3_field = '0;
      end
      if (cut >= 8'd25) begin
        s3_kept = '0;
        s3_half = 1'b0;
        s3_rest = s3_sig != '0;
      end else begin
        s3_kept = s3_sig >> cut[4:0];
        s3_half = s3_sig[cut[4:0] - 5'd1];
        s3_rest = (s3_sig & ~({24{1'b1}} << (cut[4:0] - 5'd1))) != '0;
      end
    end
  end

  logic v3_q;
  val_t s3_q;
  logic [23:0] kept3_q;
  logic        half3_q, rest3_q;
  logic [7:0]  field3_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) v3_q <= 1'b0;
    else v3_q <= v2_q;
  end
  always_ff @(posedge clk_i) begin
    if (v2_q) begin
      s3_q     <= s2_q;
      s3_q.x   <= s3_x;
      s3_q.nan <= s3_nan;
      kept3_q  <= s3_kept;
      half3_q  <= s3_half;
      rest3_q  <= s3_rest;
      field3_q <= s3_field;
    end
  end

  ////////////////
  // Stage four //
  ////////////////

  // The narrowed value: one addition encodes normals and subnormals (the kept significand's
  // leading one adds one to the field) and carries a round-up into the next binade; past
  // the largest finite value, infinity (NaN in e4m3) or the largest finite by the mode.
  // Zero keeps its sign; an infinity is the format's (NaN in e4m3); NaN the canonical one.
  function automatic logic [15:0] narrow(to_e to, logic [1:0] mode, logic nan, logic neg,
                                         logic inf, logic [23:0] kept, logic half, logic rest,
                                         logic [7:0] field);
    logic [15:0] sign;
    logic [31:0] bits;
    logic        to_inf;
    sign = neg ? sign_bit(to) : '0;
    bits = (32'(field) << frac_bits(to)) + 32'(kept)
           + 32'(sgpu_core_pkg::round_up(mode, neg, kept[0], half, rest));
    to_inf = sgpu_core_pkg::to_infinity(mode, neg);
    if (nan || (to == TO_E4M3 && inf)) begin
      narrow = nan_bits(to);
    end else if (inf) begin
      narrow = sign | inf_bits(to);
    end else if (bits > 32'(max_bits(to))) begin
      narrow = sign | (!to_inf ? max_bits(to) : (to == TO_E4M3) ? nan_bits(to) : inf_bits(to));
    end else begin
      narrow = sign | 16'(bits);
    end
  endfunction

  logic [31:0] s4_result;
  always_comb begin
    if (!v3_q) begin
      s4_result = '0;
    end else if (s3_q.to != TO_F32) begin
      // Not NaN, so an all-ones exponent is an infinity.
      s4_result = 32'(narrow(s3_q.to, s3_q.rnd, s3_q.nan, s3_q.x[31], s3_q.x[30:23] == 8'hff,
                             kept3_q, half3_q, rest3_q, field3_q));
    end else if (s3_q.nan) begin
      s4_result = 32'h7fff_ffff;
    end else if (s3_q.ftz && s3_q.x[30:23] == 8'h00) begin
      s4_result = {s3_q.x[31], 31'h0};
    end else begin
      s4_result = s3_q.x;
    end
  end

  // The modifiers stage two and three have applied.
  logic unused_done;
  assign unused_done = ^{s3_q.rint, s3_q.sat, s3_q.relu, s3_q.satf};

  logic [31:0] d_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) d_q <= '0;
    else d_q <= s4_result;
  end
  assign d_o = d_q;

endmodule
