// The C face of hw/sgpu_f2f.sv, Verilated, for the unit tests' Rust side (src/units.rs),
// which calls the golden model in the same process.
#include <cstdint>

#include "Vsgpu_f2f.h"
#include "unit.h"

SGPU_LANE_UNIT(sgpu_f2f, Vsgpu_f2f)
