// The sgpu SIMT core: WARPS warps of 32 threads run on LANES physical lanes, a warp
// instruction taking 32 / LANES beats. This first core issues one warp instruction at a time
// and runs it to its end (docs/hw.md, "The core"): the scheduler picks the next ready warp
// round-robin, the instruction's top-of-stack entry and word are read, it is decoded
// (sgpu_predecode), and then, beat by beat, its operands are read from the register file,
// executed by the unit its opcode names and written back; control instructions then move
// the warp's reconvergence stack as docs/golden-model.md defines.
//
// Units: the integer ALU (sgpu_int_alu, one per lane without the operations of
// sgpu_core_pkg::shared_op, and one with them alone that the lanes share, which computes a
// beat's lanes one a cycle, as S2R does), the video ALU (sgpu_video_alu, one per lane), the
// f32 unit's arithmetic, comparisons and conversions with integers (sgpu_fma, sgpu_fcmp and
// sgpu_cvt, one of each per lane); one for the lanes each: the conversions between float
// formats (sgpu_f2f) and the special functions (sgpu_mufu), fed a lane a cycle as the shared
// ALU is, their results FLOAT_LATENCY and MUFU_LATENCY cycles later; the dividers
// (sgpu_int_div, sgpu_fdiv) and the warp unit (sgpu_warp_unit, fed every lane's value, which
// it gathers from the register banks first), which compute a beat's lanes one after
// another; special registers; loads, stores and atomics through the memory port (the float
// atomics' arithmetic in sgpu_atom_float, between an atomic's read and its write); the
// surface unit (sgpu_surface_unit, one for the lanes, which places a beat's accesses one
// lane after another; the core reads the descriptors and moves the data); and the control
// unit: every instruction of the ISA.
//
// Memories: instructions, registers (a bank per lane, of every warp's registers for the
// threads that lane runs) and reconvergence stacks are sgpu_ram instances (block RAM). A
// thread's frame start (S2R FRAME, moved by CALL and RET) lives in its register bank at the
// index of RZ, which no instruction writes.
//
// With SGPU_COSIM defined the core also has a retirement port (rvfi_*), which reports every
// retired warp instruction, register write and store for the lock-step checker of
// rtl-tests/; it only observes.
//
// Package names are written out in full (sgpu_isa_pkg::, sgpu_core_pkg::) rather than
// imported, and every port is a flat vector rather than an unpacked array (the launch's sizes,
// the retirement port's lanes), so that yosys reads the module as Verilator does
// (hw/README.md): the gate-level co-simulation synthesises the core with its retirement port.
module sgpu_core #(
  parameter int unsigned WARPS      = 8,
  parameter int unsigned LANES      = 8,
  parameter int unsigned IMEM_WORDS = 16384,
  localparam int unsigned IAW       = $clog2(IMEM_WORDS),
  localparam int unsigned KW        = (LANES > 1) ? $clog2(LANES) : 1
) (
  input  logic         clk_i,
  input  logic         rst_ni,

  // Program load: the host writes the code (word `imem_addr_i`) while the core is idle.
  input  logic         imem_we_i,
  input  logic [IAW-1:0] imem_addr_i,
  input  logic [63:0]  imem_wdata_i,

  // Launch (docs/hw.md, "The launch interface"): sampled in the cycle of start_i.
  input  logic         start_i,
  input  logic [31:0]  code_words_i,   // words of code loaded; a pc at or past it traps
  input  logic [31:0]  entry_i,        // word index of the kernel's first instruction
  input  logic [95:0]  grid_i,         // x, y, z: element i at [32*i +: 32]
  input  logic [32:0]  block_i,        // x, y, z: element i at [11*i +: 11]
  input  logic [31:0]  shared_i,       // shared bytes per CTA, static and dynamic
  input  logic [31:0]  dyn_shared_i,   // of them the launch's dynamic ones
  input  logic [31:0]  local_i,        // local bytes per thread
  input  logic [63:0]  surf_table_i,   // the surface descriptor table: a multiple of 32
  input  logic [31:0]  surf_count_i,   // its descriptors; a larger handle is not bound
  output logic         busy_o,
  output logic         done_o,         // one cycle: the grid ended, or trapped
  output logic [7:0]   trap_cause_o,   // TRAP_* of the last run, TRAP_NONE if it ended well
  output logic [31:0]  trap_pc_o,
  output logic [7:0]   trap_warp_o,

  // Memory port: a read answers the 16-byte block holding the address, a write writes the
  // bytes of `be` in it. Requests are answered in order, each response carrying its
  // request's tag (tag_t), and a response waits for `mem_rsp_ready_o`. Loads and stores are
  // posted: their requests go out back to back and the warp goes on, several instructions'
  // worth in flight; an atomic's lane waits for its answer.
  output logic         mem_req_valid_o,
  input  logic         mem_req_ready_i,
  output logic         mem_req_write_o,
  output logic [2:0]   mem_req_space_o,  // PORT_*
  output logic [9:0]   mem_req_thread_o, // the thread, for local memory
  output logic [63:0]  mem_req_addr_o,
  output logic [15:0]  mem_req_be_o,
  output logic [127:0] mem_req_wdata_o,
  output sgpu_core_pkg::tag_t mem_req_tag_o,
  input  logic         mem_rsp_valid_i,
  output logic         mem_rsp_ready_o,
  input  sgpu_core_pkg::tag_t mem_rsp_tag_i,  // the request's tag
  input  logic         mem_rsp_err_i,    // outside the space's memory
  input  logic [127:0] mem_rsp_rdata_i
`ifdef SGPU_COSIM
  ,
  // Retirement: one cycle per retired warp instruction, after its register writes.
  output logic         rvfi_valid_o,
  output logic [63:0]  rvfi_order_o,
  output logic [7:0]   rvfi_warp_o,
  output logic [31:0]  rvfi_pc_o,
  output logic [63:0]  rvfi_word_o,
  output logic [31:0]  rvfi_active_o,
  output logic [31:0]  rvfi_mask_o,
  output logic         rvfi_exited_o,     // the warp has no entry left
  output logic [31:0]  rvfi_next_pc_o,
  output logic [31:0]  rvfi_next_active_o,
  output logic [1:0]   rvfi_pred_we_o,    // pd, pq written, with every lane's value after
  output logic [5:0]   rvfi_pred_idx_o,    // pd's at [2:0], pq's at [5:3]
  output logic [63:0]  rvfi_pred_val_o,    // pd's at [31:0], pq's at [63:32]
  output logic         rvfi_carry_we_o,
  output logic [31:0]  rvfi_carry_o,
  output logic [31:0]  rvfi_clock_o,      // the instruction's %clock
  output logic         rvfi_late_o,       // a load: its register writes come on rvfi_lw_*
  // Register writes of the instruction in flight: LANES lanes of one beat.
  output logic         rvfi_rf_we_o,
  output logic [7:0]   rvfi_rf_reg_o,
  output logic [4:0]   rvfi_rf_lane0_o,
  output logic [LANES-1:0] rvfi_rf_lanes_o,
  output logic [32*LANES-1:0] rvfi_rf_data_o, // lane k at [32*k +: 32]
  // Stores of the instruction in flight, one lane's at a time.
  output logic         rvfi_st_valid_o,
  output logic [4:0]   rvfi_st_lane_o,
  output logic [2:0]   rvfi_st_space_o,
  output logic [63:0]  rvfi_st_addr_o,
  output logic [4:0]   rvfi_st_len_o,
  output logic [127:0] rvfi_st_data_o,
  // A posted load's register write, one lane's register at a time, after its retirement.
  output logic         rvfi_lw_valid_o,
  output logic [7:0]   rvfi_lw_warp_o,
  output logic [7:0]   rvfi_lw_reg_o,
  output logic [4:0]   rvfi_lw_lane_o,
  output logic [31:0]  rvfi_lw_data_o,
  // A CTA starts.
  output logic         rvfi_cta_o,
  output logic [95:0]  rvfi_cta_idx_o,     // x, y, z: element i at [32*i +: 32]
  // A barrier arrival (BAR), or barriers an exit completed: the barrier, whether the warp
  // waits, and the warps released.
  output logic         rvfi_bar_valid_o,
  output logic [3:0]   rvfi_bar_id_o,
  output logic         rvfi_bar_waits_o,
  output logic [31:0]  rvfi_bar_released_o,
  // A completed BARRED's reduction: its operation and value.
  output logic         rvfi_bar_red_o,
  output logic [1:0]   rvfi_bar_op_o,
  output logic [31:0]  rvfi_bar_value_o,
  // A fault for the tests of the assertions to inject (docs/cosim.md, "Assertions"), one a
  // bit (FAULT_*); zero in every other run.
  input  logic [3:0]   fault_i
`endif
);

  localparam int unsigned BEATS = 32 / LANES;
  // The lanes share one ALU for sgpu_core_pkg::shared_op's operations when there are two or
  // more of them; a single lane's ALU has them all (a shared ALU would cost more than it
  // saves).
  localparam bit          SHARE = LANES > 1;
  localparam int unsigned BW    = (BEATS > 1) ? $clog2(BEATS) : 1;
  localparam int unsigned WW    = (WARPS > 1) ? $clog2(WARPS) : 1;
  localparam int unsigned DEPTH = 32'(sgpu_isa_pkg::STACK_DEPTH);
  localparam int unsigned SPW   = $clog2(DEPTH + 1);
  localparam int unsigned SAW   = $clog2(WARPS * DEPTH);
  localparam int unsigned RFN   = WARPS * BEATS * 256;
  localparam int unsigned RAW   = $clog2(RFN);
  // Operand slots of a lane: ra, ra+1, rb, rb+1, rc, rc+1, rd..rd+3 (a store's data), and
  // the thread's frame start. A surface access, which reads no rd, has ra+2, ra+3 (its third
  // and fourth coordinates), rc+2 and rc+3 (its third and fourth data words) in rd's four.
  localparam int unsigned SLOTS = 11;
  localparam int unsigned FRAME_SLOT = 10;
  localparam logic [7:0]  FRAME_REG = 8'hff;
  // No reconvergence point: a path that ends only by exiting. Written out: yosys 0.23 reads a
  // typed localparam of '1 as 1 (found by the gate-level co-simulation, docs/cosim.md).
  localparam logic [31:0] NEVER = 32'hffff_ffff;

  typedef enum logic [5:0] {
    S_IDLE, S_INIT, S_FIRST, S_SCHED, S_TOP, S_FETCH, S_DECODE, S_BEAT, S_READ, S_EXEC,
    S_SERIAL, S_GATHER, S_MEM_REQ, S_MEM_RSP, S_WRITE, S_AFTER, S_CTRL, S_POST, S_BTOP, S_PUSH_A,
    S_PUSH_B, S_WALK_RD, S_WALK, S_SETTLE, S_SETTLE_RD, S_STORE_TOP, S_FINISH, S_TRAP,
    S_DONE, S_REDWB, S_SCHED_TOP, S_RELEASE, S_SEND, S_AFTER_Q, S_SHARED, S_UNIT,
    S_AMO_FLOAT, S_SU_LANE, S_SU_DESC, S_SU_DRSP, S_SU_UNIT, S_SU_PLACE, S_SU_REQ, S_SU_RSP, S_SU_WB
  } state_e;

  // The faults the co-simulation can inject, to show its assertions fire: a refused request
  // that changes its address, a state that is none, a load pushed into a full queue, and the
  // register file's write port granted to two writers. Outside co-simulation, none.
  localparam int unsigned FAULT_REQ_CHANGES = 0;
  localparam int unsigned FAULT_STATE       = 1;
  localparam int unsigned FAULT_QUEUE_FULL  = 2;
  localparam int unsigned FAULT_TWO_WRITERS = 3;
  logic [3:0] fault;
`ifdef SGPU_COSIM
  assign fault = fault_i;
`else
  assign fault = '0;
`endif
  state_e               rel_next_q;

  // The launch, sampled at start_i: the core reads its own copy, so that nothing but the
  // memory port's answers reaches its logic from the inputs (in Verilator, logic fed by the
  // inputs is evaluated at both clock edges).
  logic [95:0]          grid_q;
  logic [32:0]          block_q;
  logic [31:0]          code_words_q, entry_q, shared_q, dyn_shared_q, local_q;
  logic [63:0]          surf_table_q;
  logic [31:0]          surf_count_q;

  // The launch's grid and block sizes, x, y, z, from their flat copies.
  logic [31:0]          grid [3];
  logic [10:0]          block [3];
  for (genvar i = 0; i < 3; i++) begin : gen_launch
    assign grid[i]  = grid_q[32*i +: 32];
    assign block[i] = block_q[11*i +: 11];
  end

  // ---------------------------------------------------------------------------------------
  // State
  // ---------------------------------------------------------------------------------------
  state_e               state_q;
  sgpu_core_pkg::warp_state_e wstate_q [WARPS];
  logic [SPW-1:0]       sp_q [WARPS];
  logic [31:0]          lanes_q [WARPS];
  logic [31:0]          exited_q [WARPS];
  logic [31:0]          preds_q [WARPS][7];
  logic [31:0]          carry_q [WARPS];
  logic                 pend_q [WARPS];
  logic [31:0]          pend_rpc_q [WARPS];
  logic [29:0]          tid0_q [WARPS];
  // A warp whose last issue found a register still to be loaded, or no room for another
  // load or store in flight: it waits until a response frees registers.
  logic [WARPS-1:0]     blocked_q;

  logic [31:0]          cta_q [3];
  logic [31:0]          nthreads_q;  // a CTA's threads
  logic [31:0]          nwarps;      // and its warps
  assign nwarps = (nthreads_q + 32'd31) >> 5;
  logic [63:0]          clock_q;     // warp instructions retired in the launch
  logic [63:0]          order_q;
  logic [RAW-1:0]       init_q;
  logic [29:0]          init_tid_q;

  logic [WW-1:0]        warp_q;
  sgpu_core_pkg::entry_t top_q;
  logic [63:0]          word_q;
  logic [31:0]          pc_q;
  logic [31:0]          active_q;
  logic [31:0]          mask_q;      // the lanes that execute: active, guard true
  logic [31:0]          lanes_run_q; // the lanes the beat loop serves
  sgpu_core_pkg::kind_e kind_q;
  logic [BW-1:0]        beat_q;
  logic [29:0]          tid_beat_q;
  logic [SLOTS-1:0]     rd_pend_q;
  logic                 rd_busy_q;
  logic [3:0]           rd_slot_q;
  logic [31:0]          opnd_q [LANES][SLOTS];
  logic [31:0]          res_q [LANES][2];  // a unit writes two registers at most
  logic [2:0]           wr_left_q;
  logic [1:0]           wr_k_q;
  logic                 wr_report_q;
  logic [31:0]          pd_new_q, pq_new_q, carry_new_q;
  logic [2:0]           unit_wait_q; // S_UNIT: cycles more until the lane units' results
  logic [KW:0]          mem_lane_q;  // the lanes of the beat below it are served
  logic [4:0]           last_lane_q; // the highest executing lane: its request is the last
  logic                 amo_write_q; // an atomic's lane has read and now writes
  logic [63:0]          amo_old_q;
  logic [SPW-1:0]       walk_q;
  logic [19:0]          call_frame_q;
  logic                 two_q;       // S_PUSH_A is followed by S_PUSH_B
  logic [SPW-1:0]       base_q;
  sgpu_core_pkg::entry_t push_a_q, push_b_q;
  logic [7:0]           trap_cause_q;
  logic [31:0]          trap_pc_q;
  logic [7:0]           trap_warp_q;
  // The CTA's named barriers (docs/hw.md): warps arrived since the last completion, the
  // warps a barrier completes at (unless it waits for every warp left; the thread count over
  // 32 in full, so that a count of more warps than the CTA has never completes, as in the
  // model, rather than wrapping), the warps waiting.
  localparam int unsigned NBAR = 32'(sgpu_isa_pkg::BARRIERS);
  logic [5:0]           bar_arrived_q [NBAR];
  logic                 bar_counted_q [NBAR];
  logic [26:0]          bar_expected_q [NBAR];
  logic [WARPS-1:0]     bar_waiting_q [NBAR];
  // A reduction in progress (BARRED): its operation (sgpu_isa_pkg::bred_e), the count of
  // true predicates, and whether all and any were true.
  localparam int unsigned BREDW = sgpu_isa_pkg::BRED_MSB - sgpu_isa_pkg::BRED_LSB + 1;
  logic                 bar_red_q [NBAR];
  logic [BREDW-1:0]     bar_op_q [NBAR];
  logic [31:0]          bar_popc_q [NBAR];
  logic                 bar_all_q [NBAR], bar_any_q [NBAR];
  // Each warp waiting with a reduction: where the result goes (rd for POPC, pd for AND and
  // OR) and its lanes; a POPC result is written to rd when the warp next issues.
  logic [7:0]           red_rd_q [WARPS];
  logic [2:0]           red_pd_q [WARPS];
  logic [31:0]          red_mask_q [WARPS];
  logic                 red_wb_q [WARPS];
  logic [31:0]          red_value_q [WARPS];
  logic                 red_popc_q [WARPS];  // the result goes to rd, else to pd
  // CALLR: the first executing lane's target, the lanes that share it, and whether the
  // beats are the second pass (moving those lanes' frames).
  logic                 callr_have_q, callr_second_q;
  logic [63:0]          callr_addr_q;
  logic [31:0]          callr_same_q;
  logic                 push_settle_q;  // S_PUSH_B is followed by settling (a branch's paths)
  // A BAR's operands, from its first executing lane.
  logic                 bar_have_q;
  logic [31:0]          bar_id_q, bar_threads_q;
  // The barrier event of the instruction in flight.
  logic                 bar_ev_q, bar_ev_waits_q;
  logic [3:0]           bar_ev_id_q;
  // Barriers completing: S_RELEASE releases their waiting warps, then goes to rel_next_q.
  logic [NBAR-1:0]      rel_q;
  logic                 bar_ev_red_q;
  logic [BREDW-1:0]     bar_ev_op_q;
  logic [31:0]          bar_ev_value_q;
  logic [WARPS-1:0]     bar_ev_released_q;

  // ---------------------------------------------------------------------------------------
  // The instruction in flight, decoded
  // ---------------------------------------------------------------------------------------
  logic [7:0]  opcode;
  logic [2:0]  guard_pred;
  logic        guard_neg;
  logic [7:0]  f_rd, f_ra, f_rb, f_rc;
  logic        b_imm, c_imm, illegal;
  sgpu_isa_pkg::unit_e unit;
  logic [3:0]  writes;
  logic [3:0]  rd_regs, ra_regs, rb_regs, rc_regs;

  sgpu_predecode u_predecode (
    .instr_i     (word_q),
    .opcode_o    (opcode),
    .guard_pred_o(guard_pred),
    .guard_neg_o (guard_neg),
    .rd_o        (f_rd),
    .ra_o        (f_ra),
    .rb_o        (f_rb),
    .rc_o        (f_rc),
    .b_imm_o     (b_imm),
    .c_imm_o     (c_imm),
    .illegal_o   (illegal),
    .unit_o      (unit),
    .writes_o    (writes),
    .rd_regs_o   (rd_regs),
    .ra_regs_o   (ra_regs),
    .rb_regs_o   (rb_regs),
    .rc_regs_o   (rc_regs)
  );

  logic [3:0]  reads;
  assign reads = sgpu_isa_pkg::reg_reads(opcode);
  // The predecoder says more than this core needs: immediates are the ALU's business, and
  // only rd is ever written or read as data.
  logic unused_decode;
  assign unused_decode = ^{b_imm, c_imm, writes[3:1], reads[3:1]};

  // Registers the instruction writes from rd (its span, if it writes rd): each beat's
  // results, or each lane's loaded words.
  logic [2:0] n_writes;
  assign n_writes = writes[0] ? 3'(rd_regs) : 3'd0;

  // VOTE.BALLOT leaves pd as it was (its lanes' bits are not merged).
  logic vote_ballot;
  assign vote_ballot = opcode == sgpu_isa_pkg::OP_VOTE
                       && word_q[sgpu_isa_pkg::VMODE_MSB:sgpu_isa_pkg::VMODE_LSB]
                          == sgpu_isa_pkg::VMODE_BALLOT;

  // Branch and call targets count bytes from the next instruction; words are 8 bytes.
  logic [31:0] next_pc, target_pc;
  assign next_pc   = pc_q + 32'd1;
  assign target_pc = next_pc
      + 32'(signed'(word_q[sgpu_isa_pkg::TARGET_MSB:sgpu_isa_pkg::TARGET_LSB]) >>> 3);

  // The running warp's predicates, P0 to P6 at [32*p +: 32], selected once for the several
  // reads below (each a 7-way choice, rather than a 7 x WARPS-way one: in LUTs, a fifth).
  logic [32*7-1:0] wpreds;
  always_comb begin
    wpreds = '0;
    for (int unsigned w = 0; w < WARPS; w++) begin
      if (warp_q == WW'(w)) begin
        for (int unsigned p = 0; p < 7; p++) wpreds[32*p +: 32] = preds_q[w][p];
      end
    end
  end

  // A predicate's value in every lane of the running warp: PT is true everywhere.
  function automatic logic [31:0] pred_of(logic [2:0] p);
    pred_of = (p == 3'd7) ? '1 : wpreds[32*p +: 32];
  endfunction

  // ---------------------------------------------------------------------------------------
  // Memories
  // ---------------------------------------------------------------------------------------
  logic [IAW-1:0] imem_raddr;
  logic [63:0]    imem_rdata;

  sgpu_ram #(.WIDTH(64), .DEPTH(IMEM_WORDS)) u_imem (
    .clk_i,
    .raddr_i(imem_raddr),
    .rdata_o(imem_rdata),
    .we_i   (imem_we_i),
    .waddr_i(imem_addr_i),
    .wdata_i(imem_wdata_i)
  );

  logic [SAW-1:0] stk_raddr, stk_waddr;
  logic           stk_we;
  sgpu_core_pkg::entry_t stk_rdata, stk_wdata;

  sgpu_ram #(.WIDTH($bits(stk_wdata)), .DEPTH(WARPS * DEPTH)) u_stack (
    .clk_i,
    .raddr_i(stk_raddr),
    .rdata_o(stk_rdata),
    .we_i   (stk_we),
    .waddr_i(stk_waddr),
    .wdata_i(stk_wdata)
  );

  // A stack entry, its fields in the order of sgpu_core_pkg::entry_t.
  function automatic sgpu_core_pkg::entry_t entry(logic [31:0] pc, logic [31:0] rpc,
                                                  logic [31:0] mask, logic call,
                                                  logic [19:0] frame);
    entry = {pc, rpc, mask, call, frame};
  endfunction

  function automatic logic [SAW-1:0] stk_at(logic [WW-1:0] w, logic [SPW-1:0] i);
    stk_at = SAW'(32'(w) * DEPTH + 32'(i));
  endfunction

  logic [RAW-1:0] rf_raddr, rf_waddr;
  logic [LANES-1:0] rf_we;
  logic [31:0]    rf_rdata [LANES];
  logic [31:0]    rf_wdata [LANES];

  for (genvar k = 0; k < LANES; k++) begin : gen_rf
    sgpu_ram #(.WIDTH(32), .DEPTH(RFN)) u_bank (
      .clk_i,
      .raddr_i(rf_raddr),
      .rdata_o(rf_rdata[k]),
      .we_i   (rf_we[k]),
      .waddr_i(rf_waddr),
      .wdata_i(rf_wdata[k])
    );
  end

  function automatic logic [RAW-1:0] rf_at(logic [WW-1:0] w, logic [BW-1:0] b, logic [7:0] r);
    rf_at = RAW'((32'(w) * BEATS + 32'(b)) * 256 + 32'(r));
  endfunction

  // Register `r + k` of a tuple; past R254 it is RZ (8'hff), which reads zero.
  function automatic logic [7:0] reg_at(logic [7:0] r, logic [2:0] k);
    logic [8:0] s;
    s = {1'b0, r} + 9'(k);
    reg_at = (s >= 9'd255) ? 8'hff : s[7:0];
  endfunction

  // ---------------------------------------------------------------------------------------
  // Lanes of the beat: thread indices, and the lane numbers in the warp
  // ---------------------------------------------------------------------------------------
  // The thread after one, in a one-step chain that walks the threads one a cycle: a CTA's
  // start, to find each warp's first thread index (it has far longer, zeroing the
  // registers), and S2R, which reads special registers a lane a cycle (tid_beat_q, the
  // thread of lane shared_k); a LANES-step chain would cost about a thousand LUT4.
  logic [29:0] tid_step_in, tid_step_out, tid_after;
  logic        tid_s2r;
  assign tid_s2r     = state_q == S_SHARED && kind_q == sgpu_core_pkg::KIND_S2R;
  assign tid_step_in = tid_s2r ? tid_beat_q : init_tid_q;

  sgpu_tid_step #(.COUNT(1)) u_tid_step (
    .en_i     (state_q == S_INIT || tid_s2r),
    .block_x_i(block[0]),
    .block_y_i(block[1]),
    .tid_i    (tid_step_in),
    .tid_o    (tid_step_out),
    .next_o   (tid_after)
  );
  logic [29:0] unused_tid_step;
  assign unused_tid_step = tid_step_out;  // tid_step_in itself

  logic [LANES-1:0] beat_mask;
  assign beat_mask = lanes_run_q[32'(beat_q) * LANES +: LANES];

  function automatic logic [4:0] lane_no(logic [BW-1:0] b, int unsigned k);
    lane_no = 5'(32'(b) * LANES + k);
  endfunction

  // The warp's lanes that the beat serves, and a warp-wide vector whose lanes of them take a
  // beat's values `v` (the lane's bit of every beat is one of `v`, so no lane number is
  // computed: a bit written at a computed index is a comparison a bit for each write).
  logic [31:0] beat_sel;
  always_comb begin
    for (int unsigned l = 0; l < 32; l++) begin
      beat_sel[l] = lanes_run_q[l] && 32'(beat_q) == l / LANES;
    end
  end

  function automatic logic [31:0] beat_merge(logic [31:0] old, logic [LANES-1:0] v,
                                             logic [31:0] sel);
    beat_merge = (old & ~sel) | ({BEATS{v}} & sel);
  endfunction

  // ---------------------------------------------------------------------------------------
  // Units
  // ---------------------------------------------------------------------------------------
  logic [31:0] alu_d [LANES];
  logic [31:0] alu_d_hi [LANES];
  logic [31:0] video_d [LANES];
  logic [31:0] fma_d [LANES], fcmp_d [LANES], cvt_d [LANES], cvt_d_hi [LANES];
  logic [LANES-1:0] alu_carry, alu_pd, alu_pq, float_pd, float_pq;
  logic [sgpu_isa_pkg::SREG_MSB-sgpu_isa_pkg::SREG_LSB:0] sreg;  // S2R's register
  assign sreg = word_q[sgpu_isa_pkg::SREG_MSB:sgpu_isa_pkg::SREG_LSB];
  logic [31:0] pa_all, pc_all;  // the predicate operands pa and pc, every lane
  assign pa_all = pred_of(word_q[sgpu_isa_pkg::PA_MSB:sgpu_isa_pkg::PA_LSB]);
  assign pc_all = pred_of(word_q[sgpu_isa_pkg::PC_MSB:sgpu_isa_pkg::PC_LSB]);

  logic float_en;
  assign float_en = state_q == S_EXEC && kind_q == sgpu_core_pkg::KIND_FLOAT;

  for (genvar k = 0; k < LANES; k++) begin : gen_lane
    logic [4:0] l;
    assign l = lane_no(beat_q, k);

    sgpu_int_alu #(.SHARED_OPS(!SHARE)) u_alu (
      .en_i   (state_q == S_EXEC && kind_q == sgpu_core_pkg::KIND_ALU),
      .instr_i(word_q),
      .a_i    (opnd_q[k][0]),
      .b_i    (opnd_q[k][2]),
      .c_i    (opnd_q[k][4]),
      .c_hi_i (opnd_q[k][5]),
      .carry_i(carry_q[warp_q][l]),
      .pa_i   (pa_all[l] ^ word_q[sgpu_isa_pkg::PAN_LSB]),
      .pc_i   (pc_all[l] ^ word_q[sgpu_isa_pkg::PCN_LSB]),
      .d_o    (alu_d[k]),
      .d_hi_o (alu_d_hi[k]),
      .carry_o(alu_carry[k]),
      .pd_o   (alu_pd[k]),
      .pq_o   (alu_pq[k])
    );

    // Two stages: the result of S_EXEC's instruction comes in S_UNIT, the cycle after.
    sgpu_video_alu u_video (
      .clk_i,
      .rst_ni,
      .en_i   (state_q == S_EXEC && kind_q == sgpu_core_pkg::KIND_VIDEO),
      .instr_i(word_q),
      .a_i    (opnd_q[k][0]),
      .b_i    (opnd_q[k][2]),
      .c_i    (opnd_q[k][4]),
      .d_o    (video_d[k])
    );

    // The f32 unit's lane, its arithmetic (sgpu_fma), comparisons (sgpu_fcmp) and
    // conversions with integers (sgpu_cvt), five stages each: the results of S_EXEC's
    // instruction come four cycles after, in S_UNIT's fourth cycle.
    sgpu_fma u_fma (
      .clk_i,
      .rst_ni,
      .en_i   (float_en),
      .instr_i(word_q),
      .a_i    (opnd_q[k][0]),
      .b_i    (opnd_q[k][2]),
      .c_i    (opnd_q[k][4]),
      .d_o    (fma_d[k])
    );

    sgpu_fcmp u_fcmp (
      .clk_i,
      .rst_ni,
      .en_i   (float_en),
      .instr_i(word_q),
      .a_i    (opnd_q[k][0]),
      .b_i    (opnd_q[k][2]),
      .pc_i   (pc_all[l]),
      .d_o    (fcmp_d[k]),
      .pd_o   (float_pd[k]),
      .pq_o   (float_pq[k])
    );

    sgpu_cvt u_cvt (
      .clk_i,
      .rst_ni,
      .en_i   (float_en),
      .instr_i(word_q),
      .a_i    (opnd_q[k][0]),
      .a_hi_i (opnd_q[k][1]),
      .d_o    (cvt_d[k]),
      .d_hi_o (cvt_d_hi[k])
    );

  end

  // The units the lanes share one after another (KIND_SERIAL): a beat's lanes, LANES of
  // them, each starting as the one before it ends, with the next lane's operands. The
  // integer divider (35 cycles a lane, 67 for 64 bits: a divider a lane would cost about a
  // thousand LUT4 each for an instruction kernels seldom run), the f32 divider (19 cycles a
  // lane) and the warp unit (a cycle a lane, 33 for REDUX and MATCH).
  logic          ser_start, ser_done, unused_div_busy;
  logic [63:0]   ser_result;
  logic [KW-1:0] ser_k_q;   // the lane being computed
  logic [KW-1:0] ser_next;  // the lane whose computation starts
  logic          ser_last;
  logic          ser_idiv, ser_fdiv, ser_warp;
  assign ser_idiv  = opcode == sgpu_isa_pkg::OP_IDIV;
  assign ser_fdiv  = opcode == sgpu_isa_pkg::OP_FDIV || opcode == sgpu_isa_pkg::OP_FSQRT
                     || opcode == sgpu_isa_pkg::OP_FRCP;
  assign ser_warp  = unit == sgpu_isa_pkg::UNIT_WARP;
  assign ser_last  = 32'(ser_k_q) == LANES - 1;
  assign ser_next  = (state_q == S_SERIAL) ? ser_k_q + KW'(1) : '0;
  assign ser_start = (state_q == S_EXEC && kind_q == sgpu_core_pkg::KIND_SERIAL)
                     || (state_q == S_SERIAL && ser_done && !ser_last);

  logic [63:0] div_a, div_b;  // lane ser_next's operand pairs, which m_opnd holds (below)
  logic        div_done, fdiv_done, warp_done, warp_pd, unused_fdiv_busy;
  logic [63:0] div_result;
  logic [31:0] fdiv_d, warp_d;

  sgpu_int_div u_div (
    .clk_i,
    .rst_ni,
    .start_i (ser_start && ser_idiv),
    .sgn_i   (word_q[sgpu_isa_pkg::SGN_LSB]),
    .rem_i   (word_q[sgpu_isa_pkg::REM_LSB]),
    .w64_i   (word_q[sgpu_isa_pkg::W64_LSB]),
    .a_i     (div_a),
    .b_i     (div_b),
    .busy_o  (unused_div_busy),
    .done_o  (div_done),
    .result_o(div_result)
  );

  sgpu_fdiv u_fdiv (
    .clk_i,
    .rst_ni,
    .start_i(ser_start && ser_fdiv),
    .instr_i(word_q),
    .a_i    (m_opnd[0]),
    .b_i    (m_opnd[2]),
    .busy_o (unused_fdiv_busy),
    .done_o (fdiv_done),
    .d_o    (fdiv_d)
  );

  // Every lane's ra, for the warp unit: read from the register banks a beat a cycle before
  // the beats (S_GATHER), as the instruction found them (a beat's writes come after).
  logic [BW:0]   gather_q;  // the beat whose registers are read; their data comes a cycle later
  logic [31:0]   xw_q [32];
  logic [1023:0] xw_flat;
  always_comb begin
    for (int unsigned l = 0; l < 32; l++) xw_flat[32*l +: 32] = xw_q[l];
  end

  sgpu_warp_unit u_warp (
    .clk_i,
    .rst_ni,
    .start_i    (ser_start && ser_warp),
    .instr_i    (word_q),
    .lane_i     (lane_no(beat_q, 32'(ser_next))),
    .a_i        (m_opnd[0]),
    .b_i        (m_opnd[2]),
    .c_i        (m_opnd[4]),
    .values_i   (xw_flat),
    .executing_i(mask_q),
    .present_i  (lanes_q[warp_q] & ~exited_q[warp_q]),
    .truth_i    (pc_all),
    .done_o     (warp_done),
    .d_o        (warp_d),
    .pd_o       (warp_pd)
  );

  assign ser_done   = ser_idiv ? div_done : ser_fdiv ? fdiv_done : warp_done;
  assign ser_result = ser_idiv ? div_result : ser_fdiv ? {32'd0, fdiv_d} : {32'd0, warp_d};

  // %clock counts this instruction too.
  logic [63:0] clock_now;
  assign clock_now = clock_q + 64'd1;

  // What S2R reads of special register `s` in lane `l` (docs/hw.md, "Special registers"):
  // the registers that differ between lanes here, the others from `shared`, which
  // shared_special gives. S2R computes a beat's lanes one a cycle (in S_SHARED, as the
  // shared ALU does), so that these choices are made once rather than in every lane.
  function automatic logic [31:0] special(
      logic [sgpu_isa_pkg::SREG_MSB-sgpu_isa_pkg::SREG_LSB:0] s, logic [4:0] l,
      logic [29:0] tid, logic [31:0] frame, logic [31:0] shared);
    logic [31:0] eq, lt;
    eq = 32'd1 << l;
    lt = ~(32'hffff_ffff << l);
    unique case (s)
      sgpu_isa_pkg::SREG_TID_X:       special = 32'(tid[9:0]);
      sgpu_isa_pkg::SREG_TID_Y:       special = 32'(tid[19:10]);
      sgpu_isa_pkg::SREG_TID_Z:       special = 32'(tid[29:20]);
      sgpu_isa_pkg::SREG_LANEID:      special = 32'(l);
      sgpu_isa_pkg::SREG_LANEMASK_EQ: special = eq;
      sgpu_isa_pkg::SREG_LANEMASK_LT: special = lt;
      sgpu_isa_pkg::SREG_LANEMASK_LE: special = lt | eq;
      sgpu_isa_pkg::SREG_LANEMASK_GT: special = ~(lt | eq);
      sgpu_isa_pkg::SREG_LANEMASK_GE: special = ~lt;
      sgpu_isa_pkg::SREG_FRAME:       special = frame;
      default:                        special = shared;
    endcase
  endfunction

  // The special registers every lane of the warp reads alike.
  function automatic logic [31:0] shared_special(
      logic [sgpu_isa_pkg::SREG_MSB-sgpu_isa_pkg::SREG_LSB:0] s);
    unique case (s)
      sgpu_isa_pkg::SREG_NTID_X:            shared_special = 32'(block[0]);
      sgpu_isa_pkg::SREG_NTID_Y:            shared_special = 32'(block[1]);
      sgpu_isa_pkg::SREG_NTID_Z:            shared_special = 32'(block[2]);
      sgpu_isa_pkg::SREG_CTAID_X:           shared_special = cta_q[0];
      sgpu_isa_pkg::SREG_CTAID_Y:           shared_special = cta_q[1];
      sgpu_isa_pkg::SREG_CTAID_Z:           shared_special = cta_q[2];
      sgpu_isa_pkg::SREG_NCTAID_X:          shared_special = grid[0];
      sgpu_isa_pkg::SREG_NCTAID_Y:          shared_special = grid[1];
      sgpu_isa_pkg::SREG_NCTAID_Z:          shared_special = grid[2];
      sgpu_isa_pkg::SREG_WARPID:            shared_special = 32'(warp_q);
      sgpu_isa_pkg::SREG_NWARPID:           shared_special = nwarps;
      sgpu_isa_pkg::SREG_NSMID:             shared_special = 32'd1;
      sgpu_isa_pkg::SREG_CLOCK,
      sgpu_isa_pkg::SREG_CLOCK64:           shared_special = clock_now[31:0];
      sgpu_isa_pkg::SREG_CLOCK_HI:          shared_special = clock_now[63:32];
      sgpu_isa_pkg::SREG_SHARED_WINDOW:     shared_special = 32'(sgpu_isa_pkg::SHARED_WINDOW);
      sgpu_isa_pkg::SREG_LOCAL_WINDOW:      shared_special = 32'(sgpu_isa_pkg::LOCAL_WINDOW);
      sgpu_isa_pkg::SREG_CONST_WINDOW:      shared_special = 32'(sgpu_isa_pkg::CONST_WINDOW);
      sgpu_isa_pkg::SREG_DYNAMIC_SMEM_SIZE: shared_special = dyn_shared_q;
      sgpu_isa_pkg::SREG_TOTAL_SMEM_SIZE:   shared_special = shared_q;
      default:                              shared_special = '0;  // smid, gridid
    endcase
  endfunction

  // ---------------------------------------------------------------------------------------
  // Memory addressing of the lane the LSU serves
  // ---------------------------------------------------------------------------------------
  logic [4:0]   m_lane;
  logic [LANES-1:0] m_rest;
  logic [KW-1:0] m_k;
  logic         m_any;
  logic [63:0]  unused_m_addr;
  logic [4:0]   m_len;
  logic [2:0]   m_space;
  logic [63:0]  m_at;
  logic         m_misaligned, m_outside, m_const_write, m_no_bank, m_write;

  // The lowest lane of the beat still to serve.
  always_comb begin
    m_rest = beat_mask & ({LANES{1'b1}} << mem_lane_q);
    m_any  = |m_rest;
    m_k    = '0;
    for (int k = LANES - 1; k >= 0; k--) begin
      if (m_rest[k]) m_k = KW'(k);
    end
  end
  assign m_lane = lane_no(beat_q, 32'(m_k));

  // The operand slots of lane m_k, or of the lane a serial unit starts on or a shared unit
  // is fed. Chosen lane by lane, each slot with a constant index: an
  // index computed from lane and slot together (opnd_q[m_k][s]) makes yosys choose among
  // all LANES x SLOTS words for every slot read, which cost the default core thousands of
  // LUT4. The same holds for the other two-dimensional arrays below (opnd_q, res_q,
  // preds_q): they are read and written with one computed index at most.
  logic [31:0] m_opnd [SLOTS];
  logic [KW-1:0] opnd_k;
  assign opnd_k = (kind_q == sgpu_core_pkg::KIND_SERIAL) ? ser_next
                : (kind_q == sgpu_core_pkg::KIND_SHARED || kind_q == sgpu_core_pkg::KIND_S2R
                   || kind_q == sgpu_core_pkg::KIND_PIPE) ? shared_k : m_k;
  always_comb begin
    for (int unsigned s = 0; s < SLOTS; s++) begin
      m_opnd[s] = '0;
      for (int unsigned k = 0; k < LANES; k++) begin
        if (opnd_k == KW'(k)) m_opnd[s] = opnd_q[k][s];
      end
    end
  end

  assign div_a = {m_opnd[1], m_opnd[0]};
  assign div_b = {m_opnd[3], m_opnd[2]};

  // The units the lanes share a lane a cycle (S_SHARED): lane shared_k is fed in cycle
  // shared_t_q of the state, and its result comes pipe_latency cycles later, when lane
  // got_k's comes: in the same cycle for the shared ALU and S2R, FLOAT_LATENCY cycles later
  // for the float conversions, MUFU_LATENCY for the special functions. They write neither
  // predicates nor carries.
  localparam int unsigned STW = $clog2(LANES + sgpu_core_pkg::MUFU_LATENCY + 1);
  logic [STW-1:0] shared_t_q, pipe_latency;
  logic [KW-1:0]  shared_k, got_k;
  logic           shared_feed, shared_got;
  assign pipe_latency = (kind_q != sgpu_core_pkg::KIND_PIPE) ? '0
                      : (opcode == sgpu_isa_pkg::OP_MUFU) ? STW'(sgpu_core_pkg::MUFU_LATENCY)
                      : STW'(sgpu_core_pkg::FLOAT_LATENCY);
  assign shared_k     = KW'(shared_t_q);
  assign got_k        = KW'(shared_t_q - pipe_latency);
  assign shared_feed  = state_q == S_SHARED && 32'(shared_t_q) < LANES;
  assign shared_got   = state_q == S_SHARED && shared_t_q >= pipe_latency;

  // The ALU the lanes share for sgpu_core_pkg::shared_op's operations.
  logic [4:0]  shared_l;
  logic [31:0] shared_d, shared_d_hi;
  assign shared_l = lane_no(beat_q, 32'(shared_k));

  if (SHARE) begin : gen_shared
    logic unused_shared, unused_carry, unused_pd, unused_pq;
    sgpu_int_alu #(.LANE_OPS(1'b0)) u_shared (
      .en_i   (shared_feed && kind_q == sgpu_core_pkg::KIND_SHARED),
      .instr_i(word_q),
      .a_i    (m_opnd[0]),
      .b_i    (m_opnd[2]),
      .c_i    (m_opnd[4]),
      .c_hi_i (m_opnd[5]),
      .carry_i(1'b0),  // the shared operations read no carry and no predicate
      .pa_i   (1'b0),
      .pc_i   (1'b0),
      .d_o    (shared_d),
      .d_hi_o (shared_d_hi),
      .carry_o(unused_carry),
      .pd_o   (unused_pd),
      .pq_o   (unused_pq)
    );
    assign unused_shared = ^{unused_carry, unused_pd, unused_pq};
  end else begin : gen_no_shared
    assign shared_d    = '0;
    assign shared_d_hi = '0;
  end

  // The conversions between float formats.
  logic [31:0] f2f_d;
  sgpu_f2f u_f2f (
    .clk_i,
    .rst_ni,
    .en_i   (shared_feed && kind_q == sgpu_core_pkg::KIND_PIPE),
    .instr_i(word_q),
    .a_i    (m_opnd[0]),
    .d_o    (f2f_d)
  );

  // The special functions.
  logic [31:0] mufu_d;
  sgpu_mufu u_mufu (
    .clk_i,
    .rst_ni,
    .en_i   (shared_feed && kind_q == sgpu_core_pkg::KIND_PIPE),
    .instr_i(word_q),
    .a_i    (m_opnd[0]),
    .d_o    (mufu_d)
  );

  // S2R's value in lane shared_k (computed in that state only).
  logic [31:0] s2r_value;
  always_comb begin
    s2r_value = '0;
    if (tid_s2r) begin
      s2r_value = special(sreg, shared_l, tid_beat_q, m_opnd[FRAME_SLOT], shared_special(sreg));
    end
  end

  sgpu_lsu_addr u_lsu_addr (
    .en_i         (state_q == S_SEND || state_q == S_MEM_REQ || state_q == S_MEM_RSP),
    .word_i       (word_q),
    .ra_i         (m_opnd[0]),
    .ra_hi_i      (m_opnd[1]),
    .frame_i      (m_opnd[FRAME_SLOT]),
    .local_i      (local_q),
    .addr_o       (unused_m_addr),
    .len_o        (m_len),
    .space_o      (m_space),
    .at_o         (m_at),
    .write_o      (m_write),
    .misaligned_o (m_misaligned),
    .outside_o    (m_outside),
    .const_write_o(m_const_write),
    .no_bank_o    (m_no_bank)
  );

  logic [127:0] m_data;  // a store's bytes, from rd..rd+3
  assign m_data = {m_opnd[9], m_opnd[8], m_opnd[7], m_opnd[6]};

  // ---------------------------------------------------------------------------------------
  // Surface accesses (SULD, SUST, SURED, SUQ): a beat's lanes one after another, lowest first
  // ---------------------------------------------------------------------------------------
  // A lane's handle is checked against the launch's surf_count; its descriptor is read from
  // the table as two 16-byte blocks (kept for the next lanes while their handle is the same
  // and no write of the instruction has touched it, so that each lane sees the descriptor
  // the golden model reads for it); sgpu_surface_unit places the access in two cycles; then
  // its one aligned block is read (SULD), written (SUST), or read and written with
  // sgpu_atom_alu's new value (SURED) on the memory port, the lane waiting for each answer as
  // an atomic's does; SULD's and SUQ's registers are written one a cycle (S_SU_WB).
  logic su_suld, su_sust, su_sured, su_suq;
  assign su_suld  = opcode == sgpu_isa_pkg::OP_SULD;
  assign su_sust  = opcode == sgpu_isa_pkg::OP_SUST;
  assign su_sured = opcode == sgpu_isa_pkg::OP_SURED;
  assign su_suq   = opcode == sgpu_isa_pkg::OP_SUQ;

  // The lane's handle: the descriptor slot in rb, or the register pair rb (SH).
  logic [63:0] su_handle;
  logic        su_refused;  // SULD.P (sgpu has no formatted load), or a handle not bound
  assign su_handle  = word_q[sgpu_isa_pkg::SH_LSB] ? {m_opnd[3], m_opnd[2]} : 64'(f_rb);
  assign su_refused = (su_suld && word_q[sgpu_isa_pkg::SFMT_LSB])
                      || su_handle >= 64'(surf_count_q);

  // The descriptor last read, of handle desc_handle_q (below surf_count, so 32 bits), and
  // where it is: launch.surf + handle x 32, 32-byte aligned as the table is.
  logic [255:0] desc_q;
  logic [31:0]  desc_handle_q;
  logic         desc_ok_q;    // desc_q holds it, for this instruction
  logic         desc_half_q;  // the block asked for next
  logic         desc_got_q;   // the first block's answer has come
  logic         desc_err_q;   // and was an error
  logic [63:0]  desc_at;
  assign desc_at = surf_table_q + {27'd0, desc_handle_q, 5'd0};

  logic         su_trap, su_drop, su_signed, unused_su_valid;
  logic [7:0]   su_cause;
  logic [63:0]  su_addr;
  logic [2:0]   su_size;
  logic [127:0] su_pdata;
  logic [31:0]  su_query;

  // The coordinates in PTX's order from ra (the fourth, which no access uses, is left
  // out), and the data words from rc: slots 0, 1, 6 and 4, 5, 8, 9 (SLOTS, above).
  sgpu_surface_unit u_surface (
    .clk_i,
    .rst_ni,
    .en_i    (state_q == S_SU_UNIT),
    .instr_i (word_q),
    .desc_i  (desc_q),
    .coord_i ({m_opnd[6], m_opnd[1], m_opnd[0]}),
    .comp_i  ({m_opnd[9], m_opnd[8], m_opnd[5], m_opnd[4]}),
    .valid_o (unused_su_valid),  // S_SU_PLACE is the cycle after S_SU_UNIT
    .trap_o  (su_trap),
    .cause_o (su_cause),
    .drop_o  (su_drop),
    .addr_o  (su_addr),
    .size_o  (su_size),
    .pdata_o (su_pdata),
    .query_o (su_query),
    .signed_o(su_signed)
  );

  // SUST.B's bytes: element i of the vector from data word i, in its dsize's bytes.
  logic [1:0]   su_dsize;
  logic [127:0] su_bdata;
  assign su_dsize = word_q[sgpu_isa_pkg::DSIZE_MSB:sgpu_isa_pkg::DSIZE_LSB];
  always_comb begin
    unique case (su_dsize)
      sgpu_isa_pkg::DSIZE_B8:
        su_bdata = 128'({m_opnd[9][7:0], m_opnd[8][7:0], m_opnd[5][7:0], m_opnd[4][7:0]});
      sgpu_isa_pkg::DSIZE_B16:
        su_bdata = 128'({m_opnd[9][15:0], m_opnd[8][15:0], m_opnd[5][15:0], m_opnd[4][15:0]});
      default: su_bdata = {m_opnd[9], m_opnd[8], m_opnd[5], m_opnd[4]};
    endcase
  end

  // SULD's registers from its lane's bytes of the block: element i of dsize into register i
  // (zero-extended), a 64-bit element into two.
  function automatic logic [127:0] su_registers(logic [127:0] bytes, logic [1:0] dsize);
    logic [127:0] r;
    r = bytes;
    for (int unsigned i = 0; i < 4; i++) begin
      if (dsize == sgpu_isa_pkg::DSIZE_B8) r[32*i +: 32] = 32'(bytes[8*i +: 8]);
      if (dsize == sgpu_isa_pkg::DSIZE_B16) r[32*i +: 32] = 32'(bytes[16*i +: 16]);
    end
    su_registers = r;
  endfunction

  // The unit's results, which it gives in S_SU_PLACE only: the access's address, size and
  // signedness, and in su_data_q SUST.P's element, SUQ's answer or SULD's registers (below).
  logic [63:0]  su_addr_q;
  logic [2:0]   su_size_q;
  logic         su_signed_q;

  logic [127:0] su_block;  // the lane's bytes of the block answered
  assign su_block = mem_rsp_rdata_i >> {su_addr_q[3:0], 3'b000};

  // SULD's or SUQ's registers in the making, written from rd one a cycle; SUST.P's element.
  logic [127:0] su_data_q;
  logic [1:0]   su_wb_k_q;
  logic [7:0]   su_reg;    // the register S_SU_WB writes, rd + su_wb_k_q
  logic [31:0]  su_value;  // and its value
  assign su_reg   = reg_at(f_rd, 3'(su_wb_k_q));
  assign su_value = su_data_q[32*su_wb_k_q +: 32];

  // SURED on the atomics' ALU: its operation and type as ATOM's.
  logic su_wide;
  assign su_wide = su_size_q == 3'd3;
  sgpu_isa_pkg::aop_e su_aop;
  sgpu_isa_pkg::aty_e su_aty;
  always_comb begin
    unique case (word_q[sgpu_isa_pkg::SOP_MSB:sgpu_isa_pkg::SOP_LSB])
      sgpu_isa_pkg::SOP_MIN: su_aop = sgpu_isa_pkg::AOP_MIN;
      sgpu_isa_pkg::SOP_MAX: su_aop = sgpu_isa_pkg::AOP_MAX;
      sgpu_isa_pkg::SOP_AND: su_aop = sgpu_isa_pkg::AOP_AND;
      sgpu_isa_pkg::SOP_OR:  su_aop = sgpu_isa_pkg::AOP_OR;
      default:               su_aop = sgpu_isa_pkg::AOP_ADD;
    endcase
    unique case ({su_signed_q, su_wide})
      2'b00:   su_aty = sgpu_isa_pkg::ATY_U32;
      2'b01:   su_aty = sgpu_isa_pkg::ATY_U64;
      2'b10:   su_aty = sgpu_isa_pkg::ATY_S32;
      default: su_aty = sgpu_isa_pkg::ATY_S64;
    endcase
  end

  // An atomic reads its lane's old value, then writes the new one, as one sequence.
  logic        m_atomic, m_req_write, m_amo_const, su_kind;
  logic [63:0] amo_new;
  assign su_kind     = kind_q == sgpu_core_pkg::KIND_SURF;
  assign m_atomic    = opcode == sgpu_isa_pkg::OP_ATOM || opcode == sgpu_isa_pkg::OP_RED;
  assign m_req_write = m_write || (m_atomic && amo_write_q);
  assign m_amo_const = m_atomic && amo_write_q && m_space == 3'(sgpu_isa_pkg::PORT_CONSTANT);

  sgpu_atom_alu u_atom (
    .clk_i,
    .aop_i (su_kind ? su_aop : aop),
    .aty_i (su_kind ? su_aty : aty),
    .wide_i(su_kind ? su_wide : m_len == 5'd8),
    .old_i (amo_old_q),
    .b_i   (su_kind ? {m_opnd[5], m_opnd[4]} : {m_opnd[3], m_opnd[2]}),
    .c_i   ({m_opnd[5], m_opnd[4]}),
    .new_o (amo_new)
  );

  // A float atomic's new value (add on f32, add, min and max on the 16-bit floats and their
  // pairs), computed in S_AMO_FLOAT from the old value and the lane's b.
  logic        afloat_start_q, afloat_done;
  logic [31:0] afloat_new;
  sgpu_atom_float u_atom_float (
    .clk_i,
    .rst_ni,
    .start_i(state_q == S_AMO_FLOAT && afloat_start_q),
    .aop_i  (aop),
    .aty_i  (aty),
    .old_i  (amo_old_q[31:0]),
    .b_i    (m_opnd[2]),
    .done_o (afloat_done),
    .new_o  (afloat_new)
  );

  logic [127:0] m_req_data;
  assign m_req_data = !(m_atomic && amo_write_q) ? m_data
                    : float_atomic ? {96'd0, afloat_new} : {64'd0, amo_new};

  logic m_fault;
  logic [7:0] m_cause;
  assign m_fault = m_no_bank || m_misaligned || m_outside || m_const_write || m_amo_const;
  assign m_cause = m_no_bank ? 8'(sgpu_isa_pkg::TRAP_NO_CONST_BANK)
                 : m_misaligned ? 8'(sgpu_isa_pkg::TRAP_MISALIGNED)
                 : m_outside ? 8'(sgpu_isa_pkg::TRAP_OUT_OF_BOUNDS)
                 : 8'(sgpu_isa_pkg::TRAP_CONSTANT_WRITE);

  // The request of the memory port: the LSU's lane's, or the surface sequence's (a
  // descriptor block, or the lane's access, in global memory).
  logic         su_req, req_write;
  logic [2:0]   req_space;
  logic [63:0]  req_at;
  logic [4:0]   req_len;
  logic [127:0] req_data;
  assign su_req    = state_q == S_SU_DESC || state_q == S_SU_REQ;
  assign req_write = su_req ? state_q == S_SU_REQ && (su_sust || (su_sured && amo_write_q))
                            : m_req_write;
  assign req_space = su_req ? 3'(sgpu_isa_pkg::PORT_GLOBAL) : m_space;
  assign req_at    = (state_q == S_SU_DESC) ? desc_at + {59'd0, desc_half_q, 4'd0}
                   : su_req ? su_addr_q : m_at;
  assign req_len   = (state_q == S_SU_DESC) ? 5'd16 : su_req ? 5'd1 << su_size_q : m_len;
  assign req_data  = !su_req ? m_req_data
                   : su_sured ? {64'd0, amo_new}
                   : word_q[sgpu_isa_pkg::SFMT_LSB] ? su_data_q : su_bdata;

  assign mem_req_valid_o  = (m_any && !m_fault && (state_q == S_MEM_REQ || state_q == S_SEND))
                            || su_req;
  always_comb begin
    mem_req_tag_o.kind = (m_atomic || su_req) ? sgpu_core_pkg::TAG_ATOMIC
                       : m_write ? sgpu_core_pkg::TAG_STORE : sgpu_core_pkg::TAG_LOAD;
    mem_req_tag_o.last = m_lane == last_lane_q;
    mem_req_tag_o.off  = req_at[3:0];
    mem_req_tag_o.lane = m_lane;
  end
  assign mem_req_write_o  = req_write;
  assign mem_req_space_o  = req_space;
  assign mem_req_thread_o = 10'({warp_q, m_lane});
  assign mem_req_addr_o   = req_at ^ {59'd0, fault[FAULT_REQ_CHANGES] && !mem_req_ready_i, 4'd0};
  assign mem_req_be_o     = 16'(((17'd1 << req_len) - 17'd1) << req_at[3:0]);
  assign mem_req_wdata_o  = req_data << {req_at[3:0], 3'b000};

  // An atomic's old value, from its lane's bytes of the block.
  logic [127:0] m_block;
  logic [63:0]  m_loaded;
  assign m_block  = mem_rsp_rdata_i >> {m_at[3:0], 3'b000};
  assign m_loaded = m_block[63:0];
  logic unused_block;  // an atomic is at most 8 bytes
  assign unused_block = ^m_block[127:64];

  // Loads and stores are posted (sgpu_mem_return); an atomic's answer is its own.
  logic posted;
  assign posted = opcode == sgpu_isa_pkg::OP_LD || opcode == sgpu_isa_pkg::OP_LDC
                  || opcode == sgpu_isa_pkg::OP_ST;
  logic bar_instr;  // BAR or BARRED
  assign bar_instr = opcode == sgpu_isa_pkg::OP_BAR || opcode == sgpu_isa_pkg::OP_BARRED;
  logic rsp_atomic;
  assign rsp_atomic = mem_rsp_tag_i.kind == sgpu_core_pkg::TAG_ATOMIC;

  // ---------------------------------------------------------------------------------------
  // Loads and stores in flight, and the scoreboard
  // ---------------------------------------------------------------------------------------
  logic          ret_full, ret_ready, ret_hazard, ret_we, ret_wake, ret_idle, ret_err;
  logic          rf_free;  // the issue sequence leaves the register file's write port free
  logic [WW-1:0] ret_warp, ret_err_warp;
  logic [4:0]    ret_lane;
  logic [7:0]    ret_reg;
  logic [31:0]   ret_data, ret_err_pc;
  logic          ret_push;

  sgpu_mem_return #(.WARPS(WARPS)) u_return (
    .clk_i,
    .rst_ni,
    .clear_i     (state_q == S_IDLE),
    .push_i      (ret_push),
    .push_warp_i (warp_q),
    .push_rd_i   (f_rd),
    .push_regs_i (n_writes),
    .push_msize_i(word_q[sgpu_isa_pkg::MSIZE_MSB:sgpu_isa_pkg::MSIZE_LSB]),
    .push_pc_i   (pc_q),
    .full_o      (ret_full),
    .sent_i      (mem_req_valid_o && mem_req_ready_i && posted),
    .rsp_valid_i (mem_rsp_valid_i),
    .rsp_tag_i   (mem_rsp_tag_i),
    .rsp_err_i   (mem_rsp_err_i),
    .rsp_rdata_i (mem_rsp_rdata_i),
    .rsp_ready_o (ret_ready),
    .q_valid_i   (state_q == S_DECODE),
    .q_warp_i    (warp_q),
    .q_first_i   ({f_rd, f_rc, f_rb, f_ra}),
    .q_count_i   ({rd_regs, rc_regs, rb_regs, ra_regs}),
    .hazard_o    (ret_hazard),
    .rf_grant_i  (rf_free),
    .rf_we_o     (ret_we),
    .rf_warp_o   (ret_warp),
    .rf_lane_o   (ret_lane),
    .rf_reg_o    (ret_reg),
    .rf_data_o   (ret_data),
    .wake_o      (ret_wake),
    .idle_o      (ret_idle),
    .err_o       (ret_err),
    .err_pc_o    (ret_err_pc),
    .err_warp_o  (ret_err_warp)
  );

  assign mem_rsp_ready_o = rsp_atomic ? state_q == S_MEM_RSP || state_q == S_SU_DRSP
                                        || state_q == S_SU_RSP
                                      : ret_ready;

  // The highest lane of `m`: S_DECODE's, of the lanes that execute (a function called in its
  // arm, so that Verilator walks the lanes only then).
  function automatic logic [4:0] last_of(logic [31:0] m);
    last_of = '0;
    for (int unsigned l = 0; l < 32; l++) begin
      if (m[l]) last_of = 5'(l);
    end
  endfunction

  // ---------------------------------------------------------------------------------------
  // Decode: the kind of sequence (every unit of the ISA has one)
  // ---------------------------------------------------------------------------------------
  sgpu_core_pkg::kind_e kind;
  // Atomics whose operation is a float one (sgpu_atom_float's): add on f32, add, min and max
  // on the 16-bit floats and their pairs.
  logic        float_atomic, half_aty;
  logic [sgpu_isa_pkg::AOP_MSB-sgpu_isa_pkg::AOP_LSB:0] aop;
  logic [sgpu_isa_pkg::ATY_MSB-sgpu_isa_pkg::ATY_LSB:0] aty;
  assign aop = word_q[sgpu_isa_pkg::AOP_MSB:sgpu_isa_pkg::AOP_LSB];
  assign aty = word_q[sgpu_isa_pkg::ATY_MSB:sgpu_isa_pkg::ATY_LSB];
  assign half_aty = aty == sgpu_isa_pkg::ATY_F16 || aty == sgpu_isa_pkg::ATY_BF16
                    || aty == sgpu_isa_pkg::ATY_F16X2 || aty == sgpu_isa_pkg::ATY_BF16X2;
  assign float_atomic = m_atomic
      && ((aty == sgpu_isa_pkg::ATY_F32 && aop == sgpu_isa_pkg::AOP_ADD)
          || (half_aty && (aop == sgpu_isa_pkg::AOP_ADD || aop == sgpu_isa_pkg::AOP_MIN
                           || aop == sgpu_isa_pkg::AOP_MAX)));
  always_comb begin
    kind = sgpu_core_pkg::KIND_ALU;
    unique case (unit)
      sgpu_isa_pkg::UNIT_INT: begin
        if (opcode == sgpu_isa_pkg::OP_S2R) kind = sgpu_core_pkg::KIND_S2R;
        else if (opcode == sgpu_isa_pkg::OP_IDIV) kind = sgpu_core_pkg::KIND_SERIAL;
        else if (SHARE && sgpu_core_pkg::shared_op(opcode)) kind = sgpu_core_pkg::KIND_SHARED;
      end
      sgpu_isa_pkg::UNIT_MEM: begin
        kind = sgpu_core_pkg::KIND_MEM;  // LD, LDC, ST, ATOM, RED
      end
      sgpu_isa_pkg::UNIT_CONTROL: begin
        kind = sgpu_core_pkg::KIND_CTRL;
      end
      sgpu_isa_pkg::UNIT_VIDEO: begin
        kind = sgpu_core_pkg::KIND_VIDEO;
      end
      sgpu_isa_pkg::UNIT_FLOAT: begin
        // The lanes' f32 unit: arithmetic (sgpu_fma), comparisons (sgpu_fcmp) and
        // conversions with integers (sgpu_cvt); the conversions between float formats
        // (sgpu_f2f) the lanes share, and the divider (sgpu_fdiv) for FDIV, FSQRT and FRCP.
        if (opcode == sgpu_isa_pkg::OP_F2F) kind = sgpu_core_pkg::KIND_PIPE;
        else if (ser_fdiv) kind = sgpu_core_pkg::KIND_SERIAL;
        else kind = sgpu_core_pkg::KIND_FLOAT;
      end
      sgpu_isa_pkg::UNIT_SFU: begin
        kind = sgpu_core_pkg::KIND_PIPE;
      end
      sgpu_isa_pkg::UNIT_WARP: begin
        kind = sgpu_core_pkg::KIND_SERIAL;
      end
      default: begin  // UNIT_SURFACE
        kind = sgpu_core_pkg::KIND_SURF;
      end
    endcase
  end

  logic [31:0] guard;
  assign guard = pred_of(guard_pred) ^ {32{guard_neg}};

  // Operand slots to read for this instruction: counts from the ISA table's roles.
  function automatic logic [SLOTS-1:0] slots(logic [3:0] rd_n, logic [3:0] ra_n,
                                            logic [3:0] rb_n, logic [3:0] rc_n,
                                            logic rd_read, sgpu_core_pkg::kind_e k,
                                            logic [7:0] op);
    logic [SLOTS-1:0] s;
    s = '0;
    for (int unsigned i = 0; i < 2; i++) begin
      s[0 + i] = ra_n > 4'(i);
      s[2 + i] = rb_n > 4'(i);
      s[4 + i] = rc_n > 4'(i);
      if (k == sgpu_core_pkg::KIND_SURF) begin
        s[6 + i] = ra_n > 4'(2 + i);
        s[8 + i] = rc_n > 4'(2 + i);
      end
    end
    if (k != sgpu_core_pkg::KIND_SURF) begin
      for (int unsigned i = 0; i < 4; i++) s[6 + i] = rd_read && rd_n > 4'(i);
    end
    s[FRAME_SLOT] = k == sgpu_core_pkg::KIND_MEM || k == sgpu_core_pkg::KIND_S2R
                    || op == sgpu_isa_pkg::OP_CALL || op == sgpu_isa_pkg::OP_CALLR
                    || op == sgpu_isa_pkg::OP_RET;
    slots = s;
  endfunction

  function automatic logic [7:0] slot_reg(logic [3:0] s, logic [7:0] rd, logic [7:0] ra,
                                          logic [7:0] rb, logic [7:0] rc, logic surf);
    unique case (s)
      4'd0, 4'd1: slot_reg = reg_at(ra, 3'(s));
      4'd2, 4'd3: slot_reg = reg_at(rb, 3'(s - 4'd2));
      4'd4, 4'd5: slot_reg = reg_at(rc, 3'(s - 4'd4));
      4'd6, 4'd7: slot_reg = surf ? reg_at(ra, 3'(s - 4'd4)) : reg_at(rd, 3'(s - 4'd6));
      4'd8, 4'd9: slot_reg = surf ? reg_at(rc, 3'(s - 4'd6)) : reg_at(rd, 3'(s - 4'd6));
      default: slot_reg = FRAME_REG;
    endcase
  endfunction

  logic [3:0] rd_next_slot;
  always_comb begin
    rd_next_slot = '0;
    for (int s = SLOTS - 1; s >= 0; s--) begin
      if (rd_pend_q[s]) rd_next_slot = 4'(s);
    end
  end

  // ---------------------------------------------------------------------------------------
  // The scheduler: the next running warp after the last one, round-robin
  // ---------------------------------------------------------------------------------------
  // Looked for in S_SCHED only (elsewhere pick is warp_q), which spares a simulation the loop.
  logic [WW-1:0] pick;
  logic          pick_any, all_done;
  always_comb begin
    logic [WW-1:0] wi;
    wi = '0;
    pick = warp_q;
    pick_any = 1'b0;
    all_done = 1'b1;
    if (state_q == S_SCHED) begin
      for (int unsigned i = 1; i <= WARPS; i++) begin
        wi = WW'((32'(warp_q) + i) % WARPS);
        if (!pick_any && wstate_q[wi] == sgpu_core_pkg::WARP_RUNNING
            && (!blocked_q[wi] || ret_idle)) begin
          pick = wi;
          pick_any = 1'b1;
        end
        if (wstate_q[wi] == sgpu_core_pkg::WARP_RUNNING
            || wstate_q[wi] == sgpu_core_pkg::WARP_WAITING) begin
          all_done = 1'b0;
        end
      end
    end
  end

  // ---------------------------------------------------------------------------------------
  // What each state reads and writes in the memories
  // ---------------------------------------------------------------------------------------
  logic [7:0] wr_reg;  // the register S_WRITE writes: rd + k, or the frame slot
  assign wr_reg = wr_report_q ? reg_at(f_rd, 3'(wr_k_q)) : FRAME_REG;

  always_comb begin
    imem_raddr = IAW'(stk_rdata.pc);
    stk_raddr  = stk_at(pick, sp_q[pick] - SPW'(1));
    rf_raddr   = rf_at(warp_q, beat_q, slot_reg(rd_next_slot, f_rd, f_ra, f_rb, f_rc, su_kind));
    if (state_q == S_SETTLE) stk_raddr = stk_at(warp_q, sp_q[warp_q] - SPW'(2));
    if (state_q == S_SCHED_TOP) stk_raddr = stk_at(warp_q, sp_q[warp_q] - SPW'(1));
    if (state_q == S_WALK_RD) stk_raddr = stk_at(warp_q, walk_q);
    if (state_q == S_GATHER) rf_raddr = rf_at(warp_q, BW'(gather_q), f_ra);
  end

  // S_FIRST's entry: the warp's lanes at the kernel's entry. Built outside the process below
  // because yosys 0.23 makes a latch of a struct function's result used in only some arms.
  sgpu_core_pkg::entry_t first_entry;
  assign first_entry = entry(entry_q, NEVER, lanes_q[WW'(walk_q)], 1'b0, '0);

  // The stack is written in the cycle a state says, so that a read in any later state sees
  // the write.
  always_comb begin
    stk_we    = 1'b0;
    stk_waddr = stk_at(warp_q, sp_q[warp_q] - SPW'(1));
    stk_wdata = top_q;
    unique case (state_q)
      S_FIRST: begin
        stk_we    = 32'(walk_q) < WARPS;
        stk_waddr = stk_at(WW'(walk_q), '0);
        stk_wdata = first_entry;
      end
      S_BTOP, S_STORE_TOP: stk_we = 1'b1;
      S_PUSH_A: begin
        stk_we    = 1'b1;
        stk_waddr = stk_at(warp_q, base_q);
        stk_wdata = push_a_q;
      end
      S_PUSH_B: begin
        stk_we    = 1'b1;
        stk_waddr = stk_at(warp_q, base_q + SPW'(1));
        stk_wdata = push_b_q;
      end
      S_WALK: begin
        stk_we    = 1'b1;
        stk_waddr = stk_at(warp_q, walk_q);
        stk_wdata = stk_rdata;
        stk_wdata.mask = stk_rdata.mask & ~mask_q;
      end
      default: ;
    endcase
  end

  // A posted load issues when its warp's registers are free and there is room in flight.
  assign ret_push = state_q == S_DECODE && !illegal && posted && !ret_hazard
                    && (!ret_full || fault[FAULT_QUEUE_FULL]) && (top_q.mask & guard) != '0;

  // The write port: the issue sequence's, else a posted load's answer. A surface lane's
  // register, one a cycle (RZ is not written: its slot holds the frame start).
  logic su_we;
  assign su_we = state_q == S_SU_WB && su_reg != 8'hff;

  assign rf_free = fault[FAULT_TWO_WRITERS]
                   || !(state_q == S_INIT || state_q == S_REDWB || state_q == S_SU_WB
                        || (state_q == S_WRITE && wr_left_q != 0));

  // The issue sequence's writers of the register file; a posted load's answer writes only
  // when none of them does (rf_free).
  logic init_we, write_we, redwb_we;
  assign init_we  = state_q == S_INIT;
  assign write_we = state_q == S_WRITE && wr_left_q != 0 && (wr_reg != 8'hff || !wr_report_q);
  assign redwb_we = state_q == S_REDWB && red_popc_q[warp_q] && red_rd_q[warp_q] != 8'hff;

  always_comb begin
    rf_waddr = rf_at(warp_q, beat_q, wr_reg);
    rf_we    = '0;
    for (int unsigned k = 0; k < LANES; k++) rf_wdata[k] = wr_k_q[0] ? res_q[k][1] : res_q[k][0];
    if (ret_we) begin
      rf_waddr = rf_at(ret_warp, BW'(32'(ret_lane) / LANES), ret_reg);
      rf_we    = LANES'(1) << (32'(ret_lane) % LANES);
      for (int unsigned k = 0; k < LANES; k++) rf_wdata[k] = ret_data;
    end else if (init_we) begin
      rf_waddr = init_q;
      rf_we    = '1;
      for (int unsigned k = 0; k < LANES; k++) rf_wdata[k] = '0;
    end else if (write_we) begin
      rf_we = beat_mask;
    end else if (redwb_we) begin
      rf_waddr = rf_at(warp_q, beat_q, red_rd_q[warp_q]);
      rf_we    = red_mask_q[warp_q][32'(beat_q) * LANES +: LANES];
      for (int unsigned k = 0; k < LANES; k++) rf_wdata[k] = red_value_q[warp_q];
    end else if (su_we) begin
      rf_waddr = rf_at(warp_q, beat_q, su_reg);
      rf_we    = LANES'(1) << m_k;
      for (int unsigned k = 0; k < LANES; k++) rf_wdata[k] = su_value;
    end
  end

  // ---------------------------------------------------------------------------------------
  // Arrays with one write port
  // ---------------------------------------------------------------------------------------
  // Each array below has a process of its own with one write (a data source and an enable
  // per word, a clear at most), so that a word's flip-flops take the port's data directly
  // rather than through a multiplexer a bit for every state that writes them (hw/README.md).
  logic init_end;  // the last cycle of a CTA's start
  assign init_end = state_q == S_INIT && init_q == RAW'(RFN - 1);

  // A beat's operand slots: cleared as the beat starts (a slot not read is zero), then one
  // slot a cycle from the register banks.
  always_ff @(posedge clk_i) begin
    if (state_q == S_BEAT) begin
      for (int unsigned k = 0; k < LANES; k++) begin
        for (int unsigned s = 0; s < SLOTS; s++) opnd_q[k][s] <= '0;
      end
    end else if (state_q == S_READ && rd_busy_q) begin
      for (int unsigned s = 0; s < SLOTS; s++) begin
        if (rd_slot_q == 4'(s)) begin
          for (int unsigned k = 0; k < LANES; k++) opnd_q[k][s] <= rf_rdata[k];
        end
      end
    end
  end

  // Every lane's ra (S_GATHER): a beat's lanes a cycle, the banks' data a cycle after the
  // read. RZ reads zero (its place in a bank holds the thread's frame start).
  always_ff @(posedge clk_i) begin
    if (state_q == S_GATHER && gather_q != '0) begin
      for (int unsigned l = 0; l < 32; l++) begin
        if (32'(gather_q) - 1 == l / LANES) begin
          xw_q[l] <= (f_ra == 8'hff) ? '0 : rf_rdata[l % LANES];
        end
      end
    end
  end

  // A beat's results, two words a lane: every lane's from the integer or video ALU or a
  // control instruction (the frame start a call or return moves to) as it executes; one
  // lane's at a time from a serial unit, a shared one, S2R or an atomic's old value, on one
  // data path.
  logic          one_we;
  logic [KW-1:0] one_k;
  logic [63:0]   one_data;
  assign one_we   = (state_q == S_SERIAL && ser_done) || shared_got
                    || (state_q == S_MEM_RSP && mem_rsp_valid_i && rsp_atomic && !mem_rsp_err_i
                        && amo_write_q);
  assign one_k    = (state_q == S_SERIAL) ? ser_k_q : (state_q == S_SHARED) ? got_k : m_k;
  assign one_data = (state_q == S_SERIAL) ? ser_result
                  : tid_s2r ? {clock_now[63:32], s2r_value}
                  : (state_q == S_SHARED) ? {shared_d_hi, shared_d | f2f_d | mufu_d}
                  : amo_old_q;
  always_ff @(posedge clk_i) begin
    if (state_q == S_EXEC || state_q == S_UNIT) begin
      unique case (kind_q)
        // The lanes' integer, video and f32 units: those not giving a result give zeros, so
        // the last cycle's value is the result (the video unit's comes in S_UNIT, after
        // S_EXEC has written zeros, the f32 unit's in S_UNIT's fourth cycle).
        sgpu_core_pkg::KIND_ALU, sgpu_core_pkg::KIND_VIDEO, sgpu_core_pkg::KIND_FLOAT: begin
          for (int unsigned k = 0; k < LANES; k++) begin
            res_q[k][0] <= alu_d[k] | video_d[k] | fma_d[k] | fcmp_d[k] | cvt_d[k];
            res_q[k][1] <= alu_d_hi[k] | cvt_d_hi[k];
          end
        end
        sgpu_core_pkg::KIND_CTRL: begin
          for (int unsigned k = 0; k < LANES; k++) begin
            res_q[k][0] <= (opcode == sgpu_isa_pkg::OP_RET)
                           ? opnd_q[k][FRAME_SLOT] - 32'(call_frame_q)
                           : 32'(moved_frame(opnd_q[k][FRAME_SLOT]));
          end
        end
        default: ;  // the shared and serial units' and an atomic's lanes come later
      endcase
    end else if (one_we) begin
      for (int unsigned k = 0; k < LANES; k++) begin
        if (one_k == KW'(k)) begin
          res_q[k][0] <= one_data[31:0];
          res_q[k][1] <= one_data[63:32];
        end
      end
    end
  end

  // The predicates: one of the running warp's a cycle (pd after the beats, pq the cycle
  // after, a BARRED's AND or OR into pd when its warp next issues); all cleared at a CTA's
  // start.
  logic        pw_we;
  logic [2:0]  pw_idx;
  logic [31:0] pw_data;
  always_comb begin
    pw_we   = 1'b0;
    pw_idx  = pd_idx;
    pw_data = pd_new_q;
    unique case (state_q)
      S_AFTER: pw_we = kind_q != sgpu_core_pkg::KIND_CTRL && pred_we[0];
      S_AFTER_Q: begin
        pw_we   = 1'b1;
        pw_idx  = pq_idx;
        pw_data = pq_new_q;
      end
      S_REDWB: begin
        pw_we   = 32'(beat_q) == BEATS - 1 && !red_popc_q[warp_q] && red_pd_q[warp_q] != 3'd7;
        pw_idx  = red_pd_q[warp_q];
        pw_data = (pred_of(red_pd_q[warp_q]) & ~red_mask_q[warp_q])
                  | ({32{red_value_q[warp_q][0]}} & red_mask_q[warp_q]);
      end
      default: ;
    endcase
  end

  always_ff @(posedge clk_i) begin
    if (init_end) begin
      for (int unsigned w = 0; w < WARPS; w++) begin
        for (int unsigned p = 0; p < 7; p++) preds_q[w][p] <= '0;
      end
    end else if (pw_we) begin
      for (int unsigned w = 0; w < WARPS; w++) begin
        for (int unsigned p = 0; p < 7; p++) begin
          if (warp_q == WW'(w) && pw_idx == 3'(p)) preds_q[w][p] <= pw_data;
        end
      end
    end
  end

  // Each warp's carry flags, and the threads that have exited.
  always_ff @(posedge clk_i) begin
    if (init_end) begin
      for (int unsigned w = 0; w < WARPS; w++) begin
        carry_q[w]  <= '0;
        exited_q[w] <= '0;
      end
    end else begin
      if (state_q == S_AFTER && kind_q != sgpu_core_pkg::KIND_CTRL && carry_we) begin
        carry_q[warp_q] <= carry_new_q;
      end
      if (state_q == S_CTRL && opcode == sgpu_isa_pkg::OP_EXIT) begin
        exited_q[warp_q] <= exited_q[warp_q] | mask_q;
      end
    end
  end

  // ---------------------------------------------------------------------------------------
  // The sequence
  // ---------------------------------------------------------------------------------------
  logic [31:0] branch_rpc;
  assign branch_rpc = pend_q[warp_q] ? pend_rpc_q[warp_q] : NEVER;
  logic        replace;  // a divergent branch whose paths take the running entry's place
  assign replace = top_q.rpc == branch_rpc && !top_q.call;

  logic [2:0] pd_idx, pq_idx;
  assign pd_idx = word_q[sgpu_isa_pkg::PD_MSB:sgpu_isa_pkg::PD_LSB];
  assign pq_idx = word_q[sgpu_isa_pkg::PQ_MSB:sgpu_isa_pkg::PQ_LSB];
  logic [1:0] pred_we;
  assign pred_we = (opcode == sgpu_isa_pkg::OP_ISETP || opcode == sgpu_isa_pkg::OP_FSETP)
                 ? {pq_idx != 3'd7, pd_idx != 3'd7}
                 : (opcode == sgpu_isa_pkg::OP_PLOP || opcode == sgpu_isa_pkg::OP_SHFL
                    || opcode == sgpu_isa_pkg::OP_MATCH || opcode == sgpu_isa_pkg::OP_VOTE)
                   ? {1'b0, pd_idx != 3'd7} : 2'b00;
  logic carry_we;
  assign carry_we = (opcode == sgpu_isa_pkg::OP_IADD || opcode == sgpu_isa_pkg::OP_IMAD)
                    && word_q[sgpu_isa_pkg::CC_LSB];

  // A beat's operand reads: the slots the instruction reads, less RZ, of an instruction
  // whose first registers and counts are `first` and `count` ({rd, rc, rb, ra}, 8 and 4 bits
  // each). S_BEAT calls it, so that a simulation works it out only then.
  function automatic logic [SLOTS-1:0] beat_slots(sgpu_core_pkg::kind_e k, logic [7:0] op,
                                                  logic rd_read, logic [31:0] first,
                                                  logic [15:0] count);
    logic [SLOTS-1:0] r;
    r = slots(count[15:12], count[3:0], count[7:4], count[11:8], rd_read, k, op);
    for (int unsigned s = 0; s < FRAME_SLOT; s++) begin
      if (slot_reg(4'(s), first[31:24], first[7:0], first[15:8], first[23:16],
                   k == sgpu_core_pkg::KIND_SURF) == 8'hff) begin
        r[s] = 1'b0;
      end
    end
    beat_slots = r;
  endfunction

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q      <= S_IDLE;
      trap_cause_q <= 8'(sgpu_isa_pkg::TRAP_NONE);
      trap_pc_q    <= '0;
      trap_warp_q  <= '0;
      warp_q       <= '0;
      for (int unsigned w = 0; w < WARPS; w++) wstate_q[w] <= sgpu_core_pkg::WARP_ABSENT;
      // A CTA's start and a trap clear them too: no warp waits outside a CTA.
      for (int unsigned b = 0; b < NBAR; b++) bar_waiting_q[b] <= '0;
    end else begin
      if (ret_wake) blocked_q <= '0;
      unique case (state_q)
        S_IDLE: if (start_i) begin
          for (int unsigned i = 0; i < 3; i++) cta_q[i] <= '0;
          clock_q      <= '0;
          order_q      <= '0;
          trap_cause_q <= 8'(sgpu_isa_pkg::TRAP_NONE);
          nthreads_q   <= 32'(block_i[10:0]) * 32'(block_i[21:11]) * 32'(block_i[32:22]);
          grid_q       <= grid_i;
          block_q      <= block_i;
          code_words_q <= code_words_i;
          entry_q      <= entry_i;
          shared_q     <= shared_i;
          dyn_shared_q <= dyn_shared_i;
          local_q      <= local_i;
          surf_table_q <= surf_table_i;
          surf_count_q <= surf_count_i;
          init_q       <= '0;
          init_tid_q   <= '0;
          state_q      <= S_INIT;
        end

        // A CTA starts: every register (and frame start) zero, each warp's first thread
        // index found by walking the threads one a cycle.
        S_INIT: begin
          init_q     <= init_q + RAW'(1);
          init_tid_q <= tid_after;
          if (32'(init_q) < WARPS * 32 && 32'(init_q) % 32 == 0) begin
            tid0_q[WW'(32'(init_q) / 32)] <= init_tid_q;
          end
          if (init_end) begin
            // Warps below nthreads / 32 are full, the one at it has the rest, if any.
            logic [31:0] rest;
            rest = (32'd1 << nthreads_q[4:0]) - 32'd1;
            for (int unsigned w = 0; w < WARPS; w++) begin
              lanes_q[w]  <= (32'(w) < nthreads_q >> 5) ? '1
                           : (32'(w) == nthreads_q >> 5) ? rest : '0;
              wstate_q[w] <= (32'(w) < nwarps) ? sgpu_core_pkg::WARP_RUNNING
                                                  : sgpu_core_pkg::WARP_ABSENT;
              sp_q[w]     <= (32'(w) < nwarps) ? SPW'(1) : '0;
              pend_q[w]   <= 1'b0;
              blocked_q[w] <= 1'b0;
            end
            rel_q <= '0;
            for (int unsigned b = 0; b < NBAR; b++) begin
              bar_arrived_q[b] <= '0;
              bar_waiting_q[b] <= '0;
            end
            for (int unsigned w = 0; w < WARPS; w++) red_wb_q[w] <= 1'b0;
            walk_q  <= '0;
            warp_q  <= WW'(WARPS - 1);
            state_q <= S_FIRST;
          end
        end

        // Each warp's first stack entry, one a cycle.
        S_FIRST: begin
          walk_q <= walk_q + SPW'(1);
          if (32'(walk_q) + 1 >= WARPS) state_q <= S_SCHED;
        end

        // A load's or store's error answer stops the core; a warp waiting for loads, or an
        // exited one's loads still in flight, keep it waiting.
        S_SCHED: begin
          if (ret_err) begin
            state_q <= S_TRAP;
          end else if (pick_any) begin
            warp_q  <= pick;
            beat_q  <= '0;
            state_q <= red_wb_q[pick] ? S_REDWB : S_TOP;
          end else if (!ret_idle) begin
            state_q <= S_SCHED;
          end else if (all_done) begin
            // The next CTA in x, y, z order, or the grid's end.
            init_q     <= '0;
            init_tid_q <= '0;
            state_q    <= S_INIT;
            if (cta_q[0] + 32'd1 < grid[0]) begin
              cta_q[0] <= cta_q[0] + 32'd1;
            end else if (cta_q[1] + 32'd1 < grid[1]) begin
              cta_q[0] <= '0;
              cta_q[1] <= cta_q[1] + 32'd1;
            end else if (cta_q[2] + 32'd1 < grid[2]) begin
              cta_q[0] <= '0;
              cta_q[1] <= '0;
              cta_q[2] <= cta_q[2] + 32'd1;
            end else begin
              state_q <= S_DONE;
            end
          end else begin
            trap_cause_q <= 8'(sgpu_isa_pkg::TRAP_DEADLOCK);
            trap_pc_q    <= '0;
            state_q      <= S_TRAP;
          end
        end

        // The top entry has been read; its pc's word is read next.
        S_TOP: begin
          top_q <= stk_rdata;
          pc_q  <= stk_rdata.pc;
          if (stk_rdata.pc >= code_words_q) begin
            trap_cause_q <= 8'(sgpu_isa_pkg::TRAP_PC_OUTSIDE_CODE);
            trap_pc_q    <= stk_rdata.pc;
            trap_warp_q  <= 8'(warp_q);
            state_q      <= S_TRAP;
          end else begin
            state_q <= S_FETCH;
          end
        end

        S_FETCH: begin
          word_q  <= imem_rdata;
          state_q <= S_DECODE;
        end

        S_DECODE: begin
          active_q    <= top_q.mask;
          mask_q      <= top_q.mask & guard;
          lanes_run_q <= top_q.mask & guard;
          kind_q      <= kind;
          beat_q      <= '0;
          tid_beat_q  <= tid0_q[warp_q];
          pd_new_q    <= pred_of(pd_idx);
          pq_new_q    <= pred_of(pq_idx);
          carry_new_q <= carry_q[warp_q];
          bar_have_q  <= 1'b0;
          callr_have_q   <= 1'b0;
          callr_second_q <= 1'b0;
          callr_same_q   <= '0;
          mem_lane_q  <= '0;
          last_lane_q <= last_of(top_q.mask & guard);
          amo_write_q <= 1'b0;
          desc_ok_q   <= 1'b0;
          bar_ev_q    <= 1'b0;
          trap_pc_q   <= pc_q;
          trap_warp_q <= 8'(warp_q);
          if (illegal) begin
            trap_cause_q <= 8'(sgpu_isa_pkg::TRAP_INVALID);
            state_q      <= S_TRAP;
          end else if (ret_hazard || (posted && ret_full)) begin
            blocked_q[warp_q] <= 1'b1;
            state_q           <= S_SCHED;
          end else if (unit == sgpu_isa_pkg::UNIT_WARP && opcode != sgpu_isa_pkg::OP_VOTE) begin
            gather_q <= '0;
            state_q  <= S_GATHER;
          end else if (kind != sgpu_core_pkg::KIND_CTRL) begin
            state_q <= S_BEAT;
          end else if (opcode == sgpu_isa_pkg::OP_CALLR && (top_q.mask & guard) != '0) begin
            state_q <= S_BEAT;
          end else if (opcode == sgpu_isa_pkg::OP_CALL && (top_q.mask & guard) != '0) begin
            if (32'(sp_q[warp_q]) + 1 > DEPTH) begin
              trap_cause_q <= 8'(sgpu_isa_pkg::TRAP_STACK_OVERFLOW);
              state_q      <= S_TRAP;
            end else begin
              state_q <= S_BEAT;
            end
          end else if (opcode == sgpu_isa_pkg::OP_WARPSYNC
                       || (bar_instr && (top_q.mask & guard) != '0)) begin
            state_q <= S_BEAT;
          end else begin
            state_q <= S_CTRL;
          end
        end

        // A beat starts: its operands are read unless none of its lanes takes part (S2R's
        // beats all run, as they walk the thread indices).
        S_BEAT: begin
          if (beat_mask == '0 && kind_q != sgpu_core_pkg::KIND_S2R) begin
            next_beat();
          end else begin
            rd_pend_q <= beat_slots(kind_q, opcode, reads[0], {f_rd, f_rc, f_rb, f_ra},
                                   {rd_regs, rc_regs, rb_regs, ra_regs});
            rd_busy_q <= 1'b0;
            state_q <= S_READ;
          end
        end

        // One register read a cycle; its data arrives the next.
        S_READ: begin
          if (rd_pend_q != '0) begin
            rd_slot_q <= rd_next_slot;
            rd_busy_q <= 1'b1;
            rd_pend_q[rd_next_slot] <= 1'b0;
          end else begin
            rd_busy_q <= 1'b0;
            if (!rd_busy_q) state_q <= S_EXEC;
          end
        end

        S_EXEC: begin
          wr_k_q      <= '0;
          wr_left_q   <= n_writes;
          wr_report_q <= 1'b1;
          state_q     <= S_WRITE;
          unique case (kind_q)
            sgpu_core_pkg::KIND_ALU: begin
              pd_new_q    <= beat_merge(pd_new_q, alu_pd, beat_sel);
              pq_new_q    <= beat_merge(pq_new_q, alu_pq, beat_sel);
              carry_new_q <= beat_merge(carry_new_q, alu_carry, beat_sel);
            end
            sgpu_core_pkg::KIND_VIDEO: begin
              unit_wait_q <= 3'd0;
              state_q     <= S_UNIT;
            end
            sgpu_core_pkg::KIND_FLOAT: begin
              unit_wait_q <= 3'(sgpu_core_pkg::FLOAT_LATENCY - 1);
              state_q     <= S_UNIT;
            end
            sgpu_core_pkg::KIND_SERIAL: begin
              ser_k_q <= '0;
              state_q <= S_SERIAL;
            end
            sgpu_core_pkg::KIND_SHARED, sgpu_core_pkg::KIND_S2R, sgpu_core_pkg::KIND_PIPE: begin
              shared_t_q <= '0;
              state_q    <= S_SHARED;
            end
            sgpu_core_pkg::KIND_MEM: begin
              mem_lane_q <= '0;
              state_q    <= posted ? S_SEND : S_MEM_REQ;
            end
            sgpu_core_pkg::KIND_SURF: begin
              mem_lane_q <= '0;
              wr_left_q  <= '0;  // SULD and SUQ write their lanes' registers as they go
              state_q    <= S_SU_LANE;
            end
            default: exec_control();
          endcase
        end

        // The pipelined lane units' later stages (video and f32): their results are written
        // to res_q, and FSETP's predicates merged, in the last cycle.
        S_UNIT: begin
          if (unit_wait_q != 3'd0) begin
            unit_wait_q <= unit_wait_q - 3'd1;
          end else begin
            state_q <= S_WRITE;
            if (kind_q == sgpu_core_pkg::KIND_FLOAT) begin
              pd_new_q <= beat_merge(pd_new_q, float_pd, beat_sel);
              pq_new_q <= beat_merge(pq_new_q, float_pq, beat_sel);
            end
          end
        end

        // A shared unit (or S2R) is fed the beat's lanes, one a cycle, and gives their
        // results pipe_latency cycles later.
        S_SHARED: begin
          shared_t_q <= shared_t_q + STW'(1);
          if (tid_s2r) tid_beat_q <= tid_after;
          if (32'(shared_t_q) == LANES - 1 + 32'(pipe_latency)) state_q <= S_WRITE;
        end

        // A serial unit computes the beat's lanes one after another; the warp unit's pd
        // bits go to the executing lanes.
        S_SERIAL: if (ser_done) begin
          ser_k_q <= ser_next;
          if (ser_warp && !vote_ballot) begin
            for (int unsigned k = 0; k < LANES; k++) begin
              if (ser_k_q == KW'(k) && beat_mask[k]) pd_new_q[lane_no(beat_q, k)] <= warp_pd;
            end
          end
          if (ser_last) state_q <= S_WRITE;
        end

        // Every lane's ra for the warp unit, a beat's lanes a cycle.
        S_GATHER: begin
          gather_q <= gather_q + (BW+1)'(1);
          if (32'(gather_q) == BEATS) state_q <= S_BEAT;
        end

        // An atomic's beat: its lanes, lowest first, each reading and then writing.
        S_MEM_REQ: begin
          if (!m_any) begin
            state_q <= S_WRITE;
          end else if (m_fault) begin
            trap_cause_q <= m_cause;
            state_q      <= S_TRAP;
          end else if (mem_req_ready_i) begin
            state_q <= S_MEM_RSP;
          end
        end

        // A posted load's or store's beat: its lanes' requests, lowest first, back to back;
        // a fault found at issue traps once the requests in flight are answered.
        S_SEND: begin
          if (!m_any) begin
            next_beat();
          end else if (m_fault) begin
            trap_cause_q <= m_cause;
            state_q      <= S_TRAP;
          end else if (mem_req_ready_i) begin
            mem_lane_q <= {1'b0, m_k} + (KW+1)'(1);
          end
        end

        // An atomic's answer: the old value, then the write's acknowledgement.
        S_MEM_RSP: if (mem_rsp_valid_i && rsp_atomic) begin
          if (mem_rsp_err_i) begin
            trap_cause_q <= 8'(sgpu_isa_pkg::TRAP_OUT_OF_BOUNDS);
            state_q      <= S_TRAP;
          end else if (!amo_write_q) begin
            // The old value's bytes, zero-extended.
            amo_old_q      <= (m_len == 5'd8) ? m_loaded[63:0]
                            : (m_len == 5'd2) ? 64'(m_loaded[15:0]) : 64'(m_loaded[31:0]);
            amo_write_q    <= 1'b1;
            afloat_start_q <= 1'b1;
            state_q        <= float_atomic ? S_AMO_FLOAT : S_MEM_REQ;
          end else begin
            amo_write_q   <= 1'b0;
            mem_lane_q    <= {1'b0, m_k} + (KW+1)'(1);
            state_q       <= S_MEM_REQ;
          end
        end

        // A float atomic's new value: the unit started in the first cycle, its write when
        // it is done.
        S_AMO_FLOAT: begin
          afloat_start_q <= 1'b0;
          if (afloat_done && !afloat_start_q) state_q <= S_MEM_REQ;
        end

        // A surface instruction's beat: its lanes, lowest first, each with the handle
        // checked, its descriptor read unless desc_q holds it, then placed.
        S_SU_LANE: begin
          if (!m_any) begin
            state_q <= S_WRITE;
          end else if (su_refused) begin
            trap_cause_q <= 8'(sgpu_isa_pkg::TRAP_SURFACE);
            state_q      <= S_TRAP;
          end else if (desc_ok_q && su_handle[31:0] == desc_handle_q) begin
            state_q <= S_SU_UNIT;
          end else begin
            desc_handle_q <= su_handle[31:0];
            desc_half_q   <= 1'b0;
            desc_got_q    <= 1'b0;
            desc_err_q    <= 1'b0;
            state_q       <= S_SU_DESC;
          end
        end

        // The descriptor's two blocks, asked for back to back.
        S_SU_DESC: if (mem_req_ready_i) begin
          desc_half_q <= 1'b1;
          if (desc_half_q) state_q <= S_SU_DRSP;
        end

        // Their answers, in order; an error traps once both have come, so that none is left
        // in flight.
        S_SU_DRSP: if (mem_rsp_valid_i && rsp_atomic) begin
          if (desc_got_q) desc_q[255:128] <= mem_rsp_rdata_i;
          else desc_q[127:0] <= mem_rsp_rdata_i;
          desc_got_q <= 1'b1;
          desc_err_q <= desc_err_q || mem_rsp_err_i;
          if (desc_got_q && (desc_err_q || mem_rsp_err_i)) begin
            trap_cause_q <= 8'(sgpu_isa_pkg::TRAP_OUT_OF_BOUNDS);
            state_q      <= S_TRAP;
          end else if (desc_got_q) begin
            desc_ok_q <= 1'b1;
            state_q   <= S_SU_UNIT;
          end
        end

        // The surface unit's first stage; its results come in S_SU_PLACE.
        S_SU_UNIT: state_q <= S_SU_PLACE;

        S_SU_PLACE: begin
          su_wb_k_q   <= '0;
          su_addr_q   <= su_addr;
          su_size_q   <= su_size;
          su_signed_q <= su_signed;
          // SUQ's answer, SUST.P's element, or a dropped SULD's zeros.
          su_data_q   <= su_suq ? 128'(su_query) : su_sust ? su_pdata : '0;
          if (su_trap) begin
            trap_cause_q <= su_cause;
            state_q      <= S_TRAP;
          end else if (su_suq || (su_drop && su_suld)) begin
            state_q <= S_SU_WB;
          end else if (su_drop) begin
            su_next_lane();
          end else begin
            state_q <= S_SU_REQ;
          end
        end

        // The access's request: SULD's and SURED's read, SUST's and SURED's write. A write
        // into the descriptor in desc_q makes the next lane read it again.
        S_SU_REQ: if (mem_req_ready_i) begin
          if (req_write && su_addr_q[63:5] == desc_at[63:5]) desc_ok_q <= 1'b0;
          state_q <= S_SU_RSP;
        end

        S_SU_RSP: if (mem_rsp_valid_i && rsp_atomic) begin
          if (mem_rsp_err_i) begin
            trap_cause_q <= 8'(sgpu_isa_pkg::TRAP_OUT_OF_BOUNDS);
            state_q      <= S_TRAP;
          end else if (su_suld) begin
            su_data_q <= su_registers(su_block, su_dsize);
            state_q   <= S_SU_WB;
          end else if (su_sured && !amo_write_q) begin
            amo_old_q   <= su_wide ? su_block[63:0] : 64'(su_block[31:0]);
            amo_write_q <= 1'b1;
            state_q     <= S_SU_REQ;
          end else begin
            amo_write_q <= 1'b0;
            su_next_lane();
          end
        end

        // SULD's registers (rd_regs of them) or SUQ's one, a cycle each.
        S_SU_WB: begin
          su_wb_k_q <= su_wb_k_q + 2'd1;
          if (3'(su_wb_k_q) + 3'd1 >= 3'(rd_regs)) su_next_lane();
        end

        S_WRITE: begin
          if (wr_left_q == 0) begin
            next_beat();
          end else begin
            wr_left_q <= wr_left_q - 3'd1;
            wr_k_q    <= wr_k_q + 2'd1;
          end
        end

        // Every beat done: predicates and carry take the executing lanes' results.
        S_AFTER: begin
          if (kind_q == sgpu_core_pkg::KIND_CTRL) begin
            state_q <= S_POST;
          end else begin
            top_q.pc <= next_pc;
            state_q  <= pred_we[1] ? S_AFTER_Q : S_SETTLE;
          end
        end

        // pq is written a cycle after pd, so that the predicates have one write port.
        S_AFTER_Q: state_q <= S_SETTLE;

        S_CTRL: control();
        S_POST: control_post();

        // The running entry before a divergent branch's two paths: it waits at their
        // reconvergence point.
        S_BTOP: state_q <= S_PUSH_A;

        S_PUSH_A: begin
          if (two_q) begin
            state_q <= S_PUSH_B;
          end else begin
            top_q   <= push_a_q;
            sp_q[warp_q] <= base_q + SPW'(1);
            state_q <= S_FINISH;  // a call's entry: nothing to settle
          end
        end

        S_PUSH_B: begin
          top_q        <= push_b_q;
          sp_q[warp_q] <= base_q + SPW'(2);
          state_q      <= push_settle_q ? S_SETTLE : S_FINISH;
        end

        S_WALK_RD: state_q <= S_WALK;

        // An entry below the top loses the lanes of mask_q (EXIT, RET); RET stops at its
        // call's entry.
        S_WALK: begin
          if (opcode == sgpu_isa_pkg::OP_RET && stk_rdata.call) begin
            ret_found(stk_rdata.mask, stk_rdata.frame);
          end else if (walk_q == '0) begin
            if (opcode == sgpu_isa_pkg::OP_RET) begin
              trap_cause_q <= 8'(sgpu_isa_pkg::TRAP_RET_OUTSIDE);
              state_q      <= S_TRAP;
            end else begin
              state_q <= S_SETTLE;
            end
          end else begin
            walk_q  <= walk_q - SPW'(1);
            state_q <= S_WALK_RD;
          end
        end

        // Entries that reached their reconvergence point or lost every lane are popped. A
        // call's entry ends only when its lanes have returned: its return address may be an
        // instruction of the callee too (recursion), which the callee reaches in its own
        // frame (docs/golden-model.md, "Reconvergence and calls").
        S_SETTLE: begin
          if (sp_q[warp_q] == '0) begin
            state_q <= S_FINISH;
          end else if (top_q.mask == '0 || (!top_q.call && top_q.pc == top_q.rpc)) begin
            sp_q[warp_q] <= sp_q[warp_q] - SPW'(1);
            state_q <= (sp_q[warp_q] == SPW'(1)) ? S_FINISH : S_SETTLE_RD;
          end else begin
            state_q <= S_STORE_TOP;
          end
        end

        // A BARRED's result before the warp's next instruction: POPC's into rd, a beat a
        // cycle; AND's or OR's into pd (in the last cycle, by the predicate write port).
        S_REDWB: begin
          if (32'(beat_q) == BEATS - 1) begin
            red_wb_q[warp_q] <= 1'b0;
            state_q          <= S_SCHED_TOP;
          end
          beat_q <= beat_q + BW'(1);
        end

        // Completed barriers release their waiting warps, one barrier a cycle (an exit may
        // complete several); a reduction's result goes to each when it next issues
        // (S_REDWB), so that only the running warp's predicates and registers are written.
        S_RELEASE: begin
          bar_arrived_q[rel_b] <= '0;
          bar_waiting_q[rel_b] <= '0;
          for (int unsigned w = 0; w < WARPS; w++) begin
            if (bar_waiting_q[rel_b][w]) begin
              wstate_q[w] <= sgpu_core_pkg::WARP_RUNNING;
              if (bar_red_q[rel_b]) begin
                red_wb_q[w]    <= 1'b1;
                red_popc_q[w]  <= bar_op_q[rel_b] == sgpu_isa_pkg::BRED_POPC;
                red_value_q[w] <= rel_value;
              end
            end
          end
          rel_q <= rel_q & ~rel_one;
          if (rel_q == rel_one) state_q <= rel_next_q;
        end

        // The warp's top entry is read again after S_REDWB.
        S_SCHED_TOP: state_q <= S_TOP;

        S_SETTLE_RD: begin
          top_q   <= stk_rdata;
          state_q <= S_SETTLE;
        end

        S_STORE_TOP: state_q <= S_FINISH;

        S_FINISH: begin
          clock_q <= clock_q + 64'd1;
          order_q <= order_q + 64'd1;
          state_q <= S_SCHED;
          if (sp_q[warp_q] == '0) begin
            wstate_q[warp_q] <= sgpu_core_pkg::WARP_EXITED;
            // The warp's exit may complete barriers that wait for every warp left: they are
            // released before the next warp is scheduled.
            for (int unsigned b = 0; b < NBAR; b++) begin
              if (exit_done[b]) begin
                rel_q[b]   <= 1'b1;
                rel_next_q <= S_SCHED;
                state_q    <= S_RELEASE;
              end
            end
          end
        end

        // Every request in flight is answered first; an error answer among them came from an
        // instruction that retired before the one trapping, so its trap is the one reported.
        S_TRAP: if (ret_idle) begin
          if (ret_err) begin
            trap_cause_q <= 8'(sgpu_isa_pkg::TRAP_OUT_OF_BOUNDS);
            trap_pc_q    <= ret_err_pc;
            trap_warp_q  <= 8'(ret_err_warp);
          end
          for (int unsigned w = 0; w < WARPS; w++) wstate_q[w] <= sgpu_core_pkg::WARP_ABSENT;
          for (int unsigned b = 0; b < NBAR; b++) bar_waiting_q[b] <= '0;
          state_q <= S_DONE;
        end

        S_DONE: state_q <= S_IDLE;

        default: state_q <= S_IDLE;
      endcase
`ifdef SGPU_COSIM
`ifndef SYNTHESIS
      // No state (a cast yosys does not read: the gate-level netlist has no fault to inject).
      if (fault[FAULT_STATE]) state_q <= state_e'(6'h3f);
`endif
`endif
    end
  end

  // A surface instruction's next lane.
  task automatic su_next_lane();
    mem_lane_q <= {1'b0, m_k} + (KW+1)'(1);
    state_q    <= S_SU_LANE;
  endtask

  // The next beat, or the instruction's end.
  task automatic next_beat();
    if (32'(beat_q) == BEATS - 1) begin
      state_q <= S_AFTER;
    end else begin
      beat_q  <= beat_q + BW'(1);
      state_q <= S_BEAT;
    end
  endtask

  // A control instruction's beat: CALL moves the calling lanes' frame starts (trapping if one
  // passes the end of local memory), RET moves them back, WARPSYNC checks its member mask.
  task automatic exec_control();
    logic [32:0] moved;
    logic [63:0] target;
    logic        calls;
    logic [LANES-1:0] same;
    logic [31:0] absent;
    // CALLR's first pass: the target of the first executing lane, and the lanes that share it.
    target = callr_have_q ? callr_addr_q : {m_opnd[1], m_opnd[0]};
    if (opcode == sgpu_isa_pkg::OP_CALLR && !callr_second_q) begin
      callr_have_q <= 1'b1;
      callr_addr_q <= target;
      for (int unsigned k = 0; k < LANES; k++) same[k] = {opnd_q[k][1], opnd_q[k][0]} == target;
      callr_same_q <= beat_merge(callr_same_q, same, beat_sel);
    end
    // WARPSYNC's members that are neither exited nor executing.
    absent = lanes_q[warp_q] & ~exited_q[warp_q] & ~mask_q;
    calls = opcode == sgpu_isa_pkg::OP_CALL
            || (opcode == sgpu_isa_pkg::OP_CALLR && callr_second_q);
    for (int unsigned k = 0; k < LANES; k++) begin
      moved = moved_frame(opnd_q[k][FRAME_SLOT]);
      if (beat_mask[k] && calls && moved > 33'(local_q)) begin
        trap_cause_q <= 8'(sgpu_isa_pkg::TRAP_FRAME_OVERFLOW);
        state_q      <= S_TRAP;
      end
      if (beat_mask[k] && opcode == sgpu_isa_pkg::OP_WARPSYNC
          && (opnd_q[k][0] & absent) != '0) begin
        trap_cause_q <= 8'(sgpu_isa_pkg::TRAP_SYNC_MEMBERS);
        state_q      <= S_TRAP;
      end
    end
    if (bar_instr && !bar_have_q) begin
      bar_have_q    <= 1'b1;
      bar_id_q      <= b_imm ? 32'(f_rb) : m_opnd[2];
      bar_threads_q <= m_opnd[4];
    end
    wr_left_q   <= (opcode == sgpu_isa_pkg::OP_WARPSYNC || bar_instr
                    || (opcode == sgpu_isa_pkg::OP_CALLR && !callr_second_q)) ? 3'd0 : 3'd1;
    wr_report_q <= 1'b0;
  endtask

  // A calling lane's frame start after CALL or CALLR: its frame start moved by the caller's
  // frame size.
  function automatic logic [32:0] moved_frame(logic [31:0] frame);
    moved_frame = {1'b0, frame}
        + ((opcode == sgpu_isa_pkg::OP_CALLR)
           ? 33'(word_q[sgpu_isa_pkg::RFRAME_MSB:sgpu_isa_pkg::RFRAME_LSB])
           : 33'(word_q[sgpu_isa_pkg::FRAME_MSB:sgpu_isa_pkg::FRAME_LSB]));
  endfunction

  // CALLR after each pass (the golden model's `indirect_call` and `Warp::call`). After the
  // first: the target must be an instruction's address, and the stack must hold the
  // callee's entry (and, when other lanes hold other targets and this is not the entry
  // already waiting at the CALLR, one for them); then the calling lanes' frames move. After
  // the second: the running entry waits at the return address (or, when it is the waiting
  // one, keeps only the lanes still to call), then the entries are pushed.
  logic [31:0] callr_waiting;
  logic        callr_again, callr_new_waiting;
  assign callr_waiting     = mask_q & ~callr_same_q;
  assign callr_again       = !top_q.call && top_q.pc == pc_q && top_q.rpc == next_pc;
  assign callr_new_waiting = callr_waiting != '0 && !callr_again;

  task automatic callr_post();
    sgpu_core_pkg::entry_t callee;
    callee = entry(32'(callr_addr_q >> 3), next_pc, callr_same_q, 1'b1,
                   word_q[sgpu_isa_pkg::RFRAME_MSB:sgpu_isa_pkg::RFRAME_LSB]);
    if (!callr_second_q) begin
      if (callr_addr_q[2:0] != '0 || callr_addr_q[63:35] != '0) begin
        trap_cause_q <= 8'(sgpu_isa_pkg::TRAP_CALL_TARGET);
        state_q      <= S_TRAP;
      end else if (32'(sp_q[warp_q]) + 1 + 32'(callr_new_waiting) > DEPTH) begin
        trap_cause_q <= 8'(sgpu_isa_pkg::TRAP_STACK_OVERFLOW);
        state_q      <= S_TRAP;
      end else begin
        callr_second_q <= 1'b1;
        lanes_run_q    <= callr_same_q;
        beat_q         <= '0;
        tid_beat_q     <= tid0_q[warp_q];
        state_q        <= S_BEAT;
      end
    end else begin
      if (callr_waiting != '0 && callr_again) begin
        top_q.mask <= callr_waiting;
      end else begin
        top_q.pc <= next_pc;
      end
      push_a_q      <= callr_new_waiting
                       ? entry(pc_q, next_pc, callr_waiting, 1'b0, '0) : callee;
      push_b_q      <= callee;
      two_q         <= callr_new_waiting;
      push_settle_q <= 1'b0;
      base_q        <= sp_q[warp_q];
      state_q       <= S_BTOP;
    end
  endtask

  // RET has found its call's entry: the returning lanes leave it, and those of them that
  // made the call get their frame start back.
  task automatic ret_found(logic [31:0] call_lanes, logic [19:0] frame);
    call_frame_q <= frame;
    lanes_run_q  <= mask_q & call_lanes;
    beat_q       <= '0;
    tid_beat_q   <= tid0_q[warp_q];
    state_q      <= S_BEAT;
  endtask

  // Control instructions without operands, and RET's and EXIT's first steps.
  task automatic control();
    unique case (opcode)
      sgpu_isa_pkg::OP_BRA: begin
        pend_q[warp_q] <= 1'b0;
        if (mask_q == active_q) begin
          top_q.pc <= target_pc;
          state_q  <= S_SETTLE;
        end else if (mask_q == '0) begin
          top_q.pc <= next_pc;
          state_q  <= S_SETTLE;
        end else if (32'(sp_q[warp_q]) + 2 - 32'(replace) > DEPTH) begin
          trap_cause_q <= 8'(sgpu_isa_pkg::TRAP_STACK_OVERFLOW);
          state_q      <= S_TRAP;
        end else begin
          push_a_q <= entry(next_pc, branch_rpc, active_q & ~mask_q, 1'b0, '0);
          push_b_q <= entry(target_pc, branch_rpc, mask_q, 1'b0, '0);
          two_q    <= 1'b1;
          push_settle_q <= 1'b1;
          base_q   <= replace ? sp_q[warp_q] - SPW'(1) : sp_q[warp_q];
          top_q.pc <= branch_rpc;
          state_q  <= replace ? S_PUSH_A : S_BTOP;
        end
      end
      sgpu_isa_pkg::OP_SSY: begin
        pend_q[warp_q]     <= 1'b1;
        pend_rpc_q[warp_q] <= target_pc;
        top_q.pc <= next_pc;
        state_q  <= S_SETTLE;
      end
      sgpu_isa_pkg::OP_EXIT: begin
        top_q.mask <= top_q.mask & ~mask_q;
        top_q.pc   <= next_pc;
        walk_q     <= sp_q[warp_q] - SPW'(2);
        state_q    <= (sp_q[warp_q] == SPW'(1)) ? S_SETTLE : S_WALK_RD;
      end
      sgpu_isa_pkg::OP_RET: begin
        top_q.mask <= top_q.mask & ~mask_q;
        walk_q     <= sp_q[warp_q] - SPW'(2);
        if (top_q.call) begin
          ret_found(top_q.mask, top_q.frame);
        end else if (sp_q[warp_q] == SPW'(1)) begin
          trap_cause_q <= 8'(sgpu_isa_pkg::TRAP_RET_OUTSIDE);
          state_q      <= S_TRAP;
        end else begin
          state_q <= S_WALK_RD;
        end
      end
      sgpu_isa_pkg::OP_TRAP: begin
        if (mask_q != '0) begin
          trap_cause_q <= 8'(sgpu_isa_pkg::TRAP_INSTRUCTION);
          state_q      <= S_TRAP;
        end else begin
          top_q.pc <= next_pc;
          state_q  <= S_SETTLE;
        end
      end
      sgpu_isa_pkg::OP_WARPSYNCI: begin
        if (mask_q != '0
            && ((word_q[sgpu_isa_pkg::IMM32_MSB:sgpu_isa_pkg::IMM32_LSB] & lanes_q[warp_q]
                 & ~exited_q[warp_q]) & ~mask_q) != '0) begin
          trap_cause_q <= 8'(sgpu_isa_pkg::TRAP_SYNC_MEMBERS);
          state_q      <= S_TRAP;
        end else begin
          top_q.pc <= next_pc;
          state_q  <= S_SETTLE;
        end
      end
      sgpu_isa_pkg::OP_CALL: begin  // no lane calls
        top_q.pc <= next_pc;
        state_q  <= S_SETTLE;
      end
      default: begin  // NOP, MEMBAR
        top_q.pc <= next_pc;
        state_q  <= S_SETTLE;
      end
    endcase
  endtask

  // After a control instruction's beats: CALL pushes the callee's entry, RET and WARPSYNC
  // move on.
  task automatic control_post();
    if (opcode != sgpu_isa_pkg::OP_CALLR) top_q.pc <= next_pc;
    if (opcode == sgpu_isa_pkg::OP_CALLR) begin
      callr_post();
    end else if (bar_instr) begin
      arrive();
    end else if (opcode == sgpu_isa_pkg::OP_CALL) begin
      push_a_q <= entry(target_pc, next_pc, mask_q, 1'b1,
                        word_q[sgpu_isa_pkg::FRAME_MSB:sgpu_isa_pkg::FRAME_LSB]);
      two_q    <= 1'b0;
      base_q   <= sp_q[warp_q];
      state_q  <= S_BTOP;
    end else begin
      state_q <= S_SETTLE;
    end
  endtask

  // ---------------------------------------------------------------------------------------
  // Barriers (the golden model's barrier.rs)
  // ---------------------------------------------------------------------------------------
  // Warps of the CTA that have not exited, and those that would be left after this one exits:
  // counted for the states that read them (an arrival in S_POST, an exit in S_FINISH), and
  // zero in the others, which spares a simulation the loops.
  logic [5:0] live;
  always_comb begin
    live = '0;
    if (state_q == S_POST || state_q == S_FINISH) begin
      for (int unsigned w = 0; w < WARPS; w++) begin
        if (wstate_q[w] == sgpu_core_pkg::WARP_RUNNING
            || wstate_q[w] == sgpu_core_pkg::WARP_WAITING) begin
          live = live + 6'd1;
        end
      end
    end
  end

  // The barrier S_RELEASE releases (the lowest of rel_q, its bit rel_one), and its
  // reduction's value.
  logic [3:0]      rel_b;
  logic [NBAR-1:0] rel_one;
  logic [31:0]     rel_value;
  assign rel_one = rel_q & ~(rel_q - NBAR'(1));
  always_comb begin
    rel_b     = '0;
    rel_value = '0;
    if (state_q == S_RELEASE) begin
      for (int b = NBAR - 1; b >= 0; b--) begin
        if (rel_q[b]) rel_b = 4'(b);
      end
      rel_value = result_of(bar_op_q[rel_b], bar_popc_q[rel_b], bar_all_q[rel_b],
                            bar_any_q[rel_b]);
    end
  end

  // Barriers that the exit of the warp in flight completes, and the event of the last.
  logic [NBAR-1:0]  exit_done;
  logic [3:0]       exit_id;
  logic [WARPS-1:0] exit_released;
  always_comb begin
    exit_done     = '0;
    exit_id       = '0;
    exit_released = '0;
    if (state_q == S_FINISH) begin
      for (int unsigned b = 0; b < NBAR; b++) begin
        exit_done[b] = bar_arrived_q[b] != '0
            && 27'(bar_arrived_q[b])
               >= (bar_counted_q[b] ? bar_expected_q[b] : 27'(live) - 27'd1);
        if (exit_done[b] && bar_waiting_q[b] != '0) begin
          exit_id       = 4'(b);
          exit_released = bar_waiting_q[b];
        end
      end
    end
  end

  // BAR's arrival: the barrier must exist, a thread count must be a positive multiple of 32
  // and agree with the other arrivals'; the warp waits (.sync), and the last arrival
  // releases the waiting warps.
  task automatic arrive();
    logic [3:0]       id;
    logic             counted, sync, red, first;
    logic [BREDW-1:0] op;
    logic [26:0]      expected;
    logic [5:0]       arrived;
    logic [WARPS-1:0] waiting;
    logic [31:0]      set, popc;
    logic             all, any;
    id       = bar_id_q[3:0];
    counted  = f_rc != 8'hff;
    red      = opcode == sgpu_isa_pkg::OP_BARRED;
    op       = word_q[sgpu_isa_pkg::BRED_MSB:sgpu_isa_pkg::BRED_LSB];
    sync     = red || word_q[sgpu_isa_pkg::BMODE_MSB:sgpu_isa_pkg::BMODE_LSB]
                      == sgpu_isa_pkg::BMODE_SYNC;
    expected = bar_threads_q[31:5];
    first    = bar_arrived_q[id] == '0;
    arrived  = bar_arrived_q[id] + 6'd1;
    waiting  = bar_waiting_q[id] | (sync ? (WARPS'(1) << warp_q) : '0);
    // The reduction so far with this warp's lanes: those of the BARRED whose pc is true.
    set      = (pc_all ^ {32{word_q[sgpu_isa_pkg::PCN_LSB]}}) & mask_q;
    popc     = (first ? 32'd0 : bar_popc_q[id]) + 32'($countones(set));
    all      = (first || bar_all_q[id]) && set == mask_q;
    any      = (!first && bar_any_q[id]) || set != '0;
    state_q  <= S_SETTLE;
    if (bar_id_q >= NBAR) begin
      trap_cause_q <= 8'(sgpu_isa_pkg::TRAP_BARRIER_ID);
      state_q      <= S_TRAP;
    end else if (counted && (bar_threads_q == '0 || bar_threads_q[4:0] != '0)) begin
      trap_cause_q <= 8'(sgpu_isa_pkg::TRAP_BARRIER_COUNT);
      state_q      <= S_TRAP;
    end else if (!first && (bar_counted_q[id] != counted
                 || (counted && bar_expected_q[id] != expected) || bar_red_q[id] != red
                 || (red && bar_op_q[id] != op))) begin
      trap_cause_q <= 8'(sgpu_isa_pkg::TRAP_BARRIER_MISMATCH);
      state_q      <= S_TRAP;
    end else begin
      bar_ev_q       <= 1'b1;
      bar_ev_id_q    <= id;
      bar_ev_waits_q <= sync;
      bar_ev_red_q   <= 1'b0;
      bar_counted_q[id]  <= counted;
      bar_expected_q[id] <= expected;
      bar_red_q[id]      <= red;
      bar_op_q[id]       <= op;
      bar_popc_q[id]     <= popc;
      bar_all_q[id]      <= all;
      bar_any_q[id]      <= any;
      if (red) begin
        red_rd_q[warp_q]   <= f_rd;
        red_pd_q[warp_q]   <= pd_idx;
        red_mask_q[warp_q] <= mask_q;
      end
      bar_waiting_q[id] <= waiting;
      if (27'(arrived) >= (counted ? expected : 27'(live))) begin
        rel_q             <= NBAR'(1) << id;
        rel_next_q        <= S_SETTLE;
        state_q           <= S_RELEASE;
        bar_ev_released_q <= waiting;
        bar_ev_red_q      <= red;
        bar_ev_op_q       <= op;
        bar_ev_value_q    <= result_of(op, popc, all, any);
      end else begin
        bar_arrived_q[id] <= arrived;
        bar_ev_released_q <= '0;
        if (sync) wstate_q[warp_q] <= sgpu_core_pkg::WARP_WAITING;
      end
    end
  endtask

  // A completed reduction's value: the count of true predicates, or whether all or any were.
  function automatic logic [31:0] result_of(logic [BREDW-1:0] op, logic [31:0] popc,
                                            logic all, logic any);
    unique case (op)
      sgpu_isa_pkg::BRED_POPC: result_of = popc;
      sgpu_isa_pkg::BRED_AND:  result_of = 32'(all);
      default:                 result_of = 32'(any);
    endcase
  endfunction

  // ---------------------------------------------------------------------------------------
  // Outputs
  // ---------------------------------------------------------------------------------------
  assign busy_o       = state_q != S_IDLE;
  assign done_o       = state_q == S_DONE;
  assign trap_cause_o = trap_cause_q;
  assign trap_pc_o    = trap_pc_q;
  assign trap_warp_o  = trap_warp_q;

  // ---------------------------------------------------------------------------------------
  // Assertions (docs/cosim.md): every co-simulation runs them (verilator --assert); a failure
  // stops the run at its cycle. Not synthesised.
  // ---------------------------------------------------------------------------------------
`ifndef SYNTHESIS
  // Which barriers warp `w` waits at.
  function automatic logic [NBAR-1:0] waits_at(logic [WW-1:0] w);
    for (int unsigned b = 0; b < NBAR; b++) waits_at[b] = bar_waiting_q[b][w];
  endfunction

  a_state_legal: assert property (@(posedge clk_i) disable iff (!rst_ni)
    int'(state_q) <= int'(S_SU_WB))
    else $error("state_q is %0d, no state of the core", state_q);
  // The port's handshake (docs/hw.md, "Memory port"): a request that is not taken stays, as
  // it was, until it is; a request names at least one byte; done is a pulse.
  a_req_held: assert property (@(posedge clk_i) disable iff (!rst_ni)
    mem_req_valid_o && !mem_req_ready_i |=> mem_req_valid_o
      && $stable({mem_req_write_o, mem_req_space_o, mem_req_thread_o, mem_req_addr_o,
                  mem_req_be_o, mem_req_wdata_o, mem_req_tag_o}))
    else $error("a memory request changed or left before it was taken");
  a_req_bytes: assert property (@(posedge clk_i) disable iff (!rst_ni)
    mem_req_valid_o |-> mem_req_be_o != '0)
    else $error("a memory request with no byte enabled");
  a_done_pulse: assert property (@(posedge clk_i) disable iff (!rst_ni)
    done_o |=> !done_o)
    else $error("done_o is high two cycles");
  a_one_writer: assert property (@(posedge clk_i) disable iff (!rst_ni)
    $onehot0({ret_we, init_we, write_we, redwb_we, su_we}))
    else $error("two writers of the register file in one cycle");
  // A warp waits at one barrier at most, and only while it is waiting (or its arrival
  // completed the barrier, which S_RELEASE is releasing).
  for (genvar w = 0; w < WARPS; w++) begin : g_barrier_assert
    logic [NBAR-1:0] at;
    logic            waiting;
    assign at      = waits_at(WW'(w));
    assign waiting = wstate_q[w] == sgpu_core_pkg::WARP_WAITING;
    a_one_barrier: assert property (@(posedge clk_i) disable iff (!rst_ni)
      $onehot0(at) && (at == '0 || waiting || state_q == S_RELEASE))
      else $error("warp %0d waits at barriers %h in state %0d", w, at, wstate_q[w]);
  end
`endif

`ifndef SGPU_COSIM
  // What only the retirement port reports: the barrier events.
  logic unused_events;
  assign unused_events = ^{bar_ev_q, bar_ev_waits_q, bar_ev_id_q, bar_ev_released_q, exit_id,
                           exit_released, bar_ev_red_q, bar_ev_op_q, bar_ev_value_q};
  // The one fault whose injection is co-simulation's own code.
  logic unused_fault;
  assign unused_fault = fault[FAULT_STATE];
`endif

`ifdef SGPU_COSIM
  assign rvfi_valid_o       = state_q == S_FINISH;
  assign rvfi_order_o       = order_q;
  assign rvfi_warp_o        = 8'(warp_q);
  assign rvfi_pc_o          = pc_q;
  assign rvfi_word_o        = word_q;
  assign rvfi_active_o      = active_q;
  assign rvfi_mask_o        = mask_q;
  assign rvfi_exited_o      = sp_q[warp_q] == '0;
  assign rvfi_next_pc_o     = top_q.pc;
  assign rvfi_next_active_o = top_q.mask;
  assign rvfi_pred_we_o     = pred_we;
  assign rvfi_pred_idx_o    = {pq_idx, pd_idx};
  assign rvfi_pred_val_o    = {pred_of(pq_idx), pred_of(pd_idx)};
  assign rvfi_carry_we_o    = carry_we;
  assign rvfi_carry_o       = carry_q[warp_q];
  assign rvfi_clock_o       = clock_now[31:0];
  assign rvfi_late_o        = opcode == sgpu_isa_pkg::OP_LD || opcode == sgpu_isa_pkg::OP_LDC;
  assign rvfi_lw_valid_o    = ret_we;
  assign rvfi_lw_warp_o     = 8'(ret_warp);
  assign rvfi_lw_reg_o      = ret_reg;
  assign rvfi_lw_lane_o     = ret_lane;
  assign rvfi_lw_data_o     = ret_data;
  assign rvfi_rf_we_o       = (state_q == S_WRITE && wr_left_q != 0 && wr_report_q
                               && wr_reg != 8'hff) || su_we;
  assign rvfi_rf_reg_o      = su_we ? su_reg : wr_reg;
  assign rvfi_rf_lane0_o    = lane_no(beat_q, 0);
  assign rvfi_rf_lanes_o    = su_we ? LANES'(1) << m_k : beat_mask;
  always_comb begin
    for (int unsigned k = 0; k < LANES; k++) begin
      rvfi_rf_data_o[32*k +: 32] = su_we ? su_value : res_q[k][wr_k_q[0]];
    end
  end
  assign rvfi_st_valid_o    = mem_req_valid_o && mem_req_ready_i && req_write;
  assign rvfi_st_lane_o     = m_lane;
  assign rvfi_st_space_o    = req_space;
  assign rvfi_st_addr_o     = req_at;
  assign rvfi_st_len_o      = req_len;
  assign rvfi_st_data_o     = req_data;
  assign rvfi_cta_o         = state_q == S_INIT && init_q == '0;
  assign rvfi_cta_idx_o     = {cta_q[2], cta_q[1], cta_q[0]};
  // An exit that completes a barrier reports it (the golden model's `recheck`).
  logic exit_event;
  assign exit_event          = sp_q[warp_q] == '0 && exit_released != '0;
  assign rvfi_bar_valid_o    = bar_ev_q || exit_event;
  assign rvfi_bar_id_o       = exit_event ? exit_id : bar_ev_id_q;
  assign rvfi_bar_waits_o    = !exit_event && bar_ev_waits_q;
  assign rvfi_bar_released_o = exit_event ? 32'(exit_released) : 32'(bar_ev_released_q);
  assign rvfi_bar_red_o      = exit_event ? bar_red_q[exit_id] : bar_ev_red_q;
  assign rvfi_bar_op_o       = exit_event ? bar_op_q[exit_id] : bar_ev_op_q;
  assign rvfi_bar_value_o    = exit_event ? result_of(bar_op_q[exit_id], bar_popc_q[exit_id],
                                                      bar_all_q[exit_id], bar_any_q[exit_id])
                                          : bar_ev_value_q;
`endif

endmodule
