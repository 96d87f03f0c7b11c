//! `hw/sgpu_lane_alu.sv`, core v2's pipelined integer ALU of a lane, built with Verilator,
//! computes what the golden model computes (`sgpu_sim::exec::evaluate`) in one lane, an
//! operation a cycle, each result exactly four cycles after its operation went in: random
//! valid instructions of every opcode it implements, with random values in every field they
//! use, on operands biased to the edges (the cases of `common::int_cases`, as for the first
//! core's ALU), mostly back to back, with idle cycles between (random values and other
//! units' words on the inputs then, which it must ignore), and now and then a reset in the
//! middle, which must drop the operations in flight and zero the outputs. IMADW goes in as
//! its two passes (the product's low word plus rc; then the high word plus rc+1 and the
//! carry the ALU kept for the beat), sometimes with other cycles between them, and the two
//! words together must be the model's 64-bit result. Another unit's
//! opcode given to it trips its assertion. The same cases run on yosys's gate-level netlist
//! of it (hw/synth/netlist.sh, as for the core's `cosim_netlist.rs`): the multiply written
//! as 17 x 17 signed products, 150 LUT4 smaller on ECP5, came out wrong there (yosys 0.23).
//!
//! `RTL_TEST_CASES=2000000 cargo test -p rtl-tests --test lane_alu --release` runs more
//! cases (the default is 200,000). Verilator (5.006 or later) must be installed; without it
//! the test fails and says so.

mod common;

use common::int_cases::{self, Case};
use common::{hex_values, Rng};
use sgpu_isa::{Op, INSTRUCTIONS};
use sgpu_sim::exec::Evaluated;
use std::fmt::Write as _;

const RTL: [&str; 3] = [
    "hw/sgpu_isa_pkg.sv",
    "hw/sgpu_core_pkg.sv",
    "hw/sgpu_lane_alu.sv",
];
const TESTBENCH: &str = "rtl-tests/tb/lane_alu_tb.cpp";

/// The ALU's latency: the cycles from an operation's valid_i to its valid_o.
const LATENCY: usize = 4;

/// The instructions every lane computes (the shared unit computes the integer unit's others).
const OPS: [&str; 18] = int_cases::LANE_OPS;

/// The testbench's beats (sgpu_lane_alu's default BEATS).
const BEATS: usize = 4;

/// A cycle's input line: rst_ni, valid_i, beat_i, then the case's word and operands as
/// its pass `pass` takes them (IMADW's second: rc+1 for rc).
fn line(reset: bool, valid: bool, beat: usize, case: &Case, pass: usize) -> String {
    let c = [case.c, case.c_hi][pass];
    format!(
        "{:x} {:x} {beat:x} {:x} {:x} {:x} {c:x} {pass:x} {:x} {:x} {:x}\n",
        u8::from(!reset),
        u8::from(valid),
        case.word,
        case.a,
        case.b,
        u8::from(case.carry),
        u8::from(case.pa),
        u8::from(case.pc)
    )
}

/// IMADW's passes: 2 (the low word, then the high), every other operation's 1.
fn passes(case: &Case) -> usize {
    if matches!(case.insn.op, Op::Imadw { .. }) {
        2
    } else {
        1
    }
}

/// What goes in each cycle: a case's pass (its index, the pass and its beat), an idle cycle
/// with another case's inputs on the ports, or a reset.
#[derive(Clone, Copy)]
enum Cycle {
    Op(usize, usize, usize),
    Idle(usize),
    Reset,
}

#[test]
fn the_lane_alu_computes_what_the_golden_model_does_four_cycles_later() {
    agrees_with_the_model(&common::testbench("sgpu_lane_alu", &RTL, TESTBENCH));
}

#[test]
fn its_gate_level_netlist_computes_the_same() {
    let exe = common::netlist_testbench("sgpu_lane_alu", &RTL, TESTBENCH, &[]);
    agrees_with_the_model(&exe);
}

/// Runs the testbench `exe` (the RTL's or the netlist's) on the random cases.
fn agrees_with_the_model(exe: &std::path::Path) {
    let count = common::count_from_env("RTL_TEST_CASES", 200_000) as usize;
    let ops = common::instructions(&OPS);
    let others: Vec<(&str, u8, u64)> = INSTRUCTIONS
        .iter()
        .filter(|(n, _, _)| !OPS.contains(n))
        .copied()
        .collect();
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let cases = int_cases::cases(&mut rng, count, &ops, &[], None);
    // The inputs of idle cycles: any unit's words, which the ALU must not look at.
    let idle: Vec<Case> = (0..4096)
        .map(|_| {
            let (_, op, used) = others[(rng.word() % others.len() as u64) as usize];
            int_cases::case(&mut rng, op, used)
        })
        .collect();

    // Mostly back to back; one pass in four after one to three idle cycles; one case in
    // 5,000 after a reset (so the cases just before it never come out).
    let mut schedule = Vec::new();
    let idle_cycles = |rng: &mut Rng, schedule: &mut Vec<Cycle>| {
        if rng.word().is_multiple_of(4) {
            for _ in 0..=rng.word() % 3 {
                schedule.push(Cycle::Idle((rng.word() % idle.len() as u64) as usize));
            }
        }
    };
    // IMADW's second passes wait, a beat's until another IMADW of its beat or a coin says
    // so: other operations and other beats' passes come between, as in the core.
    let mut second: [Option<usize>; BEATS] = [None; BEATS];
    for (k, (case, _)) in cases.iter().enumerate() {
        let beat = (rng.word() % BEATS as u64) as usize;
        for (b, waiting) in second.iter_mut().enumerate() {
            if (b == beat || rng.word().is_multiple_of(3)) && waiting.is_some() {
                idle_cycles(&mut rng, &mut schedule);
                schedule.push(Cycle::Op(waiting.take().unwrap(), 1, b));
            }
        }
        if second.iter().all(Option::is_none) && rng.word().is_multiple_of(5000) {
            schedule.push(Cycle::Reset);
        }
        idle_cycles(&mut rng, &mut schedule);
        schedule.push(Cycle::Op(k, 0, beat));
        if passes(case) == 2 {
            second[beat] = Some(k);
        }
    }
    for (b, k) in second.iter().enumerate() {
        if let Some(k) = *k {
            schedule.push(Cycle::Op(k, 1, b));
        }
    }
    schedule.extend((0..=LATENCY).map(Cycle::Idle));

    let input = schedule.iter().fold(String::new(), |mut s, cycle| {
        let text = match *cycle {
            Cycle::Op(k, pass, beat) => line(false, true, beat, &cases[k].0, pass),
            Cycle::Idle(k) => line(false, false, k % BEATS, &idle[k], k % 2),
            Cycle::Reset => line(true, false, 0, &idle[0], 0),
        };
        s.write_str(&text).unwrap();
        s
    });
    let lines = common::run(exe, &input);

    // The pipeline as the test expects it: which case's pass each stage holds.
    let mut stages: [Option<(usize, usize)>; LATENCY] = [None; LATENCY];
    let mut zeroed = true; // no result since a reset: every output zero
    let mut low_words = std::collections::HashMap::new(); // IMADW's first passes' results
    let mut tested = vec![0usize; OPS.len()];
    let (mut mismatches, mut results, mut dropped) = (Vec::new(), 0usize, 0usize);
    for (t, (cycle, out)) in schedule.iter().zip(&lines).enumerate() {
        let rtl = hex_values(out);
        if let Cycle::Reset = cycle {
            dropped += stages
                .iter()
                .flatten()
                .filter(|&&(k, pass)| pass + 1 == passes(&cases[k].0))
                .count();
            stages = [None; LATENCY];
            zeroed = true;
        }
        match stages[LATENCY - 1] {
            Some((k, pass)) => {
                zeroed = false;
                let (case, want): &(Case, Option<Evaluated>) = &cases[k];
                let (valid, d, carry, pd, pq) = (rtl[0], rtl[1], rtl[2], rtl[3], rtl[4]);
                if valid != 1 {
                    mismatches.push(format!("cycle {t}: no result for {}", case.describe()));
                } else if pass + 1 < passes(case) {
                    low_words.insert(k, d);
                } else {
                    results += 1;
                    // d and d_hi, as the model's result is one or a pair.
                    let words = match low_words.remove(&k) {
                        Some(low) => [low, d],
                        None => [d, 0],
                    };
                    let rtl = [words[0], words[1], carry, pd, pq];
                    if let Some(m) = int_cases::check(case, want, &rtl, &OPS, &mut tested) {
                        mismatches.push(format!("cycle {t}: {m}"));
                    }
                }
            }
            None if rtl[0] != 0 => mismatches.push(format!("cycle {t}: a result from nowhere")),
            None if zeroed && rtl.iter().any(|&v| v != 0) => {
                mismatches.push(format!("cycle {t}: outputs not zero after a reset: {out}"))
            }
            None => {}
        }
        stages.rotate_right(1);
        stages[0] = match *cycle {
            Cycle::Op(k, pass, _) => Some((k, pass)),
            _ => None,
        };
    }
    int_cases::assert_agree(&mismatches, results, &OPS, &tested);
    assert_eq!(
        results + dropped,
        cases.len(),
        "every case came out or was reset"
    );
    assert!(dropped > 0, "a reset dropped operations in flight");
}

#[test]
fn another_units_opcode_trips_the_lane_alus_assertion() {
    let mut rng = Rng::new(7);
    let ops = common::instructions(&OPS);
    let bfe = common::instructions(&["BFE"]);
    let mut cases = int_cases::cases(&mut rng, 3, &ops, &[], None);
    cases.extend(int_cases::cases(&mut rng, 1, &bfe, &[], None));
    let input: String = cases
        .iter()
        .map(|(c, _)| line(false, true, 0, c, 0))
        .collect();
    let exe = common::testbench("sgpu_lane_alu", &RTL, TESTBENCH);
    let failed = std::panic::catch_unwind(|| common::run(&exe, &input))
        .expect_err("the testbench stopped at the assertion");
    let what = failed
        .downcast_ref::<String>()
        .expect("the testbench's message");
    assert!(
        what.contains("is not a lane operation"),
        "another failure: {what}"
    );
}
