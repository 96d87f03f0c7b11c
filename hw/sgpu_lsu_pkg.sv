// What both halves of core v2's load/store unit that meet memory (sgpu_lsu_port for the
// memory port, sgpu_lsu_shared for the shared memory) do alike with a lane's bytes.
package sgpu_lsu_pkg;

  // A store's bytes placed as they repeat over a 16-byte piece: byte j from byte j mod
  // 2^size of the lane's data. Word by word: an 8- or 16-bit value fills word 0 first, then
  // word i of the piece is word i mod (2^size / 4) of the data (word 0 below 8 bytes). So
  // the bytes a lane writes at its offset in a block, or in a word, are in place, and the
  // byte enables choose them.
  function automatic logic [127:0] repeated(logic [127:0] d, logic [2:0] size);
    logic [31:0] w0;
    unique case (size)
      3'd0:    w0 = {4{d[7:0]}};
      3'd1:    w0 = {2{d[15:0]}};
      default: w0 = d[31:0];
    endcase
    repeated[31:0]   = w0;
    repeated[63:32]  = (size == 3'd3 || size == 3'd4) ? d[63:32] : w0;
    repeated[95:64]  = (size == 3'd4) ? d[95:64] : w0;
    repeated[127:96] = (size == 3'd4) ? d[127:96] : (size == 3'd3) ? d[63:32] : w0;
  endfunction

  // A loaded word as the register gets it: an 8- or 16-bit value (in the word's low bits)
  // extended by its sign or with zeros, a wider one's word as it is.
  function automatic logic [31:0] extended(logic [31:0] d, logic [2:0] size, logic sgn);
    unique case (size)
      3'd0:    extended = {{24{sgn && d[7]}}, d[7:0]};
      3'd1:    extended = {{16{sgn && d[15]}}, d[15:0]};
      default: extended = d;
    endcase
  endfunction

endpackage
