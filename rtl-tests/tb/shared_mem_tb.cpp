// Runs hw/sgpu_shared_mem.sv one cycle a line (cycles.h): req_valid_i, req_write_i,
// req_lanes_i, req_word_i, req_bytes_i, req_wdata_i, req_tag_i; it prints req_ready_o,
// rsp_valid_o, rsp_rdata_o, conflicts_o and rsp_tag_o.
#include "Vsgpu_shared_mem.h"
#include "cycles.h"

namespace {

const std::vector<cycles::Setter>& setters(Vsgpu_shared_mem& d) {
    static const std::vector<cycles::Setter> list = {
        CYCLES_IN(d, req_valid_i), CYCLES_IN(d, req_write_i), CYCLES_IN(d, req_lanes_i),
        CYCLES_IN(d, req_word_i),  CYCLES_IN(d, req_bytes_i), CYCLES_IN(d, req_wdata_i), CYCLES_IN(d, req_tag_i),
    };
    return list;
}

const std::vector<cycles::Printer>& printers(Vsgpu_shared_mem& d) {
    static const std::vector<cycles::Printer> list = {
        CYCLES_OUT(d, req_ready_o),
        CYCLES_OUT(d, rsp_valid_o),
        CYCLES_OUT(d, rsp_rdata_o),
        CYCLES_OUT(d, conflicts_o),
        CYCLES_OUT(d, rsp_tag_o),
    };
    return list;
}

}  // namespace

int main(int argc, char** argv) {
    return cycles::run<Vsgpu_shared_mem>(argc, argv, setters, printers);
}
