// Core v2's scoreboard (docs/adr/0008-core-v2-pipeline.md, "Issue"): per warp slot, the
// destinations of its instructions in flight, and whether the instruction at the head of
// its buffer may issue.
//
// A warp's in-flight writes are ENTRIES entries: a range of registers (first, count of 0 to
// 4; 0 for none) and a mask of predicates (P0 to P6 in bits 0 to 6, carry in bit 7). An
// instruction that writes anything issues with its destinations into a free entry, whose
// number goes with it down the pipeline and comes back on a `done` port in the cycle of its
// last write; the entry is free, and its waiters ready, from the next cycle, when that write
// can be read (the register file's rule: no register is read in the cycle it is written). A
// warp with no free entry issues nothing that writes.
//
// The head's dependences are found once, when it becomes the head (`head_i`): which of the
// warp's entries its reads (ra, rb, rc ranges and a predicate mask) or its writes (rd's range
// and the predicates it writes: no two writes of one register in flight, so they land in
// order) overlap; a head that writes any predicate or the carry waits for every write of
// predicates or carry of its warp in flight, since the predicate file (sgpu_pred_file)
// writes a lane's predicates and carry whole, as they were when the beat read them. That mask is kept, bits cleared as their entries complete, and the head is
// ready when none is left: one set of comparators for the core rather than one a warp, since
// at most one head changes a cycle (the issuing warp's, or a warp's empty buffer filling).
// The check takes two cycles (read the entries, then compare), so a head is ready two
// cycles after it comes at the earliest; an entry taken in the cycle a head comes is the
// issuing warp's own, for the instruction just ahead of it, and counts.
module sgpu_scoreboard #(
  parameter int unsigned WARPS   = 8,
  parameter int unsigned ENTRIES = 4,
  localparam int unsigned SW = (WARPS > 1) ? $clog2(WARPS) : 1,
  localparam int unsigned EW = (ENTRIES > 1) ? $clog2(ENTRIES) : 1
) (
  input  logic               clk_i,
  input  logic               rst_ni,

  // A new head for warp `head_warp_i` (or its buffer empty: `head_valid_i` low).
  input  logic               head_i,
  input  logic [SW-1:0]      head_warp_i,
  input  logic               head_valid_i,
  input  logic [3*11-1:0]    head_reads_i,   // ra, rb, rc: [11*k +: 8] first, [11*k+8 +: 3] count
  input  logic [7:0]         head_pred_reads_i,
  input  logic [10:0]        head_writes_i,  // rd: [7:0] first, [10:8] count
  input  logic [7:0]         head_pred_writes_i,

  // The head of `issue_warp_i` issues, with its destinations (as its head check gave them),
  // into entry `issue_entry_o` (the lowest free one).
  input  logic               issue_i,
  input  logic [SW-1:0]      issue_warp_i,
  input  logic [10:0]        issue_writes_i,
  input  logic [7:0]         issue_pred_writes_i,
  output logic [EW-1:0]      issue_entry_o,

  // Instructions whose last write was made: DONE ports.
  input  logic [1:0]         done_i,
  input  logic [2*SW-1:0]    done_warp_i,
  input  logic [2*EW-1:0]    done_entry_i,

  output logic [WARPS-1:0]   ready_o
);

  // ------------------------------------------------------------------------------------
  // The entries: warp w's entry e at index w * ENTRIES + e.
  // ------------------------------------------------------------------------------------
  localparam int unsigned N = WARPS * ENTRIES;
  function automatic int unsigned at(logic [SW-1:0] w, logic [EW-1:0] e);
    at = 32'(w) * ENTRIES + 32'(e);
  endfunction
  logic [N-1:0]    busy_q, busy_d;

  // The lowest free entry of the issuing warp.
  logic [ENTRIES-1:0] issue_busy;
  always_comb begin
    issue_busy = busy_q[0 +: ENTRIES];
    for (int unsigned w = 1; w < WARPS; w++) begin
      if (issue_warp_i == SW'(w)) issue_busy = busy_q[w*ENTRIES +: ENTRIES];
    end
  end
  always_comb begin
    issue_entry_o = '0;
    for (int unsigned e = ENTRIES; e > 0; e--) begin
      if (!issue_busy[e-1]) issue_entry_o = EW'(e - 1);
    end
  end

  // Whether the issuing instruction writes anything, and so takes an entry.
  logic issue_takes;
  assign issue_takes = issue_i && (issue_writes_i[10:8] != 3'd0 || issue_pred_writes_i != '0);

  // The entries busy after this cycle's completions (`kept`), and after its issue too. The
  // head check and the wait masks use `kept`: an entry the issue takes now is never one a
  // checked head or a waiting warp looks at (its warp has no head this cycle), and leaving
  // the issue's priority encoder out of those paths is what lets the check close at 100 MHz.
  logic [N-1:0] kept;
  always_comb begin
    kept = busy_q;
    for (int unsigned p = 0; p < 2; p++) begin
      if (done_i[p]) kept[at(done_warp_i[p*SW +: SW], done_entry_i[p*EW +: EW])] = 1'b0;
    end
    busy_d = kept;
    if (issue_takes) busy_d[at(issue_warp_i, issue_entry_o)] = 1'b1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) busy_q <= '0;
    else         busy_q <= busy_d;
  end

  // Each entry's destinations, a memory a entry indexed by warp (distributed RAM: written at
  // issue, read for the head's warp).
  logic [ENTRIES*19-1:0] head_dests;  // entry e's {predicates, first, count} at [19*e +: 19]
  for (genvar e = 0; e < ENTRIES; e++) begin : g_dests
    logic [18:0] dests_q [WARPS];
    always_ff @(posedge clk_i) begin
      if (issue_takes && issue_entry_o == EW'(e)) begin
        dests_q[issue_warp_i] <= {issue_pred_writes_i, issue_writes_i};
      end
    end
    assign head_dests[19*e +: 19] = dests_q[head_warp_i];
  end

  // ------------------------------------------------------------------------------------
  // The head check, in two stages so that no cycle both reads the entries and compares:
  // the first registers the head and its warp's entries (an entry taken now by the issuing
  // warp, which is the head's own, with what it takes), the second compares them and sets
  // the warp's wait mask. The head is ready two cycles after `head_i` at the earliest; in
  // between its warp cannot issue (it has no head), so no entry of that warp is taken, and
  // one completing in either cycle is not waited for (`kept`).
  // ------------------------------------------------------------------------------------
  // A register range as the comparisons want it: {first, one past the last, not empty}.
  localparam int unsigned SPAN = 18;
  function automatic logic [SPAN-1:0] span(logic [10:0] r);
    span = {r[7:0], 9'(r[7:0]) + 9'(r[10:8]), r[10:8] != 3'd0};
  endfunction
  function automatic logic overlap(logic [SPAN-1:0] a, logic [SPAN-1:0] b);
    overlap = a[0] && b[0] && 9'(a[17:10]) < b[9:1] && 9'(b[17:10]) < a[9:1];
  endfunction

  // Stage 1.
  logic               check_q, check_valid_q, check_takes_q;
  logic [SW-1:0]      check_warp_q;
  logic [SPAN-1:0]    check_regs_q [4];  // ra, rb, rc, rd
  logic [7:0]         check_preds_q;  // read or written
  logic [SPAN-1:0]    entry_regs_q [ENTRIES];
  logic [7:0]         entry_preds_q [ENTRIES];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) check_q <= 1'b0;
    else         check_q <= head_i;
  end

  always_ff @(posedge clk_i) begin
    if (head_i) begin
      check_warp_q  <= head_warp_i;
      check_valid_q <= head_valid_i;
      check_takes_q <= head_writes_i[10:8] != 3'd0 || head_pred_writes_i != '0;
      for (int unsigned k = 0; k < 3; k++) check_regs_q[k] <= span(head_reads_i[11*k +: 11]);
      check_regs_q[3] <= span(head_writes_i);
      check_preds_q   <= head_pred_reads_i | (head_pred_writes_i != '0 ? 8'hff : 8'h00);
      for (int unsigned e = 0; e < ENTRIES; e++) begin
        // Taken now by the issuing warp, which is the head's own.
        if (issue_takes && issue_warp_i == head_warp_i && issue_entry_o == EW'(e)) begin
          entry_regs_q[e]  <= span(issue_writes_i);
          entry_preds_q[e] <= issue_pred_writes_i;
        end else begin
          entry_regs_q[e]  <= span(head_dests[19*e +: 11]);
          entry_preds_q[e] <= head_dests[19*e + 11 +: 8];
        end
      end
    end
  end

  // Stage 2: which entries the head waits for, as of the next cycle.
  logic [ENTRIES-1:0] depends;
  for (genvar e = 0; e < ENTRIES; e++) begin : g_depends
    logic regs;
    always_comb begin
      regs = 1'b0;
      for (int unsigned k = 0; k < 4; k++) regs |= overlap(check_regs_q[k], entry_regs_q[e]);
    end
    assign depends[e] = kept[at(check_warp_q, EW'(e))]
                        && (regs || (entry_preds_q[e] & check_preds_q) != '0);
  end

  // Per warp: a head, whether it writes anything, and the entries it waits for.
  logic [WARPS-1:0] head_q, head_takes_q;
  logic [N-1:0]     wait_q, wait_d;
  always_comb begin
    wait_d = wait_q & kept;  // completed entries release their waiters
    for (int unsigned w = 0; w < WARPS; w++) begin
      if (check_q && check_warp_q == SW'(w)) wait_d[w*ENTRIES +: ENTRIES] = depends;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      head_q       <= '0;
      head_takes_q <= '0;
      wait_q       <= '0;
    end else begin
      wait_q <= wait_d;
      if (issue_i) head_q[issue_warp_i] <= 1'b0;  // until its next head comes
      if (check_q) begin
        head_q[check_warp_q]       <= check_valid_q;
        head_takes_q[check_warp_q] <= check_takes_q;
      end
    end
  end

  for (genvar w = 0; w < WARPS; w++) begin : g_ready
    assign ready_o[w] = head_q[w] && wait_q[w*ENTRIES +: ENTRIES] == '0
                        && !(head_takes_q[w] && busy_q[w*ENTRIES +: ENTRIES] == '1);
  end

`ifndef SYNTHESIS
  // Only a ready head issues, and a done names an entry in use.
  a_issue_ready: assert property (@(posedge clk_i) disable iff (!rst_ni)
      issue_i |-> ready_o[issue_warp_i]);
  for (genvar p = 0; p < 2; p++) begin : g_done_checks
    a_done_busy: assert property (@(posedge clk_i) disable iff (!rst_ni)
        done_i[p] |-> busy_q[at(done_warp_i[p*SW +: SW], done_entry_i[p*EW +: EW])]);
  end
  // A new head comes only to a warp without one (it issues now, or its buffer was empty).
  a_head_free: assert property (@(posedge clk_i) disable iff (!rst_ni)
      head_i |-> !(head_q[head_warp_i] && !(issue_i && issue_warp_i == head_warp_i)));
  a_done_twice: assert property (@(posedge clk_i) disable iff (!rst_ni)
      done_i == 2'b11 |-> {done_warp_i[0 +: SW], done_entry_i[0 +: EW]}
                          != {done_warp_i[SW +: SW], done_entry_i[EW +: EW]});
`endif

endmodule
