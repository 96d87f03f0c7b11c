// Core v2's load/store unit, its shared-memory half (docs/adr/0008-core-v2-pipeline.md,
// "Memory"): the lanes of LD and ST beats that `sgpu_lsu_beat` has resolved into shared
// memory, as beats of words for `sgpu_shared_mem`, and loaded words back as write-back beats.
//
// A beat is queued (QD beats in distributed RAM; `reserve_i` books room for an
// instruction's beats as its first beat issues, `room_o` says whether another fits, as in
// sgpu_lsu_port), then goes to the shared memory as one request a word of its size: one for
// 8 to 32 bits (the byte enables choose the bytes, the store's value repeated over the
// word), two for 64, four for 128; every lane of the beat in each (a lane's word index is
// its offset's word with the request's number in its low bits: the beat stage let through
// only aligned lanes). The shared memory answers in order, P + 4 cycles after it takes a
// request of P passes; each load's answer becomes a write-back beat (word p of the
// destination in the beat's lanes, an 8- or 16-bit value taken from its bytes and
// extended), a store's answers nothing but the instruction's end. A beat with no lanes in
// shared memory costs nothing unless it ends its instruction: then it is one request with
// no lanes, whose answer is that end, in order behind the instruction's words.
//
// The shared memory cannot hold an answer back, so answers go into a queue of OD beats
// before the write-back, and a request goes only while fewer than OD requests are in the
// memory or answered and not yet written back.
//
//   cycle 0  a beat in: each lane's word, byte in the word and repeated bytes
//   cycle 1  queued; the oldest beat's next request into the request register
//   +1       the request in the shared memory (its record in the queue of those in flight)
//   answer   each lane's value, into the answers' queue; the write-back register next
module sgpu_lsu_shared #(
  parameter int unsigned LANES = 8,
  parameter int unsigned WARPS = 8,
  parameter int unsigned TW = 1,       // what the issue hands on with a beat
  parameter int unsigned QD = 8,       // beats queued
  parameter int unsigned OD = 8,       // requests in the memory and answers held
  parameter int unsigned BYTES = 49152,
  localparam int unsigned BEATS = 32 / LANES,
  localparam int unsigned BW    = (BEATS > 1) ? $clog2(BEATS) : 1,
  localparam int unsigned SW    = (WARPS > 1) ? $clog2(WARPS) : 1,
  localparam int unsigned QW    = $clog2(QD),
  localparam int unsigned OW    = $clog2(OD),
  localparam int unsigned WW    = $clog2(BYTES / 4)  // a word's index
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,

  // Room for an instruction's beats: booked as its first beat issues.
  input  logic                 reserve_i,
  output logic                 room_o,

  // A beat (as sgpu_lsu_beat's acc_*), its lanes those in shared memory.
  input  logic                 acc_valid_i,
  input  logic [SW-1:0]        acc_slot_i,
  input  logic [BW-1:0]        acc_beat_i,
  input  logic                 acc_last_i,
  input  logic [TW-1:0]        acc_tag_i,
  input  logic                 acc_write_i,
  input  logic [2:0]           acc_size_i,
  input  logic                 acc_signed_i,
  input  logic [LANES-1:0]     acc_lanes_i,
  input  logic [64*LANES-1:0]  acc_at_i,
  input  logic [128*LANES-1:0] acc_data_i,

  // The shared memory (sgpu_shared_mem's request and answer).
  output logic                 m_valid_o,
  input  logic                 m_ready_i,
  output logic                 m_write_o,
  output logic [LANES-1:0]     m_lanes_o,
  output logic [LANES*WW-1:0]  m_word_o,
  output logic [LANES*4-1:0]   m_bytes_o,
  output logic [LANES*32-1:0]  m_wdata_o,
  input  logic                 m_rsp_valid_i,
  input  logic [LANES*32-1:0]  m_rsp_rdata_i,

  // The write-back, a beat at a time, held until taken (as sgpu_lsu_port's).
  output logic                 wb_valid_o,
  input  logic                 wb_ready_i,
  output logic [SW-1:0]        wb_slot_o,
  output logic [BW-1:0]        wb_beat_o,
  output logic [1:0]           wb_word_o,
  output logic [TW-1:0]        wb_tag_o,
  output logic [LANES-1:0]     wb_lanes_o,
  output logic [32*LANES-1:0]  wb_data_o,
  output logic                 wb_last_o
);

  // ------------------------------------------------------------------------------------
  // The queue of beats: written at `wr_q`, its oldest at `rd_q`.
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
  logic [LANES*WW-1:0]  word_mem [QD];
  logic [2*LANES-1:0]   low_mem  [QD];  // each lane's byte in its word
  logic [128*LANES-1:0] rep_mem  [QD];
  logic [QW:0]          wr_q, rd_q;
  logic                 pop;  // the beat at rd_q done with

  logic [LANES*WW-1:0]  word0;
  logic [2*LANES-1:0]   low0;
  logic [128*LANES-1:0] rep0;
  for (genvar k = 0; k < LANES; k++) begin : g_in
    assign word0[WW*k +: WW]    = acc_at_i[64*k + 2 +: WW];
    assign low0[2*k +: 2]       = acc_at_i[64*k +: 2];
    assign rep0[128*k +: 128]   = sgpu_lsu_pkg::repeated(acc_data_i[128*k +: 128], acc_size_i);
  end
  always_ff @(posedge clk_i) begin
    if (acc_valid_i) begin
      meta_mem[wr_q[QW-1:0]] <= {acc_slot_i, acc_beat_i, acc_last_i, acc_tag_i, acc_signed_i,
                                 acc_write_i, acc_size_i, acc_lanes_i};
      word_mem[wr_q[QW-1:0]] <= word0;
      low_mem[wr_q[QW-1:0]]  <= low0;
      rep_mem[wr_q[QW-1:0]]  <= rep0;
    end
  end

  sgpu_lsu_room #(.QD(QD), .BEATS(BEATS)) u_room (
    .clk_i, .rst_ni, .reserve_i, .room_o,
    .put_i (acc_valid_i),
    .take_i(pop),
    .wr_o  (wr_q),
    .rd_o  (rd_q)
  );

  // ------------------------------------------------------------------------------------
  // The oldest beat's requests, word `pass_q` of them, into the request register.
  // ------------------------------------------------------------------------------------
  logic [MW-1:0]    head;
  logic [LANES-1:0] head_lanes;
  logic [2:0]       head_size;
  logic             head_end_beat, any, skip, go, credit, can_load;
  logic [1:0]       pass_q, head_passes;  // the beat's requests less one
  assign head          = meta_mem[rd_q[QW-1:0]];
  assign head_lanes    = head[LANES-1:0];
  assign head_size     = head[M_SIZE +: 3];
  assign head_end_beat = head[M_LAST];
  assign head_passes   = (head_lanes == '0 || head_size <= 3'd2) ? 2'd0
                       : (head_size == 3'd3) ? 2'd1 : 2'd3;
  assign any      = rd_q != wr_q;
  assign can_load = !m_valid_o || m_ready_i;
  // A beat with no lanes that does not end its instruction is passed over.
  assign skip     = any && head_lanes == '0 && !head_end_beat;
  assign go       = any && !skip && can_load && credit;
  assign pop      = skip || (go && pass_q == head_passes);

  logic [LANES*WW-1:0] word_rd;
  logic [2*LANES-1:0]  low_rd;
  logic [LANES*4-1:0]  bytes;
  logic [LANES*WW-1:0] words;
  logic [LANES*32-1:0] wdata;
  assign word_rd = word_mem[rd_q[QW-1:0]];
  assign low_rd  = low_mem[rd_q[QW-1:0]];
  for (genvar k = 0; k < LANES; k++) begin : g_req
    logic [WW-1:0] w;
    logic [1:0]    low;
    assign w   = word_rd[WW*k +: WW];
    assign low = low_rd[2*k +: 2];
    // Request p of a 64- or 128-bit lane is word p of its aligned piece: no adder.
    assign words[WW*k +: WW] = {w[WW-1:2], w[1:0] | pass_q};
    assign bytes[4*k +: 4]   = (head_size == 3'd0) ? 4'b0001 << low
                             : (head_size == 3'd1) ? (low[1] ? 4'b1100 : 4'b0011) : 4'b1111;
    assign wdata[32*k +: 32] = rep_mem[rd_q[QW-1:0]][128*k + 32*pass_q +: 32];
  end

  // The requests in the memory, in order: what their answers are for.
  // {slot, beat, word, tag, signed, write, size, lanes, each lane's byte, the instruction's end}
  localparam int unsigned FW = SW + BW + 2 + TW + 1 + 1 + 3 + LANES + 2 * LANES + 1;
  logic [FW-1:0] fl_mem [OD];
  logic [OW:0]   fw_q, fr_q;
  logic          req_end;
  assign req_end = head_end_beat && pass_q == head_passes;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      m_valid_o <= 1'b0;
      pass_q    <= '0;
    end else begin
      if (can_load) m_valid_o <= go;
      if (go) pass_q <= (pass_q == head_passes) ? 2'd0 : pass_q + 2'd1;
    end
  end
  always_ff @(posedge clk_i) begin
    if (go) begin
      m_write_o <= head[M_WRITE];
      m_lanes_o <= head_lanes;
      m_word_o  <= words;
      m_bytes_o <= bytes;
      m_wdata_o <= wdata;
      fl_mem[fw_q[OW-1:0]] <= {head[M_SLOT +: SW], head[M_BEAT +: BW], pass_q, head[M_TAG +: TW],
                               head[M_SGN], head[M_WRITE], head_size, head_lanes, low_rd,
                               req_end};
    end
  end

  // ------------------------------------------------------------------------------------
  // An answer: a load's values, or an instruction's end, into the answers' queue.
  // ------------------------------------------------------------------------------------
  logic [FW-1:0]       fl;
  logic [2*LANES-1:0]  fl_low;
  logic [LANES-1:0]    fl_lanes;
  logic [2:0]          fl_size;
  logic                fl_write, fl_sgn, fl_end, keep;
  assign fl       = fl_mem[fr_q[OW-1:0]];
  assign fl_end   = fl[0];
  assign fl_low   = fl[1 +: 2*LANES];
  assign fl_lanes = fl[1 + 2*LANES +: LANES];
  assign fl_size  = fl[1 + 3*LANES +: 3];
  assign fl_write = fl[4 + 3*LANES];
  assign fl_sgn   = fl[5 + 3*LANES];
  assign keep     = m_rsp_valid_i && (!fl_write || fl_end);

  logic [32*LANES-1:0] values;
  for (genvar k = 0; k < LANES; k++) begin : g_value
    logic [31:0] d;
    logic [1:0]  low;
    assign d   = m_rsp_rdata_i[32*k +: 32];
    assign low = fl_low[2*k +: 2];
    // The lane's bytes moved down to the word's low end, then extended.
    assign values[32*k +: 32] = sgpu_lsu_pkg::extended(
        (fl_size == 3'd0) ? 32'(d[8*low +: 8]) : (fl_size == 3'd1 && low[1]) ? 32'(d[31:16]) : d,
        fl_size, fl_sgn);
  end

  // The answers' queue: {slot, beat, word, tag, lanes, end} and the values.
  localparam int unsigned AW = SW + BW + 2 + TW + LANES + 1;
  logic [AW-1:0]       ans_mem  [OD];
  logic [32*LANES-1:0] vals_mem [OD];
  logic [OW:0]         aw_q, ar_q;
  always_ff @(posedge clk_i) begin
    if (keep) begin
      ans_mem[aw_q[OW-1:0]]  <= {fl[FW-1 -: SW + BW + 2 + TW], fl_write ? LANES'(0) : fl_lanes,
                                 fl_end};
      vals_mem[aw_q[OW-1:0]] <= values;
    end
  end

  logic          out;  // the oldest answer into the write-back register
  logic [AW-1:0] ans;
  assign ans = ans_mem[ar_q[OW-1:0]];
  assign out = ar_q != aw_q && (!wb_valid_o || wb_ready_i);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wb_valid_o <= 1'b0;
    end else begin
      if (wb_ready_i) wb_valid_o <= 1'b0;
      if (out) wb_valid_o <= 1'b1;
    end
  end
  always_ff @(posedge clk_i) begin
    if (out) begin
      {wb_slot_o, wb_beat_o, wb_word_o, wb_tag_o, wb_lanes_o, wb_last_o} <= ans;
      wb_data_o <= vals_mem[ar_q[OW-1:0]];
    end
  end

  // ------------------------------------------------------------------------------------
  // The pointers, and the requests held (in the memory, or answered and not written back).
  // ------------------------------------------------------------------------------------
  logic [OW:0] held_q;
  assign credit = held_q < (OW + 1)'(OD);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {fw_q, fr_q, aw_q, ar_q, held_q} <= '0;
    end else begin
      if (go) fw_q <= fw_q + 1'b1;
      if (m_rsp_valid_i) fr_q <= fr_q + 1'b1;
      if (keep) aw_q <= aw_q + 1'b1;
      if (out) ar_q <= ar_q + 1'b1;
      held_q <= held_q + (OW + 1)'(go) - (OW + 1)'(m_rsp_valid_i && !keep) - (OW + 1)'(out);
    end
  end

`ifndef SYNTHESIS
  a_answer_expected: assert property (@(posedge clk_i) disable iff (!rst_ni)
      m_rsp_valid_i |-> fr_q != fw_q);
  // Shared memory's bound is the beat stage's: a lane's offset lies within BYTES. (A lane's
  // flag rather than the offsets in the property: Verilator 5.006 emits C++ that does not
  // compile for a sampled 2,048-bit vector.)
  logic [LANES-1:0] beyond;
  for (genvar k = 0; k < LANES; k++) begin : g_bound
    assign beyond[k] = acc_lanes_i[k] && acc_at_i[64*k +: 64] >= 64'(BYTES);
  end
  a_within: assert property (@(posedge clk_i) disable iff (!rst_ni)
      acc_valid_i |-> beyond == '0);
`endif

endmodule
