// Core v2's instruction buffers (docs/adr/0008-core-v2-pipeline.md, "Fetch" and "Decode"):
// per warp slot, the next DEPTH = 2 instructions fetched (word and pc), the head first; and
// the announcements of new heads to the scoreboard, at most one a cycle, as its head check
// requires.
//
// The fetch stage pushes an instruction for a warp with room (it counts its own lookups in
// flight against `count_o`); the issue pops the head of the warp it issues (`pop_word_o` and
// `pop_pc_o` are that head). A head is announced once, out of registers: in the cycle after
// a warp pops, its new head (the instruction behind, or one pushed in the cycle of the pop)
// is read for announcement first, so a warp's next instruction is announced two cycles
// after its issue; the warps whose head has not been announced (a buffer that was empty
// and was pushed to) are chosen in round-robin order, one a cycle, from the cycle after the
// push, and read for announcement in the first cycle after their choice that no popping
// warp's read takes. `clear_i` empties a warp's buffer (its instructions are not to run: a
// new warp in the slot, or the warp ended); a warp cleared between its choice and its
// announcement is not announced.
module sgpu_ibuffer #(
  parameter int unsigned WARPS = 8,
  localparam int unsigned SW = (WARPS > 1) ? $clog2(WARPS) : 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,

  input  logic             push_i,
  input  logic [SW-1:0]    push_warp_i,
  input  logic [31:0]      push_pc_i,
  input  logic [63:0]      push_word_i,

  input  logic             pop_i,
  input  logic [SW-1:0]    pop_warp_i,
  output logic [31:0]      pop_pc_o,
  output logic [63:0]      pop_word_o,

  input  logic             clear_i,
  input  logic [SW-1:0]    clear_warp_i,

  output logic [2*WARPS-1:0] count_o,  // warp w's at [2*w +: 2]: 0, 1 or 2

  // A new head for the scoreboard (its head_i, head_warp_i; head_valid_i is always 1).
  output logic             head_o,
  output logic [SW-1:0]    head_warp_o,
  output logic [31:0]      head_pc_o,
  output logic [63:0]      head_word_o
);

  // A warp's two entries, {pc, word}, are slots 2w and 2w + 1 of a distributed RAM, used as
  // a ring: `head_q[w]` is the slot of its head (flip-flops that shift the entries on every
  // pop were 4,404 LUT4 at 8 warps, 17,804 at 32). `used0_q` and `used1_q`: the head and the
  // one behind it hold instructions.
  localparam int unsigned E = 96;
  logic [E-1:0]         slots_q [2*WARPS];
  logic [WARPS-1:0]     head_q;
  logic [WARPS-1:0]     used0_q, used1_q;
  logic [WARPS-1:0]     announced_q;       // the head was announced
  localparam int unsigned XW = $clog2(2 * WARPS);
  function automatic logic [XW-1:0] slot(logic [SW-1:0] w, logic s);
    slot = XW'({w, s});  // one warp: the slot alone
  endfunction

  for (genvar w = 0; w < WARPS; w++) begin : g_count
    assign count_o[2*w +: 2] = {used1_q[w], used0_q[w] && !used1_q[w]};
  end

  // The popping warp's head, read for the issue.
  assign {pop_pc_o, pop_word_o} = slots_q[slot(pop_warp_i, head_q[pop_warp_i])];

  // The announcement, read from the buffers into registers (`head_o` and the rest): the
  // new head of the warp that popped in the cycle before (`again`), or else the pending
  // round-robin choice (`pend_q`), made in an earlier cycle among the warps with an
  // unannounced head. The pop is registered first and the round-robin choice is registered
  // before its read, so that neither the issue's choice of warp (the scheduler's, from the
  // scoreboard's readiness) nor the round robin lies in front of the read: each was the
  // front end's critical path in turn (86.4-90.2 and 87.2-95.3 MHz). A choice is marked
  // announced when it is made, so it is not chosen twice; while it waits for the read its
  // warp cannot pop (its head is not yet shown) and a push goes behind its head, so the head
  // it reads is the one chosen. A clear drops it: a cleared warp is not announced
  // (`announced_q`), and a clear in the cycle of the read withdraws the announcement from
  // the register's output (`withdrawn`).
  logic             popped_q, pend_q;
  logic [SW-1:0]    popped_warp_q, pend_warp_q;
  logic [WARPS-1:0] waiting, others;
  logic             any, again, pend_read, pend_stays;
  logic [SW-1:0]    pick, last_q, chosen;
  logic [WARPS-1:0] again_bit;
  assign waiting = used0_q & ~announced_q;
  assign others  = waiting & ~again_bit;
  always_comb begin
    again_bit = '0;
    again_bit[popped_warp_q] = again;
  end
  sgpu_round_robin #(.N(WARPS)) u_pick (
    .req_i (others),
    .last_i(last_q),
    .any_o (any),
    .pick_o(pick)
  );
  assign again      = popped_q && waiting[popped_warp_q];
  assign pend_read  = pend_q && announced_q[pend_warp_q];
  assign pend_stays = again && pend_q;  // the read port is taken; the choice waits
  assign chosen     = again ? popped_warp_q : pend_warp_q;

  logic          chosen_q, cleared_q, withdrawn;
  logic [SW-1:0] cleared_warp_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      chosen_q  <= 1'b0;
      popped_q  <= 1'b0;
      pend_q    <= 1'b0;
      cleared_q <= 1'b0;
    end else begin
      chosen_q  <= again || pend_read;
      popped_q  <= pop_i;
      cleared_q <= clear_i;
      if (!pend_stays) pend_q <= any;
    end
  end
  assign withdrawn = cleared_q && cleared_warp_q == head_warp_o;
  assign head_o    = chosen_q && !withdrawn;
  always_ff @(posedge clk_i) begin
    popped_warp_q            <= pop_warp_i;
    cleared_warp_q           <= clear_warp_i;
    if (!pend_stays) pend_warp_q <= pick;
    head_warp_o              <= chosen;
    {head_pc_o, head_word_o} <= slots_q[slot(chosen, head_q[chosen])];
  end

  // Per warp: whether it pops, is pushed to or cleared, and its entries in use after this
  // cycle (the pop first, then the push into the first free entry).
  logic [WARPS-1:0] pops, pushes, clears, used0_d, used1_d, push_second;
  always_comb begin
    for (int unsigned w = 0; w < WARPS; w++) begin
      pops[w]        = pop_i && pop_warp_i == SW'(w);
      pushes[w]      = push_i && push_warp_i == SW'(w);
      clears[w]      = clear_i && clear_warp_i == SW'(w);
      push_second[w] = pops[w] ? used1_q[w] : used0_q[w];  // entry 0 taken after the pop
      used0_d[w] = !clears[w] && (push_second[w] || pushes[w]);
      used1_d[w] = !clears[w] && (!pops[w] && used1_q[w] || push_second[w] && pushes[w]);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      used0_q     <= '0;
      used1_q     <= '0;
      head_q      <= '0;
      announced_q <= '0;
      last_q      <= '0;
    end else begin
      used0_q <= used0_d;
      used1_q <= used1_d;
      head_q  <= head_q ^ pops;
      if (again) announced_q[popped_warp_q] <= 1'b1;
      if (!pend_stays && any) begin
        announced_q[pick] <= 1'b1;
        last_q            <= pick;
      end
      for (int unsigned w = 0; w < WARPS; w++) begin
        if (pops[w] || clears[w]) announced_q[w] <= 1'b0;
      end
    end
  end

  // A push goes to the slot after the head as the pop leaves it, if that holds an
  // instruction, else to the head's slot.
  logic push_head;
  assign push_head = head_q[push_warp_i] ^ (pop_i && pop_warp_i == push_warp_i);
  always_ff @(posedge clk_i) begin
    if (push_i) begin
      slots_q[slot(push_warp_i, push_head ^ push_second[push_warp_i])] <= {push_pc_i, push_word_i};
    end
  end

`ifndef SYNTHESIS
  // A push only where there is room after the pop, a pop only of an announced head.
  a_room: assert property (@(posedge clk_i) disable iff (!rst_ni)
      push_i && !(pop_i && pop_warp_i == push_warp_i) |-> !used1_q[push_warp_i]);
  a_pop_announced: assert property (@(posedge clk_i) disable iff (!rst_ni)
      pop_i |-> used0_q[pop_warp_i] && announced_q[pop_warp_i]);
`endif

endmodule
