// Core v2's register file (docs/adr/0008-core-v2-pipeline.md, "Operands"): every lane's
// registers for every warp slot, delivering a beat's three operands (ra, rb, rc) every cycle
// from block RAM with one read and one write port.
//
// A beat's three reads go out one cycle apart: ra as the beat is issued (cycle t), rb in
// t + 1, rc in t + 2, and the beat's operands come out together, registered, in t + 5 (the
// RAMs' output registers give each read two cycles, its check against the generation one
// more, and ra and rb wait for rc). While a warp instruction's beats issue in consecutive
// cycles, the reads of one cycle are of three consecutive beats. Each lane's registers are in BANKS banks by beat (beat mod BANKS),
// each bank in as many copies as its reads in one cycle need, every copy one block RAM
// written by every write of its bank:
//
// - four banks, one copy each: three consecutive beats are in three different banks (an
//   instruction has a multiple of four beats: LANES of 8 or fewer);
// - two banks, two copies each: consecutive beats alternate banks (an even number of beats:
//   LANES of 16 or fewer), so ra's and rc's beats share a bank and rb's is in the other; ra
//   and rb read copy 0, rc copy 1;
// - one bank, three copies, one a read (any LANES).
//
// Fewer banks cost block RAM (the registers are stored 1, 2 or 3 times over) and save logic
// (each operand chooses among BANKS banks): docs/PERFORMANCE.md has the measurements.
//
// Addresses are rows: the caller maps (warp slot, register) to a row, a slot's registers in
// rows of their own (row = slot x registers + register). A bank word is a register and a
// 4-bit generation tag. A slot has a generation (1 to 15, `gen_q`); a word whose tag is not
// its slot's generation reads as zero, and a write stores the slot's generation with the
// value, lane by lane, so every register a warp has not written reads zero without the file
// being cleared for each warp. `next_i` advances a slot's generation as a new warp takes it;
// from 15 the slot's rows (`next_first_i`, `next_rows_i`) are first swept to tag 0, every bank
// and lane at once, one bank address a cycle, `busy_o` high meanwhile. `clear_i` sweeps the
// whole file and sets every slot's generation to 1 (a launch whose rows are laid out
// otherwise than the last's). While `busy_o` is high the caller issues no read and no write;
// `next_i` comes when no read of its slot is in flight (its last beat issued four cycles
// before or more: a beat's last tag check is in its fifth cycle), `clear_i` when none is.
//
// Writes: one port a bank (port k writes the beats whose number is k mod BANKS). No word may be read in the cycle it is written (the banks are block RAM
// that does not promise what such a read returns): the scoreboard keeps a register pending
// until the cycle after its last write, and an assertion checks.
module sgpu_regfile #(
  parameter int unsigned LANES = 8,
  parameter int unsigned WARPS = 8,
  // Registers a lane holds (each thread's, of every warp slot): 16,384 registers at 8 lanes.
  parameter int unsigned REGS_PER_LANE = 2048,
  // Banks by beat: 4, 2 or 1 (above); 32 / LANES must be a multiple of it.
  parameter int unsigned BANKS = 2,
  localparam int unsigned BEATS = 32 / LANES,
  localparam int unsigned BW    = (BEATS > 1) ? $clog2(BEATS) : 1,
  localparam int unsigned SW    = (WARPS > 1) ? $clog2(WARPS) : 1,
  localparam int unsigned ROWS  = REGS_PER_LANE / BEATS,  // warp registers a lane holds
  localparam int unsigned RW    = $clog2(ROWS),
  localparam int unsigned COPIES = (BANKS == 4) ? 1 : (BANKS == 2) ? 2 : 3,
  localparam int unsigned PORTS  = BANKS,                  // write ports, one a bank
  localparam int unsigned DEPTH  = REGS_PER_LANE / BANKS,  // words of a block RAM
  localparam int unsigned AW    = $clog2(DEPTH)
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,

  // A beat's reads, in its issue cycle: the slot, the beat, each operand's row, or zero
  // (RZ, or an operand the instruction does not have).
  input  logic                   rd_valid_i,
  input  logic [SW-1:0]          rd_slot_i,
  input  logic [BW-1:0]          rd_beat_i,
  input  logic [3*RW-1:0]        rd_rows_i,   // ra at [0 +: RW], rb next, rc last
  input  logic [2:0]             rd_zero_i,   // ra, rb, rc
  // Five cycles later: the beat's operands, lane k's at [32*k +: 32].
  output logic                   rd_valid_o,
  output logic [32*LANES-1:0]    a_o,
  output logic [32*LANES-1:0]    b_o,
  output logic [32*LANES-1:0]    c_o,

  // Writes: port k's at [k] (or [k*W +: W] for a field of width W).
  input  logic [PORTS-1:0]       wr_valid_i,
  input  logic [PORTS*SW-1:0]    wr_slot_i,
  input  logic [PORTS*BW-1:0]    wr_beat_i,
  input  logic [PORTS*RW-1:0]    wr_row_i,
  input  logic [PORTS*LANES-1:0] wr_lanes_i,  // which lanes write
  input  logic [PORTS*32*LANES-1:0] wr_data_i,

  // Generations.
  input  logic                   next_i,
  input  logic [SW-1:0]          next_slot_i,
  input  logic [RW-1:0]          next_first_i,
  input  logic [RW:0]            next_rows_i,
  input  logic                   clear_i,
  output logic                   busy_o
);

  localparam int unsigned GW = 4;  // a generation tag's bits
  localparam int unsigned WW = 32 + GW;
  // Bank addresses a row spans: a row's beats that share a bank.
  localparam int unsigned PER_ROW = BEATS / BANKS;
  localparam int unsigned PW = (PER_ROW > 1) ? $clog2(PER_ROW) : 0;

  // ------------------------------------------------------------------------------------
  // Generations and the sweep.
  // ------------------------------------------------------------------------------------
  logic [WARPS*GW-1:0] gen_q, gen_d;     // slot w's at [w*GW +: GW]
  logic          sweep_q, sweep_d;        // sweeping bank addresses sweep_addr_q..sweep_last_q
  logic [AW-1:0] sweep_addr_q, sweep_addr_d;
  logic [AW-1:0] sweep_last_q, sweep_last_d;

  // Every slot's generation 1: after reset and at a clear.
  localparam logic [WARPS*GW-1:0] GEN_ONES = {WARPS{GW'(1)}};

  // A row's first bank address.
  function automatic logic [AW-1:0] row_base(logic [RW-1:0] row);
    row_base = AW'(row) << PW;
  endfunction

  logic [GW-1:0] next_gen;  // the slot's generation that next_i advances
  assign next_gen = gen_q[next_slot_i*GW +: GW];

  always_comb begin
    gen_d        = gen_q;
    sweep_d      = sweep_q;
    sweep_addr_d = sweep_addr_q;
    sweep_last_d = sweep_last_q;
    if (sweep_q) begin
      sweep_addr_d = sweep_addr_q + AW'(1);
      sweep_d      = sweep_addr_q != sweep_last_q;
    end else if (clear_i) begin
      gen_d        = GEN_ONES;
      sweep_d      = 1'b1;
      sweep_addr_d = '0;
      sweep_last_d = AW'(DEPTH - 1);
    end else if (next_i) begin
      if (next_gen == GW'(15)) begin
        gen_d[next_slot_i*GW +: GW] = GW'(1);
        sweep_d      = next_rows_i != '0;
        sweep_addr_d = row_base(next_first_i);
        sweep_last_d = row_base(next_first_i) + AW'((32'(next_rows_i) << PW) - 1);
      end else begin
        gen_d[next_slot_i*GW +: GW] = next_gen + GW'(1);
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      // After reset every word's tag is unknown: the file is swept, every slot at 1.
      gen_q        <= GEN_ONES;
      sweep_q      <= 1'b1;
      sweep_addr_q <= '0;
      sweep_last_q <= AW'(DEPTH - 1);
    end else begin
      gen_q        <= gen_d;
      sweep_q      <= sweep_d;
      sweep_addr_q <= sweep_addr_d;
      sweep_last_q <= sweep_last_d;
    end
  end

  assign busy_o = sweep_q;

  // ------------------------------------------------------------------------------------
  // Reads: the issue cycle's beat and its rb and rc rows delayed, so that cycle t reads ra
  // of the beat issued in t, rb of t - 1's and rc of t - 2's. Stage s of the read pipe
  // (1 to 5) holds the beat issued s cycles ago.
  // ------------------------------------------------------------------------------------
  logic [5:1]    valid_q;    // stage 5: the operands are out
  logic [SW-1:0] slot1_q, slot2_q, slot3_q, slot4_q;
  logic [BW-1:0] beat1_q, beat2_q;
  logic [RW-1:0] rb_row1_q, rc_row1_q, rc_row2_q;
  logic [2:0]    zero1_q;    // ra's, rb's, rc's zero
  logic [2:0]    zero2_q;
  logic [2:1]    zero3_q;    // rb's, rc's
  logic          zero4_q;    // rc's

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= '0;
    end else begin
      valid_q <= {valid_q[4:1], rd_valid_i};
    end
  end

  always_ff @(posedge clk_i) begin
    slot1_q   <= rd_slot_i;
    slot2_q   <= slot1_q;
    slot3_q   <= slot2_q;
    slot4_q   <= slot3_q;
    beat1_q   <= rd_beat_i;
    beat2_q   <= beat1_q;
    rb_row1_q <= rd_rows_i[RW +: RW];
    rc_row1_q <= rd_rows_i[2*RW +: RW];
    rc_row2_q <= rc_row1_q;
    zero1_q   <= rd_zero_i;
    zero2_q   <= zero1_q;
    zero3_q   <= zero2_q[2:1];
    zero4_q   <= zero3_q[2];
  end

  // A beat's bank, and its address there: its row's, and which of the row's beats in that
  // bank.
  function automatic logic [1:0] bank_of(logic [BW-1:0] beat);
    bank_of = 2'(32'(beat) % BANKS);
  endfunction
  function automatic logic [AW-1:0] addr_of(logic [RW-1:0] row, logic [BW-1:0] beat);
    addr_of = row_base(row) | AW'(32'(beat) / BANKS);
  endfunction
  // The copy of its bank that read o (0: ra, 1: rb, 2: rc) uses.
  function automatic int unsigned copy_of(int unsigned o);
    if (BANKS == 1)      copy_of = o;
    else if (BANKS == 2) copy_of = (o == 2) ? 1 : 0;
    else                 copy_of = 0;
  endfunction

  // Read o this cycle: whether there is one (an operand that is zero reads nothing), its
  // bank and address.
  logic [2:0]      rvalid;
  logic [5:0]      rbank;  // read o's at [2*o +: 2]
  logic [3*AW-1:0] raddr;  // read o's at [AW*o +: AW]
  assign rvalid = {valid_q[2] && !zero2_q[2], valid_q[1] && !zero1_q[1],
                   rd_valid_i && !rd_zero_i[0]};
  assign rbank  = {bank_of(beat2_q), bank_of(beat1_q), bank_of(rd_beat_i)};
  assign raddr  = {addr_of(rc_row2_q, beat2_q), addr_of(rb_row1_q, beat1_q),
                   addr_of(rd_rows_i[0 +: RW], rd_beat_i)};

  // Each block RAM's read address (RAM m is copy m mod COPIES of bank m / COPIES): that of
  // the read in flight that is in it (at most one: the banking's point), or any when none is.
  localparam int unsigned RAMS = BANKS * COPIES;
  logic [RAMS*AW-1:0] ram_ra;
  logic [RAMS-1:0]    ram_reads;  // whether the RAM serves a read
  always_comb begin
    ram_ra    = '0;
    ram_reads = '0;
    for (int unsigned m = 0; m < RAMS; m++) begin
      for (int unsigned o = 0; o < 3; o++) begin
        if (rvalid[o] && rbank[2*o +: 2] == 2'(m / COPIES) && copy_of(o) == m % COPIES) begin
          ram_ra[m*AW +: AW] = raddr[o*AW +: AW];
          ram_reads[m]       = 1'b1;
        end
      end
    end
  end

  // ------------------------------------------------------------------------------------
  // The block RAMs: one sgpu_ram a copy of a bank and a lane.
  // ------------------------------------------------------------------------------------
  logic [RAMS*LANES*WW-1:0] rdata;  // RAM m's lane l at [(m*LANES + l)*WW +: WW]

  for (genvar m = 0; m < RAMS; m++) begin : g_ram
    localparam int unsigned P = m / COPIES;  // the bank, and the port writing it
    logic [AW-1:0] waddr;
    logic [GW-1:0] wgen;
    logic [SW-1:0] wslot;
    assign wslot = wr_slot_i[P*SW +: SW];
    assign waddr = sweep_q ? sweep_addr_q : addr_of(wr_row_i[P*RW +: RW], wr_beat_i[P*BW +: BW]);
    assign wgen  = sweep_q ? GW'(0) : gen_q[wslot*GW +: GW];
`ifndef SYNTHESIS
    // The RAMs are block RAM alone (sgpu_ram's COLLIDE_OLD = 0): no word is read in the
    // cycle it is written, which the scoreboard keeps (docs/adr/0008-core-v2-pipeline.md).
    a_no_collision: assert property (@(posedge clk_i) disable iff (!rst_ni)
        !(ram_reads[m] && (sweep_q || wr_valid_i[P]) && waddr == ram_ra[m*AW +: AW]));
`endif
    for (genvar l = 0; l < LANES; l++) begin : g_lane
      logic we;
      assign we = sweep_q || (wr_valid_i[P] && wr_lanes_i[P*LANES + l]);
      sgpu_ram #(.WIDTH(WW), .DEPTH(DEPTH), .COLLIDE_OLD(1'b0), .OUT_REG(1'b1)) u_ram (
        .clk_i,
        .raddr_i(ram_ra[m*AW +: AW]),
        .rdata_o(rdata[(m*LANES + l)*WW +: WW]),
        .we_i   (we),
        .waddr_i(waddr),
        .wdata_i({wgen, wr_data_i[(P*LANES + l)*32 +: 32]})
      );
    end
  end

  // Which bank answers each operand, two cycles after its read (the RAMs' output register).
  logic [5:0] from1_q, from_q;
  always_ff @(posedge clk_i) begin
    from1_q <= rbank;
    from_q  <= from1_q;
  end

  // Each operand's lanes as its bank answers them, into a register: zero if the operand is,
  // or if the word's tag is not the generation of the slot its beat belongs to (ra's beat is
  // at stage 2 now, rb's at 3, rc's at 4); ra then waits two cycles more and rb one, for rc.
  logic [GW-1:0] gen_a, gen_b, gen_c;
  assign gen_a = gen_q[slot2_q*GW +: GW];
  assign gen_b = gen_q[slot3_q*GW +: GW];
  assign gen_c = gen_q[slot4_q*GW +: GW];
  logic [32*LANES-1:0] a3_q, a4_q, a5_q, b4_q, b5_q, c5_q;
  for (genvar l = 0; l < LANES; l++) begin : g_operand
    // The lane's word from each operand's bank, in the operand's copy: a multiplexer of the
    // banks (written with constant offsets: a variable part-select would be a shifter).
    localparam int unsigned CA = copy_of(0), CB = copy_of(1), CC = copy_of(2);
    logic [WW-1:0] wa, wb, wc;
    always_comb begin
      wa = rdata[(CA*LANES + l)*WW +: WW];
      wb = rdata[(CB*LANES + l)*WW +: WW];
      wc = rdata[(CC*LANES + l)*WW +: WW];
      for (int unsigned k = 1; k < BANKS; k++) begin
        if (from_q[1:0] == 2'(k)) wa = rdata[((k*COPIES + CA)*LANES + l)*WW +: WW];
        if (from_q[3:2] == 2'(k)) wb = rdata[((k*COPIES + CB)*LANES + l)*WW +: WW];
        if (from_q[5:4] == 2'(k)) wc = rdata[((k*COPIES + CC)*LANES + l)*WW +: WW];
      end
    end
    always_ff @(posedge clk_i) begin
      a3_q[32*l +: 32] <= (zero2_q[0] || wa[32 +: GW] != gen_a) ? 32'd0 : wa[31:0];
      b4_q[32*l +: 32] <= (zero3_q[1] || wb[32 +: GW] != gen_b) ? 32'd0 : wb[31:0];
      c5_q[32*l +: 32] <= (zero4_q    || wc[32 +: GW] != gen_c) ? 32'd0 : wc[31:0];
    end
  end
  always_ff @(posedge clk_i) begin
    a4_q <= a3_q;
    a5_q <= a4_q;
    b5_q <= b4_q;
  end

  assign rd_valid_o = valid_q[5];
  assign a_o = a5_q;
  assign b_o = b5_q;
  assign c_o = c5_q;

  // ------------------------------------------------------------------------------------
  // What the caller promises.
  // ------------------------------------------------------------------------------------
`ifndef SYNTHESIS
  // The configuration: the banking needs a multiple of BANKS beats an instruction.
  if (!(BANKS == 1 || BANKS == 2 || BANKS == 4) || BEATS % BANKS != 0) begin : g_bad_banks
    initial $fatal(1, "sgpu_regfile: BANKS = %0d with %0d beats", BANKS, BEATS);
  end
  for (genvar p = 0; p < PORTS; p++) begin : g_port_checks
    // A port writes only its bank's beats.
    a_port_bank: assert property (@(posedge clk_i) disable iff (!rst_ni)
        wr_valid_i[p] |-> bank_of(wr_beat_i[p*BW +: BW]) == 2'(p));
  end
  // A slot's generation moves only when none of its reads is in flight: issued now or in
  // stages 1 to 3, whose tags are checked from the next cycle on (stage 4's were checked
  // now); a clear only when no read is.
  a_next_drained: assert property (@(posedge clk_i) disable iff (!rst_ni)
      next_i |-> !(rd_valid_i && rd_slot_i == next_slot_i)
                 && !(valid_q[1] && slot1_q == next_slot_i)
                 && !(valid_q[2] && slot2_q == next_slot_i)
                 && !(valid_q[3] && slot3_q == next_slot_i));
  a_clear_drained: assert property (@(posedge clk_i) disable iff (!rst_ni)
      clear_i |-> !rd_valid_i && valid_q[3:1] == '0);
  // Nothing is read or written while the file is swept, and no generation moves then.
  a_idle_sweep: assert property (@(posedge clk_i) disable iff (!rst_ni)
      sweep_q |-> !rd_valid_i && wr_valid_i == '0 && !next_i && !clear_i);
  // Each bank serves one read a cycle: the three reads in flight are of different banks.
  // Each RAM serves one read a cycle: no two reads in flight are in one copy of one bank.
  for (genvar o = 0; o < 3; o++) begin : g_read_checks
    for (genvar q = o + 1; q < 3; q++) begin : g_other
      a_one_read: assert property (@(posedge clk_i) disable iff (!rst_ni)
          !(rvalid[o] && rvalid[q] && rbank[2*o +: 2] == rbank[2*q +: 2]
            && copy_of(o) == copy_of(q)));
    end
  end
`endif

endmodule
