// Thread indices of consecutive threads: threads fill a CTA x first, then y, then z
// (docs/hw.md), so the next thread's index is this one's with x counted up and carried into
// y and z at the block's edges. Rather than divide a thread number by the block's sizes, the
// core walks this chain: `tid_o[30*k +: 30]` is the index of the k-th thread after `tid_i`'s
// (k = 0 is `tid_i` itself) and `next_o` the one after the last, so a beat of LANES lanes
// gets its lanes' indices and the next beat's first in one cycle. The indices are one flat
// vector because yosys 0.23 takes no unpacked-array ports. With en_i low the outputs are zero
// and the chain rests (operand isolation: in Verilator the chain is skipped).
module sgpu_tid_step #(
  parameter int unsigned COUNT = 8
) (
  input  logic        en_i,           // the indices are used this cycle
  input  logic [10:0] block_x_i,      // at most 1024
  input  logic [10:0] block_y_i,
  input  logic [29:0] tid_i,          // {z, y, x}, 10 bits each
  output logic [30*COUNT-1:0] tid_o,
  output logic [29:0] next_o
);

  function automatic logic [29:0] step(logic [29:0] t, logic [10:0] bx, logic [10:0] by);
    logic [9:0] x, y, z;
    {z, y, x} = t;
    if ({1'b0, x} + 11'd1 >= bx) begin
      x = '0;
      if ({1'b0, y} + 11'd1 >= by) begin
        y = '0;
        z = z + 10'd1;
      end else begin
        y = y + 10'd1;
      end
    end else begin
      x = x + 10'd1;
    end
    step = {z, y, x};
  endfunction

  always_comb begin
    logic [29:0] t;
    t      = '0;
    tid_o  = '0;
    next_o = '0;
    if (en_i) begin
      t = tid_i;
      for (int unsigned k = 0; k < COUNT; k++) begin
        tid_o[30*k +: 30] = t;
        t = step(t, block_x_i, block_y_i);
      end
      next_o = t;
    end
  end

endmodule
