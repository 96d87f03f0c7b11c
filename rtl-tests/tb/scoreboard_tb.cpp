// Runs hw/sgpu_scoreboard.sv one cycle a line (cycles.h): the inputs in the order below; it
// prints issue_entry_o and ready_o.
#include "Vsgpu_scoreboard.h"
#include "cycles.h"

namespace {

const std::vector<cycles::Setter>& setters(Vsgpu_scoreboard& d) {
    static const std::vector<cycles::Setter> list = {
        CYCLES_IN(d, head_i),         CYCLES_IN(d, head_warp_i),
        CYCLES_IN(d, head_valid_i),   CYCLES_IN(d, head_reads_i),
        CYCLES_IN(d, head_pred_reads_i), CYCLES_IN(d, head_writes_i),
        CYCLES_IN(d, head_pred_writes_i), CYCLES_IN(d, issue_i),
        CYCLES_IN(d, issue_warp_i),   CYCLES_IN(d, issue_writes_i),
        CYCLES_IN(d, issue_pred_writes_i), CYCLES_IN(d, done_i),
        CYCLES_IN(d, done_warp_i),    CYCLES_IN(d, done_entry_i),
    };
    return list;
}

const std::vector<cycles::Printer>& printers(Vsgpu_scoreboard& d) {
    static const std::vector<cycles::Printer> list = {
        CYCLES_OUT(d, issue_entry_o),
        CYCLES_OUT(d, ready_o),
    };
    return list;
}

}  // namespace

int main(int argc, char** argv) {
    return cycles::run<Vsgpu_scoreboard>(argc, argv, setters, printers);
}
