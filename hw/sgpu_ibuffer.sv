// Core v2's instruction buffers (docs/adr/0008-core-v2-pipeline.md, "Fetch" and "Decode"):
// per warp slot, the next DEPTH = 2 instructions fetched (word and pc), the head first; and
// the announcements of new heads to the scoreboard, at most one a cycle, as its head check
// requires.
//
// The fetch stage pushes an instruction for a warp with room (it counts its own lookups in
// flight against `count_o`); the issue pops the head of the warp it issues (`pop_word_o` and
// `pop_pc_o` are that head). A head is announced once, out of registers a cycle after it is
// chosen: when its warp pops, the instruction behind becomes the head and is chosen at once
// if there is one; otherwise the warps whose head has not been announced (a buffer that was
// empty and was pushed to) are chosen in round-robin order, one a cycle, from the cycle
// after the push. `clear_i` empties a warp's
// buffer (its instructions are not to run: a new warp in the slot, or the warp ended).
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

  // The popping warp's head and the entry behind it; the announcement: that entry, or the
  // round-robin choice among the warps with an unannounced head.
  logic         pop_head;
  logic [E-1:0] pop_behind;
  assign pop_head                 = head_q[pop_warp_i];
  assign {pop_pc_o, pop_word_o}   = slots_q[slot(pop_warp_i, pop_head)];
  assign pop_behind               = slots_q[slot(pop_warp_i, !pop_head)];

  logic             pop_next;  // the popping warp's next instruction is announced now
  logic [WARPS-1:0] waiting;   // heads not yet announced, the popping warp's left out
  logic             any;
  logic [SW-1:0]    pick, last_q;
  assign pop_next = pop_i && used1_q[pop_warp_i];
  always_comb begin
    for (int unsigned w = 0; w < WARPS; w++) begin
      waiting[w] = used0_q[w] && !announced_q[w] && !(pop_i && pop_warp_i == SW'(w))
                   && !(clear_i && clear_warp_i == SW'(w));
    end
  end
  sgpu_round_robin #(.N(WARPS)) u_pick (
    .req_i (waiting),
    .last_i(last_q),
    .any_o (any),
    .pick_o(pick)
  );

  logic [E-1:0] picked;
  assign picked = slots_q[slot(pick, head_q[pick])];
  // Announced out of registers, a cycle after the choice: the choice reads every warp's
  // entries (74.1 MHz with the announcement straight out). A head so announced in the cycle
  // after its warp's issue finds the issue's entry in the scoreboard already.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) head_o <= 1'b0;
    else         head_o <= pop_next || any;
  end
  always_ff @(posedge clk_i) begin
    head_warp_o                <= pop_next ? pop_warp_i : pick;
    {head_pc_o, head_word_o}   <= pop_next ? pop_behind : picked;
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
      if (!pop_next && any) begin
        announced_q[pick] <= 1'b1;
        last_q            <= pick;
      end
      for (int unsigned w = 0; w < WARPS; w++) begin
        if (pops[w])   announced_q[w] <= pop_next;
        if (clears[w]) announced_q[w] <= 1'b0;
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
