// The C face of hw/sgpu_video_alu.sv, Verilated, for the unit tests' Rust side
// (src/units.rs), which calls the golden model in the same process: make a model (reset),
// free it, and run it a cycle at a time.
#include <cstdint>

#include "Vsgpu_video_alu.h"
#include "unit.h"

using VideoAlu = Unit<Vsgpu_video_alu>;

extern "C" {

VideoAlu* sgpu_video_alu_new() { return unit_new<Vsgpu_video_alu>(); }

void sgpu_video_alu_free(VideoAlu* m) { unit_free(m); }

// One cycle with these inputs: returns d_o as it is before the cycle's rising edge (the
// result of the instruction of the cycle before, or zero), which then takes the inputs.
uint32_t sgpu_video_alu_step(VideoAlu* m, uint64_t word, uint32_t a, uint32_t b, uint32_t c,
                             uint8_t en) {
    m->top.clk_i = 0;
    m->top.en_i = en;
    m->top.instr_i = word;
    m->top.a_i = a;
    m->top.b_i = b;
    m->top.c_i = c;
    m->top.eval();
    uint32_t d = m->top.d_o;
    m->top.clk_i = 1;
    m->top.eval();
    return d;
}

}  // extern "C"
