// The core's own types: a reconvergence stack entry, a warp's scheduling state and the
// states of the issue sequence. Numbers of the ISA and the hardware ABI come from
// sgpu_isa_pkg (generated from isa/sgpu.isa); nothing here restates them.
package sgpu_core_pkg;

  // One entry of a warp's reconvergence stack (docs/golden-model.md): the lanes of `mask`
  // run from `pc` until they reach `rpc`; a call's entry also holds how far its callee's
  // frame was moved, which RET takes back.
  typedef struct packed {
    logic [31:0] pc;
    logic [31:0] rpc;
    logic [31:0] mask;
    logic        call;
    logic [19:0] frame;
  } entry_t;

  typedef enum logic [1:0] {
    WARP_ABSENT,   // no thread of the CTA
    WARP_RUNNING,
    WARP_WAITING,  // at a barrier
    WARP_EXITED
  } warp_state_e;

  // Cycles from an f32 instruction entering a lane's f32 unit (sgpu_fma, sgpu_fcmp, sgpu_cvt)
  // to its results: sgpu_fma's five stages, to which the others hold theirs.
  localparam int unsigned FLOAT_LATENCY = 4;

  // Cycles from an operation entering the special function unit (sgpu_mufu, one for the
  // lanes, fed a lane a cycle) to its result: its eleven stages.
  localparam int unsigned MUFU_LATENCY = 11;

  // What the instruction in flight is, once decoded: which sequence executes it.
  typedef enum logic [3:0] {
    KIND_ALU,      // the integer ALU, one result per lane
    KIND_S2R,      // special registers
    KIND_SERIAL,   // a unit the lanes share, one lane after another (dividers, warp unit)
    KIND_MEM,      // loads and stores through the memory port
    KIND_CTRL,     // branches, calls, exits, barriers
    KIND_SHARED,   // the integer unit the lanes share, one lane a cycle
    KIND_PIPE,     // a pipelined unit the lanes share, one lane a cycle (F2F, MUFU)
    KIND_VIDEO,    // the video unit (sgpu_video_alu), one result per lane
    KIND_SURF,     // the surface unit (sgpu_surface_unit), one lane's access at a time
    KIND_FLOAT     // the f32 unit (sgpu_fma, sgpu_fcmp, sgpu_cvt), one result per lane
  } kind_e;

  // Integer operations that the lanes' ALUs leave to one ALU they share (sgpu_int_alu's
  // SHARED_OPS), which computes a beat's lanes one a cycle: bit fields, byte permutes,
  // integer conversions, population count, leading zeros and ones, bit reversal. They are
  // about a third of a lane's ALU and seldom in kernels' inner loops; NVIDIA's SMs run most
  // of them at a quarter of the rate of an add too.
  function automatic logic shared_op(logic [7:0] op);
    shared_op = op == sgpu_isa_pkg::OP_BFE || op == sgpu_isa_pkg::OP_BFI
                || op == sgpu_isa_pkg::OP_PRMT || op == sgpu_isa_pkg::OP_PRMTI
                || op == sgpu_isa_pkg::OP_I2I || op == sgpu_isa_pkg::OP_POPC
                || op == sgpu_isa_pkg::OP_CLZ || op == sgpu_isa_pkg::OP_FLO
                || op == sgpu_isa_pkg::OP_BREV;
  endfunction

  // The combining operation of ISETP, PLOP and FSETP (their bop field) on x and y.
  function automatic logic bool_op(logic [sgpu_isa_pkg::BOP_MSB-sgpu_isa_pkg::BOP_LSB:0] b,
                                   logic x, logic y);
    unique case (b)
      sgpu_isa_pkg::BOP_AND: bool_op = x & y;
      sgpu_isa_pkg::BOP_OR:  bool_op = x | y;
      sgpu_isa_pkg::BOP_XOR: bool_op = x ^ y;
      default:               bool_op = 1'b0;  // not encodable
    endcase
  endfunction

  // ISETP's comparison of a with b (sgpu_int_alu, sgpu_lane_alu), from their equality and
  // whether a < b (signed or not): unequal words decide by themselves; equal ones give
  // whether the comparison includes equality or, for the .x form (the high words of a 64-bit
  // comparison, lane::compare_high), the low words' result, which comes in as pc.
  function automatic logic icmp_holds(
      logic [sgpu_isa_pkg::ICMP_MSB-sgpu_isa_pkg::ICMP_LSB:0] icmp, logic x_form, logic pc,
      logic eq, logic lt);
    unique case (icmp)
      sgpu_isa_pkg::ICMP_EQ: icmp_holds = eq & (x_form ? pc : 1'b1);
      sgpu_isa_pkg::ICMP_NE: icmp_holds = eq ? x_form & pc : 1'b1;
      sgpu_isa_pkg::ICMP_LT: icmp_holds = eq ? x_form & pc : lt;
      sgpu_isa_pkg::ICMP_LE: icmp_holds = eq ? (x_form ? pc : 1'b1) : lt;
      sgpu_isa_pkg::ICMP_GT: icmp_holds = eq ? x_form & pc : !lt;
      sgpu_isa_pkg::ICMP_GE: icmp_holds = eq ? (x_form ? pc : 1'b1) : !lt;
      default:               icmp_holds = 1'b0;  // not encodable
    endcase
  endfunction

  // Whether a value cut at its last place rounds up by the mode (an RND_* value): its sign,
  // the last bit kept, the half (round) bit below it and whether any bit below that is set
  // (sim/src/float.rs's `round`).
  function automatic logic round_up(logic [sgpu_isa_pkg::RND_MSB-sgpu_isa_pkg::RND_LSB:0] mode,
                                    logic neg, logic last, logic half, logic rest);
    unique case (mode)
      sgpu_isa_pkg::RND_RN: round_up = half && (rest || last);
      sgpu_isa_pkg::RND_RZ: round_up = 1'b0;
      sgpu_isa_pkg::RND_RM: round_up = neg && (half || rest);
      default:              round_up = !neg && (half || rest);  // RND_RP
    endcase
  endfunction

  // Whether a result past its format's largest finite value becomes infinity by the mode
  // (else that largest value): rounding away from zero on its side.
  function automatic logic to_infinity(
      logic [sgpu_isa_pkg::RND_MSB-sgpu_isa_pkg::RND_LSB:0] mode, logic neg);
    unique case (mode)
      sgpu_isa_pkg::RND_RN: to_infinity = 1'b1;
      sgpu_isa_pkg::RND_RZ: to_infinity = 1'b0;
      sgpu_isa_pkg::RND_RM: to_infinity = neg;
      default:              to_infinity = !neg;  // RND_RP
    endcase
  endfunction

  // The leading zeros of a nonzero 128-bit word, as a tree of seven levels: each level joins
  // pairs of groups (the upper group's count when it holds a one, else half the group plus
  // the lower's), where a loop over the bits from the top would be a chain of 128
  // multiplexers. The f32 unit's normalisations pad their words with ones below, so that
  // a zero word counts its own width.
  function automatic logic [6:0] lzc128(logic [127:0] v);
    logic [127:0]   zero;   // group g's bits all zero
    logic [7*128-1:0] count;  // group g's leading zeros at 7g (flat: yosys 0.23 reads no
                              // packed array of arrays in a function)
    zero  = ~v;
    count = '0;
    // In place: group g of a level is written after groups 2g and 2g + 1 of the level below
    // are read, and before they are written (g ascending).
    for (int k = 1; k <= 7; k++) begin
      for (int g = 0; g < (128 >> k); g++) begin
        count[7*g +: 7] = zero[2*g+1] ? count[7*(2*g) +: 7] | 7'(1 << (k - 1))
                                      : count[7*(2*g+1) +: 7];
        zero[g] = zero[2*g+1] && zero[2*g];
      end
    end
    lzc128 = count[6:0];
  endfunction

  // What a memory response answers, carried in the port's tag and echoed back: loads and
  // stores are posted (the warp goes on; the response writes the loaded registers, or only
  // reports an error); an atomic's response, and a surface access's, goes to the
  // instruction waiting for it.
  typedef enum logic [1:0] {
    TAG_LOAD,
    TAG_STORE,
    TAG_ATOMIC
  } tag_kind_e;

  typedef struct packed {
    tag_kind_e   kind;
    logic        last;  // the instruction's last request
    logic [3:0]  off;   // the lane's byte offset in its 16-byte block
    logic [4:0]  lane;  // the thread's lane in its warp
  } tag_t;

endpackage
