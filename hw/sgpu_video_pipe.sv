// Core v2's video unit (sgpu_shared_unit's KIND_VIDEO): what the golden model's video
// functions (sim/src/video.rs) compute in one lane for VADD, VSUB, VABSDIFF, VMIN, VMAX,
// VSHL, VSHR, VMAD, VSET, VOP2, VOP4, VSET2 and VSET4, an instruction a cycle, its result
// on d_o four cycles after it came (four registers; sgpu_shared_unit registers d_o), and
// zero in the cycles that have no result.
//
// The first core's sgpu_video_alu computes the same in two stages, VMAD's 32 x 32 product in
// one of them (24.7 ns on an ECP5: the shared unit around it closed at 40 MHz). Here no
// stage has more than one carry chain after a few LUT levels:
//
//             scalar (VADD ... VSET)      VMAD                       SIMD (VOP*, VSET2/4)
//   stage 1   the selected parts of a     as scalar                  a and b as they are
//             and b (33 bits, signed)
//   stage 2   a + b, a - b, b - a, a==b;  four 16 x 16 products      per element: a +/- b,
//             the shift's count, and its  (MULT18X18D); the signed   a + b + 1, b - a, a==b
//             input turned for vshl       correction
//   stage 3   the shift; the primary      the product summed (two    the element's value,
//             operation's value           carry-save layers, one     saturated, or the
//                                         adder)                     comparison
//   stage 4   the shifted value turned    the negation and c added   the masked elements
//             back; saturation; the       (one adder)                summed (.add)
//             comparison with c
//   d_o       the secondary operation     .shr7/.shr15, saturation   the merge into c, or c
//             with c, or the merge                                   plus the sum
//
// A stage's registers load only when it has an instruction of their family, so an idle
// unit's data path does not toggle (nor does Verilator evaluate it). The later stages
// slice their modifiers from the word each carries (synthesis keeps only the bits they
// read); the word is one the decoder accepts (bits a form does not use are zero, and
// enumerated fields hold their values). The guard, the register numbers and the lanes are
// the queue's business (sgpu_lane_serial).
module sgpu_video_pipe (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        en_i,     // an instruction this cycle
  input  logic [63:0] instr_i,
  input  logic [31:0] a_i,      // ra (RZ reads 0)
  input  logic [31:0] b_i,      // rb
  input  logic [31:0] c_i,      // rc
  output logic [31:0] d_o       // rd, of the instruction four cycles before
);

  localparam int unsigned SELW = sgpu_isa_pkg::ASEL_MSB - sgpu_isa_pkg::ASEL_LSB + 1;
  localparam int unsigned MW   = 68;  // VMAD's exact width, .po's and c's additions included

  // The families, one hot: which registers an instruction uses.
  localparam int unsigned F_SCALAR = 0;
  localparam int unsigned F_MAD    = 1;
  localparam int unsigned F_SIMD   = 2;

  function automatic logic [2:0] family(logic [7:0] op);
    family = '0;
    unique case (op)
      sgpu_isa_pkg::OP_VADD, sgpu_isa_pkg::OP_VSUB, sgpu_isa_pkg::OP_VABSDIFF,
      sgpu_isa_pkg::OP_VMIN, sgpu_isa_pkg::OP_VMAX, sgpu_isa_pkg::OP_VSHL,
      sgpu_isa_pkg::OP_VSHR, sgpu_isa_pkg::OP_VSET:   family[F_SCALAR] = 1'b1;
      sgpu_isa_pkg::OP_VMAD:                          family[F_MAD] = 1'b1;
      sgpu_isa_pkg::OP_VOP2, sgpu_isa_pkg::OP_VOP4, sgpu_isa_pkg::OP_VSET2,
      sgpu_isa_pkg::OP_VSET4:                         family[F_SIMD] = 1'b1;
      default:                                        family = '0;
    endcase
  endfunction

  // The sizes of a selector's part, and of a SIMD element.
  localparam logic [1:0] SZ_8  = 2'd0;
  localparam logic [1:0] SZ_16 = 2'd1;
  localparam logic [1:0] SZ_32 = 2'd2;

  // PTX's saturation: t (a signed value) clamped to the range of a signed (sgn) or unsigned
  // integer of the size. The range's top is sat_top; t fits when its bits above the top's
  // are all zero, or all one and signed; the range's bottom is ~top signed, 0 else.
  function automatic logic [MW-1:0] sat_top(logic sgn, logic [1:0] size);
    unique case (size)
      SZ_8:    sat_top = sgn ? MW'(8'h7f) : MW'(8'hff);
      SZ_16:   sat_top = sgn ? MW'(16'h7fff) : MW'(16'hffff);
      default: sat_top = sgn ? MW'(32'h7fff_ffff) : MW'(32'hffff_ffff);
    endcase
  endfunction
  function automatic logic [MW-1:0] sat_bottom(logic sgn, logic [1:0] size);
    sat_bottom = sgn ? ~sat_top(sgn, size) : '0;
  endfunction
  function automatic logic fits(logic [MW-1:0] t, logic sgn, logic [1:0] size);
    logic [MW-1:0] above;
    above = t & ~sat_top(sgn, size);
    fits  = above == '0 || (sgn && above == ~sat_top(sgn, size));
  endfunction
  function automatic logic [MW-1:0] clamp(logic [MW-1:0] t, logic sgn, logic [1:0] size);
    if (fits(t, sgn, size)) begin
      clamp = t;
    end else begin
      clamp = t[MW-1] ? sat_bottom(sgn, size) : sat_top(sgn, size);
    end
  endfunction

  // Where a selector's part lies: its lowest bit and its size.
  function automatic logic [4:0] sel_shift(logic [SELW-1:0] sel);
    unique case (sel)
      sgpu_isa_pkg::VSEL_B1: sel_shift = 5'd8;
      sgpu_isa_pkg::VSEL_B2: sel_shift = 5'd16;
      sgpu_isa_pkg::VSEL_B3: sel_shift = 5'd24;
      sgpu_isa_pkg::VSEL_H1: sel_shift = 5'd16;
      default:               sel_shift = 5'd0;  // VSEL_B32, VSEL_B0, VSEL_H0
    endcase
  endfunction
  function automatic logic [1:0] sel_size(logic [SELW-1:0] sel);
    unique case (sel)
      sgpu_isa_pkg::VSEL_H0, sgpu_isa_pkg::VSEL_H1: sel_size = SZ_16;
      sgpu_isa_pkg::VSEL_B32:                       sel_size = SZ_32;
      default:                                      sel_size = SZ_8;
    endcase
  endfunction

  // `partSelectSignExtend`: the part of x that sel names, extended by its sign when sgn.
  function automatic logic [32:0] part(logic [31:0] x, logic sgn, logic [SELW-1:0] sel);
    logic [31:0] low;
    logic [5:0]  bits;
    low  = x >> sel_shift(sel);
    bits = sel_size(sel) == SZ_8 ? 6'd8 : sel_size(sel) == SZ_16 ? 6'd16 : 6'd32;
    part = {sgn & low[5'(bits - 6'd1)], low};
    for (int i = 8; i < 33; i++) begin
      if (i >= bits) part[i] = sgn & low[5'(bits - 6'd1)];
    end
  endfunction

  function automatic logic [33:0] reversed(logic [33:0] x);
    for (int i = 0; i < 34; i++) reversed[i] = x[33 - i];
  endfunction

  // ------------------------------------------------------------------------------------
  // Stage 1: the operands
  // ------------------------------------------------------------------------------------

  // Scalar and VMAD: the selected parts; SIMD: a and b whole (as VSEL_B32 gives them).
  logic [7:0]  op0;
  logic [2:0]  fam;
  logic [32:0] ta, tb;
  assign op0 = instr_i[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB];
  assign fam = en_i ? family(op0) : '0;
  assign ta = part(a_i, instr_i[sgpu_isa_pkg::ASGN_LSB] && !fam[F_SIMD],
                   fam[F_SIMD] ? SELW'(sgpu_isa_pkg::VSEL_B32)
                               : instr_i[sgpu_isa_pkg::ASEL_MSB:sgpu_isa_pkg::ASEL_LSB]);
  // vshl's and vshr's b is unsigned: their words have no bsgn bit.
  assign tb = part(b_i, instr_i[sgpu_isa_pkg::BSGN_LSB] && !fam[F_SIMD],
                   fam[F_SIMD] ? SELW'(sgpu_isa_pkg::VSEL_B32)
                               : instr_i[sgpu_isa_pkg::BSEL_MSB:sgpu_isa_pkg::BSEL_LSB]);

  logic [32:0] ta1_q, tb1_q;
  always_ff @(posedge clk_i) begin
    if (fam != '0) {ta1_q, tb1_q} <= {ta, tb};
  end

  // Each stage's families (one hot; none when it holds no instruction), word and c, carried
  // down the stages (ctl[CW*k +: CW] stage k's, stage 0 the input); a stage's own values
  // load beside them.
  localparam int unsigned CW = 3 + 64 + 32;
  logic [4:0]      ctl_v;
  logic [5*CW-1:0] ctl;
  assign ctl_v[0]     = fam != '0;
  assign ctl[0 +: CW] = {fam, instr_i, c_i};
  for (genvar k = 1; k <= 4; k++) begin : g_ctl
    sgpu_pipe #(.W(CW), .DEPTH(1)) u_stage (
      .clk_i, .rst_ni,
      .valid_i(ctl_v[k-1]),
      .data_i (ctl[CW*(k-1) +: CW]),
      .valid_o(ctl_v[k]),
      .data_o (ctl[CW*k +: CW])
    );
  end
  logic [2:0]  fam1_q, fam2_q, fam3_q, fam4_q;
  logic [63:0] w1_q, w2_q, w3_q, w4_q;
  logic [31:0] c3_q, c4_q;  // c is read from stage 3 on
  logic [7:0]  op1, op2, op3, op4;
  assign {fam1_q, w1_q} = {ctl[2*CW-1 -: 3] & {3{ctl_v[1]}}, ctl[CW+32 +: 64]};
  assign {fam2_q, w2_q} = {ctl[3*CW-1 -: 3] & {3{ctl_v[2]}}, ctl[2*CW+32 +: 64]};
  assign {fam3_q, w3_q, c3_q} = {ctl[4*CW-1 -: 3] & {3{ctl_v[3]}}, ctl[3*CW +: 96]};
  assign {fam4_q, w4_q, c4_q} = {ctl[5*CW-1 -: 3] & {3{ctl_v[4]}}, ctl[4*CW +: 96]};
  assign {op1, op2, op3, op4} = {w1_q[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB],
                                 w2_q[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB],
                                 w3_q[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB],
                                 w4_q[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB]};

  // ------------------------------------------------------------------------------------
  // Stage 2: the adders, the shift's count, the partial products
  // ------------------------------------------------------------------------------------

  // Scalar: 34 bits hold every sum and difference of 33-bit operands exactly. The shift:
  // .clamp limits the count to 32, .wrap takes it mod 32; one arithmetic right shifter does
  // both directions, vshl's input and output reversed (x << n is rev(rev(x) >> n)).
  logic [33:0] xa, xb;
  logic        sh_left, sh_big;
  logic [5:0]  sh_n;
  assign xa      = {ta1_q[32], ta1_q};
  assign xb      = {tb1_q[32], tb1_q};
  assign sh_left = op1 == sgpu_isa_pkg::OP_VSHL;
  assign sh_big  = tb1_q[32:6] != '0 || (tb1_q[5] && tb1_q[4:0] != '0);  // tb > 32
  assign sh_n    = !w1_q[sgpu_isa_pkg::VCLAMP_LSB] ? {1'b0, tb1_q[4:0]}
                 : sh_big ? 6'd32 : tb1_q[5:0];

  logic [33:0] sum2_q, diff2_q, rdiff2_q, xa2_q, xb2_q, sh_x2_q;
  logic        eq2_q, sh_fill2_q;
  logic [5:0]  sh_n2_q;
  always_ff @(posedge clk_i) begin
    if (fam1_q[F_SCALAR]) begin
      sum2_q     <= xa + xb;
      diff2_q    <= xa - xb;
      rdiff2_q   <= xb - xa;
      eq2_q      <= ta1_q == tb1_q;
      xa2_q      <= xa;
      xb2_q      <= xb;
      sh_n2_q    <= sh_n;
      sh_x2_q    <= sh_left ? reversed(xa) : xa;
      sh_fill2_q <= !sh_left && ta1_q[32];
    end
  end

  // VMAD: the 33-bit operands' product is the unsigned product of their low words (four
  // 16 x 16 products, each a MULT18X18D), less each low word times 2^32 where the other's
  // top bit (its sign) is set (fix), plus 2^64 where both are.
  logic [31:0] pp_ll2_q, pp_lh2_q, pp_hl2_q, pp_hh2_q;
  logic [32:0] fix2_q;
  logic        both2_q;
  always_ff @(posedge clk_i) begin
    if (fam1_q[F_MAD]) begin
      pp_ll2_q <= 32'(ta1_q[15:0]) * 32'(tb1_q[15:0]);
      pp_lh2_q <= 32'(ta1_q[15:0]) * 32'(tb1_q[31:16]);
      pp_hl2_q <= 32'(ta1_q[31:16]) * 32'(tb1_q[15:0]);
      pp_hh2_q <= 32'(ta1_q[31:16]) * 32'(tb1_q[31:16]);
      fix2_q   <= (ta1_q[32] ? {1'b0, tb1_q[31:0]} : '0)
                + (tb1_q[32] ? {1'b0, ta1_q[31:0]} : '0);
      both2_q  <= ta1_q[32] && tb1_q[32];
    end
  end

  // SIMD: elements 0 and 2 take the half-words of a two-way instruction and bytes 0 and 2
  // of a four-way one; 1 and 3 are bytes only. Each element's adders are as wide as the
  // widest element it computes (EW bits, one more for the operands' sign, one for a sum's
  // carry): a + b or a - b (`r`; a - b for every operation but add and vavrg, and for a
  // comparison), a + b + 1 (vavrg rounds a non-negative sum up) and b - a (vabsdiff
  // when a < b).
  logic two1, set1, esub1;
  logic [sgpu_isa_pkg::VOP_MSB-sgpu_isa_pkg::VOP_LSB:0] vop1;
  assign two1  = op1 == sgpu_isa_pkg::OP_VOP2 || op1 == sgpu_isa_pkg::OP_VSET2;
  assign set1  = op1 == sgpu_isa_pkg::OP_VSET2 || op1 == sgpu_isa_pkg::OP_VSET4;
  assign vop1  = w1_q[sgpu_isa_pkg::VOP_MSB:sgpu_isa_pkg::VOP_LSB];
  assign esub1 = set1 || !(vop1 == sgpu_isa_pkg::VOP_ADD || vop1 == sgpu_isa_pkg::VOP_AVRG);

  // Each element's value after stage 3 (t, saturated, or the comparison), extended by its
  // sign to 18 bits, at [18*i +: 18].
  logic [4*18-1:0] elems;
  logic            two2, set2;
  assign two2 = op2 == sgpu_isa_pkg::OP_VOP2 || op2 == sgpu_isa_pkg::OP_VSET2;
  assign set2 = op2 == sgpu_isa_pkg::OP_VSET2 || op2 == sgpu_isa_pkg::OP_VSET4;

  for (genvar i = 0; i < 4; i++) begin : g_elem
    localparam int unsigned EW = (i % 2 == 0) ? 16 : 8;
    localparam int unsigned HL = (i % 2 == 0) ? 8 * i : 0;  // the half-word's lowest bit
    logic [EW:0]   va, vb;
    logic [EW+1:0] r2_q, r1p2_q, rd2_q, va2_q, vb2_q;
    logic          veq2_q;
    assign va = (two1 && i % 2 == 0)
              ? (EW+1)'({w1_q[sgpu_isa_pkg::ASGN_LSB] & ta1_q[HL+15], ta1_q[HL +: 16]})
              : (EW+1)'($signed({w1_q[sgpu_isa_pkg::ASGN_LSB] & ta1_q[8*i+7], ta1_q[8*i +: 8]}));
    assign vb = (two1 && i % 2 == 0)
              ? (EW+1)'({w1_q[sgpu_isa_pkg::BSGN_LSB] & tb1_q[HL+15], tb1_q[HL +: 16]})
              : (EW+1)'($signed({w1_q[sgpu_isa_pkg::BSGN_LSB] & tb1_q[8*i+7], tb1_q[8*i +: 8]}));
    always_ff @(posedge clk_i) begin
      if (fam1_q[F_SIMD]) begin
        r2_q    <= {va[EW], va} + ({vb[EW], vb} ^ {(EW+2){esub1}}) + (EW+2)'(esub1);
        r1p2_q  <= {va[EW], va} + {vb[EW], vb} + (EW+2)'(1);
        rd2_q   <= {vb[EW], vb} - {va[EW], va};
        va2_q   <= {va[EW], va};
        vb2_q   <= {vb[EW], vb};
        veq2_q  <= va == vb;
      end
    end

    // Stage 3: vop's value (vavrg: (a + b + 1) >> 1 for a non-negative sum, (a + b) >> 1
    // toward minus infinity else), clamped to the element's range with .sat, or the
    // comparison as 0 or 1.
    logic          lt, half;
    logic [EW+1:0] t;
    logic [17:0]   e3_q;
    assign lt   = r2_q[EW+1];
    assign half = two2 && i % 2 == 0;
    always_comb begin
      unique case (w2_q[sgpu_isa_pkg::VOP_MSB:sgpu_isa_pkg::VOP_LSB])
        sgpu_isa_pkg::VOP_AVRG:    t = (EW+2)'($signed(lt ? r2_q : r1p2_q) >>> 1);
        sgpu_isa_pkg::VOP_ABSDIFF: t = lt ? rd2_q : r2_q;
        sgpu_isa_pkg::VOP_MIN:     t = lt ? va2_q : vb2_q;
        sgpu_isa_pkg::VOP_MAX:     t = lt ? vb2_q : va2_q;
        default:                   t = r2_q;  // VOP_ADD, VOP_SUB
      endcase
    end
    always_ff @(posedge clk_i) begin
      if (fam2_q[F_SIMD]) begin
        if (set2) begin
          e3_q <= 18'(sgpu_core_pkg::icmp_holds(w2_q[sgpu_isa_pkg::VCMP_MSB:sgpu_isa_pkg::VCMP_LSB],
                                                 1'b0, 1'b0, veq2_q, lt));
        end else if (w2_q[sgpu_isa_pkg::VSAT_LSB]) begin
          e3_q <= 18'(clamp(MW'($signed(t)), w2_q[sgpu_isa_pkg::DSGN_LSB],
                            half ? SZ_16 : SZ_8));
        end else begin
          e3_q <= 18'($signed(t));
        end
      end
    end
    assign elems[18*i +: 18] = e3_q;
  end

  // The mask has a bit per element written (merge) or summed (.add); the field numbers the
  // elements left out. A two-way instruction's elements are 0 and 2. Found a stage ahead,
  // so that the sum's path is short.
  logic [3:0] emask3_q;
  always_ff @(posedge clk_i) begin
    if (fam2_q[F_SIMD]) begin
      emask3_q <= two2 ? {1'b0, ~w2_q[sgpu_isa_pkg::VM2_LSB + 1], 1'b0, ~w2_q[sgpu_isa_pkg::VM2_LSB]}
                       : ~w2_q[sgpu_isa_pkg::VM4_MSB:sgpu_isa_pkg::VM4_LSB];
    end
  end

  // ------------------------------------------------------------------------------------
  // Stage 3: the shift, the primary operation; the product summed
  // ------------------------------------------------------------------------------------

  // a - b in 34 bits is exact, so its sign is a < b.
  logic        lt3;
  logic [33:0] prim, sh_y;
  logic        unused_sh;
  assign lt3 = diff2_q[33];
  assign {unused_sh, sh_y} = $signed({sh_fill2_q, sh_x2_q}) >>> sh_n2_q;
  always_comb begin
    unique case (op2)
      sgpu_isa_pkg::OP_VADD:     prim = sum2_q;
      sgpu_isa_pkg::OP_VSUB:     prim = diff2_q;
      sgpu_isa_pkg::OP_VABSDIFF: prim = lt3 ? rdiff2_q : diff2_q;
      sgpu_isa_pkg::OP_VMIN:     prim = lt3 ? xa2_q : xb2_q;
      sgpu_isa_pkg::OP_VMAX:     prim = lt3 ? xb2_q : xa2_q;
      sgpu_isa_pkg::OP_VSET:     prim = 34'(sgpu_core_pkg::icmp_holds(
                                   w2_q[sgpu_isa_pkg::VCMP_MSB:sgpu_isa_pkg::VCMP_LSB], 1'b0, 1'b0,
                                   eq2_q, lt3));
      default:                   prim = sh_y;  // VSHL, VSHR (VSHL's turned back at stage 4)
    endcase
  end

  // The product: {hh, ll} + lh << 16 + hl << 16 - fix << 32 + both << 64, the last two as
  // {~fix, all ones} plus one and a bit at 64, which go where lh << 16 has zeros; two
  // layers of 3:2 compressors, then one adder.
  function automatic logic [2*MW-1:0] csa(logic [MW-1:0] x, logic [MW-1:0] y, logic [MW-1:0] z);
    csa = {(x & y | x & z | y & z) << 1, x ^ y ^ z};  // {carry, sum}
  endfunction
  logic [MW-1:0] t0, t1, t2, t3, s_a, c_a, s_b, c_b;
  assign t0 = {4'h0, pp_hh2_q, pp_ll2_q};
  assign t1 = {3'h0, both2_q, 16'h0, pp_lh2_q, 15'h0, 1'b1};
  assign t2 = {20'h0, pp_hl2_q, 16'h0};
  assign t3 = {~{3'h0, fix2_q}, 32'hffff_ffff};
  assign {c_a, s_a} = csa(t0, t1, t2);
  assign {c_b, s_b} = csa(s_a, c_a, t3);

  logic [33:0]   prim3_q;
  logic [MW-1:0] p3_q;
  always_ff @(posedge clk_i) begin
    if (fam2_q[F_SCALAR]) prim3_q <= prim;
    if (fam2_q[F_MAD])    p3_q <= s_b + c_b;
  end

  // ------------------------------------------------------------------------------------
  // Stage 4: saturation; VMAD's addend; the SIMD elements summed
  // ------------------------------------------------------------------------------------

  // Scalar: vshl's value turned back, then `optSaturate` to the destination's range (the
  // destination selector's size, signed by dsgn).
  // The secondary operation's comparison with c (signed by the destination type; vset's
  // words have no dsgn bit, so its c is unsigned) is made here, on the value before
  // saturation and on the range's two ends, so that the result's stage has no carry chain
  // before its choice: the saturated value is the value when it fits, else an end.
  logic [SELW-1:0] dsel3;
  logic [1:0]      size3;
  logic [33:0]     prim4, cx3, top3, bottom3;
  logic            dsgn3, keep3;
  assign dsel3   = w3_q[sgpu_isa_pkg::DSEL_MSB:sgpu_isa_pkg::DSEL_LSB];
  assign size3   = sel_size(dsel3);
  assign dsgn3   = w3_q[sgpu_isa_pkg::DSGN_LSB];
  assign prim4   = op3 == sgpu_isa_pkg::OP_VSHL ? reversed(prim3_q) : prim3_q;
  assign cx3     = {{2{dsgn3 & c3_q[31]}}, c3_q};
  assign top3    = 34'(sat_top(dsgn3, size3));
  assign bottom3 = 34'(sat_bottom(dsgn3, size3));
  assign keep3   = !w3_q[sgpu_isa_pkg::VSAT_LSB] || fits(MW'($signed(prim4)), dsgn3, size3);

  // VMAD: `signedFinal` (a or b signed, or a negation) decides c's extension and the
  // saturation's range; .po adds one, and takes precedence over the negations, which it
  // leaves signedFinal to (the pseudocode's order); a negation is the complement plus one.
  logic        signed3, neg_ab3, neg_c3, po3;
  logic [31:0] mad_c3;
  logic [sgpu_isa_pkg::VNEG_MSB-sgpu_isa_pkg::VNEG_LSB:0] vneg3;
  assign vneg3   = w3_q[sgpu_isa_pkg::VNEG_MSB:sgpu_isa_pkg::VNEG_LSB];
  assign po3     = w3_q[sgpu_isa_pkg::PO_LSB];
  assign signed3 = w3_q[sgpu_isa_pkg::ASGN_LSB] || w3_q[sgpu_isa_pkg::BSGN_LSB]
                   || vneg3 != sgpu_isa_pkg::VNEG_NONE;
  assign neg_ab3 = !po3 && vneg3 == sgpu_isa_pkg::VNEG_NEG_AB;
  assign neg_c3  = !po3 && vneg3 == sgpu_isa_pkg::VNEG_NEG_C;
  assign mad_c3  = neg_c3 ? ~c3_q : c3_q;

  // SIMD: element i of e, extended by its sign, where the mask takes it; else 0. The four are
  // summed as the product is, two carry-save layers and one adder (the sum fits 20 bits).
  function automatic logic [MW-1:0] taken(logic [4*18-1:0] e, logic [3:0] mask, int i);
    taken = mask[i] ? MW'($signed(e[18*i +: 18])) : '0;
  endfunction
  logic [MW-1:0] es_a, ec_a, es_b, ec_b;
  assign {ec_a, es_a} = csa(taken(elems, emask3_q, 0), taken(elems, emask3_q, 1),
                            taken(elems, emask3_q, 2));
  assign {ec_b, es_b} = csa(es_a, ec_a, taken(elems, emask3_q, 3));

  logic [31:0]     tsat4_q;  // the saturated value's word
  logic            c_lt4_q;  // the saturated value < c
  logic [MW-1:0]   mad4_q;
  logic [4*18-1:0] elems4_q;
  logic [3:0]      emask4_q;
  logic [20:0]     esum4_q;
  always_ff @(posedge clk_i) begin
    if (fam3_q[F_SCALAR]) begin
      tsat4_q <= 32'(keep3 ? prim4 : prim4[33] ? bottom3 : top3);
      c_lt4_q <= keep3 ? $signed(prim4) < $signed(cx3)
               : prim4[33] ? $signed(bottom3) < $signed(cx3) : $signed(top3) < $signed(cx3);
    end
    if (fam3_q[F_MAD]) begin
      mad4_q <= (neg_ab3 ? ~p3_q : p3_q) + {{(MW - 32){signed3 & mad_c3[31]}}, mad_c3}
                + MW'(po3 || neg_ab3 || neg_c3);
    end
    if (fam3_q[F_SIMD]) begin
      elems4_q   <= elems;
      emask4_q   <= emask3_q;
      esum4_q    <= 21'(es_b + ec_b);
    end
  end

  // ------------------------------------------------------------------------------------
  // After stage 4: the result
  // ------------------------------------------------------------------------------------

  // Scalar: the secondary operation with c, or the merge of the value's low byte or
  // half-word into c at the destination selector; min and max by stage 4's comparison.
  logic [SELW-1:0] dsel4;
  logic            minmax, take_t;
  logic [31:0]     merge_mask, scalar_d;
  assign dsel4      = w4_q[sgpu_isa_pkg::DSEL_MSB:sgpu_isa_pkg::DSEL_LSB];
  always_comb begin
    unique case (sel_size(dsel4))
      SZ_8:    merge_mask = 32'h0000_00ff << sel_shift(dsel4);
      SZ_16:   merge_mask = 32'h0000_ffff << sel_shift(dsel4);
      default: merge_mask = 32'hffff_ffff;
    endcase
  end
  assign minmax = fam4_q[F_SCALAR]
                  && (w4_q[sgpu_isa_pkg::VSEC_MSB:sgpu_isa_pkg::VSEC_LSB] == sgpu_isa_pkg::VSEC_MIN
                      || w4_q[sgpu_isa_pkg::VSEC_MSB:sgpu_isa_pkg::VSEC_LSB] == sgpu_isa_pkg::VSEC_MAX);
  // min takes tsat when tsat < c, max when it is not.
  assign take_t = c_lt4_q == (w4_q[sgpu_isa_pkg::VSEC_MSB:sgpu_isa_pkg::VSEC_LSB] == sgpu_isa_pkg::VSEC_MIN);
  always_comb begin
    unique case (w4_q[sgpu_isa_pkg::VSEC_MSB:sgpu_isa_pkg::VSEC_LSB])
      sgpu_isa_pkg::VSEC_ADD:   scalar_d = tsat4_q + c4_q;
      sgpu_isa_pkg::VSEC_MERGE: scalar_d = c4_q & ~merge_mask
                                           | (tsat4_q << sel_shift(dsel4)) & merge_mask;
      default:                  scalar_d = tsat4_q;  // VSEC_NONE, or min and max
    endcase
  end

  // VMAD: .shr7 and .shr15 (arithmetic), then saturation to the signed or unsigned word.
  logic [MW-1:0] mad_s;
  logic [31:0]   mad_d;
  logic          signed4;
  assign signed4 = w4_q[sgpu_isa_pkg::ASGN_LSB] || w4_q[sgpu_isa_pkg::BSGN_LSB]
                   || w4_q[sgpu_isa_pkg::VNEG_MSB:sgpu_isa_pkg::VNEG_LSB] != sgpu_isa_pkg::VNEG_NONE;
  always_comb begin
    unique case (w4_q[sgpu_isa_pkg::VSCALE_MSB:sgpu_isa_pkg::VSCALE_LSB])
      sgpu_isa_pkg::VSCALE_SHR7:  mad_s = MW'($signed(mad4_q) >>> 7);
      sgpu_isa_pkg::VSCALE_SHR15: mad_s = MW'($signed(mad4_q) >>> 15);
      default:                    mad_s = mad4_q;
    endcase
  end
  assign mad_d = w4_q[sgpu_isa_pkg::VSAT_LSB] ? 32'(clamp(mad_s, signed4, SZ_32)) : mad_s[31:0];

  // SIMD: .add's c plus the summed elements, or each element written into c's (a two-way
  // instruction's half-words are elements 0 and 2).
  logic [31:0] simd_d;
  always_comb begin
    if (w4_q[sgpu_isa_pkg::VACC_LSB]) begin
      simd_d = c4_q + 32'($signed(esum4_q));
    end else if (op4 == sgpu_isa_pkg::OP_VOP2 || op4 == sgpu_isa_pkg::OP_VSET2) begin
      simd_d[15:0]  = emask4_q[0] ? elems4_q[15:0] : c4_q[15:0];
      simd_d[31:16] = emask4_q[2] ? elems4_q[36 +: 16] : c4_q[31:16];
    end else begin
      for (int i = 0; i < 4; i++) simd_d[8*i +: 8] = emask4_q[i] ? elems4_q[18*i +: 8] : c4_q[8*i +: 8];
    end
  end

  always_comb begin
    if (minmax)             d_o = take_t ? tsat4_q : c4_q;
    else if (fam4_q[F_SCALAR]) d_o = scalar_d;
    else if (fam4_q[F_MAD]) d_o = mad_d;
    else if (fam4_q[F_SIMD]) d_o = simd_d;
    else                    d_o = '0;
  end

`ifndef SYNTHESIS
  // Only video instructions come.
  a_video_op: assert property (@(posedge clk_i) disable iff (!rst_ni)
      en_i |-> family(op0) != '0)
    else $error("sgpu_video_pipe: opcode %0d is not a video instruction", op0);
  a_one_family: assert property (@(posedge clk_i) disable iff (!rst_ni)
      $onehot0(fam4_q))
    else $error("sgpu_video_pipe: more than one family in stage 4");
`endif

endmodule
