// The new value of a float atomic (ATOM, RED) in one lane, from the old value in memory and
// the operand b, as the golden model's `lane::atom` computes it (sim/src/lane.rs): add on f32
// (rounded to nearest, subnormals kept), and add, min and max on f16 and bf16 and on each
// half of their pairs (`half_atom`: both halves widened to f32 exactly, added in f32 and
// rounded to nearest, then narrowed to nearest, which gives the exact sum rounded once; min
// and max give an operand or the canonical NaN). The integer atomics are sgpu_atom_alu's; the
// core starts this unit between an atomic's read and its write.
//
// Each half, or the f32 word, is a pass through four stages: the operands as f32 (widened);
// the larger magnitude's significand with the lesser's aligned to it (three bits below its
// last place, the last of them sticky) and their sum or difference; that normalised and
// rounded to f32; then narrowed to the half's format. A pair's second half follows its first
// a cycle behind. Started in cycle t, done_o is high in cycle t + 4 (t + 5 for a pair), with
// the new value on new_o until the next start; a start while busy abandons the one under way.
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

  // What a pass computes.
  typedef enum logic [1:0] {
    P_ADD,
    P_MIN,
    P_MAX
  } pop_e;

  // A 16-bit float as f32 (exactly; NaN the canonical one): f16's exponent rebiased, its
  // subnormals normalised; bf16 is f32's upper half.
  function automatic logic [31:0] widen(logic [15:0] v, logic bf16);
    logic [3:0] lz;
    if (bf16) begin
      widen = (v[14:7] == 8'hff && v[6:0] != '0) ? QNAN : {v, 16'h0};
    end else if (v[14:10] == 5'h1f) begin
      widen = (v[9:0] != '0) ? QNAN : {v[15], 8'hff, 23'h0};
    end else if (v[14:10] != '0) begin
      widen = {v[15], 8'(v[14:10]) + 8'd112, v[9:0], 13'h0};
    end else if (v[9:0] == '0) begin
      widen = {v[15], 31'h0};
    end else begin
      // 0.frac x 2^-14: the leading one, lz + 1 places below the point, becomes the hidden one.
      lz    = 4'(sgpu_core_pkg::lzc128({v[9:0], {118{1'b1}}}));
      widen = {v[15], 8'd112 - 8'(lz), 23'({v[9:0], 13'h0} << (lz + 4'd1))};
    end
  endfunction

  function automatic logic is_nan(logic [30:0] x);
    is_nan = x[30:23] == 8'hff && x[22:0] != '0;
  endfunction

  // min and max (the model's `fminmax` without .NaN): a NaN operand gives the other, two the
  // canonical NaN; -0 is below +0.
  function automatic logic [31:0] min_max(logic [31:0] x, logic [31:0] y, logic max);
    logic x_less;  // x below y, as ordered values (-0 below +0)
    unique case ({x[31], y[31]})
      2'b10:   x_less = 1'b1;
      2'b01:   x_less = 1'b0;
      2'b00:   x_less = x[30:0] < y[30:0];
      default: x_less = x[30:0] > y[30:0];
    endcase
    if (is_nan(x[30:0]) && is_nan(y[30:0])) min_max = QNAN;
    else if (is_nan(x[30:0])) min_max = y;
    else if (is_nan(y[30:0])) min_max = x;
    else min_max = (x_less ^ max) ? x : y;
  endfunction

  ///////////////
  // Stage one //
  ///////////////

  // The passes: one for f32, f16 and bf16, two for the pairs (the high half a cycle later).
  logic        pass_q;      // the second half is fed this cycle
  logic [15:0] old_q, b_q;  // a pair's high halves, for its second pass
  pop_e        op_q;
  logic        bf16_q, pair_q, half_q;

  function automatic pop_e pass_op(sgpu_isa_pkg::aop_e a);
    pass_op = (a == sgpu_isa_pkg::AOP_MIN) ? P_MIN : (a == sgpu_isa_pkg::AOP_MAX) ? P_MAX : P_ADD;
  endfunction

  // This cycle's pass: its operands as f32.
  logic        feed, bf16, half;
  pop_e        op;
  logic [31:0] x, y;
  always_comb begin
    feed = start_i || pass_q;
    bf16 = start_i ? aty_i == sgpu_isa_pkg::ATY_BF16 || aty_i == sgpu_isa_pkg::ATY_BF16X2 : bf16_q;
    half = start_i ? aty_i != sgpu_isa_pkg::ATY_F32 : half_q;
    op   = start_i ? pass_op(aop_i) : op_q;
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
    else pass_q <= start_i && (aty_i == sgpu_isa_pkg::ATY_F16X2
                               || aty_i == sgpu_isa_pkg::ATY_BF16X2);
  end
  always_ff @(posedge clk_i) begin
    if (start_i) begin
      old_q  <= old_i[31:16];
      b_q    <= b_i[31:16];
      op_q   <= op;
      bf16_q <= bf16;
      half_q <= half;
      pair_q <= aty_i == sgpu_isa_pkg::ATY_F16X2 || aty_i == sgpu_isa_pkg::ATY_BF16X2;
    end
  end

  // Stage one's register: the pass's operands, the larger magnitude first.
  logic        v1_q, bf16_1_q, half_1_q, last_1_q;
  pop_e        op1_q;
  logic [31:0] x1_q, y1_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) v1_q <= 1'b0;
    else v1_q <= feed;
  end
  always_ff @(posedge clk_i) begin
    if (feed) begin
      op1_q    <= op;
      bf16_1_q <= bf16;
      half_1_q <= half;
      last_1_q <= !(start_i && (aty_i == sgpu_isa_pkg::ATY_F16X2
                                || aty_i == sgpu_isa_pkg::ATY_BF16X2));
      x1_q     <= x;
      y1_q     <= y;
    end
  end

  ///////////////
  // Stage two //
  ///////////////

  // The sum's significands at 26..3 (the larger's), the smaller's shifted right by the
  // exponents' difference with what it loses ORed into bit 0; min and max, or a special
  // result (NaN, an infinity), are final here.
  logic [31:0] big, little;
  logic [7:0]  e_big;
  logic [27:0] s2_sum;
  logic        s2_final;
  logic [31:0] s2_value;
  always_comb begin
    logic [7:0]  e_little, d;
    logic [26:0] a, b, b_al;
    logic        sub;
    big     = (x1_q[30:0] >= y1_q[30:0]) ? x1_q : y1_q;
    little   = (x1_q[30:0] >= y1_q[30:0]) ? y1_q : x1_q;
    e_big   = (big[30:23] == 8'h00) ? 8'd1 : big[30:23];
    e_little = (little[30:23] == 8'h00) ? 8'd1 : little[30:23];
    d       = e_big - e_little;
    a       = {big[30:23] != 8'h00, big[22:0], 3'b000};
    b       = {little[30:23] != 8'h00, little[22:0], 3'b000};
    b_al    = (d >= 8'd27) ? 27'(b != '0) : (b >> d) | 27'((b & ~({27{1'b1}} << d)) != '0);
    sub     = big[31] ^ little[31];
    s2_sum  = sub ? {1'b0, a} - {1'b0, b_al} : {1'b0, a} + {1'b0, b_al};
    s2_final = 1'b1;
    if (op1_q != P_ADD) begin
      s2_value = min_max(x1_q, y1_q, op1_q == P_MAX);
    end else if (is_nan(x1_q[30:0]) || is_nan(y1_q[30:0])
                 || (x1_q[30:0] == 31'h7f80_0000 && y1_q[30:0] == 31'h7f80_0000 && sub)) begin
      s2_value = QNAN;
    end else if (big[30:23] == 8'hff) begin
      s2_value = big;  // an infinity, and the other finite (or the same infinity)
    end else if (s2_sum == '0) begin
      s2_value = {!sub && big[31], 31'h0};  // to nearest, a cancelling sum is +0
    end else begin
      s2_value = '0;
      s2_final = 1'b0;
    end
  end

  logic        v2_q, bf16_2_q, half_2_q, last_2_q, final2_q, sign2_q;
  logic [31:0] value2_q;
  logic [27:0] sum2_q;
  logic [7:0]  e2_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) v2_q <= 1'b0;
    else v2_q <= v1_q;
  end
  always_ff @(posedge clk_i) begin
    if (v1_q) begin
      bf16_2_q <= bf16_1_q;
      half_2_q <= half_1_q;
      last_2_q <= last_1_q;
      final2_q <= s2_final;
      value2_q <= s2_value;
      sign2_q  <= big[31];
      sum2_q   <= s2_sum;
      e2_q     <= e_big;
    end
  end

  /////////////////
  // Stage three //
  /////////////////

  // The sum normalised (its leading one to bit 26, or right one place on a carry; below the
  // normals the shift stops at the smallest normal's place) and rounded to nearest even.
  logic [31:0] s3_f32;
  always_comb begin
    logic [26:0] norm;
    logic [6:0]  lz;
    logic [8:0]  field;   // the result's exponent field, less one for a normal (0 subnormal)
    logic [4:0]  shift;
    logic        up;
    logic [31:0] bits;
    lz    = sgpu_core_pkg::lzc128({sum2_q, {100{1'b1}}});
    shift = '0;
    if (sum2_q[27]) begin
      norm  = sum2_q[27:1] | 27'(sum2_q[0]);
      field = 9'(e2_q);
    end else if (9'(lz) - 9'd1 >= 9'(e2_q)) begin
      // Below the normals: shifted up to the smallest normal's place (e 1), field 0.
      shift = 5'(e2_q - 8'd1);
      norm  = 27'(sum2_q << shift);
      field = '0;
    end else begin
      shift = 5'(lz - 7'd1);
      norm  = 27'(sum2_q << shift);
      field = 9'(e2_q) - 9'(shift) - 9'd1;
    end
    up   = norm[2] && (norm[1] || norm[0] || norm[3]);
    bits = (32'(field) << 23) + 32'(norm[26:3]) + 32'(up);
    s3_f32 = (bits >= 32'h7f80_0000) ? {sign2_q, 31'h7f80_0000} : {sign2_q, bits[30:0]};
    if (final2_q) s3_f32 = value2_q;
  end

  logic        v3_q, bf16_3_q, half_3_q, last_3_q;
  logic [31:0] f32_3_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) v3_q <= 1'b0;
    else v3_q <= v2_q;
  end
  always_ff @(posedge clk_i) begin
    if (v2_q) begin
      bf16_3_q <= bf16_2_q;
      half_3_q <= half_2_q;
      last_3_q <= last_2_q;
      f32_3_q  <= s3_f32;
    end
  end

  ////////////////
  // Stage four //
  ////////////////

  // An f32 result narrowed to f16 or bf16, to nearest even: the bits below the format's last
  // place (its subnormals' below 2^-14 for f16) cut off and rounded, one addition encoding
  // the field and carrying into it, and infinity past the largest finite value.
  function automatic logic [15:0] narrow(logic [31:0] v, logic to_bf16);
    logic [7:0]  e, min_field, cut;
    logic [4:0]  frac;
    logic [23:0] sig, kept;
    logic [7:0]  field;
    logic        tie, rest;  // the half-ulp bit, and any below it
    logic [14:0] max, inf;
    logic [15:0] bits;
    frac      = to_bf16 ? 5'd7 : 5'd10;
    min_field = to_bf16 ? 8'd1 : 8'd113;
    max       = to_bf16 ? 15'h7f7f : 15'h7bff;
    inf       = to_bf16 ? 15'h7f80 : 15'h7c00;
    e         = (v[30:23] == 8'h00) ? 8'd1 : v[30:23];
    sig       = {v[30:23] != 8'h00, v[22:0]};
    cut       = 8'd23 - 8'(frac) + ((e >= min_field) ? 8'd0 : min_field - e);
    field     = (e >= min_field) ? e - min_field : '0;
    kept      = (cut >= 8'd25) ? '0 : sig >> cut;
    tie       = cut <= 8'd24 && sig[5'(cut - 8'd1)];
    rest      = (cut >= 8'd25) ? sig != '0 : (sig & ~({24{1'b1}} << (cut - 8'd1))) != '0;
    bits      = 16'((32'(field) << frac) + 32'(kept) + 32'(tie && (rest || kept[0])));
    if (is_nan(v[30:0])) narrow = 16'h7fff;
    else if (v[30:23] == 8'hff || bits > 16'(max)) narrow = {v[31], inf};
    else narrow = {v[31], bits[14:0]};
  endfunction

  logic [31:0] new_q;
  logic        done_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) done_q <= 1'b0;
    else done_q <= v3_q && last_3_q;
  end
  always_ff @(posedge clk_i) begin
    if (v3_q) begin
      if (!half_3_q) new_q <= f32_3_q;
      else if (last_3_q && pair_q) new_q[31:16] <= narrow(f32_3_q, bf16_3_q);
      else new_q <= 32'(narrow(f32_3_q, bf16_3_q));
    end
  end

  assign done_o = done_q;
  assign new_o  = new_q;

endmodule
