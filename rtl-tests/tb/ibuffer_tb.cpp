// Runs hw/sgpu_ibuffer.sv one cycle a line (cycles.h): push_i, push_warp_i, push_pc_i,
// push_word_i, pop_i, pop_warp_i, clear_i, clear_warp_i; it prints pop_pc_o, pop_word_o,
// count_o, head_o, head_warp_o, head_pc_o and head_word_o.
#include "Vsgpu_ibuffer.h"
#include "cycles.h"

namespace {

const std::vector<cycles::Setter>& setters(Vsgpu_ibuffer& d) {
    static const std::vector<cycles::Setter> list = {
        CYCLES_IN(d, push_i),  CYCLES_IN(d, push_warp_i), CYCLES_IN(d, push_pc_i),
        CYCLES_IN(d, push_word_i), CYCLES_IN(d, pop_i), CYCLES_IN(d, pop_warp_i),
        CYCLES_IN(d, clear_i), CYCLES_IN(d, clear_warp_i),
    };
    return list;
}

const std::vector<cycles::Printer>& printers(Vsgpu_ibuffer& d) {
    static const std::vector<cycles::Printer> list = {
        CYCLES_OUT(d, pop_pc_o),  CYCLES_OUT(d, pop_word_o),  CYCLES_OUT(d, count_o),
        CYCLES_OUT(d, head_o),    CYCLES_OUT(d, head_warp_o), CYCLES_OUT(d, head_pc_o),
        CYCLES_OUT(d, head_word_o),
    };
    return list;
}

}  // namespace

int main(int argc, char** argv) {
    return cycles::run<Vsgpu_ibuffer>(argc, argv, setters, printers);
}
