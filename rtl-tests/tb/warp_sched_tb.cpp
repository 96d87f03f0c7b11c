// Runs hw/sgpu_warp_sched.sv one cycle a line (cycles.h): ready_i, passes_i; it prints
// issue_o, beat_valid_o, warp_o, beat_o, pass_o and last_o.
#include "Vsgpu_warp_sched.h"
#include "cycles.h"

namespace {

const std::vector<cycles::Setter>& setters(Vsgpu_warp_sched& d) {
    static const std::vector<cycles::Setter> list = {CYCLES_IN(d, ready_i), CYCLES_IN(d, passes_i)};
    return list;
}

const std::vector<cycles::Printer>& printers(Vsgpu_warp_sched& d) {
    static const std::vector<cycles::Printer> list = {
        CYCLES_OUT(d, issue_o),
        CYCLES_OUT(d, beat_valid_o),
        CYCLES_OUT(d, warp_o),
        CYCLES_OUT(d, beat_o),
        CYCLES_OUT(d, pass_o),
        CYCLES_OUT(d, last_o),
    };
    return list;
}

}  // namespace

int main(int argc, char** argv) {
    return cycles::run<Vsgpu_warp_sched>(argc, argv, setters, printers);
}
