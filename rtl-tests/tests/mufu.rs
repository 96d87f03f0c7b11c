//! `hw/sgpu_mufu.sv`, Verilated and linked into this process (`rtl_tests::units`), computes
//! what the golden model computes for MUFU: its reference is `sgpu_sim::exec::evaluate`,
//! which runs the simulator's own functions (sim/src/mufu.rs), not a copy of them.
//!
//! - Every function, with and without `.ftz`, on edge operands: the f32 edges; every power
//!   of two from 2^-149 to 2^127 and its neighbours; every segment's first and last
//!   significand in the binades the tables cover (tanh's sixteen, and around 1.0); each
//!   function's own critical points (ex2 around ±126 to ±128, ±149 and ±150 and from 256;
//!   lg2 near 1.0, 1.5 and 0.75; sin and cos at multiples of pi/2 and at huge arguments;
//!   tanh near 16), each with both signs.
//! - Random words on random operands, biased to the edges and to the ranges where the
//!   functions compute: 10 million by default; `MUFU_VECTORS=N` runs N.
//! - Per function and `.ftz`, 2^20 operands spread evenly over all 2^32 (one in each block
//!   of 4,096, at a varying place in it); with `MUFU_EXHAUSTIVE=1`, every one of the 2^32
//!   operands instead (hours: run it in release), or `MUFU_EXHAUSTIVE=RCP,SIN.FTZ` only
//!   those.
//! - Any other opcode, enabled, leaves the output zero (200 random words of each).
//! - The unit is a pipeline of eleven stages: an operation every cycle, its result compared
//!   eleven cycles later while the next eleven are in the unit; after cycles with the enable
//!   low, the output is zero.
//!
//! Each prints how many cases it ran and how long it took. Verilator (5.006 or later) and
//! g++ must be installed: without them the build of this crate fails and says so.

mod common;

use common::{
    combinations, count_from_env, float_edges, float_value, instructions, sweep, LaneCheck, Rng,
};
use rtl_tests::units::Mufu;
use sgpu_isa::Op;
use std::time::Instant;

/// The registers every case reads and writes (rd, ra; MUFU has no rb or rc).
const REGS: [u8; 4] = [4, 1, 2, 3];

/// Cycles from an operation to its result (sgpu_mufu.sv's LATENCY).
const LATENCY: usize = 11;

fn check() -> LaneCheck<Mufu> {
    LaneCheck::new(Mufu::new(), "MUFU", LATENCY, REGS)
}

/// Every legal MUFU word: each function with and without `.ftz`.
fn words() -> Vec<u64> {
    let (_, op, used) = instructions(&["MUFU"])[0];
    let words = combinations(op, used, REGS);
    assert_eq!(words.len(), 16, "eight functions, with and without .ftz");
    words
}

/// A word's function and `.ftz` as the assembly prints them: `RCP`, `RCP.FTZ`.
fn name(word: u64) -> String {
    match sgpu_isa::decode(word).expect("a legal word").op {
        Op::Mufu { mufu, ftz, .. } => format!("{}{}", mufu.name(), if ftz { ".FTZ" } else { "" }),
        op => panic!("not MUFU: {op:?}"),
    }
}

/// The bits of +x, an f32 computed on the host only to choose an operand.
fn bits(x: f64) -> u32 {
    (x as f32).to_bits()
}

/// Positive edge operands, each used with both signs: the f32 edges; every power of two and
/// its neighbours (subnormal ones too); the first and last significand of every segment
/// (128 to a binade: the 64 and 32 of the coarser tables are among them) in tanh's binades
/// 2^-12 to 2^3 and around 1.0; and each function's critical points.
fn edges() -> Vec<u32> {
    let mut v: Vec<u32> = float_edges();
    for field in 1..255u32 {
        let p = field << 23;
        v.extend([p - 2, p - 1, p, p + 1, p + 2]);
    }
    for b in 0..23 {
        v.extend([1 << b, (1 << b) + 1, (2 << b) - 1]);
    }
    for field in (127 - 14)..=(127 + 4) {
        for s in 0..128u32 {
            let first = field << 23 | s << 16;
            v.extend([first, first + 1, first + 0xffff]);
        }
    }
    // ex2: integers, halves and eighths from 120 to 152 (where results leave the normals,
    // then the subnormals), 255 to 257, and on to the largest.
    for k in (120..=152).chain(255..=257) {
        for j in 0..8 {
            let x = bits(f64::from(k) + f64::from(j) / 8.0);
            v.extend([x - 1, x, x + 1]);
        }
    }
    v.extend([bits(1e6), bits(3.0e38)]);
    // lg2: within 64 ulps of 1.0 (both binades), 1.5 and 0.75, where the significand is
    // halved.
    for one in [bits(1.0), bits(1.5), bits(0.75)] {
        v.extend((one - 64)..=(one + 64));
    }
    // sin and cos: the f32 nearest to k·pi/2 and its neighbours, for small and large k; and
    // arguments beyond every window's first bit.
    for k in (1..=64)
        .chain((1..=20).map(|e| 1 << e))
        .chain([12_345, 355 * 2])
    {
        let x = bits(f64::from(k) * std::f64::consts::FRAC_PI_2);
        v.extend([x - 2, x - 1, x, x + 1, x + 2]);
    }
    for x in [
        bits(1e10),
        bits(1e20),
        bits(1e30),
        bits(6.0e37),
        0x7f7f_fffe,
    ] {
        v.extend([x, x + 1]);
    }
    // tanh: near 16, where it becomes 1, and near 2^-12, where it is x.
    for x in [bits(16.0), bits(2f64.powi(-12)), bits(15.99), bits(9.0)] {
        v.extend((x - 4)..=(x + 4));
    }
    let negated: Vec<u32> = v.iter().map(|x| x ^ 0x8000_0000).collect();
    v.extend(negated);
    v.sort_unstable();
    v.dedup();
    v
}

#[test]
fn every_function_agrees_with_the_model_on_edge_operands() {
    let start = Instant::now();
    let mut check = check();
    let (words, edges) = (words(), edges());
    for &w in &words {
        for &a in &edges {
            check.case(w, a, 0, 0);
        }
    }
    let what = format!("{} words on {} edge operands", words.len(), edges.len());
    let cases = check.finish(&what, start);
    assert!(cases > 300_000, "only {cases} cases");
}

#[test]
fn random_words_agree_with_the_model() {
    let vectors = count_from_env("MUFU_VECTORS", 10_000_000);
    let start = Instant::now();
    let words = words();
    let mut rng = Rng::new(0xbb67_ae85_84ca_a73b);
    let mut check = check();
    while check.tally.cases < vectors {
        let word = words[(rng.word() % words.len() as u64) as usize];
        let sign = rng.word() as u32 & 0x8000_0000;
        let a = match rng.word() % 4 {
            // The exponents where the functions compute rather than saturate: ex2's to
            // 2^7, tanh's 2^-12 to 2^3, sin's and cos's either side of whole turns in the
            // window (2^23), lg2's and the roots' around 1.
            0 => {
                let field = 100 + (rng.word() % 60) as u32;
                sign | field << 23 | (rng.word() as u32 & 0x7f_ffff)
            }
            1 => float_value(&mut rng),
            _ => rng.word() as u32,
        };
        check.case(word, a, 0, 0);
    }
    check.finish("random words", start);
}

#[test]
fn each_function_agrees_with_the_model_over_all_f32() {
    // MUFU_EXHAUSTIVE=1 (every word) or a list of words (`RCP,SIN.FTZ`): all 2^32 operands.
    let exhaustive = std::env::var("MUFU_EXHAUSTIVE").unwrap_or_default();
    let chosen: Vec<String> = exhaustive.split(',').map(str::to_uppercase).collect();
    let start = Instant::now();
    for w in words() {
        let name = name(w);
        let every = exhaustive == "1" || chosen.contains(&name);
        let at = Instant::now();
        let mut check = check();
        for a in sweep(every) {
            check.case(w, a, 0, 0);
        }
        let what = if every {
            format!("{name} on every operand")
        } else {
            format!("{name} on 2^20 operands strided over all 2^32")
        };
        let cases = check.finish(&what, at);
        assert_eq!(cases, if every { 1 << 32 } else { 1 << 20 });
    }
    println!("MUFU sweeps: {:.1} s", start.elapsed().as_secs_f64());
}

#[test]
fn other_opcodes_leave_the_output_zero() {
    use rtl_tests::units::{LaneOut, LaneUnit};
    use sgpu_isa::fields;
    let start = Instant::now();
    let mut unit = Mufu::new();
    let mut rng = Rng::new(0x3c6e_f372_fe94_f82b);
    let mut cases = 0u64;
    for &(name, op, _) in sgpu_isa::INSTRUCTIONS.iter().filter(|i| i.0 != "MUFU") {
        for _ in 0..200 {
            // The opcode with random bits elsewhere, enabled: nothing comes out.
            let word = rng.word() & !fields::OP.mask() | u64::from(op) << fields::OP.lsb;
            let a = float_value(&mut rng);
            let out = unit.step(word, [a, 0, 0], false, true);
            assert_eq!(
                out,
                LaneOut::default(),
                "{name} ({word:#018x}) with a {a:#x}"
            );
            cases += 1;
        }
    }
    println!(
        "MUFU, other opcodes enabled: {cases} cases in {:.1} s",
        start.elapsed().as_secs_f64()
    );
}
