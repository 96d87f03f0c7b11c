// Runs hw/sgpu_regfile.sv one cycle a line (cycles.h): the inputs in the order below; it
// prints rd_valid_o, a_o, b_o, c_o and busy_o.
#include "Vsgpu_regfile.h"
#include "cycles.h"

namespace {

const std::vector<cycles::Setter>& setters(Vsgpu_regfile& d) {
    static const std::vector<cycles::Setter> list = {
        CYCLES_IN(d, rd_valid_i),   CYCLES_IN(d, rd_slot_i),    CYCLES_IN(d, rd_beat_i),
        CYCLES_IN(d, rd_rows_i),    CYCLES_IN(d, rd_zero_i),    CYCLES_IN(d, wr_valid_i),
        CYCLES_IN(d, wr_slot_i),    CYCLES_IN(d, wr_beat_i),    CYCLES_IN(d, wr_row_i),
        CYCLES_IN(d, wr_lanes_i),   CYCLES_IN(d, wr_data_i),    CYCLES_IN(d, next_i),
        CYCLES_IN(d, next_slot_i),  CYCLES_IN(d, next_first_i), CYCLES_IN(d, next_rows_i),
        CYCLES_IN(d, clear_i),
    };
    return list;
}

const std::vector<cycles::Printer>& printers(Vsgpu_regfile& d) {
    static const std::vector<cycles::Printer> list = {
        CYCLES_OUT(d, rd_valid_o), CYCLES_OUT(d, a_o), CYCLES_OUT(d, b_o),
        CYCLES_OUT(d, c_o),        CYCLES_OUT(d, busy_o),
    };
    return list;
}

}  // namespace

int main(int argc, char** argv) { return cycles::run<Vsgpu_regfile>(argc, argv, setters, printers); }
