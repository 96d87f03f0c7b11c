// Testbenches that run a module one cycle a line of a file: each line gives the inputs in
// hexadecimal (any width), in the order of the testbench's list of setters; for each the
// testbench prints the listed outputs of that cycle (before its rising edge) in hexadecimal.
// The reset (two cycles, rst_ni low) comes before the first line.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tb.h"
#include "verilated.h"

namespace cycles {

// A hexadecimal number of any width, as 32-bit words, least significant first.
inline std::vector<uint32_t> words_of(const char* hex) {
    std::vector<uint32_t> w;
    for (size_t end = std::strlen(hex); end > 0;) {
        size_t begin = end >= 8 ? end - 8 : 0;
        w.push_back(static_cast<uint32_t>(std::stoul(std::string(hex + begin, end - begin), nullptr, 16)));
        end = begin;
    }
    return w;
}

inline uint32_t word(const std::vector<uint32_t>& w, size_t i) { return i < w.size() ? w[i] : 0; }

template <typename T>
void set(T& port, const std::vector<uint32_t>& w) {
    port = static_cast<T>(static_cast<uint64_t>(word(w, 1)) << 32 | word(w, 0));
}

template <std::size_t N>
void set(VlWide<N>& port, const std::vector<uint32_t>& w) {
    for (std::size_t i = 0; i < N; ++i) port[i] = word(w, i);
}

template <typename T>
void print(const T& port) {
    std::printf("%llx", static_cast<unsigned long long>(port));
}

template <std::size_t N>
void print(const VlWide<N>& port) {
    bool leading = true;
    for (std::size_t i = N; i-- > 0;) {
        if (leading && port[i] == 0 && i > 0) continue;
        std::printf(leading ? "%x" : "%08x", port[i]);
        leading = false;
    }
}

// A clock cycle: the rising edge, then the falling one.
template <typename Dut>
void tick(Dut& d) {
    d.clk_i = 1;
    d.eval();
    d.clk_i = 0;
    d.eval();
}

// Two cycles in reset, then out of it.
template <typename Dut>
void reset(Dut& d) {
    d.clk_i = 0;
    d.rst_ni = 0;
    d.eval();
    tick(d);
    tick(d);
    d.rst_ni = 1;
    d.eval();
}

using Setter = std::function<void(const std::vector<uint32_t>&)>;
using Printer = std::function<void()>;

// Resets the module, runs it on the file named in argv, and returns main's status.
template <typename Dut>
int run(int argc, char** argv, const std::vector<Setter>& (*setters)(Dut&),
        const std::vector<Printer>& (*printers)(Dut&)) {
    std::FILE* in = open_cases(argc, argv, "CYCLES");
    if (!in) return 2;
    auto ctx = std::make_unique<VerilatedContext>();
    auto dut = std::make_unique<Dut>(ctx.get());
    reset(*dut);
    const std::vector<Setter>& set_all = setters(*dut);
    const std::vector<Printer>& print_all = printers(*dut);
    long cycles = 0;
    char field[1024];
    for (bool more = true; more;) {
        for (const Setter& s : set_all) {
            if (std::fscanf(in, "%1023s", field) != 1) {
                more = false;
                break;
            }
            s(words_of(field));
        }
        if (!more) break;
        dut->eval();
        for (size_t i = 0; i < print_all.size(); ++i) {
            if (i > 0) std::printf(" ");
            print_all[i]();
        }
        std::printf("\n");
        tick(*dut);
        ++cycles;
    }
    dut->final();
    std::fprintf(stderr, "%ld cycles\n", cycles);
    return std::ferror(in) ? 1 : 0;
}

}  // namespace cycles

// The setter and printer of a port, for the lists.
#define CYCLES_IN(d, port) [&d](const std::vector<uint32_t>& w) { cycles::set(d.port, w); }
#define CYCLES_OUT(d, port) [&d] { cycles::print(d.port); }
