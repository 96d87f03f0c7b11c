// Core v2's named barriers (docs/adr/0008-core-v2-pipeline.md, "Barriers"): sixteen a CTA
// for every CTA slot, as the golden model keeps them (sim/src/barrier.rs): per barrier the
// warps arrived since it last completed, the number it completes at (a thread count over 32,
// or every warp of the CTA that has not exited), the warps waiting at it and a BARRED's
// reduction so far. The control unit sends arrivals (BAR, BARRED) and exits one at a time;
// each is answered with `done_o`, a fault if the arrival was wrong (a barrier other than 0 to
// 15, a count that is not a positive multiple of 32, a count or reduction other than the
// barrier's first arrival's), and before that a release for each barrier it completed: the
// warps waiting there and the reduction's result. An arrival completes at most its own
// barrier; an exit may complete any barrier of its CTA that waits for every warp left, and
// those are released one after another, lowest first, as the model's `recheck` runs them.
//
// Barriers are rare, so one operation at a time and a few cycles each: an arrival is
// answered 5 cycles after it is accepted (its barrier's row asked for, read through the
// memory's output register, then updated; its release, if any, a cycle before), 2 when it
// faults at once (the barrier or the count); an exit 3 + 3k cycles after, for the k barriers
// of its CTA that are busy, each looked at in 3 cycles. The barriers' state is in one
// small memory, a row a barrier; which are busy is in flip-flops, so a CTA's start frees its
// barriers at once.
module sgpu_barriers #(
  parameter int unsigned WARPS = 8,  // warp slots
  parameter int unsigned CTAS = 8,   // CTA slots
  localparam int unsigned SW = (WARPS > 1) ? $clog2(WARPS) : 1,
  localparam int unsigned CW = (CTAS > 1) ? $clog2(CTAS) : 1,
  localparam int unsigned ROWW = $clog2(CTAS * 16),  // a barrier's row: {CTA, barrier}
  localparam int unsigned NBAR = 16
) (
  input  logic             clk_i,
  input  logic             rst_ni,

  // A CTA starts in slot `start_cta_i` with the warp slots `start_warps_i`.
  input  logic             start_i,
  input  logic [CW-1:0]    start_cta_i,
  input  logic [WARPS-1:0] start_warps_i,

  // An arrival, or (op_exit_i) the exit of a warp's last lanes. An arrival's barrier and
  // thread count (op_counted_i: its count register is not RZ) are its first lane's; a
  // BARRED (op_red_i) brings its operation, its running lanes (op_mask_i) and those of them
  // whose predicate is true (op_set_i).
  input  logic             op_valid_i,
  output logic             ready_o,
  input  logic             op_exit_i,
  input  logic [SW-1:0]    op_warp_i,
  input  logic [CW-1:0]    op_cta_i,
  input  logic [31:0]      op_id_i,
  input  logic             op_counted_i,
  input  logic [31:0]      op_threads_i,
  input  logic             op_waits_i,   // .sync (and BARRED), not .arrive
  input  logic             op_red_i,
  input  logic [1:0]       op_bred_i,    // sgpu_isa_pkg's BRED_POPC, BRED_AND, BRED_OR
  input  logic [31:0]      op_mask_i,
  input  logic [31:0]      op_set_i,

  // A barrier completed: its waiting warps run on, and a BARRED's result is theirs.
  output logic             rel_o,
  output logic [3:0]       rel_id_o,
  output logic [WARPS-1:0] rel_warps_o,
  output logic             rel_red_o,
  output logic [1:0]       rel_bred_o,
  output logic [31:0]      rel_value_o,

  // The operation's end: 0, or the trap cause (sgpu_isa_pkg's TRAP_BARRIER_*).
  output logic             done_o,
  output logic [7:0]       done_cause_o
);

  // A barrier's row. `expected` is the count over 32 in full: a count of more warps than a
  // CTA has never completes, as in the model, and two such counts still differ.
  typedef struct packed {
    logic             counted;
    logic [26:0]      expected;
    logic             red;
    logic [1:0]       bred;
    logic [26:0]      arrived;   // at most `expected`, or the 32 warps of a CTA
    logic [WARPS-1:0] waiting;
    logic [10:0]      popc;      // at most 1,024 threads
    logic             all, any;
  } row_t;
  localparam int unsigned RW = 1 + 27 + 1 + 2 + 27 + WARPS + 11 + 2;

  typedef enum logic [2:0] {
    S_IDLE,    // ready
    S_LOOK,    // an arrival's row asked for
    S_READ,    // read (into the memory's output register)
    S_UPDATE,  // and updated: completed, or written back
    S_SCAN,    // an exit: the next busy barrier of the CTA asked for
    S_SCAN_READ,
    S_CHECK,   // and completed if every warp left has arrived
    S_DONE     // answered
  } state_e;
  state_e state_q;

  // Which barriers are busy (arrivals since they last completed; CTA c's barrier b at bit
  // NBAR c + b), and each CTA's warps that have not exited (at WARPS c + w).
  logic [CTAS*NBAR-1:0]  busy_q;
  logic [CTAS*WARPS-1:0] live_q;

  // The operation in progress.
  logic          counted_q, waits_q, red_q, all_q, any_q;
  logic [SW-1:0] warp_q;
  logic [CW-1:0] cta_q;
  logic [3:0]    id_q;
  logic [26:0]   expected_q;
  logic [1:0]    bred_q;
  logic [5:0]    popc_q;   // the true lanes of a BARRED
  logic [NBAR-1:0] todo_q; // an exit's busy barriers not yet looked at
  logic [5:0]    live_n_q; // the CTA's warps not exited (from the second cycle on)
  logic          first_q;  // an arrival is its barrier's first
  logic [26:0]   least_q;  // the arrivals before it that complete its barrier

  // CTA c's barrier b: row {c, b} of the memory, and busy bit NBAR c + b (one CTA: b).
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [ROWW-1:0] row(logic [CW-1:0] c, logic [3:0] b);
    row = ROWW'({c, b});
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  logic          we;
  logic [ROWW-1:0] raddr, waddr;
  row_t          rdata, wdata;
  sgpu_ram #(.WIDTH(RW), .DEPTH(CTAS * NBAR), .COLLIDE_OLD(1'b0), .OUT_REG(1'b1)) u_rows (
    .clk_i,
    .raddr_i(raddr),
    .rdata_o(rdata),
    .we_i   (we),
    .waddr_i(waddr),
    .wdata_i(wdata)
  );

  // The lowest barrier an exit has still to look at.
  logic [3:0] next_id;
  always_comb begin
    next_id = '0;
    for (int b = NBAR - 1; b >= 0; b--) begin
      if (todo_q[b]) next_id = 4'(b);
    end
  end
  assign raddr = row(cta_q, state_q == S_SCAN ? next_id : id_q);  // (read in S_LOOK, S_SCAN)

  // An arrival's faults, found as it is accepted; the mismatch with the barrier's first
  // arrival once its row is read.
  logic [7:0] cause;
  always_comb begin
    cause = '0;
    if (op_exit_i) cause = '0;
    else if (op_id_i >= 32'(NBAR)) cause = 8'(sgpu_isa_pkg::TRAP_BARRIER_ID);
    else if (op_counted_i && (op_threads_i == '0 || op_threads_i[4:0] != '0))
      cause = 8'(sgpu_isa_pkg::TRAP_BARRIER_COUNT);
  end

  // The row with this arrival. It completes the barrier when the arrivals before it number
  // at least the count less one (worked out before the row comes: a later arrival's count
  // is its first's, or it mismatches), which leaves one comparison after the memory.
  logic        mismatch;
  logic [26:0] prior;  // the arrivals before this one
  row_t        arrived;
  always_comb begin
    prior    = first_q ? 27'd0 : rdata.arrived;
    mismatch = !first_q && (rdata.counted != counted_q
                          || (counted_q && rdata.expected != expected_q)
                          || rdata.red != red_q || (red_q && rdata.bred != bred_q));
    arrived.counted  = counted_q;
    arrived.expected = expected_q;
    arrived.red      = red_q;
    arrived.bred     = bred_q;
    arrived.arrived  = prior + 27'd1;
    arrived.waiting  = (first_q ? '0 : rdata.waiting) | (waits_q ? WARPS'(1) << warp_q : '0);
    arrived.popc     = (first_q ? 11'd0 : rdata.popc) + 11'(popc_q);
    arrived.all      = (first_q || rdata.all) && all_q;
    arrived.any      = (!first_q && rdata.any) || any_q;
  end

  // An exit completes a busy barrier that waits for every warp left and has them all. Never
  // a counted one: its arrivals have not changed since the last, which left it busy. So
  // the arrivals compared are at most the CTA's 32 warps, six bits (the full 27-bit
  // comparison was the warp table's critical path, 87.3 to 90.3 MHz).
  logic release_arrival, release_exit;
  assign release_arrival = state_q == S_UPDATE && !mismatch && prior >= least_q;
  assign release_exit    = state_q == S_CHECK && !rdata.counted
                           && rdata.arrived[5:0] >= live_n_q;

  // A row is written only when an arrival leaves its barrier busy.
  assign we    = state_q == S_UPDATE && !mismatch && !release_arrival;
  assign waddr = row(cta_q, id_q);
  assign wdata = arrived;

  assign ready_o = state_q == S_IDLE;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= S_IDLE;
      rel_o   <= 1'b0;
      done_o  <= 1'b0;
    end else begin
      rel_o  <= release_arrival || release_exit;
      done_o <= state_q == S_DONE;
      unique case (state_q)
        S_IDLE:   if (op_valid_i) state_q <= op_exit_i ? S_SCAN : cause != '0 ? S_DONE : S_LOOK;
        S_LOOK:   state_q <= S_READ;
        S_READ:   state_q <= S_UPDATE;
        S_UPDATE: state_q <= S_DONE;
        S_SCAN:   state_q <= todo_q == '0 ? S_DONE : S_SCAN_READ;
        S_SCAN_READ: state_q <= S_CHECK;
        S_CHECK:  state_q <= S_SCAN;
        default:  state_q <= S_IDLE;  // S_DONE
      endcase
    end
  end

  function automatic logic [31:0] result(logic [1:0] bred, logic [10:0] popc, logic all,
                                         logic any);
    unique case (bred)
      2'(sgpu_isa_pkg::BRED_AND): result = 32'(all);
      2'(sgpu_isa_pkg::BRED_OR):  result = 32'(any);
      default:                    result = 32'(popc);
    endcase
  endfunction

  // The busy bits and live warps change one at a time (a CTA's start aside), each chosen by
  // comparing its position with one index, not by writes at variable indices.
  logic [ROWW-1:0]         busy_at;   // the bit a barrier's update sets or clears
  logic [CTAS*NBAR-1:0]  busy_d;
  logic [CTAS*WARPS-1:0] live_d;
  assign busy_at = row(cta_q, release_exit ? next_id_q : id_q);
  always_comb begin
    for (int unsigned c = 0; c < CTAS; c++) begin
      for (int unsigned b = 0; b < NBAR; b++) begin
        busy_d[NBAR*c+b] = busy_q[NBAR*c+b];
        if (32'(busy_at) == NBAR * c + b && (we || release_arrival || release_exit))
          busy_d[NBAR*c+b] = we;
        if (start_i && 32'(start_cta_i) == c) busy_d[NBAR*c+b] = 1'b0;
      end
      for (int unsigned w = 0; w < WARPS; w++) begin
        live_d[WARPS*c+w] = live_q[WARPS*c+w];
        if (state_q == S_IDLE && op_valid_i && op_exit_i && 32'(op_cta_i) == c
            && 32'(op_warp_i) == w) live_d[WARPS*c+w] = 1'b0;
        if (start_i && 32'(start_cta_i) == c) live_d[WARPS*c+w] = start_warps_i[w];
      end
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q <= '0;
      live_q <= '0;
    end else begin
      busy_q <= busy_d;
      live_q <= live_d;
    end
  end

  // The barrier S_CHECK looks at (S_SCAN's choice).
  logic [3:0] next_id_q;
  always_ff @(posedge clk_i) begin
    live_n_q <= 6'($countones(live_q[WARPS*cta_q +: WARPS]));
    if (state_q == S_IDLE) begin
      warp_q     <= op_warp_i;
      cta_q      <= op_cta_i;
      id_q       <= op_id_i[3:0];
      counted_q  <= op_counted_i;
      expected_q <= op_threads_i[31:5];
      waits_q    <= op_waits_i;
      red_q      <= op_red_i;
      bred_q     <= op_bred_i;
      popc_q     <= 6'($countones(op_set_i));
      all_q      <= op_set_i == op_mask_i;
      any_q      <= op_set_i != '0;
      todo_q     <= busy_q[NBAR*op_cta_i +: NBAR];
      done_cause_o <= cause;
    end
    if (state_q == S_LOOK) first_q <= !busy_q[row(cta_q, id_q)];
    if (state_q == S_READ) least_q <= (counted_q ? expected_q : 27'(live_n_q)) - 27'd1;
    if (state_q == S_UPDATE && mismatch) done_cause_o <= 8'(sgpu_isa_pkg::TRAP_BARRIER_MISMATCH);
    if (state_q == S_SCAN) begin
      next_id_q <= next_id;
      todo_q    <= todo_q & (todo_q - NBAR'(1));  // the lowest one cleared
    end
    if (release_arrival || release_exit) begin
      rel_id_o    <= release_arrival ? id_q : next_id_q;
      rel_warps_o <= release_arrival ? arrived.waiting : rdata.waiting;
      rel_red_o   <= release_arrival ? arrived.red : rdata.red;
      rel_bred_o  <= release_arrival ? arrived.bred : rdata.bred;
      rel_value_o <= release_arrival ? result(arrived.bred, arrived.popc, arrived.all, arrived.any)
                                     : result(rdata.bred, rdata.popc, rdata.all, rdata.any);
    end
  end

`ifndef SYNTHESIS
  // A warp that arrives or exits is one of its CTA's live warps; a CTA slot is started only
  // when its last CTA's warps have all exited.
  a_live: assert property (@(posedge clk_i) disable iff (!rst_ni)
      state_q == S_IDLE && op_valid_i |-> live_q[WARPS*op_cta_i + 32'(op_warp_i)]);
  a_start_empty: assert property (@(posedge clk_i) disable iff (!rst_ni)
      start_i |-> live_q[WARPS*start_cta_i +: WARPS] == '0);
`endif

endmodule
