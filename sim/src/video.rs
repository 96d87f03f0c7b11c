//! The video ALU: PTX's scalar video instructions, exactly as the pseudocode of the PTX ISA
//! (shared/spec/ptx/scalar-video-instructions.md and the vadd, vshl, vmad and vset pages)
//! defines them, and the SIMD ones (the vadd2 .. vset4 pages) after their selectors (which
//! the encoder does with PRMT, docs/adr/0003-simd-video.md). One lane at a time; the warp
//! loop is the caller's.
//!
//! Two readings of the pseudocode, written down in docs/video.md:
//! - `d = optSecondaryOp(op2, tmp, c); d = optMerge(dsel, tmp, c);` is read as "whichever of
//!   the two applies" (they cannot both: the syntax has either `.op2` or `d.dsel`); read
//!   literally the second line would discard every secondary operation.
//! - The primary operation's result is an s34 value: vshl's can be wider, and is wrapped to
//!   34 bits before saturation, as the stage list says ("a signed 34-bit result").

use sgpu_isa::{Icmp, Vneg, Vop, Vscale, Vsec, Vsel};

/// Where the byte, half-word or word `sel` names lies in a register: its lowest bit and its
/// size in bits.
pub fn position(sel: Vsel) -> (u32, u32) {
    match sel {
        Vsel::B32 => (0, 32),
        Vsel::B0 => (0, 8),
        Vsel::B1 => (8, 8),
        Vsel::B2 => (16, 8),
        Vsel::B3 => (24, 8),
        Vsel::H0 => (0, 16),
        Vsel::H1 => (16, 16),
    }
}

/// `partSelectSignExtend(x, type, sel)`: the selected byte, half-word or word of `x`,
/// sign-extended when `signed`, as an s33 value.
pub fn select(x: u32, signed: bool, sel: Vsel) -> i64 {
    let (shift, bits) = position(sel);
    let field = (u64::from(x) >> shift) & ((1u64 << bits) - 1);
    if signed && field >> (bits - 1) != 0 {
        field as i64 - (1i64 << bits)
    } else {
        field as i64
    }
}

/// `optSaturate(tmp, sat, sign, dsel)`: clamps to the destination's range, a byte or
/// half-word when merging.
pub fn saturate(tmp: i64, sat: bool, signed: bool, dsel: Vsel) -> i64 {
    if !sat {
        return tmp;
    }
    let bits = match dsel {
        Vsel::B0 | Vsel::B1 | Vsel::B2 | Vsel::B3 => 8,
        Vsel::H0 | Vsel::H1 => 16,
        Vsel::B32 => 32,
    };
    let (lo, hi) = if signed {
        (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
    } else {
        (0, (1i64 << bits) - 1)
    };
    tmp.clamp(lo, hi)
}

/// The secondary operation or the merge, and the low 32 bits of the result.
pub fn finish(tmp: i64, vsec: Vsec, dsel: Vsel, c: i64) -> u32 {
    let t = tmp as u32;
    let c32 = c as u32;
    let out = match vsec {
        Vsec::None => tmp,
        Vsec::Add => tmp + c,
        Vsec::Min => tmp.min(c),
        Vsec::Max => tmp.max(c),
        Vsec::Merge => {
            let merged = match dsel {
                Vsel::H0 => (t & 0xffff) | (c32 & 0xffff_0000),
                Vsel::H1 => ((t & 0xffff) << 16) | (c32 & 0x0000_ffff),
                Vsel::B0 => (t & 0xff) | (c32 & 0xffff_ff00),
                Vsel::B1 => ((t & 0xff) << 8) | (c32 & 0xffff_00ff),
                Vsel::B2 => ((t & 0xff) << 16) | (c32 & 0xff00_ffff),
                Vsel::B3 => ((t & 0xff) << 24) | (c32 & 0x00ff_ffff),
                Vsel::B32 => t,
            };
            i64::from(merged)
        }
    };
    out as u32
}

/// Wraps a value to a signed 34-bit one.
fn s34(x: i128) -> i64 {
    ((x << 94) >> 94) as i64
}

/// The operations of vadd, vsub, vabsdiff, vmin and vmax.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    Add,
    Sub,
    Absdiff,
    Min,
    Max,
}

/// Operand types and selectors common to the video instructions.
#[derive(Clone, Copy, Debug)]
pub struct Operands {
    pub dsgn: bool,
    pub asgn: bool,
    pub bsgn: bool,
    pub asel: Vsel,
    pub bsel: Vsel,
    pub dsel: Vsel,
    pub sat: bool,
    pub vsec: Vsec,
}

impl Operands {
    fn inputs(&self, a: u32, b: u32) -> (i64, i64) {
        (
            select(a, self.asgn, self.asel),
            select(b, self.bsgn, self.bsel),
        )
    }
    /// The third operand, signed by the destination type.
    fn c(&self, c: u32) -> i64 {
        select(c, self.dsgn, Vsel::B32)
    }
    fn result(&self, tmp: i64, c: u32) -> u32 {
        let tmp = saturate(tmp, self.sat, self.dsgn, self.dsel);
        finish(tmp, self.vsec, self.dsel, self.c(c))
    }
}

/// vadd, vsub, vabsdiff, vmin, vmax.
pub fn arith(op: Arith, o: &Operands, a: u32, b: u32, c: u32) -> u32 {
    let (ta, tb) = o.inputs(a, b);
    let tmp = match op {
        Arith::Add => ta + tb,
        Arith::Sub => ta - tb,
        Arith::Absdiff => (ta - tb).abs(),
        Arith::Min => ta.min(tb),
        Arith::Max => ta.max(tb),
    };
    o.result(tmp, c)
}

/// vshl and vshr: b is `.u32`; `.clamp` limits the shift to 32, `.wrap` takes it mod 32.
pub fn shift(left: bool, clamp: bool, o: &Operands, a: u32, b: u32, c: u32) -> u32 {
    let ta = select(a, o.asgn, o.asel);
    let mut tb = select(b, false, o.bsel);
    if clamp && tb > 32 {
        tb = 32;
    }
    if !clamp {
        tb &= 0x1f;
    }
    let tmp = if left {
        s34(i128::from(ta) << tb)
    } else {
        ta >> tb
    };
    o.result(tmp, c)
}

/// `compare(a, b, cmp)` of vset and vset2/vset4.
fn compare(cmp: Icmp, ta: i64, tb: i64) -> bool {
    match cmp {
        Icmp::Eq => ta == tb,
        Icmp::Ne => ta != tb,
        Icmp::Lt => ta < tb,
        Icmp::Le => ta <= tb,
        Icmp::Gt => ta > tb,
        Icmp::Ge => ta >= tb,
    }
}

/// vset: the comparison is 0 or 1; d and c are unsigned.
pub fn set(cmp: Icmp, o: &Operands, a: u32, b: u32, c: u32) -> u32 {
    let (ta, tb) = o.inputs(a, b);
    let holds = compare(cmp, ta, tb);
    finish(i64::from(holds), o.vsec, o.dsel, i64::from(c))
}

/// What a SIMD video instruction computes per element: vop2/vop4's operation, or vset2/vset4's
/// comparison.
#[derive(Clone, Copy, Debug)]
pub enum SimdOp {
    Arith(Vop),
    Set(Icmp),
}

/// A SIMD video instruction's modifiers, its selectors already applied to a and b.
#[derive(Clone, Copy, Debug)]
pub struct Simd {
    /// Elements per word: 2 (half-words) or 4 (bytes).
    pub elements: u32,
    pub dsgn: bool,
    pub asgn: bool,
    pub bsgn: bool,
    pub sat: bool,
    /// `.add`: the masked results are summed into c (else merged into c's elements).
    pub acc: bool,
    /// Bit i set: element i of the result is written (merge) or summed (`.add`).
    pub mask: u32,
}

impl Simd {
    fn bits(&self) -> u32 {
        32 / self.elements
    }

    /// `extractAndSignExt`'s element i of x.
    fn element(&self, x: u32, i: u32, signed: bool) -> i64 {
        let bits = self.bits();
        let field = i64::from((x >> (i * bits)) & (u32::MAX >> (32 - bits)));
        if signed && field >> (bits - 1) != 0 {
            field - (1i64 << bits)
        } else {
            field
        }
    }

    /// `t[i]`: the operation on one pair of elements, clamped to the destination's element
    /// with `.sat`.
    fn t(&self, op: SimdOp, va: i64, vb: i64) -> i64 {
        let t = match op {
            SimdOp::Set(cmp) => return i64::from(compare(cmp, va, vb)),
            SimdOp::Arith(Vop::Add) => va + vb,
            SimdOp::Arith(Vop::Sub) => va - vb,
            // Rounds half away from zero: `(Va + Vb + 1) >> 1` when the sum is not negative,
            // `(Va + Vb) >> 1` (arithmetic, so toward minus infinity) when it is.
            SimdOp::Arith(Vop::Avrg) if va + vb >= 0 => (va + vb + 1) >> 1,
            SimdOp::Arith(Vop::Avrg) => (va + vb) >> 1,
            SimdOp::Arith(Vop::Absdiff) => (va - vb).abs(),
            SimdOp::Arith(Vop::Min) => va.min(vb),
            SimdOp::Arith(Vop::Max) => va.max(vb),
        };
        if !self.sat {
            return t;
        }
        let bits = self.bits();
        if self.dsgn {
            t.clamp(-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
        } else {
            t.clamp(0, (1i64 << bits) - 1)
        }
    }
}

/// vadd2 .. vset4 after their selectors: each element pair's result `t[i]`, then
/// `d = c + sum of the masked t[i]` (`.add`, wrapping at 32 bits) or, merging, element i of d
/// is the low bits of `t[i]` where the mask has i and element i of c where it has not.
pub fn simd(op: SimdOp, s: &Simd, a: u32, b: u32, c: u32) -> u32 {
    let bits = s.bits();
    let low = u32::MAX >> (32 - bits);
    let mut d = if s.acc { c } else { 0 };
    for i in 0..s.elements {
        let taken = s.mask >> i & 1 != 0;
        let t = s.t(op, s.element(a, i, s.asgn), s.element(b, i, s.bsgn));
        if s.acc {
            if taken {
                d = d.wrapping_add(t as u32);
            }
        } else {
            let e = if taken { t as u32 } else { c >> (i * bits) };
            d |= (e & low) << (i * bits);
        }
    }
    d
}

/// vmad's modifiers.
#[derive(Clone, Copy, Debug)]
pub struct Mad {
    pub asgn: bool,
    pub bsgn: bool,
    pub asel: Vsel,
    pub bsel: Vsel,
    pub sat: bool,
    pub neg: Vneg,
    pub scale: Vscale,
    pub po: bool,
}

/// vmad: (a * b) + c in 128 bits, with negation of the product or of c (as one's complement
/// plus one), or plus one (`.po`), then scaling and saturation. The destination type plays no
/// part: the pseudocode's `signedFinal` decides.
pub fn mad(m: &Mad, a: u32, b: u32, c: u32) -> u32 {
    let ta = select(a, m.asgn, m.asel);
    let tb = select(b, m.bsgn, m.bsel);
    let product_negated = m.neg == Vneg::NegAb;
    let c_negated = m.neg == Vneg::NegC;
    let signed_final = m.asgn || m.bsgn || product_negated || c_negated;
    let mut tmp = i128::from(ta) * i128::from(tb);
    let mut c = c;
    let mut lsb = 0;
    if m.po {
        lsb = 1;
    } else if product_negated {
        tmp = !tmp;
        lsb = 1;
    } else if c_negated {
        c = !c;
        lsb = 1;
    }
    let c128 = if signed_final {
        i128::from(c as i32)
    } else {
        i128::from(c)
    };
    let tmp = tmp.wrapping_add(c128).wrapping_add(lsb);
    let result: i128 = match m.scale {
        Vscale::Shr7 => i128::from(((tmp >> 7) as u64) as i64),
        Vscale::Shr15 => i128::from(((tmp >> 15) as u64) as i64),
        Vscale::None => tmp,
    };
    let result = if m.sat {
        if signed_final {
            result.clamp(i128::from(i32::MIN), i128::from(i32::MAX))
        } else {
            result.clamp(0, i128::from(u32::MAX))
        }
    } else {
        result
    };
    result as u32
}
