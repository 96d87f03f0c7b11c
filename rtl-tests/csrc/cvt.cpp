// The C face of hw/sgpu_cvt.sv, Verilated, for the unit tests' Rust side (src/units.rs),
// which calls the golden model in the same process.
#include <cstdint>

#include "Vsgpu_cvt.h"
#include "unit.h"

SGPU_LANE_UNIT(sgpu_cvt, Vsgpu_cvt)
