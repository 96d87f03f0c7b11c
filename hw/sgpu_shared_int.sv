// Core v2's shared integer operations, pipelined (sgpu_shared_unit's KIND_INT): what the
// golden model's `compute` writes for BFE, BFI, POPC, CLZ, FLO, BREV, PRMT, PRMTI and I2I,
// an operation a cycle, its result on d_o two cycles after its operands (two registers;
// sgpu_shared_unit registers d_o). The first core computes the same in one cycle
// (sgpu_int_alu's shared set: 16.9 ns on an ECP5, 59.2 MHz at worst over three seeds);
// here each stage is a few LUT levels:
//
//   stage 1 (operands -> 1): decode; the shift's direction (BFI shifts left: its operand
//            reversed), amount and whether it shifts everything out; BFE's top bit and kept
//            length, BFI's bounds; POPC's bytes counted; the leading one found in each byte;
//            PRMT's byte indices; I2I's source extended and its bounds
//   stage 2 (1 -> 2): the 32-bit shift; BFE's sign bit and kept mask, BFI's mask; POPC's
//            sum; the leading one of the word; PRMT's bytes picked; I2I clamped
//   after 2: each operation's result from those, and the choice among them (d_o)
//
// The word is one the decoder accepts (sgpu_predecode traps the others); with valid_i low
// the stages keep what they hold.
module sgpu_shared_int (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        valid_i,
  input  logic [63:0] instr_i,
  input  logic [31:0] a_i,     // ra (RZ reads 0)
  input  logic [31:0] b_i,     // rb as read; BFE's immediate when bi is set
  input  logic [31:0] c_i,     // rc as read; BFE's immediate when ci is set
  output logic [31:0] d_o      // rd, of the operation two cycles before
);

  // ------------------------------------------------------------------------------------
  // Stage 1
  // ------------------------------------------------------------------------------------
  logic [7:0] op;
  assign op = instr_i[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB];

  logic is_bfe, is_bfi, is_popc, is_lead, is_flo, is_brev, is_prmt, is_i2i;
  assign is_bfe  = op == sgpu_isa_pkg::OP_BFE;
  assign is_bfi  = op == sgpu_isa_pkg::OP_BFI;
  assign is_popc = op == sgpu_isa_pkg::OP_POPC;
  assign is_flo  = op == sgpu_isa_pkg::OP_FLO;
  assign is_lead = op == sgpu_isa_pkg::OP_CLZ || is_flo;
  assign is_brev = op == sgpu_isa_pkg::OP_BREV;
  assign is_prmt = op == sgpu_isa_pkg::OP_PRMT || op == sgpu_isa_pkg::OP_PRMTI;
  assign is_i2i  = op == sgpu_isa_pkg::OP_I2I;

  logic sgn, shamt, sat;
  assign sgn   = instr_i[sgpu_isa_pkg::SGN_LSB];    // BFE, FLO
  assign shamt = instr_i[sgpu_isa_pkg::SHAMT_LSB];  // FLO
  assign sat   = instr_i[sgpu_isa_pkg::SAT_LSB];    // I2I

  // BFE's position and length: rb/bi and rc/ci (an immediate is the register field).
  logic [7:0] bfe_pos, bfe_len;
  assign bfe_pos = instr_i[sgpu_isa_pkg::BI_LSB] ? instr_i[sgpu_isa_pkg::RB_MSB:sgpu_isa_pkg::RB_LSB]
                                                 : b_i[7:0];
  assign bfe_len = instr_i[sgpu_isa_pkg::CI_LSB] ? instr_i[sgpu_isa_pkg::RC_MSB:sgpu_isa_pkg::RC_LSB]
                                                 : c_i[7:0];
  // BFI's: rc[7:0] and rc[15:8].
  logic [7:0] bfi_pos, bfi_len;
  assign bfi_pos = c_i[7:0];
  assign bfi_len = c_i[15:8];

  // The shift: BFE's a right by its position, BFI's a left by its (a reversed, shifted
  // right, reversed back after stage 2); a position past 31 shifts everything out.
  function automatic logic [31:0] reversed(logic [31:0] x);
    for (int i = 0; i < 32; i++) reversed[i] = x[31 - i];
  endfunction
  logic [31:0] sh_x;
  logic [7:0]  sh_pos;
  assign sh_x   = is_bfi ? reversed(a_i) : a_i;
  assign sh_pos = is_bfi ? bfi_pos : bfe_pos;

  // BFE: the field's top bit, pos + len - 1 (its sign with sgn, a[31] past the word); the
  // bits kept, min(len, 32 - pos), the rest the sign. BFI: the mask's ends, pos and
  // pos + len.
  logic [8:0] bfe_top, bfi_end;
  logic [5:0] bfe_avail, bfe_keep;
  assign bfe_top   = 9'(bfe_pos) + 9'(bfe_len) - 9'd1;
  assign bfe_avail = (bfe_pos > 8'd31) ? 6'd0 : 6'd32 - 6'(bfe_pos);
  assign bfe_keep  = (bfe_len < 8'(bfe_avail)) ? bfe_len[5:0] : bfe_avail;
  assign bfi_end   = 9'(bfi_pos) + 9'(bfi_len);

  // POPC: each byte's count.
  logic [15:0] popc_bytes;
  always_comb begin
    for (int k = 0; k < 4; k++) begin
      popc_bytes[4*k +: 4] = '0;
      for (int i = 0; i < 8; i++) popc_bytes[4*k +: 4] = popc_bytes[4*k +: 4] + 4'(a_i[8*k + i]);
    end
  end

  // CLZ and FLO: the most significant one of a, or for FLO.sgn of a negative a, of ~a:
  // in each byte, whether it has one and where.
  logic [31:0] lead_in;
  logic [3:0]  lead_any;
  logic [11:0] lead_at;
  assign lead_in = (is_flo && sgn && a_i[31]) ? ~a_i : a_i;
  always_comb begin
    for (int k = 0; k < 4; k++) begin
      lead_any[k] = lead_in[8*k +: 8] != '0;
      lead_at[3*k +: 3] = '0;
      for (int i = 0; i < 8; i++) begin
        if (lead_in[8*k + i]) lead_at[3*k +: 3] = 3'(i);
      end
    end
  end

  // PRMT and PRMTI: four of the eight bytes of b:a, each by a 3-bit index, one replaced by
  // its sign where the default mode's selector says (bit 3 of its nibble). The selector is
  // rc, or PRMTI's imm16; the other modes read its low two bits.
  logic [15:0] prmt_sel;
  logic [1:0]  prmt_s;
  logic [sgpu_isa_pkg::PMODE_MSB-sgpu_isa_pkg::PMODE_LSB:0] prmt_mode;
  logic [11:0] prmt_idx;
  logic [3:0]  prmt_rep;
  assign prmt_sel  = (op == sgpu_isa_pkg::OP_PRMTI)
                   ? instr_i[sgpu_isa_pkg::IMM16_MSB:sgpu_isa_pkg::IMM16_LSB] : c_i[15:0];
  assign prmt_s    = prmt_sel[1:0];
  assign prmt_mode = (op == sgpu_isa_pkg::OP_PRMTI)
                   ? instr_i[sgpu_isa_pkg::PMODEI_MSB:sgpu_isa_pkg::PMODEI_LSB]
                   : instr_i[sgpu_isa_pkg::PMODE_MSB:sgpu_isa_pkg::PMODE_LSB];
  always_comb begin
    prmt_idx = '0;
    prmt_rep = '0;
    for (int k = 0; k < 4; k++) begin
      unique case (prmt_mode)
        sgpu_isa_pkg::PMODE_DEFAULT: begin
          prmt_idx[3*k +: 3] = prmt_sel[4*k +: 3];
          prmt_rep[k]        = prmt_sel[4*k + 3];
        end
        sgpu_isa_pkg::PMODE_F4E: prmt_idx[3*k +: 3] = 3'(prmt_s) + 3'(k);
        sgpu_isa_pkg::PMODE_B4E: prmt_idx[3*k +: 3] = 3'(prmt_s) - 3'(k);
        sgpu_isa_pkg::PMODE_RC8: prmt_idx[3*k +: 3] = 3'(prmt_s);
        // Byte k is max(s, k) for ecl, min(s, k) for ecr (PTX's tables; s is at most 3).
        sgpu_isa_pkg::PMODE_ECL: prmt_idx[3*k +: 3] = (prmt_s > 2'(k)) ? 3'(prmt_s) : 3'(k);
        sgpu_isa_pkg::PMODE_ECR: prmt_idx[3*k +: 3] = (prmt_s < 2'(k)) ? 3'(prmt_s) : 3'(k);
        // Bytes 2s, 2s + 1, 2s, 2s + 1 (s's low bit).
        sgpu_isa_pkg::PMODE_RC16: prmt_idx[3*k +: 3] = {1'b0, prmt_s[0], 1'(k)};
        default: ;
      endcase
    end
  end

  // I2I: the source's low bits (64-bit types: the register's 32) extended by its sign, and
  // the destination's range (64-bit types: 32 bits').
  logic [sgpu_isa_pkg::IFROM_MSB-sgpu_isa_pkg::IFROM_LSB:0] cvt_from;
  logic [sgpu_isa_pkg::ITO_MSB-sgpu_isa_pkg::ITO_LSB:0]     cvt_to;
  logic signed [32:0] cvt_in, cvt_lo, cvt_hi;
  assign cvt_from = instr_i[sgpu_isa_pkg::IFROM_MSB:sgpu_isa_pkg::IFROM_LSB];
  assign cvt_to   = instr_i[sgpu_isa_pkg::ITO_MSB:sgpu_isa_pkg::ITO_LSB];
  // x's low bits of the type ty, extended by its sign (64-bit types: the register's 32):
  // the source's value, and the destination's from its clamped value.
  function automatic logic [32:0] typed(logic [2:0] ty, logic [31:0] x);
    unique case (ty)
      sgpu_isa_pkg::ITY_U8:  typed = {25'd0, x[7:0]};
      sgpu_isa_pkg::ITY_S8:  typed = {{25{x[7]}}, x[7:0]};
      sgpu_isa_pkg::ITY_U16: typed = {17'd0, x[15:0]};
      sgpu_isa_pkg::ITY_S16: typed = {{17{x[15]}}, x[15:0]};
      sgpu_isa_pkg::ITY_U32, sgpu_isa_pkg::ITY_U64: typed = {1'b0, x};
      default:               typed = {x[31], x};  // ITY_S32, ITY_S64
    endcase
  endfunction

  always_comb begin
    cvt_in = typed(cvt_from, a_i);
    unique case (cvt_to)
      sgpu_isa_pkg::ITY_U8:  {cvt_lo, cvt_hi} = {33'sd0, 33'sd255};
      sgpu_isa_pkg::ITY_S8:  {cvt_lo, cvt_hi} = {-33'sd128, 33'sd127};
      sgpu_isa_pkg::ITY_U16: {cvt_lo, cvt_hi} = {33'sd0, 33'sd65535};
      sgpu_isa_pkg::ITY_S16: {cvt_lo, cvt_hi} = {-33'sd32768, 33'sd32767};
      sgpu_isa_pkg::ITY_U32, sgpu_isa_pkg::ITY_U64: {cvt_lo, cvt_hi} = {33'sd0, 33'sd4294967295};
      sgpu_isa_pkg::ITY_S32, sgpu_isa_pkg::ITY_S64:
        {cvt_lo, cvt_hi} = {-33'sd2147483648, 33'sd2147483647};
      default:               {cvt_lo, cvt_hi} = '0;
    endcase
  end

  // The stage's register: what stage 2 needs. (The operands go on: BFE's sign bit and
  // BFI's b are in them, and BREV and PRMT read them.)
  localparam int unsigned TOW = sgpu_isa_pkg::ITO_MSB - sgpu_isa_pkg::ITO_LSB + 1;
  localparam int unsigned S1W = 8 + 2 + 32 + 5 + 1 + 9 + 1 + 6 + 9 + 8 + 16 + 4 + 12 + 12
                                + 4 + 33 * 3 + TOW + 64;
  logic [S1W-1:0] s1_q;
  logic           v1_q;
  logic           bfe1, bfi1, popc1, lead1, flo1, brev1, prmt1, i2i1, shamt1, sat1;
  logic [31:0]    sh_x1, a1, b1;
  logic [4:0]     sh_n1;
  logic           sh_out1;       // the position is past 31: everything shifted out
  logic [8:0]     bfe_top1, bfi_end1;
  logic           bfe_signed1;   // sgn and a length other than 0
  logic [5:0]     bfe_keep1;
  logic [7:0]     bfi_pos1;
  logic [15:0]    popc_bytes1;
  logic [3:0]     lead_any1;
  logic [11:0]    lead_at1, prmt_idx1;
  logic [3:0]     prmt_rep1;
  logic signed [32:0] cvt_in1, cvt_lo1, cvt_hi1;
  logic [sgpu_isa_pkg::ITO_MSB-sgpu_isa_pkg::ITO_LSB:0] cvt_to1;
  assign {bfe1, bfi1, popc1, lead1, flo1, brev1, prmt1, i2i1, shamt1, sat1, sh_x1, sh_n1,
          sh_out1, bfe_top1, bfe_signed1, bfe_keep1, bfi_end1, bfi_pos1, popc_bytes1,
          lead_any1, lead_at1, prmt_idx1, prmt_rep1, cvt_in1, cvt_lo1, cvt_hi1, cvt_to1, a1,
          b1} = s1_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_q <= '0;
      v1_q <= 1'b0;
    end else begin
      v1_q <= valid_i;
      if (valid_i) begin
        s1_q <= {is_bfe, is_bfi, is_popc, is_lead, is_flo, is_brev, is_prmt, is_i2i, shamt,
                 sat, sh_x, sh_pos[4:0], sh_pos > 8'd31, bfe_top, sgn && bfe_len != 8'd0,
                 bfe_keep, bfi_end, bfi_pos, popc_bytes, lead_any, lead_at, prmt_idx, prmt_rep,
                 cvt_in, cvt_lo, cvt_hi, cvt_to, a_i, b_i};
      end
    end
  end

  // ------------------------------------------------------------------------------------
  // Stage 2
  // ------------------------------------------------------------------------------------
  logic [31:0] shifted, bfe_kept, bfi_mask;
  logic        bfe_sbit;
  assign shifted  = sh_out1 ? '0 : sh_x1 >> sh_n1;
  assign bfe_sbit = bfe_signed1 && (bfe_top1 > 9'd31 ? a1[31] : a1[bfe_top1[4:0]]);
  assign bfe_kept = ~(32'hffff_ffff << bfe_keep1);
  assign bfi_mask = ~(32'hffff_ffff << bfi_end1) & (32'hffff_ffff << bfi_pos1);

  logic [5:0] popc;
  assign popc = 6'(popc_bytes1[3:0]) + 6'(popc_bytes1[7:4]) + 6'(popc_bytes1[11:8])
              + 6'(popc_bytes1[15:12]);

  logic [4:0] lead_msb;
  always_comb begin
    lead_msb = '0;
    for (int k = 0; k < 4; k++) begin
      if (lead_any1[k]) lead_msb = {2'(k), lead_at1[3*k +: 3]};
    end
  end

  logic [63:0] prmt_bytes;
  logic [31:0] prmt_picked, prmt;
  assign prmt_bytes = {b1, a1};
  always_comb begin
    for (int k = 0; k < 4; k++) begin
      prmt_picked[8*k +: 8] = prmt_bytes[8 * prmt_idx1[3*k +: 3] +: 8];
      prmt[8*k +: 8] = prmt_rep1[k] ? {8{prmt_picked[8*k + 7]}} : prmt_picked[8*k +: 8];
    end
  end

  logic [31:0] cvt_val;
  always_comb begin
    cvt_val = 32'(cvt_in1);
    if (sat1) begin
      if (cvt_in1 < cvt_lo1) cvt_val = 32'(cvt_lo1);
      else if (cvt_in1 > cvt_hi1) cvt_val = 32'(cvt_hi1);
    end
  end

  localparam int unsigned S2W = 8 + 1 + 32 * 4 + 1 + 6 + 5 + 1 + 32 + TOW + 64;
  logic [S2W-1:0] s2_q;
  logic           bfe2, bfi2, popc2, lead2, flo2, brev2, prmt2, i2i2, shamt2;
  logic [31:0]    shifted2, bfe_kept2, bfi_mask2, prmt2_d, cvt_val2, a2, b2;
  logic           bfe_sbit2, lead_none2;
  logic [5:0]     popc2_d;
  logic [4:0]     lead_msb2;
  logic [sgpu_isa_pkg::ITO_MSB-sgpu_isa_pkg::ITO_LSB:0] cvt_to2;
  assign {bfe2, bfi2, popc2, lead2, flo2, brev2, prmt2, i2i2, shamt2, shifted2, bfe_kept2,
          bfi_mask2, prmt2_d, bfe_sbit2, popc2_d, lead_msb2, lead_none2, cvt_val2, cvt_to2, a2,
          b2} = s2_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s2_q <= '0;
    end else if (v1_q) begin
      s2_q <= {bfe1, bfi1, popc1, lead1, flo1, brev1, prmt1, i2i1, shamt1, shifted, bfe_kept,
               bfi_mask, prmt, bfe_sbit, popc, lead_msb, lead_any1 == '0, cvt_val, cvt_to1, a1,
               b1};
    end
  end

  // ------------------------------------------------------------------------------------
  // After stage 2: each result, and the choice.
  // ------------------------------------------------------------------------------------
  logic [31:0] bfe, bfi, lead, cvt;
  logic [4:0]  lead_zeros;
  assign bfe = (shifted2 & bfe_kept2) | ({32{bfe_sbit2}} & ~bfe_kept2);
  assign bfi = (b2 & ~bfi_mask2) | (reversed(shifted2) & bfi_mask2);
  assign lead_zeros = 5'd31 - lead_msb2;
  // CLZ: 32 for zero; FLO: all ones for none, else the position (shamt: as a shift).
  assign lead = !flo2 ? (lead_none2 ? 32'd32 : 32'(lead_zeros))
              : lead_none2 ? '1 : shamt2 ? 32'(lead_zeros) : 32'(lead_msb2);
  logic [32:0] cvt_typed;
  assign cvt_typed = typed(cvt_to2, cvt_val2);
  assign cvt = cvt_typed[31:0];

  assign d_o = ({32{bfe2}} & bfe) | ({32{bfi2}} & bfi) | ({32{popc2}} & 32'(popc2_d))
             | ({32{lead2}} & lead) | ({32{brev2}} & reversed(a2)) | ({32{prmt2}} & prmt2_d)
             | ({32{i2i2}} & cvt);

  // The fields of the other instructions, rc's high half (BFI reads 16 bits of it), and
  // the typed value's sign above the 32 bits.
  logic unused;
  assign unused = ^{instr_i, c_i[31:16], cvt_typed[32]};

endmodule
