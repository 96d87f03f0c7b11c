//! Binary floating point as sgpu computes it, bit for bit (`docs/float.md`).
//!
//! Every operation forms its exact result as a sign, a wide integer significand and an
//! exponent ([`Exact`]), and one rounder, [`round`], turns that into binary32, binary16 or
//! bfloat16 under the rounding mode: the model of one RTL rounder shared by the float unit.
//! Products of f32 are exact in 48 bits; sums are aligned 100 bits below the larger term;
//! quotients and square roots carry 38 or more bits with the remainder as a sticky bit.
//!
//! NaN results are the canonical NaN of the format ([`Format::nan`]), whatever the inputs'
//! payloads, as NVIDIA's float units give them.

use sgpu_isa::Rnd;

/// A binary interchange format: `frac` stored fraction bits below `exp` exponent bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    pub frac: u32,
    pub exp: u32,
    /// No infinities: the all-ones exponent holds normals too, and only the all-ones
    /// fraction beside it is NaN (OCP's E4M3).
    pub finite: bool,
}

pub const F32: Format = Format::ieee(23, 8);
pub const F16: Format = Format::ieee(10, 5);
pub const BF16: Format = Format::ieee(7, 8);
/// OCP's 8-bit E4M3: largest finite 448 (0x7e), NaN 0x7f (and 0xff), no infinities.
pub const E4M3: Format = Format {
    frac: 3,
    exp: 4,
    finite: true,
};
/// OCP's 8-bit E5M2: IEEE-like, largest finite 57344 (0x7b), infinity 0x7c.
pub const E5M2: Format = Format::ieee(2, 5);

impl Format {
    const fn ieee(frac: u32, exp: u32) -> Format {
        Format {
            frac,
            exp,
            finite: false,
        }
    }

    const fn bias(self) -> i32 {
        (1 << (self.exp - 1)) - 1
    }

    /// The exponent of the smallest normal, which subnormals share.
    const fn emin(self) -> i32 {
        1 - self.bias()
    }

    const fn sign(self) -> u32 {
        1 << (self.exp + self.frac)
    }

    /// Positive infinity's bits: the exponent field all ones, the fraction zero.
    pub const fn inf(self) -> u32 {
        ((1 << self.exp) - 1) << self.frac
    }

    /// The canonical NaN: every bit set but the sign (f32 0x7fffffff, f16 and bf16 0x7fff,
    /// e4m3 and e5m2 0x7f).
    pub const fn nan(self) -> u32 {
        self.sign() - 1
    }

    /// The largest finite magnitude's bits.
    pub const fn max_finite(self) -> u32 {
        if self.finite {
            self.nan() - 1
        } else {
            self.inf() - 1
        }
    }

    /// Whether `bits` (a value of this format) is a NaN, or an infinity.
    fn class(self, bits: u32) -> (bool, bool) {
        let magnitude = bits & (self.sign() - 1);
        if self.finite {
            (magnitude == self.nan(), false)
        } else {
            (magnitude > self.inf(), magnitude == self.inf())
        }
    }
}

/// The exact value (-1)^neg x sig x 2^exp. A producer that cannot keep every bit sets bit 0
/// of `sig` when any dropped bit was set (a sticky bit) and keeps at least `frac + 3` bits
/// above it, so the sticky bit lies below the round bit of any result.
#[derive(Clone, Copy, Debug)]
struct Exact {
    neg: bool,
    sig: u128,
    exp: i32,
}

/// Rounds `x` to `to` by `mode` and returns its bits. A zero `sig` gives a zero of `x`'s sign.
fn round(x: Exact, to: Format, mode: Rnd) -> u32 {
    let sign = if x.neg { to.sign() } else { 0 };
    if x.sig == 0 {
        return sign;
    }
    // The exponent of the leading one, and of the result's binade: subnormals stay at emin.
    let top = x.exp + 127 - x.sig.leading_zeros() as i32;
    let e = top.max(to.emin());
    // Where the result's last place falls in `sig`: the bits below it are dropped.
    let (kept, half, rest) = split(x.sig, e - to.frac as i32 - x.exp);
    let up = match mode {
        Rnd::Rn => half && (rest || kept & 1 == 1),
        Rnd::Rz => false,
        Rnd::Rm => x.neg && (half || rest),
        Rnd::Rp => !x.neg && (half || rest),
    };
    // The exponent field sits just above the fraction and `kept` carries the leading one of
    // a normal, so one addition encodes normals and subnormals alike, and a carry out of the
    // fraction moves to the next binade (or from the subnormals to the smallest normal).
    let bits = ((e - to.emin()) as u128) << to.frac;
    let bits = bits + kept + u128::from(up);
    if bits > u128::from(to.max_finite()) {
        sign | overflow(to, x.neg, mode)
    } else {
        sign | bits as u32
    }
}

/// `sig` cut below bit `lsb`: the bits kept, the half-ulp (round) bit and whether any bit
/// below that (sticky) is set. `lsb <= 0` keeps everything, shifted up.
fn split(sig: u128, lsb: i32) -> (u128, bool, bool) {
    if lsb <= 0 {
        // The caller's result has at most frac + 1 bits, so this shift loses nothing.
        return (sig << lsb.unsigned_abs(), false, false);
    }
    let lsb = lsb as u32;
    let kept = sig.checked_shr(lsb).unwrap_or(0);
    let below = sig ^ kept.checked_shl(lsb).unwrap_or(0);
    let half = 1u128.checked_shl(lsb - 1).unwrap_or(0);
    (kept, below & half != 0, below & !half != 0)
}

/// The magnitude of a result too large for the format: infinity when the mode rounds away
/// from zero on this side (NaN in a format without infinities), else the largest finite
/// value.
fn overflow(to: Format, neg: bool, mode: Rnd) -> u32 {
    let to_inf = match mode {
        Rnd::Rn => true,
        Rnd::Rz => false,
        Rnd::Rm => neg,
        Rnd::Rp => !neg,
    };
    match (to_inf, to.finite) {
        (true, false) => to.inf(),
        (true, true) => to.nan(),
        (false, _) => to.max_finite(),
    }
}

/// A finite value of `from` (its bits) as an exact value; zeros have `sig` 0.
fn unpack(bits: u32, from: Format) -> Exact {
    let neg = bits & from.sign() != 0;
    let field = (bits >> from.frac) & ((1 << from.exp) - 1);
    let fraction = u128::from(bits & ((1 << from.frac) - 1));
    let (sig, e) = if field == 0 {
        (fraction, from.emin())
    } else {
        (fraction | 1 << from.frac, field as i32 - from.bias())
    };
    Exact {
        neg,
        sig,
        exp: e - from.frac as i32,
    }
}

fn exact(x: f32) -> Exact {
    unpack(x.to_bits(), F32)
}

fn to_f32(x: Exact, mode: Rnd) -> f32 {
    f32::from_bits(round(x, F32, mode))
}

/// The canonical f32 NaN.
pub fn nan() -> f32 {
    f32::from_bits(F32.nan())
}

fn infinity(neg: bool) -> f32 {
    if neg {
        f32::NEG_INFINITY
    } else {
        f32::INFINITY
    }
}

fn zero(neg: bool) -> f32 {
    if neg {
        -0.0
    } else {
        0.0
    }
}

/// `x` rounded to `to` by `mode` (cvt.f16.f32, cvt.bf16.f32): NaN gives the canonical NaN,
/// and so does an infinity in a format without them.
pub fn narrow(x: f32, to: Format, mode: Rnd) -> u32 {
    let sign = if x.is_sign_negative() { to.sign() } else { 0 };
    if x.is_nan() || (x.is_infinite() && to.finite) {
        to.nan()
    } else if x.is_infinite() {
        sign | to.inf()
    } else {
        round(exact(x), to, mode)
    }
}

/// A value of the narrower `from` (its low bits) as f32, exactly; NaN gives the canonical NaN.
pub fn widen(bits: u32, from: Format) -> f32 {
    let neg = bits & from.sign() != 0;
    let (is_nan, is_inf) = from.class(bits);
    if is_nan {
        nan()
    } else if is_inf {
        infinity(neg)
    } else {
        to_f32(unpack(bits, from), Rnd::Rn)
    }
}

/// An integer as f32 (cvt.f32.s32 and kin), rounded by `mode`.
pub fn from_int(v: i128, mode: Rnd) -> f32 {
    let x = Exact {
        neg: v < 0,
        sig: v.unsigned_abs(),
        exp: 0,
    };
    to_f32(x, mode)
}

/// Flushes a subnormal to a zero of its sign.
pub fn flush(x: f32) -> f32 {
    if x.is_subnormal() {
        zero(x.is_sign_negative())
    } else {
        x
    }
}

/// `.ftz`: flushes `x` when set; applied to inputs, and to results after rounding.
fn ftz_in(x: f32, ftz: bool) -> f32 {
    if ftz {
        flush(x)
    } else {
        x
    }
}

/// x + y, exactly where it fits in 101 bits, else with the lost bits as a sticky bit (see
/// [`Exact`]). A zero sum is -0 when both terms are negative, or when they cancel while
/// rounding down.
fn sum(x: Exact, y: Exact, mode: Rnd) -> Exact {
    let zero_neg = if x.neg == y.neg {
        x.neg
    } else {
        mode == Rnd::Rm
    };
    // A zero term leaves the other whole (and takes no part in the alignment below).
    if x.sig == 0 {
        return if y.sig == 0 {
            Exact { neg: zero_neg, ..y }
        } else {
            y
        };
    }
    if y.sig == 0 {
        return x;
    }
    // A common last place 100 bits below the larger term's leading bit. Terms have at most
    // 50 bits, so the larger one lands whole and even; a smaller one that loses bits is 50
    // bits below it, far under the round bit of the sum.
    let top = |t: &Exact| t.exp + 128 - t.sig.leading_zeros() as i32;
    let base = top(&x).max(top(&y)) - 100;
    let (xs, ys) = (align(x, base), align(y, base));
    let (neg, sig) = if x.neg == y.neg {
        (x.neg, xs + ys)
    } else if xs >= ys {
        (x.neg, xs - ys)
    } else {
        (y.neg, ys - xs)
    };
    let neg = if sig == 0 { zero_neg } else { neg };
    Exact {
        neg,
        sig,
        exp: base,
    }
}

/// `t`'s significand with its last place at 2^base: shifted up, or down with the bits shifted
/// out ORed into bit 0.
fn align(t: Exact, base: i32) -> u128 {
    let shift = t.exp - base;
    if shift >= 0 {
        t.sig.checked_shl(shift as u32).unwrap_or(0)
    } else {
        let n = shift.unsigned_abs();
        let kept = t.sig.checked_shr(n).unwrap_or(0);
        let lost = t.sig != kept.checked_shl(n).unwrap_or(0);
        kept | u128::from(lost)
    }
}

/// a x b, exactly: 24-bit significands give a 48-bit product.
fn product(a: f32, b: f32) -> Exact {
    let (x, y) = (exact(a), exact(b));
    Exact {
        neg: x.neg != y.neg,
        sig: x.sig * y.sig,
        exp: x.exp + y.exp,
    }
}

pub fn add(a: f32, b: f32, mode: Rnd, ftz: bool) -> f32 {
    let (a, b) = (ftz_in(a, ftz), ftz_in(b, ftz));
    let r = if a.is_nan() || b.is_nan() || (a.is_infinite() && b == -a) {
        nan()
    } else if a.is_infinite() {
        a
    } else if b.is_infinite() {
        b
    } else {
        to_f32(sum(exact(a), exact(b), mode), mode)
    };
    ftz_in(r, ftz)
}

pub fn mul(a: f32, b: f32, mode: Rnd, ftz: bool) -> f32 {
    let (a, b) = (ftz_in(a, ftz), ftz_in(b, ftz));
    let neg = a.is_sign_negative() != b.is_sign_negative();
    let r = if a.is_nan() || b.is_nan() || zero_times_infinity(a, b) {
        nan()
    } else if a.is_infinite() || b.is_infinite() {
        infinity(neg)
    } else {
        to_f32(product(a, b), mode)
    };
    ftz_in(r, ftz)
}

fn zero_times_infinity(a: f32, b: f32) -> bool {
    (a == 0.0 && b.is_infinite()) || (a.is_infinite() && b == 0.0)
}

/// a x b + c rounded once.
pub fn fma(a: f32, b: f32, c: f32, mode: Rnd, ftz: bool) -> f32 {
    let (a, b, c) = (ftz_in(a, ftz), ftz_in(b, ftz), ftz_in(c, ftz));
    let neg = a.is_sign_negative() != b.is_sign_negative();
    let infinite_product = a.is_infinite() || b.is_infinite();
    let invalid = zero_times_infinity(a, b)
        || (infinite_product && c.is_infinite() && c.is_sign_negative() != neg);
    let r = if a.is_nan() || b.is_nan() || c.is_nan() || invalid {
        nan()
    } else if infinite_product {
        infinity(neg)
    } else if c.is_infinite() {
        c
    } else {
        to_f32(sum(product(a, b), exact(c), mode), mode)
    };
    ftz_in(r, ftz)
}

/// a / b: the quotient of the significands to 38 or more bits, the remainder sticky.
pub fn div(a: f32, b: f32, mode: Rnd, ftz: bool) -> f32 {
    let (a, b) = (ftz_in(a, ftz), ftz_in(b, ftz));
    let neg = a.is_sign_negative() != b.is_sign_negative();
    let invalid = (a == 0.0 && b == 0.0) || (a.is_infinite() && b.is_infinite());
    let r = if a.is_nan() || b.is_nan() || invalid {
        nan()
    } else if a.is_infinite() || b == 0.0 {
        infinity(neg)
    } else if a == 0.0 || b.is_infinite() {
        zero(neg)
    } else {
        let (x, y) = (exact(a), exact(b));
        // x.sig >= 1 and y.sig < 2^24: the quotient has at least 62 - 24 bits.
        let n = x.sig << 62;
        let q = Exact {
            neg,
            sig: (n / y.sig) | u128::from(n % y.sig != 0),
            exp: x.exp - 62 - y.exp,
        };
        to_f32(q, mode)
    };
    ftz_in(r, ftz)
}

/// The square root: the integer root of the significand scaled by 2^100 (50 or more bits),
/// the remainder sticky. sqrt(-0) is -0.
pub fn sqrt(a: f32, mode: Rnd, ftz: bool) -> f32 {
    let a = ftz_in(a, ftz);
    let r = if a.is_nan() || a < 0.0 {
        nan()
    } else if a == 0.0 || a.is_infinite() {
        a
    } else {
        let x = exact(a);
        // An even exponent halves exactly.
        let odd = x.exp & 1;
        let n = x.sig << (100 + odd);
        let root = n.isqrt();
        let s = Exact {
            neg: false,
            sig: root | u128::from(root * root != n),
            exp: (x.exp - odd - 100) / 2,
        };
        to_f32(s, mode)
    };
    ftz_in(r, ftz)
}
