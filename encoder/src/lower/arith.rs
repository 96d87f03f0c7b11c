//! Integer arithmetic: add, sub, mul, mad, div and rem, min and max, abs and neg, on 8- to
//! 64-bit values (64-bit ones as register pairs, a word at a time with the carry).

use super::int::*;
use super::*;
use sgpu_isa::{Bop, Icmp, Ity};

impl<'a> FnLower<'a, '_> {
    /// Integer and float arithmetic.
    pub(super) fn arith(&mut self, ins: &PtxInstruction<'a>) {
        let Some(ty) = self.tys.last().copied() else {
            return self.unsupported(format!("`{}` without a type", ins.mnemonic.text));
        };
        if ty.class == TyClass::Float {
            return self.float(ins);
        }
        if matches!(ty.name, "u16x2" | "s16x2") {
            return self.int_pair(ins, ty.name == "s16x2");
        }
        let op = ins.opcode();
        let Some((d, dp, _)) = self.dest(ins, 0) else {
            return;
        };
        let Some(srcs) = self.all_sources(ins) else {
            return;
        };
        if ty.bits == 64 {
            return self.arith64(ins, op, d, dp, &srcs);
        }
        let sgn = signed(ty);
        let narrow = ty.bits < 32;
        let lanes: Vec<Lane> = match srcs.iter().map(|s| self.lane(*s, false)).collect() {
            Some(l) => l,
            None => return,
        };
        // Operands of operations that read more than the low bits get extended.
        let ext = |me: &mut Self, l: Lane| if narrow { me.extend(l, ty) } else { l };
        match (op, lanes.as_slice()) {
            ("add" | "sub", [a, b]) => {
                let sat = self.has(".sat");
                let (cc, x) = (self.has(".cc"), false);
                self.iadd(d, dp, *a, *b, op == "sub", cc, x, sat);
            }
            ("addc" | "subc", [a, b]) => {
                self.iadd(d, dp, *a, *b, op == "subc", self.has(".cc"), true, false);
            }
            ("mul", [a, b]) if self.has(".wide") => {
                let (a, b) = (ext(self, *a), ext(self, *b));
                if ty.bits == 16 {
                    // 16 x 16 -> 32 bits: the low word of the extended product.
                    return self.imul(d, dp, a, b, false, sgn);
                }
                self.imul(d, dp, a, b, false, sgn);
                self.imul(d, dp + 1, a, b, true, sgn);
            }
            ("mul", [a, b]) if self.has(".hi") => {
                if narrow {
                    let (a, b) = (ext(self, *a), ext(self, *b));
                    let t = self.new32();
                    self.imul(t, 0, a, b, false, sgn);
                    self.shift(d, dp, R::of(t, 0), Lane::Imm(u32::from(ty.bits)), sgn, true);
                } else {
                    self.imul(d, dp, *a, *b, true, sgn);
                }
            }
            ("mul", [a, b]) => self.imul(d, dp, *a, *b, false, sgn),
            ("mul24", [a, b]) => {
                let (a, b) = (self.low24(*a, sgn), self.low24(*b, sgn));
                if self.has(".hi") {
                    // Bits 47:16 of the 48-bit product.
                    let (lo, hi) = (self.new32(), self.new32());
                    self.imul(lo, 0, a, b, false, sgn);
                    self.imul(hi, 0, a, b, true, sgn);
                    self.funnel(
                        d,
                        dp,
                        Lane::Reg(lo, 0),
                        Lane::Reg(hi, 0),
                        Lane::Imm(16),
                        true,
                        false,
                    );
                } else {
                    self.imul(d, dp, a, b, false, sgn);
                }
            }
            ("mad", [a, b, c]) if self.has(".wide") => {
                let (a, b) = (ext(self, *a), ext(self, *b));
                let Some(clo) = self.lane(srcs[2], false) else {
                    return;
                };
                let Some(chi) = self.lane(srcs[2], true) else {
                    return;
                };
                self.imad(d, dp, a, b, clo, false, sgn, true, false);
                self.imad(d, dp + 1, a, b, chi, true, sgn, false, true);
            }
            ("mad", [a, b, c]) if self.has(".hi") && !narrow => {
                self.imad(d, dp, *a, *b, *c, true, sgn, self.has(".cc"), false)
            }
            ("mad", [a, b, c]) if !self.has(".hi") => {
                self.imad(d, dp, *a, *b, *c, false, sgn, self.has(".cc"), false)
            }
            ("madc", [a, b, c]) => self.imad(
                d,
                dp,
                *a,
                *b,
                *c,
                self.has(".hi"),
                sgn,
                self.has(".cc"),
                true,
            ),
            ("mad24", [a, b, c]) if !self.has(".hi") => {
                let (a, b) = (self.low24(*a, sgn), self.low24(*b, sgn));
                self.imad(d, dp, a, b, *c, false, sgn, false, false);
            }
            ("div" | "rem", [a, b]) => {
                let (a, b) = (ext(self, *a), ext(self, *b));
                self.idiv(d, dp, a, b, sgn, op == "rem", false);
            }
            ("min" | "max", [a, b]) if self.has(".relu") => {
                // max(min or max, 0), signed (`.relu` is for s32 only).
                let t = self.new32();
                self.minmax(t, *a, *b, op == "max", true);
                let rd = R::of(d, dp);
                let (rt, zero) = (self.r(Lane::Reg(t, 0)), self.ri(Lane::Imm(0)));
                self.emit(
                    Op::Imnmx {
                        rd: rd.reg,
                        ra: rt.reg,
                        rb: zero.val,
                        max: true,
                        sgn: true,
                    },
                    &binary_ri(rd, rt, zero),
                );
            }
            ("min" | "max", [a, b]) => {
                let (a, b) = (ext(self, *a), ext(self, *b));
                let (ra, rb) = (self.r(a), self.ri(b));
                let rd = R::of(d, dp);
                self.emit(
                    Op::Imnmx {
                        rd: rd.reg,
                        ra: ra.reg,
                        rb: rb.val,
                        max: op == "max",
                        sgn,
                    },
                    &binary_ri(rd, ra, rb),
                );
            }
            ("abs", [a]) => {
                let a = ext(self, *a);
                let ra = self.r(a);
                let rd = R::of(d, dp);
                self.emit(
                    Op::Iabs {
                        rd: rd.reg,
                        ra: ra.reg,
                    },
                    &unary(rd, ra),
                );
            }
            ("neg", [a]) => self.sub(d, dp, Lane::Imm(0), *a),
            ("sad", [a, b, c]) => {
                // |a - b| + c, with a and b compared at their width.
                let (a, b) = (ext(self, *a), ext(self, *b));
                let (hi, lo) = (self.new32(), self.new32());
                self.minmax(hi, a, b, true, sgn);
                self.minmax(lo, a, b, false, sgn);
                let t = self.new32();
                self.sub(t, 0, Lane::Reg(hi, 0), Lane::Reg(lo, 0));
                self.add(d, dp, Lane::Reg(t, 0), *c);
            }
            _ => self.unsupported(format!("`{}`", ins.mnemonic.text)),
        }
    }

    pub(super) fn minmax(&mut self, d: VReg, a: Lane, b: Lane, max: bool, sgn: bool) {
        let (ra, rb) = (self.r(a), self.ri(b));
        let rd = R::of(d, 0);
        self.emit(
            Op::Imnmx {
                rd: rd.reg,
                ra: ra.reg,
                rb: rb.val,
                max,
                sgn,
            },
            &binary_ri(rd, ra, rb),
        );
    }

    /// The low 24 bits of a lane, extended, as `mul24` reads its operands.
    pub(super) fn low24(&mut self, l: Lane, sgn: bool) -> Lane {
        let t = self.new32();
        self.bfe(t, 0, l, Lane::Imm(0), Lane::Imm(24), sgn);
        Lane::Reg(t, 0)
    }

    /// Extends a 8- or 16-bit value to 32 bits, by its type's signedness.
    pub(super) fn extend(&mut self, l: Lane, ty: Type) -> Lane {
        if let Lane::Imm(i) = l {
            let bits = u32::from(ty.bits);
            let v = if signed(ty) {
                ((i << (32 - bits)) as i32 >> (32 - bits)) as u32
            } else {
                i & ((1u32 << bits) - 1)
            };
            return Lane::Imm(v);
        }
        let from = match (ty.bits, signed(ty)) {
            (8, false) => Ity::U8,
            (8, true) => Ity::S8,
            (16, false) => Ity::U16,
            _ => Ity::S16,
        };
        let to = if signed(ty) { Ity::S32 } else { Ity::U32 };
        let t = self.new32();
        self.i2i(t, 0, l, to, from, false);
        Lane::Reg(t, 0)
    }

    pub(super) fn i2i(&mut self, d: VReg, dp: u8, a: Lane, ito: Ity, ifrom: Ity, sat: bool) {
        let ra = self.r(a);
        let rd = R::of(d, dp);
        self.emit(
            Op::I2i {
                rd: rd.reg,
                ra: ra.reg,
                ito,
                ifrom,
                sat,
            },
            &unary(rd, ra),
        );
    }

    /// `d = a + b` in 32 bits, no flags.
    pub(super) fn add(&mut self, d: VReg, dp: u8, a: Lane, b: Lane) {
        self.iadd(d, dp, a, b, false, false, false, false);
    }

    /// `d = a - b` in 32 bits, no flags.
    pub(super) fn sub(&mut self, d: VReg, dp: u8, a: Lane, b: Lane) {
        self.iadd(d, dp, a, b, true, false, false, false);
    }

    /// `d = a + b` (`a - b` with `sub`) on 64-bit values as (low, high) words: the low words
    /// set the carry, the high words take it.
    pub(super) fn add64(&mut self, d: VReg, dp: u8, a: (Lane, Lane), b: (Lane, Lane), sub: bool) {
        self.add64_carry(d, dp, a, b, sub, (false, false));
    }

    /// [`add64`](Self::add64) that takes the carry in (`addc`, `subc`) and leaves the high
    /// word's carry out (`.cc`) as `(carry_in, carry_out)` say.
    pub(super) fn add64_carry(
        &mut self,
        d: VReg,
        dp: u8,
        a: (Lane, Lane),
        b: (Lane, Lane),
        sub: bool,
        (carry_in, carry_out): (bool, bool),
    ) {
        self.iadd(d, dp, a.0, b.0, sub, true, carry_in, false);
        self.iadd(d, dp + 1, a.1, b.1, sub, carry_out, true, false);
    }

    /// `base + k` in a new register: a pair when `wide` (`base` is its low and high words).
    pub(super) fn add_constant(&mut self, base: (Lane, Lane), wide: bool, k: u64) -> VReg {
        let (lo, hi) = (Lane::Imm(k as u32), Lane::Imm((k >> 32) as u32));
        if wide {
            let t = self.new64();
            self.add64(t, 0, base, (lo, hi), false);
            t
        } else {
            let t = self.new32();
            self.add(t, 0, base.0, lo);
            t
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn iadd(
        &mut self,
        d: VReg,
        dp: u8,
        a: Lane,
        b: Lane,
        nb: bool,
        cc: bool,
        x: bool,
        sat: bool,
    ) {
        // A 32-bit immediate that no flag needs: IADD32I (negated here for `sub`).
        if let (Lane::Imm(i), false, false, false) = (b, cc, x, sat) {
            if i >= 256 {
                let ra = self.r(a);
                let rd = R::of(d, dp);
                let imm32 = if nb { i.wrapping_neg() } else { i };
                self.emit(
                    Op::Iadd32i {
                        rd: rd.reg,
                        ra: ra.reg,
                        imm32,
                    },
                    &unary(rd, ra),
                );
                return;
            }
        }
        let (ra, rb) = (self.r(a), self.ri(b));
        let rd = R::of(d, dp);
        self.emit(
            Op::Iadd {
                rd: rd.reg,
                ra: ra.reg,
                rb: rb.val,
                nb,
                cc,
                x,
                sat,
            },
            &binary_ri(rd, ra, rb),
        );
    }

    pub(super) fn imul(&mut self, d: VReg, dp: u8, a: Lane, b: Lane, hi: bool, sgn: bool) {
        let (ra, rb) = (self.r(a), self.ri(b));
        let rd = R::of(d, dp);
        self.emit(
            Op::Imul {
                rd: rd.reg,
                ra: ra.reg,
                rb: rb.val,
                hi,
                sgn,
            },
            &binary_ri(rd, ra, rb),
        );
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn imad(
        &mut self,
        d: VReg,
        dp: u8,
        a: Lane,
        b: Lane,
        c: Lane,
        hi: bool,
        sgn: bool,
        cc: bool,
        x: bool,
    ) {
        let (ra, rb, rc) = (self.r(a), self.ri(b), self.ri(c));
        let rd = R::of(d, dp);
        self.emit(
            Op::Imad {
                rd: rd.reg,
                ra: ra.reg,
                rb: rb.val,
                rc: rc.val,
                hi,
                sgn,
                cc,
                x,
            },
            &[
                def(fields::RD, rd),
                use_(fields::RA, ra),
                use_ri(fields::RB, rb),
                use_ri(fields::RC, rc),
            ],
        );
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn idiv(
        &mut self,
        d: VReg,
        dp: u8,
        a: Lane,
        b: Lane,
        sgn: bool,
        rem: bool,
        w64: bool,
    ) {
        let (ra, rb) = (self.r(a), self.r(b));
        let rd = R::of(d, dp);
        let w = if w64 { 2 } else { 1 };
        self.emit(
            Op::Idiv {
                rd: rd.reg,
                ra: ra.reg,
                rb: rb.reg,
                sgn,
                rem,
                w64,
            },
            &[
                wide(def(fields::RD, rd), w),
                wide(use_(fields::RA, ra), w),
                wide(use_(fields::RB, rb), w),
            ],
        );
    }

    /// 64-bit arithmetic on register pairs.
    pub(super) fn arith64(
        &mut self,
        ins: &PtxInstruction<'a>,
        op: &str,
        d: VReg,
        dp: u8,
        srcs: &[Src<'a>],
    ) {
        let sgn = self.tys.last().is_some_and(|t| signed(*t));
        let mut lo = Vec::new();
        let mut hi = Vec::new();
        for s in srcs {
            let (Some(l), Some(h)) = (self.lane(*s, false), self.lane(*s, true)) else {
                return;
            };
            lo.push(l);
            hi.push(h);
        }
        match (op, lo.as_slice(), hi.as_slice()) {
            ("add" | "sub" | "addc" | "subc", [al, bl], [ah, bh]) => {
                let (sub, carry_in) = (op.starts_with("sub"), op.ends_with('c'));
                let carry = (carry_in, self.has(".cc"));
                self.add64_carry(d, dp, (*al, *ah), (*bl, *bh), sub, carry);
            }
            ("neg", [al], [ah]) => {
                let zero = (Lane::Imm(0), Lane::Imm(0));
                self.add64(d, dp, zero, (*al, *ah), true);
            }
            ("mul", [al, bl], [ah, bh]) if self.has(".hi") => {
                // The high 64 bits of the 128-bit product, a word at a time: the middle word's
                // carries flow into the third and fourth words. Signed: subtract b where a is
                // negative and a where b is negative (two's complement).
                let (al, ah, bl, bh) = (*al, *ah, *bl, *bh);
                let t = self.new64();
                let m = self.new32();
                let u = self.new32();
                let z = Lane::Imm(0);
                self.imul(m, 0, al, bl, true, false);
                self.imad(m, 0, al, bh, Lane::Reg(m, 0), false, false, true, false);
                self.imad(t, 0, al, bh, z, true, false, false, true);
                self.imad(m, 0, ah, bl, Lane::Reg(m, 0), false, false, true, false);
                self.imad(u, 0, ah, bl, z, true, false, false, true);
                self.iadd(
                    t,
                    0,
                    Lane::Reg(t, 0),
                    Lane::Reg(u, 0),
                    false,
                    true,
                    false,
                    false,
                );
                self.imad(t, 1, ah, bh, z, true, false, false, true);
                self.imad(t, 0, ah, bh, Lane::Reg(t, 0), false, false, true, false);
                self.iadd(t, 1, Lane::Reg(t, 1), z, false, false, true, false);
                if sgn {
                    for (neg, (xl, xh)) in [(ah, (bl, bh)), (bh, (al, ah))] {
                        let p = self.is(Icmp::Lt, true, neg, z);
                        let s = self.new64();
                        self.sel(s, 0, xl, z, (p, false));
                        self.sel(s, 1, xh, z, (p, false));
                        self.add64(t, 0, pair_lanes(t), pair_lanes(s), true);
                    }
                }
                self.mov_lane(d, dp, Lane::Reg(t, 0));
                self.mov_lane(d, dp + 1, Lane::Reg(t, 1));
            }
            ("mul", [al, bl], [ah, bh]) if !self.has(".hi") => {
                // lo(a*b) = lo(al*bl); hi = hi(al*bl) + al*bh + ah*bl, into a temporary
                // pair so that d may be a or b.
                let t = self.new64();
                self.imul(t, 1, *al, *bl, true, false);
                self.imad(t, 1, *al, *bh, Lane::Reg(t, 1), false, false, false, false);
                self.imad(t, 1, *ah, *bl, Lane::Reg(t, 1), false, false, false, false);
                self.imul(t, 0, *al, *bl, false, false);
                self.mov_lane(d, dp, Lane::Reg(t, 0));
                self.mov_lane(d, dp + 1, Lane::Reg(t, 1));
            }
            ("mad", [al, bl, cl], [ah, bh, ch]) if self.has(".lo") => {
                let t = self.new64();
                self.imul(t, 1, *al, *bl, true, false);
                self.imad(t, 1, *al, *bh, Lane::Reg(t, 1), false, false, false, false);
                self.imad(t, 1, *ah, *bl, Lane::Reg(t, 1), false, false, false, false);
                self.imul(t, 0, *al, *bl, false, false);
                self.add64(d, dp, pair_lanes(t), (*cl, *ch), false);
            }
            ("div" | "rem", [..], [..]) => {
                let (a, b) = (srcs[0], srcs[1]);
                let (Some(a), Some(b)) = (self.pair(a), self.pair(b)) else {
                    return;
                };
                self.idiv(d, dp, a, b, sgn, op == "rem", true);
            }
            ("min" | "max", [al, bl], [ah, bh]) => {
                // p = a < b (64-bit), then a select per word.
                let p = self.vregs.new_reg(Class::Pred);
                let cmp = if op == "min" { Icmp::Lt } else { Icmp::Gt };
                self.icmp64(p, cmp, sgn, (*al, *ah), (*bl, *bh), None, Bop::And);
                self.sel(d, dp, *al, *bl, (p, false));
                self.sel(d, dp + 1, *ah, *bh, (p, false));
            }
            ("sad", [al, bl, cl], [ah, bh, ch]) => {
                // |a - b| + c: the larger less the smaller, compared at 64 bits, plus c.
                let p = self.vregs.new_reg(Class::Pred);
                self.icmp64(p, Icmp::Gt, sgn, (*al, *ah), (*bl, *bh), None, Bop::And);
                let (larger, smaller, t) = (self.new64(), self.new64(), self.new64());
                for (w, a, b) in [(0, *al, *bl), (1, *ah, *bh)] {
                    self.sel(larger, w, a, b, (p, false));
                    self.sel(smaller, w, b, a, (p, false));
                }
                self.add64(t, 0, pair_lanes(larger), pair_lanes(smaller), true);
                self.add64(d, dp, pair_lanes(t), (*cl, *ch), false);
            }
            ("abs", [al], [ah]) => {
                let p = self.is(Icmp::Lt, true, *ah, Lane::Imm(0));
                let n = self.new64();
                self.add64(n, 0, (Lane::Imm(0), Lane::Imm(0)), (*al, *ah), true);
                self.sel(d, dp, Lane::Reg(n, 0), *al, (p, false));
                self.sel(d, dp + 1, Lane::Reg(n, 1), *ah, (p, false));
            }
            _ => self.unsupported(format!("`{}`", ins.mnemonic.text)),
        }
    }

    /// A 64-bit source as a register pair (an immediate is built in one).
    pub(super) fn pair(&mut self, s: Src<'a>) -> Option<Lane> {
        if let Src::Reg { v, part, .. } = s {
            return Some(Lane::Reg(v, part));
        }
        let t = self.new64();
        let lo = self.lane(s, false)?;
        let hi = self.lane(s, true)?;
        self.mov_lane(t, 0, lo);
        self.mov_lane(t, 1, hi);
        Some(Lane::Reg(t, 0))
    }
}
