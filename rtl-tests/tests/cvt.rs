//! `hw/sgpu_cvt.sv`, Verilated and linked into this process (`rtl_tests::units`), computes
//! what the golden model computes for F2I and I2F: its reference is
//! `sgpu_sim::exec::evaluate`, which runs the simulator's own functions (sim/src/lane.rs's
//! `float_to_int` and `int_to_float`), not a copy of them.
//!
//! - Every word of each (every integer type, rounding mode and, for F2I, `.ftz`): F2I on the
//!   f32 edges and on the floats at and beside each type's bounds (127, 128, 255, 256, 2^15,
//!   2^16, 2^31, 2^32, 2^63, 2^64, with both signs, and their neighbours) and on ties
//!   (0.5, 1.5, 2.5 ...); I2F on the integers at and beside every power of two and each
//!   type's bounds, and on those whose rounding is a tie, just above or just below one.
//! - Per word, 2^20 sources spread evenly over all 2^32 (one in each block of 4,096, at a
//!   varying place in it; a 64-bit integer's high word varies too); with
//!   `CVT_EXHAUSTIVE=1`, every one of the 2^32 instead for each word whose source is 32 bits
//!   or narrower (every F2I, and I2F from s8 to u32), or `CVT_EXHAUSTIVE=F2I.S32,I2F.U16.RZ`
//!   only those (by hand, in a release build; a 64-bit source cannot be swept whole).
//! - Random legal words on random operands (floats biased to the integer range, integers of
//!   random widths): 10 million by default; `CVT_VECTORS=N` runs N.
//! - The unit is a five-stage pipeline, as the FMA is: an instruction every cycle, its
//!   results compared four cycles later while the next four are in the unit; after cycles
//!   with the enable low, the outputs are zero.
//!
//! Each prints how many cases it ran and how long it took. Verilator (5.006 or later) and
//! g++ must be installed: without them the build of this crate fails and says so.

mod common;

use common::{combinations, count_from_env, float_edges, instructions, sweep, LaneCheck, Rng};
use rtl_tests::units::Cvt;
use std::time::Instant;

/// The registers every case reads and writes (rd, ra, rb, rc): a 64-bit integer is ra:rb
/// (R2:R1), a 64-bit result rd + 1:rd.
const REGS: [u8; 4] = [4, 1, 2, 3];

/// Cycles from an instruction to its result: the FMA's.
const LATENCY: usize = 4;

fn check() -> LaneCheck<Cvt> {
    LaneCheck::new(Cvt::new(), "f32 conversions", LATENCY, REGS)
}

fn words(name: &str) -> Vec<u64> {
    let (_, op, used) = instructions(&[name])[0];
    combinations(op, used, REGS)
}

/// F2I's operands: the f32 edges; each integer type's bounds as floats and their
/// neighbours (one and two ulps); halves, where rounding ties.
fn float_operands() -> Vec<u32> {
    let mut v = float_edges();
    for e in [7, 8, 15, 16, 31, 32, 63, 64] {
        let bound = ((127 + e) << 23) as u32;
        for x in [bound, bound - 1, bound - 2, bound + 1, bound + 2] {
            v.extend([x, x | 0x8000_0000]);
        }
    }
    for k in 0..8 {
        let half = (k as f32 + 0.5).to_bits();
        for x in [half, half - 1, half + 1] {
            v.extend([x, x | 0x8000_0000]);
        }
    }
    v
}

/// I2F's operands, as 64-bit integers: every power of two and its neighbours; values whose
/// 25th bit from the leading one is set alone (a tie), with a lower bit too (above it), and
/// with it clear below set bits (below it), with an even and an odd last place; and the
/// negations of all of them.
fn integer_operands() -> Vec<u64> {
    let mut v = vec![0];
    for b in 0..64 {
        let p = 1u64 << b;
        v.extend([p, p - 1, p.wrapping_add(1)]);
        if b >= 25 {
            let half = 1u64 << (b - 24);
            for last in [0, 2 * half] {
                v.extend([p | last | half, p | last | half | 1, p | last | (half - 1)]);
            }
        }
    }
    let negated: Vec<u64> = v.iter().map(|x| x.wrapping_neg()).collect();
    v.extend(negated);
    v
}

#[test]
fn every_word_agrees_with_the_model_on_edge_operands() {
    let start = Instant::now();
    let mut check = check();
    let (f2i, i2f) = (words("F2I"), words("I2F"));
    assert_eq!((f2i.len(), i2f.len()), (8 * 4 * 2, 8 * 4));
    for &w in &f2i {
        for a in float_operands() {
            check.case(w, a, 0, 0);
        }
    }
    for &w in &i2f {
        for x in integer_operands() {
            check.case(w, x as u32, (x >> 32) as u32, 0);
        }
    }
    let what = format!("{} words on edge operands", f2i.len() + i2f.len());
    let cases = check.finish(&what, start);
    assert!(cases > 35_000, "only {cases} cases");
}

/// A word's mnemonic as the disassembler prints it: `F2I.S32.RZ.FTZ`, `I2F.U64.RM`.
fn mnemonic(word: u64) -> String {
    let text = sgpu_isa::decode(word).expect("a legal word").to_string();
    text.split(' ').next().unwrap().to_uppercase()
}

/// Whether the word's source is a 64-bit integer (I2F.S64, I2F.U64), in ra:rb.
fn wide_source(word: u64) -> bool {
    let m = mnemonic(word);
    m.starts_with("I2F.S64") || m.starts_with("I2F.U64")
}

#[test]
fn each_word_agrees_over_the_sources() {
    // CVT_EXHAUSTIVE=1 (every word a 32-bit source allows) or a list of mnemonics.
    let exhaustive = std::env::var("CVT_EXHAUSTIVE").unwrap_or_default();
    let chosen: Vec<String> = exhaustive.split(',').map(str::to_uppercase).collect();
    let start = Instant::now();
    for w in words("F2I").into_iter().chain(words("I2F")) {
        let (name, wide) = (mnemonic(w), wide_source(w));
        let named = chosen.contains(&name);
        assert!(
            !(named && wide),
            "{name}: a 64-bit source cannot be swept over all its values"
        );
        let every = named || (exhaustive == "1" && !wide);
        let at = Instant::now();
        let mut check = check();
        for a in sweep(every) {
            // A 64-bit source's high word: every bit pattern's worth, from the low word.
            let b = if wide {
                a.rotate_left(13) ^ 0x5a5a_5a5a
            } else {
                0
            };
            check.case(w, a, b, 0);
        }
        let what = if every {
            format!("{name} on every source")
        } else {
            format!("{name} on 2^20 sources strided over all 2^32")
        };
        let cases = check.finish(&what, at);
        assert_eq!(cases, if every { 1 << 32 } else { 1 << 20 });
    }
    println!("F2I and I2F sweeps: {:.1} s", start.elapsed().as_secs_f64());
}

#[test]
fn random_words_agree_with_the_model() {
    let vectors = count_from_env("CVT_VECTORS", 10_000_000);
    let start = Instant::now();
    let words: Vec<u64> = words("F2I").into_iter().chain(words("I2F")).collect();
    let mut rng = Rng::new(0x6a09_e667_f3bc_c908);
    let mut check = check();
    while check.tally.cases < vectors {
        let word = words[(rng.word() % words.len() as u64) as usize];
        let (a, b) = match rng.word() % 4 {
            // A float in or near the integers' range: exponents 2^-27 to 2^72.
            0 => {
                let exp = 100 + (rng.word() % 100) as u32;
                let sign = rng.word() as u32 & 0x8000_0000;
                (sign | exp << 23 | (rng.word() as u32 & 0x7f_ffff), 0)
            }
            // An integer of random width.
            1 => {
                let x = rng.word() >> (rng.word() % 64);
                (x as u32, (x >> 32) as u32)
            }
            _ => (rng.word() as u32, rng.word() as u32),
        };
        check.case(word, a, b, 0);
    }
    check.finish("random words", start);
}
