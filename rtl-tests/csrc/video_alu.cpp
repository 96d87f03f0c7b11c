// The C face of hw/sgpu_video_alu.sv, Verilated, for the unit tests' Rust side
// (src/units.rs), which calls the golden model in the same process.
#include <cstdint>

#include "Vsgpu_video_alu.h"
#include "unit.h"

SGPU_LANE_UNIT(sgpu_video_alu, Vsgpu_video_alu)
