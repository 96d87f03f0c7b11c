// Runs hw/sgpu_int_div.sv on the divisions of a file, one a line in hexadecimal: the flags
// (sgn, rem and w64 in bits 0, 1 and 2), the dividend and the divisor. It prints a line for
// each, the result in hexadecimal and the cycles from start_i to done_o in decimal, and the
// most cycles of any on standard error.
//
// Clocked, after a reset: start_i is held high for one rising edge, then the clock runs until
// done_o. It checks the handshake as it goes: busy_o from the cycle after start_i until done_o,
// done_o for one cycle, and the result held after it. Every other division starts in the
// cycle of the previous done_o; every seventh is first started on other operands and abandoned
// after a few cycles, so the last start_i is the one that counts.
#include <cinttypes>
#include <cstdio>
#include <memory>

#include "Vsgpu_int_div.h"
#include "tb.h"
#include "verilated.h"

namespace {

// A division that never finishes: more than any latency the module documents.
constexpr int kLimit = 1000;

struct Bench {
    std::unique_ptr<VerilatedContext> ctx = std::make_unique<VerilatedContext>();
    std::unique_ptr<Vsgpu_int_div> dut = std::make_unique<Vsgpu_int_div>(ctx.get());

    // One rising edge, the inputs as they are set; the outputs then show the next cycle.
    void tick() {
        dut->clk_i = 1;
        dut->eval();
        dut->clk_i = 0;
        dut->eval();
    }

    void start(unsigned flags, uint64_t a, uint64_t b) {
        dut->start_i = 1;
        dut->sgn_i = flags & 1;
        dut->rem_i = flags >> 1 & 1;
        dut->w64_i = flags >> 2 & 1;
        dut->a_i = a;
        dut->b_i = b;
        tick();
        dut->start_i = 0;
        // The operands may change once taken.
        dut->a_i = ~a;
        dut->b_i = ~b;
    }
};

bool fail(uint64_t n, const char* what) {
    std::fprintf(stderr, "division %" PRIu64 ": %s\n", n, what);
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    std::FILE* in = open_cases(argc, argv, "DIVISIONS");
    if (!in) return 2;
    Bench tb;
    tb.dut->clk_i = 0;
    tb.dut->rst_ni = 0;
    tb.dut->start_i = 0;
    tb.dut->eval();
    tb.tick();
    tb.tick();
    tb.dut->rst_ni = 1;
    tb.dut->eval();
    tb.tick();
    if (tb.dut->busy_o || tb.dut->done_o) {
        std::fprintf(stderr, "busy_o or done_o after reset\n");
        return 1;
    }

    unsigned flags;
    uint64_t a, b;
    uint64_t n = 0;
    int max_cycles = 0;
    bool ok = true;
    while (ok && std::fscanf(in, "%x %" SCNx64 " %" SCNx64, &flags, &a, &b) == 3) {
        if (n % 7 == 3) {
            tb.start(flags ^ 1, b, a);
            for (uint64_t k = 0; k < n % 40; ++k) tb.tick();
        }
        tb.start(flags, a, b);
        int cycles = 1;
        while (!tb.dut->done_o && cycles < kLimit) {
            if (!tb.dut->busy_o) {
                ok = fail(n, "busy_o low before done_o");
                break;
            }
            tb.tick();
            ++cycles;
        }
        if (!ok) break;
        if (!tb.dut->done_o) {
            ok = fail(n, "no done_o");
            break;
        }
        if (tb.dut->busy_o) {
            ok = fail(n, "busy_o with done_o");
            break;
        }
        uint64_t result = tb.dut->result_o;
        std::printf("%" PRIx64 " %d\n", result, cycles);
        if (cycles > max_cycles) max_cycles = cycles;
        if (n % 2 == 0) {
            tb.tick();
            if (tb.dut->done_o || tb.dut->busy_o) {
                ok = fail(n, "done_o or busy_o the cycle after done_o");
            } else if (tb.dut->result_o != result) {
                ok = fail(n, "result_o not held after done_o");
            }
        }
        ++n;
    }
    tb.dut->final();
    std::fprintf(stderr, "%" PRIu64 " divisions, at most %d cycles\n", n, max_cycles);
    return ok && !std::ferror(in) ? 0 : 1;
}
