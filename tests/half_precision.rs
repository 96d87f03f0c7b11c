//! 16- and 8-bit floats through the whole flow: every slot of `tests/kernels/halfops.ptx`
//! (f16 and bf16 arithmetic, scalar and in pairs, with `.ftz`, `.sat`, `.relu`, `.NaN` and
//! `.xorsign.abs`; comparisons; every conversion among f32, f16, bf16, e4m3 and e5m2 with
//! `.relu` and `.satfinite`, and to and from integers; 16x2 integer arithmetic) against
//! `rustc_apfloat`, which rounds the exact result in the narrow format itself: the check
//! that computing through f32 (docs/float.md) rounds once. NaN results are the formats'
//! canonical NaNs. Edge operands are crossed; `SGPU_HALF_CASES` random cases follow (CI: the
//! default below; `SGPU_HALF_CASES=1000000 cargo test --release --test half_precision` by
//! hand).

mod common;

use rustc_apfloat::ieee::{BFloat, Float8E4M3FN, Float8E5M2, Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round};

/// Result slots per case, as the kernel writes them (32 bits each).
const SLOTS: usize = 89;
const RANDOM_CASES: usize = 8192;
const RN: Round = Round::NearestTiesToEven;
const MODES: [Round; 4] = [
    Round::NearestTiesToEven,
    Round::TowardZero,
    Round::TowardNegative,
    Round::TowardPositive,
];

/// A 16-bit format: its exponent bits, for `.ftz` and classes.
#[derive(Clone, Copy, PartialEq)]
enum Fmt {
    F16,
    Bf16,
}

impl Fmt {
    fn exponent(self) -> u16 {
        match self {
            Fmt::F16 => 0x7c00,
            Fmt::Bf16 => 0x7f80,
        }
    }

    fn one(self) -> u16 {
        match self {
            Fmt::F16 => 0x3c00,
            Fmt::Bf16 => 0x3f80,
        }
    }

    /// The value as f32, exactly.
    fn widen(self, bits: u16) -> Single {
        let mut lost = false;
        match self {
            Fmt::F16 => Half::from_bits(bits.into()).convert(&mut lost).value,
            Fmt::Bf16 => BFloat::from_bits(bits.into()).convert(&mut lost).value,
        }
    }

    /// `x` rounded to this format in `mode`; NaN gives 0x7fff.
    fn narrow(self, x: Single, mode: Round) -> u16 {
        if x.is_nan() {
            return 0x7fff;
        }
        let mut lost = false;
        match self {
            Fmt::F16 => {
                let h: Half = x.convert_r(mode, &mut lost).value;
                h.to_bits() as u16
            }
            Fmt::Bf16 => {
                let h: BFloat = x.convert_r(mode, &mut lost).value;
                h.to_bits() as u16
            }
        }
    }

    /// `.ftz`: a subnormal becomes a zero of its sign.
    fn flush(self, bits: u16) -> u16 {
        if bits & self.exponent() == 0 {
            bits & 0x8000
        } else {
            bits
        }
    }

    fn is_nan(self, bits: u16) -> bool {
        bits & 0x7fff > self.exponent()
    }

    /// An arithmetic operation rounded once in this format (not through f32).
    fn arith(self, op: &str, a: u16, b: u16, c: u16) -> u16 {
        macro_rules! compute {
            ($t:ty) => {{
                let (x, y, z) = (
                    <$t>::from_bits(a.into()),
                    <$t>::from_bits(b.into()),
                    <$t>::from_bits(c.into()),
                );
                let r = match op {
                    "add" => x.add_r(y, RN).value,
                    "sub" => x.sub_r(y, RN).value,
                    "mul" => x.mul_r(y, RN).value,
                    "fma" => x.mul_add_r(y, z, RN).value,
                    "neg" => -x,
                    _ => x.abs(),
                };
                if r.is_nan() {
                    0x7fff
                } else {
                    r.to_bits() as u16
                }
            }};
        }
        match self {
            Fmt::F16 => compute!(Half),
            Fmt::Bf16 => compute!(BFloat),
        }
    }

    /// min or max: a NaN operand gives the other, two (or any, with `.NaN`) the canonical NaN;
    /// -0 is below +0; `.xorsign.abs` compares magnitudes and gives the result the exclusive
    /// or of the signs (a NaN result excepted).
    fn min_max(self, a: u16, b: u16, max: bool, nan: bool, xorsign: bool) -> u16 {
        let (x, y) = if xorsign {
            (a & 0x7fff, b & 0x7fff)
        } else {
            (a, b)
        };
        let r = match (self.is_nan(x), self.is_nan(y)) {
            (true, true) => return 0x7fff,
            (true, false) | (false, true) if nan => return 0x7fff,
            (true, false) => y,
            (false, true) => x,
            _ => {
                let key = |v: u16| {
                    if v & 0x8000 != 0 {
                        -i32::from(v & 0x7fff) - 1
                    } else {
                        i32::from(v)
                    }
                };
                if (key(x) > key(y)) == max {
                    x
                } else {
                    y
                }
            }
        };
        if xorsign {
            (r & 0x7fff) | ((a ^ b) & 0x8000)
        } else {
            r
        }
    }
}

/// `.sat` on a 16-bit result: [0, 1], NaN and -0 to +0.
fn sat(bits: u16, f: Fmt) -> u16 {
    if f.is_nan(bits) || bits & 0x8000 != 0 {
        0
    } else if f.widen(bits) > f.widen(f.one()) {
        f.one()
    } else {
        bits
    }
}

/// `.relu` on a 16-bit result: negative to +0, NaN canonical.
fn relu(bits: u16, f: Fmt) -> u16 {
    if f.is_nan(bits) {
        0x7fff
    } else if bits & 0x8000 != 0 {
        0
    } else {
        bits
    }
}

/// The f32 value of bits `x`.
fn single(x: u32) -> Single {
    Single::from_bits(x.into())
}

/// `.satfinite` before rounding: beyond the format's largest finite value `max`, that value
/// (NaN stays).
fn satfinite(x: Single, max: f32) -> Single {
    let v = f32::from_bits(x.to_bits() as u32);
    if v.is_nan() {
        x
    } else {
        single(v.clamp(-max, max).to_bits())
    }
}

/// `.relu` before rounding.
fn relu32(x: Single) -> Single {
    if !x.is_nan() && x.is_negative() {
        Single::ZERO
    } else {
        x
    }
}

/// f32 to e4m3 or e5m2 with `.satfinite` (always), `.relu` as given; NaN gives 0x7f.
fn to_byte(x: Single, e4m3: bool, relu: bool) -> u32 {
    let x = if relu { relu32(x) } else { x };
    if x.is_nan() {
        return 0x7f;
    }
    let mut lost = false;
    if e4m3 {
        let r: Float8E4M3FN = satfinite(x, 448.0).convert_r(RN, &mut lost).value;
        r.to_bits() as u32
    } else {
        let r: Float8E5M2 = satfinite(x, 57344.0).convert_r(RN, &mut lost).value;
        r.to_bits() as u32
    }
}

/// e4m3 or e5m2 to f16, exactly; `.relu` as given.
fn from_byte(byte: u8, e4m3: bool, relu_: bool) -> u16 {
    let mut lost = false;
    let h: Single = if e4m3 {
        Float8E4M3FN::from_bits(byte.into())
            .convert(&mut lost)
            .value
    } else {
        Float8E5M2::from_bits(byte.into()).convert(&mut lost).value
    };
    let bits = Fmt::F16.narrow(h, RN);
    if relu_ {
        relu(bits, Fmt::F16)
    } else {
        bits
    }
}

fn lo(x: u32) -> u16 {
    x as u16
}

fn hi(x: u32) -> u16 {
    (x >> 16) as u16
}

fn pack(low: u16, high: u16) -> u32 {
    u32::from(low) | u32::from(high) << 16
}

/// `f` on each half of a pair.
fn pairwise(a: u32, b: u32, c: u32, f: impl Fn(u16, u16, u16) -> u16) -> u32 {
    pack(f(lo(a), lo(b), lo(c)), f(hi(a), hi(b), hi(c)))
}

/// setp's comparison of f32 values (exact widenings of the halves).
fn compare(op: &str, x: Single, y: Single) -> bool {
    use std::cmp::Ordering::*;
    let o = x.partial_cmp(&y);
    let u = o.is_none();
    match op {
        "lt" => o == Some(Less),
        "le" => matches!(o, Some(Less | Equal)),
        "ne" => matches!(o, Some(Less | Greater)),
        "gtu" => u || o == Some(Greater),
        _ => u,
    }
}

/// What every slot holds for case `(a, b, c)`.
fn expected(a: u32, b: u32, c: u32) -> [u32; SLOTS] {
    let mut out = [0u32; SLOTS];
    let (ha, hb, hc) = (lo(a), lo(b), lo(c));
    // 0..20: f16 then bf16 scalar arithmetic
    for (base, f) in [(0, Fmt::F16), (10, Fmt::Bf16)] {
        let r = |op| u32::from(f.arith(op, ha, hb, hc));
        out[base] = r("add");
        out[base + 1] = r("sub");
        out[base + 2] = r("mul");
        out[base + 3] = r("fma");
        out[base + 4] = u32::from(relu(f.arith("fma", ha, hb, hc), f));
        out[base + 5] = u32::from(f.min_max(ha, hb, false, false, false));
        out[base + 6] = u32::from(f.min_max(ha, hb, true, true, false));
        out[base + 7] = u32::from(f.min_max(ha, hb, false, false, true));
        out[base + 8] = r("neg");
        out[base + 9] = r("abs");
    }
    // 20..25: f16 .ftz and .sat
    let f = Fmt::F16;
    let (fa, fb, fc) = (f.flush(ha), f.flush(hb), f.flush(hc));
    out[20] = u32::from(f.flush(f.arith("add", fa, fb, 0)));
    out[21] = u32::from(f.flush(sat(f.arith("mul", fa, fb, 0), f)));
    out[22] = u32::from(f.flush(sat(f.arith("fma", fa, fb, fc), f)));
    out[23] = u32::from(f.min_max(fa, fb, false, true, false));
    out[24] = u32::from(f.arith("neg", fa, 0, 0));
    // 25..35: pairs
    for (base, f) in [(25, Fmt::F16), (29, Fmt::Bf16)] {
        out[base] = pairwise(a, b, c, |x, y, _| f.arith("add", x, y, 0));
        out[base + 1] = pairwise(a, b, c, |x, y, z| relu(f.arith("fma", x, y, z), f));
        out[base + 2] = pairwise(a, b, c, |x, y, _| f.min_max(x, y, true, false, true));
        out[base + 3] = pairwise(a, b, c, |x, _, _| f.arith("neg", x, 0, 0));
    }
    out[33] = pairwise(a, b, c, |x, y, _| {
        let f = Fmt::F16;
        f.flush(f.arith("mul", f.flush(x), f.flush(y), 0))
    });
    out[34] = pairwise(a, b, c, |x, y, _| {
        Fmt::F16.min_max(x, y, false, true, false)
    });
    // 35..41: comparisons
    let (f16, bf16) = (Fmt::F16, Fmt::Bf16);
    let p1 = compare("lt", f16.widen(f16.flush(ha)), f16.widen(f16.flush(hb)));
    let p2 = compare("gtu", bf16.widen(ha), bf16.widen(hb)) && p1;
    out[35] = u32::from(p1) | u32::from(p2) << 1;
    let half_set = |x: u16, y: u16, f: Fmt, op: &str, one: u16, ftz: bool| {
        let (x, y) = if ftz {
            (f.flush(x), f.flush(y))
        } else {
            (x, y)
        };
        if compare(op, f.widen(x), f.widen(y)) {
            one
        } else {
            0
        }
    };
    out[36] = pairwise(a, b, c, |x, y, _| half_set(x, y, f16, "gtu", 0xffff, false));
    out[37] = pairwise(a, b, c, |x, y, _| half_set(x, y, bf16, "le", 0x3f80, false));
    out[38] = pairwise(a, b, c, |x, y, _| half_set(x, y, f16, "ne", 0x3c00, true));
    out[39] = u32::from(half_set(ha, hb, bf16, "lt", 0x3f80, false));
    let nan_of = |x: u16, y: u16| u32::from(compare("nan", bf16.widen(x), bf16.widen(y)));
    out[40] = nan_of(ha, hb) | nan_of(hi(a), hi(b)) << 1;
    // 41..60: from f32
    let (xa, xb) = (single(a), single(b));
    for (i, &mode) in MODES.iter().enumerate() {
        out[41 + i] = u32::from(f16.narrow(xa, mode));
        out[45 + i] = u32::from(bf16.narrow(xa, mode));
    }
    out[49] = u32::from(f16.narrow(relu32(xa), RN));
    out[50] = u32::from(f16.narrow(satfinite(xa, 65504.0), Round::TowardZero));
    let bf16_max = f32::from_bits(0x7f7f_0000);
    out[51] = u32::from(bf16.narrow(satfinite(relu32(xa), bf16_max), RN));
    let f16_pair = |x: Single| f16.narrow(satfinite(relu32(x), 65504.0), RN);
    out[52] = pack(f16_pair(xb), f16_pair(xa));
    let bf16_pair = |x: Single| bf16.narrow(relu32(x), Round::TowardZero);
    out[53] = pack(bf16_pair(xb), bf16_pair(xa));
    out[54] = to_byte(xb, true, false) | to_byte(xa, true, false) << 8;
    out[55] = to_byte(xb, false, true) | to_byte(xa, false, true) << 8;
    let from_half = |x: u16, e4m3: bool| to_byte(f16.widen(x), e4m3, false);
    out[56] = from_half(ha, true) | from_half(hi(a), true) << 8;
    out[57] = from_half(ha, false) | from_half(hi(a), false) << 8;
    out[58] = pack(
        from_byte(ha as u8, true, false),
        from_byte((ha >> 8) as u8, true, false),
    );
    out[59] = pack(
        from_byte(ha as u8, false, true),
        from_byte((ha >> 8) as u8, false, true),
    );
    // 60..70: between 16-bit formats, integral rounding, to f32
    for (i, &mode) in MODES.iter().enumerate() {
        out[60 + i] = u32::from(bf16.narrow(f16.widen(ha), mode));
    }
    out[64] = u32::from(f16.narrow(bf16.widen(ha), RN));
    out[65] = u32::from(f16.narrow(bf16.widen(ha), Round::TowardZero));
    let integral = |x: Single, mode| x.round_to_integral(mode).value;
    out[66] = u32::from(f16.narrow(integral(f16.widen(ha), Round::TowardPositive), RN));
    out[67] = u32::from(bf16.narrow(integral(bf16.widen(ha), Round::TowardNegative), RN));
    let to_f32 = |x: Single| {
        if x.is_nan() {
            0x7fff_ffff
        } else {
            x.to_bits() as u32
        }
    };
    out[68] = to_f32(f16.widen(ha));
    let flushed = bf16.flush(ha);
    out[69] = to_f32(bf16.widen(if bf16.is_nan(ha) { ha } else { flushed }));
    // 70..81: integers
    for (i, &mode) in MODES.iter().enumerate() {
        let h: Half = Half::from_i128_r(i128::from(c as i32), mode).value;
        out[70 + i] = h.to_bits() as u32;
    }
    let bf = |v: i128, mode| BFloat::from_i128_r(v, mode).value.to_bits() as u32;
    out[74] = bf(i128::from(c as i32), RN);
    out[75] = bf(i128::from(c), Round::TowardZero);
    let wide = u64::from(a) | u64::from(b) << 32;
    out[76] = bf(i128::from(wide), Round::TowardPositive);
    out[77] = bf(i128::from(wide as i64), RN);
    let value = |x: Single| f32::from_bits(x.to_bits() as u32);
    out[78] = value(f16.widen(ha)).round_ties_even() as i32 as u32;
    out[79] = value(bf16.widen(ha)).trunc() as u32;
    out[80] = u32::from(value(f16.widen(ha)).floor() as i8 as i16 as u16);
    // 81..87: 16x2 integers
    let s = |x: u16| x as i16;
    out[81] = pairwise(a, b, c, |x, y, _| x.wrapping_add(y));
    out[82] = pairwise(a, b, c, |x, y, _| x.wrapping_add(y));
    out[83] = pairwise(a, b, c, |x, y, _| x.min(y));
    out[84] = pairwise(a, b, c, |x, y, _| s(x).max(s(y)) as u16);
    out[85] = pairwise(a, b, c, |x, y, _| s(x).min(s(y)).max(0) as u16);
    out[86] = pairwise(a, b, c, |x, y, _| s(x).max(s(y)).max(0) as u16);
    // 87, 88: f32 min/max.xorsign.abs
    out[87] = xorsign32(a, b, false, false);
    out[88] = xorsign32(a, b, true, true);
    out
}

/// min or max of f32 magnitudes, its sign the exclusive or of a's and b's (NaN: canonical).
fn xorsign32(a: u32, b: u32, max: bool, nan: bool) -> u32 {
    let (x, y) = (
        f32::from_bits(a & 0x7fff_ffff),
        f32::from_bits(b & 0x7fff_ffff),
    );
    let r = match (x.is_nan(), y.is_nan()) {
        (true, true) => return 0x7fff_ffff,
        (true, false) | (false, true) if nan => return 0x7fff_ffff,
        (true, false) => y,
        (false, true) => x,
        _ if max => x.max(y),
        _ => x.min(y),
    };
    r.to_bits() | ((a ^ b) & 0x8000_0000)
}

/// Runs the kernel over `cases`, 128 threads a CTA; each case's slots.
fn run(cases: &[[u32; 3]]) -> Vec<[u32; SLOTS]> {
    let input: Vec<u8> = cases
        .iter()
        .flatten()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let out = common::run_cases("halfops", &input, cases.len(), SLOTS * 4);
    let words: Vec<u32> = out
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    words
        .chunks_exact(SLOTS)
        .map(|c| c.try_into().unwrap())
        .collect()
}

/// The kernel's name for slot `i`: the instruction before its store.
fn slot_name(i: usize) -> String {
    let (_, source) = common::kernel("halfops");
    let mut previous = "";
    let mut names = Vec::new();
    for line in source.lines().map(str::trim) {
        if line.starts_with("st.global.b") {
            names.push(previous.to_string());
        } else if !line.is_empty() {
            previous = line;
        }
    }
    names.get(i).cloned().unwrap_or_else(|| format!("slot {i}"))
}

fn check(cases: &[[u32; 3]]) {
    let got = run(cases);
    let mut bad = Vec::new();
    for (case, got) in cases.iter().zip(&got) {
        let [a, b, c] = *case;
        let want = expected(a, b, c);
        for s in 0..SLOTS {
            if got[s] != want[s] && bad.len() < 20 {
                bad.push(format!(
                    "{}: a={a:#010x} b={b:#010x} c={c:#010x}: got {:#010x}, want {:#010x}",
                    slot_name(s),
                    got[s],
                    want[s]
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{} cases:\n{}", cases.len(), bad.join("\n"));
}

/// 16-bit patterns at the edges of f16 and of bf16: zeros, the smallest and largest
/// subnormals and normals, one and its neighbours, infinities, quiet and signalling NaNs,
/// halves, and values whose sums and products round to ties.
const EDGES16: [u16; 40] = [
    0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3bff, 0x3c00, 0xbc00, 0x3c01, 0x7bff, 0xfbff,
    0x7c00, 0xfc00, 0x7e00, 0x7c01, 0x3800, 0x3e00, 0x4248, 0x0c01, 0x5bff, 0x4500, 0x007f, 0x0080,
    0x3f80, 0xbf80, 0x3f81, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0x4040, 0x4380, 0x1234,
    0xc3ff, 0x2d55, 0x36ed, 0xffff,
];

/// f32 values at the edges of the narrow formats: their largest values and the ties above
/// them, their smallest subnormals, ties of each rounding, and e4m3's and e5m2's limits.
fn edges32() -> Vec<u32> {
    let values: [f32; 24] = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.40625,
        12.9,
        448.0,
        464.0,
        480.0,
        57344.0,
        61440.0,
        65504.0,
        65519.0,
        65520.0,
        1e10,
        3.0e38,
        5.960_464_5e-8,
        2.980_232_2e-8,
        1.0 + 1.0 / 2048.0,
        1.0 + 3.0 / 4096.0,
        -5256.6,
        0.001_953_125,
        0.375,
        -0.375,
    ];
    let mut v: Vec<u32> = values.iter().map(|x| x.to_bits()).collect();
    v.extend([
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x0000_0001,
        0x7f7f_ffff,
        0x3f80_8000,
    ]);
    v
}

fn padded(mut cases: Vec<[u32; 3]>) -> Vec<[u32; 3]> {
    while !cases.len().is_multiple_of(128) {
        cases.push([0, 0, 0]);
    }
    cases
}

#[test]
fn edge_halves_crossed() {
    let e = EDGES16;
    let n = e.len();
    let cases = (0..n * n)
        .map(|k| {
            let (i, j) = (k % n, k / n);
            [
                pack(e[i], e[j]),
                pack(e[j], e[(i + 7) % n]),
                pack(e[(3 * i + j) % n], e[(i + 2 * j) % n]),
            ]
        })
        .collect();
    check(&padded(cases));
}

#[test]
fn edge_singles_and_integers_crossed() {
    let e = edges32();
    let ints: [u32; 12] = [
        0,
        1,
        u32::MAX,
        65504,
        65519,
        65520,
        (1 << 24) + 1,
        i32::MAX as u32,
        i32::MIN as u32,
        0x0100_0001,
        0x7fff_ff80,
        0xfeff_ffff,
    ];
    let mut cases = Vec::new();
    for (i, &a) in e.iter().enumerate() {
        for (j, &b) in e.iter().enumerate() {
            cases.push([a, b, ints[(i + j) % ints.len()]]);
        }
    }
    check(&padded(cases));
}

#[test]
fn random_operands() {
    let n: usize = std::env::var("SGPU_HALF_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(RANDOM_CASES);
    let mut next = common::xorshift(0x4a1f_0000_1600_0001);
    let cases: Vec<[u32; 3]> = (0..n.div_ceil(128) * 128)
        .map(|_| [next() as u32, next() as u32, next() as u32])
        .collect();
    for part in cases.chunks(128 * 256) {
        check(part);
    }
}
