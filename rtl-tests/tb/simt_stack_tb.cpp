// Runs hw/sgpu_simt_stack.sv on the lines of a file, in hexadecimal: `0 warp pc lanes`
// starts a warp; `1 kind warp next target mask waiting frame` is an operation. For a start
// it prints `-`; for an operation, a line: the fault, the warp's top pc, reconvergence pc and mask, its
// stack's size, the lanes and frame of a return, and (in decimal) the cycles from the
// operation's acceptance to done_o.
//
// Clocked, after a reset. An operation is held until ready_o, then the clock runs until
// done_o; the inputs change to noise once it is taken. It checks the handshake: ready_o
// low from the operation's acceptance until done_o, done_o for one cycle, the answer for
// the operation's own warp.
#include <cinttypes>
#include <cstdio>
#include <memory>

#include "Vsgpu_simt_stack.h"
#include "tb.h"
#include "verilated.h"

namespace {

// More than any operation takes: a sweep of the deepest stack and pops of all of it.
constexpr int kLimit = 1000;

struct Bench {
    std::unique_ptr<VerilatedContext> ctx = std::make_unique<VerilatedContext>();
    std::unique_ptr<Vsgpu_simt_stack> dut = std::make_unique<Vsgpu_simt_stack>(ctx.get());

    void tick() {
        dut->clk_i = 1;
        dut->eval();
        dut->clk_i = 0;
        dut->eval();
    }

    void noise(uint32_t seed) {
        dut->op_kind_i = seed % 6;
        dut->op_next_i = seed * 2654435761u;
        dut->op_target_i = ~seed;
        dut->op_mask_i = seed * 40503u;
        dut->op_waiting_i = seed ^ 0x5a5a5a5au;
        dut->op_frame_i = seed + 17;
    }
};

bool fail(uint64_t n, const char* what) {
    std::fprintf(stderr, "line %" PRIu64 ": %s\n", n, what);
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    std::FILE* in = open_cases(argc, argv, "OPERATIONS");
    if (!in) return 2;
    Bench tb;
    tb.dut->clk_i = 0;
    tb.dut->rst_ni = 0;
    tb.dut->start_i = 0;
    tb.dut->op_valid_i = 0;
    tb.dut->eval();
    tb.tick();
    tb.dut->rst_ni = 1;
    tb.dut->eval();
    tb.tick();

    uint32_t tag, kind, warp, next, target, mask, waiting, frame;
    uint64_t n = 0;
    int max_cycles = 0;
    bool ok = true;
    while (ok && std::fscanf(in, "%x", &tag) == 1) {
        ++n;
        if (tag == 0) {
            if (std::fscanf(in, "%x %x %x", &warp, &next, &mask) != 3) return fail(n, "a bad start"), 2;
            if (!tb.dut->ready_o) ok = fail(n, "not ready for a start");
            tb.dut->start_i = 1;
            tb.dut->start_warp_i = warp;
            tb.dut->start_pc_i = next;
            tb.dut->start_lanes_i = mask;
            tb.tick();
            tb.dut->start_i = 0;
            tb.dut->eval();
            std::printf("-\n");
            continue;
        }
        if (std::fscanf(in, "%x %x %x %x %x %x %x", &kind, &warp, &next, &target, &mask, &waiting,
                        &frame) != 7) {
            return fail(n, "a bad operation"), 2;
        }
        tb.dut->op_valid_i = 1;
        tb.dut->op_kind_i = kind;
        tb.dut->op_warp_i = warp;
        tb.dut->op_next_i = next;
        tb.dut->op_target_i = target;
        tb.dut->op_mask_i = mask;
        tb.dut->op_waiting_i = waiting;
        tb.dut->op_frame_i = frame;
        tb.dut->eval();
        if (!tb.dut->ready_o) ok = fail(n, "not ready between operations");
        tb.tick();
        tb.dut->op_valid_i = n % 3 == 0;  // offered again while busy: must be ignored
        tb.noise(static_cast<uint32_t>(n));
        int cycles = 1;
        while (!tb.dut->done_o && cycles < kLimit) {
            if (tb.dut->ready_o) {
                ok = fail(n, "ready_o before done_o");
                break;
            }
            tb.tick();
            ++cycles;
        }
        tb.dut->op_valid_i = 0;
        if (!ok) break;
        if (!tb.dut->done_o) {
            ok = fail(n, "no done_o");
            break;
        }
        if (tb.dut->done_warp_o != warp) {
            ok = fail(n, "done_o for another warp");
            break;
        }
        std::printf("%x %x %x %x %x %x %x %x %d\n", tb.dut->done_fault_o, tb.dut->done_pc_o,
                    tb.dut->done_rpc_o, tb.dut->done_mask_o, tb.dut->done_size_o,
                    tb.dut->ret_lanes_o, tb.dut->ret_frame_o, tb.dut->done_call_o, cycles);
        if (cycles > max_cycles) max_cycles = cycles;
        tb.tick();
        if (tb.dut->done_o) ok = fail(n, "done_o for two cycles");
    }
    tb.dut->final();
    std::fprintf(stderr, "%" PRIu64 " lines, at most %d cycles an operation\n", n, max_cycles);
    return ok && !std::ferror(in) ? 0 : 1;
}
