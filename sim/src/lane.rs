//! What each instruction computes in one lane: a function per instruction (or per family
//! sharing one rule), each quoting the PTX ISA rule it implements. `exec.rs` runs them over a
//! warp's active lanes; the video ALU (`video.rs`), the surface unit (`surface.rs`) and IEEE
//! rounding (`float.rs`) are beside this file.

use crate::float;
use sgpu_isa::{Aop, Aty, Bop, Fcmp, Fcvt, Icmp, Ity, Lop2, Pmode, Rnd};

/// add, sub, addc, subc: "d = a + b"; sub is a + ~b + 1. With `.cc` the carry out goes to
/// the carry bit (CC.CF); with `.x` (addc/subc) the carry in replaces the + 0 / + 1.
/// `add.sat.s32` "limits the result to MININT..MAXINT". Returns d and the carry out.
pub fn iadd(a: u32, b: u32, carry_in: u32, nb: bool, x: bool, sat: bool) -> (u32, u32) {
    let nb_val = if nb { !b } else { b };
    let cin = if x { carry_in } else { u32::from(nb) };
    let wide = u64::from(a) + u64::from(nb_val) + u64::from(cin);
    let mut d = wide as u32;
    if sat {
        let s = i64::from(a as i32)
            + if nb {
                -i64::from(b as i32)
            } else {
                i64::from(b as i32)
            };
        d = s.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32 as u32;
    }
    (d, (wide >> 32) as u32 & 1)
}

/// mad, madc: "t = a * b; d = t<n-1..0> + c" (`.lo`) or "t<2n-1..n> + c" (`.hi`), with the
/// carry in and out as for addc. Returns d and the carry out.
pub fn imad(a: u32, b: u32, c: u32, carry_in: u32, hi: bool, sgn: bool, x: bool) -> (u32, u32) {
    let p = mul(a, b, hi, sgn);
    let cin = if x { carry_in } else { 0 };
    let wide = u64::from(p) + u64::from(c) + u64::from(cin);
    (wide as u32, (wide >> 32) as u32 & 1)
}

/// min, max: "d = (a < b) ? a : b" and "d = (a > b) ? a : b".
pub fn imnmx(a: u32, b: u32, max: bool, sgn: bool) -> u32 {
    let less = if sgn { (a as i32) < (b as i32) } else { a < b };
    if less != max {
        a
    } else {
        b
    }
}

/// abs: "d = |a|" (the most negative value stays itself).
pub fn iabs(a: u32) -> u32 {
    (a as i32).wrapping_abs() as u32
}

/// The high words of a 64-bit comparison (ISETP.X), `low` being the low words' result under
/// the same comparison made unsigned: equal high words defer to it.
pub fn compare_high(c: Icmp, a: u32, b: u32, sgn: bool, low: bool) -> bool {
    let strict = |lt: bool| {
        if sgn {
            ((a as i32) < (b as i32)) == lt && a != b
        } else {
            (a < b) == lt && a != b
        }
    };
    match c {
        Icmp::Eq => a == b && low,
        Icmp::Ne => a != b || low,
        Icmp::Lt | Icmp::Le => strict(true) || (a == b && low),
        Icmp::Gt | Icmp::Ge => strict(false) || (a == b && low),
    }
}

/// lop3: "computes the logical operation F(a, b, c)" whose truth table is `immLut`, bit i
/// being F where (a, b, c) = (i >> 2, i >> 1, i) & 1: the OR of the minterms it selects.
pub fn lop3(a: u32, b: u32, c: u32, lut: u8) -> u32 {
    let mut v = 0;
    for i in 0..8 {
        if lut >> i & 1 != 0 {
            let ta = if i & 4 != 0 { a } else { !a };
            let tb = if i & 2 != 0 { b } else { !b };
            let tc = if i & 1 != 0 { c } else { !c };
            v |= ta & tb & tc;
        }
    }
    v
}

/// and, or, xor with a 32-bit immediate.
pub fn lop2(a: u32, imm: u32, op: Lop2) -> u32 {
    match op {
        Lop2::And => a & imm,
        Lop2::Or => a | imm,
        Lop2::Xor => a ^ imm,
    }
}

/// shl: "d = a << b"; "Shift amounts greater than the register width N are clamped to N".
pub fn shl(a: u32, n: u32) -> u32 {
    if n >= 32 {
        0
    } else {
        a << n
    }
}

/// shr: "d = a >> b", arithmetic for signed types ("sign or zero fill on left"), the amount
/// clamped to the width.
pub fn shr(a: u32, n: u32, sgn: bool) -> u32 {
    let n = n.min(32);
    if sgn {
        (i64::from(a as i32) >> n) as u32
    } else {
        (u64::from(a) >> n) as u32
    }
}

/// SHF: the 64-bit value hi:lo shifted left or right (arithmetically with `sgn`) by n, at
/// most 64, and its low or high word. PTX's shf (32-bit windows, wrap or clamp) and 64-bit
/// shifts are built on it.
pub fn shf(lo: u32, hi: u32, n: u32, right: bool, sgn: bool, high: bool) -> u32 {
    let v = u64::from(lo) | u64::from(hi) << 32;
    let n = n.min(64);
    let r: u64 = if !right {
        if n >= 64 {
            0
        } else {
            v << n
        }
    } else if sgn {
        (i128::from(v as i64) >> n) as u64
    } else if n >= 64 {
        0
    } else {
        v >> n
    };
    if high {
        (r >> 32) as u32
    } else {
        r as u32
    }
}

/// bfe: "pos = b & 0xff; len = c & 0xff; sbit = a[min(pos+len-1, msb)] (0 for unsigned or
/// len == 0); d[i] = (i < len && pos+i <= msb) ? a[pos+i] : sbit".
pub fn bfe(a: u32, b: u32, c: u32, sgn: bool) -> u32 {
    let (pos, len) = (b & 0xff, c & 0xff);
    let sbit = if sgn && len != 0 {
        a >> (pos + len - 1).min(31) & 1
    } else {
        0
    };
    let mut d = 0;
    for i in 0..32 {
        let bit = if i < len && pos + i <= 31 {
            a >> (pos + i) & 1
        } else {
            sbit
        };
        d |= bit << i;
    }
    d
}

/// bfi: "f = b; for (i = 0; i < len && pos+i <= msb; i++) f[pos+i] = a[i]", position and
/// length packed in c as pos[7:0] | len[15:8].
pub fn bfi(a: u32, b: u32, c: u32) -> u32 {
    let (pos, len) = (c & 0xff, c >> 8 & 0xff);
    let mut f = b;
    for i in 0..len {
        if pos + i < 32 {
            f = (f & !(1 << (pos + i))) | ((a >> i & 1) << (pos + i));
        }
    }
    f
}

/// bfind: "negate negative signed inputs; d = 0xffffffff; for i = msb downto 0: if a[i]
/// then d = i; if (.shiftamt && d != 0xffffffff) d = msb - d".
pub fn bfind(a: u32, sgn: bool, shamt: bool) -> u32 {
    let a = if sgn && (a as i32) < 0 { !a } else { a };
    if a == 0 {
        u32::MAX
    } else if shamt {
        a.leading_zeros()
    } else {
        31 - a.leading_zeros()
    }
}

/// min and max of f32: "If one of the inputs is NaN, the result is the other"; both NaN (or
/// any, with `.NaN`) give the canonical NaN; -0 is below +0.
pub fn fminmax(a: f32, b: f32, max: bool, nan: bool) -> f32 {
    if a.is_nan() || b.is_nan() {
        if nan || (a.is_nan() && b.is_nan()) {
            float::nan()
        } else if a.is_nan() {
            b
        } else {
            a
        }
    } else if max {
        if a > b || (a == b && a.is_sign_positive()) {
            a
        } else {
            b
        }
    } else if a < b || (a == b && a.is_sign_negative()) {
        a
    } else {
        b
    }
}

/// atom and red: "d = *a; *a = operation(*a, b)" (cas: "(r == s) ? t : r"), with
/// "inc(r, s) = (r >= s) ? 0 : r+1; dec(r, s) = (r == 0 || r > s) ? s : r-1;
/// exch(r, s) = s"; min and max by the type's signedness; add.f32 in IEEE arithmetic;
/// add, min and max of f16 and bf16 (each half of the x2 types on its own) as
/// [`half_atom`]; the bit operations (and, or, xor, exch, cas, inc, dec) of the half
/// types on their bits. `n` is 2, 4 or 8 bytes. Returns the new value.
pub fn atom(old: u64, b: u64, c: u64, aop: Aop, aty: Aty, n: usize) -> u64 {
    let mask = u64::MAX >> (64 - 8 * n);
    let half_format = match aty {
        Aty::F16 => Some((float::F16, 1)),
        Aty::Bf16 => Some((float::BF16, 1)),
        Aty::F16x2 => Some((float::F16, 2)),
        Aty::Bf16x2 => Some((float::BF16, 2)),
        _ => None,
    };
    if let (Some((format, halves)), Aop::Add | Aop::Min | Aop::Max) = (half_format, aop) {
        let half = |x: u64, i: u32| (x >> (16 * i)) as u32 & 0xffff;
        let new = (0..halves).fold(0u64, |acc, i| {
            let r = half_atom(half(old, i), half(b, i), aop, format);
            acc | u64::from(r) << (16 * i)
        });
        return new & mask;
    }
    let (b, c) = (b & mask, c & mask);
    let signed = |x: u64| {
        if n == 8 {
            x as i64
        } else {
            x as u32 as i32 as i64
        }
    };
    let new = match (aop, aty) {
        (Aop::Add, Aty::F32) => {
            let (x, y) = (f32::from_bits(old as u32), f32::from_bits(b as u32));
            u64::from(float::add(x, y, Rnd::Rn, false).to_bits())
        }
        (Aop::Add, _) => old.wrapping_add(b),
        (Aop::Min, Aty::S32 | Aty::S64) => {
            if signed(b) < signed(old) {
                b
            } else {
                old
            }
        }
        (Aop::Max, Aty::S32 | Aty::S64) => {
            if signed(b) > signed(old) {
                b
            } else {
                old
            }
        }
        (Aop::Min, _) => old.min(b),
        (Aop::Max, _) => old.max(b),
        (Aop::Inc, _) => {
            if old >= b {
                0
            } else {
                old + 1
            }
        }
        (Aop::Dec, _) => {
            if old == 0 || old > b {
                b
            } else {
                old - 1
            }
        }
        (Aop::And, _) => old & b,
        (Aop::Or, _) => old | b,
        (Aop::Xor, _) => old ^ b,
        (Aop::Exch, _) => b,
        (Aop::Cas, _) => {
            if old == b {
                c
            } else {
                old
            }
        }
    };
    new & mask
}

/// add (rounded to nearest, subnormals kept: PTX's `.noftz`), min and max of two f16 or
/// bf16 values, through f32: widening is exact, an f32 sum rounded to the narrow format is
/// the exact sum rounded once (f32's 24 bits are at least twice the narrow format's plus
/// two), and min and max return an operand or the canonical NaN, which narrow exactly.
fn half_atom(old: u32, b: u32, aop: Aop, format: float::Format) -> u32 {
    let (x, y) = (float::widen(old, format), float::widen(b, format));
    let r = match aop {
        Aop::Min => fminmax(x, y, false, false),
        Aop::Max => fminmax(x, y, true, false),
        _ => float::add(x, y, Rnd::Rn, false),
    };
    float::narrow(r, format, Rnd::Rn)
}

/// The combining operation of setp, set and PLOP (`.and`, `.or`, `.xor`), on lane masks.
pub fn logic(bop: Bop, a: u32, b: u32) -> u32 {
    match bop {
        Bop::And => a & b,
        Bop::Or => a | b,
        Bop::Xor => a ^ b,
    }
}

/// setp's integer comparisons: `eq ne lt le gt ge` signed, `lo ls hi hs` their unsigned
/// forms (the encoder maps those to lt le gt ge without `sgn`).
pub fn compare(c: Icmp, a: u32, b: u32, sgn: bool) -> bool {
    let ord = if sgn {
        (a as i32).cmp(&(b as i32))
    } else {
        a.cmp(&b)
    };
    use std::cmp::Ordering::*;
    match c {
        Icmp::Eq => ord == Equal,
        Icmp::Ne => ord != Equal,
        Icmp::Lt => ord == Less,
        Icmp::Le => ord != Greater,
        Icmp::Gt => ord == Greater,
        Icmp::Ge => ord != Less,
    }
}

/// setp's float comparisons: "If either operand is NaN, the result is false" for the ordered
/// ones; the unordered ones (`equ neu ltu leu gtu geu`) are true then; `num` and `nan` test
/// for NaNs.
pub fn fcompare(c: Fcmp, a: f32, b: f32) -> bool {
    let nan = a.is_nan() || b.is_nan();
    match c {
        Fcmp::Eq => a == b,
        Fcmp::Ne => !nan && a != b,
        Fcmp::Lt => a < b,
        Fcmp::Le => a <= b,
        Fcmp::Gt => a > b,
        Fcmp::Ge => a >= b,
        Fcmp::Equ => nan || a == b,
        Fcmp::Neu => a != b,
        Fcmp::Ltu => nan || a < b,
        Fcmp::Leu => nan || a <= b,
        Fcmp::Gtu => nan || a > b,
        Fcmp::Geu => nan || a >= b,
        Fcmp::Num => !nan,
        Fcmp::Nan => nan,
    }
}

/// mul: "t = a * b; n = bitwidth of type; d = t<2n-1..n> for .hi; d = t<n-1..0> for .lo".
pub fn mul(a: u32, b: u32, hi: bool, sgn: bool) -> u32 {
    let p = mul_wide(a, b, sgn);
    if hi {
        (p >> 32) as u32
    } else {
        p as u32
    }
}

/// mul.wide: "the 2n-bit product of a and b", as signed or unsigned values.
pub fn mul_wide(a: u32, b: u32, sgn: bool) -> u64 {
    if sgn {
        (i64::from(a as i32) * i64::from(b as i32)) as u64
    } else {
        u64::from(a) * u64::from(b)
    }
}

/// div and rem, 32 or 64 bits: "d = a / b", "d = a % b". PTX leaves division by zero undefined; sgpu gives all ones (quotient) and the
/// dividend (remainder), and the most negative value divided by -1 wraps.
pub fn divide64(a: u64, b: u64, sgn: bool, rem: bool) -> u64 {
    if b == 0 {
        return if rem { a } else { u64::MAX };
    }
    if sgn {
        let (a, b) = (a as i64, b as i64);
        (if rem {
            a.wrapping_rem(b)
        } else {
            a.wrapping_div(b)
        }) as u64
    } else if rem {
        a % b
    } else {
        a / b
    }
}

/// The width and signedness of an integer type.
pub fn ity_bits(t: Ity) -> (u32, bool) {
    match t {
        Ity::U8 => (8, false),
        Ity::S8 => (8, true),
        Ity::U16 => (16, false),
        Ity::S16 => (16, true),
        Ity::U32 => (32, false),
        Ity::S32 => (32, true),
        Ity::U64 => (64, false),
        Ity::S64 => (64, true),
    }
}

/// cvt between integer types: the source's low bits, extended by its sign, then truncated
/// or (with .sat) clamped to the destination's range.
pub fn convert_int(a: u32, from: Ity, to: Ity, sat: bool) -> u32 {
    let (fb, fs) = ity_bits(from);
    let (tb, ts) = ity_bits(to);
    let fb = fb.min(32);
    let raw = if fb == 32 {
        u64::from(a)
    } else {
        u64::from(a) & ((1u64 << fb) - 1)
    };
    let v: i64 = if fs && fb < 64 && raw >> (fb - 1) & 1 == 1 {
        raw as i64 - (1i64 << fb)
    } else {
        raw as i64
    };
    let tb = tb.min(32);
    let v = if sat {
        let (lo, hi) = if ts {
            (-(1i64 << (tb - 1)), (1i64 << (tb - 1)) - 1)
        } else {
            (0, (1i64 << tb) - 1)
        };
        v.clamp(lo, hi)
    } else {
        v
    };
    // The register holds the destination width, extended to 32 bits by its sign.
    let bits = v as u64
        & if tb == 32 {
            u64::from(u32::MAX)
        } else {
            (1u64 << tb) - 1
        };
    if ts && tb < 32 && bits >> (tb - 1) & 1 == 1 {
        (bits as i64 - (1i64 << tb)) as u32
    } else {
        bits as u32
    }
}

/// A float source with the instruction's `|x|` and `-x` applied (abs first).
pub fn operand(x: f32, neg: bool, abs: bool) -> f32 {
    let x = if abs { x.abs() } else { x };
    if neg {
        -x
    } else {
        x
    }
}

/// `.ftz`: "subnormal inputs and results are flushed to sign-preserving zero".
pub fn ftz_in(x: f32, ftz: bool) -> f32 {
    if ftz {
        float::flush(x)
    } else {
        x
    }
}

/// `.sat` on floats: "clamps the result to [0.0, 1.0]. NaN results are flushed to +0.0f";
/// -0.0 gives +0.0 too (the clamp is max(x, +0.0) with -0.0 below +0.0, then min(x, 1.0)).
pub fn saturate(x: f32, sat: bool) -> f32 {
    if !sat {
        x
    } else if x.is_nan() || x <= 0.0 {
        0.0
    } else {
        x.min(1.0)
    }
}

/// cvt's integer rounding of a float: `.rni` to nearest even, `.rzi` toward zero, `.rmi`
/// down, `.rpi` up.
pub fn round_integral(x: f32, rnd: Rnd) -> f32 {
    match rnd {
        Rnd::Rn => x.round_ties_even(),
        Rnd::Rz => x.trunc(),
        Rnd::Rm => x.floor(),
        Rnd::Rp => x.ceil(),
    }
}

/// cvt from a float to an integer: rounded by the mode, and "saturated to the range of the
/// destination"; NaN converts to 0.
pub fn float_to_int(x: f32, to: Ity, rnd: Rnd) -> u64 {
    if x.is_nan() {
        return 0;
    }
    let r = f64::from(round_integral(x, rnd));
    let (bits, signed) = ity_bits(to);
    let (lo, hi) = if signed {
        (
            -(2f64.powi(bits as i32 - 1)),
            2f64.powi(bits as i32 - 1) - 1.0,
        )
    } else {
        (0.0, 2f64.powi(bits as i32) - 1.0)
    };
    let v = r.clamp(lo, hi);
    if signed {
        (v as i64) as u64
    } else {
        v as u64
    }
}

/// cvt from an integer to f32, rounded by the mode (`.rn` default).
pub fn int_to_float(v: i128, rnd: Rnd) -> f32 {
    float::from_int(v, rnd)
}

/// What a float conversion clamps to before rounding (each commutes with rounding, which
/// is monotonic and leaves the clamps' bounds in place).
#[derive(Clone, Copy, Debug, Default)]
pub struct Clamps {
    /// `.sat`: [0, 1], as [`saturate`].
    pub sat: bool,
    /// `.relu`: "clamps the result to 0 if negative"; -0 gives +0 too, NaN stays NaN (the
    /// canonical one, as every NaN a conversion gives).
    pub relu: bool,
    /// `.satfinite`: "if the absolute value of input (ignoring sign) is greater than
    /// MAX_NORM of the specified destination format, then the result is sign-preserved
    /// MAX_NORM"; NaN stays NaN.
    pub satfinite: bool,
}

/// cvt between float formats (F2F): f32 to f32 (with `rint`, rounded to an integral value,
/// `.rni` and its kin), f32 to f16, bf16, e4m3 or e5m2 rounded by `rnd`, those to f32
/// exactly. `.ftz` flushes f32 subnormal sources and results, never narrower ones; the
/// clamps apply to the value before it is rounded. With `rint` on a narrowing, the f32
/// value is made integral first (what the narrow format then holds is integral too). NaN
/// gives the destination's canonical NaN.
pub fn convert_float(
    a: u32,
    fcvt: Fcvt,
    (rint, rnd, ftz): (bool, Rnd, bool),
    clamps: Clamps,
) -> u32 {
    use float::{BF16, E4M3, E5M2, F16, F32};
    let (source, to) = match fcvt {
        Fcvt::F32 => (ftz_in(f32::from_bits(a), ftz), None),
        Fcvt::F16 => (ftz_in(f32::from_bits(a), ftz), Some(F16)),
        Fcvt::Bf16 => (ftz_in(f32::from_bits(a), ftz), Some(BF16)),
        Fcvt::E4m3 => (ftz_in(f32::from_bits(a), ftz), Some(E4M3)),
        Fcvt::E5m2 => (ftz_in(f32::from_bits(a), ftz), Some(E5M2)),
        Fcvt::FromF16 => (float::widen(a & 0xffff, F16), None),
        Fcvt::FromBf16 => (float::widen(a & 0xffff, BF16), None),
        Fcvt::FromE4m3 => (float::widen(a & 0xff, E4M3), None),
        Fcvt::FromE5m2 => (float::widen(a & 0xff, E5M2), None),
    };
    let x = if rint {
        round_integral(source, rnd)
    } else {
        source
    };
    let x = clamp(x, clamps, to.unwrap_or(F32));
    match to {
        Some(format) => float::narrow(x, format, rnd),
        None => canonical(ftz_in(x, ftz)).to_bits(),
    }
}

/// `x` clamped as `c` says, for a result of format `to`.
fn clamp(x: f32, c: Clamps, to: float::Format) -> f32 {
    let x = saturate(x, c.sat);
    let x = if c.relu && !x.is_nan() && x.is_sign_negative() {
        0.0
    } else {
        x
    };
    if c.satfinite && !x.is_nan() {
        let max = float::widen(to.max_finite(), to);
        x.clamp(-max, max)
    } else {
        x
    }
}

/// `x`, with any NaN made the canonical one.
fn canonical(x: f32) -> f32 {
    if x.is_nan() {
        float::nan()
    } else {
        x
    }
}

/// prmt: picks bytes of the 64-bit {b, a} by the selector c (default mode: four 4-bit
/// selectors, bit 3 of each replicating the sign of the byte); the modes f4e, b4e, rc8, ecl,
/// ecr and rc16 as PTX's table defines them.
pub fn permute(a: u32, b: u32, c: u32, mode: Pmode) -> u32 {
    let bytes: [u8; 8] = {
        let v = u64::from(a) | u64::from(b) << 32;
        v.to_le_bytes()
    };
    let sel = |s: u32| -> u8 {
        let i = (s & 7) as usize;
        if s & 8 != 0 {
            // Replicate the sign of the selected byte.
            if bytes[i] & 0x80 != 0 {
                0xff
            } else {
                0
            }
        } else {
            bytes[i]
        }
    };
    let out: [u8; 4] = match mode {
        Pmode::Default => [sel(c), sel(c >> 4), sel(c >> 8), sel(c >> 12)],
        Pmode::F4e => {
            let s = (c & 3) as usize;
            [bytes[s], bytes[s + 1], bytes[s + 2], bytes[s + 3]]
        }
        Pmode::B4e => {
            let s = (c & 3) as usize;
            let idx = |k: usize| bytes[(s + 8 - k) % 8];
            [idx(0), idx(1), idx(2), idx(3)]
        }
        Pmode::Rc8 => [bytes[(c & 3) as usize]; 4],
        Pmode::Ecl => {
            let s = (c & 3) as usize;
            [bytes[s], bytes[s.max(1)], bytes[s.max(2)], bytes[3]]
        }
        Pmode::Ecr => {
            let s = (c & 3) as usize;
            [bytes[0], bytes[s.min(1)], bytes[s.min(2)], bytes[s]]
        }
        Pmode::Rc16 => {
            let s = (c & 1) as usize * 2;
            [bytes[s], bytes[s + 1], bytes[s], bytes[s + 1]]
        }
    };
    u32::from_le_bytes(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Two 32-bit compares chained as the encoder emits them equal one 64-bit compare.
    fn compare64(c: Icmp, a: u64, b: u64, sgn: bool) -> bool {
        let low = compare(c, a as u32, b as u32, false);
        compare_high(c, (a >> 32) as u32, (b >> 32) as u32, sgn, low)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn chained_compares_are_64_bit_compares(a in any::<u64>(), b in any::<u64>(), pick in 0..4u8) {
            // Often equal high words, where the low words decide.
            let b = if pick == 0 { (a & !0xffff_ffff) | (b & 0xffff_ffff) } else if pick == 1 { a } else { b };
            for c in [Icmp::Eq, Icmp::Ne, Icmp::Lt, Icmp::Le, Icmp::Gt, Icmp::Ge] {
                let want_u = match c { Icmp::Eq => a == b, Icmp::Ne => a != b, Icmp::Lt => a < b, Icmp::Le => a <= b, Icmp::Gt => a > b, Icmp::Ge => a >= b };
                let (x, y) = (a as i64, b as i64);
                let want_s = match c { Icmp::Eq => x == y, Icmp::Ne => x != y, Icmp::Lt => x < y, Icmp::Le => x <= y, Icmp::Gt => x > y, Icmp::Ge => x >= y };
                prop_assert_eq!(compare64(c, a, b, false), want_u, "{:?} unsigned {:#x} {:#x}", c, a, b);
                prop_assert_eq!(compare64(c, a, b, true), want_s, "{:?} signed {:#x} {:#x}", c, a, b);
            }
        }

        /// IADD.CC then IADD.X add and subtract 64-bit values.
        #[test]
        fn carry_chains_add_and_subtract_64_bits(a in any::<u64>(), b in any::<u64>()) {
            for nb in [false, true] {
                let (lo, c) = iadd(a as u32, b as u32, 0, nb, false, false);
                let (hi, _) = iadd((a >> 32) as u32, (b >> 32) as u32, c, nb, true, false);
                let want = if nb { a.wrapping_sub(b) } else { a.wrapping_add(b) };
                prop_assert_eq!(u64::from(lo) | u64::from(hi) << 32, want);
            }
        }

        /// The encoder's 64-bit multiply: lo*lo, hi(lo*lo) + lo*hi + hi*lo.
        #[test]
        fn sixty_four_bit_multiply_from_words(a in any::<u64>(), b in any::<u64>()) {
            let (al, ah, bl, bh) = (a as u32, (a >> 32) as u32, b as u32, (b >> 32) as u32);
            let t = mul(al, bl, true, false);
            let (t, _) = imad(al, bh, t, 0, false, false, false);
            let (t, _) = imad(ah, bl, t, 0, false, false, false);
            let lo = mul(al, bl, false, false);
            prop_assert_eq!(u64::from(lo) | u64::from(t) << 32, a.wrapping_mul(b));
        }

        /// SHF gives both words of 64-bit shifts by 0..=64 and beyond.
        #[test]
        fn funnel_shifts_are_64_bit_shifts(v in any::<u64>(), n in 0u32..80) {
            let (lo, hi) = (v as u32, (v >> 32) as u32);
            let both = |right, sgn| u64::from(shf(lo, hi, n, right, sgn, false)) | u64::from(shf(lo, hi, n, right, sgn, true)) << 32;
            let m = n.min(64);
            prop_assert_eq!(both(false, false), if m >= 64 { 0 } else { v << m });
            prop_assert_eq!(both(true, false), if m >= 64 { 0 } else { v >> m });
            prop_assert_eq!(both(true, true), (i128::from(v as i64) >> m) as u64);
        }

        /// LOP3 agrees with its truth table bit by bit.
        #[test]
        fn lop3_is_its_truth_table(a in any::<u32>(), b in any::<u32>(), c in any::<u32>(), lut in any::<u8>()) {
            let got = lop3(a, b, c, lut);
            for bit in 0..32 {
                let i = (a >> bit & 1) << 2 | (b >> bit & 1) << 1 | (c >> bit & 1);
                prop_assert_eq!(got >> bit & 1, u32::from(lut >> i & 1));
            }
        }
    }

    #[test]
    fn bit_field_rules_follow_ptx() {
        // bfe.s32 of a field reaching past bit 31 extends bit 31.
        assert_eq!(bfe(0x8000_0000, 28, 8, true), 0xffff_fff8);
        assert_eq!(bfe(0x0000_0ff0, 4, 8, false), 0xff);
        assert_eq!(bfe(0x0000_0ff0, 4, 8, true), 0xffff_ffff);
        assert_eq!(bfe(0x1234_5678, 8, 0, true), 0);
        assert_eq!(bfi(0xf, 0xffff_0000, 4 | 8 << 8), 0xffff_00f0);
        assert_eq!(bfind(0x10, false, false), 4);
        assert_eq!(bfind(0x10, false, true), 27);
        assert_eq!(bfind(0, false, false), u32::MAX);
        assert_eq!(bfind(u32::MAX, true, false), u32::MAX); // -1: no non-sign bit
        assert_eq!(bfind(0xffff_fff0, true, false), 3);
        assert_eq!(shl(1, 32), 0);
        assert_eq!(shr(0x8000_0000, 40, true), u32::MAX);
    }

    #[test]
    fn atomics_follow_ptx() {
        let n = 4;
        assert_eq!(atom(5, 5, 0, Aop::Inc, Aty::U32, n), 0);
        assert_eq!(atom(4, 5, 0, Aop::Inc, Aty::U32, n), 5);
        assert_eq!(atom(0, 5, 0, Aop::Dec, Aty::U32, n), 5);
        assert_eq!(atom(7, 5, 0, Aop::Dec, Aty::U32, n), 5);
        assert_eq!(atom(3, 5, 0, Aop::Dec, Aty::U32, n), 2);
        assert_eq!(atom(3, 3, 9, Aop::Cas, Aty::B32, n), 9);
        assert_eq!(atom(3, 4, 9, Aop::Cas, Aty::B32, n), 3);
        assert_eq!(atom(0xffff_fffe, 1, 0, Aop::Min, Aty::S32, n), 0xffff_fffe);
        assert_eq!(atom(0xffff_fffe, 1, 0, Aop::Min, Aty::U32, n), 1);
    }

    #[test]
    fn conversions_follow_ptx() {
        assert_eq!(convert_int(0x1ff, Ity::S32, Ity::U8, true), 0xff);
        assert_eq!(convert_int(0x1ff, Ity::S32, Ity::U8, false), 0xff);
        assert_eq!(
            convert_int(0xffff_ff80, Ity::S32, Ity::S8, true),
            0xffff_ff80
        );
        assert_eq!(convert_int(0x80, Ity::U8, Ity::S32, false), 0x80);
        assert_eq!(convert_int(0x80, Ity::S8, Ity::S32, false), 0xffff_ff80);
        assert_eq!(float_to_int(3.7, Ity::S32, Rnd::Rz), 3);
        assert_eq!(float_to_int(-3.5, Ity::S32, Rnd::Rn), (-4i64) as u64);
        assert_eq!(float_to_int(1e20, Ity::S32, Rnd::Rz), i32::MAX as u64);
        assert_eq!(float_to_int(f32::NAN, Ity::U32, Rnd::Rz), 0);
        assert_eq!(int_to_float(16_777_217, Rnd::Rz), 16_777_216.0);
        assert_eq!(int_to_float(16_777_217, Rnd::Rp), 16_777_218.0);
        assert_eq!(
            permute(0x4433_2211, 0x8877_6655, 0x3210, Pmode::Default),
            0x4433_2211
        );
        assert_eq!(
            permute(0x4433_2211, 0x8877_6655, 0x7654, Pmode::Default),
            0x8877_6655
        );
        assert_eq!(
            permute(0x4433_2211, 0x8877_6655, 0x000f, Pmode::Default),
            0x1111_11ff
        );
    }
}
