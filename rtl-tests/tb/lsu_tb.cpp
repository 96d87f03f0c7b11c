// Runs rtl-tests/tb/lsu_top.sv (the load/store unit before a memory model) a cycle a line, as
// cycles.h does (the inputs in the order of `setters` below, the outputs of each cycle in the
// order of `printers`, then the write-back's readiness applied), but as the core's issue
// would: a line that books room for an instruction (`reserve_i`) waits while `room_o` is
// low, the cycles meanwhile idle (no issue, the line's other inputs but the memory's and
// the write-back's readiness, which alternate so that the queue drains). The lines before such
// a line leave six quiet cycles for it, so that no instruction's later inputs move against
// its issue. A wait longer than any queue of requests could take (the RTL never frees room)
// ends the run with an error rather than hanging the test.
#include <cstdio>
#include <string>

#include "Vlsu_top.h"
#include "cycles.h"

namespace {

const std::vector<cycles::Setter>& setters(Vlsu_top& d) {
    static const std::vector<cycles::Setter> list = {
        CYCLES_IN(d, local_size_i),  CYCLES_IN(d, shared_size_i), CYCLES_IN(d, param_size_i),
        CYCLES_IN(d, const_size_i),  CYCLES_IN(d, local_base_i),  CYCLES_IN(d, param_base_i),
        CYCLES_IN(d, const_base_i),  CYCLES_IN(d, reserve_i),     CYCLES_IN(d, issue_valid_i),
        CYCLES_IN(d, issue_slot_i),  CYCLES_IN(d, issue_beat_i),  CYCLES_IN(d, issue_pass_i),
        CYCLES_IN(d, issue_last_i),  CYCLES_IN(d, issue_instr_i), CYCLES_IN(d, issue_lanes_i),
        CYCLES_IN(d, issue_tag_i),   CYCLES_IN(d, pred_row_i),    CYCLES_IN(d, a_i),
        CYCLES_IN(d, b_i),           CYCLES_IN(d, c_i),           CYCLES_IN(d, mem_ready_i),
        CYCLES_IN(d, mem_delay_i),   CYCLES_IN(d, wb_ready_i),
    };
    return list;
}

const std::vector<cycles::Printer>& printers(Vlsu_top& d) {
    static const std::vector<cycles::Printer> list = {
        CYCLES_OUT(d, room_o),        CYCLES_OUT(d, fault_o),       CYCLES_OUT(d, fault_cause_o),
        CYCLES_OUT(d, fault_lane_o),  CYCLES_OUT(d, taken_o),       CYCLES_OUT(d, taken_write_o),
        CYCLES_OUT(d, taken_addr_o),  CYCLES_OUT(d, taken_be_o),    CYCLES_OUT(d, taken_wdata_o),
        CYCLES_OUT(d, wb_valid_o),    CYCLES_OUT(d, wb_slot_o),     CYCLES_OUT(d, wb_beat_o),
        CYCLES_OUT(d, wb_word_o),     CYCLES_OUT(d, wb_tag_o),      CYCLES_OUT(d, wb_lanes_o),
        CYCLES_OUT(d, wb_data_o),     CYCLES_OUT(d, wb_last_o),     CYCLES_OUT(d, wb_err_o),
        CYCLES_OUT(d, wb_err_lane_o), CYCLES_OUT(d, conflicts_o),
    };
    return list;
}

}  // namespace

int main(int argc, char** argv) {
    std::FILE* in = open_cases(argc, argv, "LSU");
    if (!in) return 2;
    auto ctx = std::make_unique<VerilatedContext>();
    auto d = std::make_unique<Vlsu_top>(ctx.get());
    cycles::reset(*d);
    const auto& set_all = setters(*d);
    const auto& print_all = printers(*d);
    const size_t kReserve = 7;  // the field of reserve_i
    // Eight queued beats of 32 lanes each a request, each answered at most 32 cycles after it
    // leaves at half rate, drain in well under this.
    const unsigned kMaxWait = 200000;
    std::vector<std::string> line(set_all.size());
    char field[1024];
    for (;;) {
        for (auto& f : line) {
            if (std::fscanf(in, "%1023s", field) != 1) {
                d->final();
                return std::ferror(in) ? 1 : 0;
            }
            f = field;
        }
        for (unsigned waited = 0, wait = 1; wait; ++waited) {
            for (size_t i = 0; i < set_all.size(); ++i) set_all[i](cycles::words_of(line[i].c_str()));
            d->eval();
            wait = line[kReserve] != "0" && !d->room_o;
            if (wait && waited == kMaxWait) {
                std::fprintf(stderr, "room_o stayed low for %u cycles: the queue never drains\n", kMaxWait);
                d->final();
                return 3;
            }
            if (wait) {
                d->issue_valid_i = 0;
                d->reserve_i = 0;
                d->mem_ready_i = waited % 2;
                d->wb_ready_i = waited % 3 != 0;
                d->eval();
            }
            for (size_t i = 0; i < print_all.size(); ++i) {
                std::printf("%s", i > 0 ? " " : "");
                print_all[i]();
            }
            std::printf(" %x\n", d->wb_ready_i);
            cycles::tick(*d);
        }
    }
}
