// Core v2's control unit (docs/adr/0008-core-v2-pipeline.md, "Control"): what a control
// instruction does to its warp, as the golden model's `exec/control.rs` says, sent to the
// warp table (sgpu_warp_table's `ctl_*`) as one outcome: a stack operation (an advance for
// NOP, MEMBAR, WARPSYNC, TRAP with no lane, BAR and BARRED; SSY; a branch; an exit; a call;
// a return), a barrier arrival for BAR and BARRED, or a trap (TRAP, a `.sync` member not
// executing, a CALLR target that is no instruction). It also writes what control
// instructions write: the calling lanes' frame starts (CALL, CALLR: moved by the frame; a
// frame past the end of local memory is a fault the table raises unless the stack faults
// first, as the model checks the stack first), the returning lanes' (RET, once the stack
// has said which lanes and by how much), and a BARRED's result into its warp when its
// barrier releases it (the count to rd, or the truth to pd, in the lanes that ran it).
//
// An instruction at a time (control instructions are rare): `room_o` says the unit is free;
// it is busy from an instruction's first beat until its outcome is taken and, for CALL,
// CALLR and RET, its frames are written. Its beats come as the lanes' do:
//
//   cycle t:      a beat issues (pass 0, then pass 1 for CALLR's register pair)
//   cycle t + 1:  its predicate row: the lanes that execute (active, guard holding), a
//                 BARRED's pc in each, and its rows kept for the result's write
//   cycle t + 5:  its operands: ra (a CALLR's target, a WARPSYNC's members), rb and rc (a
//                 barrier's number and count), and as c the lanes' frame starts (CALL,
//                 CALLR and RET: the issue reads the warp's frame slot in rc's place);
//                 gathered into the instruction's executing lanes, its first executing
//                 lane's operands, the members the lanes name; each lane's target word
//                 compared with the first's, its frame with the end of local memory
//   cycle t + 6:  the lanes that call (a CALLR's: those with the first one's target), and
//                 whether one of their frames overflows
//   last beat's t + 7:  the outcome decided; t + 8: offered to the table until taken
//
// Its writes are write-back sources (sgpu_writeback's `src_*`), a beat at a time, held
// until taken: a frame write a beat of the warp after the call's outcome is taken or the
// return's lanes are known, a BARRED's result a beat of each warp it releases. Each
// instruction that holds a scoreboard entry ends with a beat marked last (with no lanes
// when it writes nothing), for the scoreboard's done port.
//
// A warp's live lanes (its lanes not exited), for WARPSYNC's check, are kept here: set
// when the warp starts, less each EXIT's lanes as its outcome is taken.
module sgpu_control #(
  parameter int unsigned LANES = 8,
  parameter int unsigned WARPS = 8,
  parameter int unsigned REGS_PER_LANE = 2048,  // as sgpu_regfile's
  parameter int unsigned ENTRIES = 4,           // as sgpu_scoreboard's
  localparam int unsigned BEATS = 32 / LANES,
  localparam int unsigned BW    = (BEATS > 1) ? $clog2(BEATS) : 1,
  localparam int unsigned SW    = (WARPS > 1) ? $clog2(WARPS) : 1,
  localparam int unsigned RW    = $clog2(REGS_PER_LANE / BEATS),
  localparam int unsigned EW    = (ENTRIES > 1) ? $clog2(ENTRIES) : 1,
  localparam int unsigned PW    = 8 * LANES
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic [31:0]         local_size_i,  // the launch's local bytes a thread

  // A warp starts in a slot with the lanes that exist (as sgpu_warp_table's start).
  input  logic                start_i,
  input  logic [SW-1:0]       start_warp_i,
  input  logic [31:0]         start_lanes_i,

  // A beat issues (as sgpu_lane_serial's issue_*); `issue_pc_i` is the instruction's byte
  // address; `issue_row_i` the row it writes: a BARRED's rd, the frame slot for CALL,
  // CALLR and RET. `room_o`: an instruction may start.
  input  logic                issue_valid_i,
  input  logic [SW-1:0]       issue_slot_i,
  input  logic [BW-1:0]       issue_beat_i,
  input  logic                issue_pass_i,
  input  logic                issue_last_i,   // the instruction's last beat
  input  logic [63:0]         issue_instr_i,
  input  logic [31:0]         issue_pc_i,
  input  logic [LANES-1:0]    issue_lanes_i,
  input  logic [RW-1:0]       issue_row_i,
  input  logic                issue_entry_valid_i,
  input  logic [EW-1:0]       issue_entry_i,
  output logic                room_o,
  input  logic [PW-1:0]       pred_row_i,     // t + 1
  input  logic [32*LANES-1:0] a_i,            // t + 5
  input  logic [32*LANES-1:0] b_i,
  input  logic [32*LANES-1:0] c_i,

  // The outcome (sgpu_warp_table's ctl_*), held until taken. `ctl_trap_o`: a cause other
  // than 0 makes the outcome that trap, nothing else; `ctl_frame_fault_o`: the call's frame
  // overflows, a trap unless the stack faults first.
  output logic                ctl_valid_o,
  input  logic                ctl_ready_i,
  output logic [SW-1:0]       ctl_warp_o,
  output logic [2:0]          ctl_kind_o,
  output logic [31:0]         ctl_next_o,
  output logic [31:0]         ctl_target_o,
  output logic [31:0]         ctl_mask_o,
  output logic [31:0]         ctl_waiting_o,
  output logic [31:0]         ctl_frame_o,
  output logic                ctl_bar_o,
  output logic [31:0]         ctl_bar_id_o,
  output logic                ctl_bar_counted_o,
  output logic [31:0]         ctl_bar_threads_o,
  output logic                ctl_bar_waits_o,
  output logic                ctl_bar_red_o,
  output logic [1:0]          ctl_bar_bred_o,
  output logic [31:0]         ctl_bar_set_o,
  output logic [7:0]          ctl_trap_o,
  output logic                ctl_frame_fault_o,

  // From the table: a return's lanes and frame; a barrier's release.
  input  logic                ret_i,
  input  logic [SW-1:0]       ret_warp_i,
  input  logic [31:0]         ret_lanes_i,
  input  logic [31:0]         ret_frame_i,
  input  logic                rel_i,
  input  logic [WARPS-1:0]    rel_warps_i,
  input  logic                rel_red_i,
  input  logic [1:0]          rel_bred_i,
  input  logic [31:0]         rel_value_i,

  // The write-back (sgpu_writeback's source beat), held until taken.
  output logic                wb_valid_o,
  input  logic                wb_ready_i,
  output logic [SW-1:0]       wb_slot_o,
  output logic [BW-1:0]       wb_beat_o,
  output logic                wb_rvalid_o,
  output logic [RW-1:0]       wb_row_o,
  output logic [LANES-1:0]    wb_lanes_o,
  output logic [32*LANES-1:0] wb_data_o,
  output logic                wb_pvalid_o,
  output logic [PW-1:0]       wb_pold_o,
  output logic [7:0]          wb_pmask_o,
  output logic [PW-1:0]       wb_pbits_o,
  output logic                wb_last_o,
  output logic                wb_entry_valid_o,
  output logic [EW-1:0]       wb_entry_o
);

  // sgpu_simt_stack's operations (an advance is 0, the outcome's default).
  localparam logic [2:0] OP_SSY = 3'd1, OP_BRANCH = 3'd2, OP_EXIT = 3'd3, OP_CALL = 3'd4,
                         OP_RET = 3'd5;
  localparam logic [1:0] BRED_POPC = 2'd0;
  localparam logic [7:0] RZ = 8'd255;
  localparam logic [31:0] NO_CODE = 32'hffff_fff8;  // a byte address past any code
  localparam int unsigned OPW = sgpu_isa_pkg::OP_MSB - sgpu_isa_pkg::OP_LSB + 1;

  function automatic logic is(logic [OPW-1:0] o, logic [OPW-1:0] name);
    is = o == name;
  endfunction
  // The lowest set lane of a beat, one-hot (none: zero).
  function automatic logic [LANES-1:0] lowest(logic [LANES-1:0] m);
    lowest = m & (~m + LANES'(1));
  endfunction
  // Beat `b`'s lanes of a warp's mask; and the mask with beat `b`'s lanes replaced. (The
  // beat compared with each constant: a part-select at `b * LANES` made an adder and a
  // shifter of it, the unit's longest path.)
  function automatic logic [LANES-1:0] part(logic [31:0] m, logic [BW-1:0] b);
    part = '0;
    for (int unsigned k = 0; k < BEATS; k++) begin
      if (32'(b) == k) part = m[k*LANES +: LANES];
    end
  endfunction
  function automatic logic [31:0] with_part(logic [31:0] m, logic [BW-1:0] b,
                                            logic [LANES-1:0] v);
    with_part = m;
    for (int unsigned k = 0; k < BEATS; k++) begin
      if (32'(b) == k) with_part[k*LANES +: LANES] = v;
    end
  endfunction
  // Lane k's word of a beat's operand, chosen by a one-hot lane mask.
  function automatic logic [31:0] word_at(logic [32*LANES-1:0] v, logic [LANES-1:0] onehot);
    word_at = '0;
    for (int unsigned k = 0; k < LANES; k++) begin
      word_at = word_at | (v[32*k +: 32] & {32{onehot[k]}});
    end
  endfunction

  // ------------------------------------------------------------------------------------
  // The instruction: its fields, taken at its first beat (one at a time).
  // ------------------------------------------------------------------------------------
  logic              busy_q;
  logic [SW-1:0]     slot_q;
  logic [63:0]       instr_q;
  logic [31:0]       pc_q;
  logic [RW-1:0]     row_q;
  logic              entry_valid_q;
  logic [EW-1:0]     entry_q;
  assign room_o = !busy_q;

  logic [OPW-1:0] op;
  assign op = instr_q[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB];
  logic is_call, is_callr, is_ret, is_barred;
  assign is_call   = is(op, sgpu_isa_pkg::OP_CALL);
  assign is_callr  = is(op, sgpu_isa_pkg::OP_CALLR);
  assign is_ret    = is(op, sgpu_isa_pkg::OP_RET);
  assign is_barred = is(op, sgpu_isa_pkg::OP_BARRED);

  always_ff @(posedge clk_i) begin
    if (issue_valid_i && !busy_q) begin
      slot_q        <= issue_slot_i;
      instr_q       <= issue_instr_i;
      pc_q          <= issue_pc_i;
      row_q         <= issue_row_i;
      entry_valid_q <= issue_entry_valid_i;
      entry_q       <= issue_entry_i;
    end
  end

  // ------------------------------------------------------------------------------------
  // Cycle t + 1: the lanes that execute; a BARRED's pc; its predicate rows kept by warp and
  // beat (a warp waits at its barrier, so its rows are as read until its result is written).
  // Then both to t + 5, beside the operands.
  // ------------------------------------------------------------------------------------
  logic             v1_q, pass1_q, last1_q;
  logic [BW-1:0]    beat1_q;
  logic [LANES-1:0] lanes1_q;
  sgpu_pipe #(.W(BW + 2 + LANES), .DEPTH(1)) u_issue (
    .clk_i, .rst_ni,
    .valid_i(issue_valid_i),
    .data_i ({issue_beat_i, issue_pass_i, issue_last_i, issue_lanes_i}),
    .valid_o(v1_q),
    .data_o ({beat1_q, pass1_q, last1_q, lanes1_q})
  );
  logic [LANES-1:0] exec1, set1;
  always_comb begin
    for (int unsigned k = 0; k < LANES; k++) begin
      exec1[k] = lanes1_q[k] && sgpu_decode_pkg::guard_holds(pred_row_i[8*k +: 8], instr_q);
      set1[k]  = exec1[k] && sgpu_decode_pkg::pred_value(
                     pred_row_i[8*k +: 8], instr_q[sgpu_isa_pkg::PC_MSB:sgpu_isa_pkg::PC_LSB],
                     instr_q[sgpu_isa_pkg::PCN_LSB]);
    end
  end
  logic [PW-1:0] rows_mem [WARPS * BEATS];
  always_ff @(posedge clk_i) begin
    if (v1_q && is_barred) rows_mem[32'(slot_q) * BEATS + 32'(beat1_q)] <= pred_row_i;
  end

  // The beat's lowest executing lane is found here too, off the operands' paths.
  logic             v5, pass5, last5;
  logic [BW-1:0]    beat5;
  logic [LANES-1:0] exec5, set5, first5;
  sgpu_pipe #(.W(BW + 2 + 3 * LANES), .DEPTH(4)) u_to_operands (
    .clk_i, .rst_ni,
    .valid_i(v1_q),
    .data_i ({beat1_q, pass1_q, last1_q, exec1, set1, lowest(exec1)}),
    .valid_o(v5),
    .data_o ({beat5, pass5, last5, exec5, set5, first5})
  );

  // ------------------------------------------------------------------------------------
  // Cycle t + 5: a beat's operands gathered.
  // ------------------------------------------------------------------------------------
  logic [31:0]      exec_q, set_q, same_q;  // the warp's lanes, a beat's at [beat*LANES]
  logic [31:0]      eqlo_q;                 // CALLR: the lane's low target word is the first's
  logic             found_q;                // the pass's first executing lane seen
  logic             found;                  // ... before this beat
  logic [31:0]      first_a_q, first_b_q, first_c_q, first_hi_q;
  logic [31:0]      members_q;              // WARPSYNC: the members the lanes name
  logic             over_q;                 // a calling lane's frame overflows
  logic             decide_q;               // the last beat's calls were found last cycle

  // This beat's first executing lane: the gathered one, or the beat's lowest.
  logic [31:0]      beat_a, beat_first_a, beat_members;
  assign found        = found_q && beat5 != '0;
  assign beat_a       = word_at(a_i, first5);
  assign beat_first_a = found ? (pass5 ? first_hi_q : first_a_q) : beat_a;
  always_comb begin
    beat_members = '0;
    for (int unsigned k = 0; k < LANES; k++) begin
      beat_members = beat_members | (a_i[32*k +: 32] & {32{exec5[k]}});
    end
  end

  // Each lane's word of the target compared with the first's, and whether the lane's frame
  // moved by the call's would pass the end of local memory: its frame start above the
  // local size less the frame (`limit_q`, made while the beats issue; below zero when the
  // frame alone is too large).
  logic [19:0]      frame_size;
  logic [32:0]      limit_q;
  logic [LANES-1:0] eq5, ovf5;
  assign frame_size = is_callr ? instr_q[sgpu_isa_pkg::RFRAME_MSB:sgpu_isa_pkg::RFRAME_LSB]
                               : instr_q[sgpu_isa_pkg::FRAME_MSB:sgpu_isa_pkg::FRAME_LSB];
  always_ff @(posedge clk_i) begin
    if (v1_q) limit_q <= {1'b0, local_size_i} - 33'(frame_size);
  end
  always_comb begin
    for (int unsigned k = 0; k < LANES; k++) begin
      eq5[k]  = a_i[32*k +: 32] == beat_first_a;
      ovf5[k] = limit_q[32] || c_i[32*k +: 32] > limit_q[31:0];
    end
  end

  // ------------------------------------------------------------------------------------
  // Cycle t + 6: the lanes that call (CALL: every executing one; CALLR, in its second pass:
  // those whose target is the first's), and whether one's frame overflows. (In one cycle
  // with the first lane's choice and the comparisons, 58.2 MHz on an ECP5.)
  // ------------------------------------------------------------------------------------
  logic             v6, pass6, last6;
  logic [BW-1:0]    beat6;
  logic [LANES-1:0] exec6, eq6, ovf6, calls6;
  sgpu_pipe #(.W(BW + 2 + 3 * LANES), .DEPTH(1)) u_to_calls (
    .clk_i, .rst_ni,
    .valid_i(v5),
    .data_i ({beat5, pass5, last5, exec5, eq5, ovf5}),
    .valid_o(v6),
    .data_o ({beat6, pass6, last6, exec6, eq6, ovf6})
  );
  logic [LANES-1:0] eqlo6;
  assign eqlo6 = part(eqlo_q, beat6);
  always_comb begin
    for (int unsigned k = 0; k < LANES; k++) begin
      calls6[k] = is_call ? exec6[k]
                          : exec6[k] && pass6 && eqlo6[k] && eq6[k];
    end
  end

  // The frame starts of the beats, for their write.
  logic [32*LANES-1:0] frames_mem [BEATS];
  always_ff @(posedge clk_i) begin
    if (v5 && !pass5) frames_mem[beat5] <= c_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q   <= 1'b0;
      found_q  <= 1'b0;
      decide_q <= 1'b0;
    end else begin
      decide_q <= v6 && last6;
      if (issue_valid_i) busy_q <= 1'b1;
      if (done) busy_q <= 1'b0;
      if (v5) found_q <= found || exec5 != '0;
    end
  end
  always_ff @(posedge clk_i) begin
    if (issue_valid_i && !busy_q) begin
      members_q <= '0;
      over_q    <= 1'b0;
    end
    if (v5) begin
      if (!pass5) begin
        exec_q <= with_part(exec_q, beat5, exec5);
        set_q  <= with_part(set_q, beat5, set5);
        members_q <= members_q | beat_members;
      end
      if (!found && exec5 != '0) begin
        if (pass5) begin
          first_hi_q <= beat_a;
        end else begin
          first_a_q <= beat_a;
          first_b_q <= word_at(b_i, first5);
          first_c_q <= word_at(c_i, first5);
        end
      end
    end
    if (v6) begin
      if (!pass6) eqlo_q <= with_part(eqlo_q, beat6, eq6);
      same_q <= with_part(same_q, beat6, calls6);
      if ((calls6 & ovf6) != '0) over_q <= 1'b1;
    end
  end

  // ------------------------------------------------------------------------------------
  // The outcome, decided the cycle after the last beat is gathered, then offered.
  // ------------------------------------------------------------------------------------
  logic [31:0] next, target, live_q [WARPS], live_cur_q;
  logic [31:0] callr_at_hi, callr_at_lo;  // CALLR's target, a byte address
  logic        no_lane;
  assign next        = pc_q + 32'd8;
  assign target      = next + instr_q[sgpu_isa_pkg::TARGET_MSB:sgpu_isa_pkg::TARGET_LSB];
  assign callr_at_lo = first_a_q;
  assign callr_at_hi = first_hi_q;
  assign no_lane     = exec_q == '0;  // every beat issues, so exec_q is the instruction's

  typedef struct packed {
    logic [2:0]  kind;
    logic [31:0] target;
    logic [31:0] mask;
    logic [31:0] waiting;
    logic [31:0] frame;
    logic        bar;
    logic [31:0] id;
    logic        counted;
    logic [31:0] threads;
    logic        waits;
    logic        red;
    logic [1:0]  bred;
    logic [7:0]  trap;
    logic        frame_fault;
  } outcome_t;
  outcome_t out, out_q;

  always_comb begin
    out = '0;
    out.mask = exec_q;
    out.frame = 32'(frame_size);
    // A barrier's number and count: the first executing lane's; a count register of RZ is
    // every thread of the CTA.
    out.id = instr_q[sgpu_isa_pkg::BI_LSB] ? 32'(instr_q[sgpu_isa_pkg::RB_MSB:sgpu_isa_pkg::RB_LSB])
                                            : first_b_q;
    out.counted = instr_q[sgpu_isa_pkg::RC_MSB:sgpu_isa_pkg::RC_LSB] != RZ;
    out.threads = first_c_q;
    out.bred = instr_q[sgpu_isa_pkg::BRED_MSB:sgpu_isa_pkg::BRED_LSB];
    unique case (1'b1)
      is(op, sgpu_isa_pkg::OP_BRA): begin
        out.kind   = OP_BRANCH;
        out.target = target;
      end
      is(op, sgpu_isa_pkg::OP_SSY): begin
        out.kind   = OP_SSY;
        out.target = target;
      end
      is(op, sgpu_isa_pkg::OP_EXIT): out.kind = OP_EXIT;
      is(op, sgpu_isa_pkg::OP_RET):  out.kind = OP_RET;
      is_call: begin
        out.kind        = OP_CALL;
        out.target      = target;
        out.frame_fault = over_q;
      end
      is_callr: begin
        // The first lane's target: a multiple of 8 below 2^35 (a 32-bit word's address),
        // or no instruction's. Core v2's pcs are 32-bit byte addresses: a target of 4 GiB
        // or more is no instruction's either, and its fetch faults as the model's does.
        out.kind = OP_CALL;
        if (!no_lane && (callr_at_lo[2:0] != '0 || callr_at_hi[31:3] != '0)) begin
          out.trap = 8'(sgpu_isa_pkg::TRAP_CALL_TARGET);
        end
        out.target      = callr_at_hi != '0 ? NO_CODE : callr_at_lo;
        out.mask        = same_q;
        out.waiting     = exec_q & ~same_q;
        out.frame_fault = over_q;
      end
      is(op, sgpu_isa_pkg::OP_TRAP): begin
        if (!no_lane) out.trap = 8'(sgpu_isa_pkg::TRAP_INSTRUCTION);
      end
      is(op, sgpu_isa_pkg::OP_BAR): begin
        out.bar   = !no_lane;
        out.waits = instr_q[sgpu_isa_pkg::BMODE_MSB:sgpu_isa_pkg::BMODE_LSB] == 2'd0;
      end
      is_barred: begin
        out.bar   = !no_lane;
        out.waits = 1'b1;
        out.red   = 1'b1;
      end
      // `.sync`: every live lane the executing lanes name must execute it.
      is(op, sgpu_isa_pkg::OP_WARPSYNC): begin
        if ((members_q & live_cur_q & ~exec_q) != '0) begin
          out.trap = 8'(sgpu_isa_pkg::TRAP_SYNC_MEMBERS);
        end
      end
      is(op, sgpu_isa_pkg::OP_WARPSYNCI): begin
        if (!no_lane && (instr_q[sgpu_isa_pkg::IMM32_MSB:sgpu_isa_pkg::IMM32_LSB]
                         & live_cur_q & ~exec_q) != '0) begin
          out.trap = 8'(sgpu_isa_pkg::TRAP_SYNC_MEMBERS);
        end
      end
      default: ;  // NOP, MEMBAR: an advance
    endcase
  end

  logic offer_q, taken, done;
  assign taken = offer_q && ctl_ready_i;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) offer_q <= 1'b0;
    else if (decide_q) offer_q <= 1'b1;
    else if (taken) offer_q <= 1'b0;
  end
  always_ff @(posedge clk_i) begin
    if (decide_q) out_q <= out;
  end
  assign ctl_valid_o       = offer_q;
  assign ctl_warp_o        = slot_q;
  assign ctl_kind_o        = out_q.kind;
  assign ctl_next_o        = next;
  assign ctl_target_o      = out_q.target;
  assign ctl_mask_o        = out_q.mask;
  assign ctl_waiting_o     = out_q.waiting;
  assign ctl_frame_o       = out_q.frame;
  assign ctl_bar_o         = out_q.bar;
  assign ctl_bar_id_o      = out_q.id;
  assign ctl_bar_counted_o = out_q.counted;
  assign ctl_bar_threads_o = out_q.threads;
  assign ctl_bar_waits_o   = out_q.waits;
  assign ctl_bar_red_o     = out_q.red;
  assign ctl_bar_bred_o    = out_q.bred;
  assign ctl_bar_set_o     = set_q;
  assign ctl_trap_o        = out_q.trap;
  assign ctl_frame_fault_o = out_q.frame_fault;

  // A warp's live lanes, and the instruction's warp's as it starts.
  always_ff @(posedge clk_i) begin
    if (issue_valid_i && !busy_q) live_cur_q <= live_q[issue_slot_i];
    if (start_i) live_q[start_warp_i] <= start_lanes_i;
    if (taken && out_q.kind == OP_EXIT && out_q.trap == '0) begin
      live_q[slot_q] <= live_q[slot_q] & ~out_q.mask;
    end
  end

  // ------------------------------------------------------------------------------------
  // After the outcome: the frames' writes (CALL and CALLR moved by the frame once taken,
  // RET by the return's frame once the table says which lanes), or a beat for the
  // scoreboard alone; a BARRED that arrived waits for its release instead. A trap, or a
  // frame fault the table makes one, leaves the unit busy: the core stops.
  // ------------------------------------------------------------------------------------
  logic        fw_q, fw_ret_q;  // frames to write; a return's, its lanes to come
  logic [BW-1:0] fw_beat_q;
  logic [31:0] fw_lanes_q, fw_delta_q;
  logic        pend_barred, frames_op, fw_go, fw_take;
  assign pend_barred = is_barred && out_q.bar;
  assign frames_op   = is_call || is_callr || is_ret;
  assign fw_go       = fw_q && !fw_ret_q;
  assign done = taken && out_q.trap == '0 && !out_q.frame_fault
                && (pend_barred || !(frames_op || entry_valid_q))
                || fw_take && 32'(fw_beat_q) == BEATS - 1;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fw_q     <= 1'b0;
      fw_ret_q <= 1'b0;
    end else begin
      if (taken && out_q.trap == '0 && !out_q.frame_fault && !pend_barred
          && (frames_op || entry_valid_q)) begin
        fw_q     <= 1'b1;
        fw_ret_q <= is_ret;
      end
      if (fw_ret_q && ret_i && ret_warp_i == slot_q) fw_ret_q <= 1'b0;
      if (fw_take && 32'(fw_beat_q) == BEATS - 1) fw_q <= 1'b0;
    end
  end
  always_ff @(posedge clk_i) begin
    if (taken) begin
      fw_beat_q  <= '0;
      fw_lanes_q <= frames_op && out_q.kind == OP_CALL ? out_q.mask : '0;
      fw_delta_q <= out_q.frame;
    end
    if (fw_ret_q && ret_i && ret_warp_i == slot_q) begin
      fw_lanes_q <= ret_lanes_i;
      fw_delta_q <= -ret_frame_i;
    end
    if (fw_take) fw_beat_q <= fw_beat_q + BW'(1);
  end

  // ------------------------------------------------------------------------------------
  // BARRED: what its warp's result needs, kept from its outcome to its release; the
  // result's beats once released, a warp at a time.
  // ------------------------------------------------------------------------------------
  logic [WARPS-1:0] pend_q, todo_q;
  // Each waiting BARRED's record, written as its outcome is taken (one warp at a time: a
  // memory), read for its result's beats.
  typedef struct packed {
    logic [RW-1:0] row;
    logic          rd_rz;
    logic [2:0]    pd;
    logic [31:0]   mask;
    logic          entry_valid;
    logic [EW-1:0] entry;
  } red_t;
  red_t             red_mem [WARPS];
  red_t             red;
  logic [31:0]      res_value_q [WARPS];
  logic             res_red_q [WARPS];
  logic [1:0]       res_bred_q [WARPS];
  // A warp's beats one after another: the lowest released warp left, chosen into a
  // register a cycle before its first beat (read straight into the memories, the choice
  // was the unit's longest path) and kept until its last.
  logic [SW-1:0]    rw_warp, rw_first;
  logic [BW-1:0]    rw_beat_q;
  logic             rw_on_q, rw_go, rw_take;
  assign rw_go = rw_on_q;
  always_comb begin
    rw_first = '0;
    for (int w = WARPS - 1; w >= 0; w--) begin
      if (todo_q[w]) rw_first = SW'(w);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pend_q    <= '0;
      todo_q    <= '0;
      rw_beat_q <= '0;
      rw_on_q   <= 1'b0;
    end else begin
      if (!rw_on_q && todo_q != '0) rw_on_q <= 1'b1;
      if (taken && out_q.trap == '0 && pend_barred) pend_q[slot_q] <= 1'b1;
      if (rel_i) todo_q <= todo_q | (rel_warps_i & pend_q);
      if (rw_take) begin
        rw_beat_q <= rw_beat_q + BW'(1);
        if (32'(rw_beat_q) == BEATS - 1) begin
          rw_beat_q       <= '0;
          rw_on_q         <= 1'b0;
          pend_q[rw_warp] <= 1'b0;
          todo_q[rw_warp] <= 1'b0;
        end
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (!rw_on_q) rw_warp <= rw_first;
    if (taken && pend_barred) begin
      // The fields in red_t's order.
      red_mem[slot_q] <= {row_q, instr_q[sgpu_isa_pkg::RD_MSB:sgpu_isa_pkg::RD_LSB] == RZ,
                          instr_q[sgpu_isa_pkg::PD_MSB:sgpu_isa_pkg::PD_LSB], out_q.mask,
                          entry_valid_q, entry_q};
    end
    for (int unsigned w = 0; w < WARPS; w++) begin
      if (rel_i && rel_warps_i[w]) begin
        res_value_q[w] <= rel_value_i;
        res_red_q[w]   <= rel_red_i;
        res_bred_q[w]  <= rel_bred_i;
      end
    end
  end

  // ------------------------------------------------------------------------------------
  // The write-back register: a frame beat first, else a result beat.
  // ------------------------------------------------------------------------------------
  logic load;
  assign load    = !wb_valid_o || wb_ready_i;
  assign fw_take = load && fw_go;
  assign rw_take = load && !fw_go && rw_go;

  logic [32*LANES-1:0] fw_frames, fw_data, rw_data;
  logic [LANES-1:0]    fw_lanes, rw_lanes;
  logic [PW-1:0]       rw_truth;
  logic [31:0]         rw_mask;
  logic                rw_popc;
  assign fw_frames = frames_mem[fw_beat_q];
  assign fw_lanes  = part(fw_lanes_q, fw_beat_q);
  assign red       = red_mem[rw_warp];
  assign rw_mask   = red.mask;
  assign rw_lanes  = part(rw_mask, rw_beat_q);
  assign rw_popc   = res_bred_q[rw_warp] == BRED_POPC;
  always_comb begin
    for (int unsigned k = 0; k < LANES; k++) begin
      fw_data[32*k +: 32] = fw_frames[32*k +: 32] + fw_delta_q;
      rw_data[32*k +: 32] = res_value_q[rw_warp];
      rw_truth[8*k +: 8]  = {8{res_value_q[rw_warp] != '0}};
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) wb_valid_o <= 1'b0;
    else if (load) wb_valid_o <= fw_go || rw_go;
  end
  always_ff @(posedge clk_i) begin
    if (fw_take) begin
      wb_slot_o        <= slot_q;
      wb_beat_o        <= fw_beat_q;
      wb_rvalid_o      <= frames_op;
      wb_row_o         <= row_q;
      wb_lanes_o       <= fw_lanes;
      wb_data_o        <= fw_data;
      wb_pvalid_o      <= 1'b0;
      wb_last_o        <= 32'(fw_beat_q) == BEATS - 1;
      wb_entry_valid_o <= entry_valid_q;
      wb_entry_o       <= entry_q;
    end else if (rw_take) begin
      wb_slot_o        <= rw_warp;
      wb_beat_o        <= rw_beat_q;
      wb_rvalid_o      <= res_red_q[rw_warp] && rw_popc && !red.rd_rz;
      wb_row_o         <= red.row;
      wb_lanes_o       <= rw_lanes;
      wb_data_o        <= rw_data;
      wb_pvalid_o      <= res_red_q[rw_warp] && !rw_popc && red.pd != 3'd7;
      wb_pold_o        <= rows_mem[32'(rw_warp) * BEATS + 32'(rw_beat_q)];
      wb_pmask_o       <= sgpu_decode_pkg::pred_bit(red.pd);
      wb_pbits_o       <= rw_truth;
      wb_last_o        <= 32'(rw_beat_q) == BEATS - 1;
      wb_entry_valid_o <= red.entry_valid;
      wb_entry_o       <= red.entry;
    end
  end

`ifndef SYNTHESIS
  // A beat only when the unit is free or of the instruction under way; one instruction's
  // beats at a time; no release of a warp whose result is still being written.
  a_one_at_a_time: assert property (@(posedge clk_i) disable iff (!rst_ni)
      issue_valid_i && busy_q |-> issue_slot_i == slot_q && !offer_q && !fw_q);
  a_release_once: assert property (@(posedge clk_i) disable iff (!rst_ni)
      rel_i |-> (rel_warps_i & todo_q) == '0);
`endif

endmodule
