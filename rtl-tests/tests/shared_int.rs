//! `hw/sgpu_shared_int.sv`, core v2's pipelined shared integer operations (BFE, BFI, POPC,
//! CLZ, FLO, BREV, PRMT, PRMTI, I2I), built with Verilator, computes what the golden model
//! computes (`sgpu_sim::exec::evaluate`) in one lane, an operation a cycle, each result
//! exactly two cycles after its operands: random valid words of every opcode with random
//! values in every field they use, on operands biased to the edges (`common::int_cases`,
//! as for the lane ALU), mostly back to back, with idle cycles between (another unit's word
//! and random values on the inputs, which it must ignore); and BFE and BFI at every position
//! and length from 0 to 40 and past (63, 64, 65, 127, 128, 255), where their fields meet the
//! word's ends, with the operands' other bits random. The same cases on yosys's
//! gate-level netlist of it. `RTL_TEST_CASES=N` runs N cases (200,000 by default); the
//! shared unit's test (`shared_unit.rs`) runs it inside the queue. Verilator (5.006 or
//! later) must be installed; without it the test fails and says so.

mod common;

use common::int_cases::{self, Case, SHARED_OPS};
use common::{combinations, hex_values, Rng};
use sgpu_isa::{decode, fields, Reg, INSTRUCTIONS};
use sgpu_sim::exec::{evaluate, Evaluated};

const RTL: [&str; 3] = [
    "hw/sgpu_isa_pkg.sv",
    "hw/sgpu_core_pkg.sv",
    "hw/sgpu_shared_int.sv",
];
const TESTBENCH: &str = "rtl-tests/tb/shared_int_tb.cpp";
const LATENCY: usize = 2;

#[test]
fn computes_what_the_golden_model_does_two_cycles_later() {
    agrees_with_the_model(&common::testbench("sgpu_shared_int", &RTL, TESTBENCH));
}

#[test]
fn its_gate_level_netlist_computes_the_same() {
    let exe = common::netlist_testbench("sgpu_shared_int", &RTL, TESTBENCH, &[]);
    agrees_with_the_model(&exe);
}

fn agrees_with_the_model(exe: &std::path::Path) {
    let count = common::count_from_env("RTL_TEST_CASES", 200_000) as usize;
    let ops = common::instructions(&SHARED_OPS);
    let others: Vec<(&str, u8, u64)> = INSTRUCTIONS
        .iter()
        .filter(|(n, _, _)| !SHARED_OPS.contains(n))
        .copied()
        .collect();
    let mut rng = Rng::new(0x6a09_e667_f3bc_c908);
    let mut cases = int_cases::cases(&mut rng, count, &ops, &[], None);
    cases.extend(bit_field_edges(&mut rng));
    // Each cycle: a case, or an idle cycle with another unit's inputs.
    let mut schedule: Vec<Option<usize>> = Vec::new();
    let mut input = String::new();
    for (k, (case, _)) in cases.iter().enumerate() {
        while rng.word().is_multiple_of(4) {
            let (_, op, used) = others[(rng.word() % others.len() as u64) as usize];
            let idle = int_cases::case(&mut rng, op, used);
            input += &format!("0 {:x} {:x} {:x} {:x}\n", idle.word, idle.a, idle.b, idle.c);
            schedule.push(None);
        }
        input += &format!("1 {:x} {:x} {:x} {:x}\n", case.word, case.a, case.b, case.c);
        schedule.push(Some(k));
    }
    for _ in 0..LATENCY {
        input += "0 0 0 0 0\n";
        schedule.push(None);
    }
    let lines = common::run(exe, &input);
    let mut tested = vec![0usize; SHARED_OPS.len()];
    let mut mismatches = Vec::new();
    for (t, k) in schedule.iter().enumerate() {
        if let Some(k) = *k {
            let (case, want) = &cases[k];
            let d = hex_values(&lines[t + LATENCY])[0];
            if let Some(m) =
                int_cases::check(case, want, &[d, 0, 0, 0, 0], &SHARED_OPS, &mut tested)
            {
                mismatches.push(format!("cycle {t}: {m}"));
            }
        }
    }
    int_cases::assert_agree(&mismatches, cases.len(), &SHARED_OPS, &tested);
    println!(
        "{} cases of {} opcodes agree",
        cases.len(),
        SHARED_OPS.len()
    );
}

/// BFE and BFI (their register forms, every modifier) at the positions and lengths where
/// a field meets the word's ends, on a few values of a with the operands' other bits random.
fn bit_field_edges(rng: &mut Rng) -> Vec<(Case, Option<Evaluated>)> {
    let at: Vec<u32> = (0..=40).chain([63, 64, 65, 127, 128, 255]).collect();
    let immediates = fields::BI.mask() | fields::CI.mask();
    let mut cases = Vec::new();
    for (_, op, used) in common::instructions(&["BFE", "BFI"]) {
        let bfi = op == common::instructions(&["BFI"])[0].1;
        for word in combinations(op, used, [4, 1, 2, 3]) {
            if word & immediates != 0 {
                continue;
            }
            let insn = decode(word).expect("a valid word");
            for &pos in &at {
                for &len in &at {
                    for a in [0xffff_fffe, 0x8000_0001, rng.word() as u32] {
                        let high = rng.word() as u32;
                        let (b, c) = if bfi {
                            (rng.word() as u32, high << 16 | len << 8 | pos)
                        } else {
                            (high << 8 | pos, rng.word() as u32 & !0xff | len)
                        };
                        let regs = vec![(Reg(1), a), (Reg(2), b), (Reg(3), c)];
                        let want = evaluate(insn, &regs, &[], false);
                        let case = Case {
                            word,
                            insn,
                            a,
                            b,
                            c,
                            c_hi: 0,
                            carry: false,
                            pa: false,
                            pc: false,
                            regs,
                            preds: Vec::new(),
                        };
                        cases.push((case, Some(want.expect("the model evaluates it"))));
                    }
                }
            }
        }
    }
    cases
}
