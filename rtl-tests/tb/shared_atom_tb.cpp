// Runs rtl-tests/tb/shared_atom_top.sv (hw/sgpu_shared_atom.sv before hw/sgpu_shared_mem.sv)
// on a list of beats, one a line, each held until the harness takes it after the idle
// cycles the line asks for first:
//   0 GAP WRITE LANES WORDS BYTES WDATA   a plain beat
//   1 GAP AOP ATY LANES ADDRS B C         an atomic one
// (hexadecimal, the ports' layouts). It prints a line an event: "t CYCLE" a beat taken,
// "p CYCLE RDATA" a plain beat's answer, "a CYCLE OLD" an atomic beat's, and at the end
// "end CYCLES" once every beat has been answered (or a cycle limit is reached).
#include <cstring>
#include <deque>
#include <vector>

#include "Vshared_atom_top.h"
#include "cycles.h"

namespace {

struct Beat {
    bool atomic;
    long gap;
    std::vector<std::vector<uint32_t>> fields;  // the port values after KIND and GAP
};

std::deque<Beat> read_beats(std::FILE* in) {
    std::deque<Beat> beats;
    char field[4096];
    int kind;
    long gap;
    while (std::fscanf(in, "%d %ld", &kind, &gap) == 2) {
        Beat b{kind == 1, gap, {}};
        int n = b.atomic ? 6 : 5;
        for (int i = 0; i < n && std::fscanf(in, "%4095s", field) == 1; ++i) {
            b.fields.push_back(cycles::words_of(field));
        }
        beats.push_back(b);
    }
    return beats;
}

void present(Vshared_atom_top& d, const Beat* b) {
    d.p_valid_i = b && !b->atomic;
    d.a_valid_i = b && b->atomic;
    if (!b) return;
    const auto& f = b->fields;
    if (b->atomic) {
        cycles::set(d.a_aop_i, f[0]);
        cycles::set(d.a_aty_i, f[1]);
        cycles::set(d.a_lanes_i, f[2]);
        cycles::set(d.a_addr_i, f[3]);
        cycles::set(d.a_b_i, f[4]);
        cycles::set(d.a_c_i, f[5]);
    } else {
        cycles::set(d.p_write_i, f[0]);
        cycles::set(d.p_lanes_i, f[1]);
        cycles::set(d.p_word_i, f[2]);
        cycles::set(d.p_bytes_i, f[3]);
        cycles::set(d.p_wdata_i, f[4]);
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::FILE* in = open_cases(argc, argv, "BEATS");
    if (!in) return 2;
    std::deque<Beat> beats = read_beats(in);
    auto ctx = std::make_unique<VerilatedContext>();
    auto d = std::make_unique<Vshared_atom_top>(ctx.get());
    cycles::reset(*d);
    size_t answers = 0, expected = beats.size();
    long cycle = 0, idle = 0;
    const long limit = 1000L * static_cast<long>(expected) + 1000;
    for (; answers < expected && cycle < limit; ++cycle) {
        const Beat* b = !beats.empty() && idle >= beats.front().gap ? &beats.front() : nullptr;
        present(*d, b);
        d->eval();
        if (d->p_rsp_valid_o) {
            std::printf("p %ld ", cycle);
            cycles::print(d->p_rsp_rdata_o);
            std::printf("\n");
            ++answers;
        }
        if (d->a_rsp_valid_o) {
            std::printf("a %ld ", cycle);
            cycles::print(d->a_rsp_old_o);
            std::printf("\n");
            ++answers;
        }
        if (b && (b->atomic ? d->a_ready_o : d->p_ready_o)) {
            std::printf("t %ld\n", cycle);
            beats.pop_front();
            idle = 0;
        } else if (!b) {
            ++idle;
        }
        cycles::tick(*d);
    }
    d->final();
    std::printf("end %ld\n", cycle);
    return 0;
}
