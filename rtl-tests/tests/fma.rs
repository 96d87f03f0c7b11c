//! `hw/sgpu_fma.sv`, Verilated and linked into this process (`rtl_tests::units`), computes
//! what the golden model computes for FADD, FADD32I, FMUL, FMUL32I, FFMA and FFMA32I: its
//! reference is `sgpu_sim::exec::evaluate`, which runs the simulator's own float functions
//! (sim/src/float.rs), not a copy of them.
//!
//! - Every modifier combination the ISA encodes (rounding mode, `.ftz`, `.sat`, negations,
//!   absolute values: every word the decoder accepts with its modifier bits enumerated) on
//!   every pair of edge operands: both zeros, the smallest and largest subnormals and
//!   normals, one ulp either side of 1.0 and 2.0, infinities, quiet and signalling NaNs with
//!   payloads, each with both signs; FFMA with c through the edges.
//! - Every binade, per rounding mode and `.ftz`: one ulp either side of each power of two
//!   from 2^-149 to 2^127 added to and multiplied with values that put the exact result on
//!   a tie, just above or just below one, at that binade's rounding position (subnormal
//!   results included), and FFMA with c cancelling the product to within a few ulps.
//! - Random legal words on random operands biased to the edges: 10 million by default;
//!   `FMA_VECTORS=N` runs N.
//! - The unit is a five-stage pipeline: an instruction every cycle, its result compared four
//!   cycles later while the next four are in the unit; after cycles with the enable low, the
//!   output is zero.
//!
//! Each prints how many cases it ran and how long it took. Verilator (5.006 or later) and
//! g++ must be installed: without them the build of this crate fails and says so.

mod common;

use common::{
    combinations, count_from_env, float_edges, float_value, instructions, modifier_bits, word_of,
    LaneCheck, Rng,
};
use rtl_tests::units::Fma;
use sgpu_isa::fields;
use std::time::Instant;

/// The registers every case reads and writes (rd, ra, rb, rc): distinct, so that no operand
/// aliases another.
const REGS: [u8; 4] = [4, 1, 2, 3];

/// Cycles from an instruction to its result.
const LATENCY: usize = 4;

/// The unit beside the model (see [`LaneCheck`]).
type Check = LaneCheck<Fma>;

fn check() -> Check {
    LaneCheck::new(Fma::new(), "f32 FMA", LATENCY, REGS)
}

/// Every legal word of each form with modifiers, and of each 32I form none (its immediate
/// is the operand: see [`with_immediate`]).
fn words(name: &str) -> Vec<u64> {
    let (_, op, used) = instructions(&[name])[0];
    combinations(op, used, REGS)
}

/// A 32I form's word with `imm` as its immediate (FFMA32I keeps the top 20 bits).
fn with_immediate(name: &str, imm: u32) -> u64 {
    let (_, op, used) = instructions(&[name])[0];
    let m = if name == "FFMA32I" {
        u64::from(imm >> 12) << fields::FIMM20.lsb
    } else {
        u64::from(imm) << fields::IMM32.lsb
    };
    word_of(op, used, m, REGS)
}

#[test]
fn every_modifier_combination_agrees_with_the_model_on_edge_operands() {
    let start = Instant::now();
    let mut check = check();
    let edges = float_edges();
    let mut seen = 0;
    for name in ["FADD", "FMUL", "FFMA"] {
        let words = words(name);
        assert!(!words.is_empty(), "{name}: no legal word");
        seen += words.len();
        for (n, &word) in words.iter().enumerate() {
            for (i, &a) in edges.iter().enumerate() {
                for (j, &b) in edges.iter().enumerate() {
                    let c = edges[(i + 3 * j + n) % edges.len()];
                    check.case(word, a, b, c);
                }
            }
        }
    }
    for name in ["FADD32I", "FMUL32I", "FFMA32I"] {
        for &imm in &edges {
            seen += 1;
            for &a in &edges {
                for &b in &edges {
                    check.case(with_immediate(name, imm), a, b, 0);
                }
            }
        }
    }
    let what = format!("{seen} words (modifier combinations, immediates) on edge operands");
    let cases = check.finish(&what, start);
    assert!(cases > 500_000, "only {cases} cases");
}

/// The bits of ±2^e times (1 + k ulps) for e from -149 (subnormals: the multiple of the
/// smallest one) to 127; `None` out of range.
fn scaled(e: i32, k: i32, neg: bool) -> Option<u32> {
    let bits = if e < -149 {
        return None;
    } else if e < -126 {
        // A subnormal: 2^e is 2^(e + 149) times the smallest.
        (1i64 << (e + 149)) + i64::from(k)
    } else {
        (i64::from(e + 127) << 23) + i64::from(k)
    };
    let sign = if neg { 0x8000_0000 } else { 0 };
    (0..0x7f80_0000)
        .contains(&bits)
        .then_some(sign | bits as u32)
}

#[test]
fn every_binade_rounds_ties_and_neighbours_as_the_model_does() {
    let start = Instant::now();
    let mut check = check();
    // One word per rounding mode and .ftz, of each form (the other modifiers are the edge
    // test's).
    let plain = |name: &str| {
        let keep = fields::RND.mask() | fields::FTZ.mask();
        words(name)
            .into_iter()
            .filter(move |w| modifier_bits(*w) & !keep == 0)
            .collect::<Vec<u64>>()
    };
    let (adds, muls, fmas) = (plain("FADD"), plain("FMUL"), plain("FFMA"));
    assert_eq!((adds.len(), muls.len(), fmas.len()), (8, 8, 8));
    for e in -149..=127 {
        for k in [-1, 0, 1] {
            for neg in [false, true] {
                let Some(x) = scaled(e, k, neg) else { continue };
                // Half an ulp of x's binade (a tie), and just above and below it, with
                // either sign: x + y rounds at x's last place.
                let halves = [-1, 0, 1].into_iter().flat_map(|d| {
                    [false, true]
                        .into_iter()
                        .filter_map(move |s| scaled(e - 24, d, s))
                });
                for y in halves.clone().chain([0x3f80_0000, 0x4040_0000]) {
                    for &w in &adds {
                        check.case(w, x, y, 0);
                    }
                }
                // Products at x's rounding position: by 1 ± an ulp, by 1.5, by 0.5 (a tie
                // when x is the smallest subnormals).
                for y in [
                    0x3f7f_ffff,
                    0x3f80_0001,
                    0x3fc0_0000,
                    0x3f00_0000,
                    0x3ec0_0000,
                ] {
                    for &w in &muls {
                        check.case(w, x, y, 0);
                    }
                    // And then less than x, cancelling to within an ulp or so of a tie.
                    for c in halves.clone() {
                        for &w in &fmas {
                            check.case(w, x, y, c ^ 0x8000_0000);
                            check.case(w, x, y, x ^ 0x8000_0000);
                        }
                    }
                }
            }
        }
    }
    let cases = check.finish("every binade's ties and neighbours", start);
    assert!(cases > 100_000, "only {cases} cases");
}

#[test]
fn random_words_agree_with_the_model() {
    let vectors = count_from_env("FMA_VECTORS", 10_000_000);
    let start = Instant::now();
    let names = ["FADD", "FMUL", "FFMA", "FADD32I", "FMUL32I", "FFMA32I"];
    let forms: Vec<(&str, Vec<u64>)> = names
        .iter()
        .map(|&n| (n, if n.ends_with("32I") { vec![] } else { words(n) }))
        .collect();
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut check = check();
    while check.tally.cases < vectors {
        let (name, words) = &forms[(rng.word() % forms.len() as u64) as usize];
        let word = if words.is_empty() {
            with_immediate(name, float_value(&mut rng))
        } else {
            words[(rng.word() % words.len() as u64) as usize]
        };
        let (a, b) = (float_value(&mut rng), float_value(&mut rng));
        // A third of the time c nearly cancels the product: the sum's leading bits go, and
        // the rounding position falls into what the window keeps exactly.
        let c = if rng.word().is_multiple_of(3) {
            let p = f32::from_bits(a) * f32::from_bits(b);
            (-p).to_bits()
                .wrapping_add((rng.word() % 7) as u32)
                .wrapping_sub(3)
        } else {
            float_value(&mut rng)
        };
        check.case(word, a, b, c);
    }
    check.finish("random words", start);
}
