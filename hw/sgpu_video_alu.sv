// One lane of the video unit: what the golden model's video functions (sim/src/video.rs,
// PTX's pseudocode for the scalar video instructions and the SIMD ones after their
// selectors) compute in one lane for VADD, VSUB, VABSDIFF, VMIN, VMAX, VSHL, VSHR, VMAD,
// VSET, VOP2, VOP4, VSET2 and VSET4; the output is zero for any other opcode. The core
// instantiates it once per physical lane.
//
// Two pipeline stages, one instruction a cycle: the instruction given with en_i in one
// cycle has its result on d_o in the next, and d_o is zero in every other cycle. The
// register between the stages holds the first stage's value (one of the three below, the
// widest 72 bits), the word and c; both stages rest while they have no instruction
// (operand isolation, as in sgpu_int_alu). Two stages make the unit as fast as a lane's
// integer ALU (docs/PERFORMANCE.md, synth/fmax.sh): in one, four carry chains run one after
// another on the scalar path.
//
// The stages of the PTX pseudocode, one block each, at the widths that hold every value
// exactly:
// - first stage, scalar: the selected byte, half-word or word of a and b, extended by its
//   type's sign to 33 bits (`ta`, `tb`), and the primary operation in 34 bits (`prim`):
//   a + b, a - b, |a - b|, min, max, a shifted (vshl's result wrapped to 34 bits), or vset's
//   comparison as 0 or 1;
// - second stage, scalar: saturation to the destination's range (a byte or half-word with a
//   merge's selector), then the secondary operation with c (add, min, max) or the merge
//   into c's selected byte or half-word (docs/video.md: whichever of the two the encoding
//   names);
// - vmad: the 66-bit product of ta and tb from one 32 x 32 unsigned multiplier (first
//   stage); the negation of the product or of c, plus one, the addend c, `.shr7`/`.shr15`
//   and saturation, in 68 bits (second);
// - the SIMD instructions: four 8-bit element units, of which the first and third do the
//   two 16-bit elements of VOP2 and VSET2 (first stage), then a merge into c's elements or
//   the sum of the masked elements with c (second).
// It slices the opcode and modifiers from the instruction word at the places the ISA table
// fixes; the word is one the decoder accepts (bits a form does not use are zero, and
// enumerated fields hold their values), so a modifier field of another form never matters.
module sgpu_video_alu (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        en_i,     // an instruction for the lane this cycle
  input  logic [63:0] instr_i,
  input  logic [31:0] a_i,      // ra (RZ reads 0)
  input  logic [31:0] b_i,      // rb
  input  logic [31:0] c_i,      // rc
  output logic [31:0] d_o       // rd, of the instruction of the cycle before
);

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

  localparam int unsigned SELW = sgpu_isa_pkg::ASEL_MSB - sgpu_isa_pkg::ASEL_LSB + 1;
  localparam int unsigned CMPW = sgpu_isa_pkg::VCMP_MSB - sgpu_isa_pkg::VCMP_LSB + 1;

  // Which family the opcode is.
  logic scalar, mad, simd;
  assign scalar = op == sgpu_isa_pkg::OP_VADD || op == sgpu_isa_pkg::OP_VSUB
                  || op == sgpu_isa_pkg::OP_VABSDIFF || op == sgpu_isa_pkg::OP_VMIN
                  || op == sgpu_isa_pkg::OP_VMAX || op == sgpu_isa_pkg::OP_VSHL
                  || op == sgpu_isa_pkg::OP_VSHR || op == sgpu_isa_pkg::OP_VSET;
  assign mad    = op == sgpu_isa_pkg::OP_VMAD;
  assign simd   = op == sgpu_isa_pkg::OP_VOP2 || op == sgpu_isa_pkg::OP_VOP4
                  || op == sgpu_isa_pkg::OP_VSET2 || op == sgpu_isa_pkg::OP_VSET4;

  // Modifiers at their fixed places (the sign flags and selectors are where every form
  // that has them puts them): the first stage's, from the word given.
  logic dsgn, asgn, bsgn, sat;
  assign dsgn = instr_i[sgpu_isa_pkg::DSGN_LSB];
  assign asgn = instr_i[sgpu_isa_pkg::ASGN_LSB];
  assign bsgn = instr_i[sgpu_isa_pkg::BSGN_LSB];
  assign sat  = instr_i[sgpu_isa_pkg::VSAT_LSB];

  /////////////////////////////////////
  // The register between the stages //
  /////////////////////////////////////

  // The first stage's value (prim, mad_p or the SIMD elements, below), the word and c, and
  // the family of the instruction in the second stage, if any. The second stage slices its
  // modifiers from word_q (synthesis keeps only the bits it reads).
  localparam int unsigned SW = 72;
  logic [SW-1:0] s1_d, s1_q;
  logic [63:0]   word_q;
  logic [31:0]   c_q;
  logic          scalar_q, mad_q, simd_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {scalar_q, mad_q, simd_q} <= '0;
    end else begin
      scalar_q <= en_i && scalar;
      mad_q    <= en_i && mad;
      simd_q   <= en_i && simd;
    end
  end
  always_ff @(posedge clk_i) begin
    if (en_i) begin
      s1_q   <= s1_d;
      word_q <= instr_i;
      c_q    <= c_i;
    end
  end

  // The second stage's modifiers.
  logic            s2_dsgn, s2_asgn, s2_bsgn, s2_sat;
  assign s2_dsgn = word_q[sgpu_isa_pkg::DSGN_LSB];
  assign s2_asgn = word_q[sgpu_isa_pkg::ASGN_LSB];
  assign s2_bsgn = word_q[sgpu_isa_pkg::BSGN_LSB];
  assign s2_sat  = word_q[sgpu_isa_pkg::VSAT_LSB];

  // A comparison's outcome from a - b and whether they are equal (ICMP_*).
  function automatic logic holds(logic [CMPW-1:0] cmp, logic lt, logic eq);
    unique case (cmp)
      sgpu_isa_pkg::ICMP_EQ: holds = eq;
      sgpu_isa_pkg::ICMP_NE: holds = !eq;
      sgpu_isa_pkg::ICMP_LT: holds = lt;
      sgpu_isa_pkg::ICMP_LE: holds = lt || eq;
      sgpu_isa_pkg::ICMP_GT: holds = !lt && !eq;
      default:               holds = !lt;  // ICMP_GE
    endcase
  endfunction

  ///////////////////////////////
  // Operands (scalar and VMAD) //
  ///////////////////////////////

  // `partSelectSignExtend`: the byte, half-word or word `sel` names, extended by its sign
  // when `sgn`.
  function automatic logic [32:0] select(logic [31:0] x, logic sgn, logic [SELW-1:0] sel);
    unique case (sel)
      sgpu_isa_pkg::VSEL_B0: select = {{25{sgn & x[7]}}, x[7:0]};
      sgpu_isa_pkg::VSEL_B1: select = {{25{sgn & x[15]}}, x[15:8]};
      sgpu_isa_pkg::VSEL_B2: select = {{25{sgn & x[23]}}, x[23:16]};
      sgpu_isa_pkg::VSEL_B3: select = {{25{sgn & x[31]}}, x[31:24]};
      sgpu_isa_pkg::VSEL_H0: select = {{17{sgn & x[15]}}, x[15:0]};
      sgpu_isa_pkg::VSEL_H1: select = {{17{sgn & x[31]}}, x[31:16]};
      default:               select = {sgn & x[31], x};  // VSEL_B32
    endcase
  endfunction

  logic [32:0] ta, tb;
  always_comb begin
    {ta, tb} = '0;
    if (en_i && (scalar || mad)) begin
      ta = select(a_i, asgn, instr_i[sgpu_isa_pkg::ASEL_MSB:sgpu_isa_pkg::ASEL_LSB]);
      // vshl's and vshr's b is unsigned: their words have no bsgn bit.
      tb = select(b_i, bsgn, instr_i[sgpu_isa_pkg::BSEL_MSB:sgpu_isa_pkg::BSEL_LSB]);
    end
  end

  ///////////////////////////////////
  // The scalar primary operation //
  ///////////////////////////////////

  // a - b in 34 bits is exact for 33-bit operands, so its sign is a < b. One arithmetic
  // right shifter does vshr and vshl, a left shift reversing the bits before and after it
  // (x << n is rev(rev(x) >> n)): two shifters would cost about 130 LUT4 more.
  logic [33:0] prim_a;  // ta, extended to 34 bits
  assign prim_a = {ta[32], ta};
  logic [33:0] sum, diff, sh_x, sh_y, prim;
  logic        lt, eq, sh_left;
  logic [5:0]  sh_n;
  always_comb begin
    {sum, diff, lt, eq, sh_n, sh_left, sh_x, sh_y, prim} = '0;
    if (en_i && scalar) begin
      sum  = prim_a + {tb[32], tb};
      diff = prim_a - {tb[32], tb};
      lt   = diff[33];
      eq   = diff == '0;
      // .clamp limits the count to 32, .wrap takes it mod 32.
      if (instr_i[sgpu_isa_pkg::VCLAMP_LSB]) begin
        sh_n = (tb[32:6] != '0 || (tb[5] && tb[4:0] != '0)) ? 6'd32 : tb[5:0];  // tb > 32
      end else begin
        sh_n = {1'b0, tb[4:0]};
      end
      sh_left = op == sgpu_isa_pkg::OP_VSHL;
      for (int i = 0; i < 34; i++) sh_x[i] = sh_left ? prim_a[33 - i] : prim_a[i];
      if (op == sgpu_isa_pkg::OP_VSHL || op == sgpu_isa_pkg::OP_VSHR) begin
        sh_y = 34'($signed({!sh_left & ta[32], sh_x}) >>> sh_n);
      end
      unique case (op)
        sgpu_isa_pkg::OP_VADD:     prim = sum;
        sgpu_isa_pkg::OP_VSUB:     prim = diff;
        sgpu_isa_pkg::OP_VABSDIFF: prim = lt ? -diff : diff;
        sgpu_isa_pkg::OP_VMIN:     prim = lt ? prim_a : {tb[32], tb};
        sgpu_isa_pkg::OP_VMAX:     prim = lt ? {tb[32], tb} : prim_a;
        sgpu_isa_pkg::OP_VSHL:     for (int i = 0; i < 34; i++) prim[i] = sh_y[33 - i];
        sgpu_isa_pkg::OP_VSHR:     prim = sh_y;
        default: prim = {33'd0, holds(instr_i[sgpu_isa_pkg::VCMP_MSB:sgpu_isa_pkg::VCMP_LSB],
                                      lt, eq)};  // VSET
      endcase
    end
  end

  /////////////////////////////////////
  // Saturation and the second stage //
  /////////////////////////////////////

  // `optSaturate`: t clamped to the range of a signed or unsigned byte, half-word or word
  // (the destination selector's size), when the value does not fit in it.
  function automatic logic [33:0] saturate(logic [33:0] t, logic sgn, logic [SELW-1:0] dsel);
    logic        fits;
    logic [33:0] lo, hi;
    unique case (dsel)
      sgpu_isa_pkg::VSEL_B0, sgpu_isa_pkg::VSEL_B1, sgpu_isa_pkg::VSEL_B2,
      sgpu_isa_pkg::VSEL_B3: begin
        fits = sgn ? (t[33:7] == '0 || t[33:7] == '1) : t[33:8] == '0;
        lo   = sgn ? -34'd128 : 34'd0;
        hi   = sgn ? 34'd127 : 34'd255;
      end
      sgpu_isa_pkg::VSEL_H0, sgpu_isa_pkg::VSEL_H1: begin
        fits = sgn ? (t[33:15] == '0 || t[33:15] == '1) : t[33:16] == '0;
        lo   = sgn ? -34'd32768 : 34'd0;
        hi   = sgn ? 34'd32767 : 34'd65535;
      end
      default: begin  // VSEL_B32
        fits = sgn ? (t[33:31] == '0 || t[33:31] == '1) : t[33:32] == '0;
        lo   = sgn ? -34'h8000_0000 : 34'd0;
        hi   = sgn ? 34'h7fff_ffff : 34'hffff_ffff;
      end
    endcase
    saturate = fits ? t : t[33] ? lo : hi;
  endfunction

  // The secondary operation with c (signed by the destination type; vset's words have no
  // dsgn bit, so its c is unsigned), or the merge of the result's low byte or half-word
  // into c at the destination selector.
  logic [SELW-1:0] dsel;
  logic [33:0]     prim_q, tsat, cx;
  logic            c_lt;
  logic [31:0]     scalar_d;
  assign dsel = word_q[sgpu_isa_pkg::DSEL_MSB:sgpu_isa_pkg::DSEL_LSB];
  assign prim_q = s1_q[33:0];
  always_comb begin
    {tsat, cx, c_lt, scalar_d} = '0;
    if (scalar_q) begin
      tsat = s2_sat ? saturate(prim_q, s2_dsgn, dsel) : prim_q;
      cx   = {{2{s2_dsgn & c_q[31]}}, c_q};
      c_lt = $signed(tsat) < $signed(cx);
      unique case (word_q[sgpu_isa_pkg::VSEC_MSB:sgpu_isa_pkg::VSEC_LSB])
        sgpu_isa_pkg::VSEC_ADD: scalar_d = tsat[31:0] + c_q;
        sgpu_isa_pkg::VSEC_MIN: scalar_d = c_lt ? tsat[31:0] : c_q;
        sgpu_isa_pkg::VSEC_MAX: scalar_d = c_lt ? c_q : tsat[31:0];
        sgpu_isa_pkg::VSEC_MERGE: begin
          unique case (dsel)
            sgpu_isa_pkg::VSEL_B0: scalar_d = {c_q[31:8], tsat[7:0]};
            sgpu_isa_pkg::VSEL_B1: scalar_d = {c_q[31:16], tsat[7:0], c_q[7:0]};
            sgpu_isa_pkg::VSEL_B2: scalar_d = {c_q[31:24], tsat[7:0], c_q[15:0]};
            sgpu_isa_pkg::VSEL_B3: scalar_d = {tsat[7:0], c_q[23:0]};
            sgpu_isa_pkg::VSEL_H0: scalar_d = {c_q[31:16], tsat[15:0]};
            sgpu_isa_pkg::VSEL_H1: scalar_d = {tsat[15:0], c_q[15:0]};
            default:               scalar_d = tsat[31:0];  // VSEL_B32
          endcase
        end
        default: scalar_d = tsat[31:0];  // VSEC_NONE
      endcase
    end
  end

  //////////
  // VMAD //
  //////////

  // The product of the 33-bit ta and tb from one unsigned 32 x 32 multiplier: with
  // t = -s * 2^32 + low (s its top bit), ta * tb is the low words' product, less each low
  // word times 2^32 where the other operand's top bit is set, plus 2^64 where both are.
  // `signedFinal` (a or b signed, or a negation) decides c's extension and the saturation's
  // range; `.po` adds one, and takes precedence over the negations, which it leaves
  // `signedFinal` to (the pseudocode's order).
  localparam int unsigned MW = 68;
  logic [63:0]    mad_low;
  logic [MW-1:0]  mad_p, mad_p_q, mad_t, mad_s;
  logic [31:0]    mad_c, mad_d;
  logic           signed_final, neg_ab, neg_c, po, mad_fits;
  logic [sgpu_isa_pkg::VNEG_MSB-sgpu_isa_pkg::VNEG_LSB:0]     vneg;
  logic [sgpu_isa_pkg::VSCALE_MSB-sgpu_isa_pkg::VSCALE_LSB:0] vscale;
  always_comb begin
    {mad_low, mad_p} = '0;
    if (en_i && mad) begin
      mad_low = 64'(ta[31:0]) * 64'(tb[31:0]);
      mad_p   = MW'(mad_low)
                - (ta[32] ? MW'({tb[31:0], 32'd0}) : '0)
                - (tb[32] ? MW'({ta[31:0], 32'd0}) : '0)
                + ((ta[32] && tb[32]) ? (MW'(1) << 64) : '0);
    end
  end

  assign mad_p_q = s1_q[MW-1:0];
  assign vneg    = word_q[sgpu_isa_pkg::VNEG_MSB:sgpu_isa_pkg::VNEG_LSB];
  assign vscale  = word_q[sgpu_isa_pkg::VSCALE_MSB:sgpu_isa_pkg::VSCALE_LSB];
  assign po      = word_q[sgpu_isa_pkg::PO_LSB];
  always_comb begin
    {mad_t, mad_s, mad_c, mad_d, signed_final, neg_ab, neg_c, mad_fits} = '0;
    if (mad_q) begin
      signed_final = s2_asgn || s2_bsgn || vneg != sgpu_isa_pkg::VNEG_NONE;
      neg_ab = !po && vneg == sgpu_isa_pkg::VNEG_NEG_AB;
      neg_c  = !po && vneg == sgpu_isa_pkg::VNEG_NEG_C;
      mad_c  = neg_c ? ~c_q : c_q;
      mad_t  = (neg_ab ? ~mad_p_q : mad_p_q)
               + {{(MW - 32){signed_final & mad_c[31]}}, mad_c}
               + MW'(po || neg_ab || neg_c);
      unique case (vscale)
        sgpu_isa_pkg::VSCALE_SHR7:  mad_s = MW'($signed(mad_t) >>> 7);
        sgpu_isa_pkg::VSCALE_SHR15: mad_s = MW'($signed(mad_t) >>> 15);
        default:                    mad_s = mad_t;
      endcase
      if (!s2_sat) begin
        mad_d = mad_s[31:0];
      end else begin
        mad_fits = signed_final ? (mad_s[MW-1:31] == '0 || mad_s[MW-1:31] == '1)
                                : mad_s[MW-1:32] == '0;
        if (mad_fits) begin
          mad_d = mad_s[31:0];
        end else if (mad_s[MW-1]) begin
          mad_d = signed_final ? 32'h8000_0000 : 32'h0;
        end else begin
          mad_d = signed_final ? 32'h7fff_ffff : 32'hffff_ffff;
        end
      end
    end
  end

  //////////
  // SIMD //
  //////////

  // Elements 0 and 2 take the half-words of a two-way instruction, and bytes 0 and 2 of a
  // four-way one; 1 and 3 are bytes only, so each element's logic is as wide as the widest
  // element it computes (EW bits, one more for the operands' sign and one for a sum's
  // carry). The mask has a bit per element written (merge) or summed (.add); the field
  // numbers the elements left out.
  localparam int unsigned VOPW = sgpu_isa_pkg::VOP_MSB - sgpu_isa_pkg::VOP_LSB + 1;
  logic            two, set_op, esub;
  logic [VOPW-1:0] vop;
  logic [4*18-1:0] elems;  // t[i], extended by its sign, at [18*i +: 18]
  // Whether a SIMD opcode is a two-way one.
  function automatic logic two_way(logic [7:0] o);
    two_way = o == sgpu_isa_pkg::OP_VOP2 || o == sgpu_isa_pkg::OP_VSET2;
  endfunction
  always_comb begin
    {two, set_op, esub, vop} = '0;
    if (en_i && simd) begin
      two    = two_way(op);
      set_op = op == sgpu_isa_pkg::OP_VSET2 || op == sgpu_isa_pkg::OP_VSET4;
      vop    = instr_i[sgpu_isa_pkg::VOP_MSB:sgpu_isa_pkg::VOP_LSB];
      // Every operation but add and vavrg (and a comparison) takes the difference.
      esub   = set_op || !(vop == sgpu_isa_pkg::VOP_ADD || vop == sgpu_isa_pkg::VOP_AVRG);
    end
  end

  // t[i]: vop's operation on the element pair, clamped to the element's range with .sat,
  // or a comparison as 0 or 1; a sum and a difference come from one adder. vavrg rounds half
  // away from zero: (a + b + 1) >> 1 for a non-negative sum, (a + b) >> 1 (toward minus
  // infinity) else.
  for (genvar i = 0; i < 4; i++) begin : gen_elem
    localparam int unsigned EW = (i % 2 == 0) ? 16 : 8;
    logic [EW:0]   va, vb;  // the operands, extended by their signs
    logic [EW+1:0] r, t, e;
    logic [17:7]   tw;      // t's bits 17 to 7 (extended by its sign)
    logic          half, e_lt, fits;
    always_comb begin
      {va, vb, r, t, e, tw, half, e_lt, fits} = '0;
      if (en_i && simd) begin
        half = two && i % 2 == 0;
        if (half) begin
          va = (EW+1)'({asgn & a_i[16*(i/2)+15], a_i[16*(i/2) +: 16]});
          vb = (EW+1)'({bsgn & b_i[16*(i/2)+15], b_i[16*(i/2) +: 16]});
        end else begin
          va = (EW+1)'($signed({asgn & a_i[8*i+7], a_i[8*i +: 8]}));
          vb = (EW+1)'($signed({bsgn & b_i[8*i+7], b_i[8*i +: 8]}));
        end
        r    = {va[EW], va} + ({vb[EW], vb} ^ {(EW+2){esub}}) + (EW+2)'(esub);
        e_lt = r[EW+1];
        unique case (vop)
          sgpu_isa_pkg::VOP_AVRG:    t = (EW+2)'($signed(r + (EW+2)'(!r[EW+1])) >>> 1);
          sgpu_isa_pkg::VOP_ABSDIFF: t = e_lt ? -r : r;
          sgpu_isa_pkg::VOP_MIN:     t = e_lt ? {va[EW], va} : {vb[EW], vb};
          sgpu_isa_pkg::VOP_MAX:     t = e_lt ? {vb[EW], vb} : {va[EW], va};
          default:                   t = r;  // VOP_ADD, VOP_SUB
        endcase
        tw = 11'(18'($signed(t)) >>> 7);
        if (half) begin
          fits = dsgn ? (tw[17:15] == '0 || tw[17:15] == '1) : tw[17:16] == '0;
        end else begin
          fits = dsgn ? (tw[17:7] == '0 || tw[17:7] == '1) : tw[17:8] == '0;
        end
        if (set_op) begin
          e = (EW+2)'(holds(instr_i[sgpu_isa_pkg::VCMP_MSB:sgpu_isa_pkg::VCMP_LSB], e_lt,
                            r == '0));
        end else if (!sat || fits) begin
          e = t;
        end else if (t[EW+1]) begin
          e = dsgn ? (half ? -(EW+2)'(32768) : -(EW+2)'(128)) : '0;
        end else begin
          e = half ? (dsgn ? (EW+2)'(32767) : (EW+2)'(65535))
                   : (dsgn ? (EW+2)'(127) : (EW+2)'(255));
        end
      end
    end
    assign elems[18*i +: 18] = 18'($signed(e));
  end

  // The merge into c's elements, or .add: c plus the masked elements, each a signed value
  // (their sum needs 20 bits).
  logic [4*18-1:0] elems_q;
  logic            two_q, acc;
  logic [3:0]      emask;
  logic [4*20-1:0] taken;  // t[i] where .add sums it, else 0, at [20*i +: 20]
  logic [31:0]     simd_d, simd_sum;
  assign elems_q = s1_q[4*18-1:0];
  always_comb begin
    {two_q, acc, emask, taken, simd_d, simd_sum} = '0;
    if (simd_q) begin
      two_q = two_way(word_q[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB]);
      acc   = word_q[sgpu_isa_pkg::VACC_LSB];
      emask = two_q ? {2'b00, ~word_q[sgpu_isa_pkg::VM2_MSB:sgpu_isa_pkg::VM2_LSB]}
                    : ~word_q[sgpu_isa_pkg::VM4_MSB:sgpu_isa_pkg::VM4_LSB];
      for (int unsigned i = 0; i < 4; i++) begin
        if (emask[two_q ? i / 2 : i] && (!two_q || i % 2 == 0)) begin
          taken[20*i +: 20] = 20'($signed(elems_q[18*i +: 18]));
        end
      end
      simd_sum = c_q + 32'($signed((taken[0 +: 20] + taken[20 +: 20])
                                   + (taken[40 +: 20] + taken[60 +: 20])));
      if (acc) begin
        simd_d = simd_sum;
      end else if (two_q) begin
        simd_d[15:0]  = emask[0] ? elems_q[15:0] : c_q[15:0];
        simd_d[31:16] = emask[1] ? elems_q[36 +: 16] : c_q[31:16];
      end else begin
        for (int unsigned i = 0; i < 4; i++) begin
          simd_d[8*i +: 8] = emask[i] ? elems_q[18*i +: 8] : c_q[8*i +: 8];
        end
      end
    end
  end

  ////////////
  // Result //
  ////////////

  // The first stage's value, of the family the instruction is (the others rest at zero).
  assign s1_d = SW'(prim) | SW'(mad_p) | elems;

  // The family the instruction is gives its result; the others rest at zero.
  assign d_o = scalar_d | mad_d | simd_d;

endmodule
