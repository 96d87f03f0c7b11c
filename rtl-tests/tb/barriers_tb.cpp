// Runs hw/sgpu_barriers.sv on a list of steps, one a line (numbers in hexadecimal):
//   r                                                   a reset (two cycles)
//   s CTA WARPS                                         a CTA starts (a cycle's pulse)
//   o EXIT WARP CTA ID COUNTED THREADS WAITS RED BRED MASK SET
//                                                       an operation, held until taken,
//                                                       then its answer awaited
// It prints a line an event: "t CYCLE" an operation taken, "l CYCLE ID WARPS RED BRED VALUE"
// a barrier released, "d CYCLE CAUSE" an operation answered, and "end CYCLES" at the end
// (or when an answer does not come within a bound).
#include <cstring>

#include "Vsgpu_barriers.h"
#include "cycles.h"

namespace {

unsigned long field(std::FILE* in) {
    unsigned long v = 0;
    if (std::fscanf(in, "%lx", &v) != 1) v = 0;
    return v;
}

}  // namespace

int main(int argc, char** argv) {
    std::FILE* in = open_cases(argc, argv, "STEPS");
    if (!in) return 2;
    auto ctx = std::make_unique<VerilatedContext>();
    auto d = std::make_unique<Vsgpu_barriers>(ctx.get());
    cycles::reset(*d);
    long cycle = 0;
    // A cycle: what happened in it printed, then the clock.
    auto step = [&] {
        d->eval();
        if (d->rel_o) {
            std::printf("l %ld %x %lx %d %d %x\n", cycle, d->rel_id_o,
                        static_cast<unsigned long>(d->rel_warps_o), d->rel_red_o, d->rel_bred_o,
                        d->rel_value_o);
        }
        if (d->done_o) std::printf("d %ld %x\n", cycle, d->done_cause_o);
        bool done = d->done_o;
        cycles::tick(*d);
        ++cycle;
        return done;
    };
    char kind[8];
    bool stuck = false;
    while (!stuck && std::fscanf(in, "%7s", kind) == 1) {
        if (kind[0] == 'r') {
            cycles::reset(*d);
        } else if (kind[0] == 's') {
            d->start_cta_i = field(in);
            d->start_warps_i = field(in);
            d->start_i = 1;
            step();
            d->start_i = 0;
        } else {
            d->op_exit_i = field(in);
            d->op_warp_i = field(in);
            d->op_cta_i = field(in);
            d->op_id_i = field(in);
            d->op_counted_i = field(in);
            d->op_threads_i = field(in);
            d->op_waits_i = field(in);
            d->op_red_i = field(in);
            d->op_bred_i = field(in);
            d->op_mask_i = field(in);
            d->op_set_i = field(in);
            d->op_valid_i = 1;
            for (long wait = 0; !d->ready_o; ++wait) {
                if (wait > 100) {
                    stuck = true;
                    break;
                }
                step();
                d->eval();
            }
            if (stuck) break;
            std::printf("t %ld\n", cycle);
            d->eval();
            step();
            d->op_valid_i = 0;
            long wait = 0;
            while (!step()) {
                if (++wait > 100) {
                    stuck = true;
                    break;
                }
            }
        }
    }
    d->final();
    std::printf("end %ld\n", cycle);
    return 0;
}
