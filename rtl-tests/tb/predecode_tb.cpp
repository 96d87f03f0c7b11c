// Feeds hw/sgpu_predecode.sv the words of a file (one hexadecimal word a line) and prints, a
// line each, what it makes of them: illegal, opcode, guard predicate, guard negation, rd, ra,
// rb, rc, b immediate, c immediate, unit, written fields, and the registers rd, ra, rb and rc
// span, in hexadecimal. The module is combinational: eval() once
// per word.
#include <cinttypes>
#include <cstdio>
#include <memory>

#include "Vsgpu_predecode.h"
#include "tb.h"
#include "verilated.h"

int main(int argc, char** argv) {
    std::FILE* in = open_cases(argc, argv, "WORDS");
    if (!in) return 2;
    auto ctx = std::make_unique<VerilatedContext>();
    auto dut = std::make_unique<Vsgpu_predecode>(ctx.get());
    uint64_t word;
    while (std::fscanf(in, "%" SCNx64, &word) == 1) {
        dut->instr_i = word;
        dut->eval();
        std::printf("%x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x\n", dut->illegal_o,
                    dut->opcode_o, dut->guard_pred_o, dut->guard_neg_o, dut->rd_o, dut->ra_o,
                    dut->rb_o, dut->rc_o, dut->b_imm_o, dut->c_imm_o, dut->unit_o,
                    dut->writes_o, dut->rd_regs_o, dut->ra_regs_o, dut->rb_regs_o,
                    dut->rc_regs_o);
    }
    dut->final();
    return std::ferror(in) ? 1 : 0;
}
