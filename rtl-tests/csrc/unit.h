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
