// The surface unit's arithmetic for one lane's access: given the instruction (SULD, SUST,
// SURED or SUQ), the surface's descriptor as read from the table and the lane's coordinate
// and data registers, it checks the descriptor, places the access and computes what the
// golden model computes in sim/src/surface.rs:
// - `Descriptor::decode`'s checks: a clear `valid` is an unbound surface, an unknown
//   geometry, kind or format, a zero dimension or one the geometry has not (other than 1)
//   a bad descriptor (TRAP_SURFACE);
// - `Descriptor::locate`: the geometry check, each coordinate's bounds with `.trap`, `.clamp`
//   or `.zero`, the access's end within the surface, the address's 64 bits and its alignment
//   to the access size, in that order (docs/hw.md, "Surfaces"), and the global address;
// - `pack`: the element `sust.p` writes, each channel's component in the format's encoding
//   (integer saturation, unorm and snorm scaling with rounding to nearest even, f16
//   rounding to nearest even, 0 for components the vector lacks);
// - `Descriptor::query`: what SUQ answers;
// - whether SURED's min and max compare as signed (`.s32`, `.s64`, or `.b32`/`.b64` on a
//   sint surface).
// The core reads the descriptor and the data, and performs SURED's read-modify-write on the
// memory port with sgpu_atom_alu; this module touches no memory. The handle's range (the
// launch's `surf_count`) is the core's check too, made before the descriptor is read.
//
// Two pipeline stages, one access a cycle: an access given with en_i has its results in the
// next cycle (valid_o); in the cycle after one without en_i valid_o is low and the other
// outputs mean nothing (pdata_o is zero), so the user keeps what it needs. The first stage
// decodes, checks the bounds, clamps, forms the products (layer or z) x slice and y x pitch,
// the sust.p element and the query; the second sums the offset, forms the surface's size
// slice x (depth or layers), and checks the end, the overflow and the alignment. The first
// stage's logic, and the pack's, rest at zero in a cycle without an access.
//
// It slices the fields from the instruction word and the descriptor at the places the ISA
// table fixes (sgpu_isa_pkg); the word is one the decoder accepts.
module sgpu_surface_unit (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic         en_i,       // an access this cycle
  input  logic [63:0]  instr_i,
  input  logic [255:0] desc_i,     // descriptor word i at [32*i +: 32]
  input  logic [95:0]  coord_i,    // the registers from ra in PTX's order, word i at [32*i +: 32]
                                   // (3d's fourth, w, is ignored)
  input  logic [127:0] comp_i,     // SUST.P's components, the registers from rc
  // Results of the access given the cycle before.
  output logic         valid_o,
  output logic         trap_o,     // the access traps, with cause_o
  output logic [7:0]   cause_o,    // TRAP_SURFACE or TRAP_MISALIGNED
  output logic         drop_o,     // `.zero` drops it: loads read zeros, nothing is written
  output logic [63:0]  addr_o,     // the global address it reads or writes
  output logic [2:0]   size_o,     // log2 of its bytes: 0 to 5
  output logic [127:0] pdata_o,    // SUST.P's element, channel 0 in the low bytes
  output logic [31:0]  query_o,    // SUQ's answer
  output logic         signed_o    // SURED's min and max compare as signed
);

  /////////////////////////////
  // The instruction's fields //
  /////////////////////////////

  logic [sgpu_isa_pkg::OP_MSB-sgpu_isa_pkg::OP_LSB:0] op;
  assign op = instr_i[sgpu_isa_pkg::OP_MSB:sgpu_isa_pkg::OP_LSB];

  logic is_suld, is_sust, is_sured, is_suq, elements;
  assign is_suld  = op == sgpu_isa_pkg::OP_SULD;
  assign is_sust  = op == sgpu_isa_pkg::OP_SUST;
  assign is_sured = op == sgpu_isa_pkg::OP_SURED;
  assign is_suq   = op == sgpu_isa_pkg::OP_SUQ;
  assign elements = instr_i[sgpu_isa_pkg::SFMT_LSB];  // .p

  logic [2:0] geom, sty, query;
  logic [1:0] vec, dsize, sclamp;
  assign geom   = instr_i[sgpu_isa_pkg::GEOM_MSB:sgpu_isa_pkg::GEOM_LSB];
  assign query  = instr_i[sgpu_isa_pkg::QUERY_MSB:sgpu_isa_pkg::QUERY_LSB];
  assign vec    = instr_i[sgpu_isa_pkg::VEC_MSB:sgpu_isa_pkg::VEC_LSB];
  assign dsize  = instr_i[sgpu_isa_pkg::DSIZE_MSB:sgpu_isa_pkg::DSIZE_LSB];
  assign sclamp = instr_i[sgpu_isa_pkg::SCLAMP_MSB:sgpu_isa_pkg::SCLAMP_LSB];
  assign sty    = instr_i[sgpu_isa_pkg::STY_MSB:sgpu_isa_pkg::STY_LSB];

  // The guard, the registers and the handle are the core's business.
  logic unused_instr;
  assign unused_instr = ^{instr_i[sgpu_isa_pkg::PGN_MSB:sgpu_isa_pkg::PGN_LSB],
                          instr_i[sgpu_isa_pkg::PG_MSB:sgpu_isa_pkg::PG_LSB],
                          instr_i[sgpu_isa_pkg::RD_MSB:sgpu_isa_pkg::RD_LSB],
                          instr_i[sgpu_isa_pkg::RA_MSB:sgpu_isa_pkg::RA_LSB],
                          instr_i[sgpu_isa_pkg::RB_MSB:sgpu_isa_pkg::RB_LSB],
                          instr_i[sgpu_isa_pkg::RC_MSB:sgpu_isa_pkg::RC_LSB],
                          instr_i[sgpu_isa_pkg::SH_LSB], instr_i[sgpu_isa_pkg::SOP_MSB:
                                                                 sgpu_isa_pkg::SOP_LSB],
                          instr_i[sgpu_isa_pkg::COP_MSB:sgpu_isa_pkg::COP_LSB]};

  ////////////////////
  // The descriptor //
  ////////////////////

  // Member M of `record surf`: word SURF_M_WORD's bits SURF_M_MSB:SURF_M_LSB.
  function automatic logic [31:0] member(logic [255:0] d, int unsigned word, int unsigned lsb,
                                         int unsigned msb);
    member = 32'((d[32*word +: 32] >> lsb) & 32'((33'd1 << (msb - lsb + 1)) - 33'd1));
  endfunction
  `define SURF_MEMBER(M) member(desc_i, sgpu_isa_pkg::SURF_``M``_WORD, \
                                sgpu_isa_pkg::SURF_``M``_LSB, sgpu_isa_pkg::SURF_``M``_MSB)

  logic [63:0] d_base;
  logic [31:0] d_pitch, d_slice;
  logic [15:0] d_width, d_height, d_depth, d_layers;
  logic [2:0]  d_geom, d_kind;
  logic [1:0]  d_ch, d_by;  // log2 of the channels and of a channel's bytes
  logic        d_valid;
  assign d_base   = {`SURF_MEMBER(BASE_HI), `SURF_MEMBER(BASE_LO)};
  assign d_pitch  = `SURF_MEMBER(PITCH);
  assign d_slice  = `SURF_MEMBER(SLICE);
  assign d_width  = 16'(`SURF_MEMBER(WIDTH));
  assign d_height = 16'(`SURF_MEMBER(HEIGHT));
  assign d_depth  = 16'(`SURF_MEMBER(DEPTH));
  assign d_layers = 16'(`SURF_MEMBER(LAYERS));
  assign d_geom   = 3'(`SURF_MEMBER(GEOM));
  assign d_kind   = 3'(`SURF_MEMBER(KIND));
  assign d_ch     = 2'(`SURF_MEMBER(CHANNELS));
  assign d_by     = 2'(`SURF_MEMBER(BYTES));
  assign d_valid  = 1'(`SURF_MEMBER(VALID));
  `undef SURF_MEMBER

  // Descriptor bits no member holds.
  logic unused_desc;
  assign unused_desc = ^{desc_i[32*(sgpu_isa_pkg::SURF_WORDS-1) +: 32],
                         desc_i[32*sgpu_isa_pkg::SURF_VALID_WORD + sgpu_isa_pkg::SURF_KIND_MSB + 1
                                +: sgpu_isa_pkg::SURF_VALID_LSB - sgpu_isa_pkg::SURF_KIND_MSB - 1]};

  // A coordinate outside its range (a signed 34-bit maximum), and its clamped value
  // (max(max, 0) above, 0 below).
  function automatic logic outside(logic [31:0] v, logic signed [33:0] max);
    outside = $signed(v) < 0 || 34'($signed(v)) > max;
  endfunction
  function automatic logic [20:0] clamped(logic [31:0] v, logic signed [33:0] max);
    if ($signed(v) < 0)               clamped = '0;
    else if (34'($signed(v)) > max)   clamped = (max < 0) ? '0 : max[20:0];
    else                              clamped = v[20:0];
  endfunction

  // The first stage's logic, which rests at zero in a cycle without an access (so that a
  // simulation of the core does not evaluate it in every cycle; hw/README.md).
  logic        format_ok, bad_desc, d_rows, d_deep, d_arrayed, wide, arrayed, out_any;
  logic        refused, dropped;
  logic [2:0]  esize, size;  // log2 of the element's and of the access's bytes
  logic [31:0] cx, cy, cz, cl, answer;
  logic signed [33:0] x_max, y_max, z_max, l_max;
  logic [20:0] fx, fy, fz, fl;  // x in bytes or elements: under width x 16
  logic [15:0] lz;
  always_comb begin
    {format_ok, bad_desc, d_rows, d_deep, d_arrayed, wide, arrayed, out_any} = '0;
    {refused, dropped, esize, size, cx, cy, cz, cl, answer} = '0;
    {x_max, y_max, z_max, l_max, fx, fy, fz, fl, lz} = '0;
    if (en_i) begin
      // The formats sgpu has: 1, 2 or 4 channels of 1, 2 or 4 bytes, as the kind comes.
      unique case (d_kind)
        3'(sgpu_isa_pkg::SURF_KIND_UINT), 3'(sgpu_isa_pkg::SURF_KIND_SINT):
          format_ok = d_by != 2'd3;
        3'(sgpu_isa_pkg::SURF_KIND_UNORM), 3'(sgpu_isa_pkg::SURF_KIND_SNORM):
          format_ok = d_by <= 2'd1;
        3'(sgpu_isa_pkg::SURF_KIND_FLOAT):
          format_ok = d_by == 2'd1 || d_by == 2'd2;
        default: format_ok = 1'b0;
      endcase

      // The dimensions the surface's geometry has; the others must be 1.
      d_deep    = d_geom == 3'(sgpu_isa_pkg::GEOM_3D);
      d_arrayed = d_geom == 3'(sgpu_isa_pkg::GEOM_A1D) || d_geom == 3'(sgpu_isa_pkg::GEOM_A2D);
      d_rows    = d_geom == 3'(sgpu_isa_pkg::GEOM_2D) || d_deep
                  || d_geom == 3'(sgpu_isa_pkg::GEOM_A2D);
      bad_desc  = d_geom > 3'(sgpu_isa_pkg::GEOM_A2D) || !format_ok || d_ch == 2'd3
                  || d_width == '0 || d_height == '0 || d_depth == '0 || d_layers == '0
                  || (!d_rows && d_height != 16'd1) || (!d_deep && d_depth != 16'd1)
                  || (!d_arrayed && d_layers != 16'd1);
      esize     = {1'b0, d_ch} + {1'b0, d_by};

      // The access's bytes: the vector's for .b, the element's for SUST.P, 4 or 8 for SURED
      // (vwidth and dsize number their sizes' logarithms).
      wide = sty == 3'(sgpu_isa_pkg::STY_U64) || sty == 3'(sgpu_isa_pkg::STY_S64)
             || sty == 3'(sgpu_isa_pkg::STY_B64);
      if (is_sured)                 size = wide ? 3'd3 : 3'd2;
      else if (is_sust && elements) size = esize;
      else                          size = {1'b0, vec} + {1'b0, dsize};

      // The registers in PTX's order: 1d {x}, 2d {x, y}, 3d {x, y, z, w}, a1d {layer, x},
      // a2d {layer, x, y, z}; coordinates the geometry has not are 0.
      arrayed = geom == 3'(sgpu_isa_pkg::GEOM_A1D) || geom == 3'(sgpu_isa_pkg::GEOM_A2D);
      cx      = arrayed ? coord_i[32 +: 32] : coord_i[0 +: 32];
      cl      = arrayed ? coord_i[0 +: 32] : '0;
      unique case (geom)
        3'(sgpu_isa_pkg::GEOM_2D), 3'(sgpu_isa_pkg::GEOM_3D): cy = coord_i[32 +: 32];
        3'(sgpu_isa_pkg::GEOM_A2D): cy = coord_i[64 +: 32];
        default: cy = '0;
      endcase
      cz = (geom == 3'(sgpu_isa_pkg::GEOM_3D)) ? coord_i[64 +: 32] : '0;

      // Ranges, as signed 34-bit numbers: x in bytes 0 ..= width x esize - size for .b
      // (below zero when the access is wider than a row), in elements 0 ..= width - 1 for
      // .p.
      x_max = elements ? 34'(d_width) - 34'sd1 : (34'(d_width) << esize) - (34'sd1 <<< size);
      y_max = 34'(d_height) - 34'sd1;
      z_max = 34'(d_depth) - 34'sd1;
      l_max = 34'(d_layers) - 34'sd1;
      out_any = outside(cx, x_max) || outside(cy, y_max) || outside(cz, z_max)
                || outside(cl, l_max);
      fx = clamped(cx, x_max);
      fy = clamped(cy, y_max);
      fz = clamped(cz, z_max);
      fl = clamped(cl, l_max);
      // The slice an access is in: its layer or its z, the other being 0 (the geometry check
      // refuses an access whose geometry is not the surface's).
      lz = arrayed ? fl[15:0] : fz[15:0];

      // What is refused before the address: SULD.P, the descriptor, the geometry, and a
      // coordinate out of range under .trap; .zero drops the access instead.
      refused = (is_suld && elements) || !d_valid || bad_desc
                || (!is_suq && (geom != d_geom
                                || (out_any && sclamp == 2'(sgpu_isa_pkg::SCLAMP_TRAP))));
      dropped = !is_suq && out_any && sclamp == 2'(sgpu_isa_pkg::SCLAMP_ZERO);

      // SUQ's answer.
      unique case (query)
        3'(sgpu_isa_pkg::QUERY_WIDTH):  answer = 32'(d_width);
        3'(sgpu_isa_pkg::QUERY_HEIGHT): answer = 32'(d_height);
        3'(sgpu_isa_pkg::QUERY_DEPTH):  answer = 32'(d_depth);
        // OpenCL's CL_SNORM_INT8 ... CL_FLOAT: each kind's codes run by channel size.
        3'(sgpu_isa_pkg::QUERY_CHANNEL_DATA_TYPE): begin
          unique case (d_kind)
            3'(sgpu_isa_pkg::SURF_KIND_SNORM): answer = 32'h10D0 + 32'(d_by);
            3'(sgpu_isa_pkg::SURF_KIND_UNORM): answer = 32'h10D2 + 32'(d_by);
            3'(sgpu_isa_pkg::SURF_KIND_SINT):  answer = 32'h10D7 + 32'(d_by);
            3'(sgpu_isa_pkg::SURF_KIND_UINT):  answer = 32'h10DA + 32'(d_by);
            default:                           answer = 32'h10DC + 32'(d_by);
          endcase
        end
        // CL_R, CL_RG, CL_RGBA.
        3'(sgpu_isa_pkg::QUERY_CHANNEL_ORDER):
          answer = (d_ch == 2'd0) ? 32'h10B0 : (d_ch == 2'd1) ? 32'h10B2 : 32'h10B5;
        3'(sgpu_isa_pkg::QUERY_ARRAY_SIZE): answer = d_arrayed ? 32'(d_layers) : '0;
        default: answer = 32'd1;  // memory layout: linear
      endcase
    end
  end
  logic unused_clamped;
  assign unused_clamped = ^{fy[20:16], fz[20:16], fl[20:16]};

  // SUST.P's element: two stages of its own, beside this module's.
  sgpu_surface_pack u_pack (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .en_i   (en_i),
    .comp_i (comp_i),
    .n_i    (vec),
    .ch_i   (d_ch),
    .by_i   (d_by),
    .kind_i (d_kind),
    .data_o (pdata_o)
  );

  ////////////////////////////////////
  // The register between the stages //
  ////////////////////////////////////

  logic         valid_q, placed_q, refused_q, dropped_q, signed_q;
  logic [47:0]  p_slice_q;  // (layer or z) x slice
  logic [47:0]  p_row_q;    // y x pitch
  logic [20:0]  x_bytes_q;
  logic [15:0]  slices_q;   // depth or layers, the other being 1
  logic [31:0]  slice_q;
  logic [63:0]  base_q;
  logic [2:0]   size_q;
  logic [31:0]  answer_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q   <= 1'b0;
      placed_q  <= 1'b0;
      refused_q <= 1'b0;
      dropped_q <= 1'b0;
      signed_q  <= 1'b0;
      p_slice_q <= '0;
      p_row_q   <= '0;
      x_bytes_q <= '0;
      slices_q  <= '0;
      slice_q   <= '0;
      base_q    <= '0;
      size_q    <= '0;
      answer_q  <= '0;
    end else begin
      valid_q <= en_i;
      if (en_i) begin
        placed_q  <= !is_suq;  // SUQ reads only the descriptor
        refused_q <= refused;
        dropped_q <= dropped;
        // .b32 and .b64 take their signedness from the format.
        signed_q  <= sty == 3'(sgpu_isa_pkg::STY_S32) || sty == 3'(sgpu_isa_pkg::STY_S64)
                     || ((sty == 3'(sgpu_isa_pkg::STY_B32) || sty == 3'(sgpu_isa_pkg::STY_B64))
                         && d_kind == 3'(sgpu_isa_pkg::SURF_KIND_SINT));
        p_slice_q <= 48'(lz) * 48'(d_slice);
        p_row_q   <= 48'(fy[15:0]) * 48'(d_pitch);
        x_bytes_q <= elements ? fx << esize : fx;
        slices_q  <= d_deep ? d_depth : d_layers;
        slice_q   <= d_slice;
        base_q    <= d_base;
        size_q    <= size;
        answer_q  <= answer;
      end
    end
  end

  //////////////////////////////////////////
  // Second stage: end, overflow, alignment //
  //////////////////////////////////////////

  logic [49:0] offset;
  logic [63:0] bytes;
  logic [64:0] address;
  logic        past_end, overflow, misaligned;
  // Not gated by valid_q, as the first stage is by en_i: an AND on the way out would be one
  // more level on the unit's longest path (the end check after the size's product), 6% of
  // its clock.
  assign offset     = 50'(p_slice_q) + 50'(p_row_q) + 50'(x_bytes_q);
  assign bytes      = 64'(slice_q) * 64'(slices_q);
  assign past_end   = 64'(offset) + (64'd1 << size_q) > bytes;
  assign address    = 65'(base_q) + 65'(offset);
  assign overflow   = address[64];
  assign misaligned = (address[5:0] & ((6'd1 << size_q) - 6'd1)) != '0;

  assign valid_o  = valid_q;
  assign drop_o   = !refused_q && dropped_q;
  assign trap_o   = refused_q || (placed_q && !dropped_q && (past_end || overflow || misaligned));
  assign cause_o  = (refused_q || past_end || overflow) ? 8'(sgpu_isa_pkg::TRAP_SURFACE)
                                                        : 8'(sgpu_isa_pkg::TRAP_MISALIGNED);
  assign addr_o   = address[63:0];
  assign size_o   = size_q;
  assign query_o  = answer_q;
  assign signed_o = signed_q;

endmodule
