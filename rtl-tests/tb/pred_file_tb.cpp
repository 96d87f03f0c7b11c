// Runs hw/sgpu_pred_file.sv one cycle a line (cycles.h): rd_valid_i, rd_slot_i, rd_beat_i,
// wr_valid_i, wr_slot_i, wr_beat_i, wr_old_i, wr_mask_i, wr_lanes_i, wr_bits_i, next_i,
// next_slot_i; it prints rd_valid_o and rd_row_o.
#include "Vsgpu_pred_file.h"
#include "cycles.h"

namespace {

const std::vector<cycles::Setter>& setters(Vsgpu_pred_file& d) {
    static const std::vector<cycles::Setter> list = {
        CYCLES_IN(d, rd_valid_i), CYCLES_IN(d, rd_slot_i),  CYCLES_IN(d, rd_beat_i),
        CYCLES_IN(d, wr_valid_i), CYCLES_IN(d, wr_slot_i),  CYCLES_IN(d, wr_beat_i),
        CYCLES_IN(d, wr_old_i),   CYCLES_IN(d, wr_mask_i),  CYCLES_IN(d, wr_lanes_i),
        CYCLES_IN(d, wr_bits_i),  CYCLES_IN(d, next_i),     CYCLES_IN(d, next_slot_i),
    };
    return list;
}

const std::vector<cycles::Printer>& printers(Vsgpu_pred_file& d) {
    static const std::vector<cycles::Printer> list = {
        CYCLES_OUT(d, rd_valid_o),
        CYCLES_OUT(d, rd_row_o),
    };
    return list;
}

}  // namespace

int main(int argc, char** argv) {
    return cycles::run<Vsgpu_pred_file>(argc, argv, setters, printers);
}
