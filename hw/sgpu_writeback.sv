// Core v2's write-back (docs/adr/0008-core-v2-pipeline.md, "Write-back"): the write ports of
// the register file and the predicate file, one a bank (port k writes the beats whose
// number is k mod BANKS), shared by the lanes and by the units whose results come when
// they come (SOURCES of them: the memory's answers, the shared units).
//
// The lanes write a fixed number of cycles after issue, one beat a cycle, and never wait:
// their write (`ln_*`) takes its bank's port in the cycle it comes. Beats issue in
// consecutive cycles and consecutive beats are in different banks (two banks or more), so
// in any cycle the lanes use one port at most and the others are free; each cycle the
// write-back gives one source's beat (`src_*`, held until `src_ready_o`) the port of its
// bank if the lanes leave it free, the sources taken in round-robin order among those that
// can go. So a source's beat waits for the lanes only when it is in the lanes' bank of the
// moment: with two banks at most a cycle a pass of the lanes, and the issue never stalls
// for a write. With one bank (32 lanes) a source's beat waits for a cycle the lanes do not
// write; `starved_o` says that one has waited STARVE cycles, for the issue to leave a gap
// (with two banks or more a beat waits two cycles a source at most, and it never comes).
//
// One source a cycle, so that the scoreboard's two done ports (`done_*`: port 0 the lanes',
// port 1 the source's) serve every instruction that ends; a source's beat says whether it
// ends its instruction, with its warp and scoreboard entry.
module sgpu_writeback #(
  parameter int unsigned LANES = 8,
  parameter int unsigned WARPS = 8,
  parameter int unsigned BANKS = 2,
  parameter int unsigned RW = 10,        // a register row's bits (sgpu_regfile's)
  parameter int unsigned ENTRIES = 4,    // sgpu_scoreboard's
  parameter int unsigned SOURCES = 2,
  parameter int unsigned STARVE = 16,    // cycles a source waits before starved_o
  localparam int unsigned BEATS = 32 / LANES,
  localparam int unsigned BW    = (BEATS > 1) ? $clog2(BEATS) : 1,
  localparam int unsigned SW    = (WARPS > 1) ? $clog2(WARPS) : 1,
  localparam int unsigned EW    = (ENTRIES > 1) ? $clog2(ENTRIES) : 1,
  localparam int unsigned CW    = (SOURCES > 1) ? $clog2(SOURCES) : 1,
  localparam int unsigned PW    = 8 * LANES,
  // A beat's write: {end, entry valid, entry, predicate write (valid, old, mask, bits),
  // register write (valid, row, data), lanes, slot, beat}, as `beat_t` below packs it.
  localparam int unsigned XW    = 1 + 1 + EW + 1 + PW + 8 + PW + 1 + RW + 32 * LANES
                                  + LANES + SW + BW
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,

  // The lanes' beat (sgpu_lanes' write-back).
  input  logic [XW-1:0]          ln_i,
  input  logic                   ln_valid_i,

  // The sources' beats: source s's at [s*XW +: XW].
  input  logic [SOURCES-1:0]     src_valid_i,
  input  logic [SOURCES*XW-1:0]  src_i,
  output logic [SOURCES-1:0]     src_ready_o,
  output logic                   starved_o,

  // The register file's write ports (port k's fields at [k] or [k*W +: W]) ...
  output logic [BANKS-1:0]       wr_valid_o,
  output logic [BANKS*SW-1:0]    wr_slot_o,
  output logic [BANKS*BW-1:0]    wr_beat_o,
  output logic [BANKS*RW-1:0]    wr_row_o,
  output logic [BANKS*LANES-1:0] wr_lanes_o,
  output logic [BANKS*32*LANES-1:0] wr_data_o,
  // ... the predicate file's (its lanes the register port's: a beat writes the same lanes
  // of both) ...
  output logic [BANKS-1:0]       pwr_valid_o,
  output logic [BANKS*PW-1:0]    pwr_old_o,
  output logic [BANKS*8-1:0]     pwr_mask_o,
  output logic [BANKS*PW-1:0]    pwr_bits_o,
  // ... and the scoreboard's done ports: 0 the lanes', 1 the source's.
  output logic [1:0]             done_o,
  output logic [2*SW-1:0]        done_warp_o,
  output logic [2*EW-1:0]        done_entry_o
);

  typedef struct packed {
    logic              last;         // the instruction's last beat
    logic              entry_valid;  // it holds a scoreboard entry
    logic [EW-1:0]     entry;
    logic              pvalid;
    logic [PW-1:0]     pold;
    logic [7:0]        pmask;
    logic [PW-1:0]     pbits;
    logic              rvalid;
    logic [RW-1:0]     row;
    logic [32*LANES-1:0] data;
    logic [LANES-1:0]  lanes;
    logic [SW-1:0]     slot;
    logic [BW-1:0]     beat;
  } beat_t;

  beat_t ln;
  assign ln = ln_i;

  // A beat's bank.
  function automatic logic [BANKS-1:0] bank_of(logic [BW-1:0] beat);
    bank_of = BANKS'(1) << (32'(beat) % BANKS);
  endfunction

  logic [BANKS-1:0] ln_bank;
  assign ln_bank = ln_valid_i ? bank_of(ln.beat) : '0;

  // The sources that can go this cycle: their bank's port is not the lanes'.
  logic [SOURCES-1:0] can_go;
  for (genvar s = 0; s < SOURCES; s++) begin : g_can
    // The beat number is a record's lowest field.
    assign can_go[s] = src_valid_i[s] && (bank_of(src_i[s*XW +: BW]) & ln_bank) == '0;
  end

  logic          any;
  logic [CW-1:0] pick, last_q;
  sgpu_round_robin #(.N(SOURCES)) u_pick (
    .req_i (can_go),
    .last_i(last_q),
    .any_o (any),
    .pick_o(pick)
  );

  beat_t src;
  always_comb begin
    src = src_i[0 +: XW];
    for (int unsigned s = 1; s < SOURCES; s++) begin
      if (pick == CW'(s)) src = src_i[s*XW +: XW];
    end
  end
  logic [BANKS-1:0] src_bank;
  assign src_bank = any ? bank_of(src.beat) : '0;

  always_comb begin
    src_ready_o = '0;
    if (any) src_ready_o[pick] = 1'b1;
  end

  // Each port: the lanes' beat if it is in the port's bank, else the source's. (Fields
  // chosen one by one: yosys 0.23 cannot size a struct declared in a generate block.)
  for (genvar k = 0; k < BANKS; k++) begin : g_port
    logic ln_here;
    assign ln_here = ln_bank[k];
    assign wr_valid_o[k]                = ln_here ? ln.rvalid : src_bank[k] && src.rvalid;
    assign wr_slot_o[k*SW +: SW]        = ln_here ? ln.slot : src.slot;
    assign wr_beat_o[k*BW +: BW]        = ln_here ? ln.beat : src.beat;
    assign wr_row_o[k*RW +: RW]         = ln_here ? ln.row : src.row;
    assign wr_lanes_o[k*LANES +: LANES] = ln_here ? ln.lanes : src.lanes;
    assign wr_data_o[k*32*LANES +: 32*LANES] = ln_here ? ln.data : src.data;
    assign pwr_valid_o[k]               = ln_here ? ln.pvalid : src_bank[k] && src.pvalid;
    assign pwr_old_o[k*PW +: PW]        = ln_here ? ln.pold : src.pold;
    assign pwr_mask_o[k*8 +: 8]         = ln_here ? ln.pmask : src.pmask;
    assign pwr_bits_o[k*PW +: PW]       = ln_here ? ln.pbits : src.pbits;
  end

  assign done_o       = {any && src.last && src.entry_valid,
                         ln_valid_i && ln.last && ln.entry_valid};
  assign done_warp_o  = {src.slot, ln.slot};
  assign done_entry_o = {src.entry, ln.entry};

  // How long each source's beat of the moment has waited, up to STARVE.
  localparam int unsigned TW = $clog2(STARVE + 1);
  logic [SOURCES-1:0] starved;
  for (genvar s = 0; s < SOURCES; s++) begin : g_wait
    logic [TW-1:0] waited_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        waited_q <= '0;
      end else if (!src_valid_i[s] || src_ready_o[s]) begin
        waited_q <= '0;
      end else if (waited_q != TW'(STARVE)) begin
        waited_q <= waited_q + TW'(1);
      end
    end
    assign starved[s] = waited_q == TW'(STARVE);
  end
  assign starved_o = starved != '0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) last_q <= '0;
    else if (any) last_q <= pick;
  end

`ifndef SYNTHESIS
  // The lanes' beat and the source's never share a port.
  a_ports_apart: assert property (@(posedge clk_i) disable iff (!rst_ni)
      (ln_bank & src_bank) == '0);
`endif

endmodule
