//! The float unit against an independent IEEE reference (`rustc_apfloat`, LLVM's APFloat
//! ported to Rust): every f32 operation, conversion and rounding mode, with and without
//! `.ftz` and `.sat`, on edge operands crossed with each other and on random operands.
//!
//! The reference knows IEEE 754; sgpu's own rules are written out here beside it: `.ftz`
//! flushes subnormal inputs and rounded results to a zero of their sign, `.sat` clamps to
//! [+0, 1] with NaN and -0 going to +0, and every NaN result is the canonical NaN.
//! `SGPU_SIM_FLOAT_CASES` sets the number of random cases per operation (default 150,000).

use rustc_apfloat::ieee::{BFloat, Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round};
use sgpu_isa::{Fcvt, Ity, Rnd};
use sgpu_sim::{float, lane};

const MODES: [Rnd; 4] = [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp];
const CANONICAL: u32 = 0x7fff_ffff;

/// Magnitudes at every boundary of binary32 and of its narrowing to f16 and bf16; each is
/// used with both signs, and NaNs with their payloads.
const MAGNITUDES: [u32; 34] = [
    0x0000_0000, // zero
    0x0000_0001, // smallest subnormal
    0x0000_0002,
    0x0000_0003,
    0x0040_0000, // a subnormal, half the smallest normal
    0x007f_ffff, // largest subnormal
    0x0080_0000, // smallest normal
    0x0080_0001,
    0x00ff_ffff,
    0x3f00_0000, // 0.5
    0x3f40_0000, // 0.75
    0x3f80_0000, // 1
    0x3f80_0001, // 1 + ulp
    0x3fc0_0000, // 1.5
    0x3fff_ffff, // 2 - ulp
    0x4020_0000, // 2.5
    0x4040_0000, // 3
    0x3eaa_aaab, // 1/3
    0x4b80_0000, // 2^24
    0x4b80_0001, // 2^24 + 2
    0x477f_e000, // 65504, f16's largest
    0x477f_efff, // just under f16's overflow threshold
    0x477f_f000, // 65520: f16 overflows to nearest
    0x3880_0000, // 2^-14, f16's smallest normal
    0x3380_0000, // 2^-24, f16's smallest subnormal
    0x3300_0000, // 2^-25, half of it: a tie
    0x3340_0000, // 1.5 x 2^-25
    0x3f80_8000, // 1 + 2^-8: a bf16 tie
    0x3f81_8000, // 1 + 3 x 2^-8: a bf16 tie, rounding up to even
    0x7f7f_7fff, // just under bf16's overflow threshold
    0x7f7f_ffff, // f32's largest
    0x7f80_0000, // infinity
    0x7fc0_0000, // quiet NaN
    0x7f80_0001, // signalling NaN with a payload
];

/// F2F of `a` with `.sat` as given, no `.relu` or `.satfinite`, not rounding to an integer.
fn convert(a: u32, fcvt: Fcvt, mode: Rnd, ftz: bool, sat: bool) -> u32 {
    let clamps = lane::Clamps {
        sat,
        ..Default::default()
    };
    lane::convert_float(a, fcvt, (false, mode, ftz), clamps)
}

fn edges() -> Vec<u32> {
    let mut v: Vec<u32> = MAGNITUDES
        .iter()
        .flat_map(|&m| [m, m | 0x8000_0000])
        .collect();
    v.extend([0xffc1_2345, 0xffff_ffff, 0x7fbf_ffff]);
    v
}

fn round_of(mode: Rnd) -> Round {
    match mode {
        Rnd::Rn => Round::NearestTiesToEven,
        Rnd::Rz => Round::TowardZero,
        Rnd::Rm => Round::TowardNegative,
        Rnd::Rp => Round::TowardPositive,
    }
}

// ---- sgpu's rules around the reference ---------------------------------------------------

fn single(bits: u32) -> Single {
    Single::from_bits(u128::from(bits))
}

/// `.ftz` on a reference value: a subnormal becomes a zero of its sign.
fn flush(x: Single, ftz: bool) -> Single {
    if ftz && x.is_denormal() {
        Single::ZERO.copy_sign(x)
    } else {
        x
    }
}

/// The bits sgpu gives for a reference result: the canonical NaN for any NaN.
fn bits_of(x: Single) -> u32 {
    if x.is_nan() {
        CANONICAL
    } else {
        x.to_bits() as u32
    }
}

/// `.sat` on result bits: NaN, negatives and -0 to +0, above one to one.
fn sat_bits(bits: u32, sat: bool) -> u32 {
    let x = f32::from_bits(bits);
    if !sat {
        bits
    } else if x.is_nan() || x <= 0.0 {
        0
    } else if x >= 1.0 {
        0x3f80_0000
    } else {
        bits
    }
}

// ---- the operations, model and reference -------------------------------------------------

#[derive(Clone, Copy, Debug)]
enum Op {
    Add,
    Mul,
    Fma,
    Div,
    Rcp,
    Sqrt,
}

fn model(op: Op, [a, b, c]: [u32; 3], mode: Rnd, ftz: bool) -> u32 {
    let (a, b, c) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
    match op {
        Op::Add => float::add(a, b, mode, ftz),
        Op::Mul => float::mul(a, b, mode, ftz),
        Op::Fma => float::fma(a, b, c, mode, ftz),
        Op::Div => float::div(a, b, mode, ftz),
        Op::Rcp => float::div(1.0, a, mode, ftz),
        Op::Sqrt => float::sqrt(a, mode, ftz),
    }
    .to_bits()
}

/// The reference result, `None` for sqrt, which APFloat lacks (see [`sqrt_is_correct`]).
fn reference(op: Op, [a, b, c]: [u32; 3], mode: Rnd, ftz: bool) -> Option<u32> {
    let (a, b, c) = (
        flush(single(a), ftz),
        flush(single(b), ftz),
        flush(single(c), ftz),
    );
    let r = round_of(mode);
    let v = match op {
        Op::Add => a.add_r(b, r).value,
        Op::Mul => a.mul_r(b, r).value,
        Op::Fma => a.mul_add_r(b, c, r).value,
        Op::Div => a.div_r(b, r).value,
        Op::Rcp => Single::from_bits(0x3f80_0000).div_r(a, r).value,
        Op::Sqrt => return None,
    };
    Some(bits_of(flush(v, ftz)))
}

/// Whether `r` is sqrt(a) rounded by `mode`, checked with squares that are exact in f64 (an
/// f32 has 24 bits, a midpoint 25): r^2 and its neighbours' bracket a.
fn sqrt_is_correct(a: u32, r: u32, mode: Rnd, ftz: bool) -> bool {
    let a = f32::from_bits(bits_of(flush(single(a), ftz)));
    let r = f32::from_bits(r);
    if a.is_nan() || a < 0.0 {
        return r.to_bits() == CANONICAL;
    }
    if a == 0.0 || a.is_infinite() {
        return r.to_bits() == a.to_bits();
    }
    if ftz && r.is_subnormal() {
        return false;
    }
    let a = f64::from(a);
    let sq = |x: f32| f64::from(x) * f64::from(x);
    let (below, above) = (r.next_down(), r.next_up());
    match mode {
        Rnd::Rn => {
            let lo = (f64::from(below) + f64::from(r)) / 2.0;
            let hi = (f64::from(r) + f64::from(above)) / 2.0;
            lo * lo < a && a < hi * hi
        }
        Rnd::Rz | Rnd::Rm => sq(r) <= a && a < sq(above),
        Rnd::Rp => sq(below) < a && a <= sq(r),
    }
}

fn check(op: Op, x: [u32; 3], mode: Rnd, ftz: bool, sat: bool) {
    let raw = model(op, x, mode, ftz);
    let got = sat_bits(raw, sat);
    let context = format!("{op:?} {x:08x?} {mode:?} ftz={ftz} sat={sat}: got {got:#010x}");
    match reference(op, x, mode, ftz) {
        Some(want) => assert_eq!(got, sat_bits(want, sat), "{context}"),
        None => assert!(sqrt_is_correct(x[0], raw, mode, ftz), "{context}"),
    }
}

fn for_each_mode(f: impl Fn(Rnd, bool, bool)) {
    for mode in MODES {
        for ftz in [false, true] {
            for sat in [false, true] {
                f(mode, ftz, sat);
            }
        }
    }
}

#[test]
fn edge_operands_in_every_mode() {
    let e = edges();
    for_each_mode(|mode, ftz, sat| {
        for &a in &e {
            for op in [Op::Rcp, Op::Sqrt] {
                check(op, [a, 0, 0], mode, ftz, sat);
            }
            for &b in &e {
                for op in [Op::Add, Op::Mul, Op::Div] {
                    check(op, [a, b, 0], mode, ftz, sat);
                }
            }
        }
    });
    // fma on a third of the edges cubed, every mode with and without ftz.
    let few: Vec<u32> = e.iter().copied().step_by(3).collect();
    for mode in MODES {
        for ftz in [false, true] {
            for &a in &few {
                for &b in &few {
                    for &c in &few {
                        check(Op::Fma, [a, b, c], mode, ftz, false);
                    }
                }
            }
        }
    }
}

/// The issue's cases: products just above the smallest subnormal in directed modes, the
/// bf16 conversion of NaN, and f16 conversions that ignored their modifiers.
#[test]
fn issue_regressions() {
    let tiny = f32::from_bits(1);
    // 1.5 x 2^-149 toward zero is 2^-149; 2.5 x 2^-149 upward is 3 x 2^-149.
    assert_eq!(float::mul(1.5, tiny, Rnd::Rz, false).to_bits(), 1);
    assert_eq!(float::mul(2.5, tiny, Rnd::Rp, false).to_bits(), 3);
    assert_eq!(
        float::mul(-2.5, tiny, Rnd::Rm, false).to_bits(),
        0x8000_0003
    );
    let cvt = |x: f32, fcvt, rnd, sat| convert(x.to_bits(), fcvt, rnd, false, sat);
    assert_eq!(cvt(f32::NAN, Fcvt::Bf16, Rnd::Rn, false), 0x7fff);
    assert_eq!(convert(u32::MAX, Fcvt::Bf16, Rnd::Rn, false, false), 0x7fff);
    assert_eq!(cvt(f32::INFINITY, Fcvt::Bf16, Rnd::Rn, false), 0x7f80);
    assert_eq!(cvt(f32::MAX, Fcvt::Bf16, Rnd::Rn, false), 0x7f80);
    assert_eq!(cvt(f32::MAX, Fcvt::Bf16, Rnd::Rz, false), 0x7f7f);
    // 1 + 2^-11 + 2^-12 is above the f16 midpoint: up when nearest, down toward zero.
    let x = 1.0 + 2f32.powi(-11) + 2f32.powi(-12);
    assert_eq!(cvt(x, Fcvt::F16, Rnd::Rn, false), 0x3c01);
    assert_eq!(cvt(x, Fcvt::F16, Rnd::Rz, false), 0x3c00);
    assert_eq!(cvt(-x, Fcvt::F16, Rnd::Rm, false), 0xbc01);
    assert_eq!(cvt(1.0 + 2f32.powi(-20), Fcvt::F16, Rnd::Rp, false), 0x3c01);
    assert_eq!(cvt(65520.0, Fcvt::F16, Rnd::Rz, false), 0x7bff);
    assert_eq!(cvt(3.0, Fcvt::F16, Rnd::Rn, true), 0x3c00);
    assert_eq!(cvt(-3.0, Fcvt::F16, Rnd::Rn, true), 0);
    assert_eq!(cvt(f32::NAN, Fcvt::F16, Rnd::Rn, true), 0);
    assert_eq!(cvt(f32::NAN, Fcvt::F16, Rnd::Rn, false), 0x7fff);
}

/// FMNMX's NaN and `.sat`'s zero follow the same canonical rules.
#[test]
fn min_max_nan_and_saturated_zero() {
    let payload = f32::from_bits(0xffc1_2345);
    for max in [false, true] {
        assert_eq!(
            lane::fminmax(payload, payload, max, false).to_bits(),
            CANONICAL
        );
        assert_eq!(lane::fminmax(1.0, payload, max, true).to_bits(), CANONICAL);
        assert_eq!(lane::fminmax(payload, 2.0, max, false), 2.0);
    }
    assert_eq!(lane::saturate(-0.0, true).to_bits(), 0);
    assert_eq!(lane::saturate(payload, true).to_bits(), 0);
    assert_eq!(lane::saturate(-0.0, false).to_bits(), 0x8000_0000);
}

// ---- conversions -------------------------------------------------------------------------

/// The reference F2F: ftz on an f32 source, `.sat` on the f32 value (it commutes with the
/// rounding), NaN to the destination's canonical NaN.
fn reference_narrow<T: Float>(a: u32, mode: Rnd, ftz: bool, sat: bool) -> u32
where
    Single: FloatConvert<T>,
{
    let x = flush(single(a), ftz);
    let x = single(sat_bits(x.to_bits() as u32, sat));
    let v: T = x.convert_r(round_of(mode), &mut false).value;
    if v.is_nan() {
        0x7fff
    } else {
        v.to_bits() as u32
    }
}

fn check_narrow(a: u32, mode: Rnd, ftz: bool, sat: bool) {
    let cases = [
        (Fcvt::F16, reference_narrow::<Half>(a, mode, ftz, sat)),
        (Fcvt::Bf16, reference_narrow::<BFloat>(a, mode, ftz, sat)),
    ];
    for (fcvt, want) in cases {
        let got = convert(a, fcvt, mode, ftz, sat);
        assert_eq!(
            got, want,
            "{fcvt:?} of {a:#010x} {mode:?} ftz={ftz} sat={sat}: got {got:#06x}, want {want:#06x}"
        );
    }
}

#[test]
fn narrowing_at_every_half_and_bfloat_boundary() {
    let e = edges();
    for_each_mode(|mode, ftz, sat| e.iter().for_each(|&a| check_narrow(a, mode, ftz, sat)));
    // Around every f16 value: the value, the midpoint to the next one, and the f32 values
    // either side of that midpoint (every f16 bit pattern below infinity, both signs).
    for h in (0..0x7c00u32).flat_map(|h| [h, h | 0x8000]) {
        let lo = f32::from_bits(convert(h, Fcvt::FromF16, Rnd::Rn, false, false));
        let hi = f32::from_bits(convert(h + 1, Fcvt::FromF16, Rnd::Rn, false, false));
        let mid = ((f64::from(lo) + f64::from(hi)) / 2.0) as f32; // exact: 12 bits
        for x in [lo, mid, mid.next_down(), mid.next_up()] {
            for mode in MODES {
                check_narrow(x.to_bits(), mode, false, false);
            }
        }
    }
    // bf16's ties and neighbours: every exponent, fractions at the cut.
    for e in 0..255u32 {
        for low in [0x0000, 0x7fff, 0x8000, 0x8001, 0xffff] {
            for top in [0, 1, 0x7f] {
                let a = e << 23 | top << 16 | low;
                for mode in MODES {
                    check_narrow(a, mode, false, false);
                    check_narrow(a | 0x8000_0000, mode, false, false);
                }
            }
        }
    }
}

/// f16 and bf16 to f32, every bit pattern: exact, NaN canonical, ftz on an f32 result.
#[test]
fn widening_every_half_and_bfloat() {
    for h in 0..=0xffffu32 {
        for ftz in [false, true] {
            for sat in [false, true] {
                let half: Single = Half::from_bits(u128::from(h)).convert(&mut false).value;
                let bfloat: Single = BFloat::from_bits(u128::from(h)).convert(&mut false).value;
                let cases = [(Fcvt::FromF16, half), (Fcvt::FromBf16, bfloat)];
                for (fcvt, v) in cases {
                    let want = sat_bits(bits_of(flush(v, ftz)), sat);
                    let got = convert(h, fcvt, Rnd::Rn, ftz, sat);
                    assert_eq!(got, want, "{fcvt:?} {h:#06x} ftz={ftz} sat={sat}");
                }
            }
        }
    }
}

fn check_int_to_float(v: i128) {
    for mode in MODES {
        let want = bits_of(Single::from_i128_r(v, round_of(mode)).value);
        let got = lane::int_to_float(v, mode).to_bits();
        assert_eq!(got, want, "{v} {mode:?}");
    }
}

fn check_float_to_float_and_int(a: u32) {
    for mode in MODES {
        // cvt.rni.f32.f32 and kin.
        for ftz in [false, true] {
            let x = flush(single(a), ftz);
            let want = bits_of(flush(x.round_to_integral(round_of(mode)).value, ftz));
            let got = lane::convert_float(a, Fcvt::F32, (true, mode, ftz), lane::Clamps::default());
            assert_eq!(got, want, "rint {a:#010x} {mode:?} ftz={ftz}");
        }
        // cvt.rni.s32.f32 and kin: integral, then saturated to the type; NaN gives 0.
        let integral = single(a).round_to_integral(round_of(mode)).value;
        for ity in [
            Ity::U8,
            Ity::S8,
            Ity::U16,
            Ity::S16,
            Ity::U32,
            Ity::S32,
            Ity::U64,
            Ity::S64,
        ] {
            let (bits, signed) = lane::ity_bits(ity);
            let (lo, hi) = if signed {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            } else {
                (0, (1i128 << bits) - 1)
            };
            let want = if integral.is_nan() {
                0
            } else if integral.is_infinite() {
                if integral.is_negative() {
                    lo
                } else {
                    hi
                }
            } else {
                integral.to_i128(128).value.clamp(lo, hi)
            };
            let got = lane::float_to_int(f32::from_bits(a), ity, mode);
            assert_eq!(got, want as u64, "{ity:?} of {a:#010x} {mode:?}");
        }
    }
}

#[test]
fn integer_conversions() {
    for v in [
        0i128,
        1,
        -1,
        (1 << 24) + 1,
        (1 << 25) + 2,
        (1 << 25) + 6,
        -(1 << 24) - 1,
        i128::from(i32::MAX),
        i128::from(i32::MIN),
        i128::from(u32::MAX),
        i128::from(i64::MAX),
        i128::from(i64::MIN),
        i128::from(u64::MAX),
    ] {
        check_int_to_float(v);
    }
    for a in edges() {
        check_float_to_float_and_int(a);
    }
    for a in [
        0x4effffff, 0x4f000000, 0x5effffff, 0x5f000000, 0x5f800000, 0xcf000000,
    ] {
        check_float_to_float_and_int(a);
    }
}

// ---- random operands ---------------------------------------------------------------------

mod common;

use common::Rng;

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// An f32 that hits rounding's hard cases often: exponents near the subnormals, near
    /// one and near overflow as well as anywhere, and fractions with low bits cleared (so
    /// sums and products land on ties).
    fn operand(&mut self, near: Option<u32>) -> u32 {
        let sign = (self.next() as u32) & 0x8000_0000;
        let exp = match (near, self.below(6)) {
            (Some(e), 0..=2) => (e as i64 + self.below(50) as i64 - 25).clamp(0, 255) as u32,
            (_, 0) => self.below(4) as u32,
            (_, 1) => 40 + self.below(40) as u32,
            (_, 2) => 120 + self.below(16) as u32,
            (_, 3) => 250 + self.below(6) as u32,
            _ => self.below(256) as u32,
        };
        let frac = (self.next() as u32) & 0x7f_ffff;
        let cleared = frac & !((1u32 << self.below(24)) - 1);
        sign | exp << 23 | if self.below(2) == 0 { frac } else { cleared }
    }
}

fn random_cases() -> usize {
    std::env::var("SGPU_SIM_FLOAT_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150_000)
}

#[test]
fn random_operands_in_every_mode() {
    let mut rng = Rng(0x0f10_a7ed_5eed_0001);
    for i in 0..random_cases() {
        let a = rng.operand(None);
        let near = Some(a >> 23 & 0xff);
        let b = rng.operand(near);
        let c = rng.operand(if i % 2 == 0 { near } else { None });
        let mode = MODES[i % 4];
        let ftz = i % 8 >= 4;
        for op in [Op::Add, Op::Mul, Op::Fma, Op::Div, Op::Rcp, Op::Sqrt] {
            check(op, [a, b, c], mode, ftz, false);
        }
        check_narrow(a, mode, ftz, i % 16 >= 8);
        check_int_to_float(i128::from(rng.next() as i64) >> rng.below(64));
        check_float_to_float_and_int(b);
    }
}
