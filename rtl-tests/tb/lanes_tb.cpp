// Runs rtl-tests/tb/lane_path_top.sv (hw/sgpu_lanes.sv between the register and predicate
// files) one cycle a line (cycles.h): issue_valid_i, issue_slot_i, issue_beat_i,
// issue_hi_pass_i, issue_instr_i, issue_lanes_i, issue_last_i, next_i, next_slot_i; it
// prints busy_o, the register write (wr_valid_o, wr_slot_o, wr_beat_o, wr_row_o,
// wr_lanes_o, wr_data_o), the predicate row's (pwr_valid_o, pwr_old_o, pwr_mask_o,
// pwr_lanes_o, pwr_bits_o), done_o and done_slot_o.
#include "Vlane_path_top.h"
#include "cycles.h"

namespace {

const std::vector<cycles::Setter>& setters(Vlane_path_top& d) {
    static const std::vector<cycles::Setter> list = {
        CYCLES_IN(d, issue_valid_i),   CYCLES_IN(d, issue_slot_i),
        CYCLES_IN(d, issue_beat_i),    CYCLES_IN(d, issue_hi_pass_i),
        CYCLES_IN(d, issue_instr_i),   CYCLES_IN(d, issue_lanes_i), CYCLES_IN(d, issue_last_i),
        CYCLES_IN(d, next_i),          CYCLES_IN(d, next_slot_i),
    };
    return list;
}

const std::vector<cycles::Printer>& printers(Vlane_path_top& d) {
    static const std::vector<cycles::Printer> list = {
        CYCLES_OUT(d, busy_o),      CYCLES_OUT(d, wr_valid_o),  CYCLES_OUT(d, wr_slot_o),
        CYCLES_OUT(d, wr_beat_o),   CYCLES_OUT(d, wr_row_o),    CYCLES_OUT(d, wr_lanes_o),
        CYCLES_OUT(d, wr_data_o),   CYCLES_OUT(d, pwr_valid_o), CYCLES_OUT(d, pwr_old_o),
        CYCLES_OUT(d, pwr_mask_o),  CYCLES_OUT(d, pwr_lanes_o), CYCLES_OUT(d, pwr_bits_o),
        CYCLES_OUT(d, done_o),      CYCLES_OUT(d, done_slot_o),
    };
    return list;
}

}  // namespace

int main(int argc, char** argv) {
    return cycles::run<Vlane_path_top>(argc, argv, setters, printers);
}
