// Core v2's fetch stage (docs/adr/0008-core-v2-pipeline.md, "Fetch"): which warp looks up
// its next instruction in the instruction cache each cycle, and what becomes of the answer.
//
// Per warp slot: the pc of its next instruction, the pc it must not fetch (`stop_pc`: the
// reconvergence point of its stack's top entry, where its path ends and the warp table
// moves it elsewhere; all ones for none), and whether it is fetching. A warp fetches from a
// redirect (the warp table starting it, resolving a control instruction or a reconvergence)
// until it fetches a control instruction (the table's unit CONTROL: where the warp goes next
// is known only once it has run; no prediction, other warps fill the slots), reaches its
// stop pc, or faults (its pc past the code's end, or its line answered with a memory error);
// then it waits for the next redirect. A halt stops it (the warp ended, or its slot is
// being reused). Fetched instructions are therefore all to be run: nothing is squashed from
// the instruction buffer.
//
// Two stages before the cache: the choice (round robin among the warps fetching, with no
// lookup in flight and room in their instruction buffer for what is in flight) and the
// lookup, registered, where the pc is checked against the stop pc and the code's end. One
// lookup in flight a warp: the answer comes two cycles after the lookup, so a warp fetches
// at most one instruction every four cycles, and the stage one a cycle from four warps on.
// A miss is asked again (the cache fills it meanwhile). A redirect or halt while a warp's
// lookup is in flight marks it stale: its answer is dropped.
module sgpu_fetch #(
  parameter int unsigned WARPS = 8,
  localparam int unsigned SW = (WARPS > 1) ? $clog2(WARPS) : 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,

  input  logic [31:0]      code_bytes_i,  // the code's size: a pc at or past it faults

  input  logic             redirect_i,
  input  logic [SW-1:0]    redirect_warp_i,
  input  logic [31:0]      redirect_pc_i,
  input  logic [31:0]      redirect_stop_pc_i,
  input  logic             halt_i,
  input  logic [SW-1:0]    halt_warp_i,

  input  logic [2*WARPS-1:0] count_i,     // the instruction buffer's count_o

  output logic             lookup_valid_o,
  output logic [SW-1:0]    lookup_warp_o,
  output logic [31:0]      lookup_pc_o,
  input  logic             rsp_valid_i,
  input  logic [SW-1:0]    rsp_warp_i,
  input  logic [31:0]      rsp_pc_i,
  input  logic             rsp_hit_i,
  input  logic             rsp_err_i,
  input  logic [63:0]      rsp_word_i,

  output logic             push_o,        // into the instruction buffer
  output logic [SW-1:0]    push_warp_o,
  output logic [31:0]      push_pc_o,
  output logic [63:0]      push_word_o,

  output logic [WARPS-1:0] stopped_o,     // not fetching, nothing in flight
  output logic [WARPS-1:0] at_stop_o,     // stopped at the stop pc
  output logic [WARPS-1:0] fault_o,       // stopped by a fault: the pc past the code's end,
  output logic [WARPS-1:0] fault_mem_o    // or (also set) a memory error on its line
);

  logic [WARPS-1:0] go_q;     // fetching
  logic [WARPS-1:0] busy_q;   // a lookup in flight (chosen, looked up or being answered)
  logic [WARPS-1:0] stale_q;  // that lookup's answer is to be dropped
  logic [WARPS-1:0] fault_q, fault_mem_q, at_stop_q;
  // A warp's pc is written by a redirect and by a hit, each for its own warp in the same
  // cycle: two distributed RAMs of one write port each, and a bit a warp that says which
  // holds the pc (flip-flops with two write ports cost 1,356 LUT4 at 8 warps).
  logic [31:0]      redirect_pc_q [WARPS];
  logic [31:0]      next_pc_q [WARPS];
  logic [WARPS-1:0] pc_redirected_q;
  // Written only by redirects.
  logic [31:0]      stop_pc_q [WARPS];
  logic [SW-1:0]    last_q;

  // The choice.
  logic [WARPS-1:0] eligible;
  logic             any;
  logic [SW-1:0]    pick;
  for (genvar w = 0; w < WARPS; w++) begin : g_eligible
    assign eligible[w] = go_q[w] && !busy_q[w] && !count_i[2*w+1];
  end
  sgpu_round_robin #(.N(WARPS)) u_pick (
    .req_i (eligible),
    .last_i(last_q),
    .any_o (any),
    .pick_o(pick)
  );

  // The lookup, a cycle after its choice: sent unless stale, at the stop pc or past the end.
  logic          look_q;
  logic [SW-1:0] look_warp_q;
  logic [31:0]   look_pc_q, look_stop_pc_q;
  logic [WARPS-1:0] now_stale;  // redirected or halted in this cycle
  for (genvar w = 0; w < WARPS; w++) begin : g_now_stale
    assign now_stale[w] = redirect_i && redirect_warp_i == SW'(w) || halt_i && halt_warp_i == SW'(w);
  end
  logic look_stale, look_stop, look_out;
  assign look_stale     = stale_q[look_warp_q] || now_stale[look_warp_q];
  assign look_stop      = look_pc_q == look_stop_pc_q;
  assign look_out       = look_pc_q >= code_bytes_i;
  assign lookup_valid_o = look_q && !look_stale && !look_stop && !look_out;
  assign lookup_warp_o  = look_warp_q;
  assign lookup_pc_o    = look_pc_q;

  // The answer: pushed on a hit; a control instruction stops the warp.
  logic rsp_live, control;
  assign rsp_live    = rsp_valid_i && !stale_q[rsp_warp_i] && !now_stale[rsp_warp_i];
  assign control     = sgpu_isa_pkg::unit_of(rsp_word_i[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB])
                       == sgpu_isa_pkg::UNIT_CONTROL;
  assign push_o      = rsp_live && rsp_hit_i;
  assign push_warp_o = rsp_warp_i;
  assign push_pc_o   = rsp_pc_i;
  assign push_word_o = rsp_word_i;

  // Per warp, after this cycle.
  logic [WARPS-1:0] picked, looked, answered, cancelled, busy_d;
  logic [WARPS-1:0] go_d, stale_d, fault_d, fault_mem_d, at_stop_d;
  always_comb begin
    for (int unsigned w = 0; w < WARPS; w++) begin
      picked[w]    = any && pick == SW'(w);
      looked[w]    = look_q && look_warp_q == SW'(w);
      answered[w]  = rsp_valid_i && rsp_warp_i == SW'(w);
      cancelled[w] = looked[w] && !lookup_valid_o;
      busy_d[w]    = busy_q[w] && !cancelled[w] && !answered[w] || picked[w];
      go_d[w]        = go_q[w];
      fault_d[w]     = fault_q[w];
      fault_mem_d[w] = fault_mem_q[w];
      at_stop_d[w]   = at_stop_q[w];
      stale_d[w]     = stale_q[w] && busy_d[w];
      if (cancelled[w] && !look_stale && (look_stop || look_out)) begin
        go_d[w]      = 1'b0;
        fault_d[w]   = look_out && !look_stop;
        at_stop_d[w] = look_stop;
      end
      if (answered[w] && rsp_live && (rsp_err_i || rsp_hit_i && control)) begin
        go_d[w]        = 1'b0;
        fault_d[w]     = rsp_err_i;
        fault_mem_d[w] = rsp_err_i;
      end
      if (now_stale[w]) begin
        go_d[w]        = redirect_i && redirect_warp_i == SW'(w);
        fault_d[w]     = 1'b0;
        fault_mem_d[w] = 1'b0;
        at_stop_d[w]   = 1'b0;
        stale_d[w]     = busy_d[w];
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      go_q        <= '0;
      busy_q      <= '0;
      stale_q     <= '0;
      fault_q     <= '0;
      fault_mem_q <= '0;
      at_stop_q   <= '0;
      look_q      <= 1'b0;
      last_q      <= '0;
    end else begin
      go_q        <= go_d;
      busy_q      <= busy_d;
      stale_q     <= stale_d;
      fault_q     <= fault_d;
      fault_mem_q <= fault_mem_d;
      at_stop_q   <= at_stop_d;
      look_q      <= any;
      if (any) last_q <= pick;
    end
  end

  // The pcs: a redirect sets one, a hit moves its warp past the instruction.
  always_ff @(posedge clk_i) begin
    look_warp_q <= pick;
    look_pc_q   <= pc_redirected_q[pick] ? redirect_pc_q[pick] : next_pc_q[pick];
    // Read with the pc, not in the lookup's cycle, where the read before the compare was
    // the front end's critical path (93.3-95.8 MHz). A redirect in the cycle of the choice
    // makes the lookup stale, so the old stop pc read then is never used.
    look_stop_pc_q <= stop_pc_q[pick];
    if (redirect_i) begin
      redirect_pc_q[redirect_warp_i] <= redirect_pc_i;
      stop_pc_q[redirect_warp_i]     <= redirect_stop_pc_i;
    end
    if (push_o) next_pc_q[rsp_warp_i] <= rsp_pc_i + 32'd8;
  end
  // A push is never for a warp redirected in the same cycle (its answer is dropped).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pc_redirected_q <= '0;
    end else begin
      if (redirect_i) pc_redirected_q[redirect_warp_i] <= 1'b1;
      if (push_o)     pc_redirected_q[rsp_warp_i]      <= 1'b0;
    end
  end

  assign stopped_o   = ~go_q & ~busy_q;
  assign fault_o     = fault_q;
  assign fault_mem_o = fault_mem_q;
  assign at_stop_o   = at_stop_q;

`ifndef SYNTHESIS
  // The cache answers each lookup, for its warp, two cycles later; a redirect and a halt
  // are for different warps; a push finds room.
  a_answer_busy: assert property (@(posedge clk_i) disable iff (!rst_ni)
      rsp_valid_i |-> busy_q[rsp_warp_i]);
  a_one_change: assert property (@(posedge clk_i) disable iff (!rst_ni)
      redirect_i && halt_i |-> redirect_warp_i != halt_warp_i);
  a_room: assert property (@(posedge clk_i) disable iff (!rst_ni)
      push_o |-> !count_i[2*push_warp_o+1]);
`endif

endmodule
