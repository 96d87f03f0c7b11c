// Runs hw/sgpu_lane_alu.sv one cycle a line (cycles.h): rst_ni, valid_i, beat_i, instr_i,
// a_i, b_i, c_i, hi_pass_i, carry_i, pa_i, pc_i; it prints valid_o, d_o, carry_o, pd_o and pq_o.
#include "Vsgpu_lane_alu.h"
#include "cycles.h"

namespace {

const std::vector<cycles::Setter>& setters(Vsgpu_lane_alu& d) {
    static const std::vector<cycles::Setter> list = {
        CYCLES_IN(d, rst_ni), CYCLES_IN(d, valid_i), CYCLES_IN(d, beat_i),
        CYCLES_IN(d, instr_i),
        CYCLES_IN(d, a_i),    CYCLES_IN(d, b_i),     CYCLES_IN(d, c_i),
        CYCLES_IN(d, hi_pass_i), CYCLES_IN(d, carry_i), CYCLES_IN(d, pa_i),
        CYCLES_IN(d, pc_i),
    };
    return list;
}

const std::vector<cycles::Printer>& printers(Vsgpu_lane_alu& d) {
    static const std::vector<cycles::Printer> list = {
        CYCLES_OUT(d, valid_o), CYCLES_OUT(d, d_o),  CYCLES_OUT(d, carry_o),
        CYCLES_OUT(d, pd_o),    CYCLES_OUT(d, pq_o),
    };
    return list;
}

}  // namespace

int main(int argc, char** argv) {
    return cycles::run<Vsgpu_lane_alu>(argc, argv, setters, printers);
}
