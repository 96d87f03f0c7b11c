// Where one lane's load, store or atomic goes (LD, ST, LDC, ATOM, RED): the effective address
// (a register plus the signed 24-bit offset of LD, ST and LDC, wrapping at 2^32; or a register
// pair with `e` plus the offset, wrapping at 2^64), its size (an atomic's by its type), and the
// memory-port space and address it resolves to (docs/hw.md, "Memory map"): a generic address
// through the shared, local and constant windows, a local one (and a device function's
// `.param`) moved by the thread's frame start unless ABS, constant bank 0 and 1 for LDC.
// Also the faults the core raises before asking memory, in the golden model's order: no such
// constant bank, a misaligned address, a local access past the thread's local memory, a store
// to constant memory. Combinational; with en_i low every output is zero and the adders and
// comparators rest (operand isolation: a simulation skips them outside memory accesses).
//
// Package names are written out in full (sgpu_isa_pkg::) rather than imported, and the enumerated
// fields are plain bit vectors compared with the package's members rather than cast to its
// types, so that yosys reads the module as Verilator does.
module sgpu_lsu_addr (
  input  logic        en_i,           // an access is being issued
  input  logic [63:0] word_i,
  input  logic [31:0] ra_i,
  input  logic [31:0] ra_hi_i,        // ra + 1, the high word with `e`
  input  logic [31:0] frame_i,        // the thread's frame start
  input  logic [31:0] local_i,        // local bytes per thread
  output logic [63:0] addr_o,         // the effective address
  output logic [4:0]  len_o,          // bytes: 1, 2, 4, 8 or 16
  output logic [2:0]  space_o,        // PORT_*
  output logic [63:0] at_o,           // the address within that space
  output logic        write_o,
  output logic        misaligned_o,
  output logic        outside_o,
  output logic        const_write_o,
  output logic        no_bank_o
);

  logic [7:0]  opcode;
  logic        ldc, atomic;
  logic [63:0] off, sum;
  logic        wide;

  assign opcode  = word_i[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB];
  assign ldc     = opcode == sgpu_isa_pkg::OP_LDC;
  assign atomic  = opcode == sgpu_isa_pkg::OP_ATOM || opcode == sgpu_isa_pkg::OP_RED;
  assign write_o = opcode == sgpu_isa_pkg::OP_ST;
  always_comb begin
    {off, sum, wide, addr_o} = '0;
    if (en_i) begin
      off    = atomic ? '0
             : 64'(signed'(word_i[sgpu_isa_pkg::OFF24_MSB:sgpu_isa_pkg::OFF24_LSB]));
      // One adder: a 32-bit address wraps at 2^32 (docs/isa.md, "Addresses"), so its sum's
      // high word is dropped; a pair's wraps at 2^64.
      wide   = word_i[sgpu_isa_pkg::E_LSB] && !ldc;
      sum    = {wide ? ra_hi_i : 32'd0, ra_i} + off;
      addr_o = {wide ? sum[63:32] : 32'd0, sum[31:0]};
    end
  end

  always_comb begin
    if (!en_i) begin
      len_o = '0;
    end else if (atomic) begin
      unique case (word_i[sgpu_isa_pkg::ATY_MSB:sgpu_isa_pkg::ATY_LSB])
        sgpu_isa_pkg::ATY_U64, sgpu_isa_pkg::ATY_S64, sgpu_isa_pkg::ATY_B64: len_o = 5'd8;
        sgpu_isa_pkg::ATY_F16, sgpu_isa_pkg::ATY_BF16:                       len_o = 5'd2;
        default:                                                             len_o = 5'd4;
      endcase
    end else begin
      unique case (word_i[sgpu_isa_pkg::MSIZE_MSB:sgpu_isa_pkg::MSIZE_LSB])
        sgpu_isa_pkg::MSIZE_U8, sgpu_isa_pkg::MSIZE_S8:   len_o = 5'd1;
        sgpu_isa_pkg::MSIZE_U16, sgpu_isa_pkg::MSIZE_S16: len_o = 5'd2;
        sgpu_isa_pkg::MSIZE_32:                           len_o = 5'd4;
        sgpu_isa_pkg::MSIZE_64:                           len_o = 5'd8;
        default:                                          len_o = 5'd16;
      endcase
    end
  end

  function automatic logic in_window(logic [63:0] a, longint unsigned window);
    in_window = a >= 64'(window) && a < 64'(window) + 64'(sgpu_isa_pkg::WINDOW_SIZE);
  endfunction

  // The space, the address in it, and whether it counts from the frame start.
  logic       in_frame;
  logic [63:0] at;
  always_comb begin
    space_o  = 3'(sgpu_isa_pkg::PORT_GLOBAL);
    at       = addr_o;
    in_frame = 1'b0;
    if (!en_i) begin
      space_o = '0;
    end else if (ldc) begin
      space_o = (word_i[sgpu_isa_pkg::CBANK_MSB:sgpu_isa_pkg::CBANK_LSB] == '0)
              ? 3'(sgpu_isa_pkg::PORT_PARAM) : 3'(sgpu_isa_pkg::PORT_CONSTANT);
    end else begin
      unique case (word_i[sgpu_isa_pkg::SPACE_MSB:sgpu_isa_pkg::SPACE_LSB])
        sgpu_isa_pkg::SPACE_GENERIC: begin
          if (in_window(addr_o, sgpu_isa_pkg::SHARED_WINDOW)) begin
            space_o = 3'(sgpu_isa_pkg::PORT_SHARED);
            at      = addr_o - 64'(sgpu_isa_pkg::SHARED_WINDOW);
          end else if (in_window(addr_o, sgpu_isa_pkg::LOCAL_WINDOW)) begin
            space_o = 3'(sgpu_isa_pkg::PORT_LOCAL);
            at      = addr_o - 64'(sgpu_isa_pkg::LOCAL_WINDOW);
          end else if (in_window(addr_o, sgpu_isa_pkg::CONST_WINDOW)) begin
            space_o = 3'(sgpu_isa_pkg::PORT_CONSTANT);
            at      = addr_o - 64'(sgpu_isa_pkg::CONST_WINDOW);
          end
        end
        sgpu_isa_pkg::SPACE_SHARED: space_o = 3'(sgpu_isa_pkg::PORT_SHARED);
        sgpu_isa_pkg::SPACE_LOCAL, sgpu_isa_pkg::SPACE_PARAM: begin
          space_o  = 3'(sgpu_isa_pkg::PORT_LOCAL);
          in_frame = atomic || !word_i[sgpu_isa_pkg::LABS_LSB];
        end
        default: ;  // global
      endcase
    end
  end

  // A local access lies within the thread's local memory, its frame start added, in
  // arithmetic that cannot wrap.
  logic [65:0] local_end;
  logic [64:0] local_at;
  always_comb begin
    {local_at, local_end, at_o, no_bank_o, misaligned_o, outside_o, const_write_o} = '0;
    if (en_i) begin
      local_at  = {1'b0, at} + (in_frame ? 65'(frame_i) : 65'd0);
      local_end = {1'b0, local_at} + 66'(len_o);
      at_o      = (space_o == 3'(sgpu_isa_pkg::PORT_LOCAL)) ? local_at[63:0] : at;

      no_bank_o     = ldc && word_i[sgpu_isa_pkg::CBANK_MSB:sgpu_isa_pkg::CBANK_LSB] > 4'd1;
      misaligned_o  = (addr_o & (64'(len_o) - 64'd1)) != '0;
      outside_o     = space_o == 3'(sgpu_isa_pkg::PORT_LOCAL) && local_end > 66'(local_i);
      const_write_o = write_o && space_o == 3'(sgpu_isa_pkg::PORT_CONSTANT);
    end
  end

endmodule
