//! The core against the instruction table as a whole (isa/sgpu.isa), in lock-step with the
//! golden model:
//!
//! - every opcode runs: each encoding vector of isa/vectors.txt (at least one per
//!   instruction), between the random generator's prologue and epilogue
//!   (`rtl_tests::random::single`), must end as the model ends it, done or trapped alike
//!   (its operands may well point outside memory or code), and never refused as an
//!   instruction the core has no unit for, nor trapped as unimplemented or invalid;
//! - every instruction whose latency the table calls fixed (`Op::fixed_latency`) takes the
//!   same cycles whatever its operands: random instructions of each unit on three sets of
//!   register values, with memory answering at a fixed latency, run the same cycles each.
//!
//! Verilator and g++ must be installed: without them the build of this crate fails.

use rtl_tests::cosim::{self, Failure, Options};
use rtl_tests::port::Timing;
use rtl_tests::random::{single, Single};
use sgpu_isa::{decode, Instruction, Unit};
use sgpu_sim::Cause;

/// The first encoding vector of each instruction in isa/vectors.txt.
fn vectors() -> Vec<(String, u64)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../isa/vectors.txt");
    let text = std::fs::read_to_string(path).expect("read isa/vectors.txt");
    let mut found: Vec<(String, u64)> = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let hex = line.split_whitespace().next().expect("a word");
        let word = u64::from_str_radix(hex.trim_start_matches("0x"), 16).expect("a hex word");
        let name = decode(word)
            .expect("a vector decodes")
            .op
            .mnemonic()
            .to_string();
        if !found.iter().any(|(n, _)| *n == name) {
            found.push((name, word));
        }
    }
    found
}

#[test]
fn every_opcode_runs_on_the_core() {
    let vectors = vectors();
    assert_eq!(
        vectors.len(),
        sgpu_isa::INSTRUCTIONS.len(),
        "a vector per instruction"
    );
    let options = Options {
        lanes: 8,
        ..Options::default()
    };
    let mut failed = Vec::new();
    for (seed, (name, word)) in vectors.iter().enumerate() {
        let insn = decode(*word).expect("a legal word");
        let (mut g, _) = single(seed as u64, seed as u64, Single::Insn(insn));
        match cosim::run(&g.program, &mut g.prepared, &options) {
            Ok(_) => {}
            Err(Failure::Trap(t, _)) if !matches!(t.cause, Cause::InvalidInstruction(_)) => {}
            Err(f) => failed.push(format!("{name} ({insn}): {f:?}")),
        }
    }
    assert!(
        failed.is_empty(),
        "the core does not run:\n{}",
        failed.join("\n")
    );
}

/// The cycles of the program of `seed` running a random instruction of `unit` on the
/// register values of `values`, and the instruction.
fn cycles(seed: u64, values: u64, unit: Unit) -> (u64, Instruction) {
    let options = Options {
        lanes: 8,
        memory: Timing::Fixed(4),
        ..Options::default()
    };
    let (mut g, insn) = single(seed, values, Single::Unit(unit));
    match cosim::run(&g.program, &mut g.prepared, &options) {
        Ok(r) | Err(Failure::Trap(_, r)) => (r.cycles, insn),
        Err(f) => panic!("{insn} (seed {seed}, values {values}): {f:?}"),
    }
}

#[test]
fn fixed_latency_instructions_take_the_same_cycles_whatever_their_operands() {
    let mut checked = 0;
    for unit in [Unit::Int, Unit::Video, Unit::Float, Unit::Sfu, Unit::Warp] {
        for seed in 0..40 {
            let (first, insn) = cycles(seed, 0, unit);
            if !insn.op.fixed_latency() {
                continue;
            }
            for values in 1..3 {
                let (other, _) = cycles(seed, values, unit);
                assert_eq!(
                    first, other,
                    "{insn}: {first} cycles, {other} on other operands"
                );
            }
            checked += 1;
        }
    }
    println!("{checked} fixed-latency instructions, three operand sets each");
    assert!(checked > 100, "only {checked}");
}
