// Core v2's warp table (docs/adr/0008-core-v2-pipeline.md, "Warp table"): what each warp slot
// is doing, and the one place that moves warps. It holds per slot whether the warp lives
// (its CTA started, its lanes not all exited), has started, waits at a barrier or is being
// moved (a stack operation asked for or in flight), its CTA slot, its active mask and its
// stop pc; it owns the reconvergence stacks (`sgpu_simt_stack`) and the barriers
// (`sgpu_barriers`), and steers the front end with redirects and halts.
//
// A warp is moved in two ways, as the golden model's `step` moves it (sim/src/exec/mod.rs):
//  - a control instruction's outcome, from the control unit: a stack operation (an advance
//    for those that only go on to the next instruction: NOP, MEMBAR, WARPSYNC, BAR) and,
//    for BAR and BARRED with lanes running, a barrier arrival; kept in one holding register
//    until the stack and the barriers have taken their parts;
//  - an advance to the stop pc, asked for here when the fetch has stopped there and the
//    warp's buffer is empty (every instruction before it issued): the model's `advance` pops
//    the entries that reached their reconvergence point at the same instruction.
// Either way the stack answers with the warp's new top, which becomes a redirect of the
// fetch (its pc, its reconvergence pc as the stop pc unless it is a call's entry) and the
// warp's mask; or with an empty stack (the warp's last lanes exited: its fetch halted, its
// exit sent to the barriers); or with a fault. One stack operation at a time: the holding
// register and the advances take turns, the advances among themselves in round robin.
// Exits go to the barriers before arrivals.
//
// The first trap (a stack fault, the control unit's (sgpu_control: TRAP, a `.sync` member
// not executing, a CALLR target, a call's frame overflow once the stack has taken the call),
// a barrier fault, a fetch fault once the warp's buffer has drained, a CTA whose live warps
// all wait at barriers with none in flight) is held until reset, and stops every issue and
// stack operation.
module sgpu_warp_table #(
  parameter int unsigned WARPS = 8,  // warp slots
  parameter int unsigned CTAS = 8,   // CTA slots
  parameter int unsigned DEPTH = 64, // a warp's reconvergence stack
  localparam int unsigned SW = (WARPS > 1) ? $clog2(WARPS) : 1,
  localparam int unsigned CW = (CTAS > 1) ? $clog2(CTAS) : 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,

  // A CTA starts in slot `cta_start_cta_i` with the warp slots `cta_start_warps_i`; then
  // each of them starts at its pc with the lanes that exist, one a cycle, while
  // `start_ready_o` (the stack takes a start only between operations).
  input  logic             cta_start_i,
  input  logic [CW-1:0]    cta_start_cta_i,
  input  logic [WARPS-1:0] cta_start_warps_i,
  input  logic             start_i,
  output logic             start_ready_o,
  input  logic [SW-1:0]    start_warp_i,
  input  logic [31:0]      start_pc_i,
  input  logic [31:0]      start_lanes_i,

  // The front end (sgpu_frontend): redirects and halts out, each warp's fetch state in.
  output logic             redirect_o,
  output logic [SW-1:0]    redirect_warp_o,
  output logic [31:0]      redirect_pc_o,
  output logic [31:0]      redirect_stop_pc_o,
  output logic             halt_o,
  output logic [SW-1:0]    halt_warp_o,
  input  logic [WARPS-1:0] stopped_i,
  input  logic [WARPS-1:0] at_stop_i,
  input  logic [WARPS-1:0] fault_i,
  input  logic [WARPS-1:0] fault_mem_i,
  input  logic [2*WARPS-1:0] count_i,

  // The issue: the warps that may issue, and a pop's pc in and active mask out (the issue
  // keeps the mask for the instruction's beats).
  output logic [WARPS-1:0] issuable_o,
  input  logic             pop_i,
  input  logic [SW-1:0]    pop_warp_i,
  input  logic [31:0]      pop_pc_i,
  output logic [31:0]      pop_mask_o,

  // A control instruction's outcome (see above). The stack part: sgpu_simt_stack's
  // operation and operands; the barrier part (`ctl_bar_i`): sgpu_barriers' arrival, its
  // running lanes being `ctl_mask_i`.
  input  logic             ctl_valid_i,
  output logic             ctl_ready_o,
  input  logic [SW-1:0]    ctl_warp_i,
  input  logic [2:0]       ctl_kind_i,
  input  logic [31:0]      ctl_next_i,
  input  logic [31:0]      ctl_target_i,
  input  logic [31:0]      ctl_mask_i,
  input  logic [31:0]      ctl_waiting_i,
  input  logic [31:0]      ctl_frame_i,
  input  logic             ctl_bar_i,
  input  logic [31:0]      ctl_bar_id_i,
  input  logic             ctl_bar_counted_i,
  input  logic [31:0]      ctl_bar_threads_i,
  input  logic             ctl_bar_waits_i,
  input  logic             ctl_bar_red_i,
  input  logic [1:0]       ctl_bar_bred_i,
  input  logic [31:0]      ctl_bar_set_i,
  // A trap the control unit found (a cause other than 0: the outcome is that trap alone),
  // and a call's frame overflow, a trap once the stack has taken the call without a fault
  // of its own (the golden model checks the stack first).
  input  logic [7:0]       ctl_trap_i,
  input  logic             ctl_frame_fault_i,

  // For the lanes: a return's frames (sgpu_simt_stack), a barrier's release with a BARRED's
  // result for the warps released (sgpu_barriers).
  output logic             ret_o,
  output logic [SW-1:0]    ret_warp_o,
  output logic [31:0]      ret_lanes_o,
  output logic [31:0]      ret_frame_o,
  output logic             rel_o,
  output logic [3:0]       rel_id_o,
  output logic [WARPS-1:0] rel_warps_o,
  output logic             rel_red_o,
  output logic [1:0]       rel_bred_o,
  output logic [31:0]      rel_value_o,

  // A warp's last lanes have exited: its slot is free, and with `exit_last_o` its CTA's.
  output logic             exit_o,
  output logic [SW-1:0]    exit_warp_o,
  output logic [CW-1:0]    exit_cta_o,
  output logic             exit_last_o,

  // The first trap: its warp, cause (sgpu_isa_pkg's TRAP_*) and pc.
  output logic             trap_o,
  output logic [SW-1:0]    trap_warp_o,
  output logic [7:0]       trap_cause_o,
  output logic [31:0]      trap_pc_o
);

  localparam logic [2:0] OP_ADVANCE = 3'd0, OP_RET = 3'd5;
  localparam logic [1:0] FAULT_OVERFLOW = 2'd1, FAULT_RET = 2'd2;
  localparam logic [31:0] NEVER = 32'hffff_ffff;
  localparam int unsigned NW = $clog2(DEPTH + 1);

  function automatic logic [WARPS-1:0] onehot(logic [SW-1:0] w);
    onehot = WARPS'(1) << w;
  endfunction
  // The lowest warp of a mask (0 for none).
  function automatic logic [SW-1:0] lowest(logic [WARPS-1:0] m);
    lowest = '0;
    for (int w = WARPS - 1; w >= 0; w--) begin
      if (m[w]) lowest = SW'(w);
    end
  endfunction

  // Per warp slot.
  logic [WARPS-1:0] live_q, run_q, wait_q, move_q, adv_q, exq_q;
  logic [WARPS-1:0] live_d, run_d, wait_d, move_d, adv_d, exq_d;
  // Each warp's CTA slot (warp w's at bits CW w), and as a mask a CTA (warp w in CTA slot c
  // at bit WARPS c + w).
  logic [WARPS*CW-1:0]   cta_q;
  logic [CTAS*WARPS-1:0] in_cta;
  function automatic logic [CW-1:0] cta_of(logic [SW-1:0] w);
    cta_of = cta_q[CW*w +: CW];
  endfunction
  for (genvar c = 0; c < CTAS; c++) begin : g_in_cta
    for (genvar w = 0; w < WARPS; w++) begin : g_warp
      assign in_cta[WARPS*c + w] = cta_q[CW*w +: CW] == CW'(c);
    end
  end
  logic [31:0] mask_q [WARPS];
  logic [31:0] stop_q [WARPS];
  // Where a warp's next instruction to issue is, for a fetch fault's trap: written by a
  // redirect and by a pop, each for its own warp in one cycle, so two memories and a bit a
  // warp that says which holds it (as sgpu_fetch keeps its pcs).
  logic [31:0] moved_pc_q [WARPS];
  logic [31:0] popped_pc_q [WARPS];
  logic [WARPS-1:0] from_pop_q;
  logic trap_q;

  // The holding register: a control instruction's outcome until the stack and the
  // barriers have taken their parts.
  logic          hold_stk_q, hold_bar_q;
  logic [SW-1:0] h_warp_q;
  logic [2:0]    h_kind_q;
  logic [31:0]   h_next_q, h_target_q, h_mask_q, h_waiting_q, h_frame_q;
  logic [31:0]   h_id_q, h_threads_q, h_set_q;
  logic          h_counted_q, h_waits_q, h_red_q, h_ffault_q;
  logic          ctl_trap_q;
  logic [SW-1:0] ctl_trap_warp_q;
  logic [7:0]    ctl_trap_cause_q;
  logic [31:0]   ctl_trap_pc_q;
  logic [1:0]    h_bred_q;
  logic          accept;
  assign ctl_ready_o = !hold_stk_q && !hold_bar_q;
  assign accept      = ctl_valid_i && ctl_ready_o;

  // The stacks: the holding register and the advances take turns. An advance is chosen a
  // cycle ahead into a register (`aop_*`), with its stop pc: the round robin and the read of
  // the stop pc, straight into the stack's choice of its warp's state, were the table's
  // critical path (94.0 to 95.4 MHz).
  logic          stk_busy_q, stk_ready, stk_valid, stk_take, stk_hold, adv_any, adv_last_q;
  logic [SW-1:0] adv_pick, adv_prev_q, stk_warp;
  logic          aop_q, aop_load;
  logic [SW-1:0] aop_warp_q;
  logic [31:0]   aop_next_q;
  logic          stk_done;
  logic [SW-1:0] stk_done_warp;
  logic [1:0]    stk_fault;
  logic [31:0]   stk_pc, stk_rpc, stk_mask, stk_ret_lanes, stk_ret_frame, stk_next;
  logic          stk_call;
  logic [NW-1:0] stk_size;
  logic [2:0]    stk_kind_q;
  logic          stk_ffault_q;
  logic [31:0]   stk_next_q;
  sgpu_round_robin #(.N(WARPS)) u_adv (
    .req_i (adv_q),
    .last_i(adv_prev_q),
    .any_o (adv_any),
    .pick_o(adv_pick)
  );
  assign aop_load  = (!aop_q || stk_take && !stk_hold) && adv_any;
  assign stk_hold  = hold_stk_q && !(aop_q && adv_last_q == 1'b0);
  assign stk_valid = (hold_stk_q || aop_q) && !trap_q;
  assign stk_take  = stk_valid && stk_ready;
  assign stk_warp  = stk_hold ? h_warp_q : aop_warp_q;
  assign stk_next  = stk_hold ? h_next_q : aop_next_q;
  assign start_ready_o = !stk_busy_q;

  sgpu_simt_stack #(.WARPS(WARPS), .DEPTH(DEPTH)) u_stack (
    .clk_i, .rst_ni,
    .start_i      (start_i),
    .start_warp_i (start_warp_i),
    .start_pc_i   (start_pc_i),
    .start_lanes_i(start_lanes_i),
    .op_valid_i   (stk_valid),
    .ready_o      (stk_ready),
    .op_warp_i    (stk_warp),
    .op_kind_i    (stk_hold ? h_kind_q : OP_ADVANCE),
    .op_next_i    (stk_next),
    .op_target_i  (h_target_q),
    .op_mask_i    (h_mask_q),
    .op_waiting_i (h_waiting_q),
    .op_frame_i   (h_frame_q),
    .done_o       (stk_done),
    .done_warp_o  (stk_done_warp),
    .done_fault_o (stk_fault),
    .done_pc_o    (stk_pc),
    .done_rpc_o   (stk_rpc),
    .done_call_o  (stk_call),
    .done_mask_o  (stk_mask),
    .done_size_o  (stk_size),
    .ret_lanes_o  (stk_ret_lanes),
    .ret_frame_o  (stk_ret_frame)
  );

  // The stack's answer.
  logic stk_moved, stk_exited, stk_faulted;
  assign stk_faulted = stk_done && (stk_fault != '0 || stk_ffault_q);
  assign stk_exited  = stk_done && !stk_faulted && stk_size == '0;
  assign stk_moved   = stk_done && !stk_faulted && stk_size != '0;

  // The front end: a start or a move redirects (never both in a cycle: a start comes only
  // while the stack is idle); an exit halts. A call's entry has no stop pc: it ends when its
  // lanes have returned, and its return address may be an instruction of the callee too.
  assign redirect_o         = (start_i || stk_moved) && !trap_q;
  assign redirect_warp_o    = start_i ? start_warp_i : stk_done_warp;
  assign redirect_pc_o      = start_i ? start_pc_i : stk_pc;
  assign redirect_stop_pc_o = start_i || stk_call ? NEVER : stk_rpc;
  assign halt_o             = stk_exited;
  assign halt_warp_o        = stk_done_warp;

  // The barriers: exits first (the lowest warp), then the holding register's arrival, chosen
  // into a register (`bop_*`) before they go: the choice and the CTA found for it, straight
  // into the barriers' first stage, were a path of 15 LUTs (62.1 to 67.8 MHz). An arrival's
  // operands stay in the holding register until the barriers take it.
  logic          bar_ready, bar_valid, bar_take, bar_rel, bar_done, bop_load;
  logic          bop_q, bop_exit_q;
  logic [SW-1:0] exq_first, bop_warp_q, bar_warp_q;
  logic [CW-1:0] bop_cta_q;
  logic [31:0]   bar_pc_q;
  logic [7:0]    bar_cause;
  assign exq_first = lowest(exq_q);
  assign bop_load  = (!bop_q || bar_take) && (exq_q != '0 || hold_bar_q && !(bop_q && !bop_exit_q));
  assign bar_valid = bop_q && !trap_q;
  assign bar_take  = bar_valid && bar_ready;

  sgpu_barriers #(.WARPS(WARPS), .CTAS(CTAS)) u_barriers (
    .clk_i, .rst_ni,
    .start_i      (cta_start_i),
    .start_cta_i  (cta_start_cta_i),
    .start_warps_i(cta_start_warps_i),
    .op_valid_i   (bar_valid),
    .ready_o      (bar_ready),
    .op_exit_i    (bop_exit_q),
    .op_warp_i    (bop_warp_q),
    .op_cta_i     (bop_cta_q),
    .op_id_i      (h_id_q),
    .op_counted_i (h_counted_q),
    .op_threads_i (h_threads_q),
    .op_waits_i   (h_waits_q),
    .op_red_i     (h_red_q),
    .op_bred_i    (h_bred_q),
    .op_mask_i    (h_mask_q),
    .op_set_i     (h_set_q),
    .rel_o        (bar_rel),
    .rel_id_o     (rel_id_o),
    .rel_warps_o  (rel_warps_o),
    .rel_red_o    (rel_red_o),
    .rel_bred_o   (rel_bred_o),
    .rel_value_o  (rel_value_o),
    .done_o       (bar_done),
    .done_cause_o (bar_cause)
  );
  assign rel_o = bar_rel && !trap_q;

  // A warp's fetch has stopped at its stop pc (asks for an advance) or at a fault (traps),
  // with its buffer drained, while it runs and nothing else moves it.
  logic [WARPS-1:0] settled, at_stop, at_fault;
  for (genvar w = 0; w < WARPS; w++) begin : g_settled
    assign settled[w] = run_q[w] && !move_q[w] && !wait_q[w] && stopped_i[w]
                        && count_i[2*w +: 2] == 2'd0;
  end
  assign at_stop  = settled & at_stop_i;
  assign at_fault = settled & fault_i;

  // A CTA deadlocks when its live warps all wait and no arrival or exit is on its way to
  // the barriers (any of them could complete a barrier). Found in two steps a cycle apart
  // (the CTAs stuck, then the lowest warp of one; as one step it was the table's critical
  // path, 74.2 to 78.0 MHz): nothing moves a stuck CTA's warps meanwhile.
  logic [CTAS-1:0]  stuck, stuck_q;
  logic [WARPS-1:0] mine;
  logic             deadlock;
  logic [SW-1:0]    deadlock_warp;
  always_comb begin
    stuck = '0;
    mine  = '0;
    for (int unsigned c = 0; c < CTAS; c++) begin
      mine     = live_q & in_cta[WARPS*c +: WARPS];
      stuck[c] = mine != '0 && (mine & ~wait_q) == '0;
    end
    if (!bar_ready || bop_q || hold_bar_q || exq_q != '0) stuck = '0;
  end
  logic [WARPS-1:0] stuck_warps;
  for (genvar w = 0; w < WARPS; w++) begin : g_stuck_warps
    assign stuck_warps[w] = live_q[w] && stuck_q[cta_of(SW'(w))];
  end
  assign deadlock      = stuck_q != '0;
  assign deadlock_warp = lowest(stuck_warps);

  // The first fetch fault (lowest warp). It and a deadlock trap a cycle after they are
  // found (both last: nothing moves a warp that waits or whose fetch faulted), so that
  // finding them and choosing among the causes are a cycle apart.
  logic          fetch_fault, fault_q, dead_q;
  logic [SW-1:0] fault_warp, fault_warp_q, dead_warp_q;
  assign fetch_fault = at_fault != '0;
  assign fault_warp  = lowest(at_fault);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fault_q <= 1'b0;
      dead_q  <= 1'b0;
      stuck_q <= '0;
    end else begin
      fault_q <= fetch_fault && !trap_q;
      dead_q  <= deadlock && !trap_q;
      stuck_q <= stuck;
    end
  end
  always_ff @(posedge clk_i) begin
    fault_warp_q <= fault_warp;
    dead_warp_q  <= deadlock_warp;
  end
  logic trap_now;
  assign trap_now = stk_faulted || ctl_trap_q || bar_done && bar_cause != '0 || fault_q
                    || dead_q;

  // The warps' state after this cycle.
  always_comb begin
    live_d = live_q;
    run_d  = run_q;
    wait_d = wait_q;
    move_d = move_q | at_stop;
    adv_d  = adv_q | at_stop;
    exq_d  = exq_q;
    if (aop_load) adv_d[adv_pick] = 1'b0;
    if (bop_load && exq_q != '0) exq_d[exq_first] = 1'b0;
    if (rel_o) wait_d = wait_d & ~rel_warps_o;
    if (accept) begin
      move_d[ctl_warp_i] = 1'b1;
      if (ctl_bar_i && ctl_bar_waits_i) wait_d[ctl_warp_i] = 1'b1;
    end
    if (stk_done && !stk_faulted) move_d[stk_done_warp] = 1'b0;
    if (stk_exited) begin
      live_d[stk_done_warp] = 1'b0;
      run_d[stk_done_warp]  = 1'b0;
      exq_d[stk_done_warp]  = 1'b1;
    end
    if (start_i) run_d[start_warp_i] = 1'b1;
    if (cta_start_i) live_d = live_d | cta_start_warps_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      live_q     <= '0;
      run_q      <= '0;
      wait_q     <= '0;
      move_q     <= '0;
      adv_q      <= '0;
      exq_q      <= '0;
      cta_q      <= '0;
      hold_stk_q <= 1'b0;
      hold_bar_q <= 1'b0;
      bop_q      <= 1'b0;
      stk_busy_q <= 1'b0;
      aop_q      <= 1'b0;
      adv_last_q <= 1'b0;
      adv_prev_q <= '0;
      trap_q     <= 1'b0;
      ctl_trap_q <= 1'b0;
      from_pop_q <= '0;
    end else begin
      live_q <= live_d;
      run_q  <= run_d;
      wait_q <= wait_d;
      move_q <= move_d;
      adv_q  <= adv_d;
      exq_q  <= exq_d;
      for (int unsigned w = 0; w < WARPS; w++) begin
        if (cta_start_i && cta_start_warps_i[w]) cta_q[CW*w +: CW] <= cta_start_cta_i;
      end
      ctl_trap_q <= accept && ctl_trap_i != '0;
      if (accept && ctl_trap_i == '0) begin
        hold_stk_q <= 1'b1;
        hold_bar_q <= ctl_bar_i;
      end
      if (stk_take && stk_hold) hold_stk_q <= 1'b0;
      if (bar_take && !bop_exit_q) hold_bar_q <= 1'b0;
      if (bop_load) bop_q <= 1'b1;
      else if (bar_take) bop_q <= 1'b0;
      if (aop_load) begin
        aop_q      <= 1'b1;
        adv_prev_q <= adv_pick;
      end else if (stk_take && !stk_hold) begin
        aop_q <= 1'b0;
      end
      if (stk_take) begin
        stk_busy_q <= 1'b1;
        adv_last_q <= !stk_hold;
      end else if (stk_done) begin
        stk_busy_q <= 1'b0;
      end
      if (trap_now) trap_q <= 1'b1;
      if (pop_i) from_pop_q[pop_warp_i] <= 1'b1;
      if (redirect_o) from_pop_q[redirect_warp_o] <= 1'b0;
    end
  end

  // The holding register's fields, the operations in flight, and the per-warp memories.
  always_ff @(posedge clk_i) begin
    if (accept) begin
      h_warp_q    <= ctl_warp_i;
      h_kind_q    <= ctl_kind_i;
      h_next_q    <= ctl_next_i;
      h_target_q  <= ctl_target_i;
      h_mask_q    <= ctl_mask_i;
      h_waiting_q <= ctl_waiting_i;
      h_frame_q   <= ctl_frame_i;
      h_id_q      <= ctl_bar_id_i;
      h_counted_q <= ctl_bar_counted_i;
      h_threads_q <= ctl_bar_threads_i;
      h_waits_q   <= ctl_bar_waits_i;
      h_red_q     <= ctl_bar_red_i;
      h_bred_q    <= ctl_bar_bred_i;
      h_set_q     <= ctl_bar_set_i;
      h_ffault_q  <= ctl_frame_fault_i;
      ctl_trap_warp_q  <= ctl_warp_i;
      ctl_trap_cause_q <= ctl_trap_i;
      ctl_trap_pc_q    <= ctl_next_i - 32'd8;
    end
    if (aop_load) begin
      aop_warp_q <= adv_pick;
      aop_next_q <= stop_q[adv_pick];
    end
    if (stk_take) begin
      stk_kind_q   <= stk_hold ? h_kind_q : OP_ADVANCE;
      stk_ffault_q <= stk_hold && h_ffault_q;
      stk_next_q <= stk_next;
    end
    if (bop_load) begin
      bop_exit_q <= exq_q != '0;
      bop_warp_q <= exq_q != '0 ? exq_first : h_warp_q;
      bop_cta_q  <= cta_of(exq_q != '0 ? exq_first : h_warp_q);
    end
    if (bar_take) begin
      bar_warp_q <= bop_warp_q;
      bar_pc_q   <= h_next_q - 32'd8;
    end
    // A start only while the stack is idle, so never with an answer.
    if (start_i || stk_moved) begin
      mask_q[redirect_warp_o]     <= start_i ? start_lanes_i : stk_mask;
      stop_q[redirect_warp_o]     <= redirect_stop_pc_o;
      moved_pc_q[redirect_warp_o] <= redirect_pc_o;
    end
    if (pop_i) popped_pc_q[pop_warp_i] <= pop_pc_i + 32'd8;
  end
  assign pop_mask_o = mask_q[pop_warp_i];
  assign issuable_o = run_q & ~wait_q & ~move_q & {WARPS{!trap_q}};

  // The outputs of an answer, registered.
  logic [WARPS-1:0] cta_mates;  // the live warps of the exiting warp's CTA
  always_comb begin
    cta_mates = '0;
    for (int unsigned c = 0; c < CTAS; c++) begin
      if (32'(cta_of(stk_done_warp)) == c) cta_mates = in_cta[WARPS*c +: WARPS];
    end
    cta_mates = cta_mates & live_q & ~onehot(stk_done_warp);
  end
  logic [SW-1:0] bar_pick_warp;
  assign bar_pick_warp = bar_done ? bar_warp_q : fault_warp_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ret_o   <= 1'b0;
      exit_o  <= 1'b0;
      trap_o  <= 1'b0;
    end else begin
      ret_o  <= stk_done && !stk_faulted && stk_kind_q == OP_RET && !trap_q;
      exit_o <= stk_exited && !trap_q;
      if (!trap_q) begin
        trap_o <= trap_now;
      end
    end
  end
  always_ff @(posedge clk_i) begin
    ret_warp_o  <= stk_done_warp;
    ret_lanes_o <= stk_ret_lanes;
    ret_frame_o <= stk_ret_frame;
    exit_warp_o <= stk_done_warp;
    exit_cta_o  <= cta_of(stk_done_warp);
    exit_last_o <= cta_mates == '0;
    if (!trap_q) begin
      // One cause a cycle: the stack's, the control unit's, the barriers', a fetch fault,
      // a deadlock.
      if (stk_faulted) begin
        trap_warp_o  <= stk_done_warp;
        trap_cause_o <= stk_fault == FAULT_OVERFLOW ? 8'(sgpu_isa_pkg::TRAP_STACK_OVERFLOW)
                        : stk_fault == FAULT_RET ? 8'(sgpu_isa_pkg::TRAP_RET_OUTSIDE)
                        : 8'(sgpu_isa_pkg::TRAP_FRAME_OVERFLOW);
        trap_pc_o    <= stk_next_q - 32'd8;
      end else if (ctl_trap_q) begin
        trap_warp_o  <= ctl_trap_warp_q;
        trap_cause_o <= ctl_trap_cause_q;
        trap_pc_o    <= ctl_trap_pc_q;
      end else if (bar_done && bar_cause != '0 || fault_q) begin
        trap_warp_o  <= bar_pick_warp;
        trap_cause_o <= bar_done && bar_cause != '0 ? bar_cause
                        : fault_mem_i[fault_warp_q] ? 8'(sgpu_isa_pkg::TRAP_OUT_OF_BOUNDS)
                        : 8'(sgpu_isa_pkg::TRAP_PC_OUTSIDE_CODE);
        trap_pc_o    <= bar_done && bar_cause != '0 ? bar_pc_q
                        : from_pop_q[fault_warp_q] ? popped_pc_q[fault_warp_q]
                        : moved_pc_q[fault_warp_q];
      end else begin
        trap_warp_o  <= dead_warp_q;
        trap_cause_o <= 8'(sgpu_isa_pkg::TRAP_DEADLOCK);
        trap_pc_o    <= '0;
      end
    end
  end

`ifndef SYNTHESIS
  // A pop only of a warp that may issue; a control outcome only for a running warp that is
  // not being moved (it stopped fetching after its control instruction); a start only of a
  // warp of a started CTA, not running.
  a_pop: assert property (@(posedge clk_i) disable iff (!rst_ni)
      pop_i |-> issuable_o[pop_warp_i]);
  a_ctl: assert property (@(posedge clk_i) disable iff (!rst_ni)
      ctl_valid_i |-> run_q[ctl_warp_i] && !move_q[ctl_warp_i]);
  a_start: assert property (@(posedge clk_i) disable iff (!rst_ni)
      start_i |-> start_ready_o && live_q[start_warp_i] && !run_q[start_warp_i]);
  // The stack answers only the operation in flight.
  a_answer: assert property (@(posedge clk_i) disable iff (!rst_ni)
      stk_done |-> stk_busy_q);
`endif

endmodule
