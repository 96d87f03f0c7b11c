// Runs hw/sgpu_frontend.sv (fetch, instruction cache, instruction buffers, head decode) in a
// closed loop with a back end written here: the warp table's redirects and halts, the
// issue's pops, and the memory behind the cache (fill_memory.h).
//
// The input starts with the opcodes of the table's unit CONTROL, then 256, then other
// opcodes, then 256 (the test takes both from the ISA); then come runs, a line each, `seed
// cycles code_lines warps`, for which the testbench prints `pops redirects
// control_stops stop_pcs faults mem_faults halts longest_wait` or, at the first thing
// wrong, `MISMATCH cycle ...` and stops with status 1.
//
// The code is `code_lines` lines of words whose opcode is a control one one time in eight;
// it ends a few words before its last line does, and one line answers with a memory error.
// Each warp is a path through it, as the back end decides: started at a random pc with a
// random stop pc, on in order until a control instruction (then redirected elsewhere after a
// random delay), its stop pc (likewise), the code's end or the failing line (then a fault
// must be shown, and it is redirected). Now and then a warp is halted and started again.
// Checked: every head announced and popped is the warp's next instruction on its path (pc
// and word), so nothing past a control instruction, a stop pc or a fault is fetched;
// nothing is announced for a warp not running; each wanted instruction is announced and
// each fault shown within 3,000 cycles; a warp the back end is about to redirect has
// stopped with an empty buffer and shows the right fault, if any, and whether it stopped at
// its stop pc.
#include <cinttypes>
#include <memory>
#include <random>
#include <vector>

#include "Vsgpu_frontend.h"
#include "fill_memory.h"
#include "tb.h"
#include "verilated.h"

namespace {

std::vector<uint8_t> control_ops, other_ops;

// The word at a pc: a hash with the opcode byte replaced, a control one one time in eight.
uint64_t code_word(uint64_t base, uint64_t pc) {
    uint64_t w = word_at(base, pc);
    const auto& ops = (w >> 61) == 0 ? control_ops : other_ops;
    return (w & ~0xffull) | ops[(w >> 8) % ops.size()];
}
bool is_control(uint64_t word) {
    for (auto op : control_ops)
        if ((word & 0xff) == op) return true;
    return false;
}

constexpr uint32_t NEVER = 0xffffffffu;

// Where the back end has a warp.
enum class State { Run, Redirect, Fault, Off };
// What it waits for before redirecting: the fetch to stop after a control instruction or at
// the stop pc, or a fault (past the end, or the failing line).
enum class Why { None, Control, Stop, End, Mem };

struct Warp {
    State state = State::Off;
    Why why = Why::None;
    uint32_t expect = 0, stop = NEVER;
    bool head = false;      // an announced head waits to be popped
    uint64_t at = 0;        // when the redirect (or start) is due
    uint64_t since = 0;     // since when the expectation holds
};

struct Run {
    uint64_t pops = 0, redirects = 0, controls = 0, stops = 0, faults = 0, mem_faults = 0;
    uint64_t halts = 0, longest = 0;
};

struct Bench {
    std::mt19937_64 rng;
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Vsgpu_frontend> d;
    FillMemory<Vsgpu_frontend> mem;
    uint32_t code_bytes;
    std::vector<Warp> warps;
    Run r;
    uint64_t t = 0;
    const char* wrong = nullptr;

    Bench(uint64_t seed, uint32_t code_lines, uint32_t n)
        : rng(seed), ctx(std::make_unique<VerilatedContext>()),
          d(std::make_unique<Vsgpu_frontend>(ctx.get())),
          mem{(rng() & 0xffffffffffull) << 5, code_lines,
              static_cast<uint32_t>(rng() % code_lines)},
          code_bytes(code_lines * 32 - 8 * static_cast<uint32_t>(rng() % 4)), warps(n) {
        mem.word = code_word;
        d->code_base_i = mem.base;
        d->code_bytes_i = code_bytes;
        d->rst_ni = 0;
        tick();
        tick();
        d->rst_ni = 1;
        for (auto& w : warps) w.at = rng() % 64;
    }

    void tick() {
        d->clk_i = 1;
        d->eval();
        d->clk_i = 0;
        d->eval();
    }

    // The path's next step: what the warp waits for at `expect`.
    void classify(Warp& w) {
        w.since = t;
        if (w.expect == w.stop) {
            w.state = State::Redirect, w.why = Why::Stop;
            w.at = t + 1 + rng() % 48;
            ++r.stops;
        } else if (w.expect >= code_bytes) {
            w.state = State::Fault, w.why = Why::End;
        } else if (w.expect / 32 == mem.bad_line) {
            w.state = State::Fault, w.why = Why::Mem;
        } else {
            w.state = State::Run, w.why = Why::None;
        }
    }

    // A new path: mostly anywhere in the code, now and then at its last few words; no stop
    // pc, or one a few instructions on (the start itself included).
    void redirect(uint32_t k) {
        Warp& w = warps[k];
        uint32_t words = code_bytes / 8;
        uint32_t pc = rng() % 8 == 0 ? (words - 1 - rng() % 3) * 8 : rng() % words * 8;
        uint32_t stop = rng() % 5 < 3 ? NEVER : pc + 8 * static_cast<uint32_t>(rng() % 6);
        d->redirect_i = 1;
        d->redirect_warp_i = k;
        d->redirect_pc_i = pc;
        d->redirect_stop_pc_i = stop;
        w.expect = pc, w.stop = stop, w.head = false;
        classify(w);
        ++r.redirects;
    }

    bool fail(const char* what) {
        wrong = what;
        return false;
    }

    // One cycle; false at the first thing wrong.
    bool step() {
        d->redirect_i = 0;
        d->halt_i = 0;
        d->pop_i = 0;
        mem.drive(*d, rng, t);
        uint32_t n = static_cast<uint32_t>(warps.size());
        // The back end's one redirect a cycle: a warp whose delay is over, checked first to
        // have stopped as it should; or one whose fault has shown.
        for (uint32_t k = 0; k < n && !d->redirect_i; ++k) {
            Warp& w = warps[k];
            bool fault = d->fault_o >> k & 1, fault_mem = d->fault_mem_o >> k & 1;
            bool stopped = d->stopped_o >> k & 1, empty = (d->count_o >> 2 * k & 3) == 0;
            if (w.state == State::Fault && fault) {
                if (fault_mem != (w.why == Why::Mem)) return fail("the wrong fault");
                if (!stopped || !empty) return fail("a fault with the warp's fetch going on");
                w.why == Why::Mem ? ++r.mem_faults : ++r.faults;
                redirect(k);
            } else if ((w.state == State::Redirect || w.state == State::Off) && w.at <= t) {
                bool settled = w.state == State::Redirect && t - w.since > n + 8;
                if (settled && (!stopped || !empty || fault))
                    return fail("a warp not stopped, or not empty, when redirected");
                if (settled && (d->at_stop_o >> k & 1) != (w.why == Why::Stop))
                    return fail("a warp's stop at its stop pc shown wrong");
                redirect(k);
            }
        }
        // Now and then a halt, of another warp than the redirect's.
        if (rng() % 3000 == 0) {
            uint32_t k = rng() % n;
            if (!(d->redirect_i && d->redirect_warp_i == k)) {
                d->halt_i = 1;
                d->halt_warp_i = k;
            }
        }
        // A pop, most cycles, of a running warp's announced head (not the halted one's).
        std::vector<uint32_t> ready;
        for (uint32_t k = 0; k < n; ++k)
            if (warps[k].head && !(d->halt_i && d->halt_warp_i == k)) ready.push_back(k);
        if (!ready.empty() && rng() % 4 != 0) {
            d->pop_i = 1;
            d->pop_warp_i = ready[rng() % ready.size()];
        }
        d->eval();
        // Outputs of this cycle.
        if (const char* w = mem.observe(*d, rng, t)) return fail(w);
        if (d->pop_i) {
            Warp& w = warps[d->pop_warp_i];
            if (d->pop_pc_o != w.expect) return fail("popped an instruction off the path");
            uint64_t word = code_word(mem.base, w.expect);
            if (d->pop_word_o != word) return fail("popped a wrong word");
            ++r.pops;
            w.head = false;
            if (is_control(word)) {
                w.state = State::Redirect, w.why = Why::Control;
                w.at = t + 1 + rng() % 32;
                w.since = t;
                ++r.controls;
            } else {
                w.expect += 8;
                classify(w);
            }
        }
        if (d->head_o) {
            Warp& w = warps[d->head_warp_o];
            if (w.state != State::Run || w.head) return fail("a head announced off the path");
            if (d->head_pc_o != w.expect) return fail("a head announced out of order");
            w.head = true;
            r.longest = std::max(r.longest, t - w.since);
        }
        if (d->halt_i) {
            Warp& w = warps[d->halt_warp_i];
            w.state = State::Off, w.why = Why::None, w.head = false;
            w.at = t + 1 + rng() % 64;
            ++r.halts;
        }
        for (auto& w : warps) {
            bool waits = w.state == State::Fault || w.state == State::Run && !w.head;
            if (waits && t - w.since > 3000) return fail("a warp waited 3,000 cycles");
        }
        tick();
        ++t;
        return true;
    }
};

}  // namespace

int main(int argc, char** argv) {
    std::FILE* in = open_cases(argc, argv, "RUNS");
    if (!in) return 2;
    for (auto* ops : {&control_ops, &other_ops}) {
        unsigned op;
        while (std::fscanf(in, "%u", &op) == 1 && op < 256) ops->push_back(op);
    }
    uint64_t seed, cycles;
    uint32_t code_lines, warps;
    while (std::fscanf(in, "%" SCNu64 " %" SCNu64 " %u %u", &seed, &cycles, &code_lines,
                       &warps) == 4) {
        Bench b(seed, code_lines, warps);
        while (b.t < cycles && b.step()) {
        }
        if (b.wrong) {
            std::printf("MISMATCH cycle %" PRIu64 ": %s\n", b.t, b.wrong);
            return 1;
        }
        const Run& r = b.r;
        std::printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
                    " %" PRIu64 " %" PRIu64 "\n",
                    r.pops, r.redirects, r.controls, r.stops, r.faults, r.mem_faults, r.halts,
                    r.longest);
    }
    return 0;
}
