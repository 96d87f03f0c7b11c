//! `hw/sgpu_fdiv.sv`, Verilated and linked into this process (`rtl_tests::units`), computes
//! what the golden model computes for FDIV, FSQRT and FRCP: its reference is
//! `sgpu_sim::exec::evaluate`, which runs the simulator's own float functions
//! (sim/src/float.rs's `div` and `sqrt`), not a copy of them.
//!
//! - Every FDIV word (rounding mode x `.ftz`) on the edge operands crossed, and every FSQRT
//!   and FRCP word on each: both zeros, the smallest and largest subnormals and normals,
//!   every power of two from 2^-149 to 2^127 and one ulp either side of it, infinities,
//!   quiet and signalling NaNs with payloads.
//! - Every FDIV word on quotients that are ties at the rounding position (which only
//!   subnormal quotients can be: a normal quotient of 24-bit significands never falls half
//!   way) and on their neighbours; on quotients at and beside the overflow threshold and the
//!   smallest normal and subnormal; every FSQRT word on perfect squares, scaled into every
//!   binade, and their neighbours.
//! - Random legal words on random operands biased to exponents that meet (quotients near
//!   one, the subnormals and overflow) and to subnormal ties: 10 million by default;
//!   `FDIV_VECTORS=N` runs N.
//! - Every operation above takes exactly the documented latency, with busy_o high until
//!   done_o; a start while busy abandons the operation under way, at every cycle of it; the
//!   result stays on d_o until the next start.
//!
//! Each prints how many cases it ran and how long it took. Verilator (5.006 or later) and
//! g++ must be installed: without them the build of this crate fails and says so.

mod common;

use common::{combinations, count_from_env, float_edges, float_value, instructions, Rng, Tally};
use rtl_tests::units::Fdiv;
use sgpu_isa::Reg;
use std::time::Instant;

/// The registers every case reads and writes (rd, ra, rb, rc).
const REGS: [u8; 4] = [4, 1, 2, 3];

/// Cycles from start_i to done_o, for every operation (hw/sgpu_fdiv.sv's header).
const LATENCY: u32 = 19;

/// How long a run waits for done_o before it counts the operation as lost.
const BOUND: u32 = 4 * LATENCY;

/// Every legal word of `name`: each rounding mode with and without `.ftz`.
fn words(name: &str) -> Vec<u64> {
    let (_, op, used) = instructions(&[name])[0];
    let words = combinations(op, used, REGS);
    assert_eq!(
        words.len(),
        8,
        "{name}: four rounding modes, with and without .ftz"
    );
    words
}

/// What the model writes to rd for `word` on ra = a and rb = b.
fn model(word: u64, a: u32, b: u32) -> u32 {
    let insn = sgpu_isa::decode(word).expect("a legal word");
    let regs = [(Reg(REGS[1]), a), (Reg(REGS[2]), b)];
    let e = sgpu_sim::exec::evaluate(insn, &regs, &[], false)
        .unwrap_or_else(|| panic!("the model cannot evaluate {insn}"));
    e.regs[0].1
}

/// The unit beside the model: each case run from start_i to done_o and compared, its
/// result and its latency.
struct Check {
    unit: Fdiv,
    tally: Tally,
}

impl Check {
    fn new() -> Check {
        Check {
            unit: Fdiv::new(),
            tally: Tally::default(),
        }
    }

    fn case(&mut self, word: u64, a: u32, b: u32) {
        let want = model(word, a, b);
        let got = self.unit.run(word, a, b, BOUND);
        self.tally.cases += 1;
        if got.d != want || got.cycles != LATENCY || got.busy == 0 {
            self.tally.mismatch(|| {
                format!(
                    "{} ({word:#018x}) with a {a:#x}, b {b:#x}: model {want:#x}, RTL {:#x} \
                     after {} cycles (busy throughout: {})",
                    sgpu_isa::decode(word).expect("a legal word"),
                    got.d,
                    got.cycles,
                    got.busy != 0
                )
            });
        }
    }

    /// Every word of `words` on each pair.
    fn cases(&mut self, words: &[u64], pairs: &[(u32, u32)]) {
        for &(a, b) in pairs {
            for &w in words {
                self.case(w, a, b);
            }
        }
    }

    fn finish(self, what: &str, start: Instant) -> u64 {
        self.tally.report("f32 divider", what, start)
    }
}

/// The bits of the f32 `sig` x 2^e, if it is one (exactly, finite).
fn f32_of(sig: u64, e: i32) -> Option<u32> {
    if sig == 0 || sig >= 1 << 53 || !(-1000..=1000).contains(&e) {
        return None;
    }
    // Exact in f64 (53 bits, and 2^e within its normal range); f32 holds it when the
    // conversion gives it back.
    let x = sig as f64 * f64::from_bits(((1023 + e) as u64) << 52);
    let f = x as f32;
    (f.is_finite() && f as f64 == x).then_some(f.to_bits())
}

/// 2^e for e from -149 to 127, and the values one ulp either side of each.
fn powers_and_neighbours() -> Vec<u32> {
    let mut v = Vec::new();
    for e in -149..=127 {
        let p = f32_of(1, e).expect("a power of two in range");
        v.push(p);
        v.push(p + 1);
        if p > 1 {
            v.push(p - 1);
        }
    }
    v
}

/// The edge operands and every power of two with its neighbours, the powers' signs mixed.
fn edge_operands() -> Vec<u32> {
    let mut v = float_edges();
    for (i, p) in powers_and_neighbours().into_iter().enumerate() {
        v.push(if i % 3 == 1 { p | 0x8000_0000 } else { p });
    }
    v.sort_unstable();
    v.dedup();
    v
}

#[test]
fn every_word_agrees_with_the_model_on_edge_operands() {
    let start = Instant::now();
    let mut check = Check::new();
    let edges = edge_operands();
    let div = words("FDIV");
    for &a in &edges {
        for &b in &edges {
            for &w in &div {
                check.case(w, a, b);
            }
        }
    }
    for name in ["FSQRT", "FRCP"] {
        let words = words(name);
        for &a in &edges {
            for &w in &words {
                check.case(w, a, 0);
            }
        }
    }
    let what = format!(
        "every FDIV word on {} edge operands crossed, every FSQRT and FRCP word on each",
        edges.len()
    );
    let cases = check.finish(&what, start);
    assert!(cases > 5_000_000, "only {cases} cases");
}

/// The odd multiples of 2^-150 below the smallest normal are ties at the subnormals' last
/// place (2^-149); for each tie t picked, with a divisor of an odd significand m, a = t x m
/// (exact) over b = m, at several exponents, and a's neighbours (just above and below the
/// tie).
fn subnormal_ties(rng: &mut Rng) -> Vec<(u32, u32)> {
    let mut ties = vec![
        1u64,
        3,
        5,
        (1 << 23) - 1,
        (1 << 23) + 1,
        (1 << 24) - 1,
        (1 << 24) - 3,
    ];
    ties.extend((0..200).map(|_| (rng.word() % (1 << 23)) * 2 + 1));
    let mut pairs = Vec::new();
    for &t in &ties {
        for m in [1u64, 3, 5, 7, 9, 11, 13, 255, 4095] {
            if t * m >= 1 << 24 {
                continue;
            }
            for eb in [0, 1, 23, 60, 100, 113, 126] {
                // a / b = t m 2^(eb - 150) / (m 2^eb).
                let (Some(a), Some(b)) = (f32_of(t * m, eb - 150), f32_of(m, eb)) else {
                    continue;
                };
                for a in [a, a + 1, a - 1] {
                    let sign = (rng.word() as u32) & 0x8000_0000;
                    pairs.push((a ^ sign, b));
                }
            }
        }
    }
    pairs
}

/// Quotients at and beside the thresholds: the largest finite value and overflow, the
/// smallest normal, the smallest subnormal and half of it, and below.
fn threshold_quotients(rng: &mut Rng) -> Vec<(u32, u32)> {
    // Significands (as f32 in [1, 2)) of either operand: 1, one ulp either side, 1.5, the
    // largest, and a few random ones.
    let mut sigs = vec![
        0x3f80_0000u32,
        0x3f80_0001,
        0x3f7f_ffff,
        0x3fc0_0000,
        0x3fff_ffff,
    ];
    sigs.extend((0..4).map(|_| 0x3f80_0000 | (rng.word() as u32 & 0x7f_ffff)));
    // The binade of the quotient of significands in [1, 2) at binade difference d is d or d
    // less one: overflow at 128, the smallest normal at -126, the subnormals' last place at
    // -149, half of it at -150.
    let targets = [
        129, 128, 127, 126, -125, -126, -127, -148, -149, -150, -151, -152,
    ];
    let mut pairs = Vec::new();
    for &d in &targets {
        for ea in [-149, -126, -100, -20, 0, 20, 100, 127] {
            let eb: i32 = ea - d;
            if !(-149..=127).contains(&eb) {
                continue;
            }
            for &sa in &sigs {
                for &sb in &sigs {
                    let scale =
                        |s: u32, e: i32| f32_of(u64::from(s & 0x7f_ffff | 0x80_0000), e - 23);
                    if let (Some(a), Some(b)) = (scale(sa, ea), scale(sb, eb)) {
                        let sign = (rng.word() as u32) & 0x8000_0000;
                        pairs.push((a ^ sign, b));
                    }
                }
            }
        }
    }
    pairs
}

#[test]
fn quotients_at_ties_and_thresholds_agree_with_the_model() {
    let start = Instant::now();
    let mut rng = Rng::new(0x3c6e_f372_fe94_f82b);
    let mut check = Check::new();
    let (ties, thresholds) = (subnormal_ties(&mut rng), threshold_quotients(&mut rng));
    check.cases(&words("FDIV"), &ties);
    check.cases(&words("FDIV"), &thresholds);
    // FRCP's own thresholds: 1 / b overflows below 2^-128 and is subnormal above 2^126.
    let rcp: Vec<(u32, u32)> = thresholds.iter().map(|&(_, b)| (b, 0)).collect();
    check.cases(&words("FRCP"), &rcp);
    let what = format!(
        "every FDIV word on {} subnormal ties and neighbours, {} quotients at thresholds",
        ties.len(),
        thresholds.len()
    );
    let cases = check.finish(&what, start);
    assert!(cases > 100_000, "only {cases} cases");
}

/// n^2 for n from 1 to 4095 (exact in 24 bits) in every binade it can take (scaled by a power
/// of four, into the subnormals too), and by 2 (an odd exponent), with their neighbours.
fn squares_and_neighbours() -> Vec<u32> {
    let mut v = Vec::new();
    for n in 1u64..4096 {
        // Spread over the binades: n's exponent chosen with n.
        for k in [-80 + (n % 9) as i32, -60, -1, 0, (n % 50) as i32, 60] {
            for twice in [0, 1] {
                if let Some(x) = f32_of(n * n, 2 * k + twice) {
                    v.extend([x, x + 1, x.wrapping_sub(1) & 0x7fff_ffff]);
                }
            }
        }
    }
    v.sort_unstable();
    v.dedup();
    v
}

#[test]
fn square_roots_of_squares_and_neighbours_agree_with_the_model() {
    let start = Instant::now();
    let mut check = Check::new();
    let squares = squares_and_neighbours();
    let pairs: Vec<(u32, u32)> = squares.iter().map(|&x| (x, 0)).collect();
    check.cases(&words("FSQRT"), &pairs);
    let what = format!(
        "every FSQRT word on {} squares and neighbours",
        squares.len()
    );
    let cases = check.finish(&what, start);
    assert!(cases > 100_000, "only {cases} cases");
}

/// A random operand pair for FDIV: often with b's exponent set from a's so that the quotient
/// lands near one, the subnormals, or overflow; sometimes a subnormal tie (a = t m 2^k over
/// m 2^(k + 150), t odd); else two operands from [`float_value`].
fn random_pair(rng: &mut Rng) -> (u32, u32) {
    let sign = (rng.word() as u32) & 0x8000_0000;
    match rng.word() % 8 {
        0..=2 => {
            let a = float_value(rng);
            let d = [0, -126, -140, -150, 127, 128][(rng.word() % 6) as usize]
                + (rng.word() % 7) as i32
                - 3;
            let ea = ((a >> 23) & 0xff) as i32;
            let eb = (ea - d).clamp(0, 254) as u32;
            (a, sign | eb << 23 | (rng.word() as u32 & 0x7f_ffff))
        }
        3 => {
            let m = (rng.word() % 256) * 2 + 1;
            let t = (rng.word() % ((1 << 24) / m)) | 1;
            let eb = (rng.word() % 120) as i32;
            match (f32_of(t * m, eb - 150), f32_of(m, eb)) {
                (Some(a), Some(b)) => (a ^ sign, b),
                _ => (float_value(rng), float_value(rng)),
            }
        }
        _ => (float_value(rng), float_value(rng)),
    }
}

#[test]
fn random_words_agree_with_the_model() {
    let vectors = count_from_env("FDIV_VECTORS", 10_000_000);
    let start = Instant::now();
    let (div, sqrt, rcp) = (words("FDIV"), words("FSQRT"), words("FRCP"));
    let mut rng = Rng::new(0xbb67_ae85_84ca_a73b);
    let mut check = Check::new();
    while check.tally.cases < vectors {
        let pick = |rng: &mut Rng, w: &[u64]| w[(rng.word() % w.len() as u64) as usize];
        match rng.word() % 4 {
            0 | 1 => {
                let (a, b) = random_pair(&mut rng);
                check.case(pick(&mut rng, &div), a, b);
            }
            2 => {
                // A square (of a 12-bit significand, so exact) or a random value.
                let a = if rng.word().is_multiple_of(4) {
                    let n = rng.word() % 4096;
                    f32_of(n * n, (rng.word() % 200) as i32 - 120).unwrap_or(0)
                } else {
                    float_value(&mut rng)
                };
                check.case(pick(&mut rng, &sqrt), a, rng.word() as u32);
            }
            _ => check.case(
                pick(&mut rng, &rcp),
                float_value(&mut rng),
                rng.word() as u32,
            ),
        }
    }
    check.finish("random words", start);
}

#[test]
fn a_start_while_busy_abandons_the_operation_under_way() {
    let start = Instant::now();
    let all: Vec<u64> = ["FDIV", "FSQRT", "FRCP"]
        .iter()
        .flat_map(|n| words(n))
        .collect();
    let mut rng = Rng::new(0x510e_527f_ade6_82d1);
    let mut unit = Fdiv::new();
    let mut tally = Tally::default();
    for n in 0..20_000u32 {
        let mut op = || {
            let w = all[(rng.word() % all.len() as u64) as usize];
            let (a, b) = random_pair(&mut rng);
            (w, a, b, model(w, a, b))
        };
        let (first, second) = (op(), op());
        // The second starts `s` cycles after the first: while it is busy, with its done_o,
        // or (s = LATENCY + 1) after. The trace goes on two cycles past the second's done_o
        // (inputs changing), so the unit is idle for the next pair.
        let s = 1 + n % (LATENCY + 1);
        let mut trace = Vec::new();
        for c in 0..s + LATENCY + 3 {
            let (w, a, b) = if c == 0 {
                (first.0, first.1, first.2)
            } else if c == s {
                (second.0, second.1, second.2)
            } else {
                (!first.0, rng.word() as u32, rng.word() as u32)
            };
            trace.push(unit.step(c == 0 || c == s, w, a, b));
        }
        // done_o in the first's cycle LATENCY only if the second came no earlier, then in
        // the second's; busy_o between each start and its done_o; the result held after.
        for (c, out) in trace.iter().enumerate() {
            let c = c as u32;
            let first_done = c == LATENCY && s >= LATENCY;
            let second_done = c == s + LATENCY;
            let busy = (c > 0 && c <= s && c < LATENCY) || (c > s && c < s + LATENCY);
            let d = if c >= s + LATENCY {
                Some(second.3)
            } else if c >= LATENCY && s >= LATENCY && c <= s {
                Some(first.3)
            } else {
                None
            };
            let good = out.done == u8::from(first_done || second_done)
                && out.busy == u8::from(busy)
                && d.is_none_or(|d| out.d == d);
            if !good {
                tally.mismatch(|| {
                    format!(
                        "{first:x?} then {second:x?} {s} cycles later: cycle {c}: {out:x?}, \
                         expected done {}, busy {busy}, d {d:x?}",
                        first_done || second_done
                    )
                });
            }
        }
        tally.cases += 1;
    }
    tally.report(
        "f32 divider",
        "pairs of operations, the second started early",
        start,
    );
}
