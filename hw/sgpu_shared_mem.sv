// Core v2's shared memory (docs/adr/0008-core-v2-pipeline.md, "Memory"): BYTES of a CTA's
// shared memory on chip in LANES banks of 32-bit words (word w in bank w % LANES), a block
// RAM with byte writes a bank. A beat's accesses, one word or part of one a lane (the LSU
// splits wider accesses into words), all reads or all writes, are served in passes, one a
// cycle: in each pass every bank serves one row, the row of the lowest lane still waiting
// for that bank, and every lane waiting for that row of that bank is served by it (a read
// is broadcast; writes to one word merge, the highest lane's byte winning, as the golden
// model's lanes run in order). So a beat takes as many passes as the most rows any bank
// holds for it: one without a conflict, LANES when every lane wants another row of one
// bank. Each pass beyond a beat's first is a bank conflict, counted (`conflicts_o`).
//
// A beat is accepted while `req_ready_o` (also in the cycle of the last pass of the one
// before); its answer (`rsp_valid_o`, for one cycle; the words read for a read) comes four
// cycles after its last pass: P + 4 cycles after its acceptance for P passes.
//
// Four stages, so that no path runs through more than a few levels of logic at 100 MHz:
//   accept  the lanes' words compared pairwise once (same word, same bank) and each byte's
//           winning writer found, into registers;
//   pass    which lanes lead their banks and which are served, from those relations and the
//           lanes still waiting, registered as one-hot selections (a bank's row, the lane
//           whose byte it writes);
//   bank    the banks read or write: each selection an AND-OR over the lanes;
//   gather  two cycles on (the block RAM's output registered), each lane's word chosen
//           from its bank, one-hot, into the answer.
// A lane-by-bank choice is never a variable part-select: those build chains of wide
// multiplexers (a first version was 11,645 LUT4 at 44 MHz on ECP5).
module sgpu_shared_mem #(
  parameter int unsigned LANES = 8,
  parameter int unsigned BYTES = 49152,  // the ABI's SHARED_MAX
  parameter int unsigned TW = 1,         // a beat's tag, handed back with its answer
  localparam int unsigned WW = $clog2(BYTES / 4),                 // a word's index
  localparam int unsigned BW = (LANES > 1) ? $clog2(LANES) : 1,   // a bank's
  localparam int unsigned ROWS = BYTES / 4 / LANES,
  localparam int unsigned RW = (ROWS > 1) ? $clog2(ROWS) : 1      // a row's
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,

  input  logic                 req_valid_i,
  output logic                 req_ready_o,
  input  logic                 req_write_i,
  input  logic [LANES-1:0]     req_lanes_i,    // the lanes that access
  input  logic [LANES*WW-1:0]  req_word_i,     // lane l's word at [l*WW +: WW]
  input  logic [LANES*4-1:0]   req_bytes_i,    // a write's bytes, lane l's at [4*l +: 4]
  input  logic [LANES*32-1:0]  req_wdata_i,
  input  logic [TW-1:0]        req_tag_i,

  output logic                 rsp_valid_o,
  output logic [TW-1:0]        rsp_tag_o,
  output logic [LANES*32-1:0]  rsp_rdata_o,    // a read's words; lanes not read are zero
  output logic [31:0]          conflicts_o     // passes beyond each beat's first, since reset
);

  // LANES is a power of two: a word's bank is its low bits, its row the others. Pairs of
  // lanes are flat LANES x LANES vectors, [l*LANES + m] for lanes l and m.
  localparam int unsigned SH = $clog2(LANES);
  localparam int unsigned L2 = LANES * LANES;

  // ---- accept: the beat's lanes compared once ----
  logic [LANES*BW-1:0] in_bank;
  logic [LANES*RW-1:0] in_row;
  logic [L2-1:0]       in_oh;     // [l*LANES + k]: lane l's word is in bank k
  logic [L2-1:0]       in_eq;     // m < l and lanes l and m want one word
  logic [L2-1:0]       in_same;   // lanes l and m want one word (so one bank and row)
  logic [L2-1:0]       in_below;  // m < l and both want bank k: m leads before l
  logic [LANES*4-1:0]  in_win;    // lane l writes byte b and no higher lane writes it too
  for (genvar l = 0; l < LANES; l++) begin : g_in
    logic [WW-1:0] w;
    assign w = req_word_i[l*WW +: WW];
    assign in_bank[l*BW +: BW] = BW'(w & WW'(LANES - 1));
    assign in_row[l*RW +: RW]  = RW'(w >> SH);
    for (genvar m = 0; m < LANES; m++) begin : g_pair
      assign in_oh[l*LANES + m]    = in_bank[l*BW +: BW] == BW'(m);
      // One comparator a pair: the one of the lower lane for the pair.
      assign in_eq[l*LANES + m]    = m < l && w == req_word_i[m*WW +: WW];
      assign in_same[l*LANES + m]  = m == l || (m < l ? in_eq[l*LANES + m] : in_eq[m*LANES + l]);
      assign in_below[l*LANES + m] = m < l && in_bank[l*BW +: BW] == in_bank[m*BW +: BW];
    end
    for (genvar b = 0; b < 4; b++) begin : g_byte
      logic [LANES-1:0] above;  // the higher lanes writing byte b of lane l's word
      for (genvar m = 0; m < LANES; m++) begin : g_above
        assign above[m] = m > l && req_lanes_i[m] && in_same[l*LANES + m]
                          && req_bytes_i[4*m + b];
      end
      assign in_win[4*l + b] = req_bytes_i[4*l + b] && above == '0;
    end
  end

  // The beat in its passes.
  logic                busy_q, write_q, first_q;  // first_q: its first pass is now
  logic [LANES-1:0]    pending_q;
  logic [LANES*RW-1:0] row_q;
  logic [L2-1:0]       oh_q, same_q, below_q;
  logic [LANES*4-1:0]  win_q;
  logic [LANES*32-1:0] wdata_q;
  logic [TW-1:0]       tag_q;

  // ---- pass: the lanes that lead their banks, the lanes served ----
  logic [LANES-1:0] lead, served, pending_d;
  for (genvar l = 0; l < LANES; l++) begin : g_pass
    assign lead[l]   = pending_q[l] && (pending_q & below_q[l*LANES +: LANES]) == '0;
    assign served[l] = pending_q[l] && (lead & same_q[l*LANES +: LANES]) != '0;
  end
  assign pending_d = pending_q & ~served;

  // This pass is the beat's last when no two waiting lanes want different words of one
  // bank: found from the pairs directly, not from pending_d, so that the acceptance of the
  // next beat (the enable of every register above) does not wait for the pass's choices.
  logic [LANES-1:0] clash;  // lane l waits with a lower lane wanting another row of its bank
  logic             last;
  for (genvar l = 0; l < LANES; l++) begin : g_clash
    assign clash[l] = pending_q[l]
                      && (pending_q & below_q[l*LANES +: LANES] & ~same_q[l*LANES +: LANES]) != '0;
  end
  assign last        = clash == '0;
  assign req_ready_o = !busy_q || last;

  // The pass's selections for the bank stage: per bank, the lane whose row it serves (its
  // leader); per bank and byte, the lane whose byte it writes (the served winner in it).
  logic [L2-1:0]      lead_d;   // [k*LANES + m]: lane m leads bank k
  logic [L2*4-1:0]    wsel_d;   // [(4*k + b)*LANES + l]: lane l writes byte b of bank k
  logic [LANES*RW-1:0] row_d;   // each bank's row
  for (genvar k = 0; k < LANES; k++) begin : g_sel
    for (genvar m = 0; m < LANES; m++) begin : g_lane
      assign lead_d[k*LANES + m] = lead[m] && oh_q[m*LANES + k];
      for (genvar b = 0; b < 4; b++) begin : g_byte
        assign wsel_d[(4*k + b)*LANES + m] = write_q && served[m] && oh_q[m*LANES + k]
                                             && win_q[4*m + b];
      end
    end
    for (genvar j = 0; j < RW; j++) begin : g_row_bit
      logic [LANES-1:0] column;  // bit j of each lane's row
      for (genvar m = 0; m < LANES; m++) begin : g_lane_bit
        assign column[m] = row_q[m*RW + j];
      end
      assign row_d[k*RW + j] = (lead_d[k*LANES +: LANES] & column) != '0;
    end
  end

  // ---- bank: each bank reads its row or writes its bytes ----
  logic                b_read_q;
  logic [LANES*RW-1:0] b_row_q;
  logic [L2*4-1:0]     b_wsel_q;
  logic [LANES*32-1:0] b_wdata_q;  // the pass's write data (the next beat's from its first pass)
  logic [LANES*4-1:0]  bank_we;
  logic [LANES*32-1:0] bank_wdata;
  for (genvar k = 0; k < LANES; k++) begin : g_bank_write
    for (genvar b = 0; b < 4; b++) begin : g_byte
      logic [LANES-1:0] sel;
      assign sel = b_wsel_q[(4*k + b)*LANES +: LANES];
      assign bank_we[4*k + b] = sel != '0;
      for (genvar j = 0; j < 8; j++) begin : g_bit
        logic [LANES-1:0] column;  // bit j of byte b of each lane's data
        for (genvar l = 0; l < LANES; l++) begin : g_lane_bit
          assign column[l] = b_wdata_q[32*l + 8*b + j];
        end
        assign bank_wdata[32*k + 8*b + j] = (sel & column) != '0;
      end
    end
  end

  // Each bank's data, read in the bank stage, registered again (the block RAM's output
  // register) before it is gathered. A bank is four memories of a byte, each one block
  // RAM deep enough for every row (2,048 x 9 on ECP5): a bank of 32-bit words with byte
  // enables would span several blocks, its read data chosen among them by LUTs. A bank
  // reads only in a read beat, so it never reads the row it writes (no_rw_check tells
  // yosys; the assertion below checks it).
  logic [LANES*32-1:0] bank_rdata;
  for (genvar k = 0; k < LANES; k++) begin : g_bank
    for (genvar b = 0; b < 4; b++) begin : g_byte
      (* no_rw_check *) logic [7:0] mem_q [ROWS];
      logic [7:0] rd_q;
      always_ff @(posedge clk_i) begin
        if (bank_we[4*k + b]) mem_q[b_row_q[k*RW +: RW]] <= bank_wdata[32*k + 8*b +: 8];
        if (b_read_q) rd_q <= mem_q[b_row_q[k*RW +: RW]];
        bank_rdata[32*k + 8*b +: 8] <= rd_q;
      end
    end
  end

  // ---- gather: three cycles after its pass, each lane it served takes its bank's word ----
  logic [2:0]       g_valid_q, g_last_q;      // [0] bank, [1] read, [2] gather stage
  logic [3*TW-1:0]  g_tag_q;
  logic [3*L2-1:0]  g_oh_q;  // per stage i at [i*L2 +: L2], [l*LANES + k]: lane l takes bank k's word
  logic [LANES*32-1:0] gathered_q, gathered;  // the words of the passes before
  logic [L2-1:0]    got_oh;  // this pass's: the lanes a read serves, each at its bank
  for (genvar l = 0; l < LANES; l++) begin : g_got
    assign got_oh[l*LANES +: LANES] = {LANES{!write_q && served[l]}} & oh_q[l*LANES +: LANES];
  end
  for (genvar l = 0; l < LANES; l++) begin : g_gather
    for (genvar i = 0; i < 32; i++) begin : g_bit
      logic [LANES-1:0] column;  // bit i of each bank's word
      for (genvar k = 0; k < LANES; k++) begin : g_bank_bit
        assign column[k] = bank_rdata[32*k + i];
      end
      assign gathered[32*l + i] = gathered_q[32*l + i]
                                  || (g_oh_q[2*L2 + l*LANES +: LANES] & column) != '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q      <= 1'b0;
      g_valid_q   <= '0;
      rsp_valid_o <= 1'b0;
      conflicts_o <= '0;
    end else begin
      if (req_ready_o) busy_q <= req_valid_i;
      g_valid_q   <= {g_valid_q[1:0], busy_q};
      rsp_valid_o <= g_valid_q[2] && g_last_q[2];
      if (busy_q && !first_q) conflicts_o <= conflicts_o + 32'd1;
    end
  end

  always_ff @(posedge clk_i) begin
    if (req_ready_o) begin
      write_q   <= req_write_i;
      pending_q <= req_valid_i ? req_lanes_i : '0;
      row_q     <= in_row;
      oh_q      <= in_oh;
      same_q    <= in_same;
      below_q   <= in_below;
      win_q     <= in_win;
      wdata_q   <= req_wdata_i;
      tag_q     <= req_tag_i;
      first_q   <= 1'b1;
    end else begin
      pending_q <= pending_d;
      first_q   <= 1'b0;
    end
    b_read_q <= busy_q && !write_q;
    b_row_q  <= row_d;
    b_wsel_q <= wsel_d;
    b_wdata_q <= wdata_q;
    g_last_q <= {g_last_q[1:0], last};
    g_tag_q  <= {g_tag_q[0 +: 2*TW], tag_q};
    g_oh_q   <= {g_oh_q[0 +: 2*L2], got_oh};
    if (g_valid_q[2]) gathered_q <= g_last_q[2] ? '0 : gathered;
    if (g_valid_q[2] && g_last_q[2]) begin
      rsp_rdata_o <= gathered;
      rsp_tag_o   <= g_tag_q[2*TW +: TW];
    end
  end

`ifndef SYNTHESIS
  initial assert (LANES == 1 << SH && LANES <= 32)
    else $fatal(1, "LANES must be a power of two, at most 32");
  // A beat makes progress every pass; a beat with no lanes has nothing to wait for.
  a_progress: assert property (@(posedge clk_i) disable iff (!rst_ni)
      busy_q && pending_q != '0 |-> served != '0);
  // The last pass is the one that serves every waiting lane.
  a_last: assert property (@(posedge clk_i) disable iff (!rst_ni)
      busy_q |-> last == (pending_d == '0));
  // A bank serves one row a pass, and writes each byte from one lane.
  for (genvar k = 0; k < LANES; k++) begin : g_assert_bank
    a_one_leader: assert property (@(posedge clk_i) disable iff (!rst_ni)
        $onehot0(lead_d[k*LANES +: LANES]));
    for (genvar b = 0; b < 4; b++) begin : g_byte
      a_one_writer: assert property (@(posedge clk_i) disable iff (!rst_ni)
          $onehot0(wsel_d[(4*k + b)*LANES +: LANES]));
    end
  end
  // A bank never reads the row it writes in the same cycle (no_rw_check above).
  a_read_or_write: assert property (@(posedge clk_i) disable iff (!rst_ni)
      b_read_q |-> bank_we == '0);
`endif

endmodule
