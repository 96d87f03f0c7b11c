// Core v2's reconvergence stacks (docs/adr/0008-core-v2-pipeline.md, "Warp table"): one
// stack of DEPTH entries a warp slot, the golden model's (sim/src/warp.rs: `branch`,
// `exit`, `call`, `ret`, `settle`; docs/isa.md, "Reconvergence"). Each warp's top entry (pc,
// reconvergence pc, active mask, call frame), its stack's size, its pending `SSY` point and
// its innermost call entry are in registers and distributed RAM; the entries under the top
// are in one block RAM, touched only when a branch splits the warp, on a call, a return, an
// exit and when an entry is popped. So an instruction that does not branch costs the stack
// nothing, and the fetch runs from the top's pc to the top's reconvergence pc (its stop pc)
// on its own.
//
// One operation at a time, for any warp (control instructions are rare; the control unit
// sends them here one by one): accepted while `ready_o`, answered with `done_o` and the
// warp's new top. Cycles from acceptance to `done_o`: 5 for one that moves the top only
// (advance, uniform branch, SSY, a call), one more for a second entry written (a branch that
// splits the warp under a running entry it does not replace; a CALLR's waiting lanes), two
// for each entry popped from the block RAM, and k + 2 for an exit or a return that sweeps k
// entries under the top (its lanes leave every entry of the warp, or every entry from the
// call's up). A return says which lanes' local frames move back and by how much
// (`ret_lanes_o`, `ret_frame_o`): the frames are the lanes'; so is a call's frame overflow,
// checked before the call is sent.
module sgpu_simt_stack #(
  parameter int unsigned WARPS = 8,
  parameter int unsigned DEPTH = 64,
  localparam int unsigned SW = (WARPS > 1) ? $clog2(WARPS) : 1,
  localparam int unsigned IW = $clog2(DEPTH),      // an entry's index
  localparam int unsigned NW = $clog2(DEPTH + 1),  // a size, 0 to DEPTH
  localparam int unsigned RW = $clog2(WARPS * DEPTH)  // a row of the entries' memory
) (
  input  logic             clk_i,
  input  logic             rst_ni,

  // A warp starts in a slot: one entry, at `start_pc_i`, with the lanes that exist.
  input  logic             start_i,
  input  logic [SW-1:0]    start_warp_i,
  input  logic [31:0]      start_pc_i,
  input  logic [31:0]      start_lanes_i,

  // An operation (sgpu_core_pkg's stack_op_e), after the instruction at `op_next_i - 1`:
  // `op_mask_i` the lanes that branch, exit, call or return; `op_waiting_i` a CALLR's lanes
  // with other targets; `op_target_i` the branch, call or SSY target.
  input  logic             op_valid_i,
  output logic             ready_o,
  input  logic [SW-1:0]    op_warp_i,
  input  logic [2:0]       op_kind_i,
  input  logic [31:0]      op_next_i,
  input  logic [31:0]      op_target_i,
  input  logic [31:0]      op_mask_i,
  input  logic [31:0]      op_waiting_i,
  input  logic [31:0]      op_frame_i,

  // The answer, for one cycle: the warp's top after the operation (size 0: every lane has
  // left), or a fault (the stack's state is then the warp's trap's to discard).
  output logic             done_o,
  output logic [SW-1:0]    done_warp_o,
  output logic [1:0]       done_fault_o,
  output logic [31:0]      done_pc_o,
  output logic [31:0]      done_rpc_o,
  output logic             done_call_o,   // the top is a call's entry: its rpc is no stop
  output logic [31:0]      done_mask_o,
  output logic [NW-1:0]    done_size_o,
  output logic [31:0]      ret_lanes_o,
  output logic [31:0]      ret_frame_o
);

  localparam logic [2:0] OP_ADVANCE = 3'd0, OP_SSY = 3'd1, OP_BRANCH = 3'd2, OP_EXIT = 3'd3,
                         OP_CALL = 3'd4, OP_RET = 3'd5;
  localparam logic [1:0] FAULT_NONE = 2'd0, FAULT_OVERFLOW = 2'd1, FAULT_RET = 2'd2;
  localparam logic [31:0] NEVER = 32'hffff_ffff;

  // An entry; `link` is, in a call's entry, the call entry under it (index + 1, 0: none).
  typedef struct packed {
    logic [NW-1:0] link;
    logic [31:0]   frame;
    logic          call;
    logic [31:0]   mask;
    logic [31:0]   rpc;
    logic [31:0]   pc;
  } entry_t;
  function automatic entry_t entry(logic [NW-1:0] link, logic [31:0] frame, logic call,
                                   logic [31:0] mask, logic [31:0] rpc, logic [31:0] pc);
    entry = {link, frame, call, mask, rpc, pc};
  endfunction

  // Each warp's state between operations.
  localparam int unsigned EW = NW + 4 * 32 + 1;  // an entry's bits
  // As bits: as an array of structs, yosys 0.70 gave the tops no storage at all (964 FF
  // and 10 distributed RAMs of 4 bits for 8 tops of 136 bits).
  logic [EW-1:0]    top_q [WARPS];
  logic [NW-1:0]    size_q [WARPS];
  logic [NW-1:0]    call_at_q [WARPS];  // its innermost call entry, index + 1 (0: none)
  logic [WARPS-1:0] pend_q;             // an SSY point is pending
  logic [31:0]      pend_pc_q [WARPS];

  // The entries under the tops: warp w's entry i at row {w, i}.
  logic             we;
  logic [RW-1:0]    waddr, raddr;
  entry_t           wdata, rdata;
  sgpu_ram #(.WIDTH(EW), .DEPTH(WARPS * DEPTH), .COLLIDE_OLD(1'b0)) u_entries (
    .clk_i,
    .raddr_i(raddr),
    .rdata_o(rdata),
    .we_i   (we),
    .waddr_i(waddr),
    .wdata_i(wdata)
  );
  // A size's top bit is never part of an index below the size.
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [RW-1:0] row(logic [SW-1:0] w, logic [NW-1:0] i);
    row = RW'({w, i[IW-1:0]});  // one warp: the index alone
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  typedef enum logic [2:0] {
    S_IDLE, S_CHECK, S_OP, S_PUSH2, S_SWEEP, S_SETTLE, S_POP, S_FINISH
  } state_e;
  state_e state_q, state_d;

  // The operation and the warp's state while it runs.
  logic [SW-1:0] w_q;
  logic [2:0]    kind_q;
  logic [31:0]   next_q, target_q, mask_q, waiting_q, frame_q;
  entry_t        t_q, t_d;            // the top
  logic [NW-1:0] n_q, n_d;            // the size
  logic [NW-1:0] ca_q, ca_d;          // the innermost call entry
  logic          pv_q, pv_d;          // an SSY point pending
  logic [31:0]   pend_pc;
  entry_t        second_q, second_d;  // a second entry to push (S_PUSH2)
  logic [1:0]    fault_q, fault_d;
  logic [31:0]   ret_lanes_q, ret_lanes_d, ret_frame_q, ret_frame_d;
  // The sweep of an exit or a return: the entries from `sw_q` to `n_q - 2` lose `mask_q`'s
  // lanes; a read a cycle, the entry narrowed into a register the cycle after and written
  // back the cycle after that (the block RAM's read straight into its write was a 78.8 MHz
  // path).
  logic [NW-1:0] sw_q, sw_d;
  logic          back_q, back_d;      // the entry read in the cycle before is narrowed now
  logic [NW-1:0] back_at_q, back_at_d;
  logic          wb_q;                // the narrowed entry is written now
  logic [NW-1:0] wb_at_q;
  entry_t        wb_entry_q;

  assign ready_o = state_q == S_IDLE && !start_i;
  assign pend_pc = pend_pc_q[w_q];

  // The operation's tests of the top (S_CHECK), registered for its step (S_OP): in one
  // cycle, the 32-bit compares and the step's choices were a 53.2-54.6 MHz path.
  logic [31:0] b_rpc, b_rpc_q, b_taken;
  logic        all_q, none_q, replace_q, again_q, waits_q, no_lanes_q, c_new_waiting;
  logic        full_q, near_full_q;  // no room for one entry more; for two
  entry_t      not_taken, taken, waiting, callee;  // the entries a step may push
  assign b_rpc         = pv_q ? pend_pc : NEVER;
  assign b_taken       = mask_q & t_q.mask;
  // (Built here, not in the step's always_comb, where yosys 0.23 infers latches for them.)
  assign not_taken     = entry('0, '0, 1'b0, t_q.mask & ~b_taken, b_rpc_q, next_q);
  assign taken         = entry('0, '0, 1'b0, b_taken, b_rpc_q, target_q);
  assign waiting       = entry('0, '0, 1'b0, waiting_q, next_q, next_q - 32'd1);
  assign callee        = entry(ca_q, frame_q, 1'b1, mask_q, next_q, target_q);
  assign c_new_waiting = waits_q && !again_q;
  always_ff @(posedge clk_i) begin
    if (state_q == S_CHECK) begin
      b_rpc_q   <= b_rpc;
      all_q     <= b_taken == t_q.mask;
      none_q    <= b_taken == '0;
      replace_q <= t_q.rpc == b_rpc && !t_q.call;
      // The model's test is also `pc == next - 1`; its top's pc is always the running
      // instruction's, so that holds, but here the top's pc is where the warp last went
      // (the fetch runs on from it), so the test would fail.
      again_q   <= !t_q.call && t_q.rpc == next_q;
      waits_q   <= waiting_q != '0;
      // (A call's 32-bit test in S_OP, before its choices, was the warp table's critical
      // path: 91.1 to 95.7 MHz.)
      no_lanes_q <= mask_q == '0;
      full_q      <= n_q >= NW'(DEPTH);
      near_full_q <= n_q >= NW'(DEPTH - 1);
    end
  end

  // Whether the top is finished: it lost every lane, or reached its reconvergence point.
  logic finished;
  assign finished = t_q.mask == '0 || !t_q.call && t_q.pc == t_q.rpc;

  always_comb begin
    state_d     = state_q;
    t_d         = t_q;
    n_d         = n_q;
    ca_d        = ca_q;
    pv_d        = pv_q;
    second_d    = second_q;
    fault_d     = fault_q;
    ret_lanes_d = ret_lanes_q;
    ret_frame_d = ret_frame_q;
    sw_d        = sw_q;
    back_d      = 1'b0;
    back_at_d   = back_at_q;
    we          = 1'b0;
    waddr       = row(w_q, n_q - NW'(1));
    wdata       = t_q;
    raddr       = row(w_q, n_q - NW'(2));
    unique case (state_q)
      S_IDLE: ;
      S_CHECK: state_d = S_OP;
      S_OP: begin
        state_d = S_SETTLE;
        unique case (kind_q)
          OP_SSY: begin
            pv_d    = 1'b1;
            t_d.pc  = next_q;
          end
          OP_BRANCH: begin
            pv_d = 1'b0;
            if (all_q)       t_d.pc = target_q;
            else if (none_q) t_d.pc = next_q;
            else if (replace_q ? full_q : near_full_q) begin  // no room for the paths
              fault_d = FAULT_OVERFLOW;
              state_d = S_FINISH;
            end else begin
              // The running entry waits at the reconvergence point under the two paths
              // (or, reconverging there already, gives way to them); the taken path runs.
              we   = 1'b1;
              t_d  = taken;
              if (replace_q) begin
                wdata = not_taken;
                n_d   = n_q + NW'(1);
              end else begin
                wdata.pc = b_rpc_q;
                second_d = not_taken;
                n_d      = n_q + NW'(2);
                state_d  = S_PUSH2;
              end
            end
          end
          OP_EXIT, OP_RET: begin
            t_d.mask = t_q.mask & ~mask_q;
            t_d.pc   = next_q;
            sw_d     = '0;
            if (kind_q == OP_RET) begin
              sw_d = ca_q - NW'(1);
              if (ca_q == '0) begin
                fault_d = FAULT_RET;
                state_d = S_FINISH;
              end else if (ca_q == n_q) begin  // the call's entry is the top
                ret_lanes_d = mask_q & t_q.mask;
                ret_frame_d = t_q.frame;
              end
            end
            if (state_d != S_FINISH && sw_d + NW'(1) < n_q) state_d = S_SWEEP;
          end
          OP_CALL: begin
            if (no_lanes_q) t_d.pc = next_q;
            else if (c_new_waiting ? near_full_q : full_q) begin  // no room for the entries
              fault_d = FAULT_OVERFLOW;
              state_d = S_FINISH;
            end else begin
              // The caller waits at the return address (a CALLR's lanes with other targets
              // at the call, in an entry between); the callee runs in an entry of its own.
              we = 1'b1;
              if (waits_q && again_q) wdata.mask = waiting_q;
              else                            wdata.pc   = next_q;
              second_d = waiting;
              if (c_new_waiting) state_d = S_PUSH2;
              t_d  = callee;
              n_d  = n_q + NW'(1) + NW'(c_new_waiting);
              ca_d = n_d;
            end
          end
          OP_ADVANCE: t_d.pc = next_q;
          default: ;
        endcase
      end
      S_PUSH2: begin
        we      = 1'b1;
        waddr   = row(w_q, n_q - NW'(2));
        wdata   = second_q;
        state_d = S_SETTLE;
      end
      S_SWEEP: begin
        raddr = row(w_q, sw_q);
        if (sw_q + NW'(1) < n_q) begin
          back_d    = 1'b1;
          back_at_d = sw_q;
          sw_d      = sw_q + NW'(1);
        end
        if (back_q && kind_q == OP_RET && back_at_q == ca_q - NW'(1)) begin
          ret_lanes_d = mask_q & rdata.mask;
          ret_frame_d = rdata.frame;
        end
        if (wb_q) begin
          we    = 1'b1;
          waddr = row(w_q, wb_at_q);
          wdata = wb_entry_q;
        end
        if (!back_d && !back_q && wb_q) state_d = S_SETTLE;
      end
      S_SETTLE: begin
        state_d = S_FINISH;
        if (n_q != '0 && finished) begin
          if (t_q.call) ca_d = t_q.link;
          n_d = n_q - NW'(1);
          if (n_q != NW'(1)) state_d = S_POP;
        end
      end
      S_POP: begin  // the entry under the old top, read in S_SETTLE
        t_d     = rdata;
        state_d = S_SETTLE;
      end
      default: state_d = S_IDLE;  // S_FINISH
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= S_IDLE;
      done_o  <= 1'b0;
      for (int unsigned w = 0; w < WARPS; w++) size_q[w] <= '0;
      pend_q  <= '0;
    end else begin
      state_q <= state_d;
      done_o  <= state_q == S_FINISH;
      if (op_valid_i && ready_o) state_q <= S_CHECK;
      if (state_q == S_FINISH) begin
        size_q[w_q] <= n_q;
        pend_q[w_q] <= pv_q;
      end
      if (start_i) begin
        size_q[start_warp_i] <= NW'(1);
        pend_q[start_warp_i] <= 1'b0;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    t_q         <= t_d;
    n_q         <= n_d;
    ca_q        <= ca_d;
    pv_q        <= pv_d;
    second_q    <= second_d;
    fault_q     <= fault_d;
    ret_lanes_q <= ret_lanes_d;
    ret_frame_q <= ret_frame_d;
    sw_q        <= sw_d;
    back_q      <= back_d;
    back_at_q   <= back_at_d;
    wb_q        <= back_q;
    wb_at_q     <= back_at_q;
    wb_entry_q  <= rdata;
    wb_entry_q.mask <= rdata.mask & ~mask_q;
    if (op_valid_i && ready_o) begin
      w_q         <= op_warp_i;
      kind_q      <= op_kind_i;
      next_q      <= op_next_i;
      target_q    <= op_target_i;
      mask_q      <= op_mask_i;
      waiting_q   <= op_waiting_i;
      frame_q     <= op_frame_i;
      t_q         <= top_q[op_warp_i];
      n_q         <= size_q[op_warp_i];
      ca_q        <= call_at_q[op_warp_i];
      pv_q        <= pend_q[op_warp_i];
      fault_q     <= FAULT_NONE;
      ret_lanes_q <= '0;
      ret_frame_q <= '0;
    end
    if (state_q == S_OP && kind_q == OP_SSY) pend_pc_q[w_q] <= target_q;
    if (state_q == S_FINISH) begin
      done_warp_o    <= w_q;
      done_fault_o   <= fault_q;
      done_pc_o      <= t_q.pc;
      done_rpc_o     <= t_q.rpc;
      done_call_o    <= t_q.call;
      done_mask_o    <= t_q.mask;
      done_size_o    <= n_q;
      ret_lanes_o    <= ret_lanes_q;
      ret_frame_o    <= ret_frame_q;
    end
  end

  // The tops and innermost calls, in distributed RAM: written by a start or at the end of
  // an operation, never both in a cycle (flip-flops were 1,904 LUT4 and 1,020 FF).
  logic          top_we;
  logic [SW-1:0] top_wa;
  assign top_we = start_i || state_q == S_FINISH;
  assign top_wa = start_i ? start_warp_i : w_q;
  always_ff @(posedge clk_i) begin
    if (top_we) begin
      top_q[top_wa]     <= start_i ? entry('0, '0, 1'b0, start_lanes_i, NEVER, start_pc_i) : t_q;
      call_at_q[top_wa] <= start_i ? '0 : ca_q;
    end
  end

`ifndef SYNTHESIS
  // A start and an operation only between operations; an operation only for a warp with
  // lanes; a read that is used never of the row written in the same cycle.
  a_start_idle: assert property (@(posedge clk_i) disable iff (!rst_ni)
      start_i |-> state_q == S_IDLE);
  logic op_live;  // an array read inside a property fails in Verilator 5.006
  assign op_live = size_q[op_warp_i] != '0;
  a_op_live: assert property (@(posedge clk_i) disable iff (!rst_ni)
      op_valid_i && ready_o |-> op_live && op_kind_i <= OP_RET);
  a_no_collision: assert property (@(posedge clk_i) disable iff (!rst_ni)
      we && (state_q == S_SETTLE || state_q == S_SWEEP) |-> raddr != waddr);
`endif

endmodule
