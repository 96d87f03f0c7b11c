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
// before); its answer (`rsp_valid_o`, for one cycle; the words read for a read) comes two
// cycles after its last pass: P + 2 cycles after its acceptance for P passes.
module sgpu_shared_mem #(
  parameter int unsigned LANES = 8,
  parameter int unsigned BYTES = 49152,  // the ABI's SHARED_MAX
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

  output logic                 rsp_valid_o,
  output logic [LANES*32-1:0]  rsp_rdata_o,    // a read's words; lanes not read are zero
  output logic [31:0]          conflicts_o     // passes beyond each beat's first, since reset
);

  // The beat being served.
  logic                busy_q, write_q;
  logic [LANES-1:0]    pending_q;
  logic [LANES*WW-1:0] word_q;
  logic [LANES*4-1:0]  bytes_q;
  logic [LANES*32-1:0] wdata_q;
  logic                first_q;  // its first pass is now

  // LANES is a power of two: a word's bank is its low bits, its row the others.
  localparam int unsigned SH = $clog2(LANES);
  function automatic logic [BW-1:0] bank_of(logic [WW-1:0] w);
    bank_of = BW'(w & WW'(LANES - 1));
  endfunction
  function automatic logic [RW-1:0] row_of(logic [WW-1:0] w);
    row_of = RW'(w >> SH);
  endfunction

  // This pass: each bank's row (its lowest waiting lane's), the lanes it serves.
  logic [LANES*RW-1:0] bank_row;
  logic [LANES-1:0]    served, pending_d;
  logic [LANES*BW-1:0] lane_bank;
  logic [LANES*RW-1:0] lane_row;
  always_comb begin
    for (int unsigned l = 0; l < LANES; l++) begin
      lane_bank[l*BW +: BW] = bank_of(word_q[l*WW +: WW]);
      lane_row[l*RW +: RW]  = row_of(word_q[l*WW +: WW]);
    end
  end
  always_comb begin
    bank_row = '0;
    for (int l = LANES - 1; l >= 0; l--) begin  // the lowest lane last, so it leads
      if (busy_q && pending_q[l]) begin
        bank_row[lane_bank[l*BW +: BW]*RW +: RW] = lane_row[l*RW +: RW];
      end
    end
  end
  always_comb begin
    for (int unsigned l = 0; l < LANES; l++) begin
      served[l] = busy_q && pending_q[l]
                  && lane_row[l*RW +: RW] == bank_row[lane_bank[l*BW +: BW]*RW +: RW];
    end
  end
  assign pending_d   = pending_q & ~served;
  assign req_ready_o = !busy_q || pending_d == '0;

  // The writes of this pass, byte by byte: the highest served lane writing it wins.
  logic [LANES*4-1:0]  bank_we;
  logic [LANES*32-1:0] bank_wdata;
  always_comb begin
    bank_we    = '0;
    bank_wdata = '0;
    for (int unsigned l = 0; l < LANES; l++) begin
      for (int unsigned b = 0; b < 4; b++) begin
        if (write_q && served[l] && bytes_q[4*l + b]) begin
          bank_we[4*lane_bank[l*BW +: BW] + b]             = 1'b1;
          bank_wdata[32*lane_bank[l*BW +: BW] + 8*b +: 8] = wdata_q[32*l + 8*b +: 8];
        end
      end
    end
  end

  // The banks: each reads its row every pass, and writes the bytes written to it.
  logic [LANES*32-1:0] bank_rdata;
  for (genvar k = 0; k < LANES; k++) begin : g_bank
    logic [31:0] mem_q [ROWS];
    always_ff @(posedge clk_i) begin
      for (int unsigned b = 0; b < 4; b++) begin
        if (bank_we[4*k + b]) mem_q[bank_row[k*RW +: RW]][8*b +: 8] <= bank_wdata[32*k + 8*b +: 8];
      end
      bank_rdata[32*k +: 32] <= mem_q[bank_row[k*RW +: RW]];
    end
  end

  // The cycle after a pass: the words its lanes read, from their banks, gathered; after
  // the last pass, the answer.
  logic                got_q, last_q, read_q;
  logic [LANES-1:0]    got_lanes_q;
  logic [LANES*BW-1:0] got_bank_q;
  logic [LANES*32-1:0] gathered_q, gathered;
  always_comb begin
    gathered = gathered_q;
    for (int unsigned l = 0; l < LANES; l++) begin
      if (got_lanes_q[l]) gathered[32*l +: 32] = bank_rdata[32*got_bank_q[l*BW +: BW] +: 32];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q      <= 1'b0;
      got_q       <= 1'b0;
      rsp_valid_o <= 1'b0;
      conflicts_o <= '0;
    end else begin
      if (req_ready_o) busy_q <= req_valid_i;
      got_q       <= busy_q;
      rsp_valid_o <= got_q && last_q;
      if (busy_q && !first_q) conflicts_o <= conflicts_o + 32'd1;
    end
  end

  always_ff @(posedge clk_i) begin
    if (req_ready_o) begin
      write_q   <= req_write_i;
      pending_q <= req_lanes_i;
      word_q    <= req_word_i;
      bytes_q   <= req_bytes_i;
      wdata_q   <= req_wdata_i;
      first_q   <= 1'b1;
    end else begin
      pending_q <= pending_d;
      first_q   <= 1'b0;
    end
    last_q      <= pending_d == '0;
    read_q      <= !write_q;
    got_lanes_q <= served & {LANES{!write_q}};
    got_bank_q  <= lane_bank;
    if (got_q) gathered_q <= last_q ? '0 : gathered;
    if (got_q && last_q) rsp_rdata_o <= read_q ? gathered : '0;
  end

`ifndef SYNTHESIS
  initial assert (LANES == 1 << SH) else $fatal(1, "LANES must be a power of two");
  // A beat makes progress every pass; a beat with no lanes has nothing to wait for.
  a_progress: assert property (@(posedge clk_i) disable iff (!rst_ni)
      busy_q && pending_q != '0 |-> served != '0);
`endif

endmodule
