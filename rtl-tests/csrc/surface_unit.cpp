// The C face of hw/sgpu_surface_unit.sv, Verilated, for the unit tests' Rust side
// (src/units.rs): make a model (reset), free it, and run it a cycle at a time.
#include <cstdint>

#include "Vsgpu_surface_unit.h"
#include "unit.h"

using SurfaceUnit = Unit<Vsgpu_surface_unit>;

// The unit's outputs in one cycle; src/units.rs has the same layout (repr(C)).
struct SurfaceOut {
    uint64_t addr;
    uint32_t pdata[4];
    uint32_t query;
    uint8_t valid;
    uint8_t trap;
    uint8_t cause;
    uint8_t drop;
    uint8_t size;
    uint8_t is_signed;
};

extern "C" {

SurfaceUnit* sgpu_surface_unit_new() { return unit_new<Vsgpu_surface_unit>(); }

void sgpu_surface_unit_free(SurfaceUnit* m) { unit_free(m); }

// One cycle with these inputs (desc: 8 words, coord: 3, comp: 4): `out` takes the outputs
// as they are before the cycle's rising edge (the results of the access of the cycle
// before), which then takes the inputs.
void sgpu_surface_unit_step(SurfaceUnit* m, uint64_t word, const uint32_t* desc,
                            const uint32_t* coord, const uint32_t* comp, uint8_t en,
                            SurfaceOut* out) {
    m->top.clk_i = 0;
    m->top.en_i = en;
    m->top.instr_i = word;
    for (int i = 0; i < 8; i++) m->top.desc_i[i] = desc[i];
    for (int i = 0; i < 3; i++) m->top.coord_i[i] = coord[i];
    for (int i = 0; i < 4; i++) m->top.comp_i[i] = comp[i];
    m->top.eval();
    out->addr = m->top.addr_o;
    for (int i = 0; i < 4; i++) out->pdata[i] = m->top.pdata_o[i];
    out->query = m->top.query_o;
    out->valid = m->top.valid_o;
    out->trap = m->top.trap_o;
    out->cause = m->top.cause_o;
    out->drop = m->top.drop_o;
    out->size = m->top.size_o;
    out->is_signed = m->top.signed_o;
    m->top.clk_i = 1;
    m->top.eval();
}

}  // extern "C"
