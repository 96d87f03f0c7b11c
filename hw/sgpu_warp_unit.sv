// The warp operations of one lane: SHFL, VOTE, REDUX and MATCH, bit for bit what the golden
// model computes (sim/src/exec/warp_ops.rs: `shuffle_source`, the member masks, `reduce`).
// The core has one for its lanes: it reads every lane's ra into values_i first (a warp's 32
// values cross the lanes, so they are gathered from the register banks, a beat a cycle),
// then starts the unit on each lane of a beat in turn, as it does its dividers.
//
// - SHFL: the source lane from the lane's b (bits 4:0) and c (clamp 4:0, segment mask
//   12:8) by the mode, exactly as PTX's pseudocode; its value, or the lane's own when the
//   source is out of range, and pd whether it was in range. b and c are rb and rc, or the
//   immediates their fields hold (bi, ci).
// - VOTE: pc (negated by pcn) over the lane's members: the ballot in rd, and all, any or
//   uni in pd (BALLOT leaves pd, which the core does not write then).
// - REDUX: ra reduced over the lane's members (add, min and max signed or not, and, or,
//   xor); zero when there are none.
// - MATCH: the members holding the lane's value (ANY), or all members if they all hold it
//   and else none (ALL); pd whether they all do.
// A lane's members are its b (rb) less the lanes that do not exist or have exited, or the
// executing lanes when b is zero (RZ, and the forms without .sync).
//
// SHFL and VOTE take one cycle: started in cycle t, done_o is high in t + 1 with the result.
// REDUX and MATCH go through the 32 values one a cycle (a single reducer and comparator
// rather than 32 of them, for instructions kernels seldom run): done_o in t + 33. The
// operands are taken at start_i; values_i, executing_i, present_i and truth_i must hold until
// done_o. A start while busy abandons the operation under way.
module sgpu_warp_unit (
  input  logic          clk_i,
  input  logic          rst_ni,
  input  logic          start_i,      // one cycle: a lane's operation begins
  input  logic [63:0]   instr_i,
  input  logic [4:0]    lane_i,       // the lane's number in its warp
  input  logic [31:0]   a_i,          // its ra
  input  logic [31:0]   b_i,          // its rb (when bi is clear)
  input  logic [31:0]   c_i,          // its rc (when ci is clear)
  input  logic [1023:0] values_i,     // every lane's ra: lane l at [32*l +: 32]
  input  logic [31:0]   executing_i,  // the lanes executing the instruction
  input  logic [31:0]   present_i,    // the warp's lanes that exist and have not exited
  input  logic [31:0]   truth_i,      // VOTE: pc in every lane (before pcn)
  output logic          done_o,       // one cycle: d_o and pd_o hold the result
  output logic [31:0]   d_o,
  output logic          pd_o
);

  logic [sgpu_isa_pkg::OP_MSB-sgpu_isa_pkg::OP_LSB:0] op;
  assign op = instr_i[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB];

  logic shfl, vote, redux, match_op;
  assign shfl     = op == sgpu_isa_pkg::OP_SHFL;
  assign vote     = op == sgpu_isa_pkg::OP_VOTE;
  assign redux    = op == sgpu_isa_pkg::OP_REDUX;
  assign match_op = op == sgpu_isa_pkg::OP_MATCH;

  // The guard and the registers' numbers are the core's; the immediates are read below.
  logic unused_instr;
  assign unused_instr = ^instr_i;

  // b and c: the registers, or the immediates in their fields.
  logic [31:0] b, c;
  assign b = instr_i[sgpu_isa_pkg::BI_LSB] ? 32'(instr_i[sgpu_isa_pkg::RB_MSB:sgpu_isa_pkg::RB_LSB])
                                          : b_i;
  assign c = instr_i[sgpu_isa_pkg::CI_LSB] ? 32'(instr_i[sgpu_isa_pkg::RC_MSB:sgpu_isa_pkg::RC_LSB])
                                          : c_i;

  // c's bits that SHFL reads (the clamp and the segment mask).
  logic unused_c;
  assign unused_c = ^{c[31:13], c[7:5]};

  logic [31:0] members;
  assign members = (b == '0) ? executing_i : b & present_i;

  // shfl.sync's source lane and whether it is in range (the model's `shuffle_source`).
  logic [4:0] src;
  logic       in_range;
  always_comb begin
    logic [4:0] bval, cval, seg, max_lane, min_lane;
    logic [5:0] sum;
    bval     = b[4:0];
    cval     = c[4:0];
    seg      = c[12:8];
    max_lane = (lane_i & seg) | (cval & ~seg);
    min_lane = lane_i & seg;
    sum      = 6'(lane_i) + 6'(bval);
    src      = lane_i;
    in_range = 1'b0;
    unique case (instr_i[sgpu_isa_pkg::SMODE_MSB:sgpu_isa_pkg::SMODE_LSB])
      sgpu_isa_pkg::SMODE_UP: begin
        // lane - b may be negative: the comparison is signed.
        in_range = $signed({1'b0, lane_i}) - $signed({1'b0, bval}) >= $signed({1'b0, max_lane});
        src      = lane_i - bval;
      end
      sgpu_isa_pkg::SMODE_DOWN: begin
        in_range = sum <= 6'(max_lane);
        src      = sum[4:0];
      end
      sgpu_isa_pkg::SMODE_BFLY: begin
        src      = lane_i ^ bval;
        in_range = src <= max_lane;
      end
      default: begin  // SMODE_IDX
        src      = min_lane | (bval & ~seg);
        in_range = src <= max_lane;
      end
    endcase
    if (!in_range) src = lane_i;
  end

  // VOTE over the members: the ballot, and all, any or uni.
  logic [31:0] ballot;
  logic        verdict;
  assign ballot = (truth_i ^ {32{instr_i[sgpu_isa_pkg::PCN_LSB]}}) & executing_i & members;
  always_comb begin
    unique case (instr_i[sgpu_isa_pkg::VMODE_MSB:sgpu_isa_pkg::VMODE_LSB])
      sgpu_isa_pkg::VMODE_ALL: verdict = ballot == members;
      sgpu_isa_pkg::VMODE_ANY: verdict = ballot != '0;
      sgpu_isa_pkg::VMODE_UNI: verdict = ballot == '0 || ballot == members;
      default:                 verdict = 1'b0;  // VMODE_BALLOT: rd
    endcase
  end

  // The scan of REDUX and MATCH: value i_q of the 32 a cycle, while busy.
  logic        busy_q, scan_q, scan_redux_q, done_q;
  logic [4:0]  i_q;
  logic [31:0] members_q, own_q, acc_q, same_q;
  logic        seen_q;  // a member's value is in acc_q
  logic [sgpu_isa_pkg::REDOP_MSB-sgpu_isa_pkg::REDOP_LSB:0] redop_q;
  logic        sgn_q, mall_q;

  // One multiplexer of the 32 values: SHFL's source as it starts, else the scan's value.
  logic [4:0]  pick;
  logic [31:0] picked;
  assign pick   = start_i ? src : i_q;
  assign picked = values_i[32*pick +: 32];

  // REDUX's operation on the result so far and the next member's value.
  function automatic logic [31:0] reduce(
      logic [sgpu_isa_pkg::REDOP_MSB-sgpu_isa_pkg::REDOP_LSB:0] r, logic sgn, logic [31:0] x,
      logic [31:0] v);
    logic less, more;
    less = sgn ? $signed(v) < $signed(x) : v < x;
    more = sgn ? $signed(v) > $signed(x) : v > x;
    unique case (r)
      sgpu_isa_pkg::REDOP_ADD: reduce = x + v;
      sgpu_isa_pkg::REDOP_MIN: reduce = less ? v : x;
      sgpu_isa_pkg::REDOP_MAX: reduce = more ? v : x;
      sgpu_isa_pkg::REDOP_AND: reduce = x & v;
      sgpu_isa_pkg::REDOP_OR:  reduce = x | v;
      default:                 reduce = x ^ v;  // REDOP_XOR
    endcase
  endfunction

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q <= 1'b0;
      done_q <= 1'b0;
    end else begin
      done_q <= 1'b0;
      if (start_i) begin
        busy_q <= redux || match_op;
        done_q <= shfl || vote;
      end else if (busy_q) begin
        busy_q <= i_q != 5'd31;
        done_q <= i_q == 5'd31;
      end
    end
  end

  // SHFL's and VOTE's results, taken as they start; the scan's state.
  logic [31:0] d_q;
  logic        pd_q;
  always_ff @(posedge clk_i) begin
    if (start_i) begin
      i_q          <= '0;
      members_q    <= members;
      own_q        <= a_i;
      seen_q       <= 1'b0;
      same_q       <= '0;
      scan_q       <= redux || match_op;
      scan_redux_q <= redux;
      redop_q      <= instr_i[sgpu_isa_pkg::REDOP_MSB:sgpu_isa_pkg::REDOP_LSB];
      sgn_q        <= instr_i[sgpu_isa_pkg::SGN_LSB];
      mall_q       <= instr_i[sgpu_isa_pkg::MALL_LSB];
      d_q          <= shfl ? picked : ballot;
      pd_q         <= shfl ? in_range : verdict;
    end else if (busy_q) begin
      i_q <= i_q + 5'd1;
      if (members_q[i_q] && scan_redux_q) begin
        acc_q  <= seen_q ? reduce(redop_q, sgn_q, acc_q, picked) : picked;
        seen_q <= 1'b1;
      end
      if (members_q[i_q] && !scan_redux_q) same_q[i_q] <= picked == own_q;
    end
  end

  // The result: SHFL's or VOTE's, or the scan's once its last value is in.
  logic all_same;
  assign all_same = same_q == members_q;
  assign done_o = done_q;
  always_comb begin
    if (!scan_q) begin
      d_o  = d_q;
      pd_o = pd_q;
    end else if (scan_redux_q) begin
      d_o  = seen_q ? acc_q : '0;
      pd_o = 1'b0;
    end else begin
      d_o  = !mall_q ? same_q : all_same ? members_q : '0;
      pd_o = all_same;
    end
  end

endmodule
