// The queue pointers of a load/store unit half (sgpu_lsu_port, sgpu_lsu_shared) and the room
// the issue books in it: an instruction books its beats as its first beat issues
// (`reserve_i`), so that the beats, which come out of the beat stage with no back-pressure,
// always find an entry; `room_o` says whether another instruction's beats fit beside the
// beats queued and those booked and not yet in. The pointers have one bit more than an
// index, so that full and empty differ.
module sgpu_lsu_room #(
  parameter int unsigned QD = 8,     // entries
  parameter int unsigned BEATS = 4,  // an instruction's beats
  localparam int unsigned QW = $clog2(QD)
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        reserve_i,  // an instruction's beats booked
  input  logic        put_i,      // a beat in, at wr_o
  input  logic        take_i,     // the beat at rd_o out
  output logic        room_o,
  output logic [QW:0] wr_o,
  output logic [QW:0] rd_o
);

  logic [QW:0]   booked_q;  // beats booked and not yet in
  logic [QW+1:0] used;
  assign used   = (QW + 2)'(wr_o - rd_o) + (QW + 2)'(booked_q);
  assign room_o = used + (QW + 2)'(BEATS) <= (QW + 2)'(QD);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {wr_o, rd_o, booked_q} <= '0;
    end else begin
      booked_q <= booked_q + (reserve_i ? (QW + 1)'(BEATS) : '0) - (put_i ? (QW + 1)'(1) : '0);
      if (put_i) wr_o <= wr_o + 1'b1;
      if (take_i) rd_o <= rd_o + 1'b1;
    end
  end

`ifndef SYNTHESIS
  a_room: assert property (@(posedge clk_i) disable iff (!rst_ni)
      put_i |-> (QW + 1)'(wr_o - rd_o) < (QW + 1)'(QD));
  a_booked: assert property (@(posedge clk_i) disable iff (!rst_ni)
      put_i |-> booked_q != '0);
  a_taken: assert property (@(posedge clk_i) disable iff (!rst_ni)
      take_i |-> wr_o != rd_o);
`endif

endmodule
