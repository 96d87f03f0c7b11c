// The C face of hw/sgpu_fdiv.sv, Verilated, for the unit tests' Rust side (src/units.rs),
// which calls the golden model in the same process. The divider takes an operation with
// start_i and answers with done_o some cycles later, so rather than SGPU_LANE_UNIT's step it
// has its own: a cycle with given inputs, and a whole operation.
#include <cstdint>

#include "Vsgpu_fdiv.h"
#include "unit.h"

// What the divider gives in a cycle (src/units.rs's FdivOut has the same layout).
struct FdivOut {
    uint32_t d;
    uint8_t busy, done;
};

// An operation's outcome (src/units.rs's FdivRun): the result, the cycles from start_i to
// done_o (0 when done_o did not come within the bound), and whether busy_o was high in
// every cycle between and low with done_o.
struct FdivRun {
    uint32_t d, cycles;
    uint8_t busy;
};

using Fdiv = Unit<Vsgpu_fdiv>;

// The inputs of a cycle, with the clock low, and the outputs as they then are.
static FdivOut fdiv_inputs(Fdiv* m, uint8_t start, uint64_t word, uint32_t a, uint32_t b) {
    m->top.clk_i = 0;
    m->top.start_i = start;
    m->top.instr_i = word;
    m->top.a_i = a;
    m->top.b_i = b;
    m->top.eval();
    return FdivOut{m->top.d_o, m->top.busy_o, m->top.done_o};
}

static void fdiv_edge(Fdiv* m) {
    m->top.clk_i = 1;
    m->top.eval();
}

extern "C" {
Fdiv* sgpu_fdiv_new() { return unit_new<Vsgpu_fdiv>(); }
void sgpu_fdiv_free(Fdiv* m) { unit_free(m); }

// One cycle with these inputs: writes to `out` the outputs as they are before the cycle's
// rising edge, then clocks the inputs in.
void sgpu_fdiv_step(Fdiv* m, uint8_t start, uint64_t word, uint32_t a, uint32_t b,
                    FdivOut* out) {
    *out = fdiv_inputs(m, start, word, a, b);
    fdiv_edge(m);
}

// Starts `word` on a and b and clocks, other values on the inputs (the unit must have taken
// its own), until done_o or `bound` cycles. It stops before the rising edge of done_o's
// cycle, so that the next operation, or step, starts in that cycle.
void sgpu_fdiv_run(Fdiv* m, uint64_t word, uint32_t a, uint32_t b, uint32_t bound,
                   FdivRun* out) {
    fdiv_inputs(m, 1, word, a, b);
    fdiv_edge(m);
    *out = FdivRun{0, 0, 1};
    for (uint32_t k = 1; k <= bound; k++) {
        FdivOut o = fdiv_inputs(m, 0, ~word, ~a, ~b);
        if (o.done) {
            *out = FdivRun{o.d, k, static_cast<uint8_t>(out->busy && !o.busy)};
            return;
        }
        out->busy = out->busy && o.busy;
        fdiv_edge(m);
    }
}
}
