//! The video units, Verilated and linked into this process (`rtl_tests::units`), compute
//! what the golden model computes: the first core's `hw/sgpu_video_alu.sv` and core v2's
//! `hw/sgpu_video_pipe.sv`, each on the same cases. The reference is
//! `sgpu_sim::exec::evaluate`, which runs the simulator's own video functions
//! (sim/src/video.rs), not a copy of them.
//!
//! - Every modifier combination the ISA encodes, of each of the 13 video opcodes: every word
//!   the decoder accepts with its modifier bits enumerated (so a modifier the ISA table
//!   gains is covered without a change here), each on edge operands: 0, 1, 0x7f, 0x80, 0xff,
//!   0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff and their neighbours, at the
//!   byte, half-word or word the selectors pick (the other bits vary, to show they are
//!   ignored), shift counts around 0, 8, 16, 32 and 64 for vshl and vshr, every pair of edges
//!   in every element of the SIMD instructions, and c through its edges.
//! - Random legal words of every video opcode on random operands biased to the edges: 10
//!   million by default; `VIDEO_ALU_VECTORS=N` runs N.
//! - The units are pipelines (two stages, the result in the next cycle; four, the result four
//!   cycles later): an instruction every cycle, its result compared when it comes while the
//!   following instructions are on the inputs; where no instruction went in, the output is
//!   zero.
//!
//! Both print how many cases they ran and how long it took. Verilator (5.006 or later) and
//! g++ must be installed: without them the build of this crate fails and says so.

mod common;

use common::{combinations, count_from_env, instructions, modifier_bits, word_of, LaneCheck, Rng};
use rtl_tests::units::{LaneUnit, VideoAlu, VideoPipe};
use sgpu_isa::{decode, field, fields, Field, Vsel};
use sgpu_sim::video::position;
use std::time::Instant;

const OPS: [&str; 13] = [
    "VADD", "VSUB", "VABSDIFF", "VMIN", "VMAX", "VSHL", "VSHR", "VMAD", "VSET", "VOP2", "VOP4",
    "VSET2", "VSET4",
];

/// The registers every case reads and writes (rd, ra, rb, rc): distinct, so that no operand
/// aliases another.
const REGS: [u8; 4] = [4, 1, 2, 3];

const EDGES8: [u32; 9] = [0, 1, 2, 0x7e, 0x7f, 0x80, 0x81, 0xfe, 0xff];
const EDGES16: [u32; 12] = [
    0, 1, 0x7f, 0x80, 0xff, 0x100, 0x7ffe, 0x7fff, 0x8000, 0x8001, 0xfffe, 0xffff,
];
const EDGES32: [u32; 16] = [
    0,
    1,
    0x7f,
    0x80,
    0xff,
    0x7fff,
    0x8000,
    0xffff,
    0x1_0000,
    0x7fff_fffe,
    0x7fff_ffff,
    0x8000_0000,
    0x8000_0001,
    0xffff_fffe,
    0xffff_ffff,
    0x1234_5678,
];
/// Shift counts: each side of 0, a byte, a half-word, a word and 64, and huge ones.
const COUNTS: [u32; 16] = [
    0,
    1,
    2,
    7,
    8,
    9,
    15,
    16,
    17,
    31,
    32,
    33,
    63,
    64,
    0x7fff_ffff,
    0xffff_ffff,
];
/// What the bits a selector leaves out hold, in turn.
const FILLERS: [u32; 4] = [0, 0xffff_ffff, 0x5a5a_5a5a, 0xa5c3_3c5a];

/// x with `e` in the byte, half-word or word `sel` names, and `filler`'s bits elsewhere.
fn place(sel: Vsel, e: u32, filler: u32) -> u32 {
    let (shift, bits) = position(sel);
    let m = (u32::MAX >> (32 - bits)) << shift;
    filler & !m | (e << shift & m)
}

/// The edges of the field `sel` names.
fn edges(sel: Vsel) -> &'static [u32] {
    match position(sel).1 {
        32 => &EDGES32,
        16 => &EDGES16,
        _ => &EDGES8,
    }
}

/// The first core's video ALU beside the model (see [`LaneCheck`]).
fn first_core() -> LaneCheck<VideoAlu> {
    LaneCheck::new(VideoAlu::new(), "video ALU", 1, REGS)
}

/// Core v2's video unit beside the model.
fn core_v2() -> LaneCheck<VideoPipe> {
    LaneCheck::new(VideoPipe::new(), "video pipe", 4, REGS)
}

/// A scalar instruction (or VMAD) on every pair of edges at its selectors, c through its
/// edges.
fn scalar_edges<U: LaneUnit>(check: &mut LaneCheck<U>, word: u64, shift: bool, n: &mut usize) {
    let sel = |f: Field| Vsel::from_bits(field(word, f)).expect("a selector");
    let (asel, bsel) = (sel(fields::ASEL), sel(fields::BSEL));
    let b_values: Vec<u32> = if shift {
        // vshl's and vshr's count, placed at b's selector (cut to its size).
        let mut v = edges(bsel).to_vec();
        v.extend(COUNTS);
        v
    } else {
        edges(bsel).to_vec()
    };
    for &ea in edges(asel) {
        for &eb in &b_values {
            *n += 1;
            let a = place(asel, ea, FILLERS[*n % 4]);
            let b = place(bsel, eb, FILLERS[(*n / 4) % 4]);
            let c = EDGES32[*n % EDGES32.len()];
            check.case(word, a, b, c);
        }
    }
}

/// A SIMD instruction: element i of a and b takes edge (p + i) and (q + i) of the element
/// size's edges, for every p and q, so that every pair of edges meets in every element.
fn simd_edges<U: LaneUnit>(check: &mut LaneCheck<U>, word: u64, two: bool, n: &mut usize) {
    let (list, bits): (&[u32], u32) = if two { (&EDGES16, 16) } else { (&EDGES8, 8) };
    let elements = 32 / bits;
    let pattern = |p: usize| {
        (0..elements).fold(0u32, |x, i| {
            x | list[(p + i as usize) % list.len()] << (i * bits)
        })
    };
    for p in 0..list.len() {
        for q in 0..list.len() {
            *n += 1;
            let c = if (*n).is_multiple_of(2) {
                EDGES32[*n % EDGES32.len()]
            } else {
                pattern(p + q)
            };
            check.case(word, pattern(p), pattern(q), c);
        }
    }
}

/// Every modifier combination of every video opcode on edge operands.
fn edge_cases<U: LaneUnit>(mut check: LaneCheck<U>) {
    let start = Instant::now();
    let (mut n, mut combinations_seen) = (0, 0);
    for (name, op, used) in instructions(&OPS) {
        let words = combinations(op, used, REGS);
        assert!(!words.is_empty(), "{name}: no legal word");
        combinations_seen += words.len();
        for word in words {
            match name {
                "VOP2" | "VSET2" => simd_edges(&mut check, word, true, &mut n),
                "VOP4" | "VSET4" => simd_edges(&mut check, word, false, &mut n),
                _ => scalar_edges(&mut check, word, name == "VSHL" || name == "VSHR", &mut n),
            }
        }
    }
    let what = format!("{combinations_seen} modifier combinations on edge operands");
    let cases = check.finish(&what, start);
    assert!(cases > 1_000_000, "only {cases} cases");
}

/// An operand value: often an edge in some byte, half-word or word, else random.
fn value(rng: &mut Rng) -> u32 {
    let pick = |rng: &mut Rng, list: &[u32]| list[(rng.word() % list.len() as u64) as usize];
    match rng.word() % 8 {
        0 => pick(rng, &EDGES32),
        1 => place(
            Vsel::ALL[(rng.word() % 7) as usize],
            pick(rng, &EDGES8),
            rng.word() as u32,
        ),
        2 => place(Vsel::H1, pick(rng, &EDGES16), rng.word() as u32),
        3 => pick(rng, &COUNTS),
        _ => rng.word() as u32,
    }
}

/// `VIDEO_ALU_VECTORS` random legal words (10 million by default) on edge-biased operands.
fn random_words<U: LaneUnit>(mut check: LaneCheck<U>) {
    let vectors = count_from_env("VIDEO_ALU_VECTORS", 10_000_000);
    let start = Instant::now();
    let ops = instructions(&OPS);
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    while check.tally.cases < vectors {
        let (_, op, used) = ops[(rng.word() % ops.len() as u64) as usize];
        let word = word_of(op, used, rng.word() & modifier_bits(used), REGS);
        if decode(word).is_err() {
            continue;
        }
        let (a, b, c) = (value(&mut rng), value(&mut rng), value(&mut rng));
        check.case(word, a, b, c);
    }
    check.finish("random words", start);
}

#[test]
fn every_modifier_combination_agrees_with_the_model_on_edge_operands() {
    edge_cases(first_core());
}

#[test]
fn core_v2s_unit_agrees_with_the_model_on_every_modifier_combination() {
    edge_cases(core_v2());
}

#[test]
fn random_words_agree_with_the_model() {
    random_words(first_core());
}

#[test]
fn core_v2s_unit_agrees_with_the_model_on_random_words() {
    random_words(core_v2());
}
