// Core v2's coalescer (docs/adr/0008-core-v2-pipeline.md, "Memory"): turns a beat's memory
// accesses, one a lane, into as few requests for aligned blocks of the memory port's width
// (16 bytes) as its addresses allow, a request every two cycles.
//
// A beat comes with each lane's address, the lanes that access memory and the access size
// (every lane's alike: 1 to 16 bytes, the address aligned to it, which the address stage has
// checked; an access so aligned never crosses a block). The coalescer keeps the lanes not yet
// served: for each request the lowest of them leads, and every remaining lane whose address
// is in the leader's block joins it. A request carries the block, the lanes it serves (the
// load/store unit keeps each lane's offset to place its data) and the bytes they touch. So a
// beat whose lanes read consecutive words is one request a block (two for 8 lanes of 4
// bytes), a broadcast is one request, and a scattered beat is one request a lane. A beat with
// no lane active makes no request.
//
// Timing: a request takes two cycles, one to compare every lane left with the leader's block
// (kept in a register of its own), one to choose the next leader and send the request out of
// a register; the next beat is taken in the cycle the last request goes, so a beat of one
// block takes two cycles. Half the memory port's rate, and beyond the memory a board has (a
// ULX3S's 16-bit SDRAM at 100 MHz moves at most 200 MB/s; 16 bytes every two cycles at 100
// MHz is 800 MB/s); the same loop in one cycle (compare, then choose) closed at 51 MHz
// (docs/PERFORMANCE.md).
module sgpu_coalesce #(
  parameter int unsigned LANES = 8
) (
  input  logic                clk_i,
  input  logic                rst_ni,

  input  logic                in_valid_i,
  output logic                in_ready_o,
  input  logic [64*LANES-1:0] in_addr_i,   // lane k's at [64*k +: 64]
  input  logic [LANES-1:0]    in_lanes_i,
  input  logic [2:0]          in_size_i,   // log2 of the bytes a lane accesses, 0 to 4
  // The block of the beat's lowest lane (its first leader), which the caller finds as it
  // queues the beat: found here, from a queue's distributed RAM, it was the unit's longest
  // path (a carry chain over the lanes, then their blocks chosen).
  input  logic [59:0]         in_lead_i,

  output logic                req_valid_o,
  input  logic                req_ready_i,
  output logic [59:0]         req_block_o, // the address divided by 16
  output logic [LANES-1:0]    req_lanes_o,
  output logic [15:0]         req_bytes_o,
  output logic                req_last_o   // the beat's last request
);

  // The beat being served: each lane's block and offset in it, the access size, the lanes
  // not yet served, the leader's block, and the phase: compare (`joins_q` not yet known) or
  // send. Lane k's at [60*k +: 60] and [4*k +: 4] (flat: yosys 0.23 reads no packed arrays
  // of more than one dimension).
  logic [60*LANES-1:0]    block_q;
  logic [4*LANES-1:0]     offset_q;
  logic [2:0]             size_q;
  logic [LANES-1:0]       left_q, joins_q;
  logic [59:0]            lead_q;
  logic                   send_q;

  logic [60*LANES-1:0] in_block;
  for (genvar k = 0; k < LANES; k++) begin : g_in_block
    assign in_block[60*k +: 60] = in_addr_i[64*k+4 +: 60];
  end

  // The block of the lane `lane` (one-hot) among `blocks`.
  function automatic logic [59:0] pick(logic [LANES-1:0] lane, logic [60*LANES-1:0] blocks);
    pick = '0;
    for (int unsigned k = 0; k < LANES; k++) pick |= lane[k] ? blocks[60*k +: 60] : '0;
  endfunction

  // The bytes a request touches: the offsets of its lanes, one-hot, merged, then each
  // widened to its aligned piece of the access's size (the pieces of 2, 4, 8 and 16 bytes
  // that hold an offset, ORed level by level). Per lane only the offset's one-hot is built:
  // a mask of the size at every lane's offset was 16 functions of seven inputs a lane.
  function automatic logic [15:0] widen(logic [15:0] at, logic [2:0] size);
    logic [7:0] p1;
    logic [3:0] p2;
    logic [1:0] p3;
    for (int unsigned i = 0; i < 8; i++) p1[i] = at[2*i] || at[2*i + 1];
    for (int unsigned i = 0; i < 4; i++) p2[i] = p1[2*i] || p1[2*i + 1];
    for (int unsigned i = 0; i < 2; i++) p3[i] = p2[2*i] || p2[2*i + 1];
    for (int unsigned j = 0; j < 16; j++) begin
      unique case (size)
        3'd0:    widen[j] = at[j];
        3'd1:    widen[j] = p1[j / 2];
        3'd2:    widen[j] = p2[j / 4];
        3'd3:    widen[j] = p3[j / 8];
        default: widen[j] = p3 != '0;
      endcase
    end
  endfunction

  // Compare: the lanes left in the leader's block (the leader among them).
  logic [LANES-1:0] joins;
  for (genvar k = 0; k < LANES; k++) begin : g_joins
    assign joins[k] = left_q[k] && block_q[60*k +: 60] == lead_q;
  end

  // Send: the request of the lanes that joined, out of a register that moves when it is
  // empty or taken.
  logic [LANES-1:0] rest;
  logic [LANES-1:0] next;  // the next leader, one-hot
  logic [15:0]      at;    // the offsets of the lanes that joined, one-hot
  logic             advance, send;
  assign rest = left_q & ~joins_q;
  assign next = rest & (~rest + LANES'(1));
  for (genvar j = 0; j < 16; j++) begin : g_at
    logic [LANES-1:0] here;  // the lanes that joined at offset j
    for (genvar k = 0; k < LANES; k++) begin : g_lane
      assign here[k] = joins_q[k] && offset_q[4*k +: 4] == 4'(j);
    end
    assign at[j] = here != '0;
  end
  assign advance    = !req_valid_o || req_ready_i;
  assign send       = send_q && advance;
  assign in_ready_o = left_q == '0 || send && rest == '0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      left_q      <= '0;
      send_q      <= 1'b0;
      req_valid_o <= 1'b0;
    end else begin
      if (advance) req_valid_o <= send;
      if (send) begin
        left_q <= rest;
        send_q <= 1'b0;
      end else if (left_q != '0) begin
        send_q <= 1'b1;
      end
      if (in_valid_i && in_ready_o) begin
        left_q <= in_lanes_i;
        send_q <= 1'b0;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (!send_q) joins_q <= joins;
    if (send) begin
      lead_q      <= pick(next, block_q);
      req_block_o <= lead_q;
      req_lanes_o <= joins_q;
      req_bytes_o <= widen(at, size_q);
      req_last_o  <= rest == '0;
    end
    if (in_valid_i && in_ready_o) begin
      lead_q  <= in_lead_i;
      block_q <= in_block;
      for (int unsigned k = 0; k < LANES; k++) offset_q[4*k +: 4] <= in_addr_i[64*k +: 4];
      size_q  <= in_size_i;
    end
  end

`ifndef SYNTHESIS
  // The sizes the ISA has, and addresses aligned to them (the address stage traps others).
  // On the offsets, not the whole addresses: Verilator 5.006 emits C++ that does not
  // compile for the sampled copy of a port as wide as 32 lanes' addresses.
  logic [4*LANES-1:0] in_offset;
  for (genvar k = 0; k < LANES; k++) begin : g_checks
    assign in_offset[4*k +: 4] = in_addr_i[64*k +: 4];
    a_aligned: assert property (@(posedge clk_i) disable iff (!rst_ni)
        in_valid_i && in_lanes_i[k]
        |-> (in_offset[4*k +: 4] & ((4'(1) << in_size_i[1:0]) - 4'(1))) == '0
            && (in_size_i != 3'd4 || in_offset[4*k +: 4] == '0));
  end
  a_size: assert property (@(posedge clk_i) disable iff (!rst_ni)
      in_valid_i |-> in_size_i <= 3'd4);
  logic lead_ok;
  assign lead_ok = in_lead_i == pick(in_lanes_i & (~in_lanes_i + LANES'(1)), in_block);
  a_lead: assert property (@(posedge clk_i) disable iff (!rst_ni)
      in_valid_i && in_lanes_i != '0 |-> lead_ok);
  // A request held until taken.
  a_held: assert property (@(posedge clk_i) disable iff (!rst_ni)
      req_valid_o && !req_ready_i |=> req_valid_o && $stable(req_block_o)
                                      && $stable(req_lanes_o) && $stable(req_bytes_o));
`endif

endmodule
