// The C face of hw/sgpu_atom_float.sv, Verilated, for the unit tests' Rust side
// (src/units.rs), which calls the golden model in the same process.
#include <cstdint>

#include "Vsgpu_atom_float.h"
#include "unit.h"

using AtomFloat = Unit<Vsgpu_atom_float>;

extern "C" {

AtomFloat* sgpu_atom_float_new() { return unit_new<Vsgpu_atom_float>(); }

void sgpu_atom_float_free(AtomFloat* m) { unit_free(m); }

// One operation: start_i for a cycle with these operands, then cycles until done_o (at most
// `limit`). Returns the cycles from the start to done_o (0 if it never came) and writes
// new_o to `out`.
uint32_t sgpu_atom_float_run(AtomFloat* m, uint8_t aop, uint8_t aty, uint32_t old, uint32_t b,
                             uint32_t limit, uint32_t* out) {
    auto& t = m->top;
    t.start_i = 1;
    t.aop_i = aop;
    t.aty_i = aty;
    t.old_i = old;
    t.b_i = b;
    for (uint32_t cycle = 0; cycle <= limit; cycle++) {
        t.clk_i = 0;
        t.eval();
        if (cycle > 0 && t.done_o) {
            *out = t.new_o;
            return cycle;
        }
        t.clk_i = 1;
        t.eval();
        // The operands are taken at the start; other values after it.
        t.start_i = 0;
        t.old_i = ~old;
        t.b_i = ~b;
    }
    return 0;
}
}
