//! 16-bit floats: f16 and bf16, and their pairs f16x2 and bf16x2 (a half at a time, the
//! high half shifted down first and the two results packed). sgpu computes them in f32
//! between `F2F` conversions: widening is exact, and rounding an f32 result of `+ - x` to the
//! narrow format gives the exact result rounded once, since f32's 24 bits are at least
//! twice f16's 11 (or bf16's 8) plus two (Figueroa's double-rounding theorem); `fma` rounds
//! its f32 sum to odd first (docs/float.md). `.ftz` flushes f16 subnormals (which are f32
//! normals, so f32's flush would not) with integer operations on the 16 bits.

use super::float::Clamps;
use super::int::{LUT_OR, LUT_XOR};
use super::*;
use sgpu_isa::{Bop, Fcmp, Fcvt, Icmp, Rnd};

/// A 16-bit float format, as the lowering computes on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Half {
    /// `F2F`'s conversions to f32 and back.
    pub widen: Fcvt,
    pub narrow: Fcvt,
    /// The exponent field's bits: a value with none set is zero or subnormal.
    pub exponent: u32,
    /// 1.0, which `set` writes where a comparison holds.
    pub one: u32,
    /// The canonical NaN every float unit gives.
    pub nan: u32,
}

pub(super) const F16: Half = Half {
    widen: Fcvt::FromF16,
    narrow: Fcvt::F16,
    exponent: 0x7c00,
    one: 0x3c00,
    nan: 0x7fff,
};

pub(super) const BF16: Half = Half {
    widen: Fcvt::FromBf16,
    narrow: Fcvt::Bf16,
    exponent: 0x7f80,
    one: 0x3f80,
    nan: 0x7fff,
};

/// The 16-bit format of a PTX type, and whether the type is a pair of them.
pub(super) fn half_type(t: Type) -> Option<(Half, bool)> {
    match t.name {
        "f16" => Some((F16, false)),
        "f16x2" => Some((F16, true)),
        "bf16" => Some((BF16, false)),
        "bf16x2" => Some((BF16, true)),
        _ => None,
    }
}

/// The modifiers a 16-bit operation honours.
#[derive(Clone, Copy, Debug, Default)]
struct Modes {
    ftz: bool,
    sat: bool,
    relu: bool,
    nan: bool,
    xorsign: bool,
}

impl<'a> FnLower<'a, '_> {
    /// add, sub, mul, fma, min, max, neg, abs, ex2 and tanh on a 16-bit type or a pair.
    pub(super) fn half_arith(&mut self, ins: &PtxInstruction<'a>, format: Half, pair: bool) {
        let op = ins.opcode();
        let Some((d, dp, _)) = self.dest(ins, 0) else {
            return;
        };
        let Some(lanes) = self.source_lanes(ins) else {
            return;
        };
        let modes = Modes {
            ftz: self.has(".ftz"),
            sat: self.has(".sat"),
            relu: self.has(".relu"),
            nan: self.has(".NaN"),
            xorsign: ins.modifiers().any(|m| m == ".xorsign"),
        };
        self.each_half(d, dp, &lanes, pair, |me, d, halves| {
            me.half_op(ins, op, format, d, halves, modes)
        });
    }

    /// `f(d, halves)` on the low halves of `lanes` into `d`, or with `pair` on each half,
    /// packed into `d`.
    pub(super) fn each_half(
        &mut self,
        d: VReg,
        dp: u8,
        lanes: &[Lane],
        pair: bool,
        mut f: impl FnMut(&mut Self, (VReg, u8), &[Lane]),
    ) {
        if !pair {
            return f(self, (d, dp), lanes);
        }
        let results = [self.new32(), self.new32()];
        f(self, (results[0], 0), lanes);
        let high: Vec<Lane> = lanes.iter().map(|l| self.high_half(*l)).collect();
        f(self, (results[1], 0), &high);
        self.pack_word(d, dp, &results.map(|t| Lane::Reg(t, 0)), 16);
    }

    /// One 16-bit operation of the low halves of `lanes` into `d`.
    fn half_op(
        &mut self,
        ins: &PtxInstruction<'a>,
        op: &str,
        format: Half,
        d: (VReg, u8),
        lanes: &[Lane],
        modes: Modes,
    ) {
        let inputs: Vec<Lane> = if modes.ftz {
            lanes.iter().map(|l| self.flush_half(*l, format)).collect()
        } else {
            lanes.to_vec()
        };
        let wide: Vec<Lane> = inputs.iter().map(|l| self.widen_half(*l, format)).collect();
        let clamps = Clamps {
            sat: modes.sat,
            relu: modes.relu,
            satfinite: false,
        };
        let t = self.new32();
        let result = match (op, wide.as_slice()) {
            ("fma", [a, b, c]) => {
                let odd = if format == BF16 {
                    self.bf16_sum_to_odd(*a, *b, *c)
                } else {
                    self.sum_to_odd(*a, *b, *c)
                };
                self.narrow_half((t, 0), odd, format, clamps);
                Lane::Reg(t, 0)
            }
            ("min" | "max", [a, b]) => {
                let m = self.new32();
                let abs = modes.xorsign;
                self.fminmax(m, (*a, *b), op == "max", (modes.nan, abs));
                self.narrow_half((t, 0), Lane::Reg(m, 0), format, clamps);
                if abs {
                    self.xor_signs(Lane::Reg(t, 0), (inputs[0], inputs[1]), format)
                } else {
                    Lane::Reg(t, 0)
                }
            }
            _ => {
                let f = self.new32();
                let exact = (Rnd::Rn, false, false, self.has(".approx"));
                self.float_op(ins, op, (f, 0), &wide, exact);
                self.narrow_half((t, 0), Lane::Reg(f, 0), format, clamps);
                Lane::Reg(t, 0)
            }
        };
        let result = if modes.ftz {
            self.flush_half(result, format)
        } else {
            result
        };
        self.mov_lane(d.0, d.1, result);
    }

    /// `.xorsign.abs`: the sign of `r` (a minimum or maximum of magnitudes) replaced by the
    /// exclusive or of a's and b's, unless `r` is NaN.
    fn xor_signs(&mut self, r: Lane, (a, b): (Lane, Lane), format: Half) -> Lane {
        let signs = self.new32();
        self.logic(signs, 0, a, b, LUT_XOR);
        let signed = self.new32();
        self.copy_sign(signed, Lane::Reg(signs, 0), r, 0x8000, 0);
        let nan = self.is(Icmp::Eq, false, r, Lane::Imm(format.nan));
        let out = self.new32();
        self.sel(out, 0, r, Lane::Reg(signed, 0), (nan, false));
        Lane::Reg(out, 0)
    }

    /// FMNMX of f32 lanes: `max`, and (`.NaN`, `|a|` and `|b|`).
    pub(super) fn fminmax(
        &mut self,
        d: VReg,
        (a, b): (Lane, Lane),
        max: bool,
        (nan, abs): (bool, bool),
    ) {
        let (ra, rb) = (self.r(a), self.r(b));
        let rd = R::of(d, 0);
        self.emit(
            Op::Fmnmx {
                rd: rd.reg,
                ra: ra.reg,
                rb: rb.reg,
                max,
                ftz: false,
                nan,
                absa: abs,
                absb: abs,
            },
            &binary(rd, ra, rb),
        );
    }

    /// The high half of a pair, in the low 16 bits where the 16-bit paths read it.
    pub(super) fn high_half(&mut self, l: Lane) -> Lane {
        match l {
            Lane::Imm(i) => Lane::Imm(i >> 16),
            reg => {
                let t = self.new32();
                let r = self.r(reg);
                self.shift(t, 0, r, Lane::Imm(16), false, true);
                Lane::Reg(t, 0)
            }
        }
    }

    /// A 16-bit value (the low 16 bits) widened to f32, exactly.
    pub(super) fn widen_half(&mut self, l: Lane, format: Half) -> Lane {
        let t = self.new32();
        self.f2f(
            (t, 0),
            l,
            (format.widen, false, Rnd::Rn, false),
            Clamps::default(),
        );
        Lane::Reg(t, 0)
    }

    /// An f32 value rounded to nearest into the 16-bit format, clamped first.
    pub(super) fn narrow_half(&mut self, d: (VReg, u8), l: Lane, format: Half, clamps: Clamps) {
        self.f2f(d, l, (format.narrow, false, Rnd::Rn, false), clamps);
    }

    /// `.ftz` on a 16-bit value: a subnormal (no exponent bit set) becomes a zero of its sign.
    pub(super) fn flush_half(&mut self, l: Lane, format: Half) -> Lane {
        if let Lane::Imm(i) = l {
            let subnormal = i & format.exponent == 0;
            return Lane::Imm(if subnormal { i & 0x8000 } else { i });
        }
        let exponent = self.new32();
        self.logic(exponent, 0, l, Lane::Imm(format.exponent), int::LUT_AND);
        let subnormal = self.is(Icmp::Eq, false, Lane::Reg(exponent, 0), Lane::Imm(0));
        let sign = self.new32();
        self.logic(sign, 0, l, Lane::Imm(0x8000), int::LUT_AND);
        let out = self.new32();
        self.sel(out, 0, Lane::Reg(sign, 0), l, (subnormal, false));
        Lane::Reg(out, 0)
    }

    /// `a * b + c` of 16-bit values widened to f32, rounded to odd in f32: the product is
    /// exact (22 bits for f16, 16 for bf16, and above f32's subnormals wherever it could
    /// matter), the sum is rounded to nearest and its exact error found by TwoSum; where the
    /// error is not zero the sum steps toward the exact value's zero side and its last bit is
    /// set. Rounding that to the narrow format (11 or 8 bits, at least two fewer than 24)
    /// gives `fma.rn` rounded once (Boldo and Melquiond's round-to-odd). An infinite or NaN
    /// sum has a NaN error and stays.
    fn sum_to_odd(&mut self, a: Lane, b: Lane, c: Lane) -> Lane {
        let p = self.fmul(a, b);
        let sum = self.fadd(p, c, false);
        // TwoSum: error = (p - (sum - bb)) + (c - bb), bb = sum - p.
        let bb = self.fadd(sum, p, true);
        let t1 = self.fadd(sum, bb, true);
        let t2 = self.fadd(p, t1, true);
        let t3 = self.fadd(c, bb, true);
        let error = self.fadd(t2, t3, false);
        // Toward zero when the error's sign differs from the sum's: the bits less one.
        let signs = self.new32();
        self.logic(signs, 0, sum, error, LUT_XOR);
        let down = self.new32();
        let rs = self.r(Lane::Reg(signs, 0));
        self.shift(down, 0, rs, Lane::Imm(31), false, true);
        let stepped = self.new32();
        self.sub(stepped, 0, sum, Lane::Reg(down, 0));
        let odd = self.new32();
        self.logic(odd, 0, Lane::Reg(stepped, 0), Lane::Imm(1), LUT_OR);
        let inexact = self.vregs.new_reg(Class::Pred);
        let zero = Lane::Imm(0);
        self.fcmp(inexact, None, Fcmp::Ne, error, zero, None, Bop::And, false);
        let result = self.new32();
        self.sel(result, 0, Lane::Reg(odd, 0), sum, (inexact, false));
        Lane::Reg(result, 0)
    }

    /// [`sum_to_odd`](Self::sum_to_odd) of bf16 values, whose product can pass f32's
    /// range (bf16 has f32's exponents). Where finite a and b give an infinite f32 product:
    /// with an infinite c the sum is c; else a and c scaled by 2^-8 (exact: the product is
    /// then at least 2^119, so neither is small) give the sum scaled, and scaling it back by
    /// 2^8 is exact, or infinite where the value is beyond bf16's range anyway (a product
    /// past 2^129, still infinite when scaled, leaves no finite sum with |c| < 2^128).
    /// Below the range, a product of nonzero values can be an f32 zero: with a zero c the
    /// sum is then the product, whose sign a zero sum would lose (a lost product never
    /// moves a nonzero c's rounding: bf16's last place is 2^16 f32 subnormals).
    fn bf16_sum_to_odd(&mut self, a: Lane, b: Lane, c: Lane) -> Lane {
        const DOWN: u32 = 0x3b80_0000; // 2^-8
        const UP: u32 = 0x4380_0000; // 2^8
        let direct = self.sum_to_odd(a, b, c);
        let product = self.fmul(a, b);
        let [a_mag, b_mag, p_mag, c_mag] = [a, b, product, c].map(|x| {
            let m = self.new32();
            self.logic(m, 0, x, Lane::Imm(0x7fff_ffff), int::LUT_AND);
            Lane::Reg(m, 0)
        });
        let inf = Lane::Imm(f32::INFINITY.to_bits());
        let (a_finite, b_finite, overflow) = (
            self.vregs.new_reg(Class::Pred),
            self.vregs.new_reg(Class::Pred),
            self.vregs.new_reg(Class::Pred),
        );
        self.icmp32(
            a_finite,
            None,
            Icmp::Ne,
            false,
            a_mag,
            inf,
            None,
            Bop::And,
            false,
        );
        let and_a = Some((a_finite, false));
        self.icmp32(
            b_finite,
            None,
            Icmp::Ne,
            false,
            b_mag,
            inf,
            and_a,
            Bop::And,
            false,
        );
        let and_b = Some((b_finite, false));
        self.icmp32(
            overflow,
            None,
            Icmp::Eq,
            false,
            p_mag,
            inf,
            and_b,
            Bop::And,
            false,
        );
        let c_infinite = self.is(Icmp::Eq, false, c_mag, inf);
        let (a2, c2) = (self.fmul(a, Lane::Imm(DOWN)), self.fmul(c, Lane::Imm(DOWN)));
        let scaled = self.sum_to_odd(a2, b, c2);
        let back = self.fmul(scaled, Lane::Imm(UP));
        let large = self.new32();
        self.sel(large, 0, c, back, (c_infinite, false));
        let in_range = self.new32();
        self.sel(in_range, 0, Lane::Reg(large, 0), direct, (overflow, false));
        let (a_nonzero, b_nonzero, only_product) = (
            self.vregs.new_reg(Class::Pred),
            self.vregs.new_reg(Class::Pred),
            self.vregs.new_reg(Class::Pred),
        );
        let zero = Lane::Imm(0);
        self.icmp32(
            a_nonzero,
            None,
            Icmp::Ne,
            false,
            a_mag,
            zero,
            None,
            Bop::And,
            false,
        );
        let and_a = Some((a_nonzero, false));
        self.icmp32(
            b_nonzero,
            None,
            Icmp::Ne,
            false,
            b_mag,
            zero,
            and_a,
            Bop::And,
            false,
        );
        let and_b = Some((b_nonzero, false));
        self.icmp32(
            only_product,
            None,
            Icmp::Eq,
            false,
            c_mag,
            zero,
            and_b,
            Bop::And,
            false,
        );
        let result = self.new32();
        self.sel(
            result,
            0,
            product,
            Lane::Reg(in_range, 0),
            (only_product, false),
        );
        Lane::Reg(result, 0)
    }

    /// `a * b` in f32, rounded to nearest, into a new register.
    fn fmul(&mut self, a: Lane, b: Lane) -> Lane {
        self.f32_binary(a, b, |rd, ra, rb| Op::Fmul {
            rd,
            ra,
            rb,
            rnd: Rnd::Rn,
            ftz: false,
            sat: false,
            na: false,
            absa: false,
            absb: false,
        })
    }

    /// `a + b` (`a - b` with `negate`) in f32, rounded to nearest, into a new register.
    fn fadd(&mut self, a: Lane, b: Lane, negate: bool) -> Lane {
        self.f32_binary(a, b, |rd, ra, rb| Op::Fadd {
            rd,
            ra,
            rb,
            rnd: Rnd::Rn,
            ftz: false,
            sat: false,
            na: false,
            nb: negate,
            absa: false,
            absb: false,
        })
    }

    /// The instruction `op(rd, ra, rb)` of `a` and `b` into a new register.
    fn f32_binary(&mut self, a: Lane, b: Lane, op: impl FnOnce(Reg, Reg, Reg) -> Op) -> Lane {
        let d = self.new32();
        let (ra, rb, rd) = (self.r(a), self.r(b), R::of(d, 0));
        self.emit(op(rd.reg, ra.reg, rb.reg), &binary(rd, ra, rb));
        Lane::Reg(d, 0)
    }
}
