// Runs hw/sgpu_writeback.sv one cycle a line (cycles.h): ln_valid_i, ln_i, src_valid_i,
// src_i; it prints src_ready_o, starved_o, the register file's ports (wr_valid_o,
// wr_slot_o, wr_beat_o, wr_row_o, wr_lanes_o, wr_data_o), the predicate file's (pwr_valid_o,
// pwr_old_o, pwr_mask_o, pwr_bits_o) and the done ports (done_o, done_warp_o,
// done_entry_o).
#include "Vsgpu_writeback.h"
#include "cycles.h"

namespace {

const std::vector<cycles::Setter>& setters(Vsgpu_writeback& d) {
    static const std::vector<cycles::Setter> list = {
        CYCLES_IN(d, ln_valid_i), CYCLES_IN(d, ln_i), CYCLES_IN(d, src_valid_i),
        CYCLES_IN(d, src_i),
    };
    return list;
}

const std::vector<cycles::Printer>& printers(Vsgpu_writeback& d) {
    static const std::vector<cycles::Printer> list = {
        CYCLES_OUT(d, src_ready_o), CYCLES_OUT(d, starved_o),   CYCLES_OUT(d, wr_valid_o),
        CYCLES_OUT(d, wr_slot_o),   CYCLES_OUT(d, wr_beat_o),   CYCLES_OUT(d, wr_row_o),
        CYCLES_OUT(d, wr_lanes_o),  CYCLES_OUT(d, wr_data_o),   CYCLES_OUT(d, pwr_valid_o),
        CYCLES_OUT(d, pwr_old_o),   CYCLES_OUT(d, pwr_mask_o),  CYCLES_OUT(d, pwr_bits_o),
        CYCLES_OUT(d, done_o),      CYCLES_OUT(d, done_warp_o), CYCLES_OUT(d, done_entry_o),
    };
    return list;
}

}  // namespace

int main(int argc, char** argv) {
    return cycles::run<Vsgpu_writeback>(argc, argv, setters, printers);
}
