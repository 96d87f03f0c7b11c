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

// What a lane unit gives in a cycle (src/units.rs's LaneOut has the same layout): rd, rd + 1
// (a 64-bit result's high word) and the predicates pd and pq, each zero where the unit has no
// such output.
struct LaneOut {
    uint32_t d, d_hi;
    uint8_t pd, pq;
};

// The ports only some lane units have, set or read where the unit has them: an overload
// taking a higher Rank wins where its port exists (its return type names the port, so it
// drops out where it does not), and the Rank<0> one stands in for none.
template <int N>
struct Rank : Rank<N - 1> {};
template <>
struct Rank<0> {};

// b: rb (b_i), or the high word of a 64-bit ra (a_hi_i, sgpu_cvt's); c: rc (c_i); p: the
// predicate pc (pc_i, sgpu_fcmp's).
template <class Top>
auto set_b(Top& t, uint32_t b, Rank<2>) -> decltype(t.b_i = b, void()) { t.b_i = b; }
template <class Top>
auto set_b(Top& t, uint32_t b, Rank<1>) -> decltype(t.a_hi_i = b, void()) { t.a_hi_i = b; }
template <class Top>
void set_b(Top&, uint32_t, Rank<0>) {}
template <class Top>
auto set_c(Top& t, uint32_t c, Rank<1>) -> decltype(t.c_i = c, void()) { t.c_i = c; }
template <class Top>
void set_c(Top&, uint32_t, Rank<0>) {}
template <class Top>
auto set_p(Top& t, uint8_t p, Rank<1>) -> decltype(t.pc_i = p, void()) { t.pc_i = p; }
template <class Top>
void set_p(Top&, uint8_t, Rank<0>) {}
template <class Top>
auto get_hi(Top& t, LaneOut* o, Rank<1>) -> decltype(o->d_hi = t.d_hi_o, void()) {
    o->d_hi = t.d_hi_o;
}
template <class Top>
void get_hi(Top&, LaneOut*, Rank<0>) {}
template <class Top>
auto get_preds(Top& t, LaneOut* o, Rank<1>) -> decltype(o->pd = t.pd_o, void()) {
    o->pd = t.pd_o;
    o->pq = t.pq_o;
}
template <class Top>
void get_preds(Top&, LaneOut*, Rank<0>) {}

// The C face of a lane unit that takes an instruction word, up to three operands and a
// predicate and gives a LaneOut (csrc/video_alu.cpp, csrc/fma.cpp, csrc/fcmp.cpp,
// csrc/cvt.cpp): NAME_new and NAME_free, and NAME_step, one cycle with these inputs, which
// writes to `out` the outputs as they are before the cycle's rising edge (the result of an
// instruction of an earlier cycle, or zeros) and then gives the unit the inputs.
#define SGPU_LANE_UNIT(NAME, TOP)                                                         \
    extern "C" {                                                                          \
    Unit<TOP>* NAME##_new() { return unit_new<TOP>(); }                                   \
    void NAME##_free(Unit<TOP>* m) { unit_free(m); }                                      \
    void NAME##_step(Unit<TOP>* m, uint64_t word, uint32_t a, uint32_t b, uint32_t c,     \
                     uint8_t p, uint8_t en, LaneOut* out) {                               \
        m->top.clk_i = 0;                                                                 \
        m->top.en_i = en;                                                                 \
        m->top.instr_i = word;                                                            \
        m->top.a_i = a;                                                                   \
        set_b(m->top, b, Rank<2>());                                                      \
        set_c(m->top, c, Rank<1>());                                                      \
        set_p(m->top, p, Rank<1>());                                                      \
        m->top.eval();                                                                    \
        *out = LaneOut{m->top.d_o, 0, 0, 0};                                              \
        get_hi(m->top, out, Rank<1>());                                                   \
        get_preds(m->top, out, Rank<1>());                                                \
        m->top.clk_i = 1;                                                                 \
        m->top.eval();                                                                    \
    }                                                                                     \
    }
