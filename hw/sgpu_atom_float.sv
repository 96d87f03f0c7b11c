// The new value of a float atomic (ATOM, RED) in one lane, from the old value in memory and
// the operand b, as the golden model's `lane::atom` computes it (sim/src/lane.rs): add on f32
// (rounded to nearest, subnormals kept), and add, min and max on f16 and bf16 and on each
// half of their pairs (`half_atom`: both halves widened to f32 exactly, added in f32 and
// rounded to nearest, then narrowed to nearest, which gives the exact sum rounded once; min
// and max give an operand or the canonical NaN). The integer atomics are sgpu_atom_alu's; the
// core starts this unit between an atomic's read and its write.
//
// Each half, or the f32 word, is a pass through ten stages, each at most one carry chain or
// one shifter deep so that the unit closes at 100 MHz on an ECP5:
//   1 widen   the operands as f32 (a 16-bit format's exactly);
//   2 order   the larger magnitude first, the exponents' difference, and every result known
//             without the sum (min, max, NaN, an infinity, an exact zero);
//   3 align   the lesser significand shifted to the larger's, what it loses kept sticky;
//   4 add     their sum or difference;
//   5 count   the sum's leading zeros, hence the normalising shift and the exponent field;
//   6 shift   the sum normalised;
//   7 round   rounded to nearest even into the f32 word, infinity past the largest (an
//             f32 atomic's result);
//   8 cut     for a 16-bit format, how many of the f32 significand's bits go;
//   9 narrow  the significand cut, its half-ulp and sticky bits;
//  10 carry   rounded to nearest even into the 16-bit word, infinity past the largest.
// A pair's second half follows its first a cycle behind. Started in cycle t, done_o is high
// in cycle t + 7 for f32, t + 10 for f16 and bf16 (t + 11 for a pair), with the new value on
// new_o until the next start; the next start waits for done_o.
module sgpu_atom_float (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               start_i,
  input  sgpu_isa_pkg::aop_e aop_i,  // add, min or max
  input  sgpu_isa_pkg::aty_e aty_i,  // f32, f16, bf16, f16x2 or bf16x2
  input  logic [31:0]        old_i,
  input  logic [31:0]        b_i,
  output logic               done_o,
  output logic [31:0]        new_o
);

  localparam logic [31:0] QNAN = 32'h7fff_ffff;  // the canonical NaN
  localparam int unsigned DEPTH = 9;  // the stages before the output's

  // What a pass computes.
  typedef enum logic [1:0] {
    P_ADD,
    P_MIN,
    P_MAX
  } pop_e;

  // A 16-bit float as f32 (exactly; NaN the canonical one): f16's exponent rebiased, its
  // subnormals normalised; bf16 is f32's upper half. A subnormal 0.frac x 2^-14 whose leading
  // one is i + 1 places below the point has exponent 112 - i and the bits below that one as
  // its fraction: the ten cases are selected one-hot and ORed, which is shallower than
  // counting the zeros and then shifting by the count.
  function automatic logic [31:0] widen(logic [15:0] v, logic bf16);
    logic [9:0]  lead;  // lead[i]: the leading one is frac bit 9 - i
    logic [30:0] sub;   // the subnormal's exponent and fraction
    logic        above; // a one above frac bit 9 - i
    above = 1'b0;
    for (int i = 0; i < 10; i++) begin
      lead[i] = v[9-i] && !above;
      above   = above || v[9-i];
    end
    sub = '0;
    for (int i = 0; i < 10; i++) begin
      sub |= {31{lead[i]}} & {8'(112 - i), 23'({v[9:0], 13'h0} << (i + 1))};
    end
    if (bf16) begin
      widen = (v[14:7] == 8'hff && v[6:0] != '0) ? QNAN : {v, 16'h0};
    end else if (v[14:10] == 5'h1f) begin
      widen = (v[9:0] != '0) ? QNAN : {v[15], 8'hff, 23'h0};
    end else if (v[14:10] != '0) begin
      widen = {v[15], 8'(v[14:10]) + 8'd112, v[9:0], 13'h0};
    end else begin
      widen = {v[15], sub};  // zero too: no lead, no bits
    end
  endfunction

  function automatic logic is_nan(logic [30:0] x);
    is_nan = x[30:23] == 8'hff && x[22:0] != '0;
  endfunction

  // The trailing zeros of a 24-bit significand (24 when it is zero): a shift by n loses a
  // nonzero bit exactly when this count is below n, which takes the sticky bit off the
  // shifter's path.
  function automatic logic [4:0] tzc24(logic [23:0] v);
    logic [23:0] reversed;
    for (int i = 0; i < 24; i++) reversed[i] = v[23-i];
    tzc24 = 5'(sgpu_core_pkg::lzc128({reversed, {104{1'b1}}}));
  endfunction

  // Stage k's registers hold a pass when valid_q[k - 1] is set; what every stage carries with
  // it (whether the pass is a 16-bit one, which format, and whether it is the operation's
  // last) moves along ctl_q three bits a stage.
  logic [DEPTH-1:0]   valid_q;
  logic [3*DEPTH-1:0] ctl_q;
  logic                feed;  // a pass enters stage 1
  logic [2:0]          ctl;   // its {half, bf16, last}
  always_ff @(posedge clk_i) ctl_q <= {ctl_q[3*(DEPTH-1)-1:0], ctl};

  // A stage's view of its pass: {half, bf16, last}.
  function automatic logic stage_half(logic [3*DEPTH-1:0] c, int k);
    stage_half = c[3*(k-1)+2];
  endfunction
  function automatic logic stage_bf16(logic [3*DEPTH-1:0] c, int k);
    stage_bf16 = c[3*(k-1)+1];
  endfunction
  function automatic logic stage_last(logic [3*DEPTH-1:0] c, int k);
    stage_last = c[3*(k-1)];
  endfunction

  // An f32 pass leaves after stage 6 (rounding); only 16-bit ones go on to be narrowed.
  logic [DEPTH-1:0] valid_d;
  always_comb begin
    valid_d    = {valid_q[DEPTH-2:0], feed};
    valid_d[6] = valid_q[5] && stage_half(ctl_q, 6);
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) valid_q <= '0;
    else valid_q <= valid_d;
  end

  ///////////
  // Widen //
  ///////////

  // The passes: one for f32, f16 and bf16, two for the pairs (the high half a cycle later).
  logic        pair, pass_q;  // the second half is fed this cycle
  logic [15:0] old_q, b_q;    // a pair's high halves, for its second pass
  pop_e        op_q;
  logic        bf16_q, half_q, pair_q;

  function automatic pop_e pass_op(sgpu_isa_pkg::aop_e a);
    pass_op = (a == sgpu_isa_pkg::AOP_MIN) ? P_MIN : (a == sgpu_isa_pkg::AOP_MAX) ? P_MAX : P_ADD;
  endfunction

  // This cycle's pass: its operands as f32.
  logic        bf16, half;
  pop_e        op;
  logic [31:0] x, y;
  assign pair = aty_i == sgpu_isa_pkg::ATY_F16X2 || aty_i == sgpu_isa_pkg::ATY_BF16X2;
  always_comb begin
    feed = start_i || pass_q;
    bf16 = start_i ? aty_i == sgpu_isa_pkg::ATY_BF16 || aty_i == sgpu_isa_pkg::ATY_BF16X2 : bf16_q;
    half = start_i ? aty_i != sgpu_isa_pkg::ATY_F32 : half_q;
    op   = start_i ? pass_op(aop_i) : op_q;
    ctl  = {half, bf16, !(start_i && pair)};
    if (!half) begin
      x = old_i;
      y = b_i;
    end else if (start_i) begin
      x = widen(old_i[15:0], bf16);
      y = widen(b_i[15:0], bf16);
    end else begin
      x = widen(old_q, bf16);
      y = widen(b_q, bf16);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) pass_q <= 1'b0;
    else pass_q <= start_i && pair;
  end
  always_ff @(posedge clk_i) begin
    if (start_i) begin
      old_q  <= old_i[31:16];
      b_q    <= b_i[31:16];
      op_q   <= op;
      bf16_q <= bf16;
      half_q <= half;
      pair_q <= pair;
    end
  end

  pop_e        op1_q;
  logic [31:0] x1_q, y1_q;
  always_ff @(posedge clk_i) begin
    if (feed) begin
      op1_q <= op;
      x1_q  <= x;
      y1_q  <= y;
    end
  end

  ///////////
  // Order //
  ///////////

  // The larger magnitude's significand (a) and the lesser's (b) with three places below
  // their last, the exponents' difference (27 or more all the same: the lesser is then only
  // sticky), and the result when the sum is not needed: an operand, the canonical NaN or a
  // zero. Min and max (the model's `fminmax` without .NaN) give the other operand for a NaN,
  // the canonical NaN for two, and order -0 below +0. Which result is chosen here from flags
  // computed side by side; the value itself is selected a stage later.
  typedef enum logic [1:0] {
    K_X,
    K_Y,
    K_NAN,
    K_ZERO
  } known_e;

  logic        x_big, same, sub, known, x_less, x_nan, y_nan, x_inf, y_inf;
  known_e      pick;
  logic [7:0]  ex, ey, e_big;
  logic [8:0]  d_xy, d_yx;
  logic [4:0]  d;
  always_comb begin
    x_big = x1_q[30:0] >= y1_q[30:0];
    same  = x1_q[30:0] == y1_q[30:0];
    ex    = (x1_q[30:23] == 8'h00) ? 8'd1 : x1_q[30:23];
    ey    = (y1_q[30:23] == 8'h00) ? 8'd1 : y1_q[30:23];
    e_big = x_big ? ex : ey;
    d_xy  = 9'(ex) - 9'(ey);
    d_yx  = 9'(ey) - 9'(ex);
    d     = (x_big ? d_xy : d_yx) >= 9'd27 ? 5'd27 : 5'(x_big ? d_xy : d_yx);
    sub   = x1_q[31] ^ y1_q[31];
    x_nan = is_nan(x1_q[30:0]);
    y_nan = is_nan(y1_q[30:0]);
    x_inf = x1_q[30:0] == 31'h7f80_0000;
    y_inf = y1_q[30:0] == 31'h7f80_0000;
    // x below y as ordered values: by sign, else by magnitude (reversed when negative).
    x_less = sub ? x1_q[31] : x1_q[31] ? x_big && !same : !x_big;
    known  = 1'b1;
    if (op1_q != P_ADD) begin
      pick = (x_nan && y_nan) ? K_NAN : x_nan ? K_Y : y_nan ? K_X
           : (x_less ^ (op1_q == P_MAX)) ? K_X : K_Y;
    end else if (x_nan || y_nan || (x_inf && y_inf && sub)) begin
      pick = K_NAN;
    end else if (x_inf || y_inf) begin
      pick = x_inf ? K_X : K_Y;  // an infinity, and the other finite (or the same infinity)
    end else if (same && (sub || x1_q[30:0] == '0)) begin
      pick = K_ZERO;  // to nearest, a cancelling sum is +0; -0 + -0 is -0
    end else begin
      pick  = K_ZERO;
      known = 1'b0;
    end
  end

  logic        known2_q, sign2_q, sub2_q;
  known_e      pick2_q;
  logic [31:0] x2_q, y2_q;
  logic [7:0]  e2_q;
  logic [4:0]  d2_q, tz2_q;
  logic [23:0] a2_q, b2_q;
  always_ff @(posedge clk_i) begin
    if (valid_q[0]) begin
      known2_q <= known;
      pick2_q  <= pick;
      x2_q     <= x1_q;
      y2_q     <= y1_q;
      sign2_q  <= x_big ? x1_q[31] : y1_q[31];
      sub2_q   <= sub;
      e2_q     <= e_big;
      d2_q     <= d;
      a2_q     <= x_big ? {x1_q[30:23] != 8'h00, x1_q[22:0]} : {y1_q[30:23] != 8'h00, y1_q[22:0]};
      b2_q     <= x_big ? {y1_q[30:23] != 8'h00, y1_q[22:0]} : {x1_q[30:23] != 8'h00, x1_q[22:0]};
      tz2_q    <= x_big ? tzc24({y1_q[30:23] != 8'h00, y1_q[22:0]})
                        : tzc24({x1_q[30:23] != 8'h00, x1_q[22:0]});
    end
  end

  logic [31:0] value2;  // the known result
  always_comb begin
    unique case (pick2_q)
      K_X:     value2 = x2_q;
      K_Y:     value2 = y2_q;
      K_NAN:   value2 = QNAN;
      default: value2 = {!sub2_q && sign2_q, 31'h0};
    endcase
  end

  ///////////
  // Align //
  ///////////

  // b (three places below its last) shifted right by d, the last place ORed with whatever
  // the shift loses: bits below the trailing zeros' count plus three.
  logic [26:0] b_al;
  assign b_al = ({b2_q, 3'b000} >> d2_q) | 27'(6'(tz2_q) + 6'd3 < 6'(d2_q));

  logic        known3_q, sign3_q, sub3_q;
  logic [31:0] value3_q;
  logic [7:0]  e3_q;
  logic [26:0] a3_q, b3_q;
  always_ff @(posedge clk_i) begin
    if (valid_q[1]) begin
      known3_q <= known2_q;
      value3_q <= value2;
      sign3_q  <= sign2_q;
      sub3_q   <= sub2_q;
      e3_q     <= e2_q;
      a3_q     <= {a2_q, 3'b000};
      b3_q     <= b_al;
    end
  end

  /////////
  // Add //
  /////////

  logic        known4_q, sign4_q;
  logic [31:0] value4_q;
  logic [7:0]  e4_q;
  logic [27:0] sum4_q;  // the larger's last place at bit 3
  always_ff @(posedge clk_i) begin
    if (valid_q[2]) begin
      known4_q <= known3_q;
      value4_q <= value3_q;
      sign4_q  <= sign3_q;
      e4_q     <= e3_q;
      sum4_q   <= sub3_q ? {1'b0, a3_q} - {1'b0, b3_q} : {1'b0, a3_q} + {1'b0, b3_q};
    end
  end

  ///////////
  // Count //
  ///////////

  // The normalising shift: the leading one to bit 26 (a carry into bit 27 goes right one
  // place instead), but below the normals only as far as the smallest normal's place
  // (exponent 1), where the field is 0; the field is otherwise one less than the exponent,
  // since the hidden one adds it back.
  logic [6:0] lz;
  logic [4:0] shift;
  logic [7:0] field;
  always_comb begin
    lz = sgpu_core_pkg::lzc128({sum4_q, {100{1'b1}}});
    if (sum4_q[27]) begin
      shift = '0;
      field = e4_q;
    end else if (8'(lz) - 8'd1 >= e4_q) begin
      shift = 5'(e4_q - 8'd1);
      field = '0;
    end else begin
      shift = 5'(lz - 7'd1);
      field = e4_q - 8'(lz);
    end
  end

  logic        known5_q, sign5_q;
  logic [31:0] value5_q;
  logic [7:0]  field5_q;
  logic [4:0]  shift5_q;
  logic [27:0] sum5_q;
  always_ff @(posedge clk_i) begin
    if (valid_q[3]) begin
      known5_q <= known4_q;
      value5_q <= value4_q;
      sign5_q  <= sign4_q;
      field5_q <= field;
      shift5_q <= shift;
      sum5_q   <= sum4_q;
    end
  end

  ///////////
  // Shift //
  ///////////

  logic        known6_q, sign6_q;
  logic [31:0] value6_q;
  logic [7:0]  field6_q;
  logic [26:0] norm6_q;  // the hidden one at bit 26, the last place at 3
  always_ff @(posedge clk_i) begin
    if (valid_q[4]) begin
      known6_q <= known5_q;
      value6_q <= value5_q;
      sign6_q  <= sign5_q;
      field6_q <= field5_q;
      norm6_q  <= sum5_q[27] ? sum5_q[27:1] | 27'(sum5_q[0]) : 27'(sum5_q << shift5_q);
    end
  end

  ///////////
  // Round //
  ///////////

  // One addition encodes the field (the hidden one carries into it) and rounds to nearest
  // even; a field that reaches all ones is infinity.
  logic [31:0] rounded, f32;
  always_comb begin
    rounded = {1'b0, field6_q, 23'h0} + 32'(norm6_q[26:3])
            + 32'(norm6_q[2] && (norm6_q[1] || norm6_q[0] || norm6_q[3]));
    if (known6_q) f32 = value6_q;
    else if (rounded[31] || rounded[30:23] == 8'hff) f32 = {sign6_q, 31'h7f80_0000};
    else f32 = {sign6_q, rounded[30:0]};
  end

  logic [31:0] f32_7_q;
  always_ff @(posedge clk_i) begin
    if (valid_q[5]) f32_7_q <= f32;
  end

  /////////
  // Cut //
  /////////

  // An f32 result narrowed to f16 or bf16 cuts 13 or 16 bits off its significand, more below
  // the format's normals (f16's below 2^-14, exponent 113; none are below bf16's, which has
  // f32's exponents): 126 - e at exponent e, and 25 or more (e 101 or less) leave only a
  // sticky bit. The field is the format's, or 0 below its normals. Each is a choice between
  // comparisons with constants, so that no two carry chains follow one another.
  logic       bf16_7;
  logic [7:0] e7, field7;
  logic [4:0] cut7;
  always_comb begin
    bf16_7 = stage_bf16(ctl_q, 7);
    e7     = (f32_7_q[30:23] == 8'h00) ? 8'd1 : f32_7_q[30:23];
    if (bf16_7) begin
      cut7   = 5'd16;
      field7 = e7 - 8'd1;
    end else if (e7 >= 8'd113) begin
      cut7   = 5'd13;
      field7 = e7 - 8'd113;
    end else begin
      cut7   = (e7 <= 8'd101) ? 5'd25 : 5'(8'd126 - e7);
      field7 = '0;
    end
  end

  logic [31:0] f32_8_q;
  logic [4:0]  cut8_q, tz8_q;
  logic [7:0]  field8_q;
  always_ff @(posedge clk_i) begin
    if (valid_q[6]) begin
      f32_8_q  <= f32_7_q;
      cut8_q   <= cut7;
      tz8_q    <= tzc24({f32_7_q[30:23] != 8'h00, f32_7_q[22:0]});
      field8_q <= field7;
    end
  end

  ////////////
  // Narrow //
  ////////////

  // The significand's kept bits, the half-ulp bit below them and whether any below that is
  // set (the trailing zeros fewer than the cut less one).
  logic [23:0] sig8;
  assign sig8 = {f32_8_q[30:23] != 8'h00, f32_8_q[22:0]};

  logic [31:0] f32_9_q;
  logic [7:0]  field9_q;
  logic [10:0] kept9_q;  // at most f16's 11 significand bits
  logic        tie9_q, rest9_q;
  always_ff @(posedge clk_i) begin
    if (valid_q[7]) begin
      f32_9_q  <= f32_8_q;
      field9_q <= field8_q;
      kept9_q  <= 11'(sig8 >> cut8_q);
      tie9_q   <= cut8_q <= 5'd24 && sig8[cut8_q - 5'd1];
      rest9_q  <= tz8_q < cut8_q - 5'd1;
    end
  end

  ///////////
  // Carry //
  ///////////

  logic        half_9, bf16_9;
  logic [15:0] bits, narrow;
  always_comb begin
    half_9 = stage_half(ctl_q, 9);
    bf16_9 = stage_bf16(ctl_q, 9);
    bits   = 16'((bf16_9 ? {8'h0, field9_q} << 7 : {8'h0, field9_q} << 10) + 16'(kept9_q)
                 + 16'(tie9_q && (rest9_q || kept9_q[0])));
    if (is_nan(f32_9_q[30:0])) narrow = 16'h7fff;
    else if (f32_9_q[30:23] == 8'hff || bits[15]
             || (bf16_9 ? bits[14:7] == 8'hff : bits[14:10] == 5'h1f))
      narrow = {f32_9_q[31], bf16_9 ? 15'h7f80 : 15'h7c00};
    else narrow = {f32_9_q[31], bits[14:0]};
  end

  logic [31:0] new_q;
  logic        done_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) done_q <= 1'b0;
    else done_q <= (valid_q[5] && !stage_half(ctl_q, 6))
                   || (valid_q[8] && half_9 && stage_last(ctl_q, 9));
  end
  // An f32 result leaves after rounding; the stages after it are the 16-bit formats'.
  always_ff @(posedge clk_i) begin
    if (valid_q[5] && !stage_half(ctl_q, 6)) new_q <= f32;
    else if (valid_q[8] && half_9) begin
      if (stage_last(ctl_q, 9) && pair_q) new_q[31:16] <= narrow;
      else new_q <= 32'(narrow);
    end
  end

  assign done_o = done_q;
  assign new_o  = new_q;

`ifndef SYNTHESIS
  // Nothing starts while a pass is under way: the unit keeps one operation's passes.
  a_one_at_a_time: assert property (@(posedge clk_i) disable iff (!rst_ni)
      start_i |-> valid_q == '0 && !pass_q);
`endif

endmodule
