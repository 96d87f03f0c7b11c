//! `hw/sgpu_fcmp.sv`, Verilated and linked into this process (`rtl_tests::units`), computes
//! what the golden model computes for FMNMX and FSETP: its reference is
//! `sgpu_sim::exec::evaluate`, which runs the simulator's own functions (sim/src/lane.rs's
//! `fminmax`, `fcompare` and `logic`), not a copy of them.
//!
//! - Every modifier combination the ISA encodes (FMNMX's `max`, `.ftz`, `.NaN` and absolute
//!   values; FSETP's 14 comparisons, `.ftz`, the three boolean operations and pc's negation,
//!   with pc false and true) on every pair of edge operands: both zeros, the smallest and
//!   largest subnormals and normals, one ulp either side of 1.0 and 2.0, infinities, quiet
//!   and signalling NaNs with payloads, each with both signs.
//! - Random legal words on random operands biased to the edges and to ties (b equal to a,
//!   its negation or a neighbour): 10 million by default; `FCMP_VECTORS=N` runs N.
//! - The unit is a five-stage pipeline, as the FMA is: an instruction every cycle, its
//!   results compared four cycles later while the next four are in the unit; after cycles
//!   with the enable low, the outputs are zero.
//!
//! Each prints how many cases it ran and how long it took. Verilator (5.006 or later) and
//! g++ must be installed: without them the build of this crate fails and says so.

mod common;

use common::{
    combinations, count_from_env, float_edges, float_value, instructions, word_of, LaneCheck, Rng,
    LANE_PC, LANE_PD, LANE_PQ,
};
use rtl_tests::units::Fcmp;
use sgpu_isa::{fields, Bop};
use std::time::Instant;

/// The registers every case reads (rd, ra, rb, rc): distinct, so that no operand aliases
/// another.
const REGS: [u8; 4] = [4, 1, 2, 3];

/// Cycles from an instruction to its result: the FMA's, so that the core takes every f32
/// result in the same cycle.
const LATENCY: usize = 4;

fn check() -> LaneCheck<Fcmp> {
    LaneCheck::new(Fcmp::new(), "f32 comparisons", LATENCY, REGS)
}

/// Every legal FMNMX word.
fn fmnmx_words() -> Vec<u64> {
    let (_, op, used) = instructions(&["FMNMX"])[0];
    combinations(op, used, REGS)
}

/// Every legal FSETP word writing LANE_PD and LANE_PQ from LANE_PC (negated or not): each
/// comparison, `.ftz` and boolean operation.
fn fsetp_words() -> Vec<u64> {
    let (_, op, used) = instructions(&["FSETP"])[0];
    let preds = u64::from(LANE_PD.0) << fields::PD.lsb
        | u64::from(LANE_PQ.0) << fields::PQ.lsb
        | u64::from(LANE_PC.0) << fields::PC.lsb;
    let mut words = Vec::new();
    for fcmp in sgpu_isa::Fcmp::ALL {
        for bop in [Bop::And, Bop::Or, Bop::Xor] {
            for ftz in [0, fields::FTZ.mask()] {
                for pcn in [0, fields::PCN.mask()] {
                    let m = (fcmp as u64) << fields::FCMP.lsb
                        | (bop as u64) << fields::BOP.lsb
                        | ftz
                        | pcn
                        | preds;
                    words.push(word_of(op, used, m, REGS));
                }
            }
        }
    }
    for &w in &words {
        sgpu_isa::decode(w).unwrap_or_else(|e| panic!("{w:#x}: {e:?}"));
    }
    words
}

#[test]
fn every_modifier_combination_agrees_with_the_model_on_edge_operands() {
    let start = Instant::now();
    let mut check = check();
    let edges = float_edges();
    let (mnmx, setp) = (fmnmx_words(), fsetp_words());
    assert_eq!((mnmx.len(), setp.len()), (32, 14 * 3 * 2 * 2));
    for &a in &edges {
        for &b in &edges {
            for &w in &mnmx {
                check.case(w, a, b, 0);
            }
            for &w in &setp {
                for p in [false, true] {
                    check.case_p(w, [a, b, 0], p);
                }
            }
        }
    }
    let what = format!(
        "{} words (modifier combinations) on edge operands",
        mnmx.len() + setp.len()
    );
    let cases = check.finish(&what, start);
    assert!(cases > 800_000, "only {cases} cases");
}

#[test]
fn random_words_agree_with_the_model() {
    let vectors = count_from_env("FCMP_VECTORS", 10_000_000);
    let start = Instant::now();
    let words: Vec<u64> = fmnmx_words().into_iter().chain(fsetp_words()).collect();
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    let mut check = check();
    while check.tally.cases < vectors {
        let word = words[(rng.word() % words.len() as u64) as usize];
        let a = float_value(&mut rng);
        // Half the time a tie or near one: b is a, its negation, or a neighbour.
        let b = match rng.word() % 8 {
            0 => a,
            1 => a ^ 0x8000_0000,
            2 => a.wrapping_add(1),
            3 => a.wrapping_sub(1),
            _ => float_value(&mut rng),
        };
        check.case_p(word, [a, b, rng.word() as u32], rng.word() & 1 != 0);
    }
    check.finish("random words", start);
}
