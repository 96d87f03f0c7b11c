// Runs hw/sgpu_control.sv one cycle a line (cycles.h): the inputs in the order of
// `setters` below, the outputs of each cycle in the order of `printers`.
#include "Vsgpu_control.h"
#include "cycles.h"

namespace {

const std::vector<cycles::Setter>& setters(Vsgpu_control& d) {
    static const std::vector<cycles::Setter> list = {
        CYCLES_IN(d, local_size_i),  CYCLES_IN(d, start_i),          CYCLES_IN(d, start_warp_i),
        CYCLES_IN(d, start_lanes_i), CYCLES_IN(d, issue_valid_i),    CYCLES_IN(d, issue_slot_i),
        CYCLES_IN(d, issue_beat_i),  CYCLES_IN(d, issue_pass_i),     CYCLES_IN(d, issue_last_i),
        CYCLES_IN(d, issue_instr_i), CYCLES_IN(d, issue_pc_i),       CYCLES_IN(d, issue_lanes_i),
        CYCLES_IN(d, issue_row_i),   CYCLES_IN(d, issue_entry_valid_i),
        CYCLES_IN(d, issue_entry_i), CYCLES_IN(d, pred_row_i),       CYCLES_IN(d, a_i),
        CYCLES_IN(d, b_i),           CYCLES_IN(d, c_i),              CYCLES_IN(d, ctl_ready_i),
        CYCLES_IN(d, ret_i),         CYCLES_IN(d, ret_warp_i),       CYCLES_IN(d, ret_lanes_i),
        CYCLES_IN(d, ret_frame_i),   CYCLES_IN(d, rel_i),            CYCLES_IN(d, rel_warps_i),
        CYCLES_IN(d, rel_red_i),     CYCLES_IN(d, rel_bred_i),       CYCLES_IN(d, rel_value_i),
        CYCLES_IN(d, wb_ready_i),
    };
    return list;
}

const std::vector<cycles::Printer>& printers(Vsgpu_control& d) {
    static const std::vector<cycles::Printer> list = {
        CYCLES_OUT(d, room_o),           CYCLES_OUT(d, ctl_valid_o),
        CYCLES_OUT(d, ctl_warp_o),       CYCLES_OUT(d, ctl_kind_o),
        CYCLES_OUT(d, ctl_next_o),       CYCLES_OUT(d, ctl_target_o),
        CYCLES_OUT(d, ctl_mask_o),       CYCLES_OUT(d, ctl_waiting_o),
        CYCLES_OUT(d, ctl_frame_o),      CYCLES_OUT(d, ctl_bar_o),
        CYCLES_OUT(d, ctl_bar_id_o),     CYCLES_OUT(d, ctl_bar_counted_o),
        CYCLES_OUT(d, ctl_bar_threads_o), CYCLES_OUT(d, ctl_bar_waits_o),
        CYCLES_OUT(d, ctl_bar_red_o),    CYCLES_OUT(d, ctl_bar_bred_o),
        CYCLES_OUT(d, ctl_bar_set_o),    CYCLES_OUT(d, ctl_trap_o),
        CYCLES_OUT(d, ctl_frame_fault_o), CYCLES_OUT(d, wb_valid_o),
        CYCLES_OUT(d, wb_slot_o),        CYCLES_OUT(d, wb_beat_o),
        CYCLES_OUT(d, wb_rvalid_o),      CYCLES_OUT(d, wb_row_o),
        CYCLES_OUT(d, wb_lanes_o),       CYCLES_OUT(d, wb_data_o),
        CYCLES_OUT(d, wb_pvalid_o),      CYCLES_OUT(d, wb_pold_o),
        CYCLES_OUT(d, wb_pmask_o),       CYCLES_OUT(d, wb_pbits_o),
        CYCLES_OUT(d, wb_last_o),        CYCLES_OUT(d, wb_entry_valid_o),
        CYCLES_OUT(d, wb_entry_o),
    };
    return list;
}

}  // namespace

int main(int argc, char** argv) {
    return cycles::run<Vsgpu_control>(argc, argv, setters, printers);
}
