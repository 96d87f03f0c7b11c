// Core v2's predicate file (docs/adr/0008-core-v2-pipeline.md, "Operands"): every thread's
// predicates P0 to P6 and its carry, for every warp slot: a lane's byte, P0 to P6 in bits 0
// to 6 and the carry in bit 7 (the scoreboard's order), a beat's LANES bytes a row.
//
// A beat's row is read as the beat issues: its guard, pa, pc and carry in, and the row as
// it was, which travels with the beat to its write-back. A write is of a whole row: the row
// as it was read, with the predicates and carry the instruction writes (its mask) replaced
// in the lanes it writes. So the rows are distributed RAM with one write port and no byte
// enables (TRELLIS_DPR16X4 on the ECP5: a bit per lane and predicate with its own write
// enable would take four times as many), and the scoreboard lets only one instruction of a
// warp that writes predicates or the carry be in flight (sgpu_scoreboard: a head that writes
// any waits for every such write of its warp), so that no write puts back a row another
// write has changed since it was read.
//
// Rows are in BANKS banks by beat (beat mod BANKS), as the register file's: write port k
// writes the beats of bank k, so the write-back's ports serve both files alike. A read of
// any beat a cycle, answered a cycle later (the row from a register, and zero if unwritten).
//
// A new warp's predicates and carry are zero (the golden model's `Warp::new`): `next_i` marks
// the slot's rows unwritten in one cycle, and an unwritten row reads zero until its first
// write. The caller starts a slot with no read or write of it in flight (assertions check
// the cycle of the start). A row read in the cycle it is written reads as it was: the
// distributed RAM is read at once and written at the clock edge, so a beat that reads
// predicates no write in flight changes may issue beside that write (the scoreboard holds
// only the beats that read what it writes).
module sgpu_pred_file #(
  parameter int unsigned LANES = 8,
  parameter int unsigned WARPS = 8,
  // Banks by beat: 4, 2 or 1; 32 / LANES must be a multiple of it.
  parameter int unsigned BANKS = 2,
  localparam int unsigned BEATS = 32 / LANES,
  localparam int unsigned BW    = (BEATS > 1) ? $clog2(BEATS) : 1,
  localparam int unsigned SW    = (WARPS > 1) ? $clog2(WARPS) : 1,
  localparam int unsigned RW    = 8 * LANES,               // a row's bits
  localparam int unsigned DEPTH = WARPS * BEATS / BANKS,   // rows of a bank
  localparam int unsigned AW    = (DEPTH > 1) ? $clog2(DEPTH) : 1
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,

  // A beat's read, and its row a cycle later (lane k's byte at [8*k +: 8]).
  input  logic                    rd_valid_i,
  input  logic [SW-1:0]           rd_slot_i,
  input  logic [BW-1:0]           rd_beat_i,
  output logic                    rd_valid_o,
  output logic [RW-1:0]           rd_row_o,

  // Writes: port k's at [k] (or [k*W +: W] for a field of width W): the row as it was read,
  // the bits to write (a mask common to the lanes), the lanes that write, their new bits.
  input  logic [BANKS-1:0]        wr_valid_i,
  input  logic [BANKS*SW-1:0]     wr_slot_i,
  input  logic [BANKS*BW-1:0]     wr_beat_i,
  input  logic [BANKS*RW-1:0]     wr_old_i,
  input  logic [BANKS*8-1:0]      wr_mask_i,
  input  logic [BANKS*LANES-1:0]  wr_lanes_i,
  input  logic [BANKS*RW-1:0]     wr_bits_i,

  // A new warp in slot `next_slot_i`: its rows read zero until written.
  input  logic                    next_i,
  input  logic [SW-1:0]           next_slot_i
);

  // A beat's row number (slot s's beat b at s * BEATS + b, put together as bits of NW: BEATS
  // is a power of two, and an adder or a 32-bit index would make the read of `written_q`
  // below a shifter), its bank, and its address there.
  localparam int unsigned LOG_BEATS = $clog2(BEATS);
  localparam int unsigned LOG_BANKS = $clog2(BANKS);
  localparam int unsigned NW = (WARPS * BEATS > 1) ? $clog2(WARPS * BEATS) : 1;
  function automatic logic [NW-1:0] row_of(logic [SW-1:0] slot, logic [BW-1:0] beat);
    row_of = NW'((32'(slot) << LOG_BEATS) | 32'(beat));
  endfunction
  function automatic int unsigned bank_of(logic [BW-1:0] beat);
    bank_of = 32'(beat) % BANKS;
  endfunction
  function automatic logic [AW-1:0] addr_of(logic [SW-1:0] slot, logic [BW-1:0] beat);
    addr_of = AW'(row_of(slot, beat) >> LOG_BANKS);
  endfunction

  // Which rows have been written since their slot's warp started, by row number.
  logic [WARPS*BEATS-1:0] written_q, written_d;

  // ------------------------------------------------------------------------------------
  // The banks: written at the clock edge, read at once (distributed RAM).
  // ------------------------------------------------------------------------------------
  logic [BANKS*RW-1:0] bank_rows;  // each bank's row at the read's address
  logic [AW-1:0]       rd_addr;
  assign rd_addr = addr_of(rd_slot_i, rd_beat_i);

  for (genvar k = 0; k < BANKS; k++) begin : g_bank
    logic [RW-1:0] mem [DEPTH];
    logic [SW-1:0] slot;
    logic [BW-1:0] beat;
    logic [RW-1:0] old, bits, row;
    logic [7:0]    mask;
    assign slot = wr_slot_i[k*SW +: SW];
    assign beat = wr_beat_i[k*BW +: BW];
    assign old  = wr_old_i[k*RW +: RW];
    assign bits = wr_bits_i[k*RW +: RW];
    assign mask = wr_mask_i[k*8 +: 8];
    // The lanes that write take the masked bits; the others keep the row as it was.
    always_comb begin
      for (int unsigned l = 0; l < LANES; l++) begin
        row[8*l +: 8] = wr_lanes_i[k*LANES + l]
                      ? (old[8*l +: 8] & ~mask) | (bits[8*l +: 8] & mask) : old[8*l +: 8];
      end
    end
    always_ff @(posedge clk_i) begin
      if (wr_valid_i[k]) mem[addr_of(slot, beat)] <= row;
    end
    assign bank_rows[k*RW +: RW] = mem[rd_addr];
  end

  // A row is written only by its bank's port: its written bit is set when that port's slot
  // and beat are its own, cleared when its slot starts. The slots' and beats' matches are
  // decoded once and combined a row at a time (a bit written at a computed row number, or
  // each row compared with both ports, is three times the logic at 32 slots).
  logic [BANKS*WARPS-1:0] slot_hit;   // port k writes slot s: [k*WARPS + s]
  logic [BANKS*BEATS-1:0] beat_hit;   // port k writes beat b: [k*BEATS + b]
  logic [WARPS-1:0]       starts;     // slot s starts
  always_comb begin
    for (int unsigned s = 0; s < WARPS; s++) begin
      starts[s] = next_i && next_slot_i == SW'(s);
      for (int unsigned k = 0; k < BANKS; k++) begin
        slot_hit[k*WARPS + s] = wr_valid_i[k] && wr_slot_i[k*SW +: SW] == SW'(s);
      end
    end
    for (int unsigned b = 0; b < BEATS; b++) begin
      for (int unsigned k = 0; k < BANKS; k++) begin
        beat_hit[k*BEATS + b] = wr_beat_i[k*BW +: BW] == BW'(b);
      end
    end
    for (int unsigned s = 0; s < WARPS; s++) begin
      for (int unsigned b = 0; b < BEATS; b++) begin
        written_d[s*BEATS + b] = written_q[s*BEATS + b] && !starts[s]
            || slot_hit[(b % BANKS)*WARPS + s] && beat_hit[(b % BANKS)*BEATS + b];
      end
    end
  end

  logic rd_written;
  assign rd_written = written_q[row_of(rd_slot_i, rd_beat_i)];

  // The read's row: its bank's, zeroed after the register if unwritten (zeroed before it,
  // yosys folds the written bits' multiplexer into each of the row's bits: 1,423 LUT4 at
  // 32 slots rather than 988).
  logic [RW-1:0] rd_row;
  always_comb begin
    rd_row = bank_rows[0 +: RW];
    for (int unsigned k = 1; k < BANKS; k++) begin
      if (bank_of(rd_beat_i) == k) rd_row = bank_rows[k*RW +: RW];
    end
  end

  logic [RW-1:0] rd_row_q;
  logic          rd_written_q;
  assign rd_row_o = rd_row_q & {RW{rd_written_q}};
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      written_q    <= '0;
      rd_valid_o   <= 1'b0;
      rd_row_q     <= '0;
      rd_written_q <= 1'b0;
    end else begin
      written_q    <= written_d;
      rd_valid_o   <= rd_valid_i;
      if (rd_valid_i) begin
        rd_row_q     <= rd_row;
        rd_written_q <= rd_written;
      end
    end
  end

  // ------------------------------------------------------------------------------------
  // What the caller promises.
  // ------------------------------------------------------------------------------------
`ifndef SYNTHESIS
  if (!(BANKS == 1 || BANKS == 2 || BANKS == 4) || BEATS % BANKS != 0) begin : g_bad_banks
    initial $fatal(1, "sgpu_pred_file: BANKS = %0d with %0d beats", BANKS, BEATS);
  end
  for (genvar k = 0; k < BANKS; k++) begin : g_port_checks
    // A port writes only its bank's beats.
    a_port_bank: assert property (@(posedge clk_i) disable iff (!rst_ni)
        wr_valid_i[k] |-> bank_of(wr_beat_i[k*BW +: BW]) == k)
      else $error("sgpu_pred_file: port %0d writes beat %0d", k, wr_beat_i[k*BW +: BW]);
    // Nothing of a slot is read or written in the cycle it starts.
    a_no_write_at_start: assert property (@(posedge clk_i) disable iff (!rst_ni)
        wr_valid_i[k] && next_i |-> wr_slot_i[k*SW +: SW] != next_slot_i)
      else $error("sgpu_pred_file: slot %0d written as it starts", next_slot_i);
  end
  a_no_read_at_start: assert property (@(posedge clk_i) disable iff (!rst_ni)
      rd_valid_i && next_i |-> rd_slot_i != next_slot_i)
    else $error("sgpu_pred_file: slot %0d read as it starts", next_slot_i);
`endif

endmodule
