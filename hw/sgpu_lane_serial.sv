// Core v2's way into a unit the lanes share (docs/adr/0008-core-v2-pipeline.md, "Units and
// their rates"): a beat comes as the lanes' beats come (its issue at t, its predicate row at
// t + 1, its operands at t + 5, all LANES lanes at once), waits in a queue, and goes through
// the unit one lane a cycle: only the lanes that write (active, guard holding) take a
// cycle, a beat with none takes one cycle and no lane. The unit's results come back, in the
// order its lanes went, to the beat's entry; when a beat's last lane is back, the beat is a
// write-back source (sgpu_writeback's `src_*`: held until taken), beats in issue order.
//
//   cycle t:      the beat issues; `room_o` said there was room for an instruction's beats
//   cycle t + 1:  its predicate row: the lanes that write; its queue entry written
//   cycle t + 5:  its operands into the entry (a row of distributed RAM a lane)
//   from t + 6:   a lane a cycle picked, its operands read the next cycle, and to the unit
//                 the cycle after (fn_*: registered); the results back (res_*)
//   then:         the write-back (wb_*), the cycle after its last lane's result
//
// So a beat whose n lanes write is written back 8 + L + n cycles after its issue when the
// unit is free, L being the unit's cycles from fn_valid_o to res_valid_i. The unit's own
// business: results come back tagged with the entry, the lane and whether it is the beat's
// last, in the order sent. The queue's entries are rows of distributed RAM (DEPTH 16 is one
// ECP5 DPR16X4 deep), so a deeper queue costs nothing until 16; the issue needs room for
// an instruction's BEATS beats when it starts one (`room_o` counts every beat issued up to
// the cycle before), and the entry is free again when its beat is written back.
//
// Its units read registers only (ra, rb, rc), no predicate operands and no carry, and write
// rd alone (sgpu_shared_unit's: the integer operations the lane ALUs leave out, the video
// instructions; later the conversions). A beat writes no register when the instruction writes none or its
// rd is RZ (`issue_rz_i`), but it still comes to the write-back, for the scoreboard's done
// port. A lane that does not write has whatever data its entry held before.
module sgpu_lane_serial #(
  parameter int unsigned LANES = 8,
  parameter int unsigned WARPS = 8,
  parameter int unsigned REGS_PER_LANE = 2048,  // as sgpu_regfile's
  parameter int unsigned ENTRIES = 4,           // as sgpu_scoreboard's
  // Beats queued: a power of two, BEATS or more (one instruction); with 2 x BEATS or more
  // one instruction's beats wait while the one before goes through.
  parameter int unsigned DEPTH = (64 / LANES > 16) ? 64 / LANES : 16,
  localparam int unsigned BEATS = 32 / LANES,
  localparam int unsigned BW    = (BEATS > 1) ? $clog2(BEATS) : 1,
  localparam int unsigned SW    = (WARPS > 1) ? $clog2(WARPS) : 1,
  localparam int unsigned RW    = $clog2(REGS_PER_LANE / BEATS),
  localparam int unsigned EW    = (ENTRIES > 1) ? $clog2(ENTRIES) : 1,
  localparam int unsigned QW    = $clog2(DEPTH),
  localparam int unsigned LW    = (LANES > 1) ? $clog2(LANES) : 1,
  localparam int unsigned TW    = QW + LW + 1,   // a lane's tag: {entry, lane, last}
  localparam int unsigned PW    = 8 * LANES
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,

  // A beat issues (as sgpu_lanes' issue_*), and whether an instruction's beats may start.
  input  logic                  issue_valid_i,
  input  logic [SW-1:0]         issue_slot_i,
  input  logic [BW-1:0]         issue_beat_i,
  input  logic [63:0]           issue_instr_i,
  input  logic [LANES-1:0]      issue_lanes_i,
  input  logic [RW-1:0]         issue_row_i,
  input  logic                  issue_rz_i,
  input  logic                  issue_last_i,
  input  logic                  issue_entry_valid_i,
  input  logic [EW-1:0]         issue_entry_i,
  output logic                  room_o,

  // The beat's predicate row a cycle after its issue, its operands five cycles after.
  input  logic [PW-1:0]         pred_row_i,
  input  logic [32*LANES-1:0]   a_i,
  input  logic [32*LANES-1:0]   b_i,
  input  logic [32*LANES-1:0]   c_i,

  // A lane to the unit ...
  output logic                  fn_valid_o,
  output logic [63:0]           fn_instr_o,
  output logic [31:0]           fn_a_o,
  output logic [31:0]           fn_b_o,
  output logic [31:0]           fn_c_o,
  output logic [TW-1:0]         fn_tag_o,
  // ... and its result, in the order the lanes went.
  input  logic                  res_valid_i,
  input  logic [TW-1:0]         res_tag_i,
  input  logic [31:0]           res_d_i,

  // The write-back: a beat, held until taken.
  output logic                  wb_valid_o,
  input  logic                  wb_ready_i,
  output logic [SW-1:0]         wb_slot_o,
  output logic [BW-1:0]         wb_beat_o,
  output logic [RW-1:0]         wb_row_o,
  output logic                  wb_rvalid_o,
  output logic [LANES-1:0]      wb_lanes_o,
  output logic [32*LANES-1:0]   wb_data_o,
  output logic                  wb_last_o,
  output logic                  wb_entry_valid_o,
  output logic [EW-1:0]         wb_entry_o
);

  // ------------------------------------------------------------------------------------
  // Room: entries taken by beats issued and not yet written back.
  // ------------------------------------------------------------------------------------
  localparam int unsigned CW = $clog2(DEPTH + 1);
  logic [CW-1:0] count_q;
  logic          retire;  // the write-back takes the oldest beat
  assign retire = wb_valid_o && wb_ready_i;
  assign room_o = 32'(count_q) + BEATS <= DEPTH;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) count_q <= '0;
    else count_q <= count_q + CW'(issue_valid_i) - CW'(retire);
  end

  // ------------------------------------------------------------------------------------
  // Cycle t + 1: the issue registered; the lanes that write; the entry written.
  // ------------------------------------------------------------------------------------
  logic              v1_q;
  logic [SW-1:0]     slot1_q;
  logic [BW-1:0]     beat1_q;
  logic              rz1_q, last1_q, entry_valid1_q;
  logic [63:0]       instr1_q;
  logic [LANES-1:0]  lanes1_q;
  logic [RW-1:0]     row1_q;
  logic [EW-1:0]     entry1_q;
  sgpu_pipe #(.W(SW + BW + 3 + 64 + LANES + RW + EW), .DEPTH(1)) u_issue (
    .clk_i, .rst_ni,
    .valid_i(issue_valid_i),
    .data_i ({issue_slot_i, issue_beat_i, issue_rz_i, issue_last_i, issue_entry_valid_i,
              issue_instr_i, issue_lanes_i, issue_row_i, issue_entry_i}),
    .valid_o(v1_q),
    .data_o ({slot1_q, beat1_q, rz1_q, last1_q, entry_valid1_q, instr1_q, lanes1_q, row1_q,
              entry1_q})
  );

  logic [LANES-1:0] writing;
  always_comb begin
    for (int unsigned k = 0; k < LANES; k++) begin
      writing[k] = lanes1_q[k] && sgpu_decode_pkg::guard_holds(pred_row_i[8*k +: 8], instr1_q);
    end
  end
  logic [3:0] fields_written;  // rc, rb, ra, rd: only rd is ever written
  logic       writes_rd;
  assign fields_written = sgpu_isa_pkg::reg_writes(instr1_q[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB]);
  assign writes_rd = fields_written[0] && !rz1_q;
  logic unused_fields;
  assign unused_fields = ^{fields_written[3:1], pred_row_i};

  // An entry's record in three memories, one a reader: its writing lanes (read at the entry
  // whose lanes are picked), its word (at the entry of the lane picked the cycle before) and
  // what the write-back reads (at the oldest).
  localparam int unsigned WBW   = SW + BW + RW + 1 + LANES + 1 + 1 + EW;
  logic [LANES-1:0] writing_mem [DEPTH];
  logic [63:0]      instr_mem [DEPTH];
  logic [WBW-1:0]   wb_mem [DEPTH];
  logic [QW:0]      alloc_q;  // the next entry written (the top bit tells a lap)
  logic [QW:0]      wb_q;     // the oldest entry, the write-back's
  logic [DEPTH-1:0] whole_q;  // entries whose results are all back
  always_ff @(posedge clk_i) begin
    if (v1_q) begin
      writing_mem[alloc_q[QW-1:0]] <= writing;
      instr_mem[alloc_q[QW-1:0]]   <= instr1_q;
      wb_mem[alloc_q[QW-1:0]]      <= {slot1_q, beat1_q, row1_q, writes_rd, writing, last1_q,
                                       entry_valid1_q, entry1_q};
    end
  end

  // ------------------------------------------------------------------------------------
  // Cycle t + 5: the operands into the entry, a memory a lane.
  // ------------------------------------------------------------------------------------
  logic [3:0]  v_q;     // the entries' beats of cycles t + 2 to t + 5
  logic        v5;
  logic [QW:0] opnd_q;  // the next entry whose operands come (those before it have theirs)
  assign v5 = v_q[3];
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) v_q <= '0;
    else v_q <= {v_q[2:0], v1_q};
  end

  // ------------------------------------------------------------------------------------
  // From t + 6: a lane a cycle picked, the lowest of the entry's lanes left; the next
  // cycle its operands to the unit. (Picking and reading in one cycle, the read of the
  // entry's lanes, the pick's carry chain and the operands' choice made the unit's longest
  // path: 96.8 MHz at worst on an ECP5.)
  // ------------------------------------------------------------------------------------
  logic [QW:0]      send_q;     // the entry whose lanes go
  logic             started_q;  // some of its lanes have gone ...
  logic [LANES-1:0] todo_q;     // ... and these are left
  logic [LANES-1:0] send_writing;
  assign send_writing = writing_mem[send_q[QW-1:0]];

  logic             have;       // an entry with its operands has lanes to send
  logic [LANES-1:0] todo, pick, rest;
  logic [LW-1:0]    pick_lane;
  assign have = send_q != opnd_q;
  assign todo = started_q ? todo_q : send_writing;
  assign pick = todo & (~todo + LANES'(1));  // the lowest lane left, one-hot
  assign rest = todo & ~pick;
  always_comb begin
    pick_lane = '0;
    for (int unsigned k = 0; k < LANES; k++) begin
      if (pick[k]) pick_lane = LW'(k);
    end
  end

  // The lane picked: its entry, one-hot lane, tag.
  logic             sel_valid_q;
  logic [QW-1:0]    sel_entry_q;
  logic [LANES-1:0] sel_pick_q;
  logic [TW-1:0]    sel_tag_q;

  logic [96*LANES-1:0] opnds;    // every lane's operands at the picked lane's entry
  logic [95:0]         picked;   // the picked lane's, chosen one-hot
  logic [32*LANES-1:0] results;  // every lane's result at the oldest entry
  for (genvar k = 0; k < LANES; k++) begin : g_lane
    logic [95:0] opnd_mem [DEPTH];
    logic [31:0] res_mem [DEPTH];
    always_ff @(posedge clk_i) begin
      if (v5) opnd_mem[opnd_q[QW-1:0]] <= {a_i[32*k +: 32], b_i[32*k +: 32], c_i[32*k +: 32]};
      if (res_valid_i && res_tag_i[1 +: LW] == LW'(k)) res_mem[res_tag_i[LW+1 +: QW]] <= res_d_i;
    end
    assign opnds[96*k +: 96]   = opnd_mem[sel_entry_q];
    assign results[32*k +: 32] = res_mem[wb_q[QW-1:0]];
  end
  always_comb begin
    picked = '0;
    for (int unsigned k = 0; k < LANES; k++) picked |= sel_pick_q[k] ? opnds[96*k +: 96] : '0;
  end

  logic send_lane, send_done;  // a lane goes; the entry's last (or none) goes
  assign send_lane = have && todo != '0;
  assign send_done = have && rest == '0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {alloc_q, opnd_q, send_q, started_q, todo_q} <= '0;
      {sel_valid_q, sel_entry_q, sel_pick_q, sel_tag_q} <= '0;
      {fn_valid_o, fn_instr_o, fn_a_o, fn_b_o, fn_c_o, fn_tag_o} <= '0;
    end else begin
      if (v1_q) alloc_q <= alloc_q + 1'b1;
      if (v5) opnd_q <= opnd_q + 1'b1;
      if (have) begin
        send_q    <= send_done ? send_q + 1'b1 : send_q;
        started_q <= !send_done;
        todo_q    <= rest;
      end
      sel_valid_q <= send_lane;
      if (send_lane) begin
        sel_entry_q <= send_q[QW-1:0];
        sel_pick_q  <= pick;
        sel_tag_q   <= {send_q[QW-1:0], pick_lane, rest == '0};
      end
      fn_valid_o <= sel_valid_q;
      if (sel_valid_q) begin
        fn_instr_o <= instr_mem[sel_entry_q];
        {fn_a_o, fn_b_o, fn_c_o} <= picked;
        fn_tag_o <= sel_tag_q;
      end
    end
  end

  // ------------------------------------------------------------------------------------
  // The write-back: an entry is whole when its last lane's result is back, or when its
  // turn to send came and it had no lane.
  // ------------------------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wb_q    <= '0;
      whole_q <= '0;
    end else begin
      for (int unsigned e = 0; e < DEPTH; e++) begin
        if (have && todo == '0 && send_q[QW-1:0] == QW'(e)) whole_q[e] <= 1'b1;
        if (res_valid_i && res_tag_i[0] && res_tag_i[LW+1 +: QW] == QW'(e)) whole_q[e] <= 1'b1;
        if (retire && wb_q[QW-1:0] == QW'(e)) whole_q[e] <= 1'b0;
      end
      if (retire) wb_q <= wb_q + 1'b1;
    end
  end

  assign wb_valid_o = whole_q[wb_q[QW-1:0]];
  assign {wb_slot_o, wb_beat_o, wb_row_o, wb_rvalid_o, wb_lanes_o, wb_last_o, wb_entry_valid_o,
          wb_entry_o} = wb_mem[wb_q[QW-1:0]];
  assign wb_data_o = results;

  // ------------------------------------------------------------------------------------
  // Assertions
  // ------------------------------------------------------------------------------------
`ifndef SYNTHESIS
  initial begin
    if (DEPTH < 2 || DEPTH < BEATS || (DEPTH & (DEPTH - 1)) != 0) begin
      $fatal(1, "sgpu_lane_serial: DEPTH must be a power of two, 2 and BEATS or more");
    end
  end
  // The issue keeps to the room it was given, so no entry is taken twice.
  a_room_kept: assert property (@(posedge clk_i) disable iff (!rst_ni)
      issue_valid_i |-> 32'(count_q) < DEPTH)
    else $error("sgpu_lane_serial: a beat issued with the queue full");
  // The unit answers only lanes of entries that are waiting for them.
  a_answer_expected: assert property (@(posedge clk_i) disable iff (!rst_ni)
      res_valid_i |-> !whole_q[res_tag_i[LW+1 +: QW]])
    else $error("sgpu_lane_serial: a result for an entry already whole");
`endif

endmodule
