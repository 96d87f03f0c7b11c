//! The f64 runtime (`encoder/runtime/f64.cu`, docs/f64.md) through the whole flow: every
//! slot of `tests/kernels/f64ops.ptx` (each f64 instruction form, in each rounding mode)
//! against an independent reference: `rustc_apfloat` for arithmetic and conversions that
//! round, Rust's `f64` for what is exact (comparisons, classes, integral rounding), and
//! binary128 residuals for the square root's directed modes. NaN results follow the
//! runtime's rule (docs/f64.md): a NaN operand gives itself made quiet, the first of a, b, c;
//! an invalid operation gives the default NaN.
//!
//! Edge operands are crossed with each other; random operands (biased to cancellations,
//! ties, exact squares, subnormals and overflow) follow: `SGPU_F64_CASES` of them (CI: the
//! default below; `SGPU_F64_CASES=1000000 cargo test --release --test f64_runtime` by hand).

mod common;

use rustc_apfloat::ieee::{Double, Half, Quad, Single};
use rustc_apfloat::{Float, FloatConvert, Round};
use std::cmp::Ordering;

/// Result slots per case, as the kernel writes them.
const SLOTS: usize = 80;
const SIGN: u64 = 1 << 63;
const QUIET: u64 = 1 << 51;
const DEFAULT_NAN: u64 = 0xfff8_0000_0000_0000;
const F32_NAN: u64 = 0x7fff_ffff;
const F16_NAN: u64 = 0x7fff;
const MODES: [Round; 4] = [
    Round::NearestTiesToEven,
    Round::TowardZero,
    Round::TowardNegative,
    Round::TowardPositive,
];
/// Random cases in CI.
const RANDOM_CASES: usize = 32768;

fn is_nan(x: u64) -> bool {
    x & !SIGN > 0x7ff0_0000_0000_0000
}

fn double(x: u64) -> Double {
    Double::from_bits(u128::from(x))
}

/// The first NaN of `operands`, made quiet.
fn nan_operand(operands: &[u64]) -> Option<u64> {
    operands.iter().find(|&&x| is_nan(x)).map(|x| x | QUIET)
}

/// An arithmetic result by the runtime's NaN rule.
fn arith(value: Double, operands: &[u64]) -> u64 {
    match nan_operand(operands) {
        Some(n) => n,
        None if value.is_nan() => DEFAULT_NAN,
        None => value.to_bits() as u64,
    }
}

/// The sign of `r * r - a`, exactly: in binary128 the square of a 53-bit significand and
/// the difference (whose bits span at most 108) are exact.
fn square_vs(r: f64, a: f64) -> Ordering {
    let q = |x: f64| -> Quad {
        let mut lost = false;
        double(x.to_bits()).convert(&mut lost).value
    };
    let residual = ((q(r) * q(r)).value - q(a)).value;
    if residual.is_zero() {
        Ordering::Equal
    } else if residual.is_negative() {
        Ordering::Less
    } else {
        Ordering::Greater
    }
}

/// sqrt in `mode`: the host's (correctly rounded) to nearest, moved one place where the
/// directed mode needs it.
fn sqrt(a: u64, mode: Round) -> u64 {
    let x = f64::from_bits(a);
    if is_nan(a) {
        return a | QUIET;
    }
    if x < 0.0 {
        return DEFAULT_NAN;
    }
    let r = x.sqrt();
    if r == 0.0 || r.is_infinite() {
        return r.to_bits();
    }
    let up = |r: f64| f64::from_bits(r.to_bits() + 1);
    let down = |r: f64| f64::from_bits(r.to_bits() - 1);
    let r = match (mode, square_vs(r, x)) {
        (Round::TowardZero | Round::TowardNegative, Ordering::Greater) => down(r),
        (Round::TowardPositive, Ordering::Less) => up(r),
        _ => r,
    };
    r.to_bits()
}

fn to_f32(a: u64, mode: Round) -> u64 {
    if is_nan(a) {
        return F32_NAN;
    }
    let mut lost = false;
    let s: Single = double(a).convert_r(mode, &mut lost).value;
    s.to_bits() as u64
}

/// An f32 result's subnormals flushed (`.ftz`).
fn flush32(x: u64) -> u64 {
    if x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

/// `.sat` of an f64: [0, 1], NaN and -0 to +0.
fn saturate(a: u64) -> u64 {
    let x = f64::from_bits(a);
    if is_nan(a) || a & SIGN != 0 {
        0
    } else {
        x.min(1.0).to_bits()
    }
}

/// The integral rounding of `.rni`, `.rzi`, `.rmi`, `.rpi`.
fn integral(x: f64, mode: Round) -> f64 {
    match mode {
        Round::NearestTiesToEven => x.round_ties_even(),
        Round::TowardZero => x.trunc(),
        Round::TowardNegative => x.floor(),
        _ => x.ceil(),
    }
}

fn min_max(a: u64, b: u64, max: bool) -> u64 {
    match (is_nan(a), is_nan(b)) {
        (true, true) => DEFAULT_NAN,
        (true, false) => b,
        (false, true) => a,
        _ => {
            let key = |x: u64| {
                if x & SIGN != 0 {
                    -((x & !SIGN) as i64) - 1
                } else {
                    x as i64
                }
            };
            if (key(a) > key(b)) == max {
                a
            } else {
                b
            }
        }
    }
}

/// set's fourteen comparisons, bit i for the i-th of eq ne lt le gt ge equ neu ltu leu gtu
/// geu num nan.
fn comparisons(a: f64, b: f64) -> u64 {
    let o = a.partial_cmp(&b);
    let (lt, eq, gt) = (
        o == Some(Ordering::Less),
        o == Some(Ordering::Equal),
        o == Some(Ordering::Greater),
    );
    let u = o.is_none();
    let bits = [
        eq,
        lt || gt,
        lt,
        lt || eq,
        gt,
        gt || eq,
        eq || u,
        lt || gt || u,
        lt || u,
        lt || eq || u,
        gt || u,
        gt || eq || u,
        !u,
        u,
    ];
    bits.iter()
        .enumerate()
        .map(|(i, &b)| u64::from(b) << i)
        .sum()
}

/// testp's six classes of `a`, bit i for finite infinite number notanumber normal
/// subnormal (zeros count as normal).
fn classes(a: f64) -> u64 {
    let bits = [
        a.is_finite(),
        a.is_infinite(),
        !a.is_nan(),
        a.is_nan(),
        a.is_normal() || a == 0.0,
        a.is_subnormal(),
    ];
    bits.iter()
        .enumerate()
        .map(|(i, &b)| u64::from(b) << i)
        .sum()
}

/// What each slot of the kernel holds for case `(a, b, c)` run by thread `thread`.
fn expected(a: u64, b: u64, c: u64, thread: usize) -> [u64; SLOTS] {
    let mut out = [0u64; SLOTS];
    let (da, db, dc) = (double(a), double(b), double(c));
    let (fa, fb) = (f64::from_bits(a), f64::from_bits(b));
    let one = Double::from_bits(1f64.to_bits().into());
    for (m, &mode) in MODES.iter().enumerate() {
        out[m] = arith(da.add_r(db, mode).value, &[a, b]);
        out[4 + m] = arith(da.sub_r(db, mode).value, &[a, b]);
        out[8 + m] = arith(da.mul_r(db, mode).value, &[a, b]);
        out[12 + m] = arith(da.mul_add_r(db, dc, mode).value, &[a, b, c]);
        out[16 + m] = arith(da.div_r(db, mode).value, &[a, b]);
        out[20 + m] = sqrt(a, mode);
        out[24 + m] = arith(one.div_r(db, mode).value, &[b]);
        out[28 + m] = to_f32(a, mode);
        out[32 + m] = if is_nan(a) {
            a | QUIET
        } else {
            integral(fa, mode).to_bits()
        };
        out[36 + m] = integral(fa, mode) as i64 as u64;
        out[40 + m] = integral(fa, mode) as u64;
        let (s, u) = (a as i64, b);
        out[48 + m] = Double::from_i128_r(i128::from(s), mode).value.to_bits() as u64;
        out[52 + m] = Double::from_u128_r(u128::from(u), mode).value.to_bits() as u64;
        let mut lost = false;
        let h: Half = da.convert_r(mode, &mut lost).value;
        out[66 + m] = if is_nan(a) {
            F16_NAN
        } else {
            h.to_bits() as u64
        };
    }
    out[44] = u64::from(fa.trunc() as i32 as u32);
    out[45] = u64::from(fa.round_ties_even() as u32);
    out[46] = u64::from(fa.floor() as i16 as u16);
    out[47] = u64::from(fa.ceil() as u8);
    out[56] = ((c as u32 as i32) as f64).to_bits();
    out[57] = f64::from(c as u16).to_bits();
    out[58] = min_max(a, b, false);
    out[59] = min_max(a, b, true);
    out[60] = comparisons(fa, fb);
    out[61] = classes(fa);
    out[62] = rsqrt(a);
    let low = a as u32;
    out[63] = from_f32(low, false);
    out[64] = from_f32(low, true);
    let half = Half::from_bits(u128::from(low as u16));
    let mut lost = false;
    let widened: Double = half.convert(&mut lost).value;
    out[65] = if half.is_nan() {
        0x7fff_ffff_e000_0000 // f16's NaN widens to f32's canonical NaN, then to f64
    } else {
        widened.to_bits() as u64
    };
    out[70] = a & !SIGN;
    out[71] = a ^ SIGN;
    out[72] = (b & !SIGN) | (a & SIGN);
    out[73] = if fa < fb { 1f32.to_bits().into() } else { 0 };
    let ltu = fa < fb || fa.is_nan() || fb.is_nan();
    let p3 = thread != 7;
    out[74] = u64::from(ltu && p3) | u64::from(!ltu && p3) << 1;
    out[75] = if c as u32 as i32 >= 0 { a } else { b };
    let flush = |x: u64| {
        if x & 0x7ff0_0000_0000_0000 == 0 {
            x & SIGN
        } else {
            x
        }
    };
    let recip = one.div_r(double(flush(b)), Round::NearestTiesToEven).value;
    out[76] = flush(arith(recip, &[b]));
    out[77] = to_f32(saturate(a), Round::NearestTiesToEven);
    out[78] = flush32(to_f32(a, Round::TowardPositive));
    out[79] = arith(
        dc.mul_add_r(db, da, Round::NearestTiesToEven).value,
        &[c, b, a],
    );
    out
}

/// rsqrt.approx.f64 as the runtime computes it: 1 / sqrt(a), each rounded to nearest.
fn rsqrt(a: u64) -> u64 {
    let root = sqrt(a, Round::NearestTiesToEven);
    let one = Double::from_bits(1f64.to_bits().into());
    arith(
        one.div_r(double(root), Round::NearestTiesToEven).value,
        &[root],
    )
}

/// cvt.f64.f32: exact, a NaN's payload kept (made quiet); `.ftz` flushes subnormals.
fn from_f32(x: u32, ftz: bool) -> u64 {
    let f = f32::from_bits(x);
    if f.is_nan() {
        let sign = u64::from(x >> 31) << 63;
        return sign | 0x7ff0_0000_0000_0000 | QUIET | u64::from(x & 0x7f_ffff) << 29;
    }
    if ftz && f.is_subnormal() {
        return u64::from(x >> 31) << 63;
    }
    f64::from(f).to_bits()
}

const NAMES: [&str; 7] = ["add", "sub", "mul", "fma", "div", "sqrt", "rcp"];

/// A slot's name, for messages.
fn slot_name(i: usize) -> String {
    let modes = ["rn", "rz", "rm", "rp"];
    match i {
        0..=27 => format!("{}.{}", NAMES[i / 4], modes[i % 4]),
        28..=31 => format!("cvt.{}.f32.f64", modes[i % 4]),
        32..=35 => format!("cvt.{}i.f64.f64", modes[i % 4]),
        36..=39 => format!("cvt.{}i.s64.f64", modes[i % 4]),
        40..=43 => format!("cvt.{}i.u64.f64", modes[i % 4]),
        48..=51 => format!("cvt.{}.f64.s64", modes[i % 4]),
        52..=55 => format!("cvt.{}.f64.u64", modes[i % 4]),
        66..=69 => format!("cvt.{}.f16.f64", modes[i % 4]),
        other => format!("slot {other} (tests/kernels/f64ops.ptx)"),
    }
}

/// Runs the kernel over `cases`, 128 threads a CTA, and returns each case's slots.
fn run(cases: &[[u64; 3]]) -> Vec<[u64; SLOTS]> {
    let input: Vec<u8> = cases
        .iter()
        .flatten()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let out = common::run_cases("f64ops", &input, cases.len(), SLOTS * 8);
    let words: Vec<u64> = out
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    words
        .chunks_exact(SLOTS)
        .map(|c| c.try_into().unwrap())
        .collect()
}

/// Whether rsqrt.approx's `r` is within one unit in the last place of 1 / sqrt(a) (docs/f64.md)
/// for a positive normal `a`: |r^2 a - 1| = |2e + e^2| for a relative error e, computed in
/// binary128 (r^2 a has at most 159 bits: rounded there, far below the bound).
fn rsqrt_within_bound(a: u64, r: u64) -> bool {
    let q = |x: u64| -> Quad {
        let mut lost = false;
        double(x).convert(&mut lost).value
    };
    let one = Quad::from_bits(0x3fff_u128 << 112);
    let e = (((q(r) * q(r)).value * q(a)).value - one).value.abs();
    let bound = Quad::from_bits(0x3fcc_u128 << 112 | 1 << 100); // 2^-51 (1 + 2^-12)
    e <= bound
}

/// Runs `cases` and checks every slot; panics listing the first mismatches.
fn check(cases: &[[u64; 3]]) {
    let got = run(cases);
    let mut bad = Vec::new();
    for (i, (case, got)) in cases.iter().zip(&got).enumerate() {
        let [a, b, c] = *case;
        let normal = f64::from_bits(a).is_normal() && a & SIGN == 0;
        if normal && f64::from_bits(got[62]).is_normal() && !rsqrt_within_bound(a, got[62]) {
            bad.push(format!(
                "rsqrt.approx beyond one unit: a={a:#018x} got {:#018x}",
                got[62]
            ));
        }
        let want = expected(a, b, c, i);
        for s in 0..SLOTS {
            if got[s] != want[s] && bad.len() < 20 {
                bad.push(format!(
                    "{}: a={a:#018x} b={b:#018x} c={c:#018x}: got {:#018x}, want {:#018x}",
                    slot_name(s),
                    got[s],
                    want[s]
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{} cases:\n{}", cases.len(), bad.join("\n"));
}

/// Operands at every edge of binary64: zeros, subnormals, the normal range's ends, one and
/// its neighbours, integers at 2^52, 2^53, 2^63 and 2^64 (integer conversions), halves
/// (ties of the integral roundings), infinities and NaNs of both kinds.
fn edges() -> Vec<u64> {
    let mut v: Vec<u64> = vec![
        0,
        1,
        2,
        0x000f_ffff_ffff_ffff,
        0x0010_0000_0000_0000,
        0x0010_0000_0000_0001,
        0x3ff0_0000_0000_0000,
        0x3ff0_0000_0000_0001,
        0x3fef_ffff_ffff_ffff,
        0x3fe0_0000_0000_0000, // 0.5
        0x3ff8_0000_0000_0000, // 1.5
        0x4004_0000_0000_0000, // 2.5
        0x4330_0000_0000_0000, // 2^52
        0x4340_0000_0000_0000, // 2^53
        0x4340_0000_0000_0001,
        0x43df_ffff_ffff_ffff, // below 2^63
        0x43e0_0000_0000_0000, // 2^63
        0x43f0_0000_0000_0000, // 2^64
        0x41df_ffff_ffc0_0000, // 2^31 - 1
        0x41e0_0000_0000_0000, // 2^31
        0x40ef_ffe0_0000_0000, // 65535
        0x7fef_ffff_ffff_ffff,
        0x7fe0_0000_0000_0000,
        0x47ef_ffff_e000_0000, // f32's largest
        0x47ef_ffff_f000_0000, // f32's largest and a half place
        0x36a0_0000_0000_0000, // f32's smallest subnormal
        0x3810_0000_0000_0000, // f32's smallest normal
        0x40ef_fc00_0000_0000, // f16's largest
        0x3e70_0000_0000_0000, // f16's smallest subnormal
        0x4009_21fb_5444_2d18, // pi
        0x7ff0_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0x7ff0_0000_0000_0001, // signalling
        0x7ff4_0000_dead_beef,
    ];
    let negated: Vec<u64> = v.iter().map(|x| x ^ SIGN).collect();
    v.extend(negated);
    v
}

#[test]
fn edge_operands_crossed() {
    let e = edges();
    let mut cases = Vec::new();
    for (i, &a) in e.iter().enumerate() {
        for (j, &b) in e.iter().enumerate() {
            cases.push([a, b, e[(i * 7 + j * 3) % e.len()]]);
        }
    }
    while cases.len() % 128 != 0 {
        cases.push([0, 0, 0]);
    }
    check(&cases);
}

/// A random operand: any bits, or a value of an interesting kind (see the module's
/// comment).
fn operand(next: &mut impl FnMut() -> u64) -> u64 {
    let r = next();
    let sign = r & SIGN;
    let frac = next() & 0x000f_ffff_ffff_ffff;
    let exp = |e: u64| sign | e << 52 | frac;
    match r % 8 {
        0 => next(),
        1 => exp(next() % 3),         // subnormals and the smallest normals
        2 => exp(0x7fd + next() % 2), // near overflow
        3 => exp(1023 - 60 + next() % 120) & !((1 << (next() % 53)) - 1), // short significands
        4 => exp(1023 + 50 + next() % 16), // integers near 2^52 .. 2^66
        5 => (f64::from_bits(exp(1023 + next() % 20)).round() + 0.5).to_bits() | sign, // halves
        _ => exp(1023 - 30 + next() % 60),
    }
}

/// Random cases, a quarter of them shaped so that the result needs every bit: b = -a
/// nearly (cancellation), c = -(a x b) nearly (fma cancellation), a = b x b (exact square
/// roots and quotients).
fn random_cases(n: usize) -> Vec<[u64; 3]> {
    let mut next = common::xorshift(0x5eed_f640_0000_0001);
    (0..n)
        .map(|_| {
            let (a, b, c) = (operand(&mut next), operand(&mut next), operand(&mut next));
            let nudge = |x: u64, r: u64| x.wrapping_add(r % 5).wrapping_sub(2);
            match next() % 8 {
                0 => [a, nudge(a ^ SIGN, next()), c],
                1 => {
                    let p = f64::from_bits(a) * f64::from_bits(b);
                    [a, b, nudge((-p).to_bits(), next())]
                }
                2 => {
                    let sq = f64::from_bits(b) * f64::from_bits(b);
                    [sq.to_bits(), b, c]
                }
                _ => [a, b, c],
            }
        })
        .collect()
}

#[test]
fn random_operands_in_every_mode() {
    let n: usize = std::env::var("SGPU_F64_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(RANDOM_CASES);
    let n = n.div_ceil(128) * 128;
    let start = std::time::Instant::now();
    let cases = random_cases(n);
    // In parts, so that memory stays small however many are asked for.
    for part in cases.chunks(128 * 256) {
        check(part);
    }
    println!(
        "f64 runtime: {n} random cases x {SLOTS} results in {:.1?}",
        start.elapsed()
    );
}
