// Posted memory accesses (docs/hw.md, "Loads and stores in flight"): a load or store leaves
// its requests on the memory port and retires; this unit takes their responses, in order,
// writes each loaded lane's registers into the register file when the issue sequence leaves
// the write port free, and keeps the scoreboard that stops a warp from issuing an
// instruction that names a register still to be loaded.
//
// Each issued load or store pushes a descriptor (warp, registers, size, pc) before its first
// request; a response belongs to the oldest descriptor and the one tagged `last` retires it.
// A response with an error loads nothing and is kept (the first one only) for the core to
// trap with, after every request in flight has been answered.
module sgpu_mem_return #(
  parameter int unsigned WARPS  = 8,
  parameter int unsigned QDEPTH = 8,  // loads and stores in flight, the whole core's
  localparam int unsigned WW    = (WARPS > 1) ? $clog2(WARPS) : 1,
  localparam int unsigned QW    = $clog2(QDEPTH)
) (
  input  logic           clk_i,
  input  logic           rst_ni,
  input  logic           clear_i,      // a launch starts: nothing is in flight

  // A load or store issues (its registers: 0 for a store).
  input  logic           push_i,
  input  logic [WW-1:0]  push_warp_i,
  input  logic [7:0]     push_rd_i,
  input  logic [2:0]     push_regs_i,
  input  logic [2:0]     push_msize_i,  // sgpu_isa_pkg::msize_e
  input  logic [31:0]    push_pc_i,
  output logic           full_o,
  input  logic           sent_i,       // one of its requests went out

  // Responses of loads and stores (an atomic's is the issue sequence's).
  input  logic           rsp_valid_i,
  input  sgpu_core_pkg::tag_t rsp_tag_i,
  input  logic           rsp_err_i,
  input  logic [127:0]   rsp_rdata_i,
  output logic           rsp_ready_o,

  // The scoreboard: whether an instruction of warp q_warp_i naming the four register ranges
  // (first register, count; 8 and 4 bits each, a count of 0 for none) must wait. Asked only
  // with q_valid_i (hazard_o is low otherwise, and the comparators rest).
  input  logic           q_valid_i,
  input  logic [WW-1:0]  q_warp_i,
  input  logic [31:0]    q_first_i,
  input  logic [15:0]    q_count_i,
  output logic           hazard_o,

  // Register writes: one register of one lane a cycle, when granted.
  input  logic           rf_grant_i,
  output logic           rf_we_o,
  output logic [WW-1:0]  rf_warp_o,
  output logic [4:0]     rf_lane_o,
  output logic [7:0]     rf_reg_o,
  output logic [31:0]    rf_data_o,

  output logic           wake_o,       // registers were freed: waiting warps may issue
  output logic           idle_o,       // nothing in flight
  output logic           err_o,
  output logic [31:0]    err_pc_o,
  output logic [WW-1:0]  err_warp_o
);

  // ---------------------------------------------------------------------------------------
  // Descriptors of the loads and stores in flight, oldest at head_q
  // ---------------------------------------------------------------------------------------
  logic [QDEPTH-1:0] vld_q;
  logic [WW-1:0]     d_warp_q  [QDEPTH];
  logic [7:0]        d_rd_q    [QDEPTH];
  logic [2:0]        d_regs_q  [QDEPTH];
  logic [2:0]        d_msize_q [QDEPTH];
  logic [31:0]       d_pc_q    [QDEPTH];
  logic [QW-1:0]     head_q, tail_q;
  logic [15:0]       out_q;     // requests sent and not yet answered

  // The response being written: its lane, the next register, how many are left, and the
  // loaded words still to write, next first.
  logic              lat_valid_q;
  logic [WW-1:0]     lat_warp_q;
  logic [4:0]        lat_lane_q;
  logic [7:0]        lat_reg_q;
  logic [2:0]        lat_left_q;
  logic [31:0]       lat_data_q [4];

  logic              err_q;
  logic [31:0]       err_pc_q;
  logic [WW-1:0]     err_warp_q;

  // ---------------------------------------------------------------------------------------
  // Accepting a response
  // ---------------------------------------------------------------------------------------
  logic finishing, accept, writes;
  assign finishing   = lat_valid_q && rf_grant_i && lat_left_q == 3'd1;
  assign rsp_ready_o = !lat_valid_q || finishing;
  assign accept      = rsp_valid_i && rsp_tag_i.kind != sgpu_core_pkg::TAG_ATOMIC && rsp_ready_o;
  assign writes      = !rsp_err_i && d_regs_q[head_q] != 3'd0 && d_rd_q[head_q] != 8'hff;

  // The loaded bytes, from the lane's offset in its block, extended by the load's size.
  logic [127:0] shifted;
  logic [31:0]  loaded [4];
  assign shifted = rsp_rdata_i >> {rsp_tag_i.off, 3'b000};
  always_comb begin
    for (int unsigned j = 0; j < 4; j++) loaded[j] = shifted[32*j +: 32];
    unique case (d_msize_q[head_q])
      sgpu_isa_pkg::MSIZE_U8:  loaded[0] = 32'(shifted[7:0]);
      sgpu_isa_pkg::MSIZE_S8:  loaded[0] = 32'(signed'(shifted[7:0]));
      sgpu_isa_pkg::MSIZE_U16: loaded[0] = 32'(shifted[15:0]);
      sgpu_isa_pkg::MSIZE_S16: loaded[0] = 32'(signed'(shifted[15:0]));
      default: ;
    endcase
  end

  // The register after `r` of a tuple; past R254 it is RZ, which is not written.
  function automatic logic [7:0] reg_next(logic [7:0] r);
    reg_next = (r >= 8'd254) ? 8'hff : r + 8'd1;
  endfunction

  // Nothing in flight, no error.
  task automatic empty();
    vld_q       <= '0;
    head_q      <= '0;
    tail_q      <= '0;
    out_q       <= '0;
    lat_valid_q <= 1'b0;
    err_q       <= 1'b0;
  endtask

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      empty();
    end else if (clear_i) begin
      empty();
    end else begin
      if (push_i) begin
        vld_q[tail_q]     <= 1'b1;
        d_warp_q[tail_q]  <= push_warp_i;
        d_rd_q[tail_q]    <= push_rd_i;
        d_regs_q[tail_q]  <= push_regs_i;
        d_msize_q[tail_q] <= push_msize_i;
        d_pc_q[tail_q]    <= push_pc_i;
        tail_q            <= QW'((32'(tail_q) + 1) % QDEPTH);
      end
      out_q <= out_q + 16'(sent_i) - 16'(accept);

      if (lat_valid_q && rf_grant_i) begin
        lat_reg_q  <= reg_next(lat_reg_q);
        lat_left_q <= lat_left_q - 3'd1;
        for (int unsigned j = 0; j < 3; j++) lat_data_q[j] <= lat_data_q[j + 1];
        if (lat_left_q == 3'd1) lat_valid_q <= 1'b0;
      end

      if (accept) begin
        if (rsp_err_i && !err_q) begin
          err_q      <= 1'b1;
          err_pc_q   <= d_pc_q[head_q];
          err_warp_q <= d_warp_q[head_q];
        end
        if (writes) begin
          lat_valid_q <= 1'b1;
          lat_warp_q  <= d_warp_q[head_q];
          lat_lane_q  <= rsp_tag_i.lane;
          lat_reg_q   <= d_rd_q[head_q];
          lat_left_q  <= d_regs_q[head_q];
          for (int unsigned j = 0; j < 4; j++) lat_data_q[j] <= loaded[j];
        end
        if (rsp_tag_i.last) begin
          vld_q[head_q] <= 1'b0;
          head_q        <= QW'((32'(head_q) + 1) % QDEPTH);
        end
      end
    end
  end

  assign full_o  = vld_q[tail_q];

`ifndef SYNTHESIS
  // The queue's bounds (docs/cosim.md, "Assertions"): a push has room, and an answer has a
  // request outstanding and a descriptor to go to.
  a_push_room: assert property (@(posedge clk_i) disable iff (!rst_ni)
    push_i && !clear_i |-> !full_o)
    else $error("a load or store pushed into a full queue");
  a_answer_owned: assert property (@(posedge clk_i) disable iff (!rst_ni)
    accept && !clear_i |-> vld_q[head_q] && out_q != '0)
    else $error("an answer with no request outstanding");
`endif
  assign wake_o  = finishing || (accept && !writes && rsp_tag_i.last);
  assign idle_o  = out_q == '0 && !lat_valid_q;

  assign rf_we_o   = lat_valid_q && rf_grant_i && lat_reg_q != 8'hff;
  assign rf_warp_o = lat_warp_q;
  assign rf_lane_o = lat_lane_q;
  assign rf_reg_o  = lat_reg_q;
  assign rf_data_o = lat_data_q[0];

  assign err_o      = err_q;
  assign err_pc_o   = err_pc_q;
  assign err_warp_o = err_warp_q;

  // ---------------------------------------------------------------------------------------
  // The scoreboard
  // ---------------------------------------------------------------------------------------
  // Whether registers [a, a + na) and [b, b + nb) share one (RZ is never pending).
  function automatic logic overlap(logic [7:0] a, logic [3:0] na, logic [7:0] b,
                                   logic [3:0] nb);
    overlap = na != '0 && nb != '0 && a != 8'hff && b != 8'hff
              && {1'b0, a} < {1'b0, b} + 9'(nb) && {1'b0, b} < {1'b0, a} + 9'(na);
  endfunction

  always_comb begin
    hazard_o = 1'b0;
    if (q_valid_i) begin
      for (int unsigned j = 0; j < 4; j++) begin
        for (int unsigned i = 0; i < QDEPTH; i++) begin
          if (vld_q[i] && d_warp_q[i] == q_warp_i
              && overlap(d_rd_q[i], 4'(d_regs_q[i]), q_first_i[8*j +: 8],
                         q_count_i[4*j +: 4])) begin
            hazard_o = 1'b1;
          end
        end
        if (lat_valid_q && lat_warp_q == q_warp_i
            && overlap(lat_reg_q, 4'(lat_left_q), q_first_i[8*j +: 8], q_count_i[4*j +: 4])) begin
          hazard_o = 1'b1;
        end
      end
    end
  end

endmodule
