// The C face of hw/sgpu_video_pipe.sv (core v2's video unit), Verilated, for the unit tests'
// Rust side (src/units.rs), which calls the golden model in the same process.
#include <cstdint>

#include "Vsgpu_video_pipe.h"
#include "unit.h"

SGPU_LANE_UNIT(sgpu_video_pipe, Vsgpu_video_pipe)
