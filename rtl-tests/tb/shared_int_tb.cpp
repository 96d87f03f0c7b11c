// Runs hw/sgpu_shared_int.sv one cycle a line (cycles.h): valid_i, instr_i, a_i, b_i, c_i;
// it prints d_o.
#include "Vsgpu_shared_int.h"
#include "cycles.h"

namespace {

const std::vector<cycles::Setter>& setters(Vsgpu_shared_int& d) {
    static const std::vector<cycles::Setter> list = {
        CYCLES_IN(d, valid_i), CYCLES_IN(d, instr_i), CYCLES_IN(d, a_i),
        CYCLES_IN(d, b_i),     CYCLES_IN(d, c_i),
    };
    return list;
}

const std::vector<cycles::Printer>& printers(Vsgpu_shared_int& d) {
    static const std::vector<cycles::Printer> list = {CYCLES_OUT(d, d_o)};
    return list;
}

}  // namespace

int main(int argc, char** argv) {
    return cycles::run<Vsgpu_shared_int>(argc, argv, setters, printers);
}
