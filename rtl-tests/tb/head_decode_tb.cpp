// Feeds hw/sgpu_head_decode.sv the words of a file (one hexadecimal word a line) and prints,
// a line each, in hexadecimal: the three read ranges (reads_o), the predicates read, the
// range written and the predicates written. The module is combinational: eval() once per
// word.
#include <cinttypes>
#include <cstdio>
#include <memory>

#include "Vsgpu_head_decode.h"
#include "tb.h"
#include "verilated.h"

int main(int argc, char** argv) {
    std::FILE* in = open_cases(argc, argv, "WORDS");
    if (!in) return 2;
    auto ctx = std::make_unique<VerilatedContext>();
    auto dut = std::make_unique<Vsgpu_head_decode>(ctx.get());
    uint64_t word;
    while (std::fscanf(in, "%" SCNx64, &word) == 1) {
        dut->instr_i = word;
        dut->eval();
        std::printf("%" PRIx64 " %x %x %x\n", static_cast<uint64_t>(dut->reads_o),
                    dut->pred_reads_o, dut->writes_o, dut->pred_writes_o);
    }
    dut->final();
    return std::ferror(in) ? 1 : 0;
}
