// Core v2's load/store unit, its first half (docs/adr/0008-core-v2-pipeline.md, "Memory"):
// a beat of LD, ST or LDC becomes each lane's whole access as the golden model's
// `exec/mem.rs` makes it: the effective address, the space and the address in it (a generic
// address through the shared, local and constant windows; a local one, and a device
// function's `.param`, moved by the thread's frame start unless ABS; LDC's banks), the
// bytes a store writes, and the first lane that faults (no such constant bank, a misaligned
// address, an access past the end of local, shared, parameter or constant memory, a store to
// constant memory), in the model's order: lanes in order, so the lanes before the fault access memory and none
// after it, in this beat or the instruction's later ones. The accesses then go on to be
// coalesced for the memory port or split into words for the shared memory.
//
// Beats come as the lanes' do: the predicate row a cycle after issue, the operands five
// after, pass after pass (docs/adr/0008, "Pairs": an instruction issues once for each word
// of its widest tuple). The issue reads, for these instructions:
//   a  word p of ra's tuple in pass p (its last word in later passes): the address, its
//      high word in pass 1 with `e`;
//   b  word p of rd's tuple in pass p, in rb's place: a store's data;
//   c  the warp's frame slot (sgpu_control), in rc's place: the lanes' frame starts.
// The unit keeps a beat's address low words and data words of the passes before the last
// in distributed RAM, a row a beat, and makes the beat's accesses in its last pass:
//
//   t + 5  the last pass's operands: each lane's address, data and frame gathered
//   t + 6  the effective address (one 64-bit adder a lane)
//   t + 7  its space and offset (the windows are aligned to their size: an equality on the
//          high bits), whether it is misaligned, the local offset moved by the frame
//   t + 8  whether an access ends past its space's memory, each lane's fault
//   t + 9  the beat's first faulting lane, the lanes that access
//   t + 10 the beat out (`acc_*`)
//
// No back-pressure: a beat a cycle in, a beat a cycle out (the issue's `room` for the
// memory side is the queue after this stage's). Every last-pass beat comes out, with no
// lanes when none accesses, so that what follows sees each instruction's end (`acc_last_o`).
// Only a global access's bound is left to the memory (its answer's error).
// Package names are written out in full and enumerated fields compared as bit vectors, so
// that yosys reads the module as Verilator does.
module sgpu_lsu_beat #(
  parameter int unsigned LANES = 8,
  parameter int unsigned WARPS = 8,
  parameter int unsigned TW = 1,  // what the issue hands on with a beat (its row, entry...)
  localparam int unsigned BEATS = 32 / LANES,
  localparam int unsigned BW    = (BEATS > 1) ? $clog2(BEATS) : 1,
  localparam int unsigned SW    = (WARPS > 1) ? $clog2(WARPS) : 1
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // The bytes of the bounded spaces: a thread's local memory, the CTA's shared memory, the
  // parameters (constant bank 0) and the module's constants (bank 1).
  input  logic [31:0]          local_size_i,
  input  logic [31:0]          shared_size_i,
  input  logic [31:0]          param_size_i,
  input  logic [31:0]          const_size_i,

  // A beat issues (as the scheduler's issue_*), LD, ST or LDC only.
  input  logic                 issue_valid_i,
  input  logic [SW-1:0]        issue_slot_i,
  input  logic [BW-1:0]        issue_beat_i,
  input  logic [1:0]           issue_pass_i,
  input  logic                 issue_last_i,   // the instruction's last beat
  input  logic [63:0]          issue_instr_i,
  input  logic [LANES-1:0]     issue_lanes_i,  // the warp's active lanes of the beat
  input  logic [TW-1:0]        issue_tag_i,
  input  logic [8*LANES-1:0]   pred_row_i,     // t + 1
  input  logic [32*LANES-1:0]  a_i,            // t + 5
  input  logic [32*LANES-1:0]  b_i,
  input  logic [32*LANES-1:0]  c_i,

  // A last-pass beat's accesses, lane k's at [k*W +: W]; the spaces are PORT_*. A store's
  // bytes are its data's first 2^size; a local address is within the thread's memory.
  output logic                 acc_valid_o,
  output logic [SW-1:0]        acc_slot_o,
  output logic [BW-1:0]        acc_beat_o,
  output logic                 acc_last_o,
  output logic [TW-1:0]        acc_tag_o,
  output logic                 acc_write_o,
  output logic [2:0]           acc_size_o,     // log2 of the bytes a lane accesses
  output logic                 acc_signed_o,   // an 8- or 16-bit load extends its sign
  output logic [LANES-1:0]     acc_lanes_o,    // the lanes that access memory
  output logic [3*LANES-1:0]   acc_space_o,
  output logic [64*LANES-1:0]  acc_at_o,
  output logic [128*LANES-1:0] acc_data_o,
  // The instruction's fault, with the beat of its lane (no lane of it accesses, nor any
  // after it): TRAP_* and the lane within the warp.
  output logic                 fault_o,
  output logic [7:0]           fault_cause_o,
  output logic [4:0]           fault_lane_o
);

  localparam logic [2:0] GLOBAL = 3'(sgpu_isa_pkg::PORT_GLOBAL);
  localparam logic [2:0] SHARED = 3'(sgpu_isa_pkg::PORT_SHARED);
  localparam logic [2:0] LOCAL  = 3'(sgpu_isa_pkg::PORT_LOCAL);
  localparam logic [2:0] CONST  = 3'(sgpu_isa_pkg::PORT_CONSTANT);
  localparam logic [2:0] PARAM  = 3'(sgpu_isa_pkg::PORT_PARAM);

  // ------------------------------------------------------------------------------------
  // Cycle t: what the later stages need of the instruction, decoded once.
  // ------------------------------------------------------------------------------------
  typedef struct packed {
    logic        write;       // ST
    logic        ldc;
    logic        wide;        // a register pair's address (`e`, not LDC)
    logic        no_bank;     // LDC from a bank other than 0 and 1
    logic [2:0]  space;       // LDC's bank's PORT_*; else the instruction's SPACE_*
    logic        labs;
    logic [2:0]  size;        // log2 of the bytes
    logic        sgn;         // S8, S16: a load extends its sign
    logic [1:0]  last_pass;   // the instruction's passes less one
    logic [23:0] off;
  } how_t;

  // (Its fields in locals, then packed: yosys 0.23 assigns no field of a function's result.)
  function automatic how_t decode(logic [63:0] w);
    logic [7:0] op;
    logic       write, ldc, wide, no_bank;
    logic [2:0] space, size;
    logic [1:0] data_words, last_pass;
    op      = w[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB];
    write   = op == sgpu_isa_pkg::OP_ST;
    ldc     = op == sgpu_isa_pkg::OP_LDC;
    wide    = !ldc && w[sgpu_isa_pkg::E_LSB];
    no_bank = ldc && w[sgpu_isa_pkg::CBANK_MSB:sgpu_isa_pkg::CBANK_LSB] > 4'd1;
    space   = !ldc ? w[sgpu_isa_pkg::SPACE_MSB:sgpu_isa_pkg::SPACE_LSB]
            : w[sgpu_isa_pkg::CBANK_LSB] ? CONST : PARAM;
    unique case (w[sgpu_isa_pkg::MSIZE_MSB:sgpu_isa_pkg::MSIZE_LSB])
      sgpu_isa_pkg::MSIZE_U8, sgpu_isa_pkg::MSIZE_S8:   size = 3'd0;
      sgpu_isa_pkg::MSIZE_U16, sgpu_isa_pkg::MSIZE_S16: size = 3'd1;
      sgpu_isa_pkg::MSIZE_32:                           size = 3'd2;
      sgpu_isa_pkg::MSIZE_64:                           size = 3'd3;
      default:                                          size = 3'd4;
    endcase
    // Passes: a word of the widest tuple each, the address's (two with `e`) or the data's.
    data_words = (size == 3'd4) ? 2'd3 : (size == 3'd3) ? 2'd1 : 2'd0;
    last_pass  = (wide && data_words == 2'd0) ? 2'd1 : data_words;
    decode = {write, ldc, wide, no_bank, space, !ldc && w[sgpu_isa_pkg::LABS_LSB], size,
              w[sgpu_isa_pkg::MSIZE_MSB:sgpu_isa_pkg::MSIZE_LSB] == sgpu_isa_pkg::MSIZE_S8
              || w[sgpu_isa_pkg::MSIZE_MSB:sgpu_isa_pkg::MSIZE_LSB] == sgpu_isa_pkg::MSIZE_S16,
              last_pass, w[sgpu_isa_pkg::OFF24_MSB:sgpu_isa_pkg::OFF24_LSB]};
  endfunction

  localparam int unsigned HW = 38;  // how_t's bits (yosys 0.23 takes no $bits of a type)

  // To t + 1, where the predicate row says which lanes execute; then on to t + 5. Only
  // last-pass beats go further than the gathering: the others leave their words.
  logic             v1_q;
  logic [63:0]      instr1_q;
  logic [BW-1:0]    beat1_q;
  logic [1:0]       pass1_q;
  logic             last1_q;
  logic [LANES-1:0] lanes1_q;
  logic [SW-1:0]    slot1_q;
  logic [TW-1:0]    tag1_q;
  sgpu_pipe #(.W(64 + BW + 3 + LANES + SW + TW), .DEPTH(1)) u_issue (
    .clk_i, .rst_ni,
    .valid_i(issue_valid_i),
    .data_i ({issue_instr_i, issue_beat_i, issue_pass_i, issue_last_i, issue_lanes_i,
              issue_slot_i, issue_tag_i}),
    .valid_o(v1_q),
    .data_o ({instr1_q, beat1_q, pass1_q, last1_q, lanes1_q, slot1_q, tag1_q})
  );
  logic [LANES-1:0] exec1;
  always_comb begin
    for (int unsigned k = 0; k < LANES; k++) begin
      exec1[k] = lanes1_q[k] && sgpu_decode_pkg::guard_holds(pred_row_i[8*k +: 8], instr1_q);
    end
  end

  logic             v5;
  how_t             how5;
  logic [BW-1:0]    beat5;
  logic [1:0]       pass5;
  logic             last5;
  logic [LANES-1:0] exec5;
  logic [SW-1:0]    slot5;
  logic [TW-1:0]    tag5;
  sgpu_pipe #(.W(HW + BW + 3 + LANES + SW + TW), .DEPTH(4)) u_to_operands (
    .clk_i, .rst_ni,
    .valid_i(v1_q),
    .data_i ({decode(instr1_q), beat1_q, pass1_q, last1_q, exec1, slot1_q, tag1_q}),
    .valid_o(v5),
    .data_o ({how5, beat5, pass5, last5, exec5, slot5, tag5})
  );

  // ------------------------------------------------------------------------------------
  // Cycle t + 5: the passes' words gathered. Pass 0 leaves the address's low words and
  // data word 0, passes 1 and 2 data words 1 and 2, each in a row of its beat; the last
  // pass brings the rest. (A beat's row is written again only by a later instruction's
  // pass, BEATS cycles or more after this one's last pass read it.)
  // ------------------------------------------------------------------------------------
  logic [32*LANES-1:0] lo_mem [BEATS];
  logic [32*LANES-1:0] data0_mem [BEATS], data1_mem [BEATS], data2_mem [BEATS];
  always_ff @(posedge clk_i) begin
    if (v5 && pass5 == 2'd0) lo_mem[beat5] <= a_i;
    if (v5 && pass5 == 2'd0) data0_mem[beat5] <= b_i;
    if (v5 && pass5 == 2'd1) data1_mem[beat5] <= b_i;
    if (v5 && pass5 == 2'd2) data2_mem[beat5] <= b_i;
  end
  logic [96*LANES-1:0] kept5;  // the beat's data words of the passes before, lane by lane
  for (genvar k = 0; k < LANES; k++) begin : g_kept
    assign kept5[96*k +: 96] = {data2_mem[beat5][32*k +: 32], data1_mem[beat5][32*k +: 32],
                                data0_mem[beat5][32*k +: 32]};
  end

  logic                 final5;
  logic [64*LANES-1:0]  addr5;
  logic [128*LANES-1:0] data5;
  assign final5 = v5 && pass5 == how5.last_pass;
  always_comb begin
    for (int unsigned k = 0; k < LANES; k++) begin
      addr5[64*k +: 64] = how5.wide ? {a_i[32*k +: 32], lo_mem[beat5][32*k +: 32]}
                                    : {32'd0, a_i[32*k +: 32]};
      for (int unsigned p = 0; p < 4; p++) begin
        // (Word 3 is never kept: it comes only in the last of four passes.)
        data5[128*k + 32*p +: 32] = (2'(p) == pass5) ? b_i[32*k +: 32]
                                  : (2'(p) < pass5) ? kept5[96*k + 32*(p % 3) +: 32] : 32'd0;
      end
    end
  end

  // A store's bytes wait for the beat's end in a ring of distributed RAM rather than in
  // each stage's flip-flops (eight beats: the five between here and the output fit), the
  // ring's index going along instead.
  logic [2:0]           ring_q;
  logic [128*LANES-1:0] data_ring [8];
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) ring_q <= '0;
    else if (final5) ring_q <= ring_q + 3'd1;
  end
  always_ff @(posedge clk_i) begin
    if (final5) data_ring[ring_q] <= data5;
  end

  // ------------------------------------------------------------------------------------
  // Cycle t + 6: the effective address: the register (pair) plus the offset, wrapping at
  // 2^32 without `e` (docs/isa.md, "Addresses") and at 2^64 with it.
  // ------------------------------------------------------------------------------------
  logic                 v6;
  how_t                 how6;
  logic [BW-1:0]        beat6;
  logic                 last6;
  logic [LANES-1:0]     exec6;
  logic [SW-1:0]        slot6;
  logic [TW-1:0]        tag6;
  logic [64*LANES-1:0]  addr6;
  logic [32*LANES-1:0]  frame6;
  logic [2:0]           ring6;
  sgpu_pipe #(.W(HW + BW + 1 + LANES + SW + TW + 96 * LANES + 3), .DEPTH(1)) u_gathered (
    .clk_i, .rst_ni,
    .valid_i(final5),
    .data_i ({how5, beat5, last5, exec5, slot5, tag5, addr5, c_i, ring_q}),
    .valid_o(v6),
    .data_o ({how6, beat6, last6, exec6, slot6, tag6, addr6, frame6, ring6})
  );
  logic [64*LANES-1:0] eff6;
  always_comb begin
    for (int unsigned k = 0; k < LANES; k++) begin
      eff6[64*k +: 64] = addr6[64*k +: 64] + 64'(signed'(how6.off));
      if (!how6.wide) eff6[64*k+32 +: 32] = '0;
    end
  end

  // ------------------------------------------------------------------------------------
  // Cycle t + 7: the space, the offset in it, and the local offset moved by the frame.
  // ------------------------------------------------------------------------------------
  logic                 v7;
  how_t                 how7;
  logic [BW-1:0]        beat7;
  logic                 last7;
  logic [LANES-1:0]     exec7;
  logic [SW-1:0]        slot7;
  logic [TW-1:0]        tag7;
  logic [64*LANES-1:0]  eff7;
  logic [32*LANES-1:0]  frame7;
  logic [2:0]           ring7;
  sgpu_pipe #(.W(HW + BW + 1 + LANES + SW + TW + 96 * LANES + 3), .DEPTH(1)) u_added (
    .clk_i, .rst_ni,
    .valid_i(v6),
    .data_i ({how6, beat6, last6, exec6, slot6, tag6, eff6, frame6, ring6}),
    .valid_o(v7),
    .data_o ({how7, beat7, last7, exec7, slot7, tag7, eff7, frame7, ring7})
  );

  // The window an address lies in: windows are WINDOW_SIZE-aligned, so its high bits.
  localparam int unsigned WSH = $clog2(sgpu_isa_pkg::WINDOW_SIZE);
  function automatic logic in_window(logic [63:0] a, longint unsigned window);
    in_window = (a >> WSH) == (64'(window) >> WSH);
  endfunction

  // A lane's space (PORT_*), whether its offset counts from the frame start, and the
  // offset (a window's: the address's low bits).
  function automatic logic [67:0] resolve(logic [63:0] eff, logic ldc, logic [2:0] space,
                                          logic labs);
    resolve = {GLOBAL, 1'b0, eff};
    if (ldc) begin
      resolve[67:65] = space;
    end else begin
      unique case (space)
        sgpu_isa_pkg::SPACE_GENERIC: begin
          if (in_window(eff, sgpu_isa_pkg::SHARED_WINDOW)) begin
            resolve = {SHARED, 1'b0, 64'(eff[WSH-1:0])};
          end else if (in_window(eff, sgpu_isa_pkg::LOCAL_WINDOW)) begin
            resolve = {LOCAL, 1'b0, 64'(eff[WSH-1:0])};
          end else if (in_window(eff, sgpu_isa_pkg::CONST_WINDOW)) begin
            resolve = {CONST, 1'b0, 64'(eff[WSH-1:0])};
          end
        end
        sgpu_isa_pkg::SPACE_SHARED: resolve[67:65] = SHARED;
        sgpu_isa_pkg::SPACE_LOCAL, sgpu_isa_pkg::SPACE_PARAM:
          resolve[67:64] = {LOCAL, !labs};
        default: ;  // global
      endcase
    end
  endfunction

  logic [68*LANES-1:0] where7;
  logic [3*LANES-1:0]  space7;
  logic [65*LANES-1:0] at7;           // the offset in the space; a local one moved
  logic [LANES-1:0]    misaligned7;
  for (genvar k = 0; k < LANES; k++) begin : g_resolve
    assign where7[68*k +: 68] = resolve(eff7[64*k +: 64], how7.ldc, how7.space, how7.labs);
    assign space7[3*k +: 3]   = where7[68*k + 65 +: 3];
    assign at7[65*k +: 65]    = {1'b0, where7[68*k +: 64]}
                              + (where7[68*k + 64] ? 65'(frame7[32*k +: 32]) : 65'd0);
    // Alignment is the address's, before its window is taken off (as the model checks).
    assign misaligned7[k] = (eff7[64*k +: 64] & ((64'd1 << how7.size) - 64'd1)) != '0;
  end

  // ------------------------------------------------------------------------------------
  // Cycle t + 8: an access past the end of its space's memory (global memory's is the
  // memory's to say); each lane's fault, in the model's order of checks (the bank before
  // any lane, then alignment, then the bound, then the store to constant memory: the
  // model's memory refuses a store to constant memory before it looks at the address).
  // ------------------------------------------------------------------------------------
  logic                 v8;
  /* verilator lint_off UNUSEDSIGNAL */
  how_t                 how8;   // its fault's fields and the access's size are left to use
  /* verilator lint_on UNUSEDSIGNAL */
  logic [BW-1:0]        beat8;
  logic                 last8;
  logic [LANES-1:0]     exec8;
  logic [SW-1:0]        slot8;
  logic [TW-1:0]        tag8;
  logic [3*LANES-1:0]   space8;
  logic [65*LANES-1:0]  at8;
  logic [LANES-1:0]     misaligned8;
  logic [2:0]           ring8;
  sgpu_pipe #(.W(HW + BW + 1 + LANES + SW + TW + 69 * LANES + 3), .DEPTH(1)) u_resolved (
    .clk_i, .rst_ni,
    .valid_i(v7),
    .data_i ({how7, beat7, last7, exec7, slot7, tag7, space7, at7, misaligned7, ring7}),
    .valid_o(v8),
    .data_o ({how8, beat8, last8, exec8, slot8, tag8, space8, at8, misaligned8, ring8})
  );
  // The last offset an access may start at in each bounded space: its size less the
  // access's bytes (below zero when the access alone is larger), made while the beat comes.
  function automatic logic [32:0] limit(logic [31:0] size, logic [2:0] log2);
    limit = {1'b0, size} - (33'd1 << log2);
  endfunction
  logic [32:0] local_limit_q, shared_limit_q, param_limit_q, const_limit_q;
  always_ff @(posedge clk_i) begin
    if (v7) begin
      local_limit_q  <= limit(local_size_i, how7.size);
      shared_limit_q <= limit(shared_size_i, how7.size);
      param_limit_q  <= limit(param_size_i, how7.size);
      const_limit_q  <= limit(const_size_i, how7.size);
    end
  end
  logic [33*LANES-1:0] limit8;  // each lane's space's
  logic [LANES-1:0]    bounded8, outside8, const_write8, fault8;
  logic [8*LANES-1:0]  cause8;
  always_comb begin
    for (int unsigned k = 0; k < LANES; k++) begin
      unique case (space8[3*k +: 3])
        LOCAL:   limit8[33*k +: 33] = local_limit_q;
        SHARED:  limit8[33*k +: 33] = shared_limit_q;
        PARAM:   limit8[33*k +: 33] = param_limit_q;
        default: limit8[33*k +: 33] = const_limit_q;
      endcase
      bounded8[k]     = space8[3*k +: 3] != GLOBAL;
      const_write8[k] = how8.write && space8[3*k +: 3] == CONST;
      // Past the limit: the offset's bits above 32 set, or its low word above the limit.
      outside8[k]     = bounded8[k] && !const_write8[k]
                        && (limit8[33*k + 32] || at8[65*k + 32 +: 33] != '0
                            || at8[65*k +: 32] > limit8[33*k +: 32]);
      fault8[k] = exec8[k] && (how8.no_bank || misaligned8[k] || outside8[k] || const_write8[k]);
      cause8[8*k +: 8] = how8.no_bank   ? 8'(sgpu_isa_pkg::TRAP_NO_CONST_BANK)
                       : misaligned8[k] ? 8'(sgpu_isa_pkg::TRAP_MISALIGNED)
                       : outside8[k]    ? 8'(sgpu_isa_pkg::TRAP_OUT_OF_BOUNDS)
                       : 8'(sgpu_isa_pkg::TRAP_CONSTANT_WRITE);
    end
  end

  // ------------------------------------------------------------------------------------
  // Cycle t + 9: the beat's first fault, unless an earlier beat of the instruction had one;
  // the lanes before it access memory. A last-pass beat 0 starts an instruction. (In the
  // cycle of the bounds, 58.9 MHz on an ECP5.)
  // ------------------------------------------------------------------------------------
  logic                 v9, write9, sgn9, last9;
  logic [2:0]           size9;
  logic [BW-1:0]        beat9;
  logic [LANES-1:0]     exec9, fault9;
  logic [SW-1:0]        slot9;
  logic [TW-1:0]        tag9;
  logic [3*LANES-1:0]   space9;
  logic [64*LANES-1:0]  at8_64, at9;
  logic [2:0]           ring9;
  logic [8*LANES-1:0]   cause9;
  for (genvar k = 0; k < LANES; k++) begin : g_at64
    assign at8_64[64*k +: 64] = at8[65*k +: 64];
  end
  sgpu_pipe #(.W(5 + BW + 1 + 2 * LANES + SW + TW + 3 * LANES + 64 * LANES + 3
                 + 8 * LANES), .DEPTH(1)) u_checked (
    .clk_i, .rst_ni,
    .valid_i(v8),
    .data_i ({how8.write, how8.sgn, how8.size, beat8, last8, exec8, fault8, slot8, tag8,
              space8, at8_64, ring8, cause8}),
    .valid_o(v9),
    .data_o ({write9, sgn9, size9, beat9, last9, exec9, fault9, slot9, tag9, space9, at9,
              ring9, cause9})
  );

  logic             faulted_q;  // an earlier beat of this instruction faulted
  logic             faulted;
  logic [LANES-1:0] first9, before9;
  assign faulted = faulted_q && beat9 != '0;
  assign first9  = fault9 & (~fault9 + LANES'(1));
  assign before9 = first9 - LANES'(1);  // all ones when no lane faults
  logic [4:0] lane9;
  logic [7:0] first_cause9;
  always_comb begin
    lane9        = '0;
    first_cause9 = '0;
    for (int unsigned k = 0; k < LANES; k++) begin
      if (first9[k]) lane9 = 5'(32'(beat9) * LANES + k);
      first_cause9 |= first9[k] ? cause9[8*k +: 8] : '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      faulted_q   <= 1'b0;
      acc_valid_o <= 1'b0;
      fault_o     <= 1'b0;
    end else begin
      acc_valid_o <= v9;
      fault_o     <= v9 && !faulted && fault9 != '0;
      if (v9) faulted_q <= faulted || fault9 != '0;
    end
  end
  always_ff @(posedge clk_i) begin
    if (v9) begin
      acc_slot_o    <= slot9;
      acc_beat_o    <= beat9;
      acc_last_o    <= last9;
      acc_tag_o     <= tag9;
      acc_write_o   <= write9;
      acc_size_o    <= size9;
      acc_signed_o  <= sgn9;
      acc_lanes_o   <= faulted ? '0 : exec9 & before9;
      acc_space_o   <= space9;
      acc_at_o      <= at9;
      acc_data_o    <= data_ring[ring9];
      fault_cause_o <= first_cause9;
      fault_lane_o  <= lane9;
    end
  end

`ifndef SYNTHESIS
  // A lane that accesses local memory does so within it (the bound check kept 65 bits); a
  // fault comes with a last-pass beat.
  logic [LANES-1:0] local_past;
  always_comb begin
    for (int unsigned k = 0; k < LANES; k++) begin
      local_past[k] = acc_lanes_o[k] && acc_space_o[3*k +: 3] == LOCAL
                      && acc_at_o[64*k +: 64] >= 64'(local_size_i);
    end
  end
  a_local_within: assert property (@(posedge clk_i) disable iff (!rst_ni)
      acc_valid_o |-> local_past == '0);
  a_fault_with_beat: assert property (@(posedge clk_i) disable iff (!rst_ni)
      fault_o |-> acc_valid_o);
`endif

endmodule
