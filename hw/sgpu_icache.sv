// Core v2's instruction cache (docs/adr/0008-core-v2-pipeline.md, "Fetch"): the kernel's
// code read from global memory through a small direct-mapped cache, rather than from a
// core-local memory the host fills.
//
// A lookup names a warp and its pc (the byte offset of an instruction from the code's global
// address, `code_base_i`); two cycles later the cache answers for it: the instruction word on
// a hit, a miss, or an error (the line could not be read: the memory answered its fill with
// an error). A lookup every cycle. On a miss the cache fills the line, unless it is filling
// one already (one fill at a time): the line's two 16-byte halves read in order through the
// memory port; the fetch stage asks again later (all warps run one code, so after the first
// warp's misses the others hit). Which miss is filled next is fair: each warp's last missed
// line is kept, and the fills go to the warps with a miss in round-robin order (a line that
// is in the cache by then is not filled again), so a warp waits for at most one fill of each
// other warp; first come, first served let a warp lose every race at 32 warps. Lines are LINE_BYTES = 32 (four instructions), LINES of
// them, indexed by the pc; a line is invalid from its fill's start to its end, so a lookup
// never sees a line half written, and the data RAM is never read at a valid line being
// written (`sgpu_ram` without the collision bypass). `flush_i` (a launch with other code)
// empties the cache; no fill may be in flight.
module sgpu_icache #(
  parameter int unsigned WARPS = 8,
  parameter int unsigned LINES = 64,
  localparam int unsigned SW = (WARPS > 1) ? $clog2(WARPS) : 1,
  localparam int unsigned IW = $clog2(LINES),
  localparam int unsigned TW = 32 - 5 - IW  // the tag: the pc above the index
) (
  input  logic          clk_i,
  input  logic          rst_ni,

  input  logic          flush_i,
  input  logic [63:0]   code_base_i,  // 32-byte aligned, fixed while the cache is used

  input  logic          lookup_valid_i,
  input  logic [SW-1:0] lookup_warp_i,
  input  logic [31:0]   lookup_pc_i,  // 8-byte aligned

  output logic          rsp_valid_o,
  output logic [SW-1:0] rsp_warp_o,
  output logic [31:0]   rsp_pc_o,
  output logic          rsp_hit_o,
  output logic          rsp_err_o,
  output logic [63:0]   rsp_word_o,

  // Fills: 16-byte reads, answered in order.
  output logic          mem_req_valid_o,
  input  logic          mem_req_ready_i,
  output logic [63:0]   mem_req_addr_o,
  input  logic          mem_rsp_valid_i,
  input  logic          mem_rsp_err_i,
  input  logic [127:0]  mem_rsp_data_i
);

  // A pc is {tag, line index, half, word in the half, 3'b0}.
  logic [IW-1:0] lookup_index;
  logic [TW-1:0] s1_tag;

  // The lines: valid bits in flip-flops (a flush clears them at once), tags in distributed
  // RAM, the words in block RAM, a half line (two instructions) a row.
  logic [LINES-1:0] valid_q;
  logic [TW-1:0]    tags_q [LINES];
  logic [127:0]     rdata;
  logic             fill_we;
  logic [IW:0]      fill_row;

  // The fill: the line, how many halves were asked for and came, whether one failed.
  logic          filling_q, got_q, fill_err_q;
  logic [1:0]    sent_q;  // halves asked for
  logic [IW-1:0] fill_index_q;
  logic [TW-1:0] fill_tag_q;
  // The last line that failed: its lookups answer with an error until a flush.
  logic          err_q;
  logic [31:5]   err_line_q;

  sgpu_ram #(.WIDTH(128), .DEPTH(2 * LINES), .COLLIDE_OLD(1'b0), .OUT_REG(1'b1)) u_data (
    .clk_i,
    .raddr_i({lookup_index, lookup_pc_i[4]}),
    .rdata_o(rdata),
    .we_i   (fill_we),
    .waddr_i(fill_row),
    .wdata_i(mem_rsp_data_i)
  );

  // Stage 1: the lookup with its line's tag and valid bit, the data RAM's output.
  logic          s1_valid_q, s1_line_valid_q;
  logic [SW-1:0] s1_warp_q;
  logic [31:0]   s1_pc_q;
  logic [TW-1:0] s1_tag_q;
  assign lookup_index = lookup_pc_i[5 +: IW];
  assign s1_tag       = s1_pc_q[31 -: TW];
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) s1_valid_q <= 1'b0;
    else         s1_valid_q <= lookup_valid_i;
  end
  always_ff @(posedge clk_i) begin
    s1_warp_q       <= lookup_warp_i;
    s1_pc_q         <= lookup_pc_i;
    s1_tag_q        <= tags_q[lookup_index];
    s1_line_valid_q <= valid_q[lookup_index];
  end

  logic hit, failed, start;
  logic [31:5] fill_line;  // the picked miss's line
  assign hit    = s1_line_valid_q && s1_tag_q == s1_tag;
  assign failed = err_q && err_line_q == s1_pc_q[31:5];
  // The misses waiting for a fill: a warp's last missed line, the warps with one, and the
  // warp that had the last fill (round robin).
  logic [WARPS-1:0] missed_q;
  logic [31:5]      miss_line_q [WARPS];
  logic [SW-1:0]    last_q, pick;
  logic             any, picking, cached;
  sgpu_round_robin #(.N(WARPS)) u_pick (
    .req_i (missed_q),
    .last_i(last_q),
    .any_o (any),
    .pick_o(pick)
  );
  // The pick is registered (`cand_q`), checked against the cache the cycle after (a line the
  // cache holds already, brought by another warp's fill, is not filled again), and the fill
  // starts the cycle after that (`check_q`). Pick and check in one cycle (two distributed
  // RAM reads in a row) closed at 60.6 MHz; check and start in one (the tag compare into the
  // fill's many enables), at 84.1-88.7 MHz in the front end.
  logic cand_q, check_q, cached_q;
  assign picking = any && !filling_q && !cand_q && !check_q;
  assign cached  = valid_q[fill_line[5 +: IW]]
                   && tags_q[fill_line[5 +: IW]] == fill_line[31 -: TW];
  assign start   = check_q && !cached_q;

  // The word is chosen behind the data RAM's output register: with the choice registered
  // after the RAM's own output instead, the RAM's slow clock-to-output (5.8 ns) and the
  // fetch's test of the word for a control instruction (yosys moved it in front of the
  // register) were the front end's critical path (90.6-93.2 MHz).
  assign rsp_word_o = rsp_pc_o[3] ? rdata[127:64] : rdata[63:0];
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) rsp_valid_o <= 1'b0;
    else         rsp_valid_o <= s1_valid_q;
  end
  always_ff @(posedge clk_i) begin
    rsp_warp_o <= s1_warp_q;
    rsp_pc_o   <= s1_pc_q;
    rsp_hit_o  <= hit;
    rsp_err_o  <= failed && !hit;
  end

  // A warp's miss waits until its line is picked (filled, or found in the cache); a hit or
  // an error ends it too.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      missed_q <= '0;
      last_q   <= '0;
      cand_q   <= 1'b0;
      check_q  <= 1'b0;
    end else if (flush_i) begin
      missed_q <= '0;
      cand_q   <= 1'b0;
      check_q  <= 1'b0;
    end else begin
      cand_q  <= picking;
      check_q <= cand_q;
      if (picking) begin
        missed_q[pick] <= 1'b0;
        last_q         <= pick;
      end
      if (s1_valid_q) missed_q[s1_warp_q] <= !hit && !failed;
    end
  end
  always_ff @(posedge clk_i) begin
    if (s1_valid_q && !hit && !failed) miss_line_q[s1_warp_q] <= s1_pc_q[31:5];
    if (picking) fill_line <= miss_line_q[pick];
    cached_q <= cached;
  end

  // The fill.
  assign mem_req_valid_o = filling_q && !sent_q[1];
  assign mem_req_addr_o  = code_base_i + 64'({fill_tag_q, fill_index_q, sent_q[0], 4'd0});
  assign fill_we         = mem_rsp_valid_i;
  assign fill_row        = {fill_index_q, got_q};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q   <= '0;
      filling_q <= 1'b0;
      err_q     <= 1'b0;
    end else if (flush_i) begin
      valid_q <= '0;
      err_q   <= 1'b0;
    end else begin
      if (start) begin
        filling_q                   <= 1'b1;
        valid_q[fill_line[5 +: IW]] <= 1'b0;
      end
      if (mem_rsp_valid_i && got_q) begin  // the second half: the line is done
        filling_q <= 1'b0;
        if (!(fill_err_q || mem_rsp_err_i)) valid_q[fill_index_q] <= 1'b1;
        else begin
          err_q      <= 1'b1;
          err_line_q <= {fill_tag_q, fill_index_q};
        end
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (start) begin
      tags_q[fill_line[5 +: IW]] <= fill_line[31 -: TW];
      fill_index_q <= fill_line[5 +: IW];
      fill_tag_q   <= fill_line[31 -: TW];
      sent_q       <= '0;
      got_q        <= 1'b0;
      fill_err_q   <= 1'b0;
    end
    if (mem_req_valid_o && mem_req_ready_i) sent_q <= sent_q + 2'd1;
    if (mem_rsp_valid_i) begin
      got_q      <= 1'b1;
      fill_err_q <= fill_err_q || mem_rsp_err_i;
    end
  end

`ifndef SYNTHESIS
  a_rsp_filling: assert property (@(posedge clk_i) disable iff (!rst_ni)
      mem_rsp_valid_i |-> filling_q);
  a_flush_idle: assert property (@(posedge clk_i) disable iff (!rst_ni)
      flush_i |-> !filling_q && !s1_valid_q);
  a_aligned: assert property (@(posedge clk_i) disable iff (!rst_ni)
      lookup_valid_i |-> lookup_pc_i[2:0] == '0);
`endif

endmodule
