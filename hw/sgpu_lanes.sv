// Core v2's lanes (docs/adr/0008-core-v2-pipeline.md, "Units and their rates"): LANES
// integer ALUs (sgpu_lane_alu) and what a beat needs around them, from its issue to its
// write-back: its guard and predicate operands from its row of the predicate file, its
// operands from the register file, and the writes of its results to both files.
//
//   cycle t:      the beat issues (issue_*); the caller starts its reads of the register
//                 file (sgpu_regfile) and the predicate file (sgpu_pred_file)
//   cycle t + 1:  its predicate row (pred_row_i): each lane's guard, pa, pc and carry; the
//                 lanes that write (active and guarded); the row kept for its write-back
//   cycle t + 5:  its operands (a_i, b_i, c_i) into the ALUs, with its word (a register of
//                 it a lane)
//   cycle t + 9:  the ALUs' results: the register write (wr_*), the predicate row's write
//                 (pwr_*) and, after an instruction's last beat, done_o
//
// So every instruction here writes back exactly LATENCY (9) cycles after each beat's issue,
// one beat a cycle; the caller routes a write to the write port of the beat's bank (port
// beat mod BANKS of both files). An instruction whose registers are pairs (IMADW) issues
// twice, its passes (docs/adr/0008, "Pairs"): `issue_hi_pass_i` high on the second's beats,
// whose rows the caller gives for the second word of each pair; the ALU keeps the first
// pass's carry a beat (sgpu_lane_alu).
//
// A lane writes a register when it is active, its guard holds and the instruction writes
// rd (not RZ: a pair's second word from R254 on is RZ, as `reg_at` says); it writes its
// predicates and carry (those `sgpu_decode_pkg::pred_writes` names, a mask common to the
// lanes) on the same condition, into the row as it was read at t + 1: the scoreboard lets
// no other write of the warp's predicates be in flight meanwhile.
module sgpu_lanes #(
  parameter int unsigned LANES = 8,
  parameter int unsigned WARPS = 8,
  parameter int unsigned REGS_PER_LANE = 2048,  // as sgpu_regfile's
  parameter int unsigned ENTRIES = 4,           // as sgpu_scoreboard's
  localparam int unsigned BEATS = 32 / LANES,
  localparam int unsigned BW    = (BEATS > 1) ? $clog2(BEATS) : 1,
  localparam int unsigned SW    = (WARPS > 1) ? $clog2(WARPS) : 1,
  localparam int unsigned RW    = $clog2(REGS_PER_LANE / BEATS),
  localparam int unsigned EW    = (ENTRIES > 1) ? $clog2(ENTRIES) : 1,
  localparam int unsigned PW    = 8 * LANES   // a predicate row's bits
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,

  // A beat issues: its warp slot, beat, pass, word, active lanes, the row of the register it
  // writes (rd's, or rd+1's in the second pass: sgpu_operand_rows) or that it is RZ, and
  // whether it is the instruction's last beat, with the scoreboard entry the instruction
  // holds (if it holds one).
  input  logic                  issue_valid_i,
  input  logic [SW-1:0]         issue_slot_i,
  input  logic [BW-1:0]         issue_beat_i,
  input  logic                  issue_hi_pass_i,
  input  logic [63:0]           issue_instr_i,
  input  logic [LANES-1:0]      issue_lanes_i,
  input  logic [RW-1:0]         issue_row_i,
  input  logic                  issue_rz_i,
  input  logic                  issue_last_i,
  input  logic                  issue_entry_valid_i,
  input  logic [EW-1:0]         issue_entry_i,

  // The beat's predicate row, a cycle after its issue (lane k's byte at [8*k +: 8]).
  input  logic [PW-1:0]         pred_row_i,
  // Its operands, five cycles after its issue (lane k's at [32*k +: 32]).
  input  logic                  opnd_valid_i,
  input  logic [32*LANES-1:0]   a_i,
  input  logic [32*LANES-1:0]   b_i,
  input  logic [32*LANES-1:0]   c_i,

  // Write-back, nine cycles after the issue: the register write ...
  output logic                  wr_valid_o,
  output logic [SW-1:0]         wr_slot_o,
  output logic [BW-1:0]         wr_beat_o,
  output logic [RW-1:0]         wr_row_o,
  output logic [LANES-1:0]      wr_lanes_o,
  output logic [32*LANES-1:0]   wr_data_o,
  // ... the predicate row's (slot and beat as the register write's) ...
  output logic                  pwr_valid_o,
  output logic [PW-1:0]         pwr_old_o,
  output logic [7:0]            pwr_mask_o,
  output logic [LANES-1:0]      pwr_lanes_o,
  output logic [PW-1:0]         pwr_bits_o,
  // ... and the instruction's end: its last beat written (the scoreboard's done port when
  // it holds an entry, and the retirement's).
  output logic                  done_o,
  output logic [SW-1:0]         done_slot_o,
  output logic                  done_entry_valid_o,
  output logic [EW-1:0]         done_entry_o
);

  localparam logic [2:0] PT = 3'd7;

  // ------------------------------------------------------------------------------------
  // Cycle t: the issue registered.
  // ------------------------------------------------------------------------------------
  logic              v1_q;
  logic [SW-1:0]     slot1_q;
  logic [BW-1:0]     beat1_q;
  logic              hi1_q, rz1_q, last1_q, entry_valid1_q;
  logic [63:0]       instr1_q;
  logic [LANES-1:0]  lanes1_q;
  logic [RW-1:0]     row1_q;
  logic [EW-1:0]     entry1_q;
  sgpu_pipe #(.W(SW + BW + 4 + 64 + LANES + RW + EW), .DEPTH(1)) u_issue (
    .clk_i, .rst_ni,
    .valid_i(issue_valid_i),
    .data_i ({issue_slot_i, issue_beat_i, issue_hi_pass_i, issue_rz_i, issue_last_i,
              issue_entry_valid_i, issue_instr_i, issue_lanes_i, issue_row_i, issue_entry_i}),
    .valid_o(v1_q),
    .data_o ({slot1_q, beat1_q, hi1_q, rz1_q, last1_q, entry_valid1_q, instr1_q, lanes1_q,
              row1_q, entry1_q})
  );

  // ------------------------------------------------------------------------------------
  // Cycle t + 1: the predicate row read; guards and predicate operands, lane by lane.
  // ------------------------------------------------------------------------------------
  logic [LANES-1:0] writing;         // active and guarded
  logic [LANES-1:0] pa, pc, carry;   // the ALUs' predicate operands and carry in
  always_comb begin
    for (int unsigned k = 0; k < LANES; k++) begin
      writing[k] = lanes1_q[k] && sgpu_decode_pkg::guard_holds(pred_row_i[8*k +: 8], instr1_q);
      pa[k] = sgpu_decode_pkg::pred_value(pred_row_i[8*k +: 8],
                                          instr1_q[sgpu_isa_pkg::PA_MSB:sgpu_isa_pkg::PA_LSB],
                                          instr1_q[sgpu_isa_pkg::PAN_LSB]);
      pc[k] = sgpu_decode_pkg::pred_value(pred_row_i[8*k +: 8],
                                          instr1_q[sgpu_isa_pkg::PC_MSB:sgpu_isa_pkg::PC_LSB],
                                          instr1_q[sgpu_isa_pkg::PCN_LSB]);
      carry[k] = pred_row_i[8*k + 7];
    end
  end

  // Whether the pass writes a register (ISETP and PLOP write none, RZ is none).
  logic [3:0] fields_written;  // rc, rb, ra, rd: only rd is ever written
  logic       writes_rd;
  assign fields_written = sgpu_isa_pkg::reg_writes(instr1_q[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB]);
  assign writes_rd = fields_written[0] && !rz1_q;
  logic unused_fields;
  assign unused_fields = ^fields_written[3:1];

  // Which predicate bit a lane's pq goes to (pd to the others the mask names): ISETP, the
  // lanes' one writer of pq, with pd and pq the same writes pq's value, as the model writes
  // pq after pd.
  logic [6:0] to_pq;
  always_comb begin
    to_pq = '0;
    if (instr1_q[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB] == sgpu_isa_pkg::OP_ISETP
        && instr1_q[sgpu_isa_pkg::PQ_MSB:sgpu_isa_pkg::PQ_LSB] != PT) begin
      to_pq[instr1_q[sgpu_isa_pkg::PQ_MSB:sgpu_isa_pkg::PQ_LSB]] = 1'b1;
    end
  end

  // ------------------------------------------------------------------------------------
  // From t + 1: to the ALUs (at t + 5) and to the write-back (at t + 9).
  // ------------------------------------------------------------------------------------
  localparam int unsigned ALU_W = 64 + 1 + BW + 4 * LANES;
  localparam int unsigned WB_W  = SW + BW + RW + LANES + 1 + PW + 8 + 7 + 1 + 1 + EW;

  logic              alu_valid;
  logic [63:0]       alu_instr;
  logic              alu_hi;
  logic [BW-1:0]     alu_beat;
  logic [LANES-1:0]  alu_writing, alu_pa, alu_pc, alu_carry;
  sgpu_pipe #(.W(ALU_W), .DEPTH(3)) u_to_alu (
    .clk_i, .rst_ni,
    .valid_i(v1_q),
    .data_i ({instr1_q, hi1_q, beat1_q, writing, pa, pc, carry}),
    .valid_o(alu_valid),
    .data_o ({alu_instr, alu_hi, alu_beat, alu_writing, alu_pa, alu_pc, alu_carry})
  );

  logic              wb_valid;
  logic [SW-1:0]     wb_slot;
  logic [BW-1:0]     wb_beat;
  logic [RW-1:0]     wb_row;
  logic [LANES-1:0]  wb_lanes;
  logic              wb_writes_rd, wb_last, wb_entry_valid;
  logic [PW-1:0]     wb_old;
  logic [7:0]        wb_mask;
  logic [6:0]        wb_to_pq;
  logic [EW-1:0]     wb_entry;
  sgpu_pipe #(.W(WB_W), .DEPTH(8)) u_to_wb (
    .clk_i, .rst_ni,
    .valid_i(v1_q),
    .data_i ({slot1_q, beat1_q, row1_q, writing, writes_rd, pred_row_i,
              sgpu_decode_pkg::pred_writes(instr1_q), to_pq, last1_q, entry_valid1_q,
              entry1_q}),
    .valid_o(wb_valid),
    .data_o ({wb_slot, wb_beat, wb_row, wb_lanes, wb_writes_rd, wb_old, wb_mask, wb_to_pq,
              wb_last, wb_entry_valid, wb_entry})
  );

  // ------------------------------------------------------------------------------------
  // Cycles t + 5 to t + 9: the ALUs.
  // ------------------------------------------------------------------------------------
  logic [LANES-1:0] alu_done, pd, pq, carry_out;
  logic [32*LANES-1:0] d;
  for (genvar k = 0; k < LANES; k++) begin : g_lane
    // The last cycle before the ALU, a copy a lane: the word fans out to every lane's
    // decode, and one register for all would put the whole fan-out's wiring after the
    // decode (85.9 MHz at 8 lanes, the route to the farthest lane 4 ns of it). A lane runs
    // only when it writes (inactive and guarded-off lanes stay idle), so each copy has an
    // enable of its own, which also keeps yosys from merging the copies back into one, as
    // it does identical registers whatever their names' attributes say.
    logic          valid_q;
    logic [63:0]   instr_q;
    logic          hi_q;
    logic [BW-1:0] beat_q;
    logic          pa_q, pc_q, carry_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        {valid_q, instr_q, hi_q, beat_q, pa_q, pc_q, carry_q} <= '0;
      end else begin
        valid_q <= alu_valid && alu_writing[k];
        if (alu_valid && alu_writing[k]) begin
          instr_q <= alu_instr;
          hi_q    <= alu_hi;
          beat_q  <= alu_beat;
          pa_q    <= alu_pa[k];
          pc_q    <= alu_pc[k];
          carry_q <= alu_carry[k];
        end
      end
    end

    sgpu_lane_alu #(.BEATS(BEATS)) u_alu (
      .clk_i, .rst_ni,
      .valid_i  (valid_q),
      .beat_i   (beat_q),
      .instr_i  (instr_q),
      .a_i      (a_i[32*k +: 32]),
      .b_i      (b_i[32*k +: 32]),
      .c_i      (c_i[32*k +: 32]),
      .hi_pass_i(hi_q),
      .carry_i  (carry_q),
      .pa_i     (pa_q),
      .pc_i     (pc_q),
      .valid_o  (alu_done[k]),
      .d_o      (d[32*k +: 32]),
      .carry_o  (carry_out[k]),
      .pd_o     (pd[k]),
      .pq_o     (pq[k])
    );
  end

  // ------------------------------------------------------------------------------------
  // Cycle t + 9: write-back.
  // ------------------------------------------------------------------------------------
  assign wr_valid_o  = wb_valid && wb_writes_rd;
  assign wr_slot_o   = wb_slot;
  assign wr_beat_o   = wb_beat;
  assign wr_row_o    = wb_row;
  assign wr_lanes_o  = wb_lanes;
  assign wr_data_o   = d;

  assign pwr_valid_o = wb_valid && wb_mask != '0;
  assign pwr_old_o   = wb_old;
  assign pwr_mask_o  = wb_mask;
  assign pwr_lanes_o = wb_lanes;
  always_comb begin
    for (int unsigned k = 0; k < LANES; k++) begin
      for (int unsigned i = 0; i < 7; i++) pwr_bits_o[8*k + i] = wb_to_pq[i] ? pq[k] : pd[k];
      pwr_bits_o[8*k + 7] = carry_out[k];
    end
  end

  assign done_o             = wb_valid && wb_last;
  assign done_slot_o        = wb_slot;
  assign done_entry_valid_o = wb_valid && wb_last && wb_entry_valid;
  assign done_entry_o       = wb_entry;

  // ------------------------------------------------------------------------------------
  // Assertions
  // ------------------------------------------------------------------------------------
`ifndef SYNTHESIS
  // The register file's operands come with the beat that asked for them (the file serves
  // other units' beats too), and the ALUs' results (of the lanes that write) with the
  // write-back's record of it.
  logic [LANES-1:0] running;
  for (genvar k = 0; k < LANES; k++) begin : g_running
    assign running[k] = g_lane[k].valid_q;
  end
  a_operands_in_step: assert property (@(posedge clk_i) disable iff (!rst_ni)
      running != '0 |-> opnd_valid_i)
    else $error("sgpu_lanes: operands out of step with their beat");
  a_results_in_step: assert property (@(posedge clk_i) disable iff (!rst_ni)
      alu_done == (wb_valid ? wb_lanes : '0))
    else $error("sgpu_lanes: results out of step with their write-back");
  // Only IMADW issues a second pass.
  a_hi_pass_madw: assert property (@(posedge clk_i) disable iff (!rst_ni)
      issue_valid_i && issue_hi_pass_i
      |-> issue_instr_i[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB] == sgpu_isa_pkg::OP_IMADW)
    else $error("sgpu_lanes: a second pass of a single-word instruction");
`endif

endmodule
