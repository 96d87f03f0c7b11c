// The C face of hw/sgpu_mufu.sv, Verilated, for the unit tests' Rust side (src/units.rs),
// which calls the golden model in the same process.
#include <cstdint>

#include "Vsgpu_mufu.h"
#include "unit.h"

SGPU_LANE_UNIT(sgpu_mufu, Vsgpu_mufu)
