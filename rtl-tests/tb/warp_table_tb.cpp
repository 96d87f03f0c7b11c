// Runs hw/sgpu_warp_table.sv with the real front end (warp_table_top.sv) in a closed loop with
// the rest of a core written here: the memory behind the instruction cache (fill_memory.h),
// the launch, the issue (a pop of an announced head of a warp the table lets issue, most
// cycles) and the control unit (each control instruction's outcome sent a random number of
// cycles after its pop, computed from the program as warp_table.rs's model computes it).
//
// The input is runs, each a header line `seed cycles warps cta0_warps last_lanes words`
// then `words` lines `word kind target guard taken limit` (hexadecimal), one an instruction:
// the word the cache serves, and what the control unit makes of it (kind: 0 not a control
// instruction, 1 NOP, 2 BRA, 3 SSY, 4 EXIT, 5 CALL, 6 RET, 7 BAR, 8 TRAP; target an
// instruction index, or BAR's barrier; the lanes that run it are the active ones of
// `guard`; a branch is taken by those of them in `taken` for its first (limit + w) % 5 runs
// in warp w, by none after, so that warps loop different numbers of times; a CALL with
// limit 1, or with limit 0 in a warp 60 calls deep (its calls less its returns, those with
// lanes running), moves a frame past the end of local memory, a fault the table raises
// once the stack has taken the call, so that deep recursions meet the stack's overflow
// too; a TRAP with lanes running is an outcome that is a trap).
// CTA 0 has warps 0 to cta0_warps - 1, CTA 1 the rest; every warp starts at instruction 0,
// with 32 lanes but the last, which has `last_lanes`.
//
// For each run it prints a line an event: "i WARP PC MASK" an instruction popped (PC its
// index), "l WARPS" a barrier released the warps WARPS (a mask), "x WARP LAST" a warp
// exited, "t WARP CAUSE PC" the trap, in the order they happen; then "end CYCLES" when
// every warp has exited or trapped, or "stuck CYCLES" past the run's cycles.
#include <cinttypes>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "Vwarp_table_top.h"
#include "cycles.h"
#include "fill_memory.h"

namespace {

struct Insn {
    uint64_t word;
    unsigned kind, target;
    uint32_t guard, taken, limit;
};

enum Kind { OTHER, NOP, BRA, SSY, EXIT, CALL, RET, BAR, TRAP };
const unsigned TRAP_INSTRUCTION = 3;
const uint32_t FRAME_DEPTH = 60;
// sgpu_simt_stack's operations.
enum Op { ADVANCE, OP_SSY, BRANCH, OP_EXIT, OP_CALL, OP_RET };

std::vector<Insn> program;

uint64_t code_word(uint64_t, uint64_t offset) {
    return offset / 8 < program.size() ? program[offset / 8].word : 0;
}

// A control instruction's outcome, due at a cycle.
struct Outcome {
    uint64_t due;
    unsigned warp, kind;
    uint32_t next, target, mask;
    bool bar;
    uint32_t id;
    unsigned trap;
    bool frame_fault;
};

struct Bench {
    std::mt19937_64 rng;
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Vwarp_table_top> d;
    FillMemory<Vwarp_table_top> mem;
    unsigned warps;
    std::vector<bool> announced;
    std::map<std::pair<unsigned, uint32_t>, uint32_t> visits;  // (warp, pc) -> runs so far
    std::map<unsigned, uint32_t> depth;                       // warp -> calls less returns
    std::deque<Outcome> outcomes;                             // in the order of their pops
    uint64_t t = 0;
    unsigned exits = 0, starts = 0;

    Bench(uint64_t seed, unsigned n)
        : rng(seed), ctx(std::make_unique<VerilatedContext>()),
          d(std::make_unique<Vwarp_table_top>(ctx.get())),
          mem{(rng() & 0xffffffffull) << 5,
              static_cast<uint32_t>((program.size() * 8 + 31) / 32),
              static_cast<uint32_t>((program.size() * 8 + 31) / 32)},
          warps(n), announced(n) {
        mem.word = code_word;
        d->code_base_i = mem.base;
        d->code_bytes_i = static_cast<uint32_t>(program.size() * 8);
        cycles::reset(*d);
    }

    void launch(unsigned cta0, uint32_t last_lanes) {
        for (unsigned c = 0; c < 2; ++c) {
            uint32_t mask = (1u << cta0) - 1;
            d->cta_start_i = 1;
            d->cta_start_cta_i = c;
            d->cta_start_warps_i = c == 0 ? mask : ((warps >= 32 ? 0 : 1u << warps) - 1) & ~mask;
            cycle();
        }
        d->cta_start_i = 0;
        while (starts < warps) {
            d->start_i = d->start_ready_o;
            d->start_warp_i = starts;
            d->start_pc_i = 0;
            d->start_lanes_i = starts + 1 == warps ? last_lanes : 0xffffffffu;
            if (d->start_ready_o) ++starts;
            cycle();
        }
        d->start_i = 0;
    }

    // The control unit's outcome of the instruction at `pc`, popped with active lanes `mask`.
    void outcome(unsigned w, uint32_t pc, uint32_t mask) {
        const Insn& in = program[pc];
        if (in.kind == OTHER) return;
        uint32_t exec = mask & in.guard;
        uint32_t runs = visits[{w, pc}]++;
        Outcome o{t + 1 + rng() % 12, w, ADVANCE, (pc + 1) * 8, in.target * 8, exec, false, 0, 0,
                  false};
        switch (in.kind) {
            case BRA:
                o.kind = BRANCH;
                o.mask = runs < (in.limit + w) % 5 ? exec & in.taken : 0;
                break;
            case SSY: o.kind = OP_SSY; break;
            case EXIT: o.kind = OP_EXIT; break;
            case CALL:
                o.kind = OP_CALL;
                o.frame_fault = exec != 0 && (in.limit == 1 || in.limit == 0 && depth[w] >= FRAME_DEPTH);
                if (exec != 0) ++depth[w];
                break;
            case RET:
                o.kind = OP_RET;
                if (exec != 0 && depth[w] > 0) --depth[w];
                break;
            case BAR:
                o.bar = exec != 0;
                o.id = in.target;
                break;
            case TRAP:
                if (exec != 0) o.trap = TRAP_INSTRUCTION;
                break;
            default: break;
        }
        outcomes.push_back(o);
    }

    // Drives this cycle's issue and control unit, prints its events, and clocks.
    void cycle() {
        mem.drive(*d, rng, t);
        d->pop_i = 0;
        d->ctl_valid_i = 0;
        d->eval();
        std::vector<unsigned> ready;
        for (unsigned w = 0; w < warps; ++w)
            if (announced[w] && (d->issuable_o >> w & 1)) ready.push_back(w);
        if (!ready.empty() && rng() % 4 != 0) {
            d->pop_i = 1;
            d->pop_warp_i = ready[rng() % ready.size()];
        }
        if (!outcomes.empty() && outcomes.front().due <= t) {
            const Outcome& o = outcomes.front();
            d->ctl_valid_i = 1;
            d->ctl_warp_i = o.warp;
            d->ctl_kind_i = o.kind;
            d->ctl_next_i = o.next;
            d->ctl_target_i = o.target;
            d->ctl_mask_i = o.mask;
            d->ctl_bar_i = o.bar;
            d->ctl_bar_id_i = o.id;
            d->ctl_bar_waits_i = 1;
            d->ctl_trap_i = o.trap;
            d->ctl_frame_fault_i = o.frame_fault;
        }
        d->eval();
        if (const char* wrong = mem.observe(*d, rng, t)) {
            std::printf("MISMATCH cycle %" PRIu64 ": %s\n", t, wrong);
            std::exit(1);
        }
        if (d->pop_i) {
            unsigned w = d->pop_warp_i;
            uint32_t pc = d->pop_pc_o / 8;
            std::printf("i %x %x %x\n", w, pc, d->pop_mask_o);
            announced[w] = false;
            outcome(w, pc, d->pop_mask_o);
        }
        if (d->ctl_valid_i && d->ctl_ready_o) outcomes.pop_front();
        if (d->rel_o) std::printf("l %x\n", d->rel_warps_o);
        if (d->head_o) announced[d->head_warp_o] = true;
        if (d->exit_o) {
            std::printf("x %x %x\n", d->exit_warp_o, d->exit_last_o);
            ++exits;
        }
        cycles::tick(*d);
        ++t;
    }
};

}  // namespace

int main(int argc, char** argv) {
    std::FILE* in = open_cases(argc, argv, "RUNS");
    if (!in) return 2;
    uint64_t seed, limit;
    unsigned warps, cta0, words;
    uint32_t last_lanes;
    while (std::fscanf(in, "%" SCNx64 " %" SCNx64 " %x %x %x %x", &seed, &limit, &warps, &cta0,
                       &last_lanes, &words) == 6) {
        program.assign(words, Insn{});
        for (Insn& i : program) {
            if (std::fscanf(in, "%" SCNx64 " %x %x %x %x %x", &i.word, &i.kind, &i.target,
                            &i.guard, &i.taken, &i.limit) != 6)
                return 2;
        }
        Bench b(seed, warps);
        b.launch(cta0, last_lanes);
        bool trapped = false;
        while (b.exits < warps && !trapped && b.t < limit) {
            b.cycle();
            if (b.d->trap_o) {
                std::printf("t %x %x %x\n", b.d->trap_warp_o, b.d->trap_cause_o,
                            b.d->trap_pc_o / 8);
                trapped = true;
            }
        }
        std::printf("%s %" PRIu64 "\n", b.exits == warps || trapped ? "end" : "stuck", b.t);
        b.d->final();
    }
    return 0;
}
