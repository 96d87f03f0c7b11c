// One lane of the f32 unit's comparisons: FMNMX and FSETP, bit for bit what the golden
// model computes (sim/src/lane.rs: `fminmax`, `fcompare` and `logic`, on operands flushed by
// `.ftz` and, for FMNMX, made absolute as sim/src/exec/float.rs does). The outputs are zero
// for any other opcode.
//
// - FSETP: pd = (a fcmp b) bop pc and pq = !(a fcmp b) bop pc. The ordered comparisons are
//   false when either operand is NaN, the unordered ones (`equ` ... `geu`) true; `num` and
//   `nan` test for NaNs; +0 and -0 are equal.
// - FMNMX: the smaller (or with `max` the larger) of a and b, -0 below +0. A NaN operand
//   gives the other one, and the canonical NaN when both are NaN or with `.NaN`.
//
// The FMA's latency, so that the core takes every f32 result in the same cycle: the
// instruction given with en_i in cycle t has its results on d_o, pd_o and pq_o in cycle
// t + 4, and they are zero in every cycle that holds no result. The comparison is one
// 31-bit magnitude compare, computed in the first cycle; the other stages only hold it.
module sgpu_fcmp (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        en_i,     // an instruction for the lane this cycle
  input  logic [63:0] instr_i,
  input  logic [31:0] a_i,      // ra
  input  logic [31:0] b_i,      // rb
  input  logic        pc_i,     // FSETP's pc predicate (the unit applies pcn)
  output logic [31:0] d_o,      // FMNMX's rd, of the instruction four cycles before
  output logic        pd_o,     // FSETP's pd and pq, of the instruction four cycles before
  output logic        pq_o
);

  localparam logic [31:0] QNAN = 32'h7fff_ffff;  // the canonical NaN

  logic [sgpu_isa_pkg::OP_MSB-sgpu_isa_pkg::OP_LSB:0] op;
  assign op = instr_i[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB];

  logic fmnmx, fsetp;
  assign fmnmx = op == sgpu_isa_pkg::OP_FMNMX;
  assign fsetp = op == sgpu_isa_pkg::OP_FSETP;

  logic                                                 ftz, absa, absb, max, nan, pc;
  logic [sgpu_isa_pkg::FCMP_MSB-sgpu_isa_pkg::FCMP_LSB:0] fcmp;
  logic [sgpu_isa_pkg::BOP_MSB-sgpu_isa_pkg::BOP_LSB:0]   bop;
  assign ftz  = instr_i[sgpu_isa_pkg::FTZ_LSB];
  assign absa = fmnmx && instr_i[sgpu_isa_pkg::ABSA_LSB];
  assign absb = fmnmx && instr_i[sgpu_isa_pkg::ABSB_LSB];
  assign max  = instr_i[sgpu_isa_pkg::MAX_LSB];
  assign nan  = instr_i[sgpu_isa_pkg::NAN_LSB];
  assign fcmp = instr_i[sgpu_isa_pkg::FCMP_MSB:sgpu_isa_pkg::FCMP_LSB];
  assign bop  = instr_i[sgpu_isa_pkg::BOP_MSB:sgpu_isa_pkg::BOP_LSB];
  assign pc   = pc_i ^ instr_i[sgpu_isa_pkg::PCN_LSB];

  // The bits this unit does not read are the core's (guard, registers) or other forms'.
  logic unused_instr;
  assign unused_instr = ^instr_i;

  // An operand as the comparison sees it: a subnormal flushed to a zero of its sign with
  // `.ftz`, the sign cleared by an absolute value.
  function automatic logic [31:0] operand(logic [31:0] x, logic flush, logic abs);
    logic [31:0] v;
    v = (flush && x[30:23] == 8'h00) ? {x[31], 31'h0} : x;
    operand = {v[31] && !abs, v[30:0]};
  endfunction

  logic go;  // an instruction of this unit
  assign go = en_i && (fmnmx || fsetp);

  // The comparison computes only for an instruction of this unit and leaves its values
  // undefined otherwise: yosys takes the x as a don't-care (no logic), and the Verilated
  // core does not evaluate an idle unit in every cycle (hw/README.md).
  // How a and b compare: unordered when either is NaN, and otherwise equal (the same bits,
  // or both zeros), less or greater by sign and then magnitude (the larger magnitude is the
  // smaller value among negatives).
  logic [31:0] a, b;
  logic a_nan, b_nan, unordered, eq, lt, gt, mag_lt;
  always_comb begin
    {a, b, a_nan, b_nan, unordered, eq, lt, gt, mag_lt} = 'x;
    if (go) begin
      a = operand(a_i, ftz, absa);
      b = operand(b_i, ftz, absb);
      a_nan     = a[30:23] == 8'hff && a[22:0] != '0;
      b_nan     = b[30:23] == 8'hff && b[22:0] != '0;
      unordered = a_nan || b_nan;
      mag_lt    = a[30:0] < b[30:0];
      eq        = a == b || (a[30:0] == '0 && b[30:0] == '0);
      if (a[31] != b[31]) lt = a[31];
      else if (a[31]) lt = !mag_lt;
      else lt = mag_lt;
      lt = lt && !eq;
      gt = !lt && !eq;
    end
  end

  logic holds;  // a fcmp b
  always_comb begin
    holds = 1'bx;
    if (go) unique case (fcmp)
      sgpu_isa_pkg::FCMP_EQ:  holds = !unordered && eq;
      sgpu_isa_pkg::FCMP_NE:  holds = !unordered && !eq;
      sgpu_isa_pkg::FCMP_LT:  holds = !unordered && lt;
      sgpu_isa_pkg::FCMP_LE:  holds = !unordered && !gt;
      sgpu_isa_pkg::FCMP_GT:  holds = !unordered && gt;
      sgpu_isa_pkg::FCMP_GE:  holds = !unordered && !lt;
      sgpu_isa_pkg::FCMP_EQU: holds = unordered || eq;
      sgpu_isa_pkg::FCMP_NEU: holds = unordered || !eq;
      sgpu_isa_pkg::FCMP_LTU: holds = unordered || lt;
      sgpu_isa_pkg::FCMP_LEU: holds = unordered || !gt;
      sgpu_isa_pkg::FCMP_GTU: holds = unordered || gt;
      sgpu_isa_pkg::FCMP_GEU: holds = unordered || !lt;
      sgpu_isa_pkg::FCMP_NUM: holds = !unordered;
      sgpu_isa_pkg::FCMP_NAN: holds = unordered;
      default:                holds = 1'b0;  // not encodable
    endcase
  end

  // FMNMX: a wins a tie only when its sign is the one asked for (+0 for max, -0 for min).
  logic [31:0] chosen;
  always_comb begin
    if (!go) chosen = 'x;
    else if (unordered) chosen = (nan || (a_nan && b_nan)) ? QNAN : a_nan ? b : a;
    else if (max) chosen = (gt || (eq && !a[31])) ? a : b;
    else chosen = (lt || (eq && a[31])) ? a : b;
  end

  // This cycle's result, {pq, pd, d}, and those of the last FLOAT_LATENCY cycles, the newest
  // in the low bits (flat: yosys 0.23 reads no packed array of arrays), and which of them
  // hold an instruction's. The results move only while one does (the others are zeros, so
  // that every slot is zero when none does).
  localparam int unsigned L = sgpu_core_pkg::FLOAT_LATENCY;
  logic [33:0]     result;
  logic [L*34-1:0] out_q;
  logic [L-1:0]    held_q;
  always_comb begin
    result = '0;
    if (en_i && fmnmx) result[31:0] = chosen;
    if (en_i && fsetp) begin
      result[33:32] = {sgpu_core_pkg::bool_op(bop, !holds, pc),
                       sgpu_core_pkg::bool_op(bop, holds, pc)};
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_q  <= '0;
      held_q <= '0;
    end else begin
      held_q <= {held_q[L-2:0], go};
      if (go || held_q != '0) out_q <= {out_q[(L-1)*34-1:0], result};
    end
  end
  assign {pq_o, pd_o, d_o} = out_q[L*34-1 -: 34];

endmodule
