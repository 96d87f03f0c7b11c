// Core v2's integer ALU of one lane (docs/adr/0008-core-v2-pipeline.md, "Units and their
// rates"): what the golden model's `compute` (sim/src/exec/int.rs, with the per-lane rules
// of sim/src/lane.rs) writes in one lane for MOV, MOV32I, SEL, PLOP, IADD, IADD32I, IMUL,
// IMUL32I, IMAD, IMADW, IMNMX, IABS, ISETP, LOP3, LOP32I, SHL, SHR and SHF: the operations
// every lane has. The bit-field, population, byte-permute and I2I operations are the
// shared unit's (sgpu_core_pkg::shared_op); an assertion says that no other opcode comes.
//
// Pipelined, an operation a cycle, every operation LATENCY (4) cycles from valid_i to
// valid_o, so that the lane's write-back port is never asked for twice in a cycle:
//
//   cycle 0 (in):  operand choice (immediates), decode into the stages' controls, the
//                  shifter's input turned around for a left shift, the adder's inputs
//   cycle 1 (s1):  the four 16 x 16 partial products (MULT18X18D), the signed product's
//                  correction, the adders, the equality, LOP3, the shift
//   cycle 2 (s2):  the product summed (two carry-save layers, one 64-bit adder); the
//                  simple operations' result, carry and predicates chosen
//   cycle 3 (s3):  IMAD's addend and carry in (IMUL's is zero); the result
//   cycle 4 (out): registered outputs, valid_o
//
// IMADW (rd:rd+1 = ra * rb + rc:rc+1) comes as two operations, its two passes (the core
// issues an instruction whose registers are pairs once for each word, docs/adr/0008
// "Pairs"): the first (hi_pass_i low) is the product's low word plus rc; the second
// (hi_pass_i high) the product's high word plus rc+1 (on c_i) plus the first's carry. So a
// lane reads and writes one word of each register a cycle, as the register file gives
// them. The carry waits in stage 3 in a bit a beat (beat_i), since the second pass of a
// beat may come as soon as the next cycle (one beat at 32 lanes), before the first's carry
// could come out and go back in.
//
// The first core's sgpu_int_alu computes the same in one cycle, its 32 x 32 multiply in the
// result path (about 40 MHz on ECP5); here no stage has more than one carry chain after a few
// LUT levels. The stages' registers load only when their operation is valid, so an idle
// lane's data path does not toggle (nor does Verilator evaluate it); the outputs are reset
// to zero and hold the last result between results.
//
// Package names are written out in full and enumerated fields compared as plain vectors, as
// sgpu_int_alu does, so that yosys reads the module as Verilator does.
module sgpu_lane_alu #(
  parameter int unsigned BEATS = 4,  // a warp instruction's beats (32 / LANES)
  localparam int unsigned BW = (BEATS > 1) ? $clog2(BEATS) : 1
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        valid_i,
  input  logic [BW-1:0] beat_i,   // IMADW's: which beat's carry its passes keep
  input  logic [63:0] instr_i,
  input  logic [31:0] a_i,      // ra (RZ reads 0)
  input  logic [31:0] b_i,      // rb as read; ignored when bi makes rb an immediate
  input  logic [31:0] c_i,      // rc as read (IMADW's second pass: rc+1); ignored when ci
                                // makes rc an immediate
  input  logic        hi_pass_i,  // IMADW's second pass
  input  logic        carry_i,  // the lane's carry bit
  input  logic        pa_i,     // the predicate operand pa, its negation applied
  input  logic        pc_i,     // the predicate operand pc, its negation applied
  output logic        valid_o,
  output logic [31:0] d_o,      // rd (IMADW's second pass: rd+1)
  output logic        carry_o,  // carry out (IADD, IMAD; for .cc forms)
  output logic        pd_o,     // pd (ISETP, PLOP)
  output logic        pq_o      // pq (ISETP)
);

  localparam int unsigned LATENCY = 4;

  // Which stages hold a valid operation: bit k is stage k + 1's (the last, the outputs').
  logic [LATENCY-1:0] valid_q;
  logic               v1_q, v2_q, v3_q;
  assign {v3_q, v2_q, v1_q} = valid_q[2:0];
  assign valid_o = valid_q[LATENCY-1];

  logic [sgpu_isa_pkg::OP_MSB-sgpu_isa_pkg::OP_LSB:0] op;
  assign op = instr_i[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB];

  // The guard is the issue stage's business, and register numbers other than immediates'
  // are the register file's.
  logic unused_instr;
  assign unused_instr = ^{instr_i[sgpu_isa_pkg::PGN_MSB:sgpu_isa_pkg::PGN_LSB],
                          instr_i[sgpu_isa_pkg::PG_MSB:sgpu_isa_pkg::PG_LSB],
                          instr_i[sgpu_isa_pkg::RD_MSB:sgpu_isa_pkg::RD_LSB],
                          instr_i[sgpu_isa_pkg::RA_MSB:sgpu_isa_pkg::RA_LSB]};

  function automatic logic is(logic [sgpu_isa_pkg::OP_MSB-sgpu_isa_pkg::OP_LSB:0] o,
                              logic [sgpu_isa_pkg::OP_MSB-sgpu_isa_pkg::OP_LSB:0] name);
    is = o == name;
  endfunction

  // How stage 3 forms the result: the simple operations' result from stage 2, or a word of
  // the product plus an addend (IMUL, IMUL32I, IMAD, IMADW's passes).
  typedef enum logic [0:0] {
    FINAL_SIMPLE,
    FINAL_MAD
  } final_e;

  // How stage 2 chooses the simple operations' result.
  typedef enum logic [2:0] {
    PICK_LOGIC,   // MOV, MOV32I, SEL, LOP3, LOP32I: a LUT of a, b, c
    PICK_ADD,     // IADD, IADD32I, IABS: the adder
    PICK_SAT,     // IADD.sat: the signed sum clamped
    PICK_MNMX,    // IMNMX: a or b by the comparison
    PICK_SHIFT,   // SHL, SHR, SHF: the shifter
    PICK_ISETP,   // pd, pq
    PICK_PLOP     // pd
  } pick_e;

  // What an operation's later stages need of its word and its predicates and carry, carried
  // down the stages beside its data.
  typedef struct packed {
    logic   sh_right, sh_high;  // the shift: right, and SHF's high word
    logic   sgn, hi;            // signed multiply or comparison; the product's high word
    logic   mad_cin;            // IMAD's carry in (with x)
    logic   madw_lo, madw_hi;   // IMADW's passes: its carry kept, or added
    logic [BW-1:0] beat;
    logic   carry_out;          // IADD and IMAD give a carry out
    logic [sgpu_isa_pkg::ICMP_MSB-sgpu_isa_pkg::ICMP_LSB:0] icmp;
    logic [sgpu_isa_pkg::BOP_MSB-sgpu_isa_pkg::BOP_LSB:0]   bop;
    logic   x_form, max, pa, pc;
    final_e fin;
    pick_e  pick;
  } ctrl_t;

  // ------------------------------------------------------------------------------------
  // Cycle 0: operands and decode
  // ------------------------------------------------------------------------------------

  // Operands: an `rb/bi` or `rc/ci` operand with its flag set is the 8-bit register field
  // zero-extended (sgpu_isa's RegOrImm::Imm). The 32-bit immediate of MOV32I, IADD32I,
  // IMUL32I and LOP32I is their b. IMADW's addend is a register (ci is not its field).
  logic        imm_op;
  logic [31:0] b_val, c_val;
  assign imm_op = is(op, sgpu_isa_pkg::OP_MOV32I) || is(op, sgpu_isa_pkg::OP_IADD32I)
                  || is(op, sgpu_isa_pkg::OP_IMUL32I) || is(op, sgpu_isa_pkg::OP_LOP32I);
  assign b_val = imm_op ? instr_i[sgpu_isa_pkg::IMM32_MSB:sgpu_isa_pkg::IMM32_LSB]
               : instr_i[sgpu_isa_pkg::BI_LSB]
               ? 32'(instr_i[sgpu_isa_pkg::RB_MSB:sgpu_isa_pkg::RB_LSB]) : b_i;
  assign c_val = instr_i[sgpu_isa_pkg::CI_LSB] && !is(op, sgpu_isa_pkg::OP_IMADW)
               ? 32'(instr_i[sgpu_isa_pkg::RC_MSB:sgpu_isa_pkg::RC_LSB]) : c_i;

  // The adder: x + y + cin. IADD: a + b, or with nb a + ~b + 1, the carry in replacing the
  // 0 or 1 with x; IADD32I: a + imm; ISETP and IMNMX compare by a + ~b + 1; IABS is
  // 0 + ~a + 1 for a negative a, else a + 0.
  logic        add_neg;
  logic [31:0] add_x, add_y;
  logic        add_cin;
  always_comb begin
    add_neg = is(op, sgpu_isa_pkg::OP_ISETP) || is(op, sgpu_isa_pkg::OP_IMNMX)
              || (is(op, sgpu_isa_pkg::OP_IADD) && instr_i[sgpu_isa_pkg::NB_LSB]);
    add_x = a_i;
    add_y = add_neg ? ~b_val : b_val;
    add_cin = (is(op, sgpu_isa_pkg::OP_IADD) && instr_i[sgpu_isa_pkg::X_LSB]) ? carry_i
            : add_neg;
    if (is(op, sgpu_isa_pkg::OP_IABS)) begin
      add_x = a_i[31] ? '0 : a_i;
      add_y = a_i[31] ? ~a_i : '0;
      add_cin = a_i[31];
    end
  end

  // The LUT of LOP3, and the other operations that are a function of a, b and c bit by bit
  // (bit {a, b, c} of the LUT): LOP32I's and, or, xor; MOV (a), MOV32I (b), SEL (a or b).
  localparam logic [7:0] LUT_A = 8'hf0, LUT_B = 8'hcc;
  logic [7:0] lut;
  always_comb begin
    lut = instr_i[sgpu_isa_pkg::LUT_MSB:sgpu_isa_pkg::LUT_LSB];
    if (is(op, sgpu_isa_pkg::OP_LOP32I)) begin
      unique case (instr_i[sgpu_isa_pkg::LOP2_MSB:sgpu_isa_pkg::LOP2_LSB])
        sgpu_isa_pkg::LOP2_AND: lut = LUT_A & LUT_B;
        sgpu_isa_pkg::LOP2_OR:  lut = LUT_A | LUT_B;
        sgpu_isa_pkg::LOP2_XOR: lut = LUT_A ^ LUT_B;
        default:                lut = '0;
      endcase
    end else if (is(op, sgpu_isa_pkg::OP_MOV)) begin
      lut = LUT_A;
    end else if (is(op, sgpu_isa_pkg::OP_MOV32I)) begin
      lut = LUT_B;
    end else if (is(op, sgpu_isa_pkg::OP_SEL)) begin
      lut = pc_i ? LUT_A : LUT_B;
    end
  end

  // The shifter's input (sgpu_int_alu's "Shifting"): SHL, SHR and SHF shift hi:lo right
  // (arithmetically with sgn) or left, by b clamped to 64; SHL and SHR have hi 0 (or a's
  // sign for SHR.sgn) and keep the low word. One right shifter does both: a left shift
  // reverses the bits before and after. Here the value goes in turned around already, with
  // the bit that fills from the left.
  logic [63:0] sh_in, sh_x;
  logic        sh_right, sh_fill;
  logic [6:0]  sh_n;
  always_comb begin
    sh_in = {32'h0, a_i};
    sh_right = 1'b0;
    if (is(op, sgpu_isa_pkg::OP_SHR)) begin
      sh_in    = {{32{instr_i[sgpu_isa_pkg::SGN_LSB] & a_i[31]}}, a_i};
      sh_right = 1'b1;
    end else if (is(op, sgpu_isa_pkg::OP_SHF)) begin
      sh_in    = {c_i, a_i};
      sh_right = instr_i[sgpu_isa_pkg::SHR_LSB];
    end
    sh_fill = sh_right & instr_i[sgpu_isa_pkg::SGN_LSB] & sh_in[63];
    for (int i = 0; i < 64; i++) sh_x[i] = sh_right ? sh_in[i] : sh_in[63 - i];
    sh_n = (b_val > 32'd64) ? 7'd64 : b_val[6:0];
  end

  logic   mad_op, madw, no_addend;
  final_e fin;
  pick_e  pick;
  always_comb begin
    madw = is(op, sgpu_isa_pkg::OP_IMADW);
    no_addend = is(op, sgpu_isa_pkg::OP_IMUL) || is(op, sgpu_isa_pkg::OP_IMUL32I);
    mad_op = no_addend || is(op, sgpu_isa_pkg::OP_IMAD) || madw;
    fin = mad_op ? FINAL_MAD : FINAL_SIMPLE;
    unique case (op)
      sgpu_isa_pkg::OP_IADD:
        pick = instr_i[sgpu_isa_pkg::SAT_LSB] ? PICK_SAT : PICK_ADD;
      sgpu_isa_pkg::OP_IADD32I, sgpu_isa_pkg::OP_IABS: pick = PICK_ADD;
      sgpu_isa_pkg::OP_IMNMX: pick = PICK_MNMX;
      sgpu_isa_pkg::OP_SHL, sgpu_isa_pkg::OP_SHR, sgpu_isa_pkg::OP_SHF: pick = PICK_SHIFT;
      sgpu_isa_pkg::OP_ISETP: pick = PICK_ISETP;
      sgpu_isa_pkg::OP_PLOP:  pick = PICK_PLOP;
      default:                pick = PICK_LOGIC;
    endcase
  end

  // Stage 1's registers.
  logic [31:0] a1_q, b1_q, c1_q;
  logic [31:0] x1_q, y1_q;
  logic        cin1_q, nb1_q;
  logic [7:0]  lut1_q;
  logic [64:0] sh1_q;       // the fill bit above the (turned around) value
  logic [6:0]  sh_n1_q;
  ctrl_t       ctrl, ctrl1_q;

  always_comb begin
    ctrl.sh_right  = sh_right;
    ctrl.sh_high   = is(op, sgpu_isa_pkg::OP_SHF) && instr_i[sgpu_isa_pkg::HI_LSB];
    // IMUL32I keeps the low word, the same signed or not (its sgn bit is immediate).
    ctrl.sgn       = instr_i[sgpu_isa_pkg::SGN_LSB] && !is(op, sgpu_isa_pkg::OP_IMUL32I);
    // IMADW has no hi or x field: its pass says which word, and the second adds the carry.
    ctrl.hi        = madw ? hi_pass_i
                   : instr_i[sgpu_isa_pkg::HI_LSB] && !is(op, sgpu_isa_pkg::OP_IMUL32I);
    ctrl.mad_cin   = is(op, sgpu_isa_pkg::OP_IMAD) && instr_i[sgpu_isa_pkg::X_LSB] && carry_i;
    ctrl.madw_lo   = madw && !hi_pass_i;
    ctrl.madw_hi   = madw && hi_pass_i;
    ctrl.beat      = beat_i;
    ctrl.carry_out = is(op, sgpu_isa_pkg::OP_IADD) || is(op, sgpu_isa_pkg::OP_IMAD);
    ctrl.icmp      = instr_i[sgpu_isa_pkg::ICMP_MSB:sgpu_isa_pkg::ICMP_LSB];
    ctrl.bop       = instr_i[sgpu_isa_pkg::BOP_MSB:sgpu_isa_pkg::BOP_LSB];
    ctrl.x_form    = instr_i[sgpu_isa_pkg::X_LSB];
    ctrl.max       = instr_i[sgpu_isa_pkg::MAX_LSB];
    ctrl.pa        = pa_i;
    ctrl.pc        = pc_i;
    ctrl.fin       = fin;
    ctrl.pick      = pick;
  end

  always_ff @(posedge clk_i) begin
    if (valid_i) begin
      a1_q    <= a_i;
      b1_q    <= b_val;
      // IMUL's addend is zero: it is IMAD's word with nothing added.
      c1_q    <= no_addend ? '0 : c_val;
      x1_q    <= add_x;
      y1_q    <= add_y;
      cin1_q  <= add_cin;
      nb1_q   <= instr_i[sgpu_isa_pkg::NB_LSB];
      lut1_q  <= lut;
      sh1_q   <= {sh_fill, sh_x};
      sh_n1_q <= sh_n;
      ctrl1_q <= ctrl;
    end
  end

  // ------------------------------------------------------------------------------------
  // Cycle 1: partial products, adders, equality, LUT, shift
  // ------------------------------------------------------------------------------------

  // The unsigned 64-bit product of the words is four 16 x 16 products, each a MULT18X18D.
  // With sgn the signed product differs only in the high word: a signed operand is its word
  // less 2^32 when its top bit is set, so b (a) times that 2^32 comes off the high word for
  // a's (b's) sign, modulo 2^64 (sgpu_int_alu's "Multiplication").
  logic [31:0] pp_ll, pp_lh, pp_hl, pp_hh, mul_fix;
  assign pp_ll = 32'(a1_q[15:0]) * 32'(b1_q[15:0]);
  assign pp_lh = 32'(a1_q[15:0]) * 32'(b1_q[31:16]);
  assign pp_hl = 32'(a1_q[31:16]) * 32'(b1_q[15:0]);
  assign pp_hh = 32'(a1_q[31:16]) * 32'(b1_q[31:16]);
  assign mul_fix = (ctrl1_q.sgn && a1_q[31] ? b1_q : '0)
                 + (ctrl1_q.sgn && b1_q[31] ? a1_q : '0);

  // IADD.sat: the exact signed a + b or a - b (without the carry in) in 34 bits.
  logic [32:0] add_sum;
  logic [33:0] sat_sum;
  assign add_sum = {1'b0, x1_q} + {1'b0, y1_q} + 33'(cin1_q);
  assign sat_sum = 34'($signed(x1_q)) + 34'($signed(y1_q)) + 34'(nb1_q);

  logic [31:0] lop;
  always_comb begin
    for (int i = 0; i < 32; i++) lop[i] = lut1_q[{a1_q[i], b1_q[i], c1_q[i]}];
  end

  // The fill bit shifted out of the top is not needed.
  logic [64:0] sh_wide;
  logic        unused_fill;
  assign sh_wide = $signed(sh1_q) >>> sh_n1_q;
  assign unused_fill = sh_wide[64];

  logic [31:0] pp_ll2_q, pp_lh2_q, pp_hl2_q, pp_hh2_q, fix2_q;
  logic [31:0] a2_q, b2_q, c2_q, lop2_q;
  logic [32:0] add2_q;
  logic [33:0] sat2_q;
  logic [63:0] sh2_q;
  logic        eq2_q;
  ctrl_t       ctrl2_q;

  always_ff @(posedge clk_i) begin
    if (v1_q) begin
      pp_ll2_q <= pp_ll;
      pp_lh2_q <= pp_lh;
      pp_hl2_q <= pp_hl;
      pp_hh2_q <= pp_hh;
      fix2_q   <= mul_fix;
      a2_q     <= a1_q;
      b2_q     <= b1_q;
      c2_q     <= c1_q;
      lop2_q   <= lop;
      add2_q   <= add_sum;
      sat2_q   <= sat_sum;
      sh2_q    <= sh_wide[63:0];
      eq2_q    <= a1_q == b1_q;
      ctrl2_q  <= ctrl1_q;
    end
  end

  // ------------------------------------------------------------------------------------
  // Cycle 2: the product summed; the simple operations' result
  // ------------------------------------------------------------------------------------

  // product = {hh, ll} + lh << 16 + hl << 16 - fix << 32: the last as its complement
  // {~fix, all ones} plus one, the one the carry-save layers' second carry word has free
  // at bit 0; two layers of 3:2 compressors, then one adder.
  logic [63:0] t0, t1, t2, t3, s_a, c_a, s_b, c_b, product;
  always_comb begin
    t0 = {pp_hh2_q, pp_ll2_q};
    t1 = {16'h0, pp_lh2_q, 16'h0};
    t2 = {16'h0, pp_hl2_q, 16'h0};
    t3 = {~fix2_q, 32'hffff_ffff};
    s_a = t0 ^ t1 ^ t2;
    c_a = {(t0[62:0] & t1[62:0]) | (t0[62:0] & t2[62:0]) | (t1[62:0] & t2[62:0]), 1'b0};
    s_b = s_a ^ c_a ^ t3;
    c_b = {(s_a[62:0] & c_a[62:0]) | (s_a[62:0] & t3[62:0]) | (c_a[62:0] & t3[62:0]), 1'b1};
    product = s_b + c_b;
  end

  // a against b (IMNMX, ISETP), signed with sgn, from a + ~b + 1: unsigned, a < b when it
  // borrows (no carry out); signed, when the signs differ a < b if a is the negative one,
  // else (no overflow then) when the difference is negative.
  logic lt;
  assign lt = !ctrl2_q.sgn ? !add2_q[32] : (a2_q[31] != b2_q[31]) ? a2_q[31] : add2_q[31];

  // ISETP's comparison (pc is the low words' result in the .x form).
  logic icmp_result;
  assign icmp_result = sgpu_core_pkg::icmp_holds(ctrl2_q.icmp, ctrl2_q.x_form, ctrl2_q.pc,
                                                 eq2_q, lt);

  logic [63:0] sh_out;
  always_comb begin
    for (int i = 0; i < 64; i++) sh_out[i] = ctrl2_q.sh_right ? sh2_q[i] : sh2_q[63 - i];
  end

  logic [31:0] simple_d;
  logic        simple_carry, simple_pd, simple_pq;
  always_comb begin
    simple_d = '0;
    simple_carry = ctrl2_q.carry_out & add2_q[32];
    simple_pd = 1'b0;
    simple_pq = 1'b0;
    unique case (ctrl2_q.pick)
      PICK_LOGIC: simple_d = lop2_q;
      PICK_ADD:   simple_d = add2_q[31:0];
      // Clamped to the 32-bit signed range when the 34 bits do not fit in 32.
      PICK_SAT: begin
        if (sat2_q[33:31] == 3'b000 || sat2_q[33:31] == 3'b111) begin
          simple_d = sat2_q[31:0];
        end else begin
          simple_d = sat2_q[33] ? 32'h8000_0000 : 32'h7fff_ffff;
        end
      end
      PICK_MNMX:  simple_d = (lt != ctrl2_q.max) ? a2_q : b2_q;
      PICK_SHIFT: simple_d = ctrl2_q.sh_high ? sh_out[63:32] : sh_out[31:0];
      // The .x form writes the comparison and its negation; pc was its low words.
      PICK_ISETP: begin
        simple_pd = ctrl2_q.x_form ? icmp_result
                  : sgpu_core_pkg::bool_op(ctrl2_q.bop, icmp_result, ctrl2_q.pc);
        simple_pq = ctrl2_q.x_form ? !icmp_result
                  : sgpu_core_pkg::bool_op(ctrl2_q.bop, !icmp_result, ctrl2_q.pc);
      end
      PICK_PLOP:  simple_pd = sgpu_core_pkg::bool_op(ctrl2_q.bop, ctrl2_q.pa, ctrl2_q.pc);
      default: ;
    endcase
  end

  logic [63:0] product3_q;
  logic [31:0] c3_q, d3_q;
  logic        carry3_q, pd3_q, pq3_q, hi3_q, mad_cin3_q, madw_lo3_q, madw_hi3_q;
  logic [BW-1:0] beat3_q;
  final_e      fin3_q;

  always_ff @(posedge clk_i) begin
    if (v2_q) begin
      product3_q <= product;
      c3_q       <= c2_q;
      d3_q       <= simple_d;
      carry3_q   <= simple_carry;
      pd3_q      <= simple_pd;
      pq3_q      <= simple_pq;
      hi3_q      <= ctrl2_q.hi;
      mad_cin3_q <= ctrl2_q.mad_cin;
      madw_lo3_q <= ctrl2_q.madw_lo;
      madw_hi3_q <= ctrl2_q.madw_hi;
      beat3_q    <= ctrl2_q.beat;
      fin3_q     <= ctrl2_q.fin;
    end
  end

  // ------------------------------------------------------------------------------------
  // Cycle 3: IMAD's (IMUL's, IMADW's) word plus its addend
  // ------------------------------------------------------------------------------------

  // IMADW's low words' carry out, a bit a beat, from its first pass to its second.
  logic [BEATS-1:0] madw_carry_q;

  logic [32:0] mad_sum;
  assign mad_sum = {1'b0, hi3_q ? product3_q[63:32] : product3_q[31:0]} + {1'b0, c3_q}
                 + 33'(mad_cin3_q || (madw_hi3_q && madw_carry_q[beat3_q]));

  logic [31:0] d;
  logic        carry;
  assign {carry, d} = fin3_q == FINAL_MAD ? mad_sum : {carry3_q, d3_q};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= '0;
      {d_o, carry_o, pd_o, pq_o} <= '0;
      madw_carry_q <= '0;
    end else begin
      valid_q <= {valid_q[LATENCY-2:0], valid_i};
      if (v3_q && madw_lo3_q) madw_carry_q[beat3_q] <= mad_sum[32];
      if (v3_q) begin
        d_o     <= d;
        carry_o <= carry;
        pd_o    <= pd3_q;
        pq_o    <= pq3_q;
      end
    end
  end

  // ------------------------------------------------------------------------------------
  // Assertions
  // ------------------------------------------------------------------------------------

`ifndef SYNTHESIS
  // Only the lane operations come here; the shared unit computes the others.
  a_lane_ops_only: assert property (@(posedge clk_i) disable iff (!rst_ni)
      valid_i |-> (is(op, sgpu_isa_pkg::OP_MOV) || is(op, sgpu_isa_pkg::OP_MOV32I)
                   || is(op, sgpu_isa_pkg::OP_SEL) || is(op, sgpu_isa_pkg::OP_PLOP)
                   || is(op, sgpu_isa_pkg::OP_IADD) || is(op, sgpu_isa_pkg::OP_IADD32I)
                   || mad_op
                   || is(op, sgpu_isa_pkg::OP_IMNMX) || is(op, sgpu_isa_pkg::OP_IABS)
                   || is(op, sgpu_isa_pkg::OP_ISETP) || is(op, sgpu_isa_pkg::OP_LOP3)
                   || is(op, sgpu_isa_pkg::OP_LOP32I) || is(op, sgpu_isa_pkg::OP_SHL)
                   || is(op, sgpu_isa_pkg::OP_SHR) || is(op, sgpu_isa_pkg::OP_SHF)))
    else $error("sgpu_lane_alu: opcode %0d is not a lane operation", op);
  a_hi_pass_madw: assert property (@(posedge clk_i) disable iff (!rst_ni)
      valid_i && hi_pass_i |-> madw)
    else $error("sgpu_lane_alu: a second pass of opcode %0d, not IMADW", op);
`endif

endmodule
