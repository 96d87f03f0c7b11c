// A memory with one synchronous read port and one write port, as block RAM is built: the
// read data of an address comes the cycle after it is presented, and a read of the address
// written in the same cycle returns the old data. Every memory of the core (instructions,
// registers, reconvergence stacks) is one of these, so that yosys infers block RAM for all of
// them rather than flip-flops.
module sgpu_ram #(
  parameter int unsigned WIDTH = 32,
  parameter int unsigned DEPTH = 256,
  localparam int unsigned AW = (DEPTH > 1) ? $clog2(DEPTH) : 1
) (
  input  logic             clk_i,
  input  logic [AW-1:0]    raddr_i,
  output logic [WIDTH-1:0] rdata_o,
  input  logic             we_i,
  input  logic [AW-1:0]    waddr_i,
  input  logic [WIDTH-1:0] wdata_i
);

  logic [WIDTH-1:0] mem_q [DEPTH];

  always_ff @(posedge clk_i) begin
    if (we_i) begin
      mem_q[waddr_i] <= wdata_i;
    end
    rdata_o <= mem_q[raddr_i];
  end

endmodule
