// What the shims of the units linked into the tests' process share (csrc/video_alu.cpp,
// csrc/surface_unit.cpp): a Verilated module with a context of its own, made out of reset
// and freed. Each shim adds its C functions around it.
#pragma once

#include "verilated.h"

template <class Top>
struct Unit {
    VerilatedContext context;
    Top top{&context};
};

// A unit out of reset: rst_ni low and then high, with the clock low.
template <class Top>
Unit<Top>* unit_new() {
    auto* m = new Unit<Top>;
    m->top.clk_i = 0;
    m->top.rst_ni = 0;
    m->top.eval();
    m->top.rst_ni = 1;
    m->top.eval();
    return m;
}

template <class Top>
void unit_free(Unit<Top>* m) {
    m->top.final();
    delete m;
}

// The C face of a lane unit that takes an instruction word and three operands and gives one
// word (csrc/video_alu.cpp, csrc/fma.cpp): NAME_new and NAME_free, and NAME_step, one cycle
// with these inputs, which returns d_o as it is before the cycle's rising edge (the result
// of an instruction of an earlier cycle, or zero) and then gives the unit the inputs.
#define SGPU_LANE_UNIT(NAME, TOP)                                                        \
    extern "C" {                                                                         \
    Unit<TOP>* NAME##_new() { return unit_new<TOP>(); }                                  \
    void NAME##_free(Unit<TOP>* m) { unit_free(m); }                                     \
    uint32_t NAME##_step(Unit<TOP>* m, uint64_t word, uint32_t a, uint32_t b, uint32_t c, \
                         uint8_t en) {                                                   \
        m->top.clk_i = 0;                                                                \
        m->top.en_i = en;                                                                \
        m->top.instr_i = word;                                                           \
        m->top.a_i = a;                                                                  \
        m->top.b_i = b;                                                                  \
        m->top.c_i = c;                                                                  \
        m->top.eval();                                                                   \
        uint32_t d = m->top.d_o;                                                         \
        m->top.clk_i = 1;                                                                \
        m->top.eval();                                                                   \
        return d;                                                                        \
    }                                                                                    \
    }
