//! `hw/sgpu_int_alu.sv`, built with Verilator, computes what the golden model computes
//! (`sgpu_sim::exec::evaluate`) in one lane: random valid instructions of every opcode it
//! implements, with random values in every field they use, on operands biased to the edges
//! (0, 1, the extremes of both signednesses, small shift counts and bit positions, equal
//! operands, RZ), with random carry and predicates. Every output the instruction defines
//! must match: rd (and rd+1 for IMADW) unless it is RZ, the carry with `.cc`, pd and pq. The
//! ALU must give zeros for every other opcode. Registers the instruction does not read (an
//! immediate's field, an opcode without rb) reach the ALU as random values, to show it
//! ignores them.
//!
//! `RTL_TEST_CASES=2000000 cargo test -p rtl-tests --test int_alu --release` runs more cases
//! (the default is 200,000). Verilator (5.006 or later) must be installed; without it the
//! test fails and says so.

mod common;

use common::{hex_values, int_cases, Rng};
use sgpu_isa::INSTRUCTIONS;
use std::fmt::Write as _;

const RTL: [&str; 3] = [
    "hw/sgpu_isa_pkg.sv",
    "hw/sgpu_core_pkg.sv",
    "hw/sgpu_int_alu.sv",
];
const TESTBENCH: &str = "rtl-tests/tb/int_alu_tb.cpp";

/// The instructions the ALU computes; it gives zeros for the others.
const OPS: [&str; 27] = [
    "MOV", "MOV32I", "SEL", "PLOP", "IADD", "IADD32I", "IMUL", "IMUL32I", "IMAD", "IMADW", "IMNMX",
    "IABS", "ISETP", "LOP3", "LOP32I", "SHL", "SHR", "SHF", "BFE", "BFI", "POPC", "CLZ", "FLO",
    "BREV", "PRMT", "PRMTI", "I2I",
];

#[test]
fn the_integer_alu_computes_what_the_golden_model_does() {
    let count = common::count_from_env("RTL_TEST_CASES", 200_000) as usize;
    let alu = common::instructions(&OPS);
    let others: Vec<(&str, u8, u64)> = INSTRUCTIONS
        .iter()
        .filter(|(n, _, _)| !OPS.contains(n))
        .copied()
        .collect();
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    // One case in 32 is another unit's instruction, which must give zeros.
    let cases = int_cases::cases(&mut rng, count, &alu, &others, Some(32));

    let exe = common::testbench("sgpu_int_alu", &RTL, TESTBENCH);
    let input = cases.iter().fold(String::new(), |mut s, (case, _)| {
        s.write_str(&case.input_line()).unwrap();
        s
    });
    let lines = common::run(&exe, &input);

    let mut tested = vec![0usize; OPS.len()];
    let mismatches: Vec<String> = cases
        .iter()
        .zip(&lines)
        .filter_map(|((case, want), line)| {
            int_cases::check(case, want, &hex_values(line), &OPS, &mut tested)
        })
        .collect();
    int_cases::assert_agree(&mismatches, cases.len(), &OPS, &tested);
}
