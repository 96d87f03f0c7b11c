// Runs hw/sgpu_coalesce.sv one cycle a line (cycles.h): in_valid_i, in_addr_i, in_lanes_i,
// in_size_i, in_lead_i, req_ready_i; it prints in_ready_o, req_valid_o, req_block_o, req_lanes_o,
// req_bytes_o and req_last_o.
#include "Vsgpu_coalesce.h"
#include "cycles.h"

namespace {

const std::vector<cycles::Setter>& setters(Vsgpu_coalesce& d) {
    static const std::vector<cycles::Setter> list = {
        CYCLES_IN(d, in_valid_i), CYCLES_IN(d, in_addr_i),   CYCLES_IN(d, in_lanes_i),
        CYCLES_IN(d, in_size_i),  CYCLES_IN(d, in_lead_i),   CYCLES_IN(d, req_ready_i),
    };
    return list;
}

const std::vector<cycles::Printer>& printers(Vsgpu_coalesce& d) {
    static const std::vector<cycles::Printer> list = {
        CYCLES_OUT(d, in_ready_o),  CYCLES_OUT(d, req_valid_o), CYCLES_OUT(d, req_block_o),
        CYCLES_OUT(d, req_lanes_o), CYCLES_OUT(d, req_bytes_o), CYCLES_OUT(d, req_last_o),
    };
    return list;
}

}  // namespace

int main(int argc, char** argv) {
    return cycles::run<Vsgpu_coalesce>(argc, argv, setters, printers);
}
