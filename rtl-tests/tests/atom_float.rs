//! `hw/sgpu_atom_float.sv`, Verilated and linked into this process (`rtl_tests::units`),
//! computes a float atomic's new value as the golden model does: its reference is
//! `sgpu_sim::lane::atom`, the model's own function.
//!
//! - add on f32 over every pair of f32 edges (zeros, subnormals, one and its neighbours,
//!   the largest normals, infinities, NaNs with payloads) and over pairs that cancel, carry
//!   into the next binade and round on ties;
//! - add, min and max on f16 and bf16 and their pairs: every 16-bit value against every edge
//!   of its format (and the pairs with different halves);
//! - random operands biased to the edges: 2 million by default (`ATOM_FLOAT_VECTORS=N`);
//! - the latency: done seven cycles after the start for f32, ten for f16 and bf16, eleven for
//!   a pair.
//!
//! Each prints how many cases it ran and how long it took.

mod common;

use common::{count_from_env, float_edges, float_value, half_value, Rng, Tally};
use rtl_tests::units::AtomFloat;
use sgpu_isa::{Aop, Aty};
use std::time::Instant;

/// The forms: (aop, aty) of every float atomic.
fn forms() -> Vec<(Aop, Aty)> {
    let mut v = vec![(Aop::Add, Aty::F32)];
    for aty in [Aty::F16, Aty::Bf16, Aty::F16x2, Aty::Bf16x2] {
        for aop in [Aop::Add, Aop::Min, Aop::Max] {
            v.push((aop, aty));
        }
    }
    v
}

/// The unit beside the model.
struct Check {
    unit: AtomFloat,
    tally: Tally,
}

impl Check {
    fn new() -> Check {
        Check {
            unit: AtomFloat::new(),
            tally: Tally::default(),
        }
    }

    fn case(&mut self, (aop, aty): (Aop, Aty), old: u32, b: u32) {
        let n = if matches!(aty, Aty::F16 | Aty::Bf16) {
            2
        } else {
            4
        };
        let want = sgpu_sim::lane::atom(old.into(), b.into(), 0, aop, aty, n) as u32;
        let latency = match aty {
            Aty::F32 => 7,
            Aty::F16x2 | Aty::Bf16x2 => 11,
            _ => 10,
        };
        let got = self.unit.run(aop as u8, aty as u8, old, b, 16);
        let mask = if n == 2 { 0xffff } else { u32::MAX };
        let right = got.is_some_and(|(v, cycles)| v & mask == want && cycles == latency);
        self.tally.cases += 1;
        if !right {
            self.tally.mismatch(|| {
                format!(
                    "{aop:?}.{aty:?} old {old:#x} b {b:#x}: model {want:#x} in {latency} \
                     cycles, RTL {got:x?}"
                )
            });
        }
    }
}

/// f16 or bf16 edges and their neighbours, both signs.
fn half_edges(rng: &mut Rng) -> Vec<u16> {
    let mut v: Vec<u16> = (0..64).map(|_| half_value(rng)).collect();
    v.extend([
        0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0x3c01, 0x7bff, 0x7c00, 0x7e00,
    ]);
    v.extend([
        0x007f, 0x0080, 0x3f80, 0x3f81, 0x7f7f, 0x7f80, 0x7fc0, 0xffff, 0xfc00, 0xff80,
    ]);
    v
}

#[test]
fn f32_add_agrees_on_edge_pairs() {
    let start = Instant::now();
    let mut check = Check::new();
    let mut operands = float_edges();
    // Cancelling, carrying and tying sums: one and its neighbours against each other and
    // against halves and quarters of an ulp, at several binades.
    for e in [-149i32, -127, -126, -100, -24, 0, 23, 100, 126, 127] {
        // 2^e's bits (a subnormal's below 2^-126).
        let p = if e >= -126 {
            ((e + 127) as u32) << 23
        } else {
            1 << (e + 149)
        };
        operands.extend([p, p + 1, p - 1, p | 0x8000_0000, (p + 1) | 0x8000_0000]);
        operands.extend([
            (p & 0x7f80_0000).saturating_sub(24 << 23),
            p + (1 << 23) - 1,
        ]);
    }
    for &a in &operands {
        for &b in &operands {
            check.case((Aop::Add, Aty::F32), a, b);
        }
    }
    check
        .tally
        .report("float atomics", "f32 add on edge pairs", start);
}

#[test]
fn half_forms_agree_on_every_value_against_the_edges() {
    let start = Instant::now();
    let mut rng = Rng::new(0x1f83_d9ab_fb41_bd6b);
    let edges = half_edges(&mut rng);
    let mut check = Check::new();
    for form in forms().into_iter().skip(1) {
        for v in 0..=u16::MAX {
            let e = edges[usize::from(v) % edges.len()];
            let other = edges[(usize::from(v) / 7) % edges.len()];
            // The low half against an edge, the high one (pairs) against another.
            let (old, b) = (
                u32::from(v) | u32::from(other) << 16,
                u32::from(e) | u32::from(v) << 16,
            );
            check.case(form, old, b);
            check.case(form, b, old);
        }
    }
    check
        .tally
        .report("float atomics", "16-bit forms, every value", start);
}

#[test]
fn random_operands_agree() {
    let vectors = count_from_env("ATOM_FLOAT_VECTORS", 2_000_000);
    let start = Instant::now();
    let forms = forms();
    let mut rng = Rng::new(0x5be0_cd19_137e_2179);
    let mut check = Check::new();
    while check.tally.cases < vectors {
        let form = forms[(rng.word() % forms.len() as u64) as usize];
        let mut value = || {
            if form.1 == Aty::F32 {
                float_value(&mut rng)
            } else {
                u32::from(half_value(&mut rng)) | u32::from(half_value(&mut rng)) << 16
            }
        };
        let (old, b) = (value(), value());
        check.case(form, old, b);
    }
    check
        .tally
        .report("float atomics", "random operands", start);
}
