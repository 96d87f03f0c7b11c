// A memory with one synchronous read port and one write port, as block RAM is built: the
// read data of an address comes the cycle after it is presented. Every memory of the core
// (instructions, registers, reconvergence stacks) is one of these, so that yosys infers
// block RAM for all of them rather than flip-flops.
//
// A read of the address written in the same cycle returns the old data (COLLIDE_OLD, the
// first core relies on it); the ECP5's block RAM does not promise that between its ports,
// so yosys adds a bypass of about 56 LUT4 and 83 flip-flops a block to keep it. With
// COLLIDE_OLD = 0 the caller promises never to read an address in the cycle it writes it
// (and checks that it keeps its promise where it knows which reads count), and the memory is
// the block alone (`no_rw_check` tells yosys so); simulation still returns the old data.
module sgpu_ram #(
  parameter int unsigned WIDTH = 32,
  parameter int unsigned DEPTH = 256,
  parameter bit          COLLIDE_OLD = 1'b1,
  // A second register on the read data (the block RAM's output register): data two cycles
  // after the address, and the RAM's slow clock-to-output off the paths behind it.
  parameter bit          OUT_REG = 1'b0,
  localparam int unsigned AW = (DEPTH > 1) ? $clog2(DEPTH) : 1
) (
  input  logic             clk_i,
  input  logic [AW-1:0]    raddr_i,
  output logic [WIDTH-1:0] rdata_o,  // the read data, one cycle (OUT_REG: two) after
  input  logic             we_i,
  input  logic [AW-1:0]    waddr_i,
  input  logic [WIDTH-1:0] wdata_i
);

  logic [WIDTH-1:0] rd_q;  // the read port's data
  if (OUT_REG) begin : g_out_reg
    always_ff @(posedge clk_i) rdata_o <= rd_q;
  end else begin : g_out
    assign rdata_o = rd_q;
  end

  // The same memory twice, one with yosys's attribute: an attribute takes no parameter.
  if (COLLIDE_OLD) begin : g_old
    logic [WIDTH-1:0] mem_q [DEPTH];
    always_ff @(posedge clk_i) if (we_i) mem_q[waddr_i] <= wdata_i;
    always_ff @(posedge clk_i) rd_q <= mem_q[raddr_i];
  end else begin : g_no_collision
    (* no_rw_check *) logic [WIDTH-1:0] mem_q [DEPTH];
    always_ff @(posedge clk_i) if (we_i) mem_q[waddr_i] <= wdata_i;
    always_ff @(posedge clk_i) rd_q <= mem_q[raddr_i];
  end

endmodule
