// Runs hw/sgpu_shared_unit.sv one cycle a line (cycles.h): the issue (issue_valid_i,
// issue_slot_i, issue_beat_i, issue_instr_i, issue_lanes_i, issue_row_i, issue_rz_i,
// issue_last_i, issue_entry_valid_i, issue_entry_i), pred_row_i, a_i, b_i, c_i and
// wb_ready_i; it prints room_o and the write-back (wb_valid_o, wb_slot_o, wb_beat_o,
// wb_row_o, wb_rvalid_o, wb_lanes_o, wb_data_o, wb_last_o, wb_entry_valid_o, wb_entry_o).
#include "Vsgpu_shared_unit.h"
#include "cycles.h"

namespace {

const std::vector<cycles::Setter>& setters(Vsgpu_shared_unit& d) {
    static const std::vector<cycles::Setter> list = {
        CYCLES_IN(d, issue_valid_i),  CYCLES_IN(d, issue_slot_i),
        CYCLES_IN(d, issue_beat_i),   CYCLES_IN(d, issue_instr_i),
        CYCLES_IN(d, issue_lanes_i),  CYCLES_IN(d, issue_row_i),
        CYCLES_IN(d, issue_rz_i),     CYCLES_IN(d, issue_last_i),
        CYCLES_IN(d, issue_entry_valid_i), CYCLES_IN(d, issue_entry_i),
        CYCLES_IN(d, pred_row_i),     CYCLES_IN(d, a_i),
        CYCLES_IN(d, b_i),            CYCLES_IN(d, c_i),
        CYCLES_IN(d, wb_ready_i),
    };
    return list;
}

const std::vector<cycles::Printer>& printers(Vsgpu_shared_unit& d) {
    static const std::vector<cycles::Printer> list = {
        CYCLES_OUT(d, room_o),      CYCLES_OUT(d, wb_valid_o),  CYCLES_OUT(d, wb_slot_o),
        CYCLES_OUT(d, wb_beat_o),   CYCLES_OUT(d, wb_row_o),    CYCLES_OUT(d, wb_rvalid_o),
        CYCLES_OUT(d, wb_lanes_o),  CYCLES_OUT(d, wb_data_o),   CYCLES_OUT(d, wb_last_o),
        CYCLES_OUT(d, wb_entry_valid_o), CYCLES_OUT(d, wb_entry_o),
    };
    return list;
}

}  // namespace

int main(int argc, char** argv) {
    return cycles::run<Vsgpu_shared_unit>(argc, argv, setters, printers);
}
