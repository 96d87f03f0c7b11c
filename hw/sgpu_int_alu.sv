// One lane of the integer unit: what the golden model's `compute` (sim/src/exec/int.rs, with
// the per-lane rules of sim/src/lane.rs) writes in one lane for MOV, MOV32I, SEL, PLOP,
// IADD, IADD32I, IMUL, IMUL32I, IMAD, IMADW, IMNMX, IABS, ISETP, LOP3, LOP32I, SHL, SHR, SHF,
// BFE, BFI, POPC, CLZ, FLO, BREV, PRMT, PRMTI and I2I; every output is zero for any other
// opcode (S2R and IDIV are computed elsewhere). Combinational; the core instantiates it once
// per physical lane and gives it the lane's register and predicate values. With en_i low
// every output is zero and the datapath rests at zero (all of it but the byte permute's
// selectors and the leading-one input, whose gating would cost LUTs): operand isolation,
// which in simulation means Verilator skips it in the cycles the lane computes nothing (most
// of them), and in silicon saves its toggling.
// It slices the opcode, modifiers and immediates from the instruction word itself, at the
// places the ISA table fixes; the word is one the decoder accepts (sgpu_predecode traps the
// others), so an enumerated field past its values gives whatever the `default` arms say.
// rtl-tests/tests/int_alu.rs checks it, with both sets, against the golden model; an ALU
// without a set gives zero for its operations, and the co-simulation checks that the core
// never gives any to an ALU without them.
//
// Package names are written out in full (sgpu_isa_pkg::) rather than imported, and the enumerated
// fields are plain bit vectors compared with the package's members rather than cast to its
// types, so that yosys reads the module as Verilator does.
module sgpu_int_alu #(
  // Whether it computes the operations sgpu_core_pkg::shared_op names (bit fields, byte
  // permutes, I2I, POPC, CLZ, FLO, BREV), and the others: the core's lanes have ALUs
  // without the first set, and share one with the first set alone, which computes a beat's
  // lanes one a cycle (a lane's ALU is about a third smaller without them).
  parameter bit LANE_OPS   = 1'b1,
  parameter bit SHARED_OPS = 1'b1
) (
  input  logic        en_i,     // the lane computes this cycle
  input  logic [63:0] instr_i,
  input  logic [31:0] a_i,      // ra (RZ reads 0)
  input  logic [31:0] b_i,      // rb as read; ignored when bi makes rb an immediate
  input  logic [31:0] c_i,      // rc as read; ignored when ci makes rc an immediate
  input  logic [31:0] c_hi_i,   // rc+1: IMADW's addend high word
  input  logic        carry_i,  // the lane's carry bit
  input  logic        pa_i,     // the predicate operand pa, its negation applied
  input  logic        pc_i,     // the predicate operand pc, its negation applied
  output logic [31:0] d_o,      // rd
  output logic [31:0] d_hi_o,   // rd+1 (IMADW)
  output logic        carry_o,  // carry out, for .cc forms
  output logic        pd_o,     // pd (ISETP, PLOP)
  output logic        pq_o      // pq (ISETP)
);

  logic [sgpu_isa_pkg::OP_MSB-sgpu_isa_pkg::OP_LSB:0] op;
  assign op = instr_i[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB];

  // The guard is the core's business, and register numbers other than immediates' are the
  // register file's.
  logic unused_instr;
  assign unused_instr = ^{instr_i[sgpu_isa_pkg::PGN_MSB:sgpu_isa_pkg::PGN_LSB],
                          instr_i[sgpu_isa_pkg::PG_MSB:sgpu_isa_pkg::PG_LSB],
                          instr_i[sgpu_isa_pkg::RD_MSB:sgpu_isa_pkg::RD_LSB],
                          instr_i[sgpu_isa_pkg::RA_MSB:sgpu_isa_pkg::RA_LSB]};

  // Operands: an `rb/bi` or `rc/ci` operand with its flag set is the 8-bit register field
  // zero-extended (sgpu_isa's RegOrImm::Imm). The 32-bit immediate of MOV32I, IADD32I,
  // IMUL32I and LOP32I is their b, so that they share IADD's adder, IMUL's multiplier and
  // LOP's gates.
  logic        imm_op;
  logic [31:0] imm32, b_val, c_val;
  assign imm_op = op == sgpu_isa_pkg::OP_MOV32I || op == sgpu_isa_pkg::OP_IADD32I
                  || op == sgpu_isa_pkg::OP_IMUL32I || op == sgpu_isa_pkg::OP_LOP32I;
  always_comb begin
    {imm32, b_val, c_val} = '0;
    if (en_i) begin
      imm32 = instr_i[sgpu_isa_pkg::IMM32_MSB:sgpu_isa_pkg::IMM32_LSB];
      b_val = imm_op ? imm32
            : instr_i[sgpu_isa_pkg::BI_LSB]
            ? 32'(instr_i[sgpu_isa_pkg::RB_MSB:sgpu_isa_pkg::RB_LSB]) : b_i;
      c_val = instr_i[sgpu_isa_pkg::CI_LSB]
            ? 32'(instr_i[sgpu_isa_pkg::RC_MSB:sgpu_isa_pkg::RC_LSB]) : c_i;
    end
  end

  // The combining operation of ISETP and PLOP (their bop field).
  logic [sgpu_isa_pkg::BOP_MSB-sgpu_isa_pkg::BOP_LSB:0] bop;
  assign bop = instr_i[sgpu_isa_pkg::BOP_MSB:sgpu_isa_pkg::BOP_LSB];

  ////////////////////
  // Multiplication //
  ////////////////////

  // One multiplier for IMUL, IMUL32I, IMAD and IMADW: the unsigned 64-bit product of the
  // words, and with sgn the signed one, which differs only in the high word: a signed
  // operand is its word less 2^32 when its top bit is set, so b (a) times that 2^32 comes
  // off the high word for a's (b's) sign, modulo 2^64. (Written as a product of two 33-bit
  // signed operands, yosys 0.23's alumacc gets bit 63 wrong: found by the gate-level
  // co-simulation.) IMUL32I keeps the low word only, which is the same either way, so the
  // sgn bit (part of its immediate there) needs no gating.
  logic               mul_sgn;
  logic [31:0]        mul_fix;   // what the signs take off the high word
  logic [63:0]        product;
  logic [31:0]        mul_word;  // IMUL's and IMAD's word of the product
  logic               mad_cin;
  logic [32:0]        mad_sum;
  logic [63:0]        madw_sum;
  always_comb begin
    {mul_sgn, mul_fix, product, mul_word, mad_cin, mad_sum, madw_sum} = '0;
    if (en_i) begin
      mul_sgn = instr_i[sgpu_isa_pkg::SGN_LSB];
      mul_fix = (mul_sgn && a_i[31] ? b_val : '0) + (mul_sgn && b_val[31] ? a_i : '0);
      product = 64'(a_i) * 64'(b_val) - {mul_fix, 32'd0};

      // IMUL's and IMAD's word of the product.
      mul_word = instr_i[sgpu_isa_pkg::HI_LSB] ? product[63:32] : product[31:0];

      // IMAD: the word plus c plus, with x, the carry in.
      mad_cin = instr_i[sgpu_isa_pkg::X_LSB] & carry_i;
      mad_sum = {1'b0, mul_word} + {1'b0, c_val} + 33'(mad_cin);

      // IMADW: the whole product plus the pair rc+1:rc.
      madw_sum = product + {c_hi_i, c_i};
    end
  end

  //////////////
  // Addition //
  //////////////

  // IADD: a + b, or with nb a + ~b + 1; with x the carry in replaces the + 0 or + 1.
  // IADD32I adds its immediate; the comparisons (ISETP, IMNMX) subtract, a + ~b + 1. (In
  // their words the nb and x bits are other fields'.)
  logic        cmp_op, add_neg;
  logic [31:0] add_b;
  logic        add_cin;
  logic [32:0] add_sum;
  assign cmp_op = op == sgpu_isa_pkg::OP_ISETP || op == sgpu_isa_pkg::OP_IMNMX;
  always_comb begin
    {add_neg, add_b, add_cin, add_sum} = '0;
    if (en_i) begin
      add_neg = cmp_op || (op == sgpu_isa_pkg::OP_IADD && instr_i[sgpu_isa_pkg::NB_LSB]);
      add_b = add_neg ? ~b_val : b_val;
      add_cin = (op == sgpu_isa_pkg::OP_IADD && instr_i[sgpu_isa_pkg::X_LSB]) ? carry_i
              : add_neg;
      add_sum = {1'b0, a_i} + {1'b0, add_b} + 33'(add_cin);
    end
  end

  // .sat: the exact a + b or a - b of the signed values (without the carry in), clamped to
  // the 32-bit signed range. Its 34 bits hold every such sum.
  logic [33:0] sat_sum;
  logic [31:0] sat_result;
  always_comb begin
    sat_sum = '0;
    if (en_i) begin
      sat_sum = 34'($signed(a_i)) + 34'($signed(add_b)) + 34'(instr_i[sgpu_isa_pkg::NB_LSB]);
    end
  end
  always_comb begin
    sat_result = '0;
    if (en_i) begin
      if (sat_sum[33:31] == 3'b000 || sat_sum[33:31] == 3'b111) begin
        sat_result = sat_sum[31:0];
      end else if (sat_sum[33]) begin
        sat_result = 32'h8000_0000;
      end else begin
        sat_result = 32'h7fff_ffff;
      end
    end
  end

  ////////////////
  // Comparison //
  ////////////////

  // a against b (IMNMX, ISETP), signed with sgn, from a - b: unsigned, a < b when the
  // subtraction borrows (no carry out); signed, when the signs differ a < b if a is the
  // negative one, else (no overflow then) when the difference is negative.
  logic cmp_eq, cmp_lt;
  always_comb begin
    {cmp_eq, cmp_lt} = '0;
    if (en_i) begin
      cmp_eq = a_i == b_val;
      if (!instr_i[sgpu_isa_pkg::SGN_LSB]) begin
        cmp_lt = !add_sum[32];
      end else begin
        cmp_lt = (a_i[31] != b_val[31]) ? a_i[31] : add_sum[31];
      end
    end
  end

  // ISETP's comparison (pc is the low words' result in the .x form).
  logic icmp_result;
  assign icmp_result = en_i && sgpu_core_pkg::icmp_holds(
      instr_i[sgpu_isa_pkg::ICMP_MSB:sgpu_isa_pkg::ICMP_LSB], instr_i[sgpu_isa_pkg::X_LSB], pc_i,
      cmp_eq, cmp_lt);

  //////////////
  // Shifting //
  //////////////

  // SHL, SHR and SHF: the 64-bit value hi:lo shifted left, or right (arithmetically with
  // sgn), by b, at most 64; SHL and SHR are SHF with hi 0 (or a's sign for SHR.sgn) and the
  // low word kept. BFE's and BFI's field moves are shifts of 0:a too (right by pos, and left
  // by pos; at most 64, as 64 already shifts every bit out).
  //
  // One shifter does them all, a right shift of the value with the fill bit above it; a
  // left shift reverses the bits before and after (x << n is rev(rev(x) >> n)). Three
  // shifters (left, right, arithmetic right) would cost about 900 LUT4 more a lane.
  // A bit field's position, clamped to 64.
  function automatic logic [6:0] at_most_64(logic [7:0] x);
    at_most_64 = (x[7] || x[6:0] > 7'd64) ? 7'd64 : x[6:0];
  endfunction

  logic [63:0] sh_in, sh_out, sh_x;
  logic [64:0] sh_wide;
  logic [6:0]  sh_n;
  logic        sh_right, sh_arith, sh_high;
  always_comb begin
    sh_in = '0;
    sh_n = '0;
    sh_right = '0;
    sh_arith = '0;
    sh_high = '0;
    if (en_i) begin
      sh_in = {32'h0, a_i};
      sh_n  = (b_val > 32'd64) ? 7'd64 : b_val[6:0];
      unique case (op)
        sgpu_isa_pkg::OP_SHR: if (LANE_OPS) begin
          sh_in    = {{32{instr_i[sgpu_isa_pkg::SGN_LSB] & a_i[31]}}, a_i};
          sh_right = 1'b1;
          sh_arith = instr_i[sgpu_isa_pkg::SGN_LSB];
        end
        sgpu_isa_pkg::OP_SHF: if (LANE_OPS) begin
          sh_in    = {c_i, a_i};
          sh_right = instr_i[sgpu_isa_pkg::SHR_LSB];
          sh_arith = instr_i[sgpu_isa_pkg::SGN_LSB];
          sh_high  = instr_i[sgpu_isa_pkg::HI_LSB];
        end
        sgpu_isa_pkg::OP_BFE: if (SHARED_OPS) begin
          sh_n     = at_most_64(b_val[7:0]);
          sh_right = 1'b1;
        end
        sgpu_isa_pkg::OP_BFI: if (SHARED_OPS) sh_n = at_most_64(c_i[7:0]);
        default: ;
      endcase
    end
  end
  always_comb begin
    sh_x = '0;
    sh_wide = '0;
    sh_out = '0;
    if (en_i) begin
      for (int i = 0; i < 64; i++) sh_x[i] = sh_right ? sh_in[i] : sh_in[63 - i];
      sh_wide = $signed({sh_right & sh_arith & sh_in[63], sh_x}) >>> sh_n;
      for (int i = 0; i < 64; i++) sh_out[i] = sh_right ? sh_wide[i] : sh_wide[63 - i];
    end
  end

  ////////////////
  // Bit fields //
  ////////////////

  // BFE: len bits of a from pos, extended by a[min(pos + len - 1, 31)] with sgn (by 0
  // without, or when len is 0); the bits past a's top are that extension too.
  logic [7:0]  bfe_pos, bfe_len;
  logic [8:0]  bfe_top;
  logic [5:0]  bfe_avail, bfe_keep_n;
  logic [31:0] bfe_keep, bfe_result;
  logic        bfe_sbit;
  logic [7:0]  bfi_pos, bfi_len;
  logic [31:0] bfi_mask, bfi_result;
  always_comb begin
    {bfe_pos, bfe_len, bfe_top, bfe_sbit, bfe_avail, bfe_keep_n, bfe_keep, bfe_result} = '0;
    {bfi_pos, bfi_len, bfi_mask, bfi_result} = '0;
    if (en_i && SHARED_OPS) begin
      bfe_pos = b_val[7:0];
      bfe_len = c_val[7:0];
      bfe_top = 9'(bfe_pos) + 9'(bfe_len) - 9'd1;
      bfe_sbit = instr_i[sgpu_isa_pkg::SGN_LSB] && bfe_len != 8'd0
                && (bfe_top > 9'd31 ? a_i[31] : a_i[bfe_top[4:0]]);
      bfe_avail = (bfe_pos > 8'd31) ? 6'd0 : 6'd32 - 6'(bfe_pos);
      bfe_keep_n = (bfe_len < 8'(bfe_avail)) ? bfe_len[5:0] : bfe_avail;
      bfe_keep = ~(32'hffff_ffff << bfe_keep_n);
      bfe_result = (sh_out[31:0] & bfe_keep) | ({32{bfe_sbit}} & ~bfe_keep);

      // BFI: a's low len bits (rc[15:8]) into b at pos (rc[7:0]), those past b's top dropped.
      bfi_pos = c_i[7:0];
      bfi_len = c_i[15:8];
      bfi_mask = ~(32'hffff_ffff << (9'(bfi_pos) + 9'(bfi_len))) & (32'hffff_ffff << bfi_pos);
      bfi_result = (b_i & ~bfi_mask) | (sh_out[31:0] & bfi_mask);
    end
  end

  // POPC and BREV.
  logic [31:0] popc, brev;
  always_comb begin
    popc = '0;
    brev = '0;
    if (en_i && SHARED_OPS) begin
      for (int i = 0; i < 32; i++) begin
        popc = popc + 32'(a_i[i]);
        brev[i] = a_i[31 - i];
      end
    end
  end

  // CLZ and FLO: the most significant one of a, or for FLO.sgn of a negative a, of ~a.
  logic [31:0] lead_in;
  logic [4:0]  lead_msb, lead_zeros;
  logic        lead_none;
  assign lead_in = !SHARED_OPS ? '0
                 : (op == sgpu_isa_pkg::OP_FLO && instr_i[sgpu_isa_pkg::SGN_LSB] && a_i[31])
                 ? ~a_i : a_i;
  always_comb begin
    lead_msb = '0;
    if (en_i && SHARED_OPS) begin
      for (int i = 0; i < 32; i++) begin
        if (lead_in[i]) begin
          lead_msb = 5'(i);
        end
      end
    end
  end
  assign lead_none  = lead_in == '0;
  assign lead_zeros = 5'd31 - lead_msb;

  // LOP3: each bit of d is lut's bit {a, b, c}.
  logic [sgpu_isa_pkg::LUT_MSB-sgpu_isa_pkg::LUT_LSB:0] lut;
  logic [31:0]              lop3;
  assign lut = instr_i[sgpu_isa_pkg::LUT_MSB:sgpu_isa_pkg::LUT_LSB];
  always_comb begin
    lop3 = '0;
    if (en_i) begin
      for (int i = 0; i < 32; i++) begin
        lop3[i] = lut[{a_i[i], b_val[i], c_val[i]}];
      end
    end
  end

  // LOP32I.
  logic [31:0] lop2;
  always_comb begin
    lop2 = '0;
    if (en_i) begin
      unique case (instr_i[sgpu_isa_pkg::LOP2_MSB:sgpu_isa_pkg::LOP2_LSB])
        sgpu_isa_pkg::LOP2_AND: lop2 = a_i & b_val;
        sgpu_isa_pkg::LOP2_OR:  lop2 = a_i | b_val;
        sgpu_isa_pkg::LOP2_XOR: lop2 = a_i ^ b_val;
        default:  lop2 = '0;
      endcase
    end
  end

  //////////////////
  // Byte permute //
  //////////////////

  // PRMT and PRMTI pick four of the eight bytes of b:a, each by a 3-bit index, and may
  // replace one by its sign (the default mode's selector bit 3). The selector is rc, or
  // PRMTI's imm16; the modes other than the default read its low two bits. The indices and
  // the picked bytes are flat vectors, byte k's at 3 * k and 8 * k (yosys takes no packed
  // arrays of more than one dimension).
  logic [63:0] prmt_bytes;
  logic [15:0] prmt_sel;
  logic [1:0]  prmt_s;
  logic [sgpu_isa_pkg::PMODE_MSB-sgpu_isa_pkg::PMODE_LSB:0] prmt_mode;  // PMODEI's width too
  logic [11:0] prmt_idx;
  logic [3:0]  prmt_rep;
  logic [31:0] prmt_pick;
  logic [31:0] prmt_result;
  assign prmt_bytes = {b_i, a_i};
  assign prmt_sel   = (op == sgpu_isa_pkg::OP_PRMTI)
                    ? instr_i[sgpu_isa_pkg::IMM16_MSB:sgpu_isa_pkg::IMM16_LSB] : c_i[15:0];
  assign prmt_s     = prmt_sel[1:0];
  assign prmt_mode  = (op == sgpu_isa_pkg::OP_PRMTI)
                    ? instr_i[sgpu_isa_pkg::PMODEI_MSB:sgpu_isa_pkg::PMODEI_LSB]
                    : instr_i[sgpu_isa_pkg::PMODE_MSB:sgpu_isa_pkg::PMODE_LSB];
  always_comb begin
    prmt_idx = '0;
    prmt_rep = '0;
    if (en_i && SHARED_OPS) begin
      for (int k = 0; k < 4; k++) begin
        unique case (prmt_mode)
          sgpu_isa_pkg::PMODE_DEFAULT: begin
            prmt_idx[3 * k +: 3] = prmt_sel[4 * k +: 3];
            prmt_rep[k]          = prmt_sel[4 * k + 3];
          end
          sgpu_isa_pkg::PMODE_F4E: prmt_idx[3 * k +: 3] = 3'(prmt_s) + 3'(k);
          sgpu_isa_pkg::PMODE_B4E: prmt_idx[3 * k +: 3] = 3'(prmt_s) - 3'(k);
          sgpu_isa_pkg::PMODE_RC8: prmt_idx[3 * k +: 3] = 3'(prmt_s);
          // PTX's table for ecl is bytes s, max(s, 1), max(s, 2), 3, and for ecr bytes 0,
          // min(s, 1), min(s, 2), s: byte k is max(s, k), or min(s, k), as s is at most 3.
          sgpu_isa_pkg::PMODE_ECL: prmt_idx[3 * k +: 3] = (prmt_s > 2'(k)) ? 3'(prmt_s) : 3'(k);
          sgpu_isa_pkg::PMODE_ECR: prmt_idx[3 * k +: 3] = (prmt_s < 2'(k)) ? 3'(prmt_s) : 3'(k);
          // Bytes 2s, 2s + 1, 2s, 2s + 1 (s's low bit).
          sgpu_isa_pkg::PMODE_RC16: prmt_idx[3 * k +: 3] = {1'b0, prmt_s[0], 1'(k)};
          default: ;
        endcase
      end
    end
  end
  always_comb begin
    prmt_pick = '0;
    prmt_result = '0;
    if (en_i && SHARED_OPS) begin
      for (int k = 0; k < 4; k++) begin
        prmt_pick[8 * k +: 8]   = prmt_bytes[8 * prmt_idx[3 * k +: 3] +: 8];
        prmt_result[8 * k +: 8] = prmt_rep[k] ? {8{prmt_pick[8 * k + 7]}} : prmt_pick[8 * k +: 8];
      end
    end
  end

  ////////////////
  // Conversion //
  ////////////////

  // I2I: the source's low bits (64-bit types: the register's 32), extended by its sign,
  // clamped with sat to the destination's range (64-bit types: 32 bits'), and the
  // destination's bits extended by its sign to 32.
  logic [sgpu_isa_pkg::IFROM_MSB-sgpu_isa_pkg::IFROM_LSB:0] cvt_from;
  logic [sgpu_isa_pkg::ITO_MSB-sgpu_isa_pkg::ITO_LSB:0]     cvt_to;
  logic signed [32:0] cvt_in, cvt_lo, cvt_hi;
  logic [31:0]        cvt_val, cvt_result;
  assign cvt_from = instr_i[sgpu_isa_pkg::IFROM_MSB:sgpu_isa_pkg::IFROM_LSB];
  assign cvt_to   = instr_i[sgpu_isa_pkg::ITO_MSB:sgpu_isa_pkg::ITO_LSB];
  always_comb begin
    cvt_in = '0;
    cvt_lo = '0;
    cvt_hi = '0;
    cvt_val = '0;
    cvt_result = '0;
    if (en_i && SHARED_OPS) begin
      unique case (cvt_from)
        sgpu_isa_pkg::ITY_U8:  cvt_in = 33'(a_i[7:0]);
        sgpu_isa_pkg::ITY_S8:  cvt_in = 33'($signed(a_i[7:0]));
        sgpu_isa_pkg::ITY_U16: cvt_in = 33'(a_i[15:0]);
        sgpu_isa_pkg::ITY_S16: cvt_in = 33'($signed(a_i[15:0]));
        sgpu_isa_pkg::ITY_U32, sgpu_isa_pkg::ITY_U64: cvt_in = 33'(a_i);
        sgpu_isa_pkg::ITY_S32, sgpu_isa_pkg::ITY_S64: cvt_in = 33'($signed(a_i));
        default:               cvt_in = '0;
      endcase
      unique case (cvt_to)
        sgpu_isa_pkg::ITY_U8:  {cvt_lo, cvt_hi} = {33'sd0, 33'sd255};
        sgpu_isa_pkg::ITY_S8:  {cvt_lo, cvt_hi} = {-33'sd128, 33'sd127};
        sgpu_isa_pkg::ITY_U16: {cvt_lo, cvt_hi} = {33'sd0, 33'sd65535};
        sgpu_isa_pkg::ITY_S16: {cvt_lo, cvt_hi} = {-33'sd32768, 33'sd32767};
        sgpu_isa_pkg::ITY_U32, sgpu_isa_pkg::ITY_U64:
          {cvt_lo, cvt_hi} = {33'sd0, 33'sd4294967295};
        sgpu_isa_pkg::ITY_S32, sgpu_isa_pkg::ITY_S64:
          {cvt_lo, cvt_hi} = {-33'sd2147483648, 33'sd2147483647};
        default:               {cvt_lo, cvt_hi} = '0;
      endcase
      cvt_val = 32'(cvt_in);
      if (instr_i[sgpu_isa_pkg::SAT_LSB]) begin
        if (cvt_in < cvt_lo) begin
          cvt_val = 32'(cvt_lo);
        end else if (cvt_in > cvt_hi) begin
          cvt_val = 32'(cvt_hi);
        end
      end
      unique case (cvt_to)
        sgpu_isa_pkg::ITY_U8:  cvt_result = 32'(cvt_val[7:0]);
        sgpu_isa_pkg::ITY_S8:  cvt_result = 32'($signed(cvt_val[7:0]));
        sgpu_isa_pkg::ITY_U16: cvt_result = 32'(cvt_val[15:0]);
        sgpu_isa_pkg::ITY_S16: cvt_result = 32'($signed(cvt_val[15:0]));
        default: cvt_result = cvt_val;
      endcase
    end
  end

  ////////////
  // Result //
  ////////////

  // The two sets of operations, each a case of its own, so that an ALU without one has none
  // of its logic.
  always_comb begin
    d_o = '0;
    d_hi_o = '0;
    carry_o = '0;
    pd_o = '0;
    pq_o = '0;
    if (en_i && LANE_OPS) begin
      unique case (op)
        sgpu_isa_pkg::OP_MOV:    d_o = a_i;
        sgpu_isa_pkg::OP_MOV32I: d_o = b_val;
        sgpu_isa_pkg::OP_SEL:    d_o = pc_i ? a_i : b_val;
        sgpu_isa_pkg::OP_PLOP:   pd_o = sgpu_core_pkg::bool_op(bop, pa_i, pc_i);
        sgpu_isa_pkg::OP_IADD: begin
          d_o     = instr_i[sgpu_isa_pkg::SAT_LSB] ? sat_result : add_sum[31:0];
          carry_o = add_sum[32];
        end
        sgpu_isa_pkg::OP_IADD32I: d_o = add_sum[31:0];
        sgpu_isa_pkg::OP_IMUL:     d_o = mul_word;
        sgpu_isa_pkg::OP_IMUL32I:  d_o = product[31:0];
        sgpu_isa_pkg::OP_IMAD: begin
          d_o     = mad_sum[31:0];
          carry_o = mad_sum[32];
        end
        sgpu_isa_pkg::OP_IMADW:  {d_hi_o, d_o} = madw_sum;
        sgpu_isa_pkg::OP_IMNMX:  d_o = (cmp_lt != instr_i[sgpu_isa_pkg::MAX_LSB]) ? a_i : b_val;
        sgpu_isa_pkg::OP_IABS:   d_o = a_i[31] ? -a_i : a_i;
        sgpu_isa_pkg::OP_ISETP: begin
          // The .x form writes the comparison and its negation; pc was its low words.
          if (instr_i[sgpu_isa_pkg::X_LSB]) begin
            pd_o = icmp_result;
            pq_o = !icmp_result;
          end else begin
            pd_o = sgpu_core_pkg::bool_op(bop, icmp_result, pc_i);
            pq_o = sgpu_core_pkg::bool_op(bop, !icmp_result, pc_i);
          end
        end
        sgpu_isa_pkg::OP_LOP3:   d_o = lop3;
        sgpu_isa_pkg::OP_LOP32I: d_o = lop2;
        sgpu_isa_pkg::OP_SHL, sgpu_isa_pkg::OP_SHR, sgpu_isa_pkg::OP_SHF:
          d_o = sh_high ? sh_out[63:32] : sh_out[31:0];
        default: ;
      endcase
    end
    if (en_i && SHARED_OPS) begin
      unique case (op)
        sgpu_isa_pkg::OP_BFE:    d_o = bfe_result;
        sgpu_isa_pkg::OP_BFI:    d_o = bfi_result;
        sgpu_isa_pkg::OP_POPC:   d_o = popc;
        sgpu_isa_pkg::OP_CLZ:    d_o = lead_none ? 32'd32 : 32'(lead_zeros);
        sgpu_isa_pkg::OP_FLO: begin
          if (lead_none) begin
            d_o = '1;
          end else begin
            d_o = instr_i[sgpu_isa_pkg::SHAMT_LSB] ? 32'(lead_zeros) : 32'(lead_msb);
          end
        end
        sgpu_isa_pkg::OP_BREV:   d_o = brev;
        sgpu_isa_pkg::OP_PRMT, sgpu_isa_pkg::OP_PRMTI: d_o = prmt_result;
        sgpu_isa_pkg::OP_I2I:    d_o = cvt_result;
        default: ;
      endcase
    end
  end

endmodule
