// Feeds hw/sgpu_int_alu.sv the cases of a file, a line each in hexadecimal: the instruction
// word, a, b, c, c_hi, and the bits carry | pa << 1 | pc << 2. Prints, a line each: d, d_hi,
// carry, pd and pq, in hexadecimal. The module is combinational: eval() once per case.
#include <cinttypes>
#include <cstdio>
#include <memory>

#include "Vsgpu_int_alu.h"
#include "tb.h"
#include "verilated.h"

int main(int argc, char** argv) {
    std::FILE* in = open_cases(argc, argv, "CASES");
    if (!in) return 2;
    auto ctx = std::make_unique<VerilatedContext>();
    auto dut = std::make_unique<Vsgpu_int_alu>(ctx.get());
    uint64_t word;
    uint32_t a, b, c, c_hi, bits;
    while (std::fscanf(in, "%" SCNx64 " %" SCNx32 " %" SCNx32 " %" SCNx32 " %" SCNx32
                       " %" SCNx32,
                       &word, &a, &b, &c, &c_hi, &bits) == 6) {
        dut->en_i = 1;
        dut->instr_i = word;
        dut->a_i = a;
        dut->b_i = b;
        dut->c_i = c;
        dut->c_hi_i = c_hi;
        dut->carry_i = bits & 1;
        dut->pa_i = bits >> 1 & 1;
        dut->pc_i = bits >> 2 & 1;
        dut->eval();
        std::printf("%x %x %x %x %x\n", dut->d_o, dut->d_hi_o, dut->carry_o, dut->pd_o,
                    dut->pq_o);
        // Disabled, the lane's outputs are zero whatever its inputs.
        dut->en_i = 0;
        dut->eval();
        if (dut->d_o | dut->d_hi_o | dut->carry_o | dut->pd_o | dut->pq_o) {
            std::fprintf(stderr, "en_i low but the outputs are not zero for %016" PRIx64 "\n",
                         word);
            return 3;
        }
    }
    dut->final();
    return std::ferror(in) ? 1 : 0;
}
