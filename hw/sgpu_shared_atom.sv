// Core v2's shared-memory atomics (docs/adr/0008-core-v2-pipeline.md, "Memory"): ATOM and
// RED on shared memory, performed beside it. A beat's lanes run one after another, lowest
// first, as the golden model's lanes do (sim/src/exec/mem.rs, `atomic`): each reads its old
// value through sgpu_shared_mem, computes the new one (`sgpu_atom_alu` for the integer and
// bit operations, `sgpu_atom_float` for add on f32 and add, min and max on the 16-bit floats
// and their pairs), writes it back and keeps the old value for its answer. An atomic is
// rare and its lanes are serial by nature where they share a word, so one lane at a time
// is the whole design: about ten cycles a lane (docs/hw.md gives the count), no
// forwarding, and the next lane's read is a beat behind the last one's write.
//
// Its requests to the shared memory use lane 0 of a beat, one word each (a 64-bit atomic
// reads and writes its two words as two beats); `m_read_o` marks the beats whose answers
// it wants, and the one that connects it to the memory hands back only those answers
// (`m_rsp_valid_i`), in order. A lane's data moves down a shift register, one lane a step,
// so that the lane at work is always at position 0 and no lane is chosen by index.
module sgpu_shared_atom #(
  parameter int unsigned LANES = 8,
  parameter int unsigned BYTES = 49152,  // the ABI's SHARED_MAX
  localparam int unsigned WW = $clog2(BYTES / 4),  // a word's index
  localparam int unsigned AW = WW + 2,             // a byte's address
  localparam int unsigned CW = $clog2(LANES + 1)   // a count of lanes
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,

  input  logic                 req_valid_i,
  output logic                 req_ready_o,
  input  sgpu_isa_pkg::aop_e   req_aop_i,
  input  sgpu_isa_pkg::aty_e   req_aty_i,
  input  logic [LANES-1:0]     req_lanes_i,
  input  logic [LANES*AW-1:0]  req_addr_i,  // lane l's byte address, aligned to the size
  input  logic [LANES*64-1:0]  req_b_i,
  input  logic [LANES*64-1:0]  req_c_i,     // cas's swap value

  output logic                 rsp_valid_o,
  output logic [LANES*64-1:0]  rsp_old_o,   // each lane's old value, zero-extended

  output logic                 m_valid_o,
  input  logic                 m_ready_i,
  output logic                 m_write_o,
  output logic                 m_read_o,    // a read: its answer comes back
  output logic [WW-1:0]        m_word_o,
  output logic [3:0]           m_bytes_o,
  output logic [31:0]          m_wdata_o,
  input  logic                 m_rsp_valid_i,
  input  logic [31:0]          m_rsp_rdata_i
);

  typedef enum logic [2:0] {
    S_IDLE,   // no beat
    S_STEP,   // the lane at position 0: performed if it takes part, else passed
    S_READ,   // its word (words) asked for
    S_WAIT,   // their answers
    S_CALC,   // the new value
    S_WRITE,  // the new value written, word by word
    S_NEXT    // every lane down one position; the answer after the last
  } state_e;
  state_e state_q, state_d;

  // The beat: its operation, and its lanes in shift registers (position 0 at work).
  sgpu_isa_pkg::aop_e  aop_q;
  sgpu_isa_pkg::aty_e  aty_q;
  logic [LANES-1:0]    lanes_q;
  logic [LANES*AW-1:0] addr_q;
  logic [LANES*64-1:0] b_q, c_q, old_q;
  logic [CW-1:0]       left_q;   // positions still to step through
  logic                hi_q;     // the second word of a 64-bit lane is the next asked for
  logic                rhi_q;    // and the next answered
  logic                have_q;   // every word of the lane has been answered
  logic [63:0]         got_q;   // the lane's old value as read, zero-extended
  logic [63:0]         new_q;    // and as written

  // The lane at position 0.
  logic [AW-1:0] addr;
  logic [63:0]   b, c;
  logic          unused_addr;  // an atomic is at least two bytes, aligned
  assign addr = addr_q[0 +: AW];
  assign unused_addr = addr[0];
  assign b    = b_q[0 +: 64];
  assign c    = c_q[0 +: 64];

  logic wide, half, float_op;
  assign wide = aty_q == sgpu_isa_pkg::ATY_U64 || aty_q == sgpu_isa_pkg::ATY_S64
                || aty_q == sgpu_isa_pkg::ATY_B64;
  assign half = aty_q == sgpu_isa_pkg::ATY_F16 || aty_q == sgpu_isa_pkg::ATY_BF16;
  assign float_op = (aty_q == sgpu_isa_pkg::ATY_F32 && aop_q == sgpu_isa_pkg::AOP_ADD)
      || ((half || aty_q == sgpu_isa_pkg::ATY_F16X2 || aty_q == sgpu_isa_pkg::ATY_BF16X2)
          && (aop_q == sgpu_isa_pkg::AOP_ADD || aop_q == sgpu_isa_pkg::AOP_MIN
              || aop_q == sgpu_isa_pkg::AOP_MAX));

  // The old value as the model reads it: 2, 4 or 8 bytes, zero-extended (got_q holds it so,
  // cut from the answers as they come); the operands cut to the same bytes (lane::atom
  // masks them so).
  logic [63:0] size_mask, old;
  assign size_mask = wide ? '1 : half ? 64'h0000_0000_0000_ffff : 64'h0000_0000_ffff_ffff;
  assign old = got_q;

  // The integer unit's register takes the operands at the end of S_WAIT's last cycle (when
  // got_q holds both words), so its new value is there in S_CALC.
  logic [63:0] int_new;
  sgpu_atom_alu #(.REGISTERED(1'b1)) u_alu (
    .clk_i,
    .aop_i (aop_q),
    .aty_i (aty_q),
    .wide_i(wide),
    .old_i (old),
    .b_i   (b & size_mask),
    .c_i   (c & size_mask),
    .new_o (int_new)
  );

  logic        float_start_q, float_done;
  logic [31:0] float_new;
  sgpu_atom_float u_float (
    .clk_i,
    .rst_ni,
    .start_i(float_start_q),
    .aop_i  (aop_q),
    .aty_i  (aty_q),
    .old_i  (old[31:0]),
    .b_i    (b[31:0]),
    .done_o (float_done),
    .new_o  (float_new)
  );

  // The memory requests: the lane's word, then for a 64-bit lane the one after it.
  assign m_valid_o = state_q == S_READ || state_q == S_WRITE;
  assign m_write_o = state_q == S_WRITE;
  assign m_read_o  = state_q == S_READ;
  assign m_word_o  = addr[AW-1:2] + WW'(hi_q);
  assign m_bytes_o = !half ? 4'hf : addr[1] ? 4'b1100 : 4'b0011;
  assign m_wdata_o = hi_q ? new_q[63:32] : half ? {2{new_q[15:0]}} : new_q[31:0];

  logic   calc_done;  // the new value is in new_q
  assign calc_done = !float_op || float_done;

  always_comb begin
    state_d = state_q;
    unique case (state_q)
      S_IDLE:  if (req_valid_i) state_d = S_STEP;
      S_STEP:  state_d = left_q == '0 ? S_IDLE : lanes_q[0] ? S_READ : S_NEXT;
      S_READ:  if (m_ready_i && (hi_q || !wide)) state_d = S_WAIT;
      S_WAIT:  if (have_q) state_d = S_CALC;
      S_CALC:  if (calc_done && !float_start_q) state_d = S_WRITE;
      S_WRITE: if (m_ready_i && (hi_q || !wide)) state_d = S_NEXT;
      S_NEXT:  state_d = S_STEP;
      default: state_d = S_IDLE;
    endcase
  end
  assign req_ready_o = state_q == S_IDLE;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q       <= S_IDLE;
      rsp_valid_o   <= 1'b0;
      float_start_q <= 1'b0;
    end else begin
      state_q       <= state_d;
      rsp_valid_o   <= state_q == S_STEP && left_q == '0;
      float_start_q <= state_q == S_WAIT && state_d == S_CALC && float_op;
    end
  end

  always_ff @(posedge clk_i) begin
    unique case (state_q)
      S_IDLE: begin
        aop_q   <= req_aop_i;
        aty_q   <= req_aty_i;
        lanes_q <= req_lanes_i;
        addr_q  <= req_addr_i;
        b_q     <= req_b_i;
        c_q     <= req_c_i;
        left_q  <= CW'(LANES);
        hi_q    <= 1'b0;
      end
      S_READ, S_WRITE: if (m_ready_i) hi_q <= wide && !hi_q;
      S_STEP: begin
        rhi_q  <= 1'b0;
        have_q <= 1'b0;
      end
      S_CALC: new_q <= float_op ? {32'd0, float_new} : int_new;
      S_NEXT: begin
        // Every lane one position down; the old value of the lane just passed goes in at
        // the top, so that after LANES steps each lane's is at its own position.
        lanes_q <= lanes_q >> 1;
        addr_q  <= addr_q >> AW;
        b_q     <= b_q >> 64;
        c_q     <= c_q >> 64;
        left_q  <= left_q - CW'(1);
      end
      default: ;
    endcase
    // The answers, which may come while the second word is still asked for.
    if (m_rsp_valid_i) begin
      if (rhi_q) got_q[63:32] <= m_rsp_rdata_i;
      else if (half) got_q <= {48'd0, addr[1] ? m_rsp_rdata_i[31:16] : m_rsp_rdata_i[15:0]};
      else got_q <= {32'd0, m_rsp_rdata_i};
      rhi_q  <= wide && !rhi_q;
      have_q <= !wide || rhi_q;
    end
  end
  logic [63:0] passed_old;  // the old value of the lane leaving position 0
  assign passed_old = lanes_q[0] ? old : 64'd0;
  if (LANES == 1) begin : g_one
    always_ff @(posedge clk_i) if (state_q == S_NEXT) old_q <= passed_old;
  end else begin : g_many
    always_ff @(posedge clk_i) begin
      if (state_q == S_NEXT) old_q <= {passed_old, old_q[LANES*64-1:64]};
    end
  end
  assign rsp_old_o = old_q;

`ifndef SYNTHESIS
  // The memory's answers come only for the reads asked for.
  a_answer_asked: assert property (@(posedge clk_i) disable iff (!rst_ni)
      m_rsp_valid_i |-> state_q == S_READ || state_q == S_WAIT && !have_q);
  a_float_done: assert property (@(posedge clk_i) disable iff (!rst_ni)
      float_done |-> state_q == S_CALC);
`endif

endmodule
