// Runs hw/sgpu_icache.sv in a closed loop: warps walking a code image (in order, with jumps)
// look it up, one lookup a cycle, and a memory answers its fills in order after a random
// latency, one line of the code answering with an error. Each line of the input file is a
// run: `seed cycles code_lines warps`; for each the testbench prints
// `lookups hits misses errors fills flushes longest_wait` or, at the first wrong answer,
// `MISMATCH cycle ...` and stops with status 1.
//
// Checked: every answer is for the lookup two cycles before; a hit gives the word of the code
// image in use (a flush changes the image and its address, so a line kept across a flush
// would show); the bad line never hits and answers with an error once its fill failed; fills
// read whole lines of the code, halves in order, at the code's address; and every warp's
// miss is answered by a hit (or the error) within a bound, so no line is filled forever.
#include <cinttypes>
#include <deque>
#include <memory>
#include <random>
#include <vector>

#include "Vsgpu_icache.h"
#include "fill_memory.h"
#include "tb.h"
#include "verilated.h"

namespace {

struct Lookup {
    uint64_t cycle;
    uint32_t warp, pc;
};

struct Run {
    uint64_t lookups = 0, hits = 0, misses = 0, errors = 0, fills = 0, flushes = 0;
    uint64_t longest = 0;
};

int run_one(uint64_t seed, uint64_t cycles, uint32_t code_lines, uint32_t warps, Run& r) {
    std::mt19937_64 rng(seed);
    auto ctx = std::make_unique<VerilatedContext>();
    auto d = std::make_unique<Vsgpu_icache>(ctx.get());
    auto tick = [&] {
        d->clk_i = 1;
        d->eval();
        d->clk_i = 0;
        d->eval();
    };
    FillMemory<Vsgpu_icache> mem{(rng() & 0xffffffffffull) << 5, code_lines,
                                 static_cast<uint32_t>(rng() % code_lines)};
    d->clk_i = 0;
    d->rst_ni = 0;
    d->code_base_i = mem.base;
    d->eval();
    tick();
    tick();
    d->rst_ni = 1;
    std::vector<uint32_t> pc(warps);
    std::vector<uint64_t> waiting_since(warps, 0);  // 0: not waiting
    for (auto& p : pc) p = static_cast<uint32_t>(rng() % (code_lines * 4)) * 8;
    std::deque<Lookup> in_flight;  // answers due, oldest first
    uint32_t next_warp = 0;
    bool draining = false;
    auto fail = [&](uint64_t t, const char* what) {
        std::printf("MISMATCH cycle %" PRIu64 ": %s\n", t, what);
        return 1;
    };
    for (uint64_t t = 0; t < cycles; ++t) {
        // Inputs of this cycle. A flush only with nothing in flight: no lookup in the last
        // two cycles, no fill asked for or answered.
        bool idle = in_flight.empty() && mem.idle(*d);
        // Now and then a flush is wanted: lookups stop until nothing is in flight.
        draining = draining || rng() % 2000 == 0;
        bool flush = draining && idle;
        draining = draining && !flush;
        d->flush_i = flush;
        bool lookup = !draining && !flush && rng() % 8 != 0;
        Lookup l{t, next_warp, pc[next_warp]};
        if (flush) {
            mem.base = (rng() & 0xffffffffffull) << 5;
            d->code_base_i = mem.base;
            ++r.flushes;
        }
        d->lookup_valid_i = lookup;
        d->lookup_warp_i = l.warp;
        d->lookup_pc_i = l.pc;
        mem.drive(*d, rng, t);
        d->eval();
        // Outputs of this cycle.
        if (const char* wrong = mem.observe(*d, rng, t)) return fail(t, wrong);
        bool due = !in_flight.empty() && in_flight.front().cycle + 2 == t;
        if (d->rsp_valid_o != due) return fail(t, "no answer two cycles after a lookup, or one without");
        if (due) {
            Lookup q = in_flight.front();
            in_flight.pop_front();
            if (d->rsp_warp_o != q.warp || d->rsp_pc_o != q.pc)
                return fail(t, "an answer for another lookup");
            bool bad = q.pc / 32 == mem.bad_line;
            if (d->rsp_hit_o) {
                if (bad) return fail(t, "the line that failed hits");
                if (d->rsp_word_o != word_at(mem.base, q.pc)) return fail(t, "a wrong word");
                ++r.hits;
            } else if (d->rsp_err_o) {
                if (!bad) return fail(t, "an error for a line that did not fail");
                ++r.errors;
            } else {
                ++r.misses;
            }
            if (d->rsp_hit_o || d->rsp_err_o) {
                if (waiting_since[q.warp])
                    r.longest = std::max(r.longest, t - waiting_since[q.warp]);
                waiting_since[q.warp] = 0;
                // On: the next instruction, or now and then a jump.
                pc[q.warp] = rng() % 16 == 0
                                 ? static_cast<uint32_t>(rng() % (code_lines * 4)) * 8
                                 : (q.pc + 8) % (code_lines * 32);
            } else if (!waiting_since[q.warp]) {
                waiting_since[q.warp] = t;
            }
            if (waiting_since[q.warp] && t - waiting_since[q.warp] > 2000)
                return fail(t, "a miss not served in 2,000 cycles");
        }
        if (lookup) {
            in_flight.push_back(l);
            ++r.lookups;
            next_warp = (next_warp + 1) % warps;
        }
        tick();
    }
    r.fills = mem.fills;
    d->final();
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::FILE* in = open_cases(argc, argv, "RUNS");
    if (!in) return 2;
    uint64_t seed, cycles;
    uint32_t code_lines, warps;
    while (std::fscanf(in, "%" SCNu64 " %" SCNu64 " %u %u", &seed, &cycles, &code_lines,
                       &warps) == 4) {
        Run r;
        if (run_one(seed, cycles, code_lines, warps, r)) return 1;
        std::printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
                    " %" PRIu64 "\n",
                    r.lookups, r.hits, r.misses, r.errors, r.fills, r.flushes, r.longest);
    }
    return 0;
}
