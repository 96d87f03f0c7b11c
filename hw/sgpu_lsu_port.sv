// Core v2's load/store unit, its memory-port half (docs/adr/0008-core-v2-pipeline.md,
// "Memory"): the beats of LD, ST and LDC that `sgpu_lsu_beat` has resolved, their lanes in
// global, local, parameter and constant memory (shared memory's lanes are the shared
// memory's), as requests for aligned 16-byte blocks on one memory port, and loaded words
// back as write-back beats.
//
// The port has one flat address space (docs/hw.md, "Core v2's memory map"): a global
// address is itself; the parameters and the module's constants lie at `param_base_i` and
// `const_base_i` (multiples of 2^32); local memory at `local_base_i` (a multiple of
// 2^(32 + TB)), interleaved by 16-byte pieces over the core's 32 x WARPS thread slots
// (offset o of thread t of the core at local_base + (o / 16) * 16 * 32 * WARPS + t * 16 +
// o % 16), so that an access of up to 16 aligned bytes stays in one block, the address
// needs neither multiplier nor adder, and the lanes of a beat reading one local variable
// read neighbouring blocks.
//
// A beat is queued (QD beats, distributed RAM; `reserve_i` books room for an instruction's
// beats as it issues, `room_o` says whether another fits), coalesced (`sgpu_coalesce`: a
// request a block, every lane in the block joining it) and sent; a store's bytes are
// merged into its request, the highest lane winning a byte two lanes write, as the model's
// lanes run in order. Requests go out in order, any number in flight up to OD, and their
// answers come back in order (a store's too: its write response), each lane's bytes taken
// from its block as they come. A beat whose answers are all in goes to the write-back:
// a load's words one a cycle (word p of the lanes' data, an 8- or 16-bit value extended
// by its sign or with zeros), a store's or a lane-less beat's end as one beat with no lanes;
// the instruction's last beat marked. An answer with an error (the memory's bound) marks
// its beat: the write-back says so, with the request's lowest lane, for the trap.
//
//   cycle 0   a beat in: each lane's port address (a base above its offset), a store's
//             bytes repeated across the piece of 16 they may land in, the block of the
//             lowest lane (the coalescer's first leader)
//   cycle 1   queued; the coalescer takes a queued beat with lanes when it is free
//   +2 a request   coalesced, into a register with its entry's record and each byte's
//                  winning lane
//   +3             merged with the store's bytes into the port's register
//   an answer      registered, then its lanes' bytes into the entry; a beat whose last
//                  answer is in goes to the write-back the cycle after
module sgpu_lsu_port #(
  parameter int unsigned LANES = 8,
  parameter int unsigned WARPS = 8,
  parameter int unsigned TW = 1,   // what the issue hands on with a beat
  parameter int unsigned QD = 8,   // beats queued
  parameter int unsigned OD = 8,   // requests in flight
  localparam int unsigned BEATS = 32 / LANES,
  localparam int unsigned BW    = (BEATS > 1) ? $clog2(BEATS) : 1,
  localparam int unsigned SW    = (WARPS > 1) ? $clog2(WARPS) : 1,
  localparam int unsigned TB    = $clog2(32 * WARPS),  // a thread slot's bits
  localparam int unsigned QW    = $clog2(QD),
  localparam int unsigned OW    = $clog2(OD)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic [63:0]          local_base_i,
  input  logic [63:0]          param_base_i,
  input  logic [63:0]          const_base_i,

  // Room for an instruction's beats: booked as its first beat issues.
  input  logic                 reserve_i,
  output logic                 room_o,

  // A beat (as sgpu_lsu_beat's acc_*), its lanes those for the port.
  input  logic                 acc_valid_i,
  input  logic [SW-1:0]        acc_slot_i,
  input  logic [BW-1:0]        acc_beat_i,
  input  logic                 acc_last_i,
  input  logic [TW-1:0]        acc_tag_i,
  input  logic                 acc_write_i,
  input  logic [2:0]           acc_size_i,
  input  logic                 acc_signed_i,  // an 8- or 16-bit load extends its sign
  input  logic [LANES-1:0]     acc_lanes_i,
  input  logic [3*LANES-1:0]   acc_space_i,
  input  logic [64*LANES-1:0]  acc_at_i,
  input  logic [128*LANES-1:0] acc_data_i,

  // The memory port: 16-byte blocks, answered in order.
  output logic                 mem_req_valid_o,
  input  logic                 mem_req_ready_i,
  output logic                 mem_req_write_o,
  output logic [63:0]          mem_req_addr_o,
  output logic [15:0]          mem_req_be_o,
  output logic [127:0]         mem_req_wdata_o,
  input  logic                 mem_rsp_valid_i,
  input  logic                 mem_rsp_err_i,
  input  logic [127:0]         mem_rsp_data_i,

  // The write-back, a beat at a time, held until taken: word `wb_word_o` of the
  // instruction's destination in `wb_lanes_o` (none for a store).
  output logic                 wb_valid_o,
  input  logic                 wb_ready_i,
  output logic [SW-1:0]        wb_slot_o,
  output logic [BW-1:0]        wb_beat_o,
  output logic [1:0]           wb_word_o,
  output logic [TW-1:0]        wb_tag_o,
  output logic [LANES-1:0]     wb_lanes_o,
  output logic [32*LANES-1:0]  wb_data_o,
  output logic                 wb_last_o,     // the instruction's end
  output logic                 wb_err_o,      // an answer of the beat's had an error
  output logic [4:0]           wb_err_lane_o  // its lowest lane, in the warp
);

  localparam logic [2:0] LOCAL = 3'(sgpu_isa_pkg::PORT_LOCAL);
  localparam logic [2:0] CONST = 3'(sgpu_isa_pkg::PORT_CONSTANT);
  localparam logic [2:0] PARAM = 3'(sgpu_isa_pkg::PORT_PARAM);

  // ------------------------------------------------------------------------------------
  // Cycle 0: port addresses, and a store's bytes repeated over their piece's positions
  // (byte j of the block comes from byte j mod 2^size of the lane's data).
  // ------------------------------------------------------------------------------------
  // The bases are aligned so that an offset goes under them with no adder: parameters
  // and constants (offsets below 4 GiB) at multiples of 2^32, local memory (an offset, the
  // thread's bits and the piece's bytes, below 2^(32 + TB)) at a multiple of 2^(32 + TB).
  function automatic logic [63:0] port_addr(logic [2:0] space, logic [63:0] at,
                                            logic [TB-1:0] thread,
                                            logic [31-TB:0] local_hi, logic [31:0] param_hi,
                                            logic [31:0] const_hi);
    unique case (space)
      LOCAL:   port_addr = {local_hi, at[31:4], thread, at[3:0]};
      PARAM:   port_addr = {param_hi, at[31:0]};
      CONST:   port_addr = {const_hi, at[31:0]};
      default: port_addr = at;
    endcase
  endfunction

  logic [64*LANES-1:0]  addr0;
  logic [128*LANES-1:0] rep0;
  for (genvar k = 0; k < LANES; k++) begin : g_addr
    logic [TB-1:0] thread;
    assign thread = TB'({acc_slot_i, 5'(32'(acc_beat_i) * LANES + k)});
    assign addr0[64*k +: 64] = port_addr(acc_space_i[3*k +: 3], acc_at_i[64*k +: 64], thread,
                                         local_base_i[63:32+TB], param_base_i[63:32],
                                         const_base_i[63:32]);
    assign rep0[128*k +: 128] = sgpu_lsu_pkg::repeated(acc_data_i[128*k +: 128], acc_size_i);
  end

  // ------------------------------------------------------------------------------------
  // The queue: a beat an entry from `wr_q`; the coalescer's next at `co_q`; the oldest not
  // yet written back at `rd_q`. An entry is done when its last request is answered (at
  // once when it has no lanes).
  // ------------------------------------------------------------------------------------
  // An entry's record: {slot, beat, last, tag, signed, write, size, lanes}.
  localparam int unsigned M_SIZE  = LANES;
  localparam int unsigned M_WRITE = LANES + 3;
  localparam int unsigned M_SGN   = LANES + 4;
  localparam int unsigned M_TAG   = LANES + 5;
  localparam int unsigned M_LAST  = M_TAG + TW;
  localparam int unsigned M_BEAT  = M_LAST + 1;
  localparam int unsigned M_SLOT  = M_BEAT + BW;
  localparam int unsigned MW      = M_SLOT + SW;
  logic [MW-1:0]        meta_mem [QD];
  logic [64*LANES-1:0]  addr_mem [QD];
  logic [128*LANES-1:0] rep_mem  [QD];
  logic [4*LANES-1:0]   off_mem  [QD];  // each lane's byte in its block
  logic [59:0]          lead_mem [QD];  // the block of its lowest lane
  logic [QW:0]          wr_q, co_q, rd_q;   // one bit more than an index: full or empty
  logic [QD-1:0]        done_q, err_q;
  logic [4:0]           err_lane_q [QD];
  logic                 put;
  assign put = acc_valid_i;
  logic [4*LANES-1:0] off0;
  for (genvar k = 0; k < LANES; k++) begin : g_off
    assign off0[4*k +: 4] = addr0[64*k +: 4];
  end
  // The block of the beat's lowest lane, the coalescer's first leader, found here from
  // flip-flops rather than behind the queue's distributed RAM.
  logic [LANES-1:0] first0;
  logic [59:0]      lead0;
  assign first0 = acc_lanes_i & (~acc_lanes_i + LANES'(1));
  always_comb begin
    lead0 = '0;
    for (int unsigned k = 0; k < LANES; k++) lead0 |= first0[k] ? addr0[64*k+4 +: 60] : '0;
  end
  always_ff @(posedge clk_i) begin
    if (put) begin
      meta_mem[wr_q[QW-1:0]] <= {acc_slot_i, acc_beat_i, acc_last_i, acc_tag_i, acc_signed_i,
                                 acc_write_i, acc_size_i, acc_lanes_i};
      addr_mem[wr_q[QW-1:0]] <= addr0;
      rep_mem[wr_q[QW-1:0]]  <= rep0;
      off_mem[wr_q[QW-1:0]]  <= off0;
      lead_mem[wr_q[QW-1:0]] <= lead0;
    end
  end

  logic wb_take;  // the entry at rd_q written back
  sgpu_lsu_room #(.QD(QD), .BEATS(BEATS)) u_room (
    .clk_i, .rst_ni, .reserve_i, .room_o,
    .put_i (put),
    .take_i(wb_take),
    .wr_o  (wr_q),
    .rd_o  (rd_q)
  );

  // The coalescer's beat: the entry at co_q, or past it when it has no lanes.
  logic [LANES-1:0] co_lanes;
  logic [2:0]       co_size;
  logic             co_any, co_valid, co_ready;
  assign co_lanes = meta_mem[co_q[QW-1:0]][LANES-1:0];
  assign co_size  = meta_mem[co_q[QW-1:0]][M_SIZE +: 3];
  assign co_any   = co_q != wr_q;
  // An entry the coalescer has not taken is done exactly when it has no lanes: the flag
  // says so from flip-flops, off its handshake's path (the lanes are a RAM read away).
  assign co_valid = co_any && !done_q[co_q[QW-1:0]];

  // The entries of the beats in the coalescer, in order (two at most: it takes the next
  // beat as the last request of one goes).
  logic [QW-1:0]    in_co_q [2];
  logic [1:0]       in_co_n_q;
  logic             req_valid, req_ready, req_last;
  logic [59:0]      req_block;
  logic [LANES-1:0] req_lanes;
  logic [15:0]      req_bytes;
  sgpu_coalesce #(.LANES(LANES)) u_coalesce (
    .clk_i, .rst_ni,
    .in_valid_i (co_valid),
    .in_ready_o (co_ready),
    .in_addr_i  (addr_mem[co_q[QW-1:0]]),
    .in_lanes_i (co_lanes),
    .in_size_i  (co_size),
    .in_lead_i  (lead_mem[co_q[QW-1:0]]),
    .req_valid_o(req_valid),
    .req_ready_i(req_ready),
    .req_block_o(req_block),
    .req_lanes_o(req_lanes),
    .req_bytes_o(req_bytes),
    .req_last_o (req_last)
  );

  // ------------------------------------------------------------------------------------
  // A request from the coalescer into a register of its own with its entry, size and
  // store flag (`a_*`; its entry, lanes and whether it is its beat's last into the queue of
  // requests in flight), then merged with its store's bytes into the port's register. (The
  // merge in the cycle of the coalescer's request, its record read from distributed RAM
  // first: 80.6 MHz on an ECP5.)
  // ------------------------------------------------------------------------------------
  logic [QW-1:0]    req_entry;
  logic [MW-1:0]    req_meta;
  assign req_entry = in_co_q[0];
  assign req_meta  = meta_mem[req_entry];

  logic             a_valid_q, a_write_q;
  logic [QW-1:0]    a_entry_q;
  logic [59:0]      a_block_q;
  logic [15:0]      a_bytes_q;
  logic             move;  // the request in A goes to the port's register
  assign move = a_valid_q && (!mem_req_valid_o || mem_req_ready_i);

  // Byte j: the highest lane of the request whose piece holds it, as a one-hot choice (a
  // lane's piece: its offset with the low `size` bits cleared) made as the request comes
  // into A, then an AND-OR as it leaves. (Both as it leaves: 81.6 MHz.)
  logic [16*LANES-1:0] covers, wins, wins_q;  // [16*k + j]: lane k's piece holds byte j;
                                              // it wins it
  logic [127:0]        merged;
  logic [2:0]          req_size;
  assign req_size = req_meta[M_SIZE +: 3];
  for (genvar k = 0; k < LANES; k++) begin : g_cover
    for (genvar j = 0; j < 16; j++) begin : g_byte
      assign covers[16*k + j] = req_lanes[k]
                                && ((off_mem[req_entry][4*k +: 4] ^ 4'(j)) >> req_size) == '0;
      if (k == LANES - 1) begin : g_top
        assign wins[16*k + j] = covers[16*k + j];
      end else begin : g_below
        logic [LANES-2-k:0] above;
        for (genvar m = k + 1; m < LANES; m++) begin : g_above
          assign above[m-k-1] = covers[16*m + j];
        end
        assign wins[16*k + j] = covers[16*k + j] && above == '0;
      end
    end
  end
  always_comb begin
    merged = '0;
    for (int unsigned j = 0; j < 16; j++) begin
      for (int unsigned k = 0; k < LANES; k++) begin
        merged[8*j +: 8] |= wins_q[16*k + j] ? rep_mem[a_entry_q][128*k + 8*j +: 8] : '0;
      end
    end
  end

  logic [OW:0]      ow_q, or_q;  // the requests in flight: written (taken into A), answered
  logic [QW-1:0]    fl_entry_mem [OD];
  logic [LANES-1:0] fl_lanes_mem [OD];
  logic             fl_last_mem  [OD];
  logic [4*LANES-1:0] fl_off_mem [OD];  // its lanes' offsets, for its answer's bytes
  logic             send;        // the coalescer's request into A
  logic in_flight_full_q;  // OD requests in flight and none answered this cycle
  assign req_ready = (!a_valid_q || move) && !in_flight_full_q;
  assign send      = req_valid && req_ready;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_valid_q       <= 1'b0;
      mem_req_valid_o <= 1'b0;
    end else begin
      if (!a_valid_q || move) a_valid_q <= send;
      if (!mem_req_valid_o || mem_req_ready_i) mem_req_valid_o <= a_valid_q;
    end
  end
  always_ff @(posedge clk_i) begin
    if (send) begin
      a_entry_q <= req_entry;
      a_block_q <= req_block;
      a_bytes_q <= req_bytes;
      a_write_q <= req_meta[M_WRITE];
      wins_q    <= wins;
      fl_entry_mem[ow_q[OW-1:0]] <= req_entry;
      fl_lanes_mem[ow_q[OW-1:0]] <= req_lanes;
      fl_last_mem[ow_q[OW-1:0]]  <= req_last;
      fl_off_mem[ow_q[OW-1:0]]   <= off_mem[req_entry];
    end
    if (move) begin
      mem_req_write_o <= a_write_q;
      mem_req_addr_o  <= {a_block_q, 4'd0};
      mem_req_be_o    <= a_bytes_q;
      mem_req_wdata_o <= a_write_q ? merged : '0;
    end
  end

  // ------------------------------------------------------------------------------------
  // An answer: into a register with its request's entry, lanes, their offsets and whether
  // it is its beat's last; a cycle later each of its lanes' bytes from the block (byte i of
  // a lane's data from byte offset + i, its offset a multiple of its size) into the entry's
  // loaded data. (Both in one cycle, two reads of distributed RAM before the choice: 83.1
  // MHz; the offsets read from the entry's record after the answer's register: 87.8 MHz.)
  // ------------------------------------------------------------------------------------
  logic             ans_valid_q, ans_err_q, ans_last_q;
  logic [QW-1:0]    ans_entry_q;
  logic [LANES-1:0] ans_lanes_q;
  logic [127:0]     ans_data_q;
  logic [4*LANES-1:0] ans_off_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) ans_valid_q <= 1'b0;
    else         ans_valid_q <= mem_rsp_valid_i;
  end
  always_ff @(posedge clk_i) begin
    if (mem_rsp_valid_i) begin
      ans_err_q   <= mem_rsp_err_i;
      ans_data_q  <= mem_rsp_data_i;
      ans_entry_q <= fl_entry_mem[or_q[OW-1:0]];
      ans_lanes_q <= fl_lanes_mem[or_q[OW-1:0]];
      ans_last_q  <= fl_last_mem[or_q[OW-1:0]];
      ans_off_q   <= fl_off_mem[or_q[OW-1:0]];
    end
  end

  // Byte i of the lane's data lies at offset + i: with an offset a multiple of the size
  // and i below the size, only the offset's bits from bit sh(i) = clog2(i + 1) on count (a
  // 16:1 choice for byte 0, 8:1 for byte 1, 4:1 for bytes 2 and 3, 2:1 for bytes 4 to 7,
  // none from byte 8 on), each candidate a constant position.
  function automatic int unsigned sh(int unsigned i);
    sh = (i == 0) ? 0 : (i == 1) ? 1 : (i < 4) ? 2 : (i < 8) ? 3 : 4;
  endfunction
  function automatic logic [127:0] picked(logic [127:0] block, logic [3:0] off);
    picked = '0;
    for (int unsigned i = 0; i < 16; i++) begin
      for (int unsigned c = 0; c < (16 >> sh(i)); c++) begin
        if (32'(off) >> sh(i) == c) picked[8*i +: 8] = block[8*((c << sh(i)) + i) +: 8];
      end
    end
  endfunction

  logic [128*LANES-1:0] got, wb_loaded;
  for (genvar k = 0; k < LANES; k++) begin : g_loaded
    // A lane's own memory, so that each takes its bytes from the answer that has them.
    logic [127:0] lane_mem [QD];
    assign got[128*k +: 128] = picked(ans_data_q, ans_off_q[4*k +: 4]);
    always_ff @(posedge clk_i) begin
      if (ans_valid_q && ans_lanes_q[k]) lane_mem[ans_entry_q] <= got[128*k +: 128];
    end
    assign wb_loaded[128*k +: 128] = lane_mem[rd_q[QW-1:0]];
  end

  // ------------------------------------------------------------------------------------
  // The write-back of the entry at rd_q once done: a load's words, or one beat.
  // ------------------------------------------------------------------------------------
  logic [MW-1:0]    wb_meta;
  logic [LANES-1:0] wb_entry_lanes;
  logic [2:0]       wb_size;
  logic             wb_store;
  logic [1:0]       wb_words, word_q;
  logic             wb_go;
  assign wb_meta        = meta_mem[rd_q[QW-1:0]];
  assign wb_entry_lanes = wb_meta[LANES-1:0];
  assign wb_size        = wb_meta[M_SIZE +: 3];
  assign wb_store       = wb_meta[M_WRITE];
  assign wb_words       = (wb_store || wb_entry_lanes == '0 || wb_size <= 3'd2) ? 2'd0
                        : (wb_size == 3'd3) ? 2'd1 : 2'd3;
  assign wb_go          = rd_q != wr_q && done_q[rd_q[QW-1:0]] && (!wb_valid_o || wb_ready_i);
  assign wb_take        = wb_go && word_q == wb_words;  // the entry's last word goes

  logic [32*LANES-1:0] wb_value;  // the lanes' words going out (named so that no
                                  // "word" precedes a numeric slice: hw_literals.rs)
  for (genvar k = 0; k < LANES; k++) begin : g_word
    // Word p of the lane's loaded bytes; an 8- or 16-bit value extended.
    assign wb_value[32*k +: 32] = sgpu_lsu_pkg::extended(wb_loaded[128*k + 32*word_q +: 32],
                                                         wb_size, wb_meta[M_SGN]);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wb_valid_o <= 1'b0;
      word_q     <= '0;
    end else begin
      if (wb_ready_i) wb_valid_o <= 1'b0;
      if (wb_go) begin
        wb_valid_o <= 1'b1;
        word_q     <= wb_take ? 2'd0 : word_q + 2'd1;
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (wb_go) begin
      wb_slot_o     <= wb_meta[M_SLOT +: SW];
      wb_beat_o     <= wb_meta[M_BEAT +: BW];
      wb_tag_o      <= wb_meta[M_TAG +: TW];
      wb_word_o     <= word_q;
      wb_lanes_o    <= wb_store ? '0 : wb_entry_lanes;
      wb_data_o     <= wb_value;
      wb_last_o     <= wb_take && wb_meta[M_LAST];
      wb_err_o      <= wb_take && err_q[rd_q[QW-1:0]];
      wb_err_lane_o <= err_lane_q[rd_q[QW-1:0]];
    end
  end

  // ------------------------------------------------------------------------------------
  // The pointers.
  // ------------------------------------------------------------------------------------
  logic [4:0] ans_first_lane;  // the answer's lowest lane, in the warp
  always_comb begin
    ans_first_lane = '0;
    for (int k = LANES - 1; k >= 0; k--) begin
      if (ans_lanes_q[k]) ans_first_lane = 5'(k);
    end
  end
  logic [BW-1:0] ans_beat;
  assign ans_beat = meta_mem[ans_entry_q][M_BEAT +: BW];

  // The beats in the coalescer: one taken (`co_push`), one's last request sent (`co_pop`).
  logic co_push, co_pop;
  assign co_push = co_valid && co_ready;
  assign co_pop  = send && req_last;
  always_ff @(posedge clk_i) begin
    if (co_pop) in_co_q[0] <= in_co_q[1];
    if (co_push) in_co_q[(in_co_n_q == 2'd2 || (in_co_n_q == 2'd1 && !co_pop)) ? 1 : 0]
                   <= co_q[QW-1:0];
    if (ans_valid_q && ans_err_q && !err_q[ans_entry_q]) begin
      err_lane_q[ans_entry_q] <= 5'(32'(ans_beat) * LANES) + ans_first_lane;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      co_q                         <= '0;
      {ow_q, or_q}                 <= '0;
      in_flight_full_q             <= 1'b0;
      {done_q, err_q}              <= '0;
      in_co_n_q                    <= '0;
    end else begin
      if (put) begin
        done_q[wr_q[QW-1:0]] <= acc_lanes_i == '0;
        err_q[wr_q[QW-1:0]]  <= 1'b0;
      end
      // The coalescer takes a beat with lanes; one with none is passed.
      if (co_any && (done_q[co_q[QW-1:0]] || co_ready)) co_q <= co_q + 1'b1;
      in_co_n_q <= in_co_n_q + 2'(co_push) - 2'(co_pop);
      if (send) ow_q <= ow_q + 1'b1;
      in_flight_full_q <= (OW + 1)'(ow_q - or_q) + (OW + 1)'(send) - (OW + 1)'(mem_rsp_valid_i)
                          == (OW + 1)'(OD);
      if (mem_rsp_valid_i) or_q <= or_q + 1'b1;
      if (ans_valid_q) begin
        if (ans_last_q) done_q[ans_entry_q] <= 1'b1;
        if (ans_err_q) err_q[ans_entry_q] <= 1'b1;
      end
    end
  end

`ifndef SYNTHESIS
  a_answer_expected: assert property (@(posedge clk_i) disable iff (!rst_ni)
      mem_rsp_valid_i |-> or_q != ow_q);
  a_bases: assert property (@(posedge clk_i) disable iff (!rst_ni)
      local_base_i[31+TB:0] == '0 && param_base_i[31:0] == '0 && const_base_i[31:0] == '0);
`endif

endmodule
