//! `hw/sgpu_f2f.sv`, Verilated and linked into this process (`rtl_tests::units`), computes
//! what the golden model computes for F2F: its reference is `sgpu_sim::exec::evaluate`, which
//! runs the simulator's own functions (sim/src/lane.rs's `convert_float`, sim/src/float.rs's
//! `narrow` and `widen`), not a copy of them.
//!
//! - Every word the decoder accepts (each conversion, rounding mode, `rint`, `.ftz`, `.sat`,
//!   `.relu` and `.satfinite`): the narrowings and f32's `rint` on the f32 edges and, for each
//!   narrower format, on every binade's first, second, last and next-to-last values, the
//!   midpoints between neighbours (ties at every rounding position, its subnormals' too) and
//!   one f32 ulp either side of them, the overflow threshold among them, and on integers,
//!   halves and their neighbours in every binade up to 2^24; the widenings on every value of
//!   their format (all 2^16 f16 and bf16 values, all 2^8 of e4m3 and e5m2), with other bits
//!   in the register above them.
//! - Each conversion from f32 and each rounding mode on 2^20 f32 inputs strided through all
//!   2^32, every other modifier off; `F2F_EXHAUSTIVE=1` takes all 2^32 for each, or a list
//!   of them by mnemonic (`F2F_EXHAUSTIVE=F2F.F16,F2F.E4M3.RZ`), by hand in a release build
//!   (docs/PERFORMANCE.md has the times).
//! - Random legal words on random operands biased to the edges: 10 million by default;
//!   `F2F_VECTORS=N` runs N.
//! - The unit is a four-stage pipeline: a conversion every cycle, its result compared four
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
use rtl_tests::units::F2f;
use sgpu_isa::{decode, fields, Fcvt, Op};
use sgpu_sim::float::{self, Format};
use std::time::Instant;

/// The registers every case reads and writes (rd, ra, rb, rc).
const REGS: [u8; 4] = [4, 1, 2, 3];

/// Cycles from an instruction to its result: the f32 unit's.
const LATENCY: usize = 4;

fn check() -> LaneCheck<F2f> {
    LaneCheck::new(F2f::new(), "float conversions", LATENCY, REGS)
}

/// Every legal F2F word.
fn words() -> Vec<u64> {
    let (_, op, used) = instructions(&["F2F"])[0];
    combinations(op, used, REGS)
}

fn fcvt_of(word: u64) -> Fcvt {
    match decode(word).expect("a legal word").op {
        Op::F2f { fcvt, .. } => fcvt,
        other => panic!("not F2F: {other:?}"),
    }
}

/// The narrower format a conversion reads or writes, if any.
fn format_of(fcvt: Fcvt) -> Option<Format> {
    match fcvt {
        Fcvt::F32 => None,
        Fcvt::F16 | Fcvt::FromF16 => Some(float::F16),
        Fcvt::Bf16 | Fcvt::FromBf16 => Some(float::BF16),
        Fcvt::E4m3 | Fcvt::FromE4m3 => Some(float::E4M3),
        Fcvt::E5m2 | Fcvt::FromE5m2 => Some(float::E5M2),
    }
}

fn widening(fcvt: Fcvt) -> bool {
    matches!(
        fcvt,
        Fcvt::FromF16 | Fcvt::FromBf16 | Fcvt::FromE4m3 | Fcvt::FromE5m2
    )
}

/// f32 operands at a narrower format's rounding positions: in every binade (its subnormals'
/// too) its first, second, next-to-last and last values, the midpoint between each and the
/// next value up (a tie there), and one f32 ulp either side of each; both signs.
fn narrow_edges(f: Format) -> Vec<u32> {
    let last = (1u32 << f.frac) - 1;
    let mut v = Vec::new();
    for field in 0..1u32 << f.exp {
        for frac in [0, 1, last.saturating_sub(1), last] {
            let bits = field << f.frac | frac;
            let (x, next) = (float::widen(bits, f), float::widen(bits + 1, f));
            if !x.is_finite() {
                continue;
            }
            let mut points = vec![x.to_bits()];
            if next.is_finite() {
                // Exact: the format's values have at most 11 significant bits.
                let mid = ((f64::from(x) + f64::from(next)) / 2.0) as f32;
                points.push(mid.to_bits());
            } else {
                // Past the largest finite value: where rounding to nearest overflows, half
                // a step above it.
                let step = f64::from(x) - f64::from(float::widen(bits - 1, f));
                points.push(((f64::from(x) + step / 2.0) as f32).to_bits());
            }
            for p in points {
                for q in [p, p.wrapping_sub(1), p + 1] {
                    v.extend([q, q | 0x8000_0000]);
                }
            }
        }
    }
    v
}

/// f32 operands where `rint` rounds: integers, halves and their f32 neighbours in every
/// binade up to 2^24, both signs.
fn integral_edges() -> Vec<u32> {
    let mut v = Vec::new();
    for e in -3..=24 {
        let p = 2f32.powi(e);
        for x in [p, p * 1.5, p * 1.25, p + 0.5, p - 0.5] {
            let b = x.to_bits();
            for q in [b, b.saturating_sub(1), b + 1] {
                v.extend([q, q | 0x8000_0000]);
            }
        }
    }
    v
}

#[test]
fn every_word_agrees_with_the_model_on_edge_operands() {
    let start = Instant::now();
    let mut check = check();
    let words = words();
    // 9 conversions x 4 modes x rint, .ftz, .sat, .relu, .satfinite.
    assert_eq!(words.len(), 9 * 4 * 32);
    let mut narrowing = float_edges();
    narrowing.extend(integral_edges());
    for f in [float::F16, float::BF16, float::E4M3, float::E5M2] {
        narrowing.extend(narrow_edges(f));
    }
    for &w in &words {
        let fcvt = fcvt_of(w);
        if widening(fcvt) {
            let f = format_of(fcvt).expect("a widening reads a narrower format");
            let above = 0xdead_beef_u32 << (f.exp + f.frac + 1);
            for bits in 0..2u32 << (f.exp + f.frac) {
                check.case(w, above | bits, 0, 0);
            }
        } else {
            for &a in &narrowing {
                check.case(w, a, 0, 0);
            }
        }
    }
    let what = format!("{} words on edge operands", words.len());
    let cases = check.finish(&what, start);
    assert!(cases > 27_000_000, "only {cases} cases");
}

/// The words with every modifier but the conversion and the rounding mode off (and f32 to
/// f32 with `rint`, without which it does not round).
fn plain_words() -> Vec<u64> {
    let (_, op, used) = instructions(&["F2F"])[0];
    let mut v = Vec::new();
    for fcvt in [Fcvt::F32, Fcvt::F16, Fcvt::Bf16, Fcvt::E4m3, Fcvt::E5m2] {
        let rint = u64::from(fcvt == Fcvt::F32) << fields::RINT.lsb;
        for rnd in 0..4u64 {
            let m = (fcvt as u64) << fields::FCVT.lsb | rnd << fields::RND.lsb | rint;
            assert_eq!(m & !modifier_bits(used), 0);
            v.push(word_of(op, used, m, REGS));
        }
    }
    v
}

#[test]
fn each_conversion_from_f32_agrees_over_the_inputs() {
    let exhaustive = std::env::var("F2F_EXHAUSTIVE").unwrap_or_default();
    let chosen: Vec<String> = exhaustive.split(',').map(str::to_uppercase).collect();
    for w in plain_words() {
        // The mnemonic, as the disassembler prints it before the operands.
        let text = sgpu_isa::decode(w).expect("a legal word").to_string();
        let name = text.split(' ').next().unwrap().to_uppercase();
        let every = exhaustive == "1" || chosen.contains(&name);
        let stride: u64 = if every { 1 } else { 1 << 12 };
        // Strided inputs start at an offset, so that their low bits are not all zero.
        let offset = if every { 0 } else { 0x9e37 };
        let start = Instant::now();
        let mut check = check();
        for a in (0..1u64 << 32).step_by(stride as usize) {
            check.case(w, (a as u32).wrapping_add(offset), 0, 0);
        }
        let cases = check.finish(&format!("{name} on 2^32 / {stride} inputs"), start);
        assert_eq!(cases, (1 << 32) / stride);
    }
}

#[test]
fn random_words_agree_with_the_model() {
    let vectors = count_from_env("F2F_VECTORS", 10_000_000);
    let start = Instant::now();
    let words = words();
    let mut rng = Rng::new(0xbb67_ae85_84ca_a73b);
    let mut check = check();
    while check.tally.cases < vectors {
        let w = words[(rng.word() % words.len() as u64) as usize];
        let a = match rng.word() % 4 {
            // A narrower format's bits with other bits above them.
            0 => rng.word() as u32,
            // Near a narrower format's range: exponents 2^-30 to 2^20.
            1 => {
                let exp = 97 + (rng.word() % 50) as u32;
                (rng.word() as u32 & 0x8000_0000) | exp << 23 | (rng.word() as u32 & 0x7f_ffff)
            }
            _ => float_value(&mut rng),
        };
        check.case(w, a, 0, 0);
    }
    check.finish("random words", start);
}
