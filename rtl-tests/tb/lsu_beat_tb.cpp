// Runs hw/sgpu_lsu_beat.sv one cycle a line (cycles.h): the inputs in the order of
// `setters` below, the outputs of each cycle in the order of `printers`.
#include "Vsgpu_lsu_beat.h"
#include "cycles.h"

namespace {

const std::vector<cycles::Setter>& setters(Vsgpu_lsu_beat& d) {
    static const std::vector<cycles::Setter> list = {
        CYCLES_IN(d, local_size_i),  CYCLES_IN(d, shared_size_i), CYCLES_IN(d, param_size_i),
        CYCLES_IN(d, const_size_i),  CYCLES_IN(d, issue_valid_i), CYCLES_IN(d, issue_slot_i),
        CYCLES_IN(d, issue_beat_i),  CYCLES_IN(d, issue_pass_i),  CYCLES_IN(d, issue_last_i),
        CYCLES_IN(d, issue_instr_i), CYCLES_IN(d, issue_lanes_i), CYCLES_IN(d, issue_tag_i),
        CYCLES_IN(d, pred_row_i),    CYCLES_IN(d, a_i),           CYCLES_IN(d, b_i),
        CYCLES_IN(d, c_i),
    };
    return list;
}

const std::vector<cycles::Printer>& printers(Vsgpu_lsu_beat& d) {
    static const std::vector<cycles::Printer> list = {
        CYCLES_OUT(d, acc_valid_o), CYCLES_OUT(d, acc_slot_o),    CYCLES_OUT(d, acc_beat_o),
        CYCLES_OUT(d, acc_last_o),  CYCLES_OUT(d, acc_tag_o),     CYCLES_OUT(d, acc_write_o),
        CYCLES_OUT(d, acc_size_o),  CYCLES_OUT(d, acc_signed_o),  CYCLES_OUT(d, acc_lanes_o),   CYCLES_OUT(d, acc_space_o),
        CYCLES_OUT(d, acc_at_o),    CYCLES_OUT(d, acc_data_o),    CYCLES_OUT(d, fault_o),
        CYCLES_OUT(d, fault_cause_o), CYCLES_OUT(d, fault_lane_o),
    };
    return list;
}

}  // namespace

int main(int argc, char** argv) {
    return cycles::run<Vsgpu_lsu_beat>(argc, argv, setters, printers);
}
