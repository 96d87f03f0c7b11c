// SUST.P's element: each of the format's channels takes the component of its number from
// the registers (0 where the vector has fewer), encoded as the golden model's
// `surface::encode` does, and the channels are packed little-endian, channel 0 first:
// - uint, sint: the 32-bit integer saturated to the channel's 8 or 16 bits (32 as is);
// - unorm: the f32 clamped to [0, 1] (NaN as 0), times 255 or 65535, rounded to nearest
//   even;
// - snorm: the f32 clamped to [-1, 1] (NaN as 0), times 127 or 32767, rounded to nearest
//   even;
// - float: f16 rounded to nearest even (NaN as 0x7fff, overflow to infinity), f32 as is.
//
// Two stages, as sgpu_surface_unit's: the element of the components given with en_i comes
// in the next cycle, and only then (zero in the cycle after one without en_i); each stage's
// logic rests at zero when it has nothing to do. Every rounding is one job, "shift `sig` right by `sh` and round to
// nearest even", which the first stage sets up for each channel and the second does:
// - unorm and snorm: sig = the 24-bit significand times the scale 2^k - 1 (a shift and a
//   subtraction, 40 bits), sh = 150 - exponent, for |x| in [2^-126, 1); a negative snorm's
//   result is negated;
// - f16, normal: sig = {the f16 exponent, the 23 fraction bits}, sh = 13, so that a
//   rounding carry moves into the exponent, up to infinity;
// - f16, subnormal: sig = the 24-bit significand, sh = 126 - exponent (14 or more);
// - every other case (integers, f32, NaN, zeros, |x| >= 1, f16 overflow) is its result
//   already, in sig with no shift and no rounding.
module sgpu_surface_pack (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic         en_i,
  input  logic [127:0] comp_i,  // component i at [32*i +: 32]
  input  logic [1:0]   n_i,     // log2 of the components given (the vwidth field)
  input  logic [1:0]   ch_i,    // log2 of the format's channels
  input  logic [1:0]   by_i,    // log2 of a channel's bytes
  input  logic [2:0]   kind_i,  // surf_kind_*
  output logic [127:0] data_o   // of the components given the cycle before
);

  // An integer channel: the 32-bit value saturated to 8 or 16 bits (unsigned or signed), or
  // as is.
  function automatic logic [31:0] saturated(logic [31:0] v, logic [1:0] by, logic signed_fmt);
    if (by == 2'd2)       saturated = v;
    else if (!signed_fmt) saturated = (by == 2'd0) ? ((v > 32'hff) ? 32'hff : v)
                                                   : ((v > 32'hffff) ? 32'hffff : v);
    else if (by == 2'd0)  saturated = ($signed(v) > 127) ? 32'h7f
                                    : ($signed(v) < -128) ? 32'h80 : {24'b0, v[7:0]};
    else                  saturated = ($signed(v) > 32767) ? 32'h7fff
                                    : ($signed(v) < -32768) ? 32'h8000 : {16'b0, v[15:0]};
  endfunction

  // f32's and f16's exponent biases and f32's fraction bits.
  localparam int unsigned BIAS = 127;
  localparam int unsigned HALF_BIAS = 15;
  localparam int unsigned FRAC = 23;

  logic unorm, snorm, float;
  assign unorm = kind_i == 3'(sgpu_isa_pkg::SURF_KIND_UNORM);
  assign snorm = kind_i == 3'(sgpu_isa_pkg::SURF_KIND_SNORM);
  assign float = kind_i == 3'(sgpu_isa_pkg::SURF_KIND_FLOAT);
  // The scale of unorm and snorm, 2^k - 1: 255, 65535, 127 or 32767.
  logic [4:0]  k;
  logic [16:0] scale;
  assign k     = (by_i[0] ? 5'd16 : 5'd8) - 5'(snorm);
  assign scale = (17'd1 << k) - 17'd1;

  // Each channel's job (`sig`, `sh`, `round`, `negate`, `sign`), then the register that
  // holds it.
  logic [39:0] sig_q [4];
  logic [5:0]  sh_q [4];
  logic [3:0]  round_q, negate_q, sign_q;
  logic [1:0]  ch_q, by_q;
  for (genvar c = 0; c < 4; c++) begin : gen_channel
    logic [31:0] x;
    logic [7:0]  e, s_norm, s_half;
    logic [39:0] sig, m;
    logic [5:0]  sh;
    logic        round, negate, sign, nan;
    always_comb begin
      {x, e, s_norm, s_half, m, nan} = '0;
      sig    = '0;
      sh     = '0;
      round  = 1'b0;
      negate = 1'b0;
      sign   = 1'b0;
      if (en_i) begin
        // Channels past the vector's components take 0.
        x      = (c < (1 << n_i)) ? comp_i[32*c +: 32] : '0;
        e      = x[30:23];
        nan    = e == 8'hff && x[22:0] != '0;
        m      = {16'b0, 1'b1, x[22:0]};
        s_norm = 8'(BIAS + FRAC) - e;
        s_half = 8'(BIAS - 1) - e;
        if (unorm || snorm) begin
          negate = snorm && x[31];
          if (nan || (x[31] && unorm) || e == 8'h00) begin
            sig = '0;  // NaN, negative unorm, zeros and subnormals
          end else if (e >= 8'(BIAS)) begin
            sig = {23'b0, scale};  // |x| >= 1, infinity
          end else begin
            sig   = (m << k) - m;
            sh    = (s_norm > 8'd63) ? 6'd63 : 6'(s_norm);
            round = 1'b1;
          end
        end else if (float && by_i == 2'd1) begin
          sign = x[31] && !nan;
          if (nan) begin
            sig = 40'h7fff;  // the canonical NaN
          end else if (e > 8'(BIAS + HALF_BIAS)) begin
            sig = 40'h7c00;  // 2^16 and above: infinity
          end else if (e >= 8'(BIAS - HALF_BIAS + 1)) begin
            sig   = {12'b0, 5'(e - 8'(BIAS - HALF_BIAS)), x[22:0]};  // 2^-14 and above: normal
            sh    = 6'd13;
            round = 1'b1;
          end else if (e != 8'h00) begin
            sig   = m;  // subnormal, or zero once rounded
            sh    = (s_half > 8'd63) ? 6'd63 : 6'(s_half);
            round = 1'b1;
          end
        end else if (float) begin
          sig = {8'b0, x};
        end else begin
          sig = {8'b0, saturated(x, by_i, kind_i == 3'(sgpu_isa_pkg::SURF_KIND_SINT))};
        end
      end
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        sig_q[c]    <= '0;
        sh_q[c]     <= '0;
        round_q[c]  <= 1'b0;
        negate_q[c] <= 1'b0;
        sign_q[c]   <= 1'b0;
      end else if (en_i) begin
        sig_q[c]    <= sig;
        sh_q[c]     <= sh;
        round_q[c]  <= round;
        negate_q[c] <= negate;
        sign_q[c]   <= sign;
      end
    end
  end

  logic valid_q;  // the cycle after en_i
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= 1'b0;
      ch_q    <= '0;
      by_q    <= '0;
    end else begin
      valid_q <= en_i;
      if (en_i) begin
        ch_q <= ch_i;
        by_q <= by_i;
      end
    end
  end

  // Packing: channel c at byte c x bytes; channels past the format's are dropped.
  // The job done: sig shifted right by sh, rounded to nearest even (the bits shifted out
  // decide: the first one, and whether any other is set), negated or signed. A result's
  // bits above 32 are those of a 40-bit job, never left over once shifted.
  logic [39:0] enc [4];
  for (genvar c = 0; c < 4; c++) begin : gen_finish
    logic [79:0] ext;
    logic [39:0] q;
    logic        up;
    always_comb begin
      {ext, q, up, enc[c]} = '0;
      if (valid_q) begin
        ext = {sig_q[c], 40'b0} >> sh_q[c];
        q   = ext[79:40];
        up  = round_q[c] && ext[39] && (ext[38:0] != '0 || q[0]);
        // -(q + up) is ~q + !up: one adder either way.
        enc[c] = negate_q[c] ? ~q + 40'(!up) : (q + 40'(up)) | {24'b0, sign_q[c], 15'b0};
      end
    end
  end

  always_comb begin
    data_o = '0;
    for (int c = 0; c < 4; c++) begin
      if (valid_q && c < (1 << ch_q)) begin
        unique case (by_q)
          2'd0:    data_o[8*c +: 8]   = enc[c][7:0];
          2'd1:    data_o[16*c +: 16] = enc[c][15:0];
          default: data_o[32*c +: 32] = enc[c][31:0];
        endcase
      end
    end
  end

  logic unused_enc;
  assign unused_enc = ^{enc[0][39:32], enc[1][39:32], enc[2][39:32], enc[3][39:32]};

endmodule
